"""`goldsmith.reporting.build_report(corpus=...)` and `goldsmith.verdicts.assess(untouched=...)`:
a report that knows its golden set is stale (docs/design.md, "Corpus versions")."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith import bands, metrics, reporting, verdicts
from goldsmith.corpus import LiveChunk, text_sha256
from goldsmith.reporting import CorpusState, GoldItem, GoldJudgment, ResultRow, RunSettings

S = RunSettings(ks=(5,), headline=5, bootstrap_samples=50)
T = bands.targets_for("enterprise", {})


def item(q: str, judged: dict[str, int]) -> GoldItem:
    return GoldItem(
        q,
        f"query {q}",
        judgments=tuple(GoldJudgment(c, g, text=f"text {c}") for c, g in judged.items()),
    )


def live_of(ids: list[str], changed: tuple[str, ...] = ()) -> dict[str, LiveChunk]:
    out = {}
    for c in ids:
        text = f"new text {c}" if c in changed else f"text {c}"
        out[c] = LiveChunk(text_sha256(text), text)
    return out


ITEMS = [
    item("q1", {"a": 2, "b": 0}),
    item("q2", {"c": 2}),
    item("q3", {"d": 2, "e": 1}),
    item("q4", {"f": 0}),
]
ROWS = {
    "q1": ResultRow("q1", ("a", "b")),
    "q2": ResultRow("q2", ("x", "y")),
    "q3": ResultRow("q3", ("d", "e")),
    "q4": ResultRow("q4", ("f",)),
}


def test_the_report_says_what_the_update_did_first_with_its_figures():
    live = live_of(["a", "b", "d", "e", "f", "x", "y"], changed=("e",))  # c retired, e changed
    state = CorpusState(live=live, judged_on=3, ran_on=5, label="v1")
    report = reporting.build_report(ITEMS, ROWS, S, corpus=state)
    section = report["corpus"]
    assert section["stale"]
    assert section["touched"] == ["q2", "q3"]
    assert (
        section["relevant_total"],
        section["relevant_retired"],
        section["relevant_changed"],
    ) == (
        4,
        1,
        1,
    )
    assert section["words"][0] == (
        "1 of v1's 4 relevant chunks were retired and 1 changed since v1 was judged "
        "(corpus version 3 → 5)."
    )
    assert section["untouched"]["queries"] == 2
    assert section["untouched"]["aggregate"]["recall@5"]["n"] == 1  # q1 (q4 has no relevant)
    assert report["hints"][0]["rule"] == "rejudge_touched"


def test_an_unchanged_corpus_gives_exactly_the_report_without_it():
    live = live_of(["a", "b", "c", "d", "e", "f", "x", "y"])
    plain = reporting.build_report(ITEMS, ROWS, S)
    assert reporting.build_report(ITEMS, ROWS, S, corpus=CorpusState(live=live)) == plain


def test_a_retrieved_id_not_in_the_corpus_is_never_counted_as_unjudged():
    live = live_of(["a", "b", "c", "d", "e", "f"])  # x and y: not in the corpus
    plain = reporting.build_report(ITEMS, ROWS, S)
    report = reporting.build_report(ITEMS, ROWS, S, corpus=CorpusState(live=live))
    assert plain["unjudged_top_k"] == 2
    assert report["unjudged_top_k"] == 0
    assert report["corpus"]["not_in_corpus"]["count"] == 2
    assert not report["corpus"]["stale"]
    assert report["aggregate"]["judged@5"]["mean"] == 1.0
    assert plain["aggregate"]["judged@5"]["mean"] < 1.0


def test_a_file_of_ids_only_reports_retirement_and_not_changes():
    live = {c: LiveChunk("unknown") for c in ["a", "b", "d", "e", "f", "x", "y"]}
    report = reporting.build_report(ITEMS, ROWS, S, corpus=CorpusState(live=live, ids_only=True))
    assert report["corpus"]["touched"] == ["q2"]
    assert "chunk ids only" in report["corpus"]["words"][0]


def test_no_touched_query_reaches_the_verdict_and_a_fully_touched_set_is_not_judged():
    result = reporting.score(ITEMS, ROWS, S, metric_names=["recall@5", "pass@5", "judged@5"]).result
    out = verdicts.assess(result, k=5, targets=T, untouched={"q1", "q4"})
    v = out["verdict"]
    assert v["queries"] == 1 and v["basis"]["touched"] == 2
    assert v["verdict"] == "pass"
    nothing = verdicts.assess(result, k=5, targets=T, untouched={"q4"})["verdict"]
    assert nothing["verdict"] == "unjudged"


def test_a_verdict_on_few_judgments_is_not_enough_judgments():
    rows = {q: ResultRow(q, (*r.ids, "u1", "u2", "u3")) for q, r in ROWS.items()}
    result = reporting.score(ITEMS, rows, S, metric_names=["recall@5", "pass@5", "judged@5"]).result
    v = verdicts.verdict_report(result, 5, T)
    assert v["verdict"] == "unjudged"
    assert v["summary"].startswith("Not enough judgments: judged@5 is 0.27, under 0.80")
    assert verdicts.worse_or_equal("unjudged", "warn")
    assert not verdicts.worse_or_equal("unjudged", "fail")


def test_a_verdict_warns_when_more_than_a_fifth_is_left_out_and_names_them():
    result = reporting.score(ITEMS, ROWS, S, metric_names=["recall@5", "pass@5"]).result
    v = verdicts.verdict_report(result, 5, T)
    assert v["basis"]["warning"]  # q4 has no relevant chunk: 1 of 4 = 25 %
    words = verdicts.basis_words(v["basis"])
    assert words[0] == "The verdict rests on 3 of the golden set's 4 queries."
    assert words[2] == "1 without a relevant chunk: q4"


def test_drift_compares_only_the_queries_untouched_in_both_runs():
    result = reporting.score(ITEMS, ROWS, S, metric_names=["recall@5", "pass@5"]).result
    worse = reporting.score(
        ITEMS, {**ROWS, "q3": ResultRow("q3", ("z",))}, S, metric_names=["recall@5", "pass@5"]
    ).result
    fired = verdicts.assess(worse, k=5, targets=T, baseline=result)["drift"]["fired"]
    assert any(f["rule"] == "max_recall_drop" for f in fired)
    out = verdicts.assess(
        worse, k=5, targets=T, baseline=result, untouched={"q1", "q2", "q4"},
        baseline_untouched={"q1", "q3", "q4"},
    )  # fmt: skip
    assert out["drift"]["fired"] == []
    assert out["drift"]["untouched_queries"] == 2


ids = st.sampled_from([f"c{i}" for i in range(8)])
golden = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(6)]),
    st.dictionaries(ids, st.integers(0, 2), min_size=1, max_size=4),
    min_size=1,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(golden, st.data())
def test_untouched_figures_equal_a_report_on_the_golden_set_restricted_to_them(gold, data):
    items = [item(q, j) for q, j in sorted(gold.items())]
    rows = {q: ResultRow(q, tuple(data.draw(st.lists(ids, max_size=6, unique=True)))) for q in gold}
    alive = data.draw(st.sets(ids))
    changed = tuple(data.draw(st.sets(st.sampled_from(sorted(alive)) if alive else st.nothing())))
    live = live_of(sorted(alive | {c for r in rows.values() for c in r.ids}), changed)
    report = reporting.build_report(items, rows, S, corpus=CorpusState(live=live))
    section = report.get("corpus")
    if section is None:  # every retrieved id live, nothing touched: today's report exactly
        assert report == reporting.build_report(items, rows, S)
        return
    if not section["stale"]:
        return
    kept = [i for i in items if i.query_id not in set(section["touched"])]
    alone = reporting.build_report(kept, rows, S)
    assert section["untouched"]["aggregate"] == alone["aggregate"]
    result = reporting.score(items, rows, S, metric_names=["recall@5", "pass@5"]).result
    v = verdicts.verdict_report(result, 5, T, untouched=set(gold) - set(section["touched"]))
    restricted = metrics.restrict(result, set(gold) - set(section["touched"]))
    assert set(v["basis"]["named"]["touched"]) <= set(section["touched"])
    assert v["queries"] == int(restricted.included.sum())


def test_the_verdict_names_the_queries_left_out_as_a_reader_counts_them():
    from goldsmith.text import id_order

    ids = ["13", "6", "q10", "q2", "8", "1"]
    assert sorted(ids, key=id_order) == ["1", "6", "8", "13", "q2", "q10"]
