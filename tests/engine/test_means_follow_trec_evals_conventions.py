"""``--convention trec_eval`` and ``trec_eval-c`` give trec_eval's means exactly: by default
trec_eval averages over the run's queries that have a judgment in the qrels (relevant or not),
``-c`` over every query of the qrels, one missing from the run scoring 0. Checked against
trec_eval's own expected output (``out.test.aqc``: ``-c`` on a run that lacks topic 302) and
against pytrec_eval on random workloads. Goldsmith's default is neither, and says so."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import cli
from goldsmith import metrics as M
from goldsmith.formats.detect import read_qrels, read_run
from tests.engine.test_metrics_trec_eval import trec_eval_dir

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = {"map": "map", "P_5": "precision@5", "ndcg_cut_10": "ndcg@10", "recip_rank": "mrr",
            "recall_10": "recall@10", "success_5": "hit@5"}  # fmt: skip


def trec_output(name: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in (trec_eval_dir() / name).read_text().splitlines():
        measure, qid, value = line.split()
        if measure in MEASURES:
            out.setdefault(qid, {})[MEASURES[measure]] = float(value)
    return out


def trunc_run(tmp_path):
    """results.trunc with its six TREC columns (its lines carry junk after them, which
    trec_eval ignores and our reader refuses)."""
    lines = (trec_eval_dir() / "results.trunc").read_text().splitlines()
    path = tmp_path / "results.trunc"
    path.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in lines))
    return path


def means(judgments, run, convention: str) -> dict[str, float]:
    result = M.evaluate(
        judgments,
        run,
        sorted(MEASURES.values()),
        M.EvalSettings(relevance_threshold=1, order="score", convention=convention),
    )
    return {m: a.mean for m, a in M.aggregate(result, samples=0).items()}


def test_trec_eval_c_equals_trec_evals_own_output_on_a_run_missing_a_topic(tmp_path):
    d = trec_eval_dir()
    want = trec_output("out.test.aqc")
    got = means(read_qrels(d / "qrels.test"), read_run(trunc_run(tmp_path)), "trec_eval-c")
    for metric, value in want["all"].items():
        assert got[metric] == pytest.approx(value, abs=5e-5), metric


def test_trec_eval_default_averages_the_run_s_judged_queries_only(tmp_path):
    d = trec_eval_dir()
    per_query = trec_output("out.test.aqc")
    in_run = ["301", "303"]  # results.trunc has no line for topic 302
    got = means(read_qrels(d / "qrels.test"), read_run(trunc_run(tmp_path)), "trec_eval")
    for metric in MEASURES.values():
        expected = statistics.mean(per_query[q][metric] for q in in_run)
        assert got[metric] == pytest.approx(expected, abs=1e-4), metric


@st.composite
def workloads(draw):
    docs = [f"d{i}" for i in range(12)]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    qrels, run = {}, {}
    for q in queries:
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=8, unique=True))
        qrels[q] = {d: draw(st.integers(0, 2)) for d in judged}  # some with no relevant doc
        if draw(st.integers(0, 3)):  # some judged queries are missing from the run
            ranked = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True))
            run[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    if draw(st.booleans()):
        run["nobody-judged"] = {"d0": 1.0}
    return qrels, run


@settings(max_examples=200, deadline=None)
@given(workloads())
def test_both_conventions_equal_pytrec_eval_on_random_workloads(w):
    qrels, run = w
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    ranking = {q: list(docs.items()) for q, docs in run.items()}
    if per_query:
        default = means(qrels, ranking, "trec_eval")
        for measure, metric in MEASURES.items():
            expected = statistics.mean(v[measure] for v in per_query.values())
            assert default[metric] == pytest.approx(expected, abs=1e-9), metric
    complete = means(qrels, ranking, "trec_eval-c")
    for measure, metric in MEASURES.items():
        expected = sum(v[measure] for v in per_query.values()) / len(qrels)
        assert complete[metric] == pytest.approx(expected, abs=1e-9), metric


def test_goldsmith_eval_states_which_queries_its_means_are_over(tmp_path, capsys):
    d = trec_eval_dir()
    args = ["eval", str(d / "qrels.test"), str(trunc_run(tmp_path)), "-m", "map",
            "--relevance-level", "1", "--bootstrap", "0", "--order", "score"]  # fmt: skip
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "means over: Goldsmith's default, neither trec_eval's default nor -c" in out
    assert cli.main([*args, "--convention", "trec_eval-c"]) == 0
    out = capsys.readouterr().out
    assert "means over: trec_eval -c: every query with a judgment" in out
    assert "map  0.1016" in out  # trec_eval -c's own figure (out.test.aqc)
