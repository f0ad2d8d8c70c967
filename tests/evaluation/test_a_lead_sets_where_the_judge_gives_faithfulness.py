"""A lead says where an answer judge's answer holds its faithfulness and its answer relevance
(`config.faithfulness_path`, `config.relevance_path`; empty: not read), through the API; the
defaults are the engine's, and a setting of another name is refused."""

from __future__ import annotations

import pytest

from goldsmith.answers.judge import AnswerJudgeConfig

DEFAULTS = AnswerJudgeConfig(url="http://x")


def test_a_lead_sets_the_faithfulness_and_relevance_paths(
    personas, private_urls, answer_judge_stub, api_client_for
):
    stub = answer_judge_stub()
    lead = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/answer-judges/"
    made = lead.post(base, {"name": "sage", "url": stub.url}, format="json")
    assert made.status_code == 201, made.content
    config = made.json()["config"]
    assert config["faithfulness_path"] == DEFAULTS.faithfulness_path == "faithfulness"
    assert config["relevance_path"] == DEFAULTS.relevance_path == "answer_relevance"
    one = f"{base}{made.json()['id']}/"
    changed = lead.patch(
        one, {"config": {"faithfulness_path": "grounded", "relevance_path": ""}}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["config"]["faithfulness_path"] == "grounded"
    assert changed.json()["config"]["relevance_path"] == ""
    refused = lead.patch(one, {"config": {"faithfulness_paths": "x"}}, format="json")
    assert refused.status_code == 400
    assert "unknown answer judge setting 'faithfulness_paths'" in refused.content.decode()


def test_a_test_call_shows_the_judges_faithfulness_and_relevance(
    personas, private_urls, answer_judge_stub, api_client_for
):
    stub = answer_judge_stub()
    lead = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/answer-judges/"
    made = lead.post(base, {"name": "sage", "url": stub.url}, format="json").json()
    called = lead.post(
        f"{base}{made['id']}/test-call/",
        {
            "question": "How long is the refund period?",
            "facts": ["refund period is 7 days"],
            "response": "The refund period is 14 days.",
            "contexts": ["The refund period is 7 days."],
        },
        format="json",
    ).json()
    assert called["sent"]["contexts"] == ["The refund period is 7 days."]
    assert called["more"]["faithfulness"]["score"] == 0.0
    assert "14 days" in called["more"]["faithfulness"]["reason"]
    # The question's words long, refund, period: the response holds refund and period.
    assert called["more"]["answer_relevance"]["score"] == pytest.approx(2 / 3)
    sample = lead.post(f"{base}{made['id']}/test-call/", {}, format="json").json()
    assert sample["more"]["faithfulness"]["score"] == 1.0  # the sample copies its context
