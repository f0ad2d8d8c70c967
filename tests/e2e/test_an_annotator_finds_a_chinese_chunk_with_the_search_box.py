"""On the annotation page of a Chinese project, an annotator finds a chunk the pool missed by
typing Chinese words in the corpus search box (in traditional characters, beside an English
product name), adds it, and sees the query's words marked in the chunks."""

from __future__ import annotations

import pytest

from annotation.models import Candidate, Project, Query
from annotation.services.assignment import queries_assign
from annotation.services.corpus import corpus_import
from annotation.services.pooling import pool_build_builtin
from tests.annotation.test_a_chinese_project_is_cut_into_chinese_words import corpus_file

pytestmark = pytest.mark.e2e


def test_a_chinese_search_finds_and_adds_the_missing_chunk(
    personas, live_server, sign_in, tmp_path
):
    corpus_import(project=personas.project, path=corpus_file(tmp_path))
    project = Project.objects.get(pk=personas.project.pk)
    assert project.tokenizer == "zh-bigrams"
    query = Query.objects.create(
        project=project, text="退货期限是几天", normalized="退货期限是几天"
    )
    pool_build_builtin(project=project, kind="bm25", k=1)
    queries_assign(project=project, per_query=2)
    pooled = set(Candidate.objects.filter(query=query).values_list("chunk__chunk_id", flat=True))
    assert pooled == {"return-1"}

    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{project.pk}/annotate/{query.pk}/")
    assert "退货期限" in page.locator("mark").first.inner_text()

    page.fill("#corpus-search input[name=q]", "退貨 運費")
    page.click("#corpus-search button[type=submit]")
    hit = page.locator("#search-results li").first
    hit.wait_for()
    assert "退货运费：质量问题由我们承担运费" in hit.inner_text()
    assert page.locator("#search-results li").count() == 1
    with page.expect_navigation():  # the page reloads with the chunk among the candidates
        hit.get_by_role("button").click()
    assert page.locator("#search-results li").count() == 0
    assert "非质量问题由买家承担" in page.content()
    added = set(Candidate.objects.filter(query=query).values_list("chunk__chunk_id", flat=True))
    assert added == {"return-1", "return-2"}

    page.fill("#corpus-search input[name=q]", "iPhone15 USB-C")
    page.click("#corpus-search button[type=submit]")
    page.locator("#search-results li").first.wait_for()
    assert "支持 USB-C 充电接口" in page.locator("#search-results").inner_text()
    assert page.locator("#search-results li").count() == 1
