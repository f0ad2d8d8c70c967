"""The judging order (goldsmith.judging_order) on small hand-made pools: the candidates the
sources agree on come first, the order follows a source that keeps yielding relevant chunks,
priors from resolved queries move a good source forward, and the plain orders a benchmark
compares do what their definitions say."""

from __future__ import annotations

from goldsmith import judging_order as jo


def pool(ranks: dict[str, dict[str, int]], qid: str = "q") -> jo.PooledQuery:
    return jo.PooledQuery(qid, tuple(ranks), ranks)


# Two sources, A and B; "top" is ranked first by both.
TWO = pool(
    {
        "a3": {"A": 3},
        "top": {"A": 1, "B": 1},
        "b2": {"B": 2},
        "a2": {"A": 2},
        "b3": {"B": 3},
        "none": {},
    }
)


def test_a_candidate_every_source_ranks_first_is_judged_first():
    order = jo.judging_order(TWO, {}, jo.SourcePriors())
    assert order[0] == "top"
    assert order[-1] == "none"  # no source returned it
    assert sorted(order) == sorted(TWO.candidates)


def test_judged_candidates_leave_the_order():
    order = jo.judging_order(TWO, {"top": 2, "a2": 0}, jo.SourcePriors())
    assert "top" not in order and "a2" not in order and len(order) == 4


def test_a_source_that_yields_relevant_chunks_gets_its_next_chunks_earlier():
    before = jo.judging_order(TWO, {"top": 2}, jo.SourcePriors())
    # A's second chunk was not relevant, B's was: B's third now comes before A's third.
    after = jo.judging_order(TWO, {"top": 2, "a2": 0, "b2": 2}, jo.SourcePriors())
    assert after.index("b3") < after.index("a3")
    after = jo.judging_order(TWO, {"top": 2, "a2": 2, "b2": 0}, jo.SourcePriors())
    assert after.index("a3") < after.index("b3")
    assert set(before) >= set(after)


def test_resolved_queries_teach_which_source_has_been_good():
    # On resolved queries only A's chunks were relevant; B's never.
    resolved = []
    for i in range(8):
        p = pool({f"a{i}": {"A": 1}, f"b{i}": {"B": 1}, f"x{i}": {"A": 5, "B": 5}}, qid=f"r{i}")
        resolved.append(jo.ResolvedQuery(p, {f"a{i}": 2, f"b{i}": 0, f"x{i}": 0}))
    priors = jo.priors_from_resolved(resolved)
    assert priors.queries == 8 and priors.candidates == 24
    assert priors.sources["A"] > priors.sources["B"]
    fresh = pool({"b": {"B": 1}, "a": {"A": 1}})
    assert jo.judging_order(fresh, {}, jo.SourcePriors()) == ["b", "a"]  # a tie: plain order
    assert jo.judging_order(fresh, {}, priors) == ["a", "b"]


def test_unjudged_candidates_of_a_resolved_query_teach_nothing():
    p = pool({"a": {"A": 1}, "b": {"B": 1}})
    assert jo.priors_from_resolved([jo.ResolvedQuery(p, {})]).candidates == 0
    assert jo.priors_from_resolved([]) == jo.SourcePriors()


def test_round_robin_takes_every_sources_rank_one_then_rank_two():
    assert jo.round_robin_order(TWO) == ["top", "a2", "b2", "a3", "b3", "none"]


def test_fusion_sums_reciprocal_ranks():
    assert jo.fusion_order(TWO)[:1] == ["top"]
    assert jo.fusion_order(TWO)[-1] == "none"


def test_move_to_front_stays_on_a_source_while_it_yields_relevant_chunks():
    grades = {"top": 2, "a2": 0, "b2": 2, "b3": 2, "a3": 0, "none": 0}
    # A first (by name): top relevant, stays; a2 not relevant, A to the back; B: b2, b3.
    order = jo.move_to_front_order(TWO, grades.__getitem__)
    assert order == ["top", "a2", "b2", "b3", "a3", "none"]


def test_maxmean_asks_the_source_with_the_best_mean_next():
    grades = {"top": 2, "a2": 0, "b2": 2, "b3": 2, "a3": 0, "none": 0}
    # After top (both means 2/3) and a2 from A (A: 2/4), B (2/3) leads.
    order = jo.maxmean_order(TWO, grades.__getitem__)
    assert order == ["top", "a2", "b2", "b3", "a3", "none"]
    grades["b2"] = 0
    order = jo.maxmean_order(TWO, grades.__getitem__)
    assert order[:3] == ["top", "a2", "b2"] and sorted(order) == sorted(TWO.candidates)


def test_goldsmiths_order_followed_to_the_end_judges_every_candidate_once():
    grades = {"top": 2, "a2": 0, "b2": 2, "b3": 2, "a3": 0, "none": 1}
    order = jo.goldsmith_order(TWO, grades.__getitem__, jo.SourcePriors())
    assert sorted(order) == sorted(TWO.candidates)
    assert order[0] == "top"


def test_a_pool_that_names_a_grade_for_a_stranger_is_refused():
    try:
        jo.judging_order(TWO, {"elsewhere": 2}, jo.SourcePriors())
    except ValueError as error:
        assert "elsewhere" in str(error)
    else:
        raise AssertionError("a grade outside the pool was accepted")


# Four candidates no source tells apart (each one source's rank 1), two about shock waves and
# two about pasta: which pair comes next depends on what this annotator found relevant.
ALIKE = jo.PooledQuery(
    "q",
    ("pasta1", "shock1", "pasta2", "shock2"),
    {c: {s: 1} for c, s in zip(("pasta1", "shock1", "pasta2", "shock2"), "ABCD", strict=True)},
    {
        "pasta1": "fresh pasta with a tomato sauce",
        "shock1": "a shock wave meets the boundary layer of a wing",
        "pasta2": "tomato sauce for dried pasta, slowly cooked",
        "shock2": "boundary layer separation behind a shock wave",
    },
)


def test_a_candidate_like_the_relevant_ones_found_is_judged_next():
    # Before any grade the sources cannot tell them apart: the plain order.
    assert jo.judging_order(ALIKE, {}, jo.SourcePriors()) == list(ALIKE.candidates)
    assert jo.judging_order(ALIKE, {"shock1": 2}, jo.SourcePriors())[0] == "shock2"
    assert jo.judging_order(ALIKE, {"pasta2": 1}, jo.SourcePriors())[0] == "pasta1"
    # A candidate graded not relevant pulls nothing forward; without texts nothing moves.
    assert jo.judging_order(ALIKE, {"pasta1": 0}, jo.SourcePriors())[0] == "shock1"
    bare = jo.PooledQuery("q", ALIKE.candidates, ALIKE.ranks)
    assert jo.judging_order(bare, {"shock1": 2}, jo.SourcePriors())[0] == "pasta1"


def test_likeness_reads_words_and_chinese_character_bigrams():
    assert jo.terms("Shock-waves at Mach 2.5, 3d") == ["shock", "waves", "at", "mach"]
    assert jo.terms("退款流程 refund 慢") == ["退款", "款流", "流程", "refund", "慢"]
    sim = jo.similarities(["退款流程很慢", "退款的流程", "物流查询", ""])
    assert sim[0, 1] > 0 and sim[0, 2] == 0 and sim[0, 3] == 0 and sim[3, 3] == 0
    assert sim[0, 1] == sim[1, 0] and sim[0, 0] == 0
