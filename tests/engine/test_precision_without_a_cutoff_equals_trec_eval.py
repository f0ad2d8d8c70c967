"""`precision` and `f1` without a cut-off are trec_eval's set_P and set_F: relevant retrieved over
retrieved (0 when nothing is retrieved) and their F1 with recall, equal to trec_eval's own
expected outputs and to pytrec_eval on random workloads (ties, empty lists, unjudged ids, ids of
any length and script)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from goldsmith.formats.detect import read_qrels, read_run
from tests.engine.test_metrics_trec_eval import trec_eval_dir

pytrec_eval = pytest.importorskip("pytrec_eval")

LEVELS = {"out.test.aq": ("qrels.test", 1), "out.test.aql": ("qrels.rel_level", 2)}


@pytest.mark.parametrize("out_file", sorted(LEVELS))
def test_set_p_and_set_f_equal_trec_eval_s_expected_output(out_file):
    d = trec_eval_dir()
    qrels, level = LEVELS[out_file]
    want: dict[str, dict[str, float]] = {}
    for line in (d / out_file).read_text().splitlines():
        measure, qid, value = line.split()
        if measure in ("set_P", "set_F"):
            want.setdefault(qid, {})["precision" if measure == "set_P" else "f1"] = float(value)
    result = M.evaluate(
        read_qrels(d / qrels),
        read_run(d / "results.test"),
        ["precision", "f1"],
        M.EvalSettings(relevance_threshold=level, order="score", no_relevant="zero"),
    )
    got = result.per_query()
    means = M.aggregate(result, samples=0)
    assert len(want) == 4  # three queries and "all"
    for qid, values in want.items():
        for metric, value in values.items():
            ours = means[metric].mean if qid == "all" else got[qid][metric]
            assert ours == pytest.approx(value, abs=5e-5), (qid, metric)


def test_nothing_retrieved_scores_zero_as_in_trec_eval():
    qrels = {"q1": {"a": 2}, "q2": {"a": 2, "b": 0}}
    run = {"q1": [], "q2": [("b", 1.0)]}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"set_P", "set_F"}, relevance_level=2)
    want = theirs.evaluate({q: dict(r) for q, r in run.items()})
    got = M.evaluate(qrels, run, ["precision", "f1"], M.EvalSettings(order="score")).per_query()
    assert want == {"q1": {"set_P": 0.0, "set_F": 0.0}, "q2": {"set_P": 0.0, "set_F": 0.0}}
    assert got == {"q1": {"precision": 0.0, "f1": 0.0}, "q2": {"precision": 0.0, "f1": 0.0}}


def test_precision_divides_by_what_was_returned_and_precision_at_k_by_k():
    qrels = {"q": {"a": 2, "b": 2, "c": 0}}
    r = M.evaluate(qrels, {"q": ["a", "x", "c"]}, ["precision", "precision@10", "f1", "f1@10"])
    values = r.per_query()["q"]
    assert values["precision"] == pytest.approx(1 / 3)
    assert values["precision@10"] == pytest.approx(1 / 10)
    # F1 of P = 1/3 and R = 1/2
    assert values["f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


def test_a_repeated_id_is_retrieved_once():
    r = M.evaluate({"q": {"a": 2}}, {"q": ["a", "a", "x", "a"]}, ["precision"])
    assert r.per_query()["q"]["precision"] == pytest.approx(1 / 2)


# ids of any length 1-200, any printable character (CJK included), never NUL
_chars = st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\x00")
_ids = st.one_of(
    st.text(_chars, min_size=1, max_size=200),
    st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=60),
    st.sampled_from(["a", "b", "c", "d1", "d10", "d2"]),
)


@st.composite
def workloads(draw: st.DrawFn) -> tuple[dict, dict]:
    pool = draw(st.lists(_ids, min_size=1, max_size=25, unique=True))
    queries = draw(st.lists(st.text(_chars, min_size=1, max_size=12), min_size=1, max_size=6))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in dict.fromkeys(queries):
        judged = draw(st.lists(st.sampled_from(pool), max_size=10, unique=True))
        qrels[q] = {d: draw(st.integers(min_value=-1, max_value=3)) for d in judged}
        if draw(st.integers(0, 4)):  # some judged queries are missing from the run
            ranked = draw(st.lists(st.sampled_from(pool), max_size=20, unique=True))
            # coarse scores: ties are common, and trec_eval breaks them by id
            run[q] = {d: float(draw(st.integers(0, 3))) for d in ranked}
    if draw(st.booleans()):  # a run query nobody judged
        run["unjudged-query-" + draw(st.text(_chars, max_size=30))] = {pool[0]: 1.0}
    return qrels, run


@given(workloads(), st.sampled_from([1, 2]))
@settings(max_examples=300, deadline=None)
def test_precision_and_f1_equal_pytrec_eval_on_random_workloads(w, level):
    qrels, run = w
    measures = {"set_P", "set_F", "set_recall", "P.1,3,5,10"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
    names = {"set_P": "precision", "set_F": "f1", "set_recall": "recall"}
    names |= {f"P_{k}": f"precision@{k}" for k in (1, 3, 5, 10)}
    result = M.evaluate(
        qrels,
        {q: list(d.items()) for q, d in run.items()},
        list(names.values()),
        M.EvalSettings(relevance_threshold=level, order="score", no_relevant="zero"),
    )
    ours = result.per_query()
    # pytrec_eval scores the queries with a judgment and in the run (an empty list too)
    assert theirs.keys() == {q for q in qrels if q in run and qrels[q]}
    for q, values in theirs.items():
        for measure, metric in names.items():
            assert ours[q][metric] == pytest.approx(values[measure], abs=1e-9), (q, measure)
    for q in result.missing_from_run:
        assert ours[q]["precision"] == 0.0 and ours[q]["f1"] == 0.0
