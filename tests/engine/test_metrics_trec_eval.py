"""Agreement with trec_eval 10.0's own expected outputs and with pytrec_eval, per query."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from goldsmith import metrics as M
from goldsmith.formats.detect import read_qrels, read_run

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# trec_eval measure -> our metric name
MEASURES = {"map": "map", "Rprec": "r_precision", "recip_rank": "mrr", "ndcg": "ndcg"}
MEASURES |= {f"P_{k}": f"precision@{k}" for k in CUTS}
MEASURES |= {f"recall_{k}": f"recall@{k}" for k in CUTS}
MEASURES |= {f"map_cut_{k}": f"map@{k}" for k in CUTS}
MEASURES |= {f"ndcg_cut_{k}": f"ndcg@{k}" for k in CUTS}
MEASURES |= {f"success_{k}": f"hit@{k}" for k in (1, 5, 10)}


def shared_data() -> Path:
    """``shared/data`` next to the repository, or $GOLDSMITH_SHARED_DATA."""
    env = os.environ.get("GOLDSMITH_SHARED_DATA")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
    return path.resolve()


def trec_eval_dir() -> Path:
    d = shared_data() / "trec_eval_test"
    if not (d / "out.test.aq").exists():
        pytest.skip(f"trec_eval test data not found in {d} (set GOLDSMITH_SHARED_DATA)")
    return d


def expected(path: Path) -> dict[str, dict[str, float]]:
    """{query or 'all': {our metric: value}} from a trec_eval -q output file."""
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        if measure in MEASURES:
            out.setdefault(qid, {})[MEASURES[measure]] = float(value)
    return out


def check(qrels: str, out_file: str, level: int) -> int:
    d = trec_eval_dir()
    want = expected(d / out_file)
    result = M.evaluate(
        read_qrels(d / qrels),
        read_run(d / "results.test"),
        sorted(set(MEASURES.values())),
        M.EvalSettings(relevance_threshold=level, order="score", no_relevant="zero"),
    )
    got = result.per_query()
    agg = M.aggregate(result, samples=0)
    checked = 0
    for qid, values in want.items():
        for metric, value in values.items():
            ours = agg[metric].mean if qid == "all" else got[qid][metric]
            assert ours == pytest.approx(value, abs=5e-5), (qid, metric)
            checked += 1
    return checked


def test_binary_measures_match_trec_eval_per_query_and_overall():
    assert check("qrels.test", "out.test.aq", level=1) == 4 * (4 + 4 * len(CUTS) + 3)


def test_default_measures_match_trec_eval_averages():
    d = trec_eval_dir()
    assert (d / "out.test").exists()
    assert check("qrels.test", "out.test", level=1) > 0


def test_comment_lines_in_qrels_do_not_change_the_result():
    d = trec_eval_dir()
    a = read_qrels(d / "qrels.test")
    b = read_qrels(d / "qrels.test.with-comments")
    assert a.query_ids == b.query_ids and len(a.ids) == len(b.ids)
    assert check("qrels.test.with-comments", "out.test", level=1) > 0


def test_graded_ndcg_matches_trec_eval_at_relevance_level_two():
    assert check("qrels.rel_level", "out.test.aql", level=2) > 0


def test_a_hash_inside_a_docno_is_not_a_comment():
    d = trec_eval_dir()
    want = expected(d / "out.comment.test")
    result = M.evaluate(
        read_qrels(d / "qrels.comment.test"),
        read_run(d / "results.comment.test"),
        sorted(set(MEASURES.values())),
        M.EvalSettings(relevance_threshold=1, order="score", no_relevant="zero"),
    )
    assert {"map", "precision@5", "r_precision", "mrr"} <= want["all"].keys()
    # trec_eval averages over queries in both files only.
    both = [q for q in result.query_ids if q not in result.missing_from_run]
    assert len(both) == 31
    for metric, value in want["all"].items():
        rows = [result.query_ids.index(q) for q in both]
        col = result.values[rows, result.metrics.index(metric)]
        assert float(col.mean()) == pytest.approx(value, abs=5e-5), metric


def random_workload(seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(40):
        docs = [f"d{i}" for i in rng.choice(60, size=rng.integers(1, 40), replace=False)]
        qrels[f"q{q}"] = {
            d: int(rng.integers(-1, 4)) for d in docs[: rng.integers(1, len(docs) + 1)]
        }
        ranked = [f"d{i}" for i in rng.choice(60, size=rng.integers(1, 50), replace=False)]
        # coarse scores so that ties (and trec_eval's tie rule) occur often
        run[f"q{q}"] = {d: float(rng.integers(0, 8)) / 4 for d in ranked}
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2])
def test_every_query_equals_pytrec_eval_exactly(seed: int, level: int):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_workload(seed)
    cuts = (1, 3, 5, 10, 20)
    names = {"map": "map", "Rprec": "r_precision", "recip_rank": "mrr", "ndcg": "ndcg"}
    for k in cuts:
        names |= {f"P_{k}": f"precision@{k}", f"recall_{k}": f"recall@{k}"}
        names |= {f"ndcg_cut_{k}": f"ndcg@{k}", f"map_cut_{k}": f"map@{k}"}
    names |= {f"success_{k}": f"hit@{k}" for k in (1, 5, 10)}
    ks = ",".join(map(str, cuts))
    measures = {"map", "Rprec", "recip_rank", "ndcg", f"P.{ks}", f"recall.{ks}"}
    measures |= {f"ndcg_cut.{ks}", f"map_cut.{ks}", "success.1,5,10"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
    ours = M.evaluate(
        qrels,
        {q: list(d.items()) for q, d in run.items()},
        list(names.values()),
        M.EvalSettings(relevance_threshold=level, order="score", no_relevant="zero"),
    ).per_query()
    assert ours.keys() == theirs.keys()
    for q, vals in theirs.items():
        for measure, metric in names.items():
            assert ours[q][metric] == pytest.approx(vals[measure], abs=1e-9), (q, measure)
