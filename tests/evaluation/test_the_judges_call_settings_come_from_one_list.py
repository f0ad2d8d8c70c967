"""Machine judges and answer judges are called with the same settings, listed once with their
bounds and defaults (`goldsmith.judges.JUDGE_SETTINGS`): the engine's check, the answer judge
API's input and both judges' page forms are made from that list, so a bound changed there
holds everywhere, and a value beyond it is refused by every path with the engine's words."""

from __future__ import annotations

import pytest
from django import forms
from rest_framework import serializers

from evaluation.api.answer_judges import AnswerJudgeSettingsInput
from evaluation.forms import AnswerJudgeForm, JudgeForm
from evaluation.services.answer_judges import AnswerJudgeInvalid, answer_judge_register
from evaluation.services.endpoints import EndpointInvalid
from evaluation.services.judges import judge_register
from goldsmith.answers.judge import AnswerJudgeConfig
from goldsmith.judges import JUDGE_SETTINGS, HttpJudgeConfig

URL = "https://judge.example/score"
ON_THE_PAGES = {JudgeForm: ("batch_size", "max_concurrency"), AnswerJudgeForm: (
    "timeout", "max_concurrency", "retries",
)}  # fmt: skip


def test_the_list_holds_every_call_setting_with_its_bounds():
    assert list(JUDGE_SETTINGS) == [
        "timeout",
        "max_concurrency",
        "retries",
        "backoff",
        "batch_size",
    ]
    for config in (HttpJudgeConfig(url=URL), AnswerJudgeConfig(url=URL)):
        assert {n: getattr(config, n) for n in JUDGE_SETTINGS} == {
            n: s.default for n, s in JUDGE_SETTINGS.items()
        }


@pytest.mark.parametrize("form", list(ON_THE_PAGES))
def test_the_page_forms_take_their_bounds_and_defaults_from_the_list(form):
    for name in ON_THE_PAGES[form]:
        s, field = JUDGE_SETTINGS[name], form().fields[name]
        kind = forms.IntegerField if s.value_type is int else forms.FloatField
        assert type(field) is kind and not field.required, name
        assert (field.min_value, field.max_value, field.initial) == (
            s.minimum,
            s.maximum,
            s.default,
        ), name


def test_the_api_input_takes_its_bounds_from_the_list():
    fields = AnswerJudgeSettingsInput().fields
    for name, s in JUDGE_SETTINGS.items():
        kind = serializers.IntegerField if s.value_type is int else serializers.FloatField
        assert type(fields[name]) is kind and not fields[name].required, name
        assert (fields[name].min_value, fields[name].max_value) == (s.minimum, s.maximum), name


@pytest.mark.parametrize("name", list(JUDGE_SETTINGS))
def test_a_value_beyond_a_bound_is_refused_by_every_path_in_the_same_words(personas, name):
    s = JUDGE_SETTINGS[name]
    beyond = s.value_type(s.maximum) + 1
    words = f"{s.label} must be between {s.minimum:g} and {s.maximum:g}"
    assert HttpJudgeConfig(url=URL, **{name: beyond}).problems() == [words]
    assert AnswerJudgeConfig(url=URL, **{name: beyond}).problems() == [words]
    with pytest.raises(EndpointInvalid) as machine:
        judge_register(
            project=personas.project, name="m", kind="http", config={"url": URL, name: beyond}
        )
    assert (machine.value.field, str(machine.value)) == ("config", words)
    with pytest.raises(AnswerJudgeInvalid) as answer:
        answer_judge_register(project=personas.project, name="a", url=URL, config={name: beyond})
    assert (answer.value.field, str(answer.value)) == (f"config.{name}", words)
    form = AnswerJudgeSettingsInput(data={name: beyond})
    assert not form.is_valid() and list(form.errors) == [name]
