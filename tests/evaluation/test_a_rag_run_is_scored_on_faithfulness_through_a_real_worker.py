"""A RAG run goes through a real worker and its report holds faithfulness by the rules: the
share of each response's claims its contexts support (worked by hand below), with its interval,
every unsupported claim named as the query's reason (in the reader's language on the page), no
figure for a query without a response or a claim, and each quadrant's unfaithful answers with
what to look at. A faithfulness drop rule of the project's settings fires against the baseline
when a response adds a number no context holds."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from evaluation.models import DriftAlert, RunState
from evaluation.services.retrievers import evaluation_settings_update, retriever_save
from evaluation.services.runs import baseline_set
from tests.conftest import wait_for
from tests.evaluation.rag_stub import RagStub, make_rag_golden, rag_table, replace_stage

# By hand, from tests/evaluation/rag_stub.py's table (each response against its contexts):
#   q1 copies both contexts' sentences                     → 2 of 2 claims supported: 1.0
#   q2 "Exceptions need a manager approval." has no context → 1 of 2: 0.5
#   q3 "I cannot tell from this.", q4 "Nobody knows."       → no term in a context: 0.0
#   q5 "14 days", its context says 7 days                   → 0.0 (values)
#   q6 "Yes, you can.", q7 "Whatever."                      → no claim: none
#   q8 no response                                          → none
FAITHFULNESS = {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 0.0, "q5": 0.0}
# Below the correctness threshold (0.7), in the quadrants of tests/evaluation/rag_stub.py.
UNFAITHFUL = {
    "low_recall_low_correctness": ["q4"],
    "low_recall_high_correctness": ["q2"],
    "high_recall_low_correctness": ["q3", "q5"],
    "high_recall_high_correctness": [],
}


def _text(html: str) -> str:
    return unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


@pytest.fixture
def rag_stubs():
    good = RagStub(rag_table()).start()
    table = rag_table()
    # q1 adds a claim whose number no context holds: 2 of 3 claims supported.
    both = table["q1"].answer
    table["q1"] = replace_stage(table["q1"], table["q1"].contexts, f"{both} It costs 25 dollars.")
    worse = RagStub(table).start()
    yield good, worse
    good.stop()
    worse.stop()


def test_faithfulness_reaches_the_report_the_page_and_the_drift_rules(
    personas, private_urls, rag_stubs, worker_factory, api_client_for
):
    good_stub, worse_stub = rag_stubs
    project = personas.project
    golden = make_rag_golden(project)
    evaluation_settings_update(project=project, max_answer_drop={"Faithfulness": 0.05})
    worker = worker_factory(concurrency=2)
    client = api_client_for(personas.alice)
    base = f"/api/v1/projects/{project.pk}/runs/"

    retriever = retriever_save(project=project, name="rag", kind="http", config=good_stub.config())

    def run_of(stub):
        # One retriever (its baseline is the first run), pointed at the pipeline of the day.
        retriever_save(project=project, retriever=retriever, config=stub.config())
        made = client.post(
            base, {"retriever": "rag", "version": golden.version.label}, format="json"
        )
        assert made.status_code == 201, made.content
        url = f"{base}{made.json()['id']}/"

        def finished():
            body = client.get(url).json()
            return body if body["state"] in ("succeeded", "failed", "cancelled") else None

        body = wait_for(finished, timeout=120, message=f"the run ({worker.output()[-3000:]})")
        assert body["state"] == RunState.SUCCEEDED, body
        return body["id"], client.get(url + "report/").json()

    good_id, report = run_of(good_stub)
    answers = report["answers"]
    assert "faithfulness" in answers["metrics"]
    got = {q: v.get("faithfulness") for q, v in answers["per_query"].items()}
    assert {q: v for q, v in got.items() if v is not None} == FAITHFULNESS
    assert got.get("q6") is None and got.get("q8") is None  # none, not 0
    agg = answers["aggregate"]["faithfulness"]
    assert agg["n"] == 5 and agg["mean"] == pytest.approx(1.5 / 5)
    assert agg["ci_low"] <= agg["mean"] <= agg["ci_high"]
    assert answers["reasons"]["q5"]["faithfulness"] == (
        'the claim is not supported by the contexts: "14 days" states 14 days, which no '
        "context holds"
    )
    assert answers["claims"]["q2"]["unsupported"][0]["text"] == (
        "Exceptions need a manager approval."
    )
    assert answers["scorer"]["metrics"]["faithfulness"] == "rules"
    assert "answer_relevance" not in answers["metrics"]  # no judge: no relevance
    diag = answers["diagnosis"]
    assert {q: sorted(v) for q, v in diag["unfaithful"].items()} == UNFAITHFUL

    from evaluation.models import EvaluationRun

    baseline_set(run=EvaluationRun.objects.get(pk=good_id))

    # The page: the metric with its interval, each query's figure and its unsupported claim in
    # the reader's language (the engine's template looked up in the catalog), the advice.
    page = Client()
    page.force_login(personas.victor)
    html = page.get(f"/projects/{project.pk}/runs/{good_id}/").content.decode()
    text = _text(html)
    assert "Faithfulness (claims the contexts support)" in text and "faithfulness" in text
    assert 'data-field="faithfulness">0.50<' in html
    assert '"Exceptions need a manager approval.": 0.00 of its terms in one context' in text
    assert "Context found, answer unfaithful: the prompt or the model, not retrieval." in text
    assert 'data-field="unfaithful"' in html

    # The worse run: q1 adds "It costs 25 dollars.", no context holds 25 dollars: q1 falls to
    # 2/3 and the mean from 0.3 to (2/3 + 0.5) / 5 = 0.2333, a drop of 0.0667 > 0.05.
    worse_id, worse = run_of(worse_stub)
    assert worse["answers"]["per_query"]["q1"]["faithfulness"] == pytest.approx(2 / 3)
    fired = [f for f in worse["drift"]["fired"] if f["rule"] == "max_answer_drop"]
    assert [f["metric"] for f in fired] == ["faithfulness"]
    assert fired[0]["baseline"] == pytest.approx(0.3)
    assert fired[0]["value"] == pytest.approx((2 / 3 + 0.5) / 5)
    assert DriftAlert.objects.filter(run_id=worse_id).exists()
    compare = client.get(f"{base}compare/?a={good_id}&b={worse_id}").json()
    row = next(r for r in compare["answers"] if r["metric"] == "faithfulness")
    assert row["n"] == 5 and row["losses"] == 1 and row["p_randomization"] is not None
