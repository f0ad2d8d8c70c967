"""Retrievers, machine judges and answer judges are one kind of endpoint
(`evaluation.services.endpoints`): through the API each refuses every credential header as a
plain header (it belongs in the auth header, stored encrypted), every malformed auth header,
and every URL the workers may not call, with the same message on the same field, in the one
refusal shape ``{field: [message]}``. The drift webhook, which takes a URL and no headers,
refuses the same URLs with the same reason; a host that does not resolve here (it may on the
workers) is taken by all four."""

from __future__ import annotations

from typing import Any

import pytest

from evaluation.credentials import CREDENTIAL_HEADERS
from evaluation.services.endpoints import EndpointInvalid
from evaluation.services.settings import evaluation_settings_update

GOOD_URL = "https://judge.example/score"


def retriever(url: str, headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    config = {"url": url, "headers": headers}
    return "retrievers/", {"name": "r", "kind": "http", "config": config}


def machine_judge(url: str, headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    return "judges/", {"name": "m", "kind": "http", "config": {"url": url, "headers": headers}}


def answer_judge(url: str, headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    return "answer-judges/", {"name": "a", "url": url, "config": {"headers": headers}}


KINDS = [retriever, machine_judge, answer_judge]
URL_FIELD = {retriever: "config.url", machine_judge: "config.url", answer_judge: "url"}


def refusal(response) -> tuple[str, str]:
    """(field, message) of a 400 in the shape {field: [message]} (a call setting nested
    under config)."""
    assert response.status_code == 400, response.content
    body = response.json()
    ((field, detail),) = body.items()
    if isinstance(detail, dict):
        ((inner, detail),) = detail.items()
        field = f"{field}.{inner}"
    (message,) = detail
    return field, message


def post(client, project, kind, url=GOOD_URL, headers=None, **auth):
    where, body = kind(url, headers or {})
    return client.post(f"/api/v1/projects/{project.pk}/{where}", {**body, **auth}, format="json")


@pytest.mark.parametrize(
    "header", sorted(CREDENTIAL_HEADERS | {"Authorization", "X-Api-Key", "Cookie", " cookie "})
)
def test_every_kind_refuses_a_credential_as_a_plain_header(personas, api_client_for, header):
    lead = api_client_for(personas.alice)
    refusals = {
        kind.__name__: refusal(post(lead, personas.project, kind, headers={header: "secret"}))
        for kind in KINDS
    }
    expected = ("config.headers", "put credentials in the auth header (stored encrypted)")
    assert refusals == {kind.__name__: expected for kind in KINDS}
    assert "secret" not in str(refusals)


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"X-Trace": "a\r\nX-Evil: 1"}, "a header value is one line"),
        ({"X Trace": "1"}, "a header name may hold letters, digits, - and _"),
    ],
)
def test_every_kind_refuses_a_malformed_plain_header(personas, api_client_for, headers, message):
    lead = api_client_for(personas.alice)
    for kind in KINDS:
        assert refusal(post(lead, personas.project, kind, headers=headers)) == (
            "config.headers",
            message,
        ), kind.__name__


@pytest.mark.parametrize(
    ("auth", "field", "message"),
    [
        (
            {"auth_header_name": "Authorization", "auth_header_value": "Bearer a\r\nX-Evil: 1"},
            "auth_header_value",
            "the auth header value is one line",
        ),
        (
            {"auth_header_name": "Authorization", "auth_header_value": "Bearer a\nb"},
            "auth_header_value",
            "the auth header value is one line",
        ),
        (
            {"auth_header_name": "Auth Header", "auth_header_value": "x"},
            "auth_header_name",
            "the auth header name may hold letters, digits, - and _",
        ),
        (
            {"auth_header_value": "Bearer x"},
            "auth_header_name",
            "give the auth header a name (e.g. Authorization)",
        ),
        (
            {
                "auth_header_name": "Authorization",
                "auth_header_value": "Bearer x",
                "auth_header_env": "GOLDSMITH_SECRET_X",
            },
            "auth_header_env",
            "give the auth header's value or an environment variable, not both",
        ),
        (
            {"auth_header_name": "Authorization", "auth_header_env": "A-B"},
            "auth_header_env",
            "the environment variable name may hold letters, digits, _",
        ),
    ],
)
def test_every_kind_refuses_the_same_auth_header_mistakes(
    personas, api_client_for, auth, field, message
):
    lead = api_client_for(personas.alice)
    for kind in KINDS:
        assert refusal(post(lead, personas.project, kind, **auth)) == (field, message), kind
    # nothing was saved
    assert lead.get(f"/api/v1/projects/{personas.project.pk}/retrievers/").json() == []


def test_every_kind_refuses_a_servers_secret_as_the_auth_header(personas, api_client_for):
    lead = api_client_for(personas.alice)
    auth = {"auth_header_name": "Authorization", "auth_header_env": "SECRET_KEY"}
    refusals = [refusal(post(lead, personas.project, kind, **auth)) for kind in KINDS]
    assert len(set(refusals)) == 1
    field, message = refusals[0]
    assert field == "auth_header_env" and "SECRET_KEY" in message and "GOLDSMITH_SECRET_" in message


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:9/search", "loopback"),
        ("http://10.0.0.7/search", "private"),
        ("http://169.254.169.254/latest/meta-data", "cloud metadata"),
        ("http://0x7f.1/search", "loopback"),
        ("https://user:secret@judge.example/search", "credentials in the URL are not allowed"),
    ],
)
def test_every_kind_and_the_webhook_refuse_the_same_url_for_the_same_reason(
    personas, api_client_for, settings, url, reason
):
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = False
    lead = api_client_for(personas.alice)
    said = {}
    for kind in KINDS:
        field, message = refusal(post(lead, personas.project, kind, url=url))
        assert field == URL_FIELD[kind], kind.__name__
        said[kind.__name__] = message
    with pytest.raises(EndpointInvalid) as webhook:
        evaluation_settings_update(project=personas.project, webhook_url=url)
    said["webhook"] = str(webhook.value)
    assert len(set(said.values())) == 1, said
    assert reason in said["webhook"] and "secret" not in said["webhook"]


def test_a_host_that_resolves_only_on_the_workers_is_taken_by_every_kind(
    personas, api_client_for, settings
):
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = False
    lead = api_client_for(personas.alice)
    url = "https://retriever.internal-only.invalid/search"
    for kind in KINDS:
        response = post(lead, personas.project, kind, url=url)
        assert response.status_code == 201, (kind.__name__, response.content)
    evaluation_settings_update(project=personas.project, webhook_url=url)
