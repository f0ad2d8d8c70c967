"""Annotators do not see how the review stands before a version is frozen: no project-wide
count of flagged, resolved or approved queries, no final grade, no query that is not theirs.
A frozen version is every member's to read and export.

Bob (annotator) walks every page and API route that answers a GET, with every id he might
try: his own queries, queries he was never given (one flagged, one resolved, one approved
after v1 was frozen, each with final grades) and v1. Nothing of the review may show: none of
those queries' texts, none of the overview's review counts, no `states` or `final` field.
Alice (lead) sees all of it on the same walk; victor (viewer) sees the counts (viewers do not
judge, so a count cannot sway a grade) but no query outside a frozen version.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.models import Assignment
from annotation.models.judging import ReviewState
from annotation.services.adjudication import queries_approve
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.pooling import pool_build_queue
from evaluation.models import AnswerJudge
from evaluation.services.judges import judge_register, judging_job_create
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create
from tests.annotation.factories import grade_all, judging_setup
from tests.annotation.goldset_factories import make_query
from tests.conftest import PASSWORD

# Queries bob was never given, by review state: their texts must never reach him.
SECRET = {
    ReviewState.FLAGGED: "zebra quartz still disputed",
    ReviewState.RESOLVED: "zebra quartz resolved awaiting approval",
    ReviewState.APPROVED: "zebra quartz approved after v1",
}
# How the pages show the review's progress (the project overview, the golden-set list).
REVIEW_COUNTS = re.compile(
    r"Flagged for adjudication|Resolved, awaiting approval|>Approved<|can be frozen now"
)
REVIEW_FIELDS = {"states", "final", "flagged", "resolved", "approved"}
NOT_WALKED = {"healthz", "login/", "logout/", "api/schema/", "api/docs/"}


@dataclass
class World:
    ids: dict[str, list[Any]]  # URL parameter -> values to try


@pytest.fixture
def world(personas, api_client_for) -> World:
    project = personas.project
    setup = judging_setup(personas, queries=3, per_query=3)
    flagged, resolved, approved = setup.queries
    bob, carol = api_client_for(personas.bob), api_client_for(personas.carol)
    grade_all(bob, project, setup.candidates[flagged.pk], [2, 2, 2])
    grade_all(carol, project, setup.candidates[flagged.pk], [0, 0, 0])
    for query in (resolved, approved):
        grade_all(bob, project, setup.candidates[query.pk], [2, 1, 0])
        grade_all(carol, project, setup.candidates[query.pk], [2, 1, 0])
    queries_approve(project=project, by=personas.alice, query_ids=[approved.pk])
    v1 = golden_set_version_freeze(project=project, by=personas.alice, note="v1")
    secret = {
        state: make_query(project, text, {setup.chunks[3]: 2, setup.chunks[4]: 1}, state=state)
        for state, text in SECRET.items()
    }
    retriever = retriever_save(project=project, name="bm25", kind="bm25")
    run = evaluation_run_create(project=project, retriever=retriever, version=v1, enqueue=False)
    judge = judge_register(project=project, name="stub", kind="keyword")
    job = judging_job_create(judge=judge, scope="all", enqueue=False)
    answer_judge = AnswerJudge.objects.create(
        project=project, name="sage", config={"url": "http://judge.invalid/score"}
    )
    build = pool_build_queue(project=project, kinds=["bm25"], k=2, created_by=personas.alice)
    own = Assignment.objects.filter(annotator=personas.bob).order_by("order")
    return World(
        ids={
            "project_id": [project.pk],
            "query_id": [q.pk for q in setup.queries] + [q.pk for q in secret.values()],
            "candidate_id": [c.pk for c in setup.candidates[flagged.pk]],
            "assignment_id": [a.pk for a in own],
            "label": [v1.label],
            "retriever_id": [retriever.pk],
            "run_id": [run.pk],
            "judge_id": [judge.pk],
            "job_id": [job.pk],
            "answer_judge_id": [answer_judge.pk],
            "build_id": [build.pk],
            "action": ["cancel"],
            "username": ["carol"],
            # The JavaScript catalog of each interface language (/jsi18n/<language>/).
            "language": ["en", "zh-hans"],
            # Nothing of these exists in this project: a refusal or a 404 either way.
            "import_id": [1],
            "log_id": [1],
            "sample_id": [1],
            "token_id": [1],
        }
    )


def routes() -> list[tuple[str, URLPattern]]:
    def walk(resolver: URLResolver, prefix: str = ""):  # type: ignore[no-untyped-def]
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                if "admin" not in str(p.pattern):
                    yield from walk(p, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern), p

    found = []
    for route, pattern in walk(get_resolver()):
        view_class = getattr(pattern.callback, "view_class", None)
        if route in NOT_WALKED or (view_class is not None and not hasattr(view_class, "get")):
            continue
        found.append((route, pattern))
    return found


PARAM = re.compile(r"<(?:\w+:)?(\w+)>")


def urls(route: str, world: World) -> list[str]:
    """Every URL of the route with the world's ids (and a query string where one is read)."""
    names = PARAM.findall(route)
    values = []
    for name in names:
        if name == "fmt":
            values.append(["csv", "json"] if "runs/" in route else ["jsonl", "trec", "csv"])
        else:
            assert name in world.ids, f"{route}: give the walk values for <{name}>"
            values.append(world.ids[name])
    found = []
    for combo in itertools.product(*values):
        url = "/" + PARAM.sub("{}", route).format(*combo)
        if url.endswith("/diff/"):
            url += "?a=v1&b=v1"
        elif url.endswith("/search/"):
            url += "?q=zebra+quartz"
        elif url.endswith("/runs/compare/"):
            url += f"?a={world.ids['run_id'][0]}&b={world.ids['run_id'][0]}"
        found.append(url)
    return found


def body(response) -> str:  # type: ignore[no-untyped-def]
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode("utf-8", "replace")
    return response.content.decode("utf-8", "replace")


def fields(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in fields(v)}
    if isinstance(value, list):
        return {k for v in value for k in fields(v)}
    return set()


@dataclass
class Seen:
    statuses: dict[str, int]
    texts: dict[str, str]  # url -> body of every 200
    review_fields: dict[str, set[str]]  # url -> review fields of a JSON answer


def walk_as(user, world: World) -> Seen:  # type: ignore[no-untyped-def]
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    seen = Seen(statuses={}, texts={}, review_fields={})
    for route, _ in routes():
        for url in urls(route, world):
            response = client.get(url, HTTP_ACCEPT="application/json, text/html")
            seen.statuses[url] = response.status_code
            if response.status_code != 200:
                continue
            text = body(response)
            seen.texts[url] = text
            if response.get("Content-Type", "").startswith("application/json"):
                found = fields(json.loads(text)) & REVIEW_FIELDS
                if found:
                    seen.review_fields[url] = found
    return seen


def leaks(seen: Seen) -> list[str]:
    found = []
    for url, text in seen.texts.items():
        found += [
            f"{url}: the text of a query outside v1 ({t!r})" for t in SECRET.values() if t in text
        ]
        found += [f"{url}: a review count ({m.group(0)!r})" for m in REVIEW_COUNTS.finditer(text)]
    found += [f"{url}: review fields {sorted(f)}" for url, f in seen.review_fields.items()]
    return found


def test_an_annotator_sees_no_review_count_final_grade_or_unfrozen_query(personas, world):
    seen = walk_as(personas.bob, world)
    found = leaks(seen)
    assert not found, "\n".join(found)
    p = personas.project.pk
    # The walk reached what an annotator works with, frozen v1 included.
    for url in (
        f"/projects/{p}/",
        f"/projects/{p}/annotate/",
        f"/projects/{p}/annotate/{world.ids['query_id'][0]}/",
        f"/projects/{p}/goldsets/",
        f"/projects/{p}/goldsets/v1/",
        f"/api/v1/projects/{p}/goldsets/v1/items/",
        f"/api/v1/projects/{p}/goldsets/v1/export/jsonl/",
        f"/api/v1/projects/{p}/queries/{world.ids['query_id'][0]}/annotation/",
        f"/projects/{p}/runs/{world.ids['run_id'][0]}/",
    ):
        assert seen.statuses[url] == 200, url
    for url in (
        f"/projects/{p}/review/",
        f"/projects/{p}/dashboard/",
        f"/api/v1/projects/{p}/review/queue/",
        f"/api/v1/projects/{p}/agreement/",
    ):
        assert seen.statuses[url] == 403, url


def test_a_lead_sees_the_review_on_the_same_walk(personas, world):
    seen = walk_as(personas.alice, world)
    found = "\n".join(leaks(seen))
    for text in SECRET.values():
        assert text in found
    for label in ("Flagged for adjudication", "Resolved, awaiting approval", "can be frozen now"):
        assert label in found
    assert any("states" in f for f in seen.review_fields.values())


def test_a_viewer_sees_the_counts_but_no_query_outside_a_frozen_version(personas, world):
    seen = walk_as(personas.victor, world)
    found = leaks(seen)
    assert not [f for f in found if "the text of a query" in f or "review fields" in f]
    home = seen.texts[f"/projects/{personas.project.pk}/"]
    assert "Flagged for adjudication" in home and "Resolved, awaiting approval" in home
    assert (
        "2 approved queries can be frozen now"
        in seen.texts[f"/projects/{personas.project.pk}/goldsets/"]
    )
