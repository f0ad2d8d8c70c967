"""A retriever's auth header may come from an environment variable of the workers, but only from
one an operator exposed on purpose (named GOLDSMITH_SECRET_… or listed in
GOLDSMITH_RETRIEVER_SECRET_ENV). Naming SECRET_KEY, DATABASE_URL or REDIS_URL is refused when
the retriever is saved (API, page) and again on the worker, which then sends nothing."""

from __future__ import annotations

import logging

import pytest

from evaluation.models import Retriever, RunState
from evaluation.services.reports import RunInvalid
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden

SERVER_SECRETS = ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "GOLDSMITH_ENCRYPTION_KEY")
PROBE_VALUE = "probe-server-secret-0f9e8d7c"


@pytest.fixture
def server_secrets(monkeypatch):
    """The server's own secrets, as the workers' environment holds them."""
    for name in SERVER_SECRETS:
        monkeypatch.setenv(name, f"{PROBE_VALUE}-{name}")
    monkeypatch.setenv("GOLDSMITH_SECRET_SEARCH_TOKEN", "Bearer exposed-on-purpose")


def _http(stub, **auth):
    return {"name": "probe", "kind": "http", "config": stub.config(), **auth}


@pytest.mark.parametrize("name", SERVER_SECRETS)
def test_the_api_refuses_a_server_secret_and_names_the_rule(
    personas, private_urls, stub_factory, api_client_for, server_secrets, name
):
    client = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/retrievers/"
    body = _http(stub_factory({}), auth_header_name="Authorization", auth_header_env=name)
    response = client.post(base, body, format="json")
    assert response.status_code == 400, response.content
    detail = str(response.json())
    assert name in detail and "GOLDSMITH_SECRET_" in detail
    assert "GOLDSMITH_RETRIEVER_SECRET_ENV" in detail
    assert PROBE_VALUE not in detail
    assert not Retriever.objects.filter(project=personas.project).exists()


def test_the_api_refuses_switching_an_existing_retriever_to_a_server_secret(
    personas, private_urls, stub_factory, api_client_for, server_secrets
):
    client = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/retrievers/"
    created = client.post(
        base,
        _http(
            stub_factory({}),
            auth_header_name="Authorization",
            auth_header_env="GOLDSMITH_SECRET_SEARCH_TOKEN",
        ),
        format="json",
    )
    assert created.status_code == 201, created.content
    url = f"{base}{created.json()['id']}/"
    response = client.patch(url, {"auth_header_env": "SECRET_KEY"}, format="json")
    assert response.status_code == 400
    assert "GOLDSMITH_SECRET_" in str(response.json())
    assert Retriever.objects.get(pk=created.json()["id"]).auth_header_env == (
        "GOLDSMITH_SECRET_SEARCH_TOKEN"
    )


def test_an_operator_exposes_a_variable_by_prefix_or_by_the_allow_list(
    personas, private_urls, stub_factory, api_client_for, server_secrets, settings
):
    settings.GOLDSMITH_RETRIEVER_SECRET_ENV = ["SEARCH_API_TOKEN"]
    client = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/retrievers/"
    stub = stub_factory({})
    for i, name in enumerate(("GOLDSMITH_SECRET_SEARCH_TOKEN", "SEARCH_API_TOKEN")):
        body = dict(
            _http(stub, auth_header_name="Authorization", auth_header_env=name), name=f"r{i}"
        )
        response = client.post(base, body, format="json")
        assert response.status_code == 201, response.content
        assert response.json()["auth_header_env"] == name
    refused = client.post(
        base,
        dict(
            _http(stub, auth_header_name="Authorization", auth_header_env="OTHER_TOKEN"),
            name="r3",
        ),
        format="json",
    )
    assert refused.status_code == 400


def test_the_page_refuses_a_server_secret_with_a_readable_error(
    personas, private_urls, stub_factory, client, server_secrets
):
    stub = stub_factory({})
    assert client.login(username="alice", password=PASSWORD)
    page = f"/projects/{personas.project.pk}/retrievers/"
    form = {
        "name": "probe",
        "kind": "http",
        "url": stub.config()["url"],
        "method": "POST",
        "body_template": '{"query": "{query}"}',
        "results_path": "results",
        "id_field": "id",
        "score_field": "score",
        "timeout": "5",
        "max_concurrency": "2",
        "retries": "1",
        "auth_header_name": "Authorization",
        "auth_header_env": "DATABASE_URL",
    }
    response = client.post(page, form)
    assert response.status_code == 200
    text = response.content.decode()
    assert "DATABASE_URL" in text and "GOLDSMITH_SECRET_" in text
    assert PROBE_VALUE not in text
    assert not Retriever.objects.filter(project=personas.project).exists()

    ok = client.post(page, dict(form, auth_header_env="GOLDSMITH_SECRET_SEARCH_TOKEN"))
    assert ok.status_code == 302
    retriever = Retriever.objects.get(project=personas.project)
    edit = f"/projects/{personas.project.pk}/retrievers/{retriever.pk}/edit/"
    response = client.post(edit, dict(form, auth_header_env="REDIS_URL"))
    assert response.status_code == 200
    assert "GOLDSMITH_SECRET_" in response.content.decode()
    retriever.refresh_from_db()
    assert retriever.auth_header_env == "GOLDSMITH_SECRET_SEARCH_TOKEN"


def _saved_before_the_rule(project, stub, env_name: str) -> Retriever:
    """A retriever stored before the rule existed (written straight to the database)."""
    return Retriever.objects.create(
        project=project,
        name="old",
        kind="http",
        config=stub.config(retries=0),
        auth_header_name="Authorization",
        auth_header_env=env_name,
    )


def test_a_run_of_an_old_retriever_naming_a_server_secret_is_refused(
    personas, private_urls, stub_factory, server_secrets
):
    golden = make_golden(personas.project, n=4)
    stub = stub_factory(golden.answers)
    retriever = _saved_before_the_rule(personas.project, stub, "SECRET_KEY")
    with pytest.raises(RunInvalid, match="GOLDSMITH_SECRET_"):
        evaluation_run_create(project=personas.project, retriever=retriever, version=golden.version)
    assert stub.calls == 0


def test_the_worker_refuses_it_too_and_the_value_never_arrives(
    personas, private_urls, stub_factory, server_secrets, caplog
):
    """The run was queued while the retriever named an exposed variable; by the time the worker
    runs it, the row names DATABASE_URL (an old row, or one changed behind the service)."""
    caplog.set_level(logging.DEBUG)
    golden = make_golden(personas.project, n=6)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project,
        name="queued",
        kind="http",
        config=stub.config(retries=0),
        auth_header_name="Authorization",
        auth_header_env="GOLDSMITH_SECRET_SEARCH_TOKEN",
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    Retriever.objects.filter(pk=retriever.pk).update(auth_header_env="DATABASE_URL")
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.FAILED
    assert "DATABASE_URL" in run.error and "GOLDSMITH_SECRET_" in run.error
    assert PROBE_VALUE not in run.error
    assert stub.calls == 0
    for headers in stub.seen_headers:
        assert not any(PROBE_VALUE in value for value in headers.values())
    assert PROBE_VALUE not in caplog.text
    assert PROBE_VALUE not in str(run.report)


def test_the_app_refuses_to_start_when_the_allow_list_names_a_server_secret():
    from tests.config.test_settings import run_django

    result = run_django({"GOLDSMITH_RETRIEVER_SECRET_ENV": "SEARCH_TOKEN,DATABASE_URL"}, "check")
    assert result.returncode != 0
    assert "GOLDSMITH_RETRIEVER_SECRET_ENV may not list" in result.stderr
    assert "DATABASE_URL" in result.stderr
