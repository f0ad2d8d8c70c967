"""The simulation behind `bench/cranfield_rules_bench.py` on small hand-made cases, so that its
figures in docs/benchmarks.md ("Tie rules on Cranfield") can be trusted: the annotators err as
stated, the calibrated accuracy gives the stated agreement, queries settle as the app settles
them (the engine's rules, a perfect lead), and the Cranfield pools are what the text says."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import cranfield_rules_bench as bench
from tests.conftest import require_shared_data


def arr(*grades: int) -> np.ndarray:
    return np.array(grades, dtype=np.int64)


def pool(qid: str, *truth: int) -> bench.Pool:
    return bench.Pool(qid, tuple(f"{qid}-{i}" for i in range(len(truth))), arr(*truth))


truths = st.lists(st.integers(0, 2), min_size=1, max_size=60).map(lambda g: arr(*g))


@settings(max_examples=100, deadline=None)
@given(truth=truths, seed=st.integers(0, 2**32 - 1))
def test_a_mistake_is_never_the_true_grade_and_an_adjacent_one_is_one_grade_off(truth, seed):
    rng = np.random.default_rng(seed)
    other = bench.mistakes(truth, "other", rng)
    adjacent = bench.mistakes(truth, "adjacent", rng)
    assert set(other.tolist()) <= {0, 1, 2} and (other != truth).all()
    assert (np.abs(adjacent - truth) == 1).all()


def test_mistakes_are_spread_as_stated():
    rng = np.random.default_rng(1)
    truth = np.repeat(arr(0, 1, 2), 30_000)
    for errors in bench.ERROR_MODELS:
        wrong = bench.mistakes(truth, errors, rng)
        for t in (0, 1, 2):
            given_for_t = np.bincount(wrong[truth == t], minlength=3) / 30_000
            if errors == "other" or t == 1:  # the two other grades, half each
                expected = [0.0 if g == t else 0.5 for g in (0, 1, 2)]
            else:  # 0 and 2 have one neighbour: 1
                expected = [0.0, 1.0, 0.0]
            assert given_for_t == pytest.approx(expected, abs=0.01), (errors, t)


@pytest.mark.parametrize("errors", bench.ERROR_MODELS)
@pytest.mark.parametrize("p", [0.0, 0.5, 0.88, 1.0])
def test_an_annotator_of_accuracy_p_gives_the_true_grade_a_share_p_of_the_time(errors, p):
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 3, 100_000)
    grades = bench.annotate(truth, p, errors, rng)
    assert np.mean(grades == truth) == pytest.approx(p, abs=0.005)


def test_the_calibrated_accuracy_gives_the_stated_agreement():
    truth = np.random.default_rng(3).choice([0, 1, 2], size=200_000, p=[0.76, 0.16, 0.08])
    # "other" mistakes coincide half the time: p² + (1 − p)²/2 = 0.88 has a closed form.
    p = bench.accuracy_for_agreement(truth, 0.88, "other")
    assert p == pytest.approx((1 + math.sqrt(1 + 6 * 0.38)) / 3, abs=1e-9)
    for errors in bench.ERROR_MODELS:
        p = bench.accuracy_for_agreement(truth, 0.88, errors)
        assert bench.expected_agreement(truth, p, errors) == pytest.approx(0.88, abs=1e-9)
        rng = np.random.default_rng(4)
        a, b = bench.annotate(truth, p, errors, rng), bench.annotate(truth, p, errors, rng)
        assert np.mean(a == b) == pytest.approx(0.88, abs=0.005)


@settings(max_examples=100, deadline=None)
@given(
    queries=st.lists(
        st.lists(st.tuples(*[st.integers(0, 2)] * 3), min_size=1, max_size=12),
        min_size=1,
        max_size=5,
    )
)
def test_the_kappas_of_two_and_three_annotators_are_the_engines_query_stats(queries):
    """The bench computes kappa for all queries at once; it equals `query_stats` query by query
    (the function the app stores), None where it is undefined."""
    grades = [np.array(q, dtype=np.int64).T for q in queries]
    for annotators in ((0, 1), (0, 1, 2)):
        fast = bench.kappas(grades, annotators)
        for q, g in enumerate(grades):
            slow = bench.rules.query_stats(bench._by_annotator([g[a] for a in annotators]))["kappa"]
            assert (fast[q] is None) == (slow is None)
            if slow is not None:
                assert fast[q] == pytest.approx(slow, abs=1e-12)


POOLS = [pool("1", 2, 2, 1, 0, 0, 0, 0, 0, 0, 0), pool("2", 0, 0, 1, 0), pool("3", 0, 0, 0)]


@pytest.mark.parametrize("rule", bench.RULES)
def test_perfect_annotators_are_always_right_and_never_reach_the_lead(rule):
    rng = np.random.default_rng(0)
    grades = bench.simulate(POOLS, p=1.0, errors="other", rng=rng)
    truth = np.concatenate([p.truth for p in POOLS])
    figures = bench.measure(truth, bench.settle([p.truth for p in POOLS], grades, rule))
    assert figures.accuracy == figures.relevant_accuracy == figures.rule_accuracy == 1.0
    assert figures.to_lead == figures.escalated == 0.0
    assert figures.decided[bench.rules.UNANIMOUS] == len(truth)


@pytest.mark.parametrize("rule", bench.RULES)
def test_annotators_one_grade_off_on_every_not_relevant_chunk_agree_and_are_all_wrong(rule):
    """p = 0 with adjacent mistakes on 0/2 truths: everyone says 1 everywhere, a unanimous
    query (kappa undefined, not low) that no rule sends to the lead, and every grade is wrong."""
    pools = [pool("1", 0, 0, 2, 0), pool("2", 2, 0)]
    grades = bench.simulate(pools, p=0.0, errors="adjacent", rng=np.random.default_rng(0))
    assert all((g == 1).all() for g in grades)
    truth = np.concatenate([p.truth for p in pools])
    figures = bench.measure(truth, bench.settle([p.truth for p in pools], grades, rule))
    assert figures.accuracy == 0.0 and figures.to_lead == 0.0
    assert figures.decided[bench.rules.UNANIMOUS] == len(truth)
    # Both relevant chunks (the 2s) are lowered to 1; the four 0s of six chunks are raised to 1.
    assert figures.lowered == 1.0 and figures.raised == pytest.approx(4 / 6)


TRUTH = arr(2, 1, 0, 0, 0)
ONE_TIE = np.stack([arr(2, 1, 0, 0, 0), arr(1, 1, 0, 0, 0), arr(2, 1, 0, 0, 0)])  # κ = 0.64


@pytest.mark.parametrize(
    ("rule", "final", "to_lead", "decided"),
    [
        ("lower", [1, 1, 0, 0, 0], False, {"unanimous": 4, "tie_lower": 1}),
        ("higher", [2, 1, 0, 0, 0], False, {"unanimous": 4, "tie_higher": 1}),
        ("lead", [2, 1, 0, 0, 0], True, {"lead": 5}),
        ("lower+third", [1, 1, 0, 0, 0], False, {"unanimous": 4, "tie_lower": 1}),
    ],
)
def test_a_one_grade_tie_in_a_query_that_is_not_flagged_goes_by_the_rule(
    rule, final, to_lead, decided
):
    settled = bench.settle([TRUTH], [ONE_TIE], rule)
    assert settled.final.tolist() == final
    assert settled.to_lead.tolist() == [to_lead]
    assert settled.escalated.tolist() == [False]  # not flagged under `lower`: no third grade
    assert {k: settled.decided_by.count(k) for k in set(settled.decided_by)} == decided


TEN = arr(2, 2, 1, 0, 0, 0, 0, 0, 0, 0)
TWO_APART = arr(0, 2, 1, 0, 0, 0, 0, 0, 0, 0)  # bob says 0 where the truth (and alice) say 2


def test_a_third_annotator_who_breaks_a_two_apart_disagreement_settles_it_without_the_lead():
    grades = np.stack([TEN, TWO_APART, TEN])  # κ of the three: 0.76, 1, 0.76 → mean 0.84
    assert bench.settle([TEN], [grades], "lower").to_lead.tolist() == [True]
    settled = bench.settle([TEN], [grades], "lower+third")
    assert settled.escalated.tolist() == [True] and settled.to_lead.tolist() == [False]
    assert settled.final.tolist() == TEN.tolist()
    assert settled.decided_by.count("majority") == 1
    assert settled.decided_by.count("unanimous") == 9


@pytest.mark.parametrize(
    ("third", "why"),
    [
        (arr(1, 2, 1, 0, 0, 0, 0, 0, 0, 0), "2, 0 and 1 on the first chunk: no majority"),
        (arr(0, 0, 2, 2, 1, 0, 0, 0, 0, 0), "the third annotator's kappa pulls the mean below 0.6"),
    ],
)
def test_a_third_annotator_who_leaves_no_majority_or_a_low_kappa_sends_it_to_the_lead(third, why):
    settled = bench.settle([TEN], [np.stack([TEN, TWO_APART, third])], "lower+third")
    assert settled.escalated.tolist() == [True]
    assert settled.to_lead.tolist() == [True], why
    assert settled.final.tolist() == TEN.tolist()  # the lead is perfect
    assert settled.decided_by == ["lead"] * 10


@settings(max_examples=100, deadline=None)
@given(
    truths=st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=8), min_size=1, max_size=6),
    p=st.sampled_from([0.0, 0.5, 0.8, 0.95]),
    errors=st.sampled_from(bench.ERROR_MODELS),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_rules_rank_as_their_statement_implies(truths, p, errors, seed):
    """With a perfect lead: `lead` flags whatever `lower` flags and every tie besides, and
    decides the rest alike, so it is right on every chunk `lower` and `higher` are right on;
    `lower` and `higher` send the same queries to the lead; a third annotator only takes
    queries away from it; and whatever reaches the lead ends with the true grades."""
    pools = [pool(str(i), *t) for i, t in enumerate(truths)]
    truth_by_query = [p.truth for p in pools]
    grades = bench.simulate(pools, p=p, errors=errors, rng=np.random.default_rng(seed))
    settled = {rule: bench.settle(truth_by_query, grades, rule) for rule in bench.RULES}
    truth = np.concatenate(truth_by_query)
    right = {rule: s.final == truth for rule, s in settled.items()}
    assert (right["lead"] >= right["lower"]).all() and (right["lead"] >= right["higher"]).all()
    assert (settled["lower"].to_lead == settled["higher"].to_lead).all()
    assert (settled["lower+third"].to_lead <= settled["lower"].to_lead).all()
    assert (settled["lower+third"].escalated == settled["lower"].to_lead).all()
    for s in settled.values():
        by_query = np.repeat(s.to_lead, [len(t) for t in truth_by_query])
        assert (s.final[by_query] == truth[by_query]).all()
        assert [d == "lead" for d in s.decided_by] == by_query.tolist()


def test_a_pool_holds_the_judged_documents_then_the_best_unjudged_ones_up_to_its_size():
    judged = {"1": {"d5": 2, "d9": 1}, "2": {f"d{i}": 1 for i in range(5)}}
    ranked = {"1": ["d9", "d7", "src", "d5", "d3", "d1", "d0"], "2": ["d8"]}
    pools = bench.build_pools(judged, ranked, size=4, leave_out={"1": "src"})
    assert [p.qid for p in pools] == ["1", "2"]
    assert pools[0].candidates == ("d5", "d9", "d7", "d3")  # the source paper is left out
    assert pools[0].truth.tolist() == [2, 1, 0, 0]
    assert len(pools[1].candidates) == 5  # more judged documents than the size: all kept


def test_cranfield_grades_map_onto_ours_as_the_bench_says():
    raw = require_shared_data("cranfield")
    judged, source = bench.cranfield_truth(raw)
    grades = [g for by_doc in judged.values() for g in by_doc.values()]
    # cranqrel: 128 ones and 387 twos (→ 2), 734 threes and 363 fours (→ 1), 225 × −1 (out).
    assert (grades.count(2), grades.count(1), len(source)) == (128 + 387, 734 + 363, 225)
    assert len(judged) == 225 and source["1"] == "486" and source["225"] == "1188"


def test_the_cranfield_pools_are_the_judged_documents_and_bm25s_best_unjudged_ones():
    raw = require_shared_data("cranfield")
    judged, source = bench.cranfield_truth(raw)
    pools, top = bench.cranfield_pools(raw)
    assert len(pools) == 225 and len(top.query_ids) == 225
    for p in pools:
        grades = dict(zip(p.candidates, p.truth.tolist(), strict=True))
        assert len(grades) == max(30, len(judged[p.qid]))
        assert source[p.qid] not in grades
        assert {d: g for d, g in grades.items() if g} == judged[p.qid]  # every unjudged one is 0
    truth = np.concatenate([p.truth for p in pools])
    # The figures docs/benchmarks.md states for these pools.
    assert len(truth) == 6761
    assert np.bincount(truth).tolist() == [5149, 1097, 515]
