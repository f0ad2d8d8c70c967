"""Adaptive depth (issue 22 §2): when a query's final grades say a built-in source still found
relevant chunks at the last ranks of its pool, the query's pool goes from the source's top k to
its top 2k; the new candidates go to the same annotators, the query is open again, and the
annotation page says so. A source whose last ranks held nothing relevant is left as it was, and
so is every pool of a project that grades every candidate (stopping not allowed)."""

from __future__ import annotations

from django.urls import reverse

from annotation.models import Assignment, Candidate, CandidateSource, QueryReview
from annotation.models.stopping import PoolDeepening
from annotation.services.assignment import queries_assign
from annotation.services.depth import last_ranks
from annotation.services.pooling import pool_build_builtin
from tests.annotation.factories import grade_all, make_chunks, make_query


def pooled(personas, k=2, allowed=True):
    project = personas.project
    project.stopping_allowed = allowed  # judging less and deeper go together
    project.save(update_fields=["stopping_allowed"])
    make_chunks(project)
    query = make_query(project, "how do I install a python package with pip")
    pool_build_builtin(project=project, kind="bm25", k=k, query_ids=[query.pk])
    queries_assign(project=project, per_query=2)
    return project, query


def grade_everything(api_client_for, personas, project, query, grade_of):
    for user in (personas.bob, personas.carol):
        done = set(
            Candidate.objects.filter(query=query, judgments__annotator=user).values_list(
                "id", flat=True
            )
        )
        todo = [c for c in Candidate.objects.filter(query=query) if c.pk not in done]
        grade_all(api_client_for(user), project, todo, [grade_of(c) for c in todo])


def rank_of(candidate) -> int:
    return CandidateSource.objects.get(candidate=candidate, source__name="bm25").rank


def test_the_last_ranks_of_a_quarter_of_the_depth():
    assert [last_ranks(d) for d in (1, 2, 4, 10, 20)] == [1, 2, 4, 8, 16]


def test_a_relevant_last_rank_deepens_the_pool_for_the_same_annotators(
    personas, api_client_for, client
):
    project, query = pooled(personas)
    assert Candidate.objects.filter(query=query).count() == 2
    # Both annotators find the source's rank 2 (its last) relevant.
    grade_everything(api_client_for, personas, project, query, lambda c: 2)
    deepening = PoolDeepening.objects.get(query=query)
    assert (deepening.from_k, deepening.to_k, deepening.relevant_at) == (2, 4, 2)
    assert Candidate.objects.filter(query=query).count() == 2 + deepening.new_candidates == 4
    assert sorted(rank_of(c) for c in Candidate.objects.filter(query=query)) == [1, 2, 3, 4]
    # The same two annotators have the new candidates to grade; the query is open again.
    for a in Assignment.objects.filter(query=query):
        assert (a.status, a.judged, a.total) == ("started", 2, 4)
    assert QueryReview.objects.get(query=query).state == "open"
    client.force_login(personas.bob)
    page = client.get(reverse("annotate-query", args=[project.pk, query.pk])).content.decode()
    said = "This query's pool was made deeper: bm25 still found a relevant chunk at rank 2"
    assert said in page
    assert "so its top 4 were added (2 new candidates to grade)" in page
    # Ranks 3 and 4 hold nothing relevant: the pool stays at 4 and the query resolves.
    grade_everything(api_client_for, personas, project, query, lambda c: 0)
    assert PoolDeepening.objects.filter(query=query).count() == 1
    assert QueryReview.objects.get(query=query).state == "resolved"


def test_no_relevant_chunk_at_the_last_ranks_leaves_the_pool_as_it_was(personas, api_client_for):
    project, query = pooled(personas)
    grade_everything(
        api_client_for, personas, project, query, lambda c: 2 if rank_of(c) == 1 else 0
    )
    assert not PoolDeepening.objects.exists()
    assert Candidate.objects.filter(query=query).count() == 2
    assert QueryReview.objects.get(query=query).state == "resolved"


def test_a_project_that_grades_every_candidate_keeps_its_pools(personas, api_client_for):
    project, query = pooled(personas, allowed=False)
    grade_everything(api_client_for, personas, project, query, lambda c: 2)
    assert not PoolDeepening.objects.exists()
    assert QueryReview.objects.get(query=query).state == "resolved"
