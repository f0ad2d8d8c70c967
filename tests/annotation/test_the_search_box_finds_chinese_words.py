"""The corpus search box of a Chinese project finds the Chinese words a chunk holds, whatever
a segmenter makes of them, in traditional or full-width forms and beside English words, on
PostgreSQL (bigram vectors) and SQLite (folded text); through the API of both search boxes
(the annotation page's and the corpus page's) and the corpus page."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.urls import reverse

from annotation.models import ChunkSearch, Project, Query
from annotation.selectors.corpus import chunk_search
from annotation.services.assignment import queries_assign
from annotation.services.corpus import corpus_import
from annotation.services.pooling import pool_build_builtin
from annotation.services.projects import project_tokenizer_set
from annotation.tasks import project_search_index_build
from tests.annotation.test_a_chinese_project_is_cut_into_chinese_words import CHUNKS, corpus_file


def found(project, text):
    return {chunk.chunk_id for chunk in chunk_search(project=project, text=text, limit=50)}


@pytest.fixture(params=["zh-bigrams", "zh-words"])
def project(request, personas, tmp_path):
    project_tokenizer_set(project=personas.project, tokenizer=request.param)
    record = corpus_import(project=personas.project, path=corpus_file(tmp_path))
    assert record.status == "done", record.error
    project = Project.objects.get(pk=personas.project.pk)
    assert ChunkSearch.objects.filter(chunk__project=project).count() == len(CHUNKS)
    return project


def test_a_chinese_word_finds_every_chunk_that_holds_it(project):
    assert found(project, "退款") == {"refund-1", "refund-2", "refund-3"}
    assert found(project, "期限") == {"refund-2", "return-1"}  # in 退款期限 and 退货期限
    assert found(project, "发票") == {"invoice-1", "invoice-2"}
    assert found(project, "保修范围") == {"iphone-1"}
    assert found(project, "银行") == {"refund-3", "invoice-2"}  # 银行卡, 开户银行
    assert found(project, "物流") == {"ship-1"}
    assert found(project, "潜水艇") == set()


def test_every_word_of_a_search_must_be_there(project):
    assert found(project, "退款期限") == {"refund-2"}
    assert found(project, "申请退款") == {"refund-1", "refund-2"}
    assert found(project, "怎么申请退款？") == {"refund-1", "refund-2"}  # question words out
    assert found(project, "退款 优惠券") == set()


def test_a_single_character_is_found_even_at_the_end_of_a_sentence(project):
    assert found(project, "卡") == {"refund-3"}  # 银行卡退款
    assert "account-3" in found(project, "录")  # 订单记录。


def test_traditional_and_full_width_forms_find_the_simplified_text(project):
    assert found(project, "發票") == {"invoice-1", "invoice-2"}
    assert found(project, "退貨期限") == {"return-1"}
    assert found(project, "ＡＰＩ　錯誤碼") == {"api-2"}


def test_mixed_chinese_and_english_searches(project):
    assert found(project, "iPhone15 保修") == {"iphone-1"}
    assert found(project, "iphone15 USB-C 充电") == {"iphone-2"}
    assert found(project, "get_user_id") == {"api-1"}
    assert found(project, "API") == {"api-1", "api-2"}
    assert found(project, "iPhone") == {"iphone-1", "iphone-2"}  # a word's start finds it
    assert found(project, "429 请求") == {"api-2"}
    assert found(project, "PDF 发票") == {"invoice-1"}


def test_a_changed_chunk_is_searched_by_its_new_text(project, tmp_path):
    chunks = dict(CHUNKS, **{"coupon-2": "优惠券过期后可以联系客服延期一次。"})
    record = corpus_import(project=project, path=corpus_file(tmp_path, chunks))
    assert record.chunks_changed == 1
    assert found(project, "延期") == {"coupon-2"}
    assert found(project, "兑换现金") == set()


def test_both_search_boxes_find_chinese_words_through_the_api(project, personas, api_client_for):
    url = f"/api/v1/projects/{project.pk}/corpus/search/"
    hits = api_client_for(personas.bob).get(url, {"q": "忘记密码"}).json()
    assert [hit["chunk_id"] for hit in hits] == ["account-1"]
    Query.objects.create(project=project, text="退款期限是多久", normalized="退款期限是多久")
    pool_build_builtin(project=project, kind="bm25", k=3)
    queries_assign(project=project, per_query=2)
    query = Query.objects.get(project=project)
    url = f"/api/v1/projects/{project.pk}/queries/{query.pk}/search/"
    hits = api_client_for(personas.bob).get(url, {"q": "退貨 運費"}).json()
    assert [hit["chunk_id"] for hit in hits] == ["return-2"]


def test_the_corpus_page_shows_chinese_hits(project, personas, client):
    client.force_login(personas.bob)
    page = client.get(reverse("corpus", args=[project.pk]), {"q": "增值税"}).content.decode()
    assert "开户银行信息" in page
    assert "积分" not in page


def test_chunks_not_indexed_yet_are_found_all_the_same(project):
    ChunkSearch.objects.filter(chunk__project=project, chunk__chunk_id="ship-2").delete()
    assert found(project, "偏远地区") == {"ship-2"}
    assert found(project, "配送") == {"ship-1", "ship-2"}


def test_a_project_switched_to_chinese_gets_a_chinese_index(personas, tmp_path):
    project_tokenizer_set(project=personas.project, tokenizer="default")
    corpus_import(project=personas.project, path=corpus_file(tmp_path))
    project = Project.objects.get(pk=personas.project.pk)
    if connection.vendor == "postgresql":  # SQLite's English search reads substrings
        assert found(project, "退款") == set()  # English words: a sentence is one word
    project_tokenizer_set(project=project, tokenizer="zh-bigrams")
    assert found(project, "退款") == {"refund-1", "refund-2", "refund-3"}  # before the worker
    project_search_index_build(project.pk)  # what the worker runs after the commit
    assert ChunkSearch.objects.filter(chunk__project=project).count() == len(CHUNKS)
    assert found(project, "退款") == {"refund-1", "refund-2", "refund-3"}
    project_tokenizer_set(project=project, tokenizer="default")
    project_search_index_build(project.pk)
    english = len(CHUNKS) if connection.vendor == "postgresql" else 0  # none on SQLite
    assert ChunkSearch.objects.filter(chunk__project=project).count() == english
    assert found(project, "get_user_id") == {"api-1"}


def test_a_chinese_vector_holds_bigrams_and_english_words(project):
    if connection.vendor != "postgresql":
        pytest.skip("vectors exist on PostgreSQL only")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.vector::text FROM annotation_chunksearch s JOIN annotation_chunk c"
            " ON c.id = s.chunk_id WHERE c.chunk_id = 'api-1'"
        )
        vector = cursor.fetchone()[0]
    # 调用 is indexed as 调 调用 用: its first character, its bigram, its last character
    assert "'调':1 " in vector and "'调用':2 " in vector and "'用':3 " in vector
    assert "'get':4 " in vector and "'user':5 " in vector and "'token':26" in vector


def test_english_projects_keep_their_search(personas, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "e1", "doc_id": "e", "text": "Refunds are issued."}) + "\n")
    corpus_import(project=personas.project, path=path)
    project = Project.objects.get(pk=personas.project.pk)
    assert project.tokenizer == "default"
    assert found(project, "refunds") == {"e1"}
