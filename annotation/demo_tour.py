"""The rest of the demo's annotation part: pools, assignments, a first round of simulated
grades, adjudication left for the lead and a frozen v1, so every page has something to show
(evaluation/demo.py then runs the two built-in baselines against v1).

The grades here are *simulated* (a term-overlap rule with a deterministic disagreement), and the
demo says so; only part of the sample is graded, so the annotators still have a queue.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from django.contrib.auth import get_user_model

from annotation.models import (
    Assignment,
    Candidate,
    Chunk,
    GoldenSetVersion,
    PoolSource,
    Project,
    Query,
    Resolution,
)
from annotation.models.judging import ReviewState
from annotation.services.adjudication import queries_approve
from annotation.services.answers import answer_key_set
from annotation.services.assignment import queries_assign
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.judging import judgment_save, resolutions_mark_simulated
from annotation.services.pooling import pool_build_builtin
from goldsmith.answers.extractive import extractive_answer
from goldsmith.answers.model import Context

POOL_K = 5
GRADED_QUERIES = 24  # of the 40 sampled: the rest stay in the annotators' queues
WORD = re.compile(r"[a-z][a-z0-9_]+")
STOP = frozenset(
    WORD.findall(
        "a an and are as at be by can do does for from how in is it of on or the to what when "
        "where which why with you my me should use using get"
    )
)


def _terms(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


def simulated_grade(query: str, chunk: str, annotator: str) -> int:
    """Share of the query's terms in the chunk: ≥ 0.6 → 2, ≥ 0.3 → 1, else 0. The second
    annotator reads one chunk in twelve a grade lower, so agreement is real but imperfect."""
    terms = _terms(query)
    share = len(terms & _terms(chunk)) / len(terms) if terms else 0.0
    grade = 2 if share >= 0.6 else 1 if share >= 0.3 else 0
    return with_disagreement(grade, query, chunk, annotator)


def with_disagreement(grade: int, query: str, chunk: str, annotator: str) -> int:
    """bob reads one chunk in twelve a grade lower (deterministically)."""
    digest = hashlib.sha256(f"{annotator}|{query}|{chunk[:80]}".encode()).digest()
    if annotator == "bob" and digest[0] % 12 == 0 and grade > 0:
        grade -= 1
    return grade


# How the demo's simulated annotator grades a chunk for a query: (query text, chunk, username).
GradeRule = Callable[[str, Chunk, str], int]


def _by_terms(query: str, chunk: Chunk, annotator: str) -> int:
    return simulated_grade(query, chunk.text, annotator)


def demo_tour(
    *,
    project: Project,
    grade: GradeRule = _by_terms,
    graded_queries: int | None = None,
    note: str = "Demo: queries resolved by rule in the first round",
) -> list[str]:
    done: list[str] = []
    if not PoolSource.objects.filter(project=project).exists():
        for kind in ("bm25", "tfidf"):
            result = pool_build_builtin(project=project, kind=kind, k=POOL_K)
            done.append(f"demo pool: {kind} top {POOL_K} added {result.new_candidates} candidates")
    if not Assignment.objects.filter(query__project=project).exists():
        queries_assign(project=project, per_query=2)
        done.append("demo assignments: every sampled query to alice and bob")
    done += _simulated_round(project=project, grade=grade, graded=graded_queries)
    if not GoldenSetVersion.objects.filter(project=project).exists():
        done += _answer_keys(project=project)
    done += _freeze(project=project, note=note)
    return done


FACTS_PER_QUERY = 2
FACT_MAX_CHARS = 400


def _answer_keys(*, project: Project) -> list[str]:
    """Answer keys for the approved queries, so that a run's answer section has something to
    measure: for each chunk graded relevant (at most two), the sentence of it that best
    matches the query (the extractive answerer's rule) as a key fact linked to that chunk, and
    the first of them as the reference answer, an open answer. Like the grades, these are
    simulated, not written by a person; the demo says so."""
    keyed = 0
    approved = Query.objects.filter(project=project, review__state=ReviewState.APPROVED)
    for query in approved.order_by("id"):
        if query.reference_facts:
            continue
        relevant = (
            Resolution.objects.filter(candidate__query=query, grade=2)
            .select_related("candidate__chunk")
            .order_by("candidate__chunk__chunk_id")[:FACTS_PER_QUERY]
        )
        facts = []
        for resolution in relevant:
            chunk = resolution.candidate.chunk
            sentence = extractive_answer(query.text, [Context(chunk.chunk_id, chunk.text)], top=1)
            if sentence and len(sentence) <= FACT_MAX_CHARS:
                facts.append({"text": sentence, "chunk_ids": [chunk.chunk_id]})
        if not facts:
            continue
        answer_key_set(
            project=project,
            query_id=query.pk,
            data={
                "reference_answer": facts[0]["text"],
                "answer_type": "open",
                "reference_facts": facts,
            },
        )
        keyed += 1
    return [
        f"demo answer keys: {keyed} approved queries given a reference answer and key facts "
        "(simulated: the best-matching sentence of each relevant chunk)"
    ]


def _simulated_round(*, project: Project, grade: GradeRule, graded: int | None) -> list[str]:
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "bob"])}
    queries = list(Query.objects.filter(project=project).order_by("id")[: graded or GRADED_QUERIES])
    saved = 0
    for query in queries:
        candidates = list(Candidate.objects.filter(query=query).select_related("chunk"))
        for username, user in users.items():
            assignment = Assignment.objects.filter(query=query, annotator=user).first()
            if assignment is None or assignment.judged >= assignment.total > 0:
                continue
            for candidate in candidates:
                judgment_save(
                    assignment=assignment,
                    candidate=candidate,
                    grade=grade(query.text, candidate.chunk, username),
                    simulated=True,
                )
                saved += 1
    if not saved:
        return ["demo grades already there"]
    lead = get_user_model().objects.get(username="lead")
    approval = queries_approve(project=project, by=lead)
    marked = resolutions_mark_simulated(project=project)
    return [
        f"demo grades: {saved} simulated grades by alice and bob on {len(queries)} queries; "
        f"{len(approval.approved)} resolved by rule and approved, the rest flagged for the lead; "
        f"{marked} final grades marked simulated"
    ]


def _freeze(*, project: Project, note: str) -> list[str]:
    if GoldenSetVersion.objects.filter(project=project).exists():
        return ["demo golden set already frozen"]
    lead = get_user_model().objects.get(username="lead")
    version = golden_set_version_freeze(project=project, by=lead, note=note)
    return [f"demo golden set {version.label}: {version.content_hash[:19]}…"]
