"""The low-recall list holds the queries whose Recall@K is below its own cut-off (0.2 by
default, a project setting), not below the pass threshold; the report states the cut-off."""

from __future__ import annotations

import pytest

from evaluation.services.retrievers import RetrieverInvalid, evaluation_settings_update
from goldsmith import reporting as R


def workload(n_found: dict[str, int]) -> tuple[list[R.GoldItem], dict[str, R.ResultRow]]:
    """Queries with five relevant chunks each, of which ``n_found[q]`` are retrieved."""
    items, rows = [], {}
    for q, found in n_found.items():
        rel = tuple(R.GoldJudgment(f"{q}-{i}", 2) for i in range(5))
        items.append(R.GoldItem(q, f"text of {q}", judgments=rel))
        rows[q] = R.ResultRow(q, tuple(j.chunk_id for j in rel[:found]) + ("x",) * (5 - found))
    return items, rows


def test_only_the_queries_below_the_cut_off_are_listed_whatever_the_pass_threshold():
    # recall@5 = found / 5: 0, 0.2, 0.4, 0.6, 1.0
    items, rows = workload({"a": 0, "b": 1, "c": 2, "d": 3, "e": 5})
    s = R.RunSettings(ks=(5,), pass_threshold=0.7, bootstrap_samples=0)
    report = R.build_report(items, rows, s)
    assert [q["query_id"] for q in report["low_queries"]] == ["a"]  # 0.2 itself is not below
    assert report["low_recall"] == {"metric": "recall@5", "cutoff": 0.2, "count": 1, "listed": 1}
    assert report["aggregate"]["pass@5"]["mean"] == pytest.approx(1 / 5)  # passing is apart
    wider = R.build_report(items, rows, R.RunSettings(ks=(5,), low_recall_cutoff=0.5))
    assert [q["query_id"] for q in wider["low_queries"]] == ["a", "b", "c"]  # worst first


def test_the_report_counts_every_low_query_even_when_it_lists_only_the_worst():
    items, rows = workload({f"q{i:03d}": 0 for i in range(60)})
    report = R.build_report(items, rows, R.RunSettings(ks=(5,), bootstrap_samples=0))
    assert report["low_recall"]["count"] == 60
    assert report["low_recall"]["listed"] == len(report["low_queries"]) == R.LOW_QUERY_LIMIT


@pytest.mark.django_db
@pytest.mark.parametrize("cutoff", [-0.1, 1.5])
def test_a_cut_off_outside_zero_to_one_is_refused(personas, cutoff):
    with pytest.raises(RetrieverInvalid, match="low-recall cut-off must be between 0 and 1"):
        evaluation_settings_update(project=personas.project, low_recall_cutoff=cutoff)


@pytest.mark.django_db
def test_the_default_cut_off_is_the_field_s_0_2(personas):
    from evaluation.services.retrievers import evaluation_settings_get

    assert evaluation_settings_get(project=personas.project).low_recall_cutoff == 0.2
