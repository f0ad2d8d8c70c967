"""Retrievers, machine judges and answer judges are saved through the API by one helper
(`evaluation.api.endpoints.endpoint_saved`): a name taken twice is refused by each in the one
refusal shape ``{field: [message]}``, a machine judge's own refusal (`JudgeInvalid`) too, and
nothing is stored; an answer judge's change that leaves the temperature out keeps it."""

from __future__ import annotations

import pytest

from annotation.models import MachineJudge
from evaluation.models import AnswerJudge, Retriever
from tests.evaluation.test_credentials_go_in_the_auth_header_only import (
    KINDS,
    answer_judge,
    machine_judge,
    post,
    refusal,
    retriever,
)

MODEL = {retriever: Retriever, machine_judge: MachineJudge, answer_judge: AnswerJudge}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_refuses_a_name_taken_in_the_one_shape(personas, api_client_for, kind):
    lead = api_client_for(personas.alice)
    assert post(lead, personas.project, kind).status_code == 201
    field, message = refusal(post(lead, personas.project, kind))
    assert field in ("name", "non_field_errors") and message, (field, message)
    assert MODEL[kind].objects.filter(project=personas.project).count() == 1


@pytest.mark.django_db
def test_an_answer_judges_change_without_a_temperature_keeps_it(personas, api_client_for):
    lead = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/answer-judges/"
    made = lead.post(
        base, {"name": "a", "url": "https://judge.example/score", "temperature": 0.3}, format="json"
    )
    assert made.status_code == 201, made.content
    one = f"{base}{made.json()['id']}/"
    changed = lead.patch(one, {"model": "m-2"}, format="json")
    assert changed.status_code == 200, changed.content
    assert (changed.json()["model"], changed.json()["temperature"]) == ("m-2", 0.3)
    cleared = lead.patch(one, {"temperature": None}, format="json")
    assert cleared.json()["temperature"] is None
