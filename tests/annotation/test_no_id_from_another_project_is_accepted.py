"""Every id in a URL, a form or an API body must belong to the project in the URL.

Mallory leads project B. She posts to B's pages and API operations, each time with one id of
project A (alice's): a query, a candidate, a chunk, an assignment, an annotator, a query log, a
retriever, a run, a golden-set version, a token. Every answer is a 4xx and every row of A is
unchanged (all of A's rows, read before and after, compared).

The probe that found this: `POST /projects/<B>/review/<A's query>/` with A's candidate ids
changed A's QueryReview and Resolution rows.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from annotation.models import (
    Assignment,
    Chunk,
    Document,
    Membership,
    Project,
    QueryReview,
    Role,
)
from annotation.services.projects import api_token_create
from annotation.services.querylogs import query_log_import
from evaluation.models import AnswerJudge
from evaluation.services.judges import judge_register, judging_job_create
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create
from tests.annotation.factories import grade_all, judging_setup, make_query, pool
from tests.evaluation.conftest import make_golden

# --------------------------------------------------------------------------------------------
# Every row of a project, whatever the model


def _path_to_project(model: type[models.Model], depth: int = 0) -> str | None:
    """The lookup from `model` to its Project ("project", "query__project", ...), if any."""
    if model is Project:
        return "pk"
    forward = [
        f
        for f in model._meta.get_fields()
        if (f.many_to_one or f.one_to_one) and f.concrete and f.related_model is not None
    ]
    for field in forward:
        if field.related_model is Project:
            return field.name
    if depth < 4:
        for field in forward:
            rest = _path_to_project(field.related_model, depth + 1)
            if rest is not None and rest != "pk":
                return f"{field.name}__{rest}"
    return None


def rows_of(project: Project) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the annotation and evaluation apps that belongs to `project`, and every
    user and API token (they belong to no project)."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    user_model = get_user_model()
    every = [
        *apps.get_app_config("annotation").get_models(),
        *apps.get_app_config("evaluation").get_models(),
        user_model,
    ]
    for model in every:
        path = _path_to_project(model)
        rows = model.objects.filter(**{path: project.pk}) if path else model.objects.all()
        values = rows.order_by("pk").values()
        found[model._meta.label] = [
            tuple(sorted((k, repr(v)) for k, v in row.items() if k != "last_login"))
            for row in values
        ]
    return found


# --------------------------------------------------------------------------------------------
# Two projects


@dataclass
class World:
    a: Project
    b: Project
    ids: dict[str, Any]


@pytest.fixture
def world(personas, tmp_path) -> World:
    a = personas.project
    setup = judging_setup(personas, queries=3, per_query=3)
    flagged, resolved, approved = setup.queries
    bob, carol = api_client(personas.bob), api_client(personas.carol)
    grade_all(bob, a, setup.candidates[flagged.pk], [2, 2, 2])
    grade_all(carol, a, setup.candidates[flagged.pk], [0, 0, 0])
    for query in (resolved, approved):
        grade_all(bob, a, setup.candidates[query.pk], [2, 1, 0])
        grade_all(carol, a, setup.candidates[query.pk], [2, 1, 0])
    from annotation.services.adjudication import queries_approve

    queries_approve(project=a, by=personas.alice, query_ids=[approved.pk])
    assert QueryReview.objects.get(query=flagged).state == "flagged"
    assert QueryReview.objects.get(query=resolved).state == "resolved"

    log_file = tmp_path / "log.csv"
    log_file.write_text("query,count\n" + "\n".join(f"question {i},{i + 1}" for i in range(9)))
    a_log = query_log_import(project=a, path=log_file)
    a_version = make_golden(a, n=3).version
    a_retriever = retriever_save(project=a, name="bm25-a", kind="bm25")
    a_runfile = retriever_save(project=a, name="file-a", kind="runfile")
    a_run = evaluation_run_create(
        project=a, retriever=a_retriever, version=a_version, enqueue=False
    )
    alice_token = api_token_create(user=personas.alice, name="ci").token
    a_judge = judge_register(project=a, name="stub-a", kind="keyword")
    a_file_judge = judge_register(project=a, name="file-a", kind="file")
    a_job = judging_job_create(judge=a_judge, scope="all", enqueue=False)
    a_answer_judge = AnswerJudge.objects.create(
        project=a, name="sage-a", config={"url": "http://judge.invalid/score"}
    )

    b = Project.objects.create(name="Mallory's project", annotators_write_answers=True)
    Membership.objects.create(project=b, user=personas.mallory, role=Role.LEAD)
    doc = Document.objects.create(project=b, doc_id="b-doc", title="B")
    b_chunks = [
        Chunk.objects.create(
            project=b, document=doc, chunk_id=f"b-doc#{i}", text=f"b text {i}", text_sha256=str(i)
        )
        for i in range(2)
    ]
    b_query = make_query(b, "a question of project b")
    b_candidates = pool(b_query, b_chunks)
    b_assignment = Assignment.objects.create(
        query=b_query, annotator=personas.mallory, order=1, total=len(b_candidates)
    )
    QueryReview.objects.create(query=b_query)
    b_log = query_log_import(project=b, path=log_file)
    b_version = make_golden(b, n=2, label="b1").version
    b_retriever = retriever_save(project=b, name="bm25-b", kind="bm25")

    a_candidates = setup.candidates[flagged.pk]
    ids = {
        "flagged": flagged.pk,
        "resolved": resolved.pk,
        "approved": approved.pk,
        "a_candidate": a_candidates[0].pk,
        "a_candidates": [c.pk for c in a_candidates],
        "a_chunk_id": setup.chunks[4].chunk_id,
        "a_assignment": Assignment.objects.filter(query=resolved).first().pk,
        "flagged_version": QueryReview.objects.get(query=flagged).version,
        "a_log": a_log.pk,
        "a_version": a_version,
        "a_retriever": a_retriever.pk,
        "a_runfile": a_runfile.pk,
        "a_run": a_run.pk,
        "alice_token": alice_token.pk,
        "a_judge": a_judge.pk,
        "a_file_judge": a_file_judge.pk,
        "a_job": a_job.pk,
        "a_answer_judge": a_answer_judge.pk,
        "b_query": b_query.pk,
        "b_assignment": b_assignment.pk,
        "b_log": b_log.pk,
        "b_version": b_version,
        "b_retriever": b_retriever.pk,
    }
    return World(a=a, b=b, ids=ids)


def api_client(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def grades_file(query_id: int, chunk_id: str) -> io.BytesIO:
    handle = io.BytesIO(f"query_id,chunk_id,grade\n{query_id},{chunk_id},2\n".encode())
    handle.name = "grades.csv"
    return handle


def run_file(query_ids: list[int], chunk_id: str) -> io.BytesIO:
    data = "".join(f"{q} Q0 {chunk_id} 1 1.0 probe\n" for q in query_ids).encode()
    handle = io.BytesIO(data)
    handle.name = "run.txt"
    return handle


# --------------------------------------------------------------------------------------------
# The attempts


def api_attempts(w: World) -> list[tuple[str, str, str, dict[str, Any], str]]:
    """(what, method, url, body, format) of every API write, each with one id of project A."""
    i = w.ids
    api = f"/api/v1/projects/{w.b.pk}/"
    grades = [{"candidate_id": c, "grade": 2} for c in i["a_candidates"]]
    return [
        ("A's query, own flags", "put", f"{api}queries/{i['resolved']}/annotation/",
         {"note": "x"}, "json"),
        ("A's query, answer key", "put", f"{api}queries/{i['approved']}/answer-key/",
         {"reference_answer": "x"}, "json"),
        ("A's query, own answer draft", "put", f"{api}queries/{i['resolved']}/answer-draft/",
         {"reference_answer": "x"}, "json"),
        ("A's chunk in B's answer draft", "put", f"{api}queries/{i['b_query']}/answer-draft/",
         {"reference_facts": [{"text": "x", "chunk_ids": [i["a_chunk_id"]]}]}, "json"),
        ("A's chunk in B's answer key", "put", f"{api}queries/{i['b_query']}/answer-key/",
         {"reference_facts": [{"text": "x", "chunk_ids": [i["a_chunk_id"]]}]}, "json"),
        ("A's query, add a chunk", "post", f"{api}queries/{i['approved']}/candidates/",
         {"chunk_id": i["a_chunk_id"]}, "json"),
        ("A's chunk added to B's query", "post", f"{api}queries/{i['b_query']}/candidates/",
         {"chunk_id": i["a_chunk_id"]}, "json"),
        ("A's candidate, a grade", "put", f"{api}candidates/{i['a_candidate']}/judgment/",
         {"grade": 1}, "json"),
        ("A's queries in a pooled run", "post", f"{api}pools/runs/",
         {"name": "probe", "file": run_file([i["flagged"], i["resolved"]], i["a_chunk_id"])},
         "multipart"),
        ("A's assignment", "post", f"{api}assignments/{i['a_assignment']}/reassign/",
         {"username": "mallory"}, "json"),
        ("A's annotator", "post", f"{api}assignments/{i['b_assignment']}/reassign/",
         {"username": "bob"}, "json"),
        ("A's query, bulk approval", "post", f"{api}review/approve/",
         {"query_ids": [i["resolved"]]}, "json"),
        ("A's query, adjudication", "post", f"{api}review/queries/{i['flagged']}/adjudicate/",
         {"version": i["flagged_version"], "grades": grades, "reason": "guideline_gap"},
         "json"),
        ("A's candidates, B's adjudication", "post",
         f"{api}review/queries/{i['b_query']}/adjudicate/",
         {"version": 1, "grades": grades, "reason": "guideline_gap"}, "json"),
        ("A's query, approval", "post", f"{api}review/queries/{i['resolved']}/approve/",
         {}, "json"),
        ("A's query log", "post", f"{api}samples/",
         {"log": i["a_log"], "n": 2, "strategy": "random", "seed": 1}, "json"),
        ("A's retriever, change", "patch", f"{api}retrievers/{i['a_retriever']}/",
         {"schedule": "nightly"}, "json"),
        ("A's retriever, run file", "post", f"{api}retrievers/{i['a_runfile']}/run-file/",
         {"file": run_file([1], "x")}, "multipart"),
        ("A's retriever, a run", "post", f"{api}runs/",
         {"retriever": str(i["a_retriever"]), "version": i["b_version"].label}, "json"),
        ("A's version, a run", "post", f"{api}runs/",
         {"retriever": str(i["b_retriever"]), "version": str(i["a_version"].pk)}, "json"),
        ("A's run, cancel", "post", f"{api}runs/{i['a_run']}/cancel/", {}, "json"),
        ("A's run, baseline", "post", f"{api}runs/{i['a_run']}/baseline/", {}, "json"),
        ("A's run, pool", "post", f"{api}runs/{i['a_run']}/pool-unjudged/", {}, "json"),
        ("alice's token", "delete", f"/api/v1/tokens/{i['alice_token']}/", {}, "json"),
        ("A's judge, grades", "post", f"{api}judges/{i['a_file_judge']}/grades/",
         {"file": grades_file(i["resolved"], i["a_chunk_id"])}, "multipart"),
        ("A's judge, a job", "post", f"{api}judges/{i['a_judge']}/jobs/", {"scope": "all"},
         "json"),
        ("A's judge, cancel", "post", f"{api}judges/{i['a_judge']}/jobs/{i['a_job']}/cancel/",
         {}, "json"),
        ("A's judge, fill gaps", "post", f"{api}judges/{i['a_judge']}/fill-gaps/", {}, "json"),
        ("A's answer judge, change", "patch", f"{api}answer-judges/{i['a_answer_judge']}/",
         {"model": "m-2"}, "json"),
        ("A's answer judge, remove", "delete", f"{api}answer-judges/{i['a_answer_judge']}/",
         {}, "json"),
        ("A's answer judge, test call", "post",
         f"{api}answer-judges/{i['a_answer_judge']}/test-call/", {}, "json"),
    ]  # fmt: skip


def page_attempts(w: World) -> list[tuple[str, str, dict[str, Any]]]:
    """(what, url, form) of every page form, each with one id of project A."""
    i = w.ids
    page = f"/projects/{w.b.pk}/"
    grades = {f"grade-{c}": "2" for c in i["a_candidates"]}
    adjudication = {"version": i["flagged_version"], "reason": "guideline_gap", **grades}
    return [
        ("A's query, adjudication (the probe)", f"{page}review/{i['flagged']}/", adjudication),
        ("A's candidates, B's adjudication", f"{page}review/{i['b_query']}/",
         dict(adjudication, version=1)),
        ("A's query, approval", f"{page}review/{i['resolved']}/approve/", {}),
        ("A's query, answer key merge", f"{page}review/{i['approved']}/answer-key/",
         {"reference_answer": "x", "fact-text": ["x"], "fact-chunks": [""]}),
        ("A's chunk, B's answer key merge", f"{page}review/{i['b_query']}/answer-key/",
         {"reference_answer": "x", "fact-text": ["x"], "fact-chunks": [i["a_chunk_id"]]}),
        ("A's query, bulk approval", f"{page}review/approve/", {"query": [i["resolved"]]}),
        ("A's assignment", f"{page}pools/",
         {"what": "reassign", "assignment": i["a_assignment"], "username": "mallory"}),
        ("A's annotator", f"{page}pools/",
         {"what": "reassign", "assignment": i["b_assignment"], "username": "bob"}),
        ("A's queries in a pooled run", f"{page}pools/",
         {"what": "run", "run-name": "probe", "run-format": "auto", "run-k": 10,
          "run-file": run_file([i["flagged"], i["resolved"]], i["a_chunk_id"])}),
        ("A's query log", f"{page}sampling/",
         {"what": "create", "log": i["a_log"], "n": 2, "strategy": "random", "seed": 1}),
        ("A's query, annotation page", f"{page}annotate/{i['resolved']}/", {}),
        ("A's retriever, a run", f"{page}retrievers/{i['a_retriever']}/",
         {"version": i["b_version"].pk, "ks": "5", "relevance_threshold": 2, "gain": "linear",
          "matching": "chunk"}),
        ("A's version, a run", f"{page}retrievers/{i['b_retriever']}/",
         {"version": i["a_version"].pk, "ks": "5", "relevance_threshold": 2, "gain": "linear",
          "matching": "chunk"}),
        ("A's retriever, edit", f"{page}retrievers/{i['a_retriever']}/edit/",
         {"schedule": "nightly", "method": "POST", "id_field": "id", "timeout": 5,
          "max_concurrency": 1, "retries": 0}),
        ("A's run, cancel", f"{page}runs/{i['a_run']}/cancel/", {}),
        ("A's run, baseline", f"{page}runs/{i['a_run']}/baseline/", {}),
        ("A's run, pool", f"{page}runs/{i['a_run']}/pool/", {}),
        ("A's judge, a job", f"{page}judges/", {"action": "run", "judge": i["a_judge"]}),
        ("A's judge, fill gaps", f"{page}judges/", {"action": "fill", "judge": i["a_judge"]}),
        ("A's judge, cancel", f"{page}judges/",
         {"action": "cancel", "judge": i["a_judge"], "job": i["a_job"]}),
        ("A's judge, grades", f"{page}judges/",
         {"action": "upload", "judge": i["a_file_judge"],
          "file": grades_file(i["resolved"], i["a_chunk_id"])}),
        ("A's answer judge, test call", f"{page}answer-judges/",
         {"action": "test", "judge": i["a_answer_judge"]}),
        ("A's answer judge, remove", f"{page}answer-judges/",
         {"action": "delete", "judge": i["a_answer_judge"]}),
    ]  # fmt: skip


def test_no_api_operation_accepts_an_id_of_another_project(personas, world):
    client = api_client(personas.mallory)
    failures = []
    for what, method, url, body, fmt in api_attempts(world):
        before = rows_of(world.a)
        response = getattr(client, method)(url, body, format=fmt)
        if not 400 <= response.status_code < 500:
            failures.append(f"{what}: {method.upper()} {url} answered {response.status_code}")
        if rows_of(world.a) != before:
            failures.append(f"{what}: {method.upper()} {url} changed project A")
    assert not failures, "\n".join(failures)


def test_no_page_form_accepts_an_id_of_another_project(personas, world, client):
    client.force_login(personas.mallory)
    failures = []
    for what, url, form in page_attempts(world):
        before = rows_of(world.a)
        response = client.post(url, form)
        if not 400 <= response.status_code < 500:
            failures.append(f"{what}: POST {url} answered {response.status_code}")
        if rows_of(world.a) != before:
            failures.append(f"{what}: POST {url} changed project A")
    assert not failures, "\n".join(failures)


def test_adding_a_user_of_another_project_as_a_member_changes_only_this_project(
    personas, world, client
):
    """Users are accounts of the whole site: a lead may add any of them to their own project
    (that is how members are added). Project A is untouched."""
    before = rows_of(world.a)
    response = api_client(personas.mallory).post(
        f"/api/v1/projects/{world.b.pk}/members/",
        {"username": "bob", "role": "annotator"},
        format="json",
    )
    assert response.status_code == 201
    client.force_login(personas.mallory)
    page = client.post(f"/projects/{world.b.pk}/members/", {"username": "carol", "role": "viewer"})
    assert page.status_code == 302
    assert rows_of(world.a) == before


def test_a_lead_of_another_project_removes_no_member_of_this_one(personas, world, client):
    """Member removal names a user, not a row: through B's URLs, A's members stay A's."""
    before = rows_of(world.a)
    response = api_client(personas.mallory).delete(f"/api/v1/projects/{world.b.pk}/members/bob/")
    assert response.status_code == 404
    client.force_login(personas.mallory)
    page = client.post(f"/projects/{world.b.pk}/members/bob/remove/")
    assert page.status_code == 404
    assert rows_of(world.a) == before


def test_the_walk_covers_every_write_route():
    """A new write route must be added to the attempts above (or here, with a reason)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(resolver, prefix=""):
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                if "admin" not in str(p.pattern):
                    yield from walk(p, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern), p

    routes = {route for route, _ in walk(get_resolver())}
    attempted = {
        "api/v1/projects/<int:project_id>/queries/<int:query_id>/annotation/",
        "api/v1/projects/<int:project_id>/queries/<int:query_id>/candidates/",
        "api/v1/projects/<int:project_id>/queries/<int:query_id>/answer-key/",
        "api/v1/projects/<int:project_id>/queries/<int:query_id>/answer-draft/",
        "projects/<int:project_id>/review/<int:query_id>/answer-key/",
        "api/v1/projects/<int:project_id>/candidates/<int:candidate_id>/judgment/",
        "api/v1/projects/<int:project_id>/pools/runs/",
        "api/v1/projects/<int:project_id>/assignments/<int:assignment_id>/reassign/",
        "api/v1/projects/<int:project_id>/review/approve/",
        "api/v1/projects/<int:project_id>/review/queries/<int:query_id>/adjudicate/",
        "api/v1/projects/<int:project_id>/review/queries/<int:query_id>/approve/",
        "api/v1/projects/<int:project_id>/samples/",
        "api/v1/projects/<int:project_id>/retrievers/<int:retriever_id>/",
        "api/v1/projects/<int:project_id>/retrievers/<int:retriever_id>/run-file/",
        "api/v1/projects/<int:project_id>/runs/",
        "api/v1/projects/<int:project_id>/runs/<int:run_id>/cancel/",
        "api/v1/projects/<int:project_id>/runs/<int:run_id>/baseline/",
        "api/v1/projects/<int:project_id>/runs/<int:run_id>/pool-unjudged/",
        "api/v1/tokens/<int:token_id>/",
        "api/v1/projects/<int:project_id>/members/",
        "api/v1/projects/<int:project_id>/members/<str:username>/",
        "projects/<int:project_id>/review/<int:query_id>/",
        "projects/<int:project_id>/review/<int:query_id>/approve/",
        "projects/<int:project_id>/review/approve/",
        "projects/<int:project_id>/pools/",
        "projects/<int:project_id>/sampling/",
        "projects/<int:project_id>/annotate/<int:query_id>/",
        "projects/<int:project_id>/retrievers/<int:retriever_id>/",
        "projects/<int:project_id>/retrievers/<int:retriever_id>/edit/",
        "projects/<int:project_id>/runs/<int:run_id>/<str:action>/",
        "projects/<int:project_id>/members/",
        "projects/<int:project_id>/members/<str:username>/remove/",
        "api/v1/projects/<int:project_id>/judges/<int:judge_id>/grades/",
        "api/v1/projects/<int:project_id>/judges/<int:judge_id>/jobs/",
        "api/v1/projects/<int:project_id>/judges/<int:judge_id>/jobs/<int:job_id>/cancel/",
        "api/v1/projects/<int:project_id>/judges/<int:judge_id>/fill-gaps/",
        "projects/<int:project_id>/judges/",
        "api/v1/projects/<int:project_id>/answer-judges/<int:answer_judge_id>/",
        "api/v1/projects/<int:project_id>/answer-judges/<int:answer_judge_id>/test-call/",
        "projects/<int:project_id>/answer-judges/",
    }
    # Writes that carry no id of anything (the project is the URL's): uploads, pool builds,
    # assignment, guidelines, agreement, freezing, settings (tie rule, escalation, tokenizer,
    # annotators' answers, kappa weights), new
    # retrievers, tokens, sign-in.
    no_id = {
        "login/",
        "logout/",
        "api/v1/tokens/",
        "api/v1/projects/<int:project_id>/guidelines/",
        "api/v1/projects/<int:project_id>/pools/build/",
        "api/v1/projects/<int:project_id>/assignments/assign/",
        "api/v1/projects/<int:project_id>/agreement/recompute/",
        "api/v1/projects/<int:project_id>/corpus/imports/",
        "api/v1/projects/<int:project_id>/querylogs/",
        "api/v1/projects/<int:project_id>/goldsets/",
        "api/v1/projects/<int:project_id>/goldsets/import/",
        "api/v1/projects/<int:project_id>/retrievers/",
        "api/v1/projects/<int:project_id>/judges/",
        "api/v1/projects/<int:project_id>/answer-judges/",
        "projects/<int:project_id>/guidelines/",
        "projects/<int:project_id>/corpus/",
        # a replace's confirmation carries a key signed for this project and uploader only
        "projects/<int:project_id>/corpus/preview/",
        "projects/<int:project_id>/querylogs/",
        "projects/<int:project_id>/goldsets/",
        "projects/<int:project_id>/retrievers/",
        "projects/<int:project_id>/evaluation-settings/",
        "api/v1/projects/<int:project_id>/tie-rule/",
        "projects/<int:project_id>/dashboard/tie-rule/",
        "api/v1/projects/<int:project_id>/escalation/",
        "projects/<int:project_id>/dashboard/escalation/",
        "api/v1/projects/<int:project_id>/tokenizer/",
        "projects/<int:project_id>/tokenizer/",
        "api/v1/projects/<int:project_id>/annotator-answers/",
        "projects/<int:project_id>/dashboard/answers/",
        "api/v1/projects/<int:project_id>/kappa-weights/",
        "projects/<int:project_id>/dashboard/kappa-weights/",
        # a refresh names its version by label, looked up among the URL's project's versions
        # only (the service takes the project, never a version of another)
        "api/v1/projects/<int:project_id>/goldsets/<str:label>/refresh/",
        "api/v1/projects/<int:project_id>/goldsets/<str:label>/refresh/freeze/",
        "projects/<int:project_id>/goldsets/<str:label>/refresh/",
        "projects/<int:project_id>/goldsets/<str:label>/refresh/freeze/",
    }
    # Read-only routes (GET): they are not walked here.
    writes = set()
    for route, pattern in walk(get_resolver()):
        view = pattern.callback
        cls = getattr(view, "view_class", None)
        if cls is not None:
            if any(hasattr(cls, m) for m in ("post", "put", "patch", "delete")):
                writes.add(route)
        elif route.startswith("projects/") or route in ("login/", "logout/"):
            writes.add(route)  # function views: any of them may take a POST
    reads = {
        r
        for r in writes
        if r.startswith("projects/")
        and any(
            r.endswith(tail)
            for tail in (
                "<int:project_id>/",
                "annotate/",
                "annotate/next/",
                "review/",
                "dashboard/",
                "corpus/imports/<int:import_id>/",
                "corpus/versions/diff/",
                "querylogs/<int:log_id>/",
                "samples/<int:sample_id>/",
                "goldsets/diff/",
                "goldsets/<str:label>/",
                "goldsets/<str:label>/export/<str:fmt>/",
                "runs/",
                "runs/compare/",
                "runs/<int:run_id>/",
                "runs/<int:run_id>/report.<str:fmt>",
            )
        )
    }
    missing = writes - attempted - no_id - reads
    assert not missing, sorted(missing)
    assert routes >= attempted
