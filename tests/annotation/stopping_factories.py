"""A project where the stop estimate can allow a stop: eight approved queries whose final grades
say that only the two top ranks of the pool's two sources hold relevant chunks, and one open
query pooled the same way, assigned to bob and carol."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Candidate, QueryReview, Resolution
from annotation.models.judging import Provenance, ReviewState
from annotation.selectors.judging_order import judging_order_for
from annotation.services.assignment import queries_assign
from tests.annotation.factories import make_chunks, make_query, pool

POOL = 12
RESOLVED = 8


@dataclass
class Stoppable:
    project: object
    query: object
    candidates: list[Candidate]
    relevant: set[int]  # candidate ids of the open query that are relevant (ranks 1 and 2)

    def grade_of(self, candidate_id: int) -> int:
        return 2 if candidate_id in self.relevant else 0


def stoppable_project(personas) -> Stoppable:
    project = personas.project
    chunks = make_chunks(
        project, [(f"Note {i}", f"Short note number {i} about the garden.") for i in range(POOL)]
    )
    for k in range(RESOLVED):
        done = make_query(project, f"resolved garden question {k}")
        for source in ("alpha", "beta"):
            pool(done, chunks, source=source)
        QueryReview.objects.update_or_create(query=done, defaults={"state": ReviewState.APPROVED})
        for cand in Candidate.objects.filter(query=done):
            top = cand.chunk_id in (chunks[0].pk, chunks[1].pk)
            Resolution.objects.create(
                candidate=cand, grade=2 if top else 0, provenance=Provenance.UNANIMOUS
            )
    query = make_query(project, "the open garden question")
    for source in ("alpha", "beta"):
        pool(query, chunks, source=source)
    queries_assign(project=project, per_query=2, query_ids=[query.pk])
    candidates = list(Candidate.objects.filter(query=query))
    relevant = {c.pk for c in candidates if c.chunk_id in (chunks[0].pk, chunks[1].pk)}
    return Stoppable(project=project, query=query, candidates=candidates, relevant=relevant)


def follow_the_order(client, setup: Stoppable, user, seen: list | None = None) -> dict:
    """Grade as the page asks (the random checks it draws first, else the most likely relevant),
    through the API, until the estimate allows a stop; returns the last estimate. Every
    estimate read on the way, the last included, is appended to `seen` when given."""
    base = f"/api/v1/projects/{setup.project.pk}/"
    for _ in range(POOL):
        estimate = client.get(f"{base}queries/{setup.query.pk}/stop/").json()
        if seen is not None:
            seen.append(estimate)
        if estimate["may_stop"]:
            return estimate
        if estimate["draw"]:
            cid, order = estimate["draw"][0], "check"
        else:
            cid, order = judging_order_for(query=setup.query, annotator=user)[0], "likely"
        response = client.put(
            f"{base}candidates/{cid}/judgment/",
            {"grade": setup.grade_of(cid), "order": order},
            format="json",
        )
        assert response.status_code == 200, response.content
    return client.get(f"{base}queries/{setup.query.pk}/stop/").json()
