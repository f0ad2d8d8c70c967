"""Machine judges through the API: only a lead registers, uploads, runs, reads and fills; an
annotator and a viewer are refused (403), an outsider does not see the project (404); a file
of grades is stored all or nothing, and its errors name the file, the line and the field; the
auth header is written, never read."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import MachineGrade, MachineJudge
from tests.evaluation.judges import graded_project

SECRET = "do-not-show-me-4471"


def _judges(project) -> str:
    return f"/api/v1/projects/{project.pk}/judges/"


@pytest.mark.parametrize(("role", "code"), [("annotator", 403), ("viewer", 403), ("outsider", 404)])
def test_only_a_lead_may_touch_machine_judges(personas, api_client_for, role, code):
    project = personas.project
    judge = MachineJudge.objects.create(project=project, name="file", kind="file")
    client = api_client_for(personas.by_role()[role])
    base = _judges(project)
    upload = SimpleUploadedFile("g.csv", b"query_id,chunk_id,grade,reason\n")
    calls = [
        client.get(base),
        client.post(base, {"name": "x", "kind": "keyword"}, format="json"),
        client.get(f"{base}{judge.pk}/"),
        client.post(f"{base}{judge.pk}/grades/", {"file": upload}, format="multipart"),
        client.get(f"{base}{judge.pk}/jobs/"),
        client.post(f"{base}{judge.pk}/jobs/", {"scope": "all"}, format="json"),
        client.post(f"{base}{judge.pk}/fill-gaps/"),
        client.get(f"{base}agreement/"),
    ]
    assert [r.status_code for r in calls] == [code] * len(calls)
    assert MachineJudge.objects.filter(project=project).count() == 1


def test_the_auth_header_is_written_never_read(personas, private_urls, api_client_for):
    lead = api_client_for(personas.alice)
    created = lead.post(
        _judges(personas.project),
        {
            "name": "llm",
            "kind": "http",
            "config": {"url": "http://127.0.0.1:9/judge"},
            "auth_header_name": "Authorization",
            "auth_header_value": SECRET,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    listed = lead.get(_judges(personas.project))
    one = lead.get(f"{_judges(personas.project)}{created.json()['id']}/")
    for response in (created, listed, one):
        assert SECRET not in response.content.decode()
    assert one.json()["has_auth_header"] is True


def test_a_judge_url_into_the_servers_own_network_is_refused(personas, api_client_for):
    response = api_client_for(personas.alice).post(
        _judges(personas.project),
        {"name": "meta", "kind": "http", "config": {"url": "http://169.254.169.254/judge"}},
        format="json",
    )
    assert response.status_code == 400
    assert not MachineJudge.objects.exists()


def _upload(client, project, judge, name: str, body: bytes):
    return client.post(
        f"{_judges(project)}{judge}/grades/",
        {"file": SimpleUploadedFile(name, body)},
        format="multipart",
    )


def test_a_file_of_grades_is_stored_whole(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=1, spare=1)
    lead = api_client_for(personas.alice)
    judge = lead.post(_judges(setup.project), {"name": "f", "kind": "file"}, format="json").json()
    q0, q1 = setup.queries
    c0 = setup.candidates[q0.pk]
    c1 = setup.candidates[q1.pk]
    csv_body = (
        "query_id,chunk_id,grade,reason\n"
        + "".join(f"{q0.pk},{c.chunk.chunk_id},2,looks right\n" for c in c0)
    ).encode()
    assert _upload(lead, setup.project, judge["id"], "g.csv", csv_body).json() == {"stored": 4}
    jsonl_body = "\n".join(
        f'{{"query": "{q1.text}", "chunk_id": "{c.chunk.chunk_id}", "grade": 1}}' for c in c1
    ).encode()
    assert _upload(lead, setup.project, judge["id"], "g.jsonl", jsonl_body).status_code == 201
    assert MachineGrade.objects.filter(judge_id=judge["id"]).count() == 8


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        ("bad.csv", "query_id,chunk_id,grade\n{q},{c},2\n{q},{c2},3\n", "bad.csv:3: field 'grade'"),
        ("bad.csv", "query_id,chunk_id,grade\n{q},nope,2\n", "bad.csv:2: field 'chunk_id'"),
        ("bad.csv", "query_id,chunk_id,grade\n999999,{c},2\n", "bad.csv:2: field 'query_id'"),
        ("bad.csv", "chunk_id,grade\n{c},2\n", "bad.csv:2: missing field 'query_id'"),
        ("bad.csv", "query_id,chunk_id,grade,score\n{q},{c},2,1\n", "bad.csv:2: unknown field"),
        ("bad.jsonl", '{{"query_id": "{q}", "chunk_id": "{c}", "grade": 2}}\n{{"query_id"',
         "bad.jsonl:2: broken JSON"),
        ("bad.csv", "query_id,chunk_id,grade\n{q},{c},2\n{q},{c},1\n",
         "bad.csv:3: field 'chunk_id'"),
        ("bad.txt", "x", "bad.txt: unknown file type"),
    ],
)  # fmt: skip
def test_a_bad_file_of_grades_stores_nothing_and_says_where(
    personas, api_client_for, name, body, message
):
    setup = graded_project(personas, api_client_for, humans=1, spare=0)
    lead = api_client_for(personas.alice)
    judge = lead.post(_judges(setup.project), {"name": "f", "kind": "file"}, format="json").json()
    q = setup.queries[0]
    cands = setup.candidates[q.pk]
    text = body.format(q=q.pk, c=cands[0].chunk.chunk_id, c2=cands[1].chunk.chunk_id)
    response = _upload(lead, setup.project, judge["id"], name, text.encode())
    assert response.status_code == 400, response.content
    assert message in response.json()["detail"]
    assert not MachineGrade.objects.exists()
