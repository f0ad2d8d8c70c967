"""When a project turns it on, each annotator writes their own draft answer key of a query
(reference answer, type, key facts linked to chunks they graded), blind to the others; the
engine's checks refuse a bad one naming the field; a lead reads them side by side with their
fact agreement and merges them into the query's answer key."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from annotation.models import AnswerDraft, Query, QueryReview
from annotation.services.adjudication import query_adjudicate
from tests.annotation.factories import grade_all, judging_setup, make_query
from tests.conftest import PASSWORD

SECRET = "carol-secret-reference-answer"


def _draft(p, q) -> str:
    return f"/api/v1/projects/{p}/queries/{q}/answer-draft/"


@pytest.fixture
def graded(personas, api_client_for):
    """Both annotators graded the three chunks (bob 2,1,0 and carol 2,2,0); answers are on."""
    setup = judging_setup(personas, per_query=3)
    query, candidates = setup.first()
    lead = api_client_for(personas.alice)
    r = lead.put(
        f"/api/v1/projects/{personas.project.pk}/annotator-answers/",
        {"annotators_write_answers": True},
        format="json",
    )
    assert r.status_code == 200 and r.json() == {"annotators_write_answers": True}
    grade_all(api_client_for(personas.bob), personas.project, candidates, [2, 1, 0])
    grade_all(api_client_for(personas.carol), personas.project, candidates, [2, 2, 0])
    chunk = [c.chunk.chunk_id for c in candidates]
    return setup, query, candidates, chunk


def test_the_setting_is_off_by_default_and_a_draft_is_then_refused(personas, api_client_for):
    setup = judging_setup(personas, per_query=2)
    query, _ = setup.first()
    p = personas.project.pk
    lead = api_client_for(personas.alice)
    assert lead.get(f"/api/v1/projects/{p}/").json()["annotators_write_answers"] is False
    r = api_client_for(personas.bob).put(
        _draft(p, query.pk), {"reference_answer": "x"}, format="json"
    )
    assert r.status_code == 409
    assert "does not ask annotators" in r.json()["detail"]
    assert not AnswerDraft.objects.exists()
    # only a lead switches it
    for user in (personas.bob, personas.victor):
        r = api_client_for(user).put(
            f"/api/v1/projects/{p}/annotator-answers/", {"annotators_write_answers": True}
        )
        assert r.status_code == 403
    r = lead.put(f"/api/v1/projects/{p}/annotator-answers/", {}, format="json")
    assert r.status_code == 400 and "annotators_write_answers" in r.json()


def test_an_annotator_saves_and_reads_back_only_their_own_draft(graded, personas, api_client_for):
    _, query, _, chunk = graded
    p = personas.project.pk
    carol = api_client_for(personas.carol)
    carol_key = {
        "reference_answer": SECRET,
        "answer_type": "open",
        "reference_facts": [{"text": "carol-fact", "chunk_ids": [chunk[1]]}],
    }
    assert carol.put(_draft(p, query.pk), carol_key, format="json").status_code == 200
    bob = api_client_for(personas.bob)
    empty = bob.get(_draft(p, query.pk)).json()
    assert empty["reference_answer"] is None and empty["reference_facts"] == []
    bob_key = {
        "reference_answer": "Run the installer from python.org",
        "answer_type": "open",
        "reference_facts": [
            {"text": "download the installer", "chunk_ids": [chunk[0]]},
            {"text": "pip adds packages", "chunk_ids": [chunk[1], chunk[0]]},
        ],
    }
    r = bob.put(_draft(p, query.pk), bob_key, format="json")
    assert r.status_code == 200, r.content
    got = bob.get(_draft(p, query.pk)).json()
    assert {k: got[k] for k in bob_key} == bob_key
    # no response to bob holds carol's draft, nor a page he can open
    page = Client()
    assert page.login(username="bob", password=PASSWORD)
    bodies = [
        got,
        bob.get(f"/api/v1/projects/{p}/queries/{query.pk}/annotation/").content.decode(),
        page.get(f"/projects/{p}/annotate/{query.pk}/").content.decode(),
    ]
    for url in (
        f"/api/v1/projects/{p}/queries/{query.pk}/answer-drafts/",
        f"/api/v1/projects/{p}/queries/{query.pk}/answer-key/",
        f"/api/v1/projects/{p}/fact-agreement/",
    ):
        r = bob.get(url)
        assert r.status_code == 403
        bodies.append(r.content.decode())
    bodies.append(page.get(f"/projects/{p}/review/{query.pk}/").content.decode())
    for body in bodies:
        text = json.dumps(body) if isinstance(body, dict) else body
        assert SECRET not in text and "carol-fact" not in text
    assert "Run the installer from python.org" in bodies[2]  # his own, on his page


def test_a_draft_of_a_query_not_in_the_queue_is_not_found(graded, personas, api_client_for):
    _, query, _, _ = graded
    r = api_client_for(personas.victor).put(
        _draft(personas.project.pk, query.pk), {}, format="json"
    )
    assert r.status_code == 403
    other = make_query(personas.project, "unassigned query")
    r = api_client_for(personas.bob).put(_draft(personas.project.pk, other.pk), {}, format="json")
    assert r.status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"reference_answer": "soon", "answer_type": "number"}, "reference_answer", "no number"),
        ({"reference_answer": "A", "answer_type": "choice"}, "answer_type", "choices"),
        ({"reference_facts": [{"chunk_ids": []}]}, "reference_facts", "required"),
        (  # bob graded the third chunk 0: it supports nothing
            {"reference_facts": [{"text": "x", "chunk_ids": ["@2"]}]},
            "reference_facts[0].chunk_ids[0]",
            "not one you graded relevant or partly relevant",
        ),
        (
            {
                "reference_facts": [
                    {"text": "a", "chunk_ids": []},
                    {"text": "b", "chunk_ids": ["x"]},
                ]
            },
            "reference_facts[1].chunk_ids[0]",
            "chunk x is not one you graded",
        ),
    ],
)
def test_a_bad_draft_is_refused_naming_its_field(
    graded, personas, api_client_for, body, field, words
):
    _, query, _, chunk = graded
    body = json.loads(json.dumps(body).replace("@2", chunk[2]))
    bob = api_client_for(personas.bob)
    r = bob.put(_draft(personas.project.pk, query.pk), body, format="json")
    assert r.status_code == 400
    errors = r.json()
    key = next(k for k in errors if k.startswith(field))
    assert words in json.dumps(errors[key])
    assert not AnswerDraft.objects.exists()


def test_an_adjudicated_querys_draft_is_read_only(graded, personas, api_client_for):
    _, query, candidates, chunk = graded
    p = personas.project.pk
    bob = api_client_for(personas.bob)
    key = {"reference_answer": "first", "reference_facts": [{"text": "f", "chunk_ids": [chunk[0]]}]}
    assert bob.put(_draft(p, query.pk), key, format="json").status_code == 200
    review = QueryReview.objects.get(query=query)
    query_adjudicate(
        project=personas.project,
        query_id=query.pk,
        by=personas.alice,
        version=review.version,
        grades={c.pk: 2 for c in candidates},
        reason="guideline_gap",
    )
    r = bob.put(_draft(p, query.pk), {"reference_answer": "second"}, format="json")
    assert r.status_code == 409 and "adjudicated" in r.json()["detail"]
    assert bob.get(_draft(p, query.pk)).json()["reference_answer"] == "first"
    page = Client()
    assert page.login(username="bob", password=PASSWORD)
    html = page.get(f"/projects/{p}/annotate/{query.pk}/").content.decode()
    assert '<textarea id="draft-answer" rows="3" readonly>first</textarea>' in html
    assert 'id="add-fact"' not in html


def test_the_lead_sees_both_drafts_with_their_fact_agreement_and_merges_them(
    graded, personas, api_client_for
):
    _, query, _, chunk = graded
    p = personas.project.pk
    bob, carol = api_client_for(personas.bob), api_client_for(personas.carol)
    bob_facts = [
        {"text": "download the installer", "chunk_ids": [chunk[0]]},
        {"text": "pip adds packages", "chunk_ids": [chunk[1], chunk[0]]},
        {"text": "no chunk for this one", "chunk_ids": []},
    ]
    carol_facts = [
        {"text": "get the installer from python.org", "chunk_ids": [chunk[0]]},
        {"text": "pip is used", "chunk_ids": [chunk[1]]},
    ]
    for client, answer, facts in (
        (bob, "Run the installer", bob_facts),
        (carol, "Download it from python.org", carol_facts),
    ):
        body = {"reference_answer": answer, "answer_type": "open", "reference_facts": facts}
        assert client.put(_draft(p, query.pk), body, format="json").status_code == 200
    lead = api_client_for(personas.alice)
    got = lead.get(f"/api/v1/projects/{p}/queries/{query.pk}/answer-drafts/").json()
    # one fact matched (same chunk set {c0}); distinct = 3 + 2 - 1 = 4
    assert got["fact_agreement"] == {"matched": 1, "distinct": 4, "value": 0.25, "queries": 1}
    assert [d["annotator"] for d in got["drafts"]] == ["bob", "carol"]
    assert got["drafts"][0]["draft"]["reference_facts"] == bob_facts
    assert got["drafts"][1]["draft"]["reference_answer"] == "Download it from python.org"
    overall = lead.get(f"/api/v1/projects/{p}/fact-agreement/").json()
    assert overall == {"matched": 1, "distinct": 4, "value": 0.25, "queries": 1}

    # The lead merges on the review page: carol's answer, edited; a fact from each.
    page = Client()
    assert page.login(username="alice", password=PASSWORD)
    html = page.get(f"/projects/{p}/review/{query.pk}/").content.decode()
    assert "Download it from python.org" in html and "pip adds packages" in html
    assert "0.25" in html
    r = page.post(
        f"/projects/{p}/review/{query.pk}/answer-key/",
        {
            "reference_answer": "Download the installer from python.org",
            "answer_type": "open",
            "choices": "",
            "fact-text": [bob_facts[0]["text"], carol_facts[1]["text"], ""],
            "fact-chunks": [chunk[0], chunk[1], ""],
        },
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    stored = Query.objects.get(pk=query.pk)
    assert stored.reference_answer == "Download the installer from python.org"
    assert stored.reference_facts == [
        {"text": "download the installer", "chunk_ids": [chunk[0]]},
        {"text": "pip is used", "chunk_ids": [chunk[1]]},
    ]
    # a bad merge is refused naming the field, and nothing changes
    r = page.post(
        f"/projects/{p}/review/{query.pk}/answer-key/",
        {"reference_answer": "soon", "answer_type": "number", "fact-text": [], "fact-chunks": []},
    )
    assert r.status_code == 400
    assert "reference_answer" in r.content.decode()
    assert Query.objects.get(pk=query.pk).answer_type == "open"
    dashboard = page.get(f"/projects/{p}/dashboard/").content.decode()
    assert 'id="fact-agreement"' in dashboard and "0.25" in dashboard
