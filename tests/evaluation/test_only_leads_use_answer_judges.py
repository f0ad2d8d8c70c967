"""Answer judges are for leads only: an annotator and a viewer are refused (403) on every
operation of the API and on the page, and do not find the page in the project's navigation;
an outsider does not see the project at all (404). Nothing is registered, changed, removed or
called by them."""

from __future__ import annotations

import pytest

from evaluation.models import AnswerJudge
from evaluation.services.answer_judges import answer_judge_register
from tests.conftest import PASSWORD


@pytest.fixture
def judge(personas, private_urls, answer_judge_stub):
    stub = answer_judge_stub()
    return answer_judge_register(project=personas.project, name="sage", url=stub.url), stub


def _api_calls(client, project, judge):
    base = f"/api/v1/projects/{project.pk}/answer-judges/"
    one = f"{base}{judge.pk}/"
    return [
        client.get(base),
        client.post(base, {"name": "x", "url": "http://127.0.0.1:9/"}, format="json"),
        client.get(one),
        client.patch(one, {"model": "m-9"}, format="json"),
        client.post(f"{one}test-call/", {}, format="json"),
        client.delete(one),
    ]


@pytest.mark.parametrize(
    ("role", "code"), [("lead", 200), ("annotator", 403), ("viewer", 403), ("outsider", 404)]
)
def test_the_api_answers_by_role(personas, api_client_for, judge, role, code):
    judge, stub = judge
    user = personas.by_role()[role]
    calls = _api_calls(api_client_for(user), personas.project, judge)
    statuses = [r.status_code for r in calls]
    if role == "lead":
        assert statuses == [200, 201, 200, 200, 200, 204]
        assert stub.calls == 1
        return
    assert statuses == [code] * len(calls)
    assert stub.calls == 0
    assert list(AnswerJudge.objects.values_list("name", "model")) == [("sage", "")]


@pytest.mark.parametrize(
    ("username", "code"), [("alice", 200), ("bob", 403), ("victor", 403), ("mallory", 404)]
)
def test_the_page_answers_by_role(personas, client, judge, username, code):
    judge, stub = judge
    client.login(username=username, password=PASSWORD)
    page = f"/projects/{personas.project.pk}/answer-judges/"
    shown = client.get(page)
    assert shown.status_code == code
    tried = client.post(page, {"action": "test", "judge": judge.pk})
    removed = client.post(page, {"action": "delete", "judge": judge.pk})
    added = client.post(page, {"action": "register", "name": "x", "url": stub.url})
    if username == "alice":
        assert "answer-judges" in client.get(f"/projects/{personas.project.pk}/").content.decode()
        assert (tried.status_code, removed.status_code, added.status_code) == (200, 302, 302)
        assert list(AnswerJudge.objects.values_list("name", flat=True)) == ["x"]
        return
    assert [tried.status_code, removed.status_code, added.status_code] == [code] * 3
    assert stub.calls == 0
    assert list(AnswerJudge.objects.values_list("name", flat=True)) == ["sage"]
    if code == 403:
        home = client.get(f"/projects/{personas.project.pk}/").content.decode()
        assert "answer-judges" not in home
