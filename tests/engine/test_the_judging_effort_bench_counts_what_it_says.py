"""`bench/judging_effort_bench.py` on small cases, so that its figures in docs/benchmarks.md
("Judging effort") can be trusted: judgments needed are counted per query as stated, a pool is
the union of the systems' top lists in the app's shuffle order, and CISI's citation lines never
reach a document's text."""

from __future__ import annotations

import json
import re

from bench import judging_effort_bench as bench
from tests.conftest import require_shared_data


def test_judgments_needed_count_until_the_ceiling_of_the_share_is_found():
    grades = {"a": 0, "b": 2, "c": 0, "d": 1, "e": 2}
    order = ["a", "b", "c", "d", "e"]
    assert bench.needed(order, grades, 50, 1) == 4  # ⌈1.5⌉ = 2 relevant: b (2nd), d (4th)
    assert bench.needed(order, grades, 100, 1) == 5
    assert bench.needed(order, grades, 100, 2) == 5
    assert bench.needed(order, {"a": 0}, 95, 1) == 0  # nothing relevant: nothing needed


def test_a_pool_is_the_union_of_the_systems_lists_in_the_apps_shuffle_order():
    col = bench.Collection("t", [], [], [("7", "x")], {"7": {}})
    runs = {s: {"7": ["d1", "d2"]} for s in bench.SYSTEMS}
    runs["ql"] = {"7": ["d3", "d1"]}
    (p,) = bench.pools(col, runs)
    assert set(p.candidates) == {"d1", "d2", "d3"}
    assert list(p.candidates) == sorted(p.candidates, key=lambda d: bench.shuffle_key("7", d))
    assert p.ranks["d1"]["ql"] == 2 and p.ranks["d1"]["bm25"] == 1 and "ql" not in p.ranks["d2"]
    # The documents' texts go with the pool, for the order's relevance feedback.
    docs = [("d1", "shock wave"), ("d2", "boundary layer"), ("d3", "wing"), ("d9", "unpooled")]
    (p,) = bench.pools(bench.Collection("t", docs, [], [("7", "x")], {"7": {}}), runs)
    assert p.texts == {"d1": "shock wave", "d2": "boundary layer", "d3": "wing"}


def test_cisi_documents_leave_their_citation_lines_out():
    col = bench.cisi(require_shared_data("cisi"))
    assert len(col.docs) == 1460 and len(col.queries) == 76
    assert sum(len(v) for v in col.truth.values()) == 3114
    assert not any(".X" in text for _, text in col.docs)
    # A citation line is "docid count docid", tab-separated: no run of such numbers is left.
    assert not any(re.search(r"\d+\t\d+\t\d+", text) for _, text in col.docs)


def test_the_json_output_is_the_one_object_the_issue_specifies(capsys, monkeypatch):
    """`--format json` prints `{"cranfield": C, "cisi": C}` and nothing else, each C with the
    pool's size, its relevant count, every order's judgments at 50/80/90/95/100 % and the
    stopping rule's four figures (here on each collection's first 4 queries)."""
    data = require_shared_data("cranfield").parent
    require_shared_data("cisi")
    monkeypatch.setenv("GOLDSMITH_SHARED_DATA", str(data))
    assert bench.main(["--format", "json", "--queries", "4", "--random-seeds", "2"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"cranfield", "cisi"}
    for c in result.values():
        assert set(c) == {"pool_judgments", "relevant_in_pool", "orders", "stopping"}
        assert isinstance(c["pool_judgments"], int) and c["pool_judgments"] > 0
        assert isinstance(c["relevant_in_pool"], int) and c["relevant_in_pool"] > 0
        assert set(c["orders"]) == {
            "random",
            "plain",
            "round_robin",
            "fusion",
            "move_to_front",
            "maxmean",
            "goldsmith",
        }
        for needed in c["orders"].values():
            assert list(needed) == ["50", "80", "90", "95", "100"]
            counts = list(needed.values())
            assert all(isinstance(n, int) for n in counts)
            assert counts == sorted(counts) and counts[-1] <= c["pool_judgments"]
        stop = c["stopping"]
        assert set(stop) == {"judgments_saved", "queries_below_95", "tau_ndcg10", "tau_map"}
        assert 0 <= stop["judgments_saved"] < 1 and 0 <= stop["queries_below_95"] <= 1
        assert all(-1 <= stop[t] <= 1 for t in ("tau_ndcg10", "tau_map"))
