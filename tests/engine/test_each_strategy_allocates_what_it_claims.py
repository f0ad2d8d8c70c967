"""Each sampling strategy's allocation is what its docstring claims (pure functions)."""

import numpy as np
import pytest

from goldsmith.intake.sampling import allocate, cluster_queries, draw, frequency_bands, strata_for


def test_proportional_allocation_follows_volume_with_largest_remainder():
    sizes = {"a": 100, "b": 100, "c": 100}
    volumes = {"a": 600.0, "b": 300.0, "c": 100.0}
    assert allocate(sizes, volumes, 10, "proportional") == {"a": 6, "b": 3, "c": 1}
    # 7 * (.6, .3, .1) = 4.2, 2.1, 0.7: floors 4, 2, 0 and the one left goes to c (0.7).
    assert allocate(sizes, volumes, 7, "proportional") == {"a": 4, "b": 2, "c": 1}


def test_equal_allocation_gives_each_stratum_the_same():
    sizes = {"a": 100, "b": 100, "c": 100, "d": 100}
    volumes = {"a": 970.0, "b": 10.0, "c": 10.0, "d": 10.0}
    assert allocate(sizes, volumes, 20, "equal") == {"a": 5, "b": 5, "c": 5, "d": 5}


def test_a_small_stratum_gives_what_it_cannot_take_to_the_others():
    sizes = {"a": 2, "b": 100, "c": 100}
    assert allocate(sizes, {"a": 1.0, "b": 1.0, "c": 1.0}, 30, "equal") == {
        "a": 2,
        "b": 14,
        "c": 14,
    }
    assert sum(allocate(sizes, {"a": 9.0, "b": 1.0, "c": 1.0}, 30, "proportional").values()) == 30
    assert allocate(sizes, {"a": 1.0, "b": 1.0, "c": 1.0}, 500, "equal") == sizes


def test_frequency_bands_split_the_volume_at_50_and_80_percent():
    counts = [50, 20, 10, 5, 5, 4, 3, 2, 1]  # total 100
    bands = frequency_bands(counts)
    # Volume before each query: 0, 50, 70, 80, 85, ... -> head while < 50, torso while < 80.
    assert bands == ["head", "torso", "torso", "tail", "tail", "tail", "tail", "tail", "tail"]
    strata, allocation, _ = strata_for("frequency", counts=counts)
    assert allocation == "equal"
    result = draw(
        keys=[str(i) for i in range(9)],
        counts=counts,
        strata=strata,
        n=3,
        allocation=allocation,
        seed=0,
    )
    assert sorted(c.stratum for c in result.chosen) == ["head", "tail", "torso"]


def test_weights_reweight_the_sample_to_the_traffic():
    keys = [f"q{i}" for i in range(40)]
    counts = [10] * 10 + [1] * 30  # stratum x: 100 of 130 volume; y: 30
    strata = ["x"] * 10 + ["y"] * 30
    result = draw(keys=keys, counts=counts, strata=strata, n=8, allocation="equal", seed=5)
    by_name = {s.name: s for s in result.strata}
    assert (by_name["x"].allocated, by_name["y"].allocated) == (4, 4)
    assert by_name["x"].weight == pytest.approx((100 / 130) / (4 / 8))
    assert by_name["y"].weight == pytest.approx((30 / 130) / (4 / 8))
    assert np.mean([c.weight for c in result.chosen]) == pytest.approx(1.0)


def test_feedback_takes_negative_queries_first():
    negatives = [0, 1, 0, 2, 0, 0, 3, 0, 0, 0]
    counts = [1] * 10
    strata, allocation, priority = strata_for("feedback", counts=counts, negatives=negatives)
    keys = [str(i) for i in range(10)]
    small = draw(
        keys=keys,
        counts=counts,
        strata=strata,
        n=2,
        allocation=allocation,
        seed=1,
        priority=priority,
    )
    assert {c.stratum for c in small.chosen} == {"negative"}
    large = draw(
        keys=keys,
        counts=counts,
        strata=strata,
        n=5,
        allocation=allocation,
        seed=1,
        priority=priority,
    )
    chosen = {int(keys[c.index]) for c in large.chosen}
    assert {1, 3, 6} <= chosen and len(chosen) == 5


def test_cluster_sampling_covers_every_intent():
    texts = (
        [f"how to parse json file {i}" for i in range(20)]
        + [f"asyncio gather tasks timeout {i}" for i in range(20)]
        + [f"regex named group match {i}" for i in range(20)]
    )
    labels, names = cluster_queries(texts, k=3, seed=0)
    assert len(set(labels[:20])) == len(set(labels[20:40])) == len(set(labels[40:])) == 1
    assert len(set(labels)) == 3 and len(names) == 3
    strata, allocation, _ = strata_for(
        "cluster", counts=[1] * 60, clusters=[str(x) for x in labels]
    )
    result = draw(keys=texts, counts=[1] * 60, strata=strata, n=6, allocation=allocation, seed=2)
    assert sorted(s.allocated for s in result.strata) == [2, 2, 2]


def test_uniform_draws_distinct_queries_without_replacement():
    keys = [f"q{i}" for i in range(50)]
    strata, allocation, _ = strata_for("uniform", counts=[1] * 50)
    result = draw(keys=keys, counts=[1] * 50, strata=strata, n=50, allocation=allocation, seed=9)
    assert sorted(c.index for c in result.chosen) == list(range(50))
    assert {c.weight for c in result.chosen} == {1.0}
