"""Builders for machine-judge tests: a project whose queries bob and carol graded, and the
keyword judge stub served over real HTTP."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Candidate, Query
from tests.annotation.factories import grade_all, make_chunks, make_query, pool

# query text → the chunks (indexes into factories.CORPUS) pooled for it
QUERIES = {
    "how to install python": [0, 1, 2, 3],
    "pip install a package": [1, 0, 3, 4],
    "read a file in a loop": [4, 3, 0, 2],
}


@dataclass
class Graded:
    project: object
    queries: list[Query]
    candidates: dict[int, list[Candidate]]


def graded_project(personas, api_client_for, *, humans: int = 2, spare: int = 1) -> Graded:
    """`humans` queries (category howto/packaging alternately) pooled, assigned to bob and
    carol and graded by both; `spare` more queries pooled and never assigned (nobody will grade
    them). bob grades by a fixed pattern, carol agrees with him except on one chunk per query."""
    from annotation.services.assignment import queries_assign

    project = personas.project
    chunks = make_chunks(project)
    texts = list(QUERIES)
    queries, candidates = [], {}
    for i, text in enumerate(texts[:humans]):
        q = make_query(project, text, category="howto" if i % 2 == 0 else "packaging")
        candidates[q.pk] = pool(q, [chunks[j] for j in QUERIES[text]])
        queries.append(q)
    queries_assign(project=project, per_query=2)
    for q in queries:
        bob = [2, 1, 0, 0]
        carol = [2, 1, 0, 1]
        grade_all(api_client_for(personas.bob), project, candidates[q.pk], bob)
        grade_all(api_client_for(personas.carol), project, candidates[q.pk], carol)
    for text in texts[humans : humans + spare]:
        q = make_query(project, text, category="howto")
        candidates[q.pk] = pool(q, [chunks[j] for j in QUERIES[text]])
        queries.append(q)
    return Graded(project=project, queries=queries, candidates=candidates)
