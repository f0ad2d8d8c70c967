"""Rule-based hints on a report: each fires on the report's own figures, names them and the
limits they were held against, and stays quiet at its limits."""

from __future__ import annotations

import pytest

from goldsmith import reporting as R

K = 5


def report(
    recall: float,
    judged: float,
    mrr: float,
    categories: dict[str, tuple[float, int, float | None]] | None = None,
    unjudged: int = 7,
) -> dict:
    """A report with the figures the hints read; categories: name -> (mean, n, ci_high)."""
    cats = categories or {}
    n = sum(c[1] for c in cats.values()) or 40
    return {
        "settings": {"headline_k": K},
        "aggregate": {
            f"recall@{K}": {"mean": recall, "n": n},
            f"judged@{K}": {"mean": judged, "n": n},
            f"mrr@{K}": {"mean": mrr, "n": n},
        },
        "by_category": {
            name: {f"recall@{K}": {"mean": m, "n": c, "ci_low": None, "ci_high": hi}}
            for name, (m, c, hi) in cats.items()
        },
        "unjudged_top_k": unjudged,
    }


def rules(r: dict) -> list[str]:
    return [h["rule"] for h in R.hints(r)]


def test_low_recall_with_the_top_k_judged_points_at_chunking_or_query_rewriting():
    [hint] = R.hints(report(recall=0.42, judged=0.93, mrr=0.6))
    assert hint["rule"] == "chunking_or_query_rewriting"
    assert hint["figures"] == {"recall@5": 0.42, "judged@5": 0.93}
    assert hint["limits"] == {"low_recall": 0.6, "well_judged": 0.8}
    assert "Recall@5 is 0.42" in hint["detail"] and "93% of the top 5" in hint["detail"]
    assert "chunk" in hint["detail"] and "rewr" in hint["detail"]


def test_low_recall_with_much_unjudged_asks_for_judgments_first():
    [hint] = R.hints(report(recall=0.42, judged=0.55, mrr=0.6, unjudged=31))
    assert hint["rule"] == "judge_first"
    assert hint["figures"] == {"recall@5": 0.42, "judged@5": 0.55, "unjudged_top_k": 31}
    assert "31 unjudged chunks" in hint["detail"]


def test_recall_fine_but_mrr_low_points_at_reranking():
    [hint] = R.hints(report(recall=0.85, judged=0.9, mrr=0.38))
    assert hint["rule"] == "reranking"
    assert hint["figures"] == {"recall@5": 0.85, "mrr@5": 0.38}
    assert hint["limits"] == {"recall_ok": 0.7, "low_mrr": 0.5}
    assert "MRR@5 is 0.38" in hint["detail"] and "rerank" in hint["detail"]


def test_a_good_run_gets_no_hint():
    assert R.hints(report(recall=0.9, judged=0.95, mrr=0.8)) == []


def test_each_rule_is_quiet_exactly_at_its_limit():
    lim = R.HINT_LIMITS
    assert rules(report(recall=lim.low_recall, judged=0.9, mrr=0.8)) == []
    # at the judged limit the top K counts as judged: chunking, not judge first
    assert rules(report(recall=0.3, judged=lim.well_judged, mrr=0.8)) == [
        "chunking_or_query_rewriting"
    ]
    assert rules(report(recall=0.8, judged=0.9, mrr=lim.low_mrr)) == []
    assert rules(report(recall=lim.recall_ok, judged=0.9, mrr=0.49)) == ["reranking"]
    assert rules(report(recall=0.69, judged=0.9, mrr=0.2)) == []  # neither fine nor low


def test_a_category_far_below_the_others_gets_its_own_hint_with_both_means():
    r = report(
        recall=0.0,  # set below from the categories
        judged=0.9,
        mrr=0.8,
        categories={"billing": (0.3, 10, 0.45), "setup": (0.8, 30, 0.9)},
    )
    r["aggregate"]["recall@5"]["mean"] = (0.3 * 10 + 0.8 * 30) / 40  # 0.675
    [hint] = R.hints(r)
    assert hint["rule"] == "category"
    f = hint["figures"]
    assert f["category"] == "billing" and f["n"] == 10 and f["others_n"] == 30
    assert f["recall@5"] == 0.3
    assert f["others_recall@5"] == pytest.approx(0.8)
    assert f["gap"] == pytest.approx(0.5)
    assert f["ci_high"] == 0.45
    assert "billing" in hint["title"] and "0.50 below the other 30 queries" in hint["detail"]


@pytest.mark.parametrize(
    ("billing", "why"),
    [
        ((0.3, 4, 0.45), "too few queries"),
        ((0.7, 10, 0.75), "not far enough below"),
        ((0.5, 10, 0.85), "its CI reaches the others' mean"),
    ],
)
def test_a_category_hint_needs_enough_queries_a_real_gap_and_a_ci_below_the_rest(billing, why):
    m, n, _ = billing
    r = report(
        recall=0.0, judged=0.9, mrr=0.8, categories={"billing": billing, "setup": (0.8, 30, 0.9)}
    )
    r["aggregate"]["recall@5"]["mean"] = (m * n + 0.8 * 30) / (n + 30)
    assert rules(r) == [], why


def test_hints_come_with_every_built_report():
    items = [
        R.GoldItem(
            f"q{i}",
            f"query {i}",
            category="a" if i < 10 else "b",
            judgments=(R.GoldJudgment("x", 2), R.GoldJudgment("y", 2), R.GoldJudgment("z", 0)),
        )
        for i in range(20)
    ]
    # category a finds both relevant chunks first; b finds one of them at rank 3
    rows = {
        i.query_id: R.ResultRow(
            i.query_id, ("x", "y", "z") if i.category == "a" else ("z", "n", "x")
        )
        for i in items
    }
    rep = R.build_report(items, rows, R.RunSettings(ks=(5,), bootstrap_samples=200))
    by_rule = {h["rule"]: h for h in rep["hints"]}
    assert set(by_rule) == {"category"}
    assert by_rule["category"]["figures"]["category"] == "b"
    assert by_rule["category"]["figures"]["recall@5"] == 0.5
    assert by_rule["category"]["figures"]["others_recall@5"] == 1.0
