"""A NUL character (PostgreSQL cannot store one in text) or a lone surrogate (not Unicode) in
any text input gets a 400 that says what is wrong, never a 500: query strings, JSON bodies
(values and keys, however deep), form fields, the text fields and file names of uploads, and
the URL's path. The probe: `GET /api/v1/projects/<id>/corpus/search/?q=X%1C%00` answered 500."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import Guideline, Membership
from evaluation.models import Retriever
from tests.annotation.factories import judging_setup

NUL = "\x00"


@pytest.fixture
def api(personas):
    """An API client that returns a server error as a response (as a browser sees it)."""

    def make(user) -> APIClient:
        client = APIClient(raise_request_exception=False)
        client.force_authenticate(user)
        return client

    return make


@pytest.fixture
def browser(personas):
    def make(user) -> Client:
        client = Client(raise_request_exception=False)
        client.force_login(user)
        return client

    return make


def refused(response, *words: str) -> None:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    text = response.content.decode("utf-8", "replace")
    for word in words or ("NUL",):
        assert word in text, text


def test_the_probe_a_nul_in_the_corpus_search(personas, api):
    project = personas.project
    judging_setup(personas)
    response = api(personas.alice).get(f"/api/v1/projects/{project.pk}/corpus/search/?q=X%1C%00")
    refused(response, "NUL", "q")
    assert response["Content-Type"].startswith("application/json")
    assert "detail" in response.json()


def test_query_strings_anywhere(personas, api, browser):
    project = personas.project
    setup = judging_setup(personas)
    query, _ = setup.first()
    p = project.pk
    for client, url in (
        (api(personas.bob), f"/api/v1/projects/{p}/queries/{query.pk}/search/?q=pip%00"),
        (api(personas.alice), f"/api/v1/projects/{p}/assignments/?annotator=bob%00"),
        (api(personas.alice), f"/api/v1/projects/{p}/goldsets/diff/?a=v1&b=v%002"),
        (api(personas.alice), f"/api/v1/projects/{p}/corpus/search/?limit=5&q%00=x"),
        (browser(personas.alice), f"/projects/{p}/goldsets/diff/?a=v%001&b=v2"),
        (browser(personas.alice), f"/projects/{p}/pools/?query=1%00"),
    ):
        refused(client.get(url))


def test_a_nul_in_the_path(personas, api, browser):
    p = personas.project.pk
    refused(api(personas.alice).get(f"/api/v1/projects/{p}/goldsets/v%001/"))
    refused(browser(personas.alice).get(f"/projects/{p}/goldsets/v%001/"))


def test_a_nul_in_a_cookie(personas):
    """The session id is looked up in the database: a NUL in it answered 500."""
    client = Client(raise_request_exception=False, HTTP_COOKIE='sessionid="abcdefgh\\000ijk"')
    refused(client.get(f"/projects/{personas.project.pk}/"), "NUL", "sessionid")


def test_json_bodies_values_and_keys_however_deep(personas, api):
    project = personas.project
    setup = judging_setup(personas)
    query, candidates = setup.first()
    p = project.pk
    bob, alice = api(personas.bob), api(personas.alice)
    attempts = [
        (bob.put, f"/api/v1/projects/{p}/candidates/{candidates[0].pk}/judgment/",
         {"grade": 2, "note": f"a{NUL}b"}),
        (bob.put, f"/api/v1/projects/{p}/queries/{query.pk}/annotation/",
         {"note": NUL}),
        (bob.put, f"/api/v1/projects/{p}/queries/{query.pk}/annotation/",
         {"flags": {f"ambiguous{NUL}": True}}),
        (alice.post, f"/api/v1/projects/{p}/guidelines/", {"markdown": f"# Rules{NUL}"}),
        (alice.post, f"/api/v1/projects/{p}/members/", {"username": f"zed{NUL}", "role": "viewer"}),
        (alice.post, f"/api/v1/projects/{p}/retrievers/",
         {"name": "r", "kind": "http",
          "config": {"url": "https://example.com/s", "headers": {"X-Team": f"a{NUL}"}}}),
        (alice.post, f"/api/v1/projects/{p}/review/approve/", {"query_ids": [], f"x{NUL}": 1}),
        (alice.post, "/api/v1/tokens/", {"name": f"ci{NUL}"}),
    ]  # fmt: skip
    for send, url, body in attempts:
        refused(send(url, body, format="json"))
    # A lone surrogate is not Unicode: it cannot be stored either.
    raw = json.dumps({"grade": 1, "note": "x"}).replace('"x"', '"\\ud800"')
    refused(
        bob.generic(
            "PUT",
            f"/api/v1/projects/{p}/candidates/{candidates[0].pk}/judgment/",
            raw,
            content_type="application/json",
        ),
        "surrogate",
    )
    assert not Guideline.objects.exists()
    assert not Retriever.objects.exists()
    assert not personas.bob.judgments.exists()


def test_form_posts_and_the_text_fields_of_uploads(personas, browser, api):
    p = personas.project.pk
    alice = browser(personas.alice)
    refused(alice.post(f"/projects/{p}/guidelines/", {"markdown": f"rules{NUL}"}))
    refused(alice.post(f"/projects/{p}/members/", {"username": f"zed{NUL}", "role": "viewer"}))
    refused(
        alice.post(
            f"/projects/{p}/retrievers/", {"name": f"bm{NUL}25", "kind": "bm25", "method": "GET"}
        )
    )
    anonymous = Client(raise_request_exception=False)
    refused(anonymous.post("/login/", {"username": f"alice{NUL}", "password": "x"}))
    upload = io.BytesIO(b"1 Q0 doc-0#0 1 1.0 run\n")
    upload.name = "run.txt"
    refused(
        alice.post(
            f"/projects/{p}/pools/",
            {"what": "run", "run-name": f"prod{NUL}", "run-format": "auto", "run-k": 10,
             "run-file": upload},
        )
    )  # fmt: skip
    # A file's own name: Django drops its non-printable characters, so the upload is read.
    upload = io.BytesIO(b'{"query_id": "q1", "query": "x", "judgments": []}\n')
    upload.name = f"gold{NUL}.jsonl"
    response = api(personas.alice).post(
        f"/api/v1/projects/{p}/goldsets/import/",
        {"format": "jsonl", "file": upload},
        format="multipart",
    )
    assert response.status_code == 400 and "gold.jsonl" in response.content.decode()
    upload = io.BytesIO(b'{"query_id": "q1", "query": "x", "judgments": []}\n')
    upload.name = "gold.jsonl"
    refused(
        api(personas.alice).post(
            f"/api/v1/projects/{p}/goldsets/import/",
            {"format": "jsonl", "file": upload, "note": f"n{NUL}"},
            format="multipart",
        )
    )
    assert Membership.objects.filter(project_id=p).count() == 4
    assert not Guideline.objects.exists()


def test_ordinary_text_still_passes(personas, api):
    """Tabs, newlines, other control characters and any script are text like any other."""
    setup = judging_setup(personas)
    _, candidates = setup.first()
    response = api(personas.bob).put(
        f"/api/v1/projects/{personas.project.pk}/candidates/{candidates[0].pk}/judgment/",
        {"grade": 2, "note": "line one\n\tline two \x1c 中文 😀"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["note"] == "line one\n\tline two \x1c 中文 😀"


def test_the_refusal_speaks_the_requests_language(personas, api, browser):
    """The middleware runs before the language is chosen: it reads Accept-Language (or the
    language cookie) itself, for pages and for the API's `detail`."""
    p = personas.project.pk
    page = browser(personas.alice).get(
        f"/projects/{p}/pools/?query=1%00", HTTP_ACCEPT_LANGUAGE="zh-CN"
    )
    assert page.status_code == 400
    assert page.content.decode() == (
        "请求有误：查询字符串中的 'query' 字段含有 NUL 字符（\\x00），无法保存：请删除它。\n"
    )
    detail = (
        api(personas.alice)
        .get(f"/api/v1/projects/{p}/goldsets/v%001/", HTTP_ACCEPT_LANGUAGE="zh-CN")
        .json()["detail"]
    )
    assert detail == "网址含有 NUL 字符（\\x00），无法保存：请删除它"
    cookie = Client(raise_request_exception=False, HTTP_COOKIE="goldsmith_language=zh-hans")
    body = cookie.post("/login/", {"username": "a\x00"}).content.decode()
    assert body.startswith("请求有误：表单中的 'username' 字段含有 NUL 字符")
    english = browser(personas.alice).get(f"/projects/{p}/pools/?query=1%00")
    assert english.content.decode().startswith("Bad request: the query string field 'query'")
