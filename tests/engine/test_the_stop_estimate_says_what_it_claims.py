"""The stop estimate (goldsmith.judging_order.stop_estimate) holds its stated properties: the
distribution of the relevant candidates left is the Poisson binomial of their probabilities,
"95 % found" allows exactly the misses it says, the random check is drawn from the unjudged rest
whatever the grades, its estimate is unbiased, nobody may stop before the check, and what a stop
leaves is "not judged (stopped)", never 0."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import judging_order as jo


def pool(n: int, qid: str = "q") -> jo.PooledQuery:
    candidates = tuple(f"c{i}" for i in range(n))
    return jo.PooledQuery(qid, candidates, {c: {"A": i + 1} for i, c in enumerate(candidates)})


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0, 1), max_size=8))
def test_the_count_left_is_the_poisson_binomial_of_the_probabilities(probs):
    dist = jo.poisson_binomial(probs)
    brute = [0.0] * (len(probs) + 1)
    for outcome in itertools.product((0, 1), repeat=len(probs)):
        weight = math.prod(p if o else 1 - p for p, o in zip(probs, outcome, strict=True))
        brute[sum(outcome)] += weight
    assert dist.tolist() == pytest.approx(brute, abs=1e-12)


@given(st.integers(0, 500), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_95_percent_found_allows_exactly_the_misses_it_says(found, target):
    m = jo.allowed_missing(found, target)
    assert found == 0 or found / (found + m) >= target - 1e-12
    assert found == 0 or found / (found + m + 1) < target
    assert jo.allowed_missing(19) == 1 and jo.allowed_missing(18) == 0


def test_nobody_may_stop_before_the_random_check_and_the_check_comes_from_the_rest():
    p = pool(30)
    own = {f"c{i}": (2 if i < 3 else 0) for i in range(12)}  # the likely ones, judged
    est = jo.stop_estimate(p, own, jo.SourcePriors(), checks=3)
    assert est.found == 3 and est.judged == 12 and est.unjudged == 18
    assert est.expected_remaining == pytest.approx(
        sum(
            v
            for c, v in jo.relevance_probabilities(p, own, jo.SourcePriors()).items()
            if c not in own
        )
    )
    if est.p_target >= est.confidence:
        assert not est.may_stop and len(est.draw) == 3
        assert not set(est.draw) & set(own)
        # The draw does not depend on the grades given, only on which are judged.
        other = dict.fromkeys(own, 0)
        assert jo.stop_estimate(p, other, jo.SourcePriors(), checks=3).draw in ((), est.draw)


def test_a_clean_check_lets_the_annotator_stop_and_a_relevant_draw_does_not():
    p = pool(40)
    own = {f"c{i}": (2 if i < 2 else 0) for i in range(30)}
    est = jo.stop_estimate(p, own, jo.SourcePriors(), confidence=0.5, checks=3)
    assert est.p_target >= est.confidence and est.draw
    clean = own | dict.fromkeys(est.draw, 0)
    after = jo.stop_estimate(
        p, clean, jo.SourcePriors(), checked=est.draw, confidence=0.5, checks=3
    )
    assert after.may_stop and after.sampled_remaining == 0 and after.checked == 3
    hit = own | dict.fromkeys(est.draw, 0) | {est.draw[0]: 2}
    after = jo.stop_estimate(p, hit, jo.SourcePriors(), checked=est.draw, confidence=0.5, checks=3)
    assert not after.may_stop and after.sampled_remaining > 0
    assert (after.checks, after.target, after.confidence) == (3, 0.95, 0.5)


def test_with_nothing_left_the_annotator_may_stop():
    p = pool(3)
    est = jo.stop_estimate(p, {"c0": 0, "c1": 2, "c2": 0}, jo.SourcePriors())
    assert est.may_stop and est.unjudged == 0 and est.found == 1


@settings(max_examples=40, deadline=None)
@given(
    rest=st.lists(st.booleans(), min_size=3, max_size=9),
    m=st.integers(1, 3),
)
def test_the_sampled_estimate_is_unbiased_over_every_draw(rest, m):
    # Judged: c0 relevant. The rest holds `rest` (True: relevant); every m-subset equally likely.
    n = 1 + len(rest)
    p = pool(n)
    truth = {"c0": 2} | {f"c{i + 1}": 2 if r else 0 for i, r in enumerate(rest)}
    names = [f"c{i + 1}" for i in range(len(rest))]
    draws = list(itertools.combinations(names, m))
    values = []
    for drawn in draws:
        own = {"c0": 2} | {c: truth[c] for c in drawn}
        est = jo.stop_estimate(p, own, jo.SourcePriors(), checked=drawn, checks=m)
        values.append(est.sampled_remaining)
    assert sum(values) / len(values) == pytest.approx(sum(rest))


def test_what_a_stop_leaves_is_not_judged_never_zero():
    p = pool(4)
    left = jo.stopped_candidates(p, {"c0": 2, "c2": 0})
    assert left == {"c1": jo.NOT_JUDGED_STOPPED, "c3": jo.NOT_JUDGED_STOPPED}
    assert 0 not in left.values()


def test_a_checked_candidate_must_have_a_grade():
    with pytest.raises(ValueError, match="checked"):
        jo.stop_estimate(pool(3), {"c0": 0}, jo.SourcePriors(), checked=["c1"])


def test_without_random_checks_the_model_alone_decides():
    p = pool(40)
    own = {f"c{i}": (2 if i < 2 else 0) for i in range(30)}
    est = jo.stop_estimate(p, own, jo.SourcePriors(), confidence=0.5, checks=0)
    assert est.p_target >= 0.5 and est.may_stop and not est.draw and est.checked == 0
    est = jo.stop_estimate(p, own, jo.SourcePriors(), confidence=0.999, checks=0)
    assert est.p_target < 0.999 and not est.may_stop and not est.draw


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 30), data=st.data())
def test_by_default_the_stop_is_allowed_exactly_when_the_model_says_70_percent(n, data):
    # The shipped rule: no random check; a stop exactly when P(95 % found) ≥ 0.7.
    p = pool(n)
    judged = data.draw(st.integers(0, n))
    own = {f"c{i}": data.draw(st.sampled_from([0, 1, 2])) for i in range(judged)}
    est = jo.stop_estimate(p, own, jo.SourcePriors())
    assert est.confidence == jo.CONFIDENCE == 0.7 and est.checks == jo.CHECKS == 0
    assert not est.draw and est.checked == 0
    assert est.may_stop is (est.unjudged == 0 or est.p_target >= 0.7)
