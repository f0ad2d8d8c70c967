"""A Chinese project: its first import detects the language and sets the tokenizer, which the
built-in retrievers, highlighting and query-log grouping then use (a lead can change it)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import Candidate, LogQuery, Project, Query
from annotation.services.assignment import queries_assign
from annotation.services.corpus import corpus_import
from annotation.services.pooling import pool_build_builtin
from annotation.services.querylogs import query_log_import

# A small help centre, Chinese with English product names, code and numbers inside.
CHUNKS = {
    "refund-1": "如何申请退款：在订单页面点击“申请退款”，填写原因后提交，3 个工作日内处理。",
    "refund-2": "退款期限：收到商品后 7 天内可以申请退款，超过期限不再受理。",
    "refund-3": "退款会原路返回到支付宝或微信支付账户，银行卡退款需要 5 到 10 天到账。",
    "return-1": "退货期限为签收后 15 天，商品需保持完好，包装和配件齐全。",
    "return-2": "退货运费：质量问题由我们承担运费，非质量问题由买家承担。",
    "ship-1": "订单发货后可以在物流页面查看快递单号和配送进度。",
    "ship-2": "偏远地区配送时间较长，一般需要 5 到 7 天送达。",
    "account-1": "忘记密码时，在登录页面点击“忘记密码”，通过手机验证码重置。",
    "account-2": "修改绑定手机号需要先验证原手机号，再输入新的手机号。",
    "account-3": "注销账户后数据无法恢复，请先导出订单记录。",
    "iphone-1": "iPhone15 的保修期为一年，保修范围包括电池和屏幕的非人为损坏。",
    "iphone-2": "iPhone15 Pro 支持 USB-C 充电接口，可以使用 Type-C 数据线。",
    "api-1": "调用 get_user_id 接口获取用户编号，需要在请求头携带 API token。",
    "api-2": "API 返回错误码 429 表示请求过于频繁，请稍后重试。",
    "invoice-1": "电子发票在订单完成后开具，可以在发票页面下载 PDF 文件。",
    "invoice-2": "增值税专用发票需要提供公司名称、税号和开户银行信息。",
    "coupon-1": "优惠券在结算页面使用，每个订单只能使用一张优惠券。",
    "coupon-2": "优惠券过期后无法恢复，也不能兑换现金。",
    "member-1": "会员积分可以在下单时抵扣现金，100 积分抵扣 1 元。",
    "member-2": "会员等级根据一年内的消费金额计算，每月 1 日更新。",
}
QUERIES = {  # each with the chunk that answers it
    "怎么申请退款？": "refund-1",
    "退款期限是多久": "refund-2",
    "iPhone15 保修期多长时间": "iphone-1",
    "get_user_id 接口怎么调用": "api-1",
    "忘记密码怎么办": "account-1",
}


def corpus_file(tmp_path, chunks=CHUNKS):
    path = tmp_path / "help.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": cid, "doc_id": cid.split("-")[0], "text": text}, ensure_ascii=False)
            + "\n"
            for cid, text in chunks.items()
        ),
        encoding="utf-8",
    )
    return path


def log_file(tmp_path, queries):
    path = tmp_path / "log.jsonl"
    path.write_text(
        "".join(json.dumps({"query": q}, ensure_ascii=False) + "\n" for q in queries),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def chinese_project(personas, tmp_path):
    record = corpus_import(project=personas.project, path=corpus_file(tmp_path))
    assert record.status == "done", record.error
    for text in QUERIES:
        Query.objects.create(project=personas.project, text=text, normalized=text)
    return record


def test_the_first_corpus_import_detects_chinese_and_says_so(chinese_project, personas, client):
    project = Project.objects.get(pk=personas.project.pk)
    assert (project.tokenizer, project.tokenizer_origin) == ("zh-bigrams", "detected")
    assert chinese_project.tokenizer_detected == "zh-bigrams"
    client.force_login(personas.alice)
    page = client.get(reverse("corpus-import", args=[project.pk, chinese_project.pk]))
    assert 'id="tokenizer-detected"' in page.content.decode()
    api = client.get(f"/api/v1/projects/{project.pk}/")
    assert api.json()["tokenizer"] == "zh-bigrams"


@pytest.mark.parametrize("kind", ["bm25", "tfidf"])
def test_pooling_finds_the_answer_of_every_chinese_query(chinese_project, personas, kind):
    project = Project.objects.get(pk=personas.project.pk)
    pool_build_builtin(project=project, kind=kind, k=3)
    for text, answer in QUERIES.items():
        found = set(
            Candidate.objects.filter(query__text=text).values_list("chunk__chunk_id", flat=True)
        )
        assert answer in found, (text, found)


def test_the_default_tokenizer_found_nothing_for_the_same_queries(chinese_project, personas):
    """What the project had before: a Chinese sentence is one token, so nothing matches."""
    project = Project.objects.get(pk=personas.project.pk)
    project.tokenizer = "default"
    pooled = pool_build_builtin(project=project, kind="bm25", k=3)
    # only the two queries holding an English word (iPhone15, get_user_id) find anything
    assert pooled.queries_with_new_candidates == 2


def test_the_annotation_page_marks_chinese_query_words(chinese_project, personas, client):
    project = personas.project
    pool_build_builtin(project=Project.objects.get(pk=project.pk), kind="bm25", k=3)
    queries_assign(project=project, per_query=2)
    query = Query.objects.get(text="退款期限是多久")
    client.force_login(personas.bob)
    page = client.get(reverse("annotate-query", args=[project.pk, query.pk])).content.decode()
    assert "<mark>退款</mark>" in page
    assert "<mark>期限</mark>" in page


def test_a_chinese_query_logs_near_duplicates_group_as_one_question(personas, tmp_path):
    queries = ["怎么退款"] * 3 + ["如何退款？"] * 2 + ["怎麼退款", "退款期限", "退货期限"]
    log = query_log_import(project=personas.project, path=log_file(tmp_path, queries))
    assert log.status == "done", log.error
    assert log.tokenizer_detected == "zh-bigrams" and log.report["tokenizer"] == "zh-bigrams"
    group = {q.text.rstrip("?？"): q.near_group for q in LogQuery.objects.filter(log=log)}
    # 怎麼退款 is the same query as 怎么退款 once folded to simplified: merged, not grouped
    assert LogQuery.objects.get(log=log, text="怎么退款").count == 4
    assert group["如何退款"] == group["怎么退款"]
    assert group["退款期限"] != group["退货期限"]
    assert group["退款期限"] != group["怎么退款"]


def test_an_english_first_import_keeps_the_default_for_good(personas, tmp_path):
    log = query_log_import(
        project=personas.project, path=log_file(tmp_path, ["how do I get a refund"])
    )
    assert log.tokenizer_detected == ""
    project = Project.objects.get(pk=personas.project.pk)
    assert (project.tokenizer, project.tokenizer_origin) == ("default", "detected")
    later = corpus_import(project=project, path=corpus_file(tmp_path))
    assert later.tokenizer_detected == ""
    assert Project.objects.get(pk=project.pk).tokenizer == "default"


def test_a_leads_choice_is_never_overwritten_by_an_import(personas, tmp_path, api_client_for):
    url = f"/api/v1/projects/{personas.project.pk}/tokenizer/"
    refused = api_client_for(personas.bob).put(url, {"tokenizer": "zh-bigrams"}, format="json")
    assert refused.status_code == 403
    chosen = api_client_for(personas.alice).put(url, {"tokenizer": "default"}, format="json")
    assert chosen.json() == {"tokenizer": "default", "tokenizer_origin": "lead"}
    record = corpus_import(project=personas.project, path=corpus_file(tmp_path))
    assert record.tokenizer_detected == ""
    assert Project.objects.get(pk=personas.project.pk).tokenizer == "default"


def test_a_lead_changes_the_tokenizer_on_the_members_page(personas, client):
    client.force_login(personas.alice)
    page = client.get(reverse("project-members", args=[personas.project.pk]))
    assert 'id="tokenizer"' in page.content.decode()
    client.post(
        reverse("project-tokenizer", args=[personas.project.pk]), {"tokenizer": "zh-bigrams"}
    )
    project = Project.objects.get(pk=personas.project.pk)
    assert (project.tokenizer, project.tokenizer_origin) == ("zh-bigrams", "lead")
    client.force_login(personas.bob)
    refused = client.post(
        reverse("project-tokenizer", args=[personas.project.pk]), {"tokenizer": "default"}
    )
    assert refused.status_code in (403, 404)
    assert Project.objects.get(pk=personas.project.pk).tokenizer == "zh-bigrams"
