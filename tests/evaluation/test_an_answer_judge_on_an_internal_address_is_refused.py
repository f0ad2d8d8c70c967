"""An answer judge's URL passes the same SSRF guard as a retriever's: loopback and private
networks are refused unless the operator allows private URLs, cloud-metadata and link-local
addresses always; and the guard holds again when the judge is called, so a judge registered
while private URLs were allowed is not called after they are no longer."""

from __future__ import annotations

import pytest

from evaluation.models import AnswerJudge
from evaluation.services.answer_judges import (
    SAMPLE,
    AnswerJudgeInvalid,
    answer_judge_register,
    answer_judge_test_call,
    answer_judge_update,
    judge_answers,
)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8766/judge",
        "http://localhost:8766/judge",
        "http://10.0.0.7/judge",
        "http://192.168.1.20/judge",
        "http://[::1]:8766/judge",
        "http://2130706433/judge",  # 127.0.0.1 as one number
        "http://169.254.169.254/latest/meta-data/",
    ],
)
def test_an_internal_address_is_refused_by_default(personas, api_client_for, url):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/answer-judges/",
        {"name": "inside", "url": url},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["url"]
    assert not AnswerJudge.objects.exists()


@pytest.mark.parametrize(
    "url", ["http://169.254.169.254/latest/meta-data/", "http://169.254.1.1/judge"]
)
def test_metadata_and_link_local_are_refused_even_when_private_urls_are_allowed(
    personas, private_urls, url
):
    with pytest.raises(AnswerJudgeInvalid) as refused:
        answer_judge_register(project=personas.project, name="meta", url=url)
    assert refused.value.field == "url"
    assert not AnswerJudge.objects.exists()


def test_a_change_to_an_internal_address_is_refused(personas, answer_judge_stub, settings):
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = False
    judge = answer_judge_register(
        project=personas.project, name="outside", url="https://judge.example.com/score"
    )
    with pytest.raises(AnswerJudgeInvalid) as refused:
        answer_judge_update(judge=judge, url="http://127.0.0.1:9/judge")
    assert refused.value.field == "url"
    assert judge.url == "https://judge.example.com/score"  # left as it was ...
    judge.refresh_from_db()
    assert judge.url == "https://judge.example.com/score"  # ... and as it is stored


def test_the_guard_holds_again_when_the_judge_is_called(personas, answer_judge_stub, settings):
    stub = answer_judge_stub()
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = True
    judge = answer_judge_register(project=personas.project, name="local", url=stub.url)
    assert answer_judge_test_call(judge=judge).score == 1.0
    calls = stub.calls

    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = False
    tried = answer_judge_test_call(judge=judge)
    assert tried.score is None
    assert "127.0.0.1" in tried.error and "private" in tried.error.lower()
    results = judge_answers(judge=judge, items=[SAMPLE])
    assert results.answers[0].score is None and results.answers[0].error == tried.error
    assert stub.calls == calls  # nothing reached the judge
