"""A person whose browser asks for Chinese reads Goldsmith's refusals, messages and form errors
in Chinese: a bad line of an upload (named by file, line and field, written by the worker in
the uploader's language), a permission refusal, an API and a form error, the reasons a query is
flagged. Someone else, asking for English, reads the same in English."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from django.utils.translation import trans_real

from annotation.models import QueryLog
from config.catalogs import compile_catalogs
from goldsmith.agreement import AMBIGUOUS, LOW_KAPPA, TWO_APART, flag_sentences
from goldsmith.intake.readers import ReadError
from goldsmith.text import say
from sitewide.i18n import localize
from tests.conftest import wait_for

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}


@pytest.fixture(autouse=True, scope="module")
def compiled_catalogs():
    """The apps' catalogs compiled (a worker started after this reads them too)."""
    if compile_catalogs():
        trans_real._translations = {}  # this process may have read them before
        trans_real._default = None


@pytest.mark.slow
def test_a_bad_line_of_an_upload_is_named_in_the_uploaders_language(
    personas, api_client_for, celery_worker_process
):
    client = api_client_for(personas.alice)
    bad = b"query,count\nhow to refund,1\nwhere is my order,0\n"

    def upload(name: str, headers: dict[str, str]) -> QueryLog:
        response = client.post(
            f"/api/v1/projects/{personas.project.pk}/querylogs/",
            {"file": SimpleUploadedFile(name, bad)},
            format="multipart",
            **headers,
        )
        assert response.status_code == 202, response.content
        log_id = response.json()["id"]
        return wait_for(
            lambda: QueryLog.objects.filter(pk=log_id, status="failed").first(),
            timeout=60,
            message=f"the import to fail; worker log:\n{celery_worker_process.output()[-2000:]}",
        )

    chinese = upload("退款日志.csv", CHINESE)
    assert chinese.error == "退款日志.csv 第 3 行：字段 'count' 必须在 1 到 2147483647 之间"
    shown = client.get(
        f"/api/v1/projects/{personas.project.pk}/querylogs/{chinese.pk}/", **CHINESE
    ).json()
    assert shown["error"] == chinese.error

    english = upload("refunds.csv", ENGLISH)
    assert english.error == "refunds.csv:3: field 'count' must be between 1 and 2147483647"


def test_an_annotator_is_refused_a_leads_work_in_chinese(personas, api_client_for):
    response = api_client_for(personas.bob).post(
        f"/api/v1/projects/{personas.project.pk}/members/",
        {"username": "mallory", "role": "viewer"},
        format="json",
        **CHINESE,
    )
    assert response.status_code == 403
    assert response.json() == {"detail": "本项目的标注员不能执行此操作：只有负责人可以。"}
    english = api_client_for(personas.victor).get(
        f"/api/v1/projects/{personas.project.pk}/queue/", **ENGLISH
    )
    assert english.json() == {
        "detail": "A viewer of this project may not grade: only annotators and leads can."
    }


def test_an_api_error_names_the_field_in_chinese_and_keeps_its_code(personas, api_client_for):
    response = api_client_for(personas.alice).get(
        f"/api/v1/projects/{personas.project.pk}/corpus/search/",
        {"q": "退款", "limit": "十"},
        **CHINESE,
    )
    assert response.status_code == 400
    assert response.json() == {"limit": ["必须是整数"]}

    unknown = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/members/",
        {"username": "nobody", "role": "viewer"},
        format="json",
        **CHINESE,
    )
    assert unknown.status_code == 400
    assert unknown.json() == {"username": ["没有名为 'nobody' 的用户"]}


def test_a_form_error_and_a_page_message_are_in_chinese(client, personas):
    client.force_login(personas.alice)
    freeze = client.post(
        f"/projects/{personas.project.pk}/goldsets/", {"label": "v1", "note": ""}, **CHINESE
    )
    assert "没有已批准的查询可冻结：请先在审核中批准查询" in freeze.content.decode()

    added = client.post(
        f"/projects/{personas.project.pk}/members/",
        {"username": "mallory", "role": "annotator"},
        follow=True,
        **CHINESE,
    )
    assert "mallory 现在是标注员。" in added.content.decode()


def test_the_reasons_a_query_is_flagged_read_in_chinese():
    sentences = flag_sentences(
        reasons=[LOW_KAPPA, TWO_APART, AMBIGUOUS],
        kappa=0.2857,
        threshold=0.6,
        grades={1: {10: 2, 11: 1}, 2: {10: 0, 11: 1}},
        names={1: "alice", 2: "bob"},
        chunk_numbers={10: 3, 11: 1},
        ambiguous_by=["bob"],
    )
    english = ["κ 0.29 below 0.6", "alice 2 and bob 0 on chunk 3", "marked ambiguous by bob"]
    assert sentences == english  # the engine (and the `goldsmith` command) speak English
    assert [localize(s) for s in sentences] == english
    with translation.override("zh-hans"):
        assert [localize(s) for s in sentences] == [
            "κ 0.29 低于 0.6",
            "alice 评 2、bob 评 0（文本块 3）",
            "bob 标记为有歧义",
        ]


def test_a_file_error_says_where_in_the_readers_language():
    error = ReadError("corpus.jsonl", 12, say("duplicate chunk id %(id)r", id="c-7"))
    assert str(error) == "corpus.jsonl:12: duplicate chunk id 'c-7'"
    with translation.override("zh-hans"):
        assert localize(error) == "corpus.jsonl 第 12 行：文本块编号 'c-7' 重复"
        whole_file = ReadError("log.txt", None, say("the file holds no queries"))
        assert localize(whole_file) == "log.txt：文件中没有查询"


def test_a_bad_line_of_a_golden_set_upload_is_named_in_chinese(personas, api_client_for):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/goldsets/import/",
        {
            "format": "trec",
            "file": SimpleUploadedFile("评测qrels.txt", b"q1 0 c1 2\nq1 0 c2\n"),
            "topics": SimpleUploadedFile("topics.tsv", "q1\t如何退款\n".encode()),
        },
        format="multipart",
        **CHINESE,
    )
    assert response.status_code == 400
    assert response.json() == {
        "file": ["评测qrels.txt 第 2 行：应有 4 列（qid iter docno grade），实际有 3 列"]
    }
