"""An answer judge's auth header is stored encrypted, reaches the judge (the stub answers 401
without it), and never appears in an API response, the page, a log line, the judge's repr, a
test call's error or the results a run would store. Read from the environment, it may come
only from a variable an operator exposed."""

from __future__ import annotations

import logging

from evaluation import credentials
from evaluation.models import AnswerJudge
from evaluation.services.answer_judges import (
    SAMPLE,
    answer_judge_client,
    answer_judge_register,
    judge_answers,
)
from tests.conftest import PASSWORD

TOKEN = "s3cr3t-answer-T0KEN"
HEADER = f"Bearer {TOKEN}"


def _register(client, project, url, **extra):
    response = client.post(
        f"/api/v1/projects/{project.pk}/answer-judges/",
        {"name": "sage", "url": url, "auth_header_name": "Authorization",
         "auth_header_value": HEADER, **extra},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    return response


def test_it_is_encrypted_at_rest_and_never_returned_or_shown(
    personas, private_urls, answer_judge_stub, api_client_for, client, caplog
):
    caplog.set_level(logging.DEBUG)
    stub = answer_judge_stub(token=TOKEN)
    lead = api_client_for(personas.alice)
    created = _register(lead, personas.project, stub.url)
    judge = AnswerJudge.objects.get()
    assert TOKEN not in judge.auth_header_encrypted
    assert credentials.decrypt(judge.auth_header_encrypted) == HEADER
    assert TOKEN not in str(judge.config)
    base = f"/api/v1/projects/{personas.project.pk}/answer-judges/"
    one = f"{base}{judge.pk}/"
    responses = [
        created,
        lead.get(base),
        lead.get(one),
        lead.patch(one, {"model": "m-3"}, format="json"),
        lead.post(f"{one}test-call/", {}, format="json"),
    ]
    assert responses[-1].json()["ok"] is True  # the header reached the judge
    client.login(username="alice", password=PASSWORD)
    page = client.get(f"/projects/{personas.project.pk}/answer-judges/")
    tried = client.post(
        f"/projects/{personas.project.pk}/answer-judges/", {"action": "test", "judge": judge.pk}
    )
    assert "all 2 facts stated" in tried.content.decode()
    for response in (*responses, page, tried):
        body = response.content.decode()
        assert TOKEN not in body
        assert judge.auth_header_encrypted not in body
    assert "auth_header_value" in lead.get("/api/schema/").content.decode()  # writable
    assert AnswerJudge.objects.get().auth_header_encrypted  # kept by the change
    assert TOKEN not in repr(judge) and TOKEN not in str(judge)
    with answer_judge_client(judge) as engine_client:
        assert TOKEN not in repr(engine_client) and TOKEN not in repr(engine_client.config)
    results = judge_answers(judge=judge, items=[SAMPLE])
    assert results.answers[0].score == 1.0
    assert TOKEN not in str(results.to_json()) and TOKEN not in repr(results)
    assert TOKEN not in caplog.text


def test_a_refused_header_is_an_error_without_the_secret(
    personas, private_urls, answer_judge_stub, api_client_for, caplog
):
    caplog.set_level(logging.DEBUG)
    stub = answer_judge_stub(token="another-token")
    lead = api_client_for(personas.alice)
    judge = _register(lead, personas.project, stub.url).json()
    called = lead.post(
        f"/api/v1/projects/{personas.project.pk}/answer-judges/{judge['id']}/test-call/",
        format="json",
    )
    assert called.json()["error"] == "HTTP 401"
    assert TOKEN not in called.content.decode()
    results = judge_answers(judge=AnswerJudge.objects.get(), items=[SAMPLE, SAMPLE])
    assert [a.error for a in results.answers] == ["HTTP 401", "HTTP 401"]
    assert TOKEN not in str(results.to_json())
    assert TOKEN not in caplog.text


def test_a_header_from_an_exposed_variable_reaches_the_judge(
    personas, private_urls, answer_judge_stub, monkeypatch
):
    stub = answer_judge_stub(token=TOKEN)
    monkeypatch.setenv("GOLDSMITH_SECRET_JUDGE", HEADER)
    judge = answer_judge_register(
        project=personas.project,
        name="env",
        url=stub.url,
        auth_header_name="Authorization",
        auth_header_env="GOLDSMITH_SECRET_JUDGE",
    )
    assert judge.auth_header_encrypted == ""
    assert judge_answers(judge=judge, items=[SAMPLE]).answers[0].score == 1.0
    monkeypatch.delenv("GOLDSMITH_SECRET_JUDGE")
    try:
        judge_answers(judge=judge, items=[SAMPLE])
    except credentials.SecretUnavailable as error:
        assert "GOLDSMITH_SECRET_JUDGE is not set on the worker" in str(error)
    else:
        raise AssertionError("a missing variable must stop the judging")


def test_the_servers_own_secrets_are_never_sent(personas, private_urls, api_client_for):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/answer-judges/",
        {"name": "thief", "url": "http://127.0.0.1:9/judge", "auth_header_name": "X-Key",
         "auth_header_env": "DATABASE_URL"},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert "DATABASE_URL may not be used" in response.json()["auth_header_env"][0]
    assert not AnswerJudge.objects.exists()


def test_a_refused_form_does_not_echo_the_secret(personas, api_client_for, client):
    refused = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/answer-judges/",
        {"name": "sage", "url": "ftp://judge.example/", "auth_header_name": "Authorization",
         "auth_header_value": HEADER},
        format="json",
    )  # fmt: skip
    assert refused.status_code == 400 and TOKEN not in refused.content.decode()
    client.login(username="alice", password=PASSWORD)
    page = client.post(
        f"/projects/{personas.project.pk}/answer-judges/",
        {"action": "register", "name": "sage", "url": "http://169.254.169.254/",
         "auth_header_name": "Authorization", "auth_header_value": HEADER},
    )  # fmt: skip
    assert page.status_code == 400
    body = page.content.decode()
    assert "is a cloud metadata address" in body  # the refusal is shown ...
    assert TOKEN not in body  # ... and the secret is not sent back
    assert not AnswerJudge.objects.exists()
