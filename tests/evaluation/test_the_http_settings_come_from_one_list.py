"""The HTTP retriever's settings are listed once, beside the configuration they fill
(`goldsmith.retrievers.http.HTTP_SETTINGS`): the retriever page's form, the API's input and the
`add_retriever` command are made from that list, so they offer the same settings with the same
types, choices and bounds, and a setting given through any of them is stored."""

from __future__ import annotations

import dataclasses

import pytest
from django import forms
from django.core.management import call_command
from rest_framework import serializers

from evaluation.api.retrievers import HttpConfigInput
from evaluation.forms import RetrieverForm
from evaluation.management.commands.add_retriever import Command
from evaluation.models import Retriever
from goldsmith.retrievers.http import HTTP_SETTINGS, HttpRetrieverConfig

NAMES = [s.name for s in HTTP_SETTINGS]


def test_the_list_is_the_configurations_fields():
    assert [f.name for f in dataclasses.fields(HttpRetrieverConfig)] == NAMES
    assert "backoff" in NAMES and "headers" in NAMES
    defaults = HttpRetrieverConfig(url="https://example.com/{query}").snapshot()
    assert {s.name: s.default for s in HTTP_SETTINGS if s.name != "url"} == {
        k: v for k, v in defaults.items() if k != "url"
    }


def test_the_page_form_offers_every_setting_as_listed():
    form = RetrieverForm()
    assert [f.name for f in form.http_fields()] == NAMES
    for s in HTTP_SETTINGS:
        field = form.fields[s.name]
        assert field.initial == s.default and not field.required, s.name
        if s.choices:
            assert [c for c, _ in field.choices] == list(s.choices), s.name
        elif s.value_type in (int, float):
            kind = forms.IntegerField if s.value_type is int else forms.FloatField
            assert type(field) is kind, s.name
            assert (field.min_value, field.max_value) == (s.minimum, s.maximum), s.name


def test_the_api_input_offers_every_setting_as_listed():
    fields = HttpConfigInput().fields
    assert list(fields) == NAMES
    for s in HTTP_SETTINGS:
        field = fields[s.name]
        assert not field.required, s.name
        if s.choices:
            assert list(field.choices) == list(s.choices), s.name
        elif s.value_type in (int, float):
            kind = serializers.IntegerField if s.value_type is int else serializers.FloatField
            assert type(field) is kind, s.name
            assert (field.min_value, field.max_value) == (s.minimum, s.maximum), s.name
        elif s.value_type is dict:
            assert isinstance(field, serializers.DictField), s.name
    refused = HttpConfigInput(data={"url": "https://example.com/{query}", "backof": 1})
    assert not refused.is_valid()
    assert "unknown HTTP setting 'backof'" in str(refused.errors)


def test_the_command_offers_every_setting_as_listed():
    parser = Command().create_parser("manage.py", "add_retriever")
    group = next(g for g in parser._action_groups if g.title == "HTTP endpoint")
    actions = {a.dest: a for a in group._group_actions}
    assert [n for n in actions if n in NAMES] == NAMES
    for s in HTTP_SETTINGS:
        action = actions[s.name]
        if s.value_type is dict:
            assert action.option_strings == ["--header"] and action.nargs is None, s.name
            continue
        assert action.option_strings == ["--" + s.name.replace("_", "-")], s.name
        assert action.type is s.value_type, s.name
        assert tuple(action.choices or ()) == s.choices, s.name


SETTINGS = {
    "url": "https://search.example.com/{query}",
    "method": "GET",
    "results_path": "",
    "timeout": 7.5,
    "max_concurrency": 3,
    "retries": 2,
    "backoff": 0.5,
    "headers": {"X-Team": "search"},
}


@pytest.mark.django_db
def test_backoff_and_headers_are_stored_from_the_page_the_api_and_the_command(
    personas, client, api_client_for
):
    project = personas.project
    client.force_login(personas.alice)
    page = {
        **SETTINGS,
        "name": "page",
        "kind": "http",
        "headers": "X-Team: search",
        "id_field": "id",
    }
    response = client.post(f"/projects/{project.pk}/retrievers/", page)
    assert response.status_code == 302, response.content.decode()[-2000:]

    api = api_client_for(personas.alice).post(
        f"/api/v1/projects/{project.pk}/retrievers/",
        {"name": "api", "kind": "http", "config": SETTINGS},
        format="json",
    )
    assert api.status_code == 201, api.content

    call_command(
        "add_retriever",
        "--project", project.name, "--name", "command", "--kind", "http",
        "--url", SETTINGS["url"], "--method", "GET", "--results-path", "",
        "--timeout", "7.5", "--max-concurrency", "3", "--retries", "2", "--backoff", "0.5",
        "--header", "X-Team: search",
    )  # fmt: skip

    stored = {r.name: r.config for r in Retriever.objects.filter(project=project)}
    assert set(stored) == {"page", "api", "command"}
    for name, config in stored.items():
        assert {k: config[k] for k in SETTINGS} == SETTINGS, name


@pytest.mark.django_db
def test_the_edit_page_shows_the_stored_headers_and_keeps_unsent_numbers(personas, client):
    client.force_login(personas.alice)
    base = f"/projects/{personas.project.pk}/retrievers/"
    client.post(
        base,
        {"name": "r", "kind": "http", **SETTINGS, "id_field": "id", "headers": "X-Team: search"},
    )
    retriever = Retriever.objects.get()
    edit = f"{base}{retriever.pk}/edit/"
    assert "X-Team: search" in client.get(edit).content.decode()
    response = client.post(edit, {"url": SETTINGS["url"], "id_field": "id", "headers": ""})
    assert response.status_code == 302, response.content.decode()[-2000:]
    retriever.refresh_from_db()
    assert retriever.config["backoff"] == 0.5 and retriever.config["timeout"] == 7.5
    assert retriever.config["headers"] == {}
