"""Schemathesis against /api/schema/, in-process, with a lead's token: every operation of the
API gets generated requests (a fixed seed, a bounded number of examples each). No answer may be
a server error. To requests that fit the schema, no answer may be a status code or content type
the schema does not list, a body that breaks the schema, or a refusal as bad input (400/422);
requests that break the schema must be refused.

Path parameters point at real rows of one seeded project (a random id only ever finds a 404),
and each example is rolled back, so that an example deleting the lead's token or adding a
member cannot change what the next one sees.

KNOWN_GAPS lists what the schema still gets wrong, operation by operation, each with its
reason: it only ever shrinks. A gap that did not fail is reported as a warning.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from annotation.services.projects import api_token_create

# Examples per operation: enough to reach every branch we know of, bounded for CI's two cores.
MAX_EXAMPLES = int(os.environ.get("GOLDSMITH_SCHEMATHESIS_EXAMPLES", "8"))

# What each kind of generated request is checked for. Positive requests fit the schema: the
# answer must be documented (status code, content type, body) and must not refuse them as bad
# input. Negative requests break the schema somewhere: they must be refused.
CHECKS = {
    GenerationMode.POSITIVE: {
        "not_a_server_error": not_a_server_error,
        "status_code_conformance": status_code_conformance,
        "content_type_conformance": content_type_conformance,
        "response_schema_conformance": response_schema_conformance,
        "positive_data_acceptance": positive_data_acceptance,
    },
    GenerationMode.NEGATIVE: {
        "not_a_server_error": not_a_server_error,
        "negative_data_rejection": negative_data_rejection,
    },
}

UPLOAD = (
    "schemathesis sends the file as a multipart part without a file name, which Django reads "
    "as a plain field ('The submitted data was not a file'); uploads are tested by their own tests"
)
NAMES = "a name must name a row of this project (400 'no ... named'); a schema lists no rows"
STATE = "refused by the project's state (400; 409 would say so better), which no schema holds"
NO_FIELDS = (
    "a body that holds no fields (JSON true, a multipart part that is no form field) is read "
    "as no fields, and every field is optional"
)
ANSWER_RULES = (
    "an answer key's fields depend on each other (a closed type needs a reference answer of "
    "that type, choices are for 'choice' only, facts link only to the query's chunks), which "
    "the schema states in words, not as constraints"
)
JUDGE_URL = (
    "the URL must be a web address the SSRF guard lets through (which addresses depends on "
    "the server's network and settings), and the auth header's name and environment variable "
    "must be usable; the schema says so in words"
)
UNKNOWN_QUERY = "unknown query parameters are ignored, as HTTP APIs customarily do"

# (method, path) -> {check name: reason}. Never a server error: `not_a_server_error` is
# checked on every operation without exception. Each entry is a truth the schema does not
# tell yet; fix it and remove the entry (the test says when an entry no longer fails).
P = "/api/v1/projects/{project_id}"
KNOWN_GAPS: dict[tuple[str, str], dict[str, str]] = {
    ("POST", f"{P}/assignments/{{assignment_id}}/reassign/"): {"positive_data_acceptance": NAMES},
    ("POST", f"{P}/corpus/imports/"): {"positive_data_acceptance": UPLOAD},
    ("GET", f"{P}/corpus/search/"): {"negative_data_rejection": UNKNOWN_QUERY},
    ("POST", f"{P}/goldsets/"): {"positive_data_acceptance": STATE + ": nothing approved"},
    ("PUT", f"{P}/queries/{{query_id}}/answer-key/"): {"positive_data_acceptance": ANSWER_RULES},
    ("GET", f"{P}/goldsets/{{label}}/items/"): {
        "negative_data_rejection": "?limit=a&limit=5 takes the last value, as DRF's pagination "
        "does everywhere; a bad limit falls back to the page size"
    },
    ("POST", f"{P}/goldsets/import/"): {"positive_data_acceptance": UPLOAD},
    ("POST", f"{P}/members/"): {"positive_data_acceptance": NAMES},
    ("POST", f"{P}/pools/runs/"): {"positive_data_acceptance": UPLOAD},
    ("POST", f"{P}/querylogs/"): {"positive_data_acceptance": UPLOAD},
    ("POST", f"{P}/retrievers/"): {
        "positive_data_acceptance": "a name is one line without control characters; the "
        "schema's pattern for that is not written yet"
    },
    ("POST", f"{P}/retrievers/{{retriever_id}}/run-file/"): {"positive_data_acceptance": UPLOAD},
    ("POST", f"{P}/assignments/assign/"): {"negative_data_rejection": NO_FIELDS},
    ("POST", f"{P}/pools/build/"): {"negative_data_rejection": NO_FIELDS},
    ("GET", f"{P}/review/queue/"): {
        "negative_data_rejection": "an empty ?state= means the default, as an absent one"
    },
    ("POST", f"{P}/review/approve/"): {
        "positive_data_acceptance": "query_ids or all_resolved: one of the two is required, "
        "which the schema does not say (oneOf)"
    },
    ("POST", f"{P}/review/queries/{{query_id}}/adjudicate/"): {
        "positive_data_acceptance": "grades is a list of objects, which a form-encoded body "
        "(offered, as for every input) cannot carry"
    },
    ("POST", f"{P}/review/queries/{{query_id}}/approve/"): {
        "positive_data_acceptance": STATE + ": only a resolved query can be approved"
    },
    ("POST", f"{P}/runs/"): {"positive_data_acceptance": NAMES},
    ("POST", f"{P}/samples/"): {"positive_data_acceptance": STATE + ": no query log imported"},
    ("POST", f"{P}/judges/"): {
        "positive_data_acceptance": "a name is one line without control characters, and an "
        "HTTP judge needs a config with a usable url (a schema cannot say which kind needs it)"
    },
    ("POST", f"{P}/judges/{{judge_id}}/grades/"): {"positive_data_acceptance": UPLOAD},
    ("POST", f"{P}/answer-judges/"): {"positive_data_acceptance": JUDGE_URL},
    ("PATCH", f"{P}/answer-judges/{{answer_judge_id}}/"): {"positive_data_acceptance": JUDGE_URL},
}


# The path parameters the `seeded` fixture pins to real rows.
SEEDED = {
    "project_id",
    "query_id",
    "candidate_id",
    "assignment_id",
    "label",
    "retriever_id",
    "run_id",
    "token_id",
    "username",
    "judge_id",
    "job_id",
    "answer_judge_id",
}


@dataclass
class Seeded:
    token: str
    ids: dict[str, object] = field(default_factory=dict)


@pytest.fixture
def seeded(personas, settings) -> Seeded:
    """One project with a corpus, pooled and assigned queries, a frozen version, a built-in
    retriever and a finished run; alice (lead) holds the token."""
    from evaluation.services.retrievers import retriever_save
    from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
    from tests.annotation.factories import judging_setup
    from tests.evaluation.conftest import make_golden

    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE = 10**9
    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE_PER_ADDRESS = 10**9
    project = personas.project
    judging = judging_setup(personas, queries=2)
    query, candidates = judging.first()
    golden = make_golden(project, n=4, label="v1")
    retriever = retriever_save(project=project, name="bm25", kind="bm25")
    run = evaluation_run_create(
        project=project, retriever=retriever, version=golden.version, ks=[5], enqueue=False
    )
    evaluation_run_execute_inline(run_id=run.pk)
    from evaluation.services.judges import judge_register, judging_job_cancel, judging_job_create

    judge = judge_register(project=project, name="stub", kind="keyword")
    job = judging_job_create(judge=judge, scope="all", enqueue=False)
    judging_job_cancel(job=job)  # finished: a new job may start
    from evaluation.services.answer_judges import answer_judge_register

    # A name that never resolves: a test call answers at once with the error.
    answer_judge = answer_judge_register(
        project=project, name="sage", url="https://judge.invalid/score"
    )
    token = api_token_create(user=personas.alice, name="schemathesis")
    assignment = query.assignments.first()
    seeded = Seeded(
        token=token.key,
        ids={
            "project_id": project.pk,
            "query_id": query.pk,
            "candidate_id": candidates[0].pk,
            "assignment_id": assignment.pk if assignment else 1,
            "label": "v1",
            "retriever_id": retriever.pk,
            "run_id": run.pk,
            "token_id": token.token.pk,
            "username": "carol",
            "judge_id": judge.pk,
            "job_id": job.pk,
            "answer_judge_id": answer_judge.pk,
        },
    )
    assert set(seeded.ids) == SEEDED
    return seeded


@pytest.fixture
def api_schema(seeded) -> Iterator[schemathesis.BaseSchema]:
    from config.wsgi import application

    # Django's test client does the same: a request's end must not close the connection that
    # holds the test's transaction.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
        # Text holding a NUL is refused anywhere in a request, as the 400 of every operation
        # says (annotation/text_input.py; tests/config/test_a_nul_byte_gets_a_400.py), also in
        # a property the schema leaves open: generated text leaves it out.
        schema.config.generation.update(allow_x00=False)
        yield schema
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


def operations() -> list[tuple[str, str, GenerationMode]]:
    """Every (method, path) of the schema the app serves (read without a database), with
    positive requests, and with negative ones where the request has something to break: a
    query parameter, a body, or a path parameter that is not pinned to a seeded row."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method not in {"get", "put", "post", "patch", "delete"}:
                continue
            found.append((method.upper(), path, GenerationMode.POSITIVE))
            breakable = "requestBody" in operation or any(
                p["in"] == "query" or p["name"] not in SEEDED
                for p in operation.get("parameters", [])
            )
            if breakable:
                found.append((method.upper(), path, GenerationMode.NEGATIVE))
    return found


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path", "mode"), operations())
def test_every_operation_answers_as_its_schema_says(api_schema, seeded, method, path, mode):
    operation = api_schema[path][method]
    gaps = KNOWN_GAPS.get((method, path), {})
    checks = CHECKS[mode]
    gaps = {name: reason for name, reason in gaps.items() if name in checks}
    headers = {"Authorization": f"Token {seeded.token}"}
    failures: dict[str, str] = {}
    ids = {
        parameter.name: seeded.ids[parameter.name]
        for parameter in operation.path_parameters
        if parameter.name in seeded.ids
    }

    @given(case=operation.as_strategy(mode, path_parameters=ids))
    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def check(case):
        with transaction.atomic():
            response = case.call(headers=headers)
            transaction.set_rollback(True)
        for name, function in checks.items():
            try:
                case.validate_response(response, checks=[function], headers=headers)
            except (AssertionError, FailureGroup) as failure:
                failures.setdefault(name, f"{case.as_curl_command(headers)}\n{failure}")

    check()
    unexpected = {name: text for name, text in failures.items() if name not in gaps}
    assert not unexpected, "\n\n".join(f"{name}: {text}" for name, text in unexpected.items())
    # A gap that did not fail this time may still fail on other data (the rows' ids differ
    # from run to run): said, not failed.
    if quiet := set(gaps) - set(failures):
        warnings.warn(f"{method} {path}: {quiet} did not fail; fixed? then drop it", stacklevel=1)
