"""Candidates left not judged (stopped) are unjudged everywhere (issue 22 §2): a frozen version
counts them and gives the estimated recall of the judging; every export leaves them out of the
grades and says how many; agreement and adjudication treat them as not graded, so a chunk one
annotator stopped before and another graded is no disagreement."""

from __future__ import annotations

import csv
import io
import json
import zipfile

from django.test import Client

from annotation.models import Candidate, Judgment, QueryAgreement, QueryReview, Resolution
from annotation.models.stopping import StoppedCandidate
from annotation.selectors.judging import adjudication_view
from annotation.services.adjudication import queries_approve
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.stopping_factories import POOL, follow_the_order, stoppable_project
from tests.conftest import PASSWORD


def stop(client, setup):
    response = client.post(f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/")
    assert response.status_code == 200, response.content
    return response.json()


def both_stop(personas, api_client_for):
    setup = stoppable_project(personas)
    personas.project.stopping_allowed = True
    personas.project.save(update_fields=["stopping_allowed"])
    for user in (personas.bob, personas.carol):
        client = api_client_for(user)
        follow_the_order(client, setup, user)
        stop(client, setup)
    return setup


def download(version, fmt: str, personas) -> tuple[object, bytes]:
    client = Client()
    assert client.login(username="victor", password=PASSWORD)
    response = client.get(
        f"/api/v1/projects/{version.project_id}/goldsets/{version.label}/export/{fmt}/"
    )
    assert response.status_code == 200
    return response, b"".join(response.streaming_content)


def test_a_version_counts_stopped_candidates_and_estimates_the_recall(personas, api_client_for):
    setup = both_stop(personas, api_client_for)
    review = QueryReview.objects.get(query=setup.query)
    assert review.state == "resolved"
    graded = set(
        Resolution.objects.filter(candidate__query=setup.query).values_list(
            "candidate_id", flat=True
        )
    )
    left = set(Candidate.objects.filter(query=setup.query).values_list("id", flat=True)) - graded
    assert left and len(graded) + len(left) == POOL
    # Both annotators graded the same candidates in the same order (the order reads neither's
    # grades), so both left the same ones: none has a grade.
    seen = {
        user.username: list(
            Judgment.objects.filter(annotator=user)
            .order_by("id")
            .values_list("candidate_id", flat=True)
        )
        for user in (personas.bob, personas.carol)
    }
    assert seen["bob"] == seen["carol"], seen
    assert set(StoppedCandidate.objects.values_list("candidate_id", flat=True)) == left
    queries_approve(project=setup.project, by=personas.alice)
    version = golden_set_version_freeze(project=setup.project, by=personas.alice)
    stopped = version.counts["stopped"]
    assert stopped["candidates"] == len(left) and stopped["queries"] == 1
    assert 0.95 <= stopped["estimated_recall"] < 1.0
    assert version.header["stopped"] == stopped
    item = version.items.get(query_id=str(setup.query.pk))
    assert item.judgments.count() == len(graded)
    page = Client()
    page.force_login(personas.alice)
    html = page.get(f"/projects/{setup.project.pk}/goldsets/{version.label}/").content.decode()
    assert 'id="stopped-candidates"' in html and 'id="estimated-recall"' in html

    left_chunks = set(
        Candidate.objects.filter(pk__in=left).values_list("chunk__chunk_id", flat=True)
    )
    qid = str(setup.query.pk)
    response, body = download(version, "jsonl", personas)
    assert response["X-Goldsmith-Stopped"] == str(len(left))
    lines = [json.loads(line) for line in body.decode().splitlines()]
    assert lines[0]["stopped"]["candidates"] == len(left)
    mine = next(line for line in lines[1:] if line["query_id"] == qid)
    assert len(mine["judgments"]) == len(graded)
    assert not {j["chunk_id"] for j in mine["judgments"]} & left_chunks
    response, body = download(version, "trec", personas)
    assert response["X-Goldsmith-Stopped"] == str(len(left))
    qrels = [line.split() for line in body.decode().splitlines() if line.split()[0] == qid]
    assert len(qrels) == len(graded) and not {row[2] for row in qrels} & left_chunks
    response, body = download(version, "csv", personas)
    table = csv.DictReader(io.StringIO(body.decode("utf-8-sig")))
    rows = [r for r in table if r["query_id"] == qid]
    assert len(rows) == len(graded) and not {r["chunk_id"] for r in rows} & left_chunks
    response, body = download(version, "beir", personas)
    archive = zipfile.ZipFile(io.BytesIO(body))
    tsv = next(n for n in archive.namelist() if n.endswith("qrels/test.tsv"))
    beir = [line.split("\t") for line in archive.read(tsv).decode().splitlines()[1:]]
    mine = [row for row in beir if row[0] == qid]
    assert len(mine) == len(graded) and not {row[1] for row in mine} & left_chunks


def test_a_chunk_one_annotator_stopped_before_is_no_disagreement(personas, api_client_for):
    setup = stoppable_project(personas)
    personas.project.stopping_allowed = True
    personas.project.save(update_fields=["stopping_allowed"])
    bob = api_client_for(personas.bob)
    follow_the_order(bob, setup, personas.bob)
    stop(bob, setup)
    left = list(StoppedCandidate.objects.values_list("candidate_id", flat=True))
    # Carol grades everything, and one chunk bob left she finds relevant.
    carol = api_client_for(personas.carol)
    surprise = left[0]
    for cand in setup.candidates:
        grade = 2 if cand.pk == surprise else setup.grade_of(cand.pk)
        response = carol.put(
            f"/api/v1/projects/{setup.project.pk}/candidates/{cand.pk}/judgment/",
            {"grade": grade},
            format="json",
        )
        assert response.status_code == 200
    review = QueryReview.objects.get(query=setup.query)
    assert review.state == "resolved", QueryAgreement.objects.get(query=setup.query).flag_reasons
    agreement = QueryAgreement.objects.get(query=setup.query)
    # The chunks bob left are rows with one grade (not graded by bob): on the chunks both
    # graded they agree, so agreement is whole and nothing is flagged.
    assert agreement.raw_agreement == 1.0 and not agreement.flag_reasons
    assert Resolution.objects.get(candidate_id=surprise).grade == 2
    view = adjudication_view(project=setup.project, query_id=setup.query.pk, hide_names=False)
    row = next(r for r in view.rows if r.candidate_id == surprise)
    assert dict((name, grade) for name, grade, _ in row.grades) == {"bob": None, "carol": 2}
