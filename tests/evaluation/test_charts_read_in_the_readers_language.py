"""Every chart's words (labels, axis titles, legends, tooltips, the "nothing to plot" line) are
in the reader's language: a zh-hans reader's charts hold Chinese words and no English label
word, on the engine's plots and on the pages that draw them (run, comparison, retriever,
dashboard, the sample's before/after bars). An English reader's charts stay as they were."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import polib
import pytest
from django.test import Client
from django.utils import translation

from config.python_catalogs import ROOT, catalog_path, messages_in
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith import plots
from sitewide.i18n import localize
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden

# Latin words a Chinese chart keeps (docs/glossary-zh.md: kept as they are; kappa is written
# κ), the runs' letters A and B, and "Recall" and "top" of the catalogs' own chart titles
# ("Recall@K 曲线", "每条查询的 Recall@5", "加权 top-K 得分…").
KEPT = {"nDCG", "MRR", "MAP", "F1", "K", "A", "B", "Recall", "top"}


def translated(po: Path) -> set[tuple[str, str]]:
    if not po.exists():
        return set()
    return {
        (e.msgctxt or "", e.msgid)
        for e in polib.pofile(str(po))
        if not e.obsolete and e.msgstr and "fuzzy" not in e.flags
    }


def words_of(svg: str) -> list[str]:
    """What a reader of the chart sees or hears: text, tooltips and the aria-label."""
    return [
        unescape(t)
        for t in (*re.findall(r'aria-label="([^"]*)"', svg), *re.findall(r">([^<]+)<", svg))
        if t.strip()
    ]


def english_words(svg: str) -> list[str]:
    return [
        w
        for text in words_of(svg)
        for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)
        if w not in KEPT and not re.fullmatch(r"[a-z]?\d+[a-z]?", w)  # ids: q3, r1a
    ]


def svgs(html: str) -> list[str]:
    return re.findall(r"<svg.*?</svg>", html, flags=re.S)


def test_the_engine_marks_every_word_of_its_charts():
    """Every message the plots say has a Chinese translation in the committed catalogs."""
    said = {(o.message.context, o.message.msgid) for o in messages_in(ROOT / "goldsmith/plots.py")}
    done: set[tuple[str, str]] = set()
    for po in (
        catalog_path("annotation", "zh_Hans"),
        catalog_path("evaluation", "zh_Hans"),
        ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po",
    ):
        done |= translated(po)
    assert said and said <= done


def every_chart(words) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {
        "line": plots.line_chart(
            [1, 5, 10],
            {
                plots.metric_name("recall@K", words): [0.2, 0.5, 0.9],
                plots.metric_name("ndcg@K", words): [0.1, None, 0.8],
            },
            label="召回率@K 曲线",
            marker_index=1,
            words=words,
        ),
        "top-k": plots.line_chart(
            [1, 2],
            {f"{plots.metric_name('score', words)} ×1": [0.3, 0.4]},
            label="前 K 得分",
            marker_index=1,
            marker_label="最佳 K = 2",
            words=words,
        ),
        "recall histogram": plots.recall_histogram(
            [0.0, 0.5, 1.0], [3, 1], label="每条查询的召回率@5", words=words
        ),
        "kappa histogram": plots.kappa_histogram(
            [
                {"label": "unanimous", "count": 2, "undefined": True},
                {"label": "< 0", "count": 1, "low": True},
                {"label": ".8–1", "count": 4},
            ],
            words=words,
        ),
        "scatter": plots.scatter(
            [(f"q{i}", 1.0, 1.0) for i in range(10)] + [("q99", 0.5, 0.25)],
            label="每条查询的召回率@5",
            a=f"A #1 {plots.metric_name('recall@5', words)}",
            b=f"B #2 {plots.metric_name('recall@5', words)}",
            words=words,
        ),
        "matrix": plots.pairwise_matrix(
            [{"a": "王芳", "b": "李雷", "kappa": 0.5, "n": 12}], words=words
        ),
        "empty line": plots.line_chart([], {}, label="x", words=words),
        "empty scatter": plots.scatter([], label="x", a="a", b="b", words=words),
        "empty matrix": plots.pairwise_matrix([], words=words),
    }


@pytest.mark.django_db
def test_a_chinese_reader_gets_every_chart_in_chinese():
    with translation.override("zh-hans"):
        charts = every_chart(localize)
    for name, svg in charts.items():
        assert english_words(svg) == [], name
        assert re.search(r"[\u4e00-\u9fff]", svg), name
    assert "■ 召回率@K" in charts["line"] and ">基线</text>" in charts["line"]
    assert "召回率@K，5 处：0.5000" in charts["line"]
    assert "■ 得分 ×1" in charts["top-k"] and ">最佳 K = 2</text>" in charts["top-k"]
    assert "0.0–0.5：3 条查询" in charts["recall histogram"]
    assert ">全体一致</text>" in charts["kappa histogram"]
    assert "每条查询的 κ 直方图" in charts["kappa histogram"]
    assert "10 条查询位于 1.000 → 1.000：q0, q1" in charts["scatter"]
    assert (
        "（另有 2 条）" in charts["scatter"] and "1 条查询位于 0.500 → 0.250" in charts["scatter"]
    )
    assert ">A #1 召回率@5</text>" in charts["scatter"]
    assert "王芳 × 李雷：12 个文本块上的 κ 为 0.50" in charts["matrix"]
    assert "暂无可绘制的数据。" in charts["empty line"]
    assert "没有可比较的查询。" in charts["empty scatter"]


def test_an_english_reader_gets_the_charts_as_before():
    charts = every_chart(str)
    assert "■ Recall@K" in charts["line"] and ">baseline</text>" in charts["line"]
    assert "Recall@K at 5: 0.5000" in charts["line"]
    assert "0.0–0.5: 3 queries" in charts["recall histogram"]
    assert ">unanimous</text>" in charts["kappa histogram"]
    assert (
        "10 queries at 1.000 → 1.000: q0, q1" in charts["scatter"]
        and "(2 more)" in charts["scatter"]
    )
    assert "王芳 × 李雷: kappa 0.50 over 12 chunks" in charts["matrix"]
    assert "Nothing to plot yet." in charts["empty line"]


def chinese_client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.django_db
def test_the_pages_draw_their_charts_in_chinese(personas, private_urls, stub_factory):
    project = personas.project
    golden = make_golden(project, n=8)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(project=project, name="检索器", kind="http", config=stub.config())
    runs = [
        evaluation_run_execute_inline(
            run_id=evaluation_run_create(
                project=project, retriever=retriever, version=golden.version, enqueue=False
            ).pk
        )
        for _ in range(2)
    ]
    client = chinese_client(personas.alice)
    base = f"/projects/{project.pk}"
    pages = {
        "run": f"{base}/runs/{runs[0].pk}/",
        "comparison": f"{base}/runs/compare/?a={runs[0].pk}&b={runs[1].pk}",
        "retriever": f"{base}/retrievers/{retriever.pk}/",
        "dashboard": f"{base}/dashboard/",
    }
    drawn = {}
    for name, url in pages.items():
        page = client.get(url)
        assert page.status_code == 200, name
        drawn[name] = svgs(page.content.decode())
        assert drawn[name], f"the {name} page draws no chart"
        for svg in drawn[name]:
            assert english_words(svg) == [], name
    run_page = "".join(drawn["run"])
    assert "■ 召回率@K" in run_page and "■ nDCG@K" in run_page and "条查询</title>" in run_page
    assert "■ 召回率@10" in "".join(drawn["retriever"])
    assert "条查询位于" in "".join(drawn["comparison"])
    assert ">全体一致</text>" in "".join(drawn["dashboard"])


def test_the_samples_bars_name_the_frequency_bands_in_chinese():
    from django.template.loader import render_to_string

    from annotation.selectors.querylogs import _bars, _shown

    with translation.override("zh-hans"):
        rows = _shown(_bars({"head": 5.0, "tail": 1.0, "": 1.0}, {"head": 1.0}), bands=True)
        html = render_to_string("annotation/_bars.html", {"rows": rows, "caption": "头部"})
    heads = re.findall(r'<th scope="row" title="([^"]*)">', html)
    assert heads == ["头部", "（无）", "长尾"]
    assert [r["label"] for r in rows] == ["head", "(none)", "tail"]  # kept for sorting
