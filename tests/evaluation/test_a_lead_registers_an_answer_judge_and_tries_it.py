"""Through the API, a lead registers an HTTP answer judge (the engine's stub, over real HTTP),
reads it back with its identity and without its secret, sends it a test call and gets the
stub's score and reason, changes it and removes it. Bad input is refused with the field
named, and nothing is saved."""

from __future__ import annotations

import pytest

from evaluation.models import AnswerJudge
from goldsmith.answers.judge import DEFAULT_BODY_TEMPLATE, fact_overlap_score

TOKEN = "judge-token-5521"


def _base(project) -> str:
    return f"/api/v1/projects/{project.pk}/answer-judges/"


def _register(client, project, stub, **extra):
    body = {
        "name": "sage",
        "url": stub.url,
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0,
        "auth_header_name": "Authorization",
        "auth_header_value": f"Bearer {TOKEN}",
        **extra,
    }
    return client.post(_base(project), body, format="json")


def test_a_lead_registers_lists_tries_changes_and_removes_a_judge(
    personas, private_urls, answer_judge_stub, api_client_for
):
    stub = answer_judge_stub(token=TOKEN)
    lead = api_client_for(personas.alice)
    created = _register(lead, personas.project, stub, config={"retries": 1, "timeout": 5})
    assert created.status_code == 201, created.content
    judge = created.json()
    assert {k: judge[k] for k in ("name", "url", "model", "prompt_version", "temperature")} == {
        "name": "sage",
        "url": stub.url,
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0.0,
    }
    assert judge["scorer"] == "judge:sage"
    assert judge["identity"] == "judge:sage (model m-1, prompt v2, temperature 0)"
    assert judge["has_auth_header"] is True
    assert judge["auth_header_source"] == "stored"
    assert judge["config"]["retries"] == 1 and judge["config"]["timeout"] == 5.0
    assert judge["config"]["body_template"] == DEFAULT_BODY_TEMPLATE  # the engine's default
    assert "auth_header_value" not in judge

    listed = lead.get(_base(personas.project)).json()
    assert [j["name"] for j in listed] == ["sage"]
    one = f"{_base(personas.project)}{judge['id']}/"
    assert lead.get(one).json() == listed[0]

    called = lead.post(f"{one}test-call/", {}, format="json")
    assert called.status_code == 200, called.content
    result = called.json()
    sent = result["sent"]
    score, reason = fact_overlap_score(sent["reference_answer"], sent["facts"], sent["response"])
    assert result["ok"] is True and result["error"] == ""
    assert (result["score"], result["reason"]) == (score, reason) == (1.0, "all 2 facts stated")
    assert result["attempts"] == 1
    assert result["judge"] == {
        "scorer": "judge:sage",
        "name": "sage",
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0.0,
    }
    # The judge was sent the documented body: the sample, and the identity as configured.
    assert stub.bodies[-1]["response"] == sent["response"]
    assert stub.bodies[-1]["model"] == "m-1" and stub.bodies[-1]["prompt_version"] == "v2"

    mine = lead.post(
        f"{one}test-call/",
        {
            "question": "How long is the refund period?",
            "reference_answer": "7 days",
            "facts": ["refund period is 7 days", "a receipt is required"],
            "response": "The refund period is 7 days.",
        },
        format="json",
    ).json()
    assert (mine["score"], mine["reason"]) == (0.5, "1 of 2 facts stated; missing: 2")

    changed = lead.patch(one, {"model": "m-2", "temperature": None}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["identity"] == "judge:sage (model m-2, prompt v2)"
    assert changed.json()["has_auth_header"] is True  # the secret is kept
    assert lead.post(f"{one}test-call/", {}, format="json").json()["ok"] is True

    removed = lead.delete(one)
    assert removed.status_code == 204
    assert not AnswerJudge.objects.exists()
    assert lead.get(one).status_code == 404


def test_a_test_call_says_why_the_judge_gave_no_score(
    personas, private_urls, answer_judge_stub, api_client_for
):
    stub = answer_judge_stub(token=TOKEN)
    lead = api_client_for(personas.alice)
    wrong = _register(lead, personas.project, stub, auth_header_value="Bearer nope").json()
    result = lead.post(f"{_base(personas.project)}{wrong['id']}/test-call/", {}, format="json")
    assert result.status_code == 200
    assert result.json()["ok"] is False
    assert result.json()["score"] is None
    assert result.json()["error"] == "HTTP 401"
    assert result.json()["attempts"] == 1  # a test call makes one attempt

    bad_path = _register(
        lead, personas.project, stub, name="paths", config={"score_path": "result.value"}
    ).json()
    answer = lead.post(f"{_base(personas.project)}{bad_path['id']}/test-call/", format="json")
    assert answer.json()["error"] == (
        "the response's 'result.value' is not a score from 0 to 1 (got nothing)"
    )


@pytest.mark.parametrize(
    ("change", "where", "message"),
    [
        (
            {"name": "two words"},
            ["name"],
            "the name must be 1 to 100 characters without spaces or control characters",
        ),
        ({"url": "ftp://judge.example/"}, ["url"], "the URL must start with http:// or https://"),
        ({"temperature": -1}, ["temperature"], None),
        ({"config": {"timeout": 0}}, ["config", "timeout"], None),
        ({"config": {"retries": 11}}, ["config", "retries"], None),
        (
            {"config": {"body_template": '{"a": "{query}"}'}},
            ["config", "body_template"],
            "the body template must contain {response}",
        ),
        ({"config": {"body_template": "{not json"}}, ["config", "body_template"], None),
        (
            {"config": {"headers": {"Authorization": "Bearer x"}}},
            ["config", "headers"],
            "put credentials in the auth header (stored encrypted)",
        ),
        ({"config": {"grade_path": "x"}}, ["config", "non_field_errors"], None),
        (
            {"auth_header_name": ""},
            ["auth_header_name"],
            "give the auth header a name (e.g. Authorization)",
        ),
        ({"auth_header_name": "Bad Name"}, ["auth_header_name"], None),
        (
            {"auth_header_value": "", "auth_header_env": "SECRET_KEY"},
            ["auth_header_env"],
            None,
        ),
    ],
)
def test_bad_input_is_refused_naming_the_field(
    personas, private_urls, answer_judge_stub, api_client_for, change, where, message
):
    stub = answer_judge_stub()
    response = _register(api_client_for(personas.alice), personas.project, stub, **change)
    assert response.status_code == 400, response.content
    found = response.json()
    for key in where:
        assert key in found, found
        found = found[key]
    assert isinstance(found, list) and found
    if message is not None:
        assert found == [message]
    assert not AnswerJudge.objects.exists()


def test_a_name_is_unique_in_its_project(personas, private_urls, answer_judge_stub, api_client_for):
    stub = answer_judge_stub()
    lead = api_client_for(personas.alice)
    assert _register(lead, personas.project, stub).status_code == 201
    again = _register(lead, personas.project, stub)
    assert again.status_code == 400
    assert again.json() == {"name": ["an answer judge named 'sage' already exists"]}
    other = _register(lead, personas.project, stub, name="other").json()
    renamed = lead.patch(
        f"{_base(personas.project)}{other['id']}/", {"name": "sage"}, format="json"
    )
    assert renamed.status_code == 400
    assert list(renamed.json()) == ["name"]
    assert AnswerJudge.objects.count() == 2
