"""`goldsmith eval --corpus` counts the retrieved ids that are not in the corpus as the app's
report does (issue 21 §5): per query, the ids of its top K, in the order the run is scored in
(its ranks, or by score with trec_eval's tie rule), that are no live chunk; they are counted
apart and left out of judged@K, never counted as unjudged.

The property: for any golden set, run and corpus (ids of any length and script, ties in scores
and ranks, repeated ids, empty rankings, unjudged ids, ids outside the corpus, retired and
changed chunks), the JSON corpus section of `goldsmith eval` and its judged@K equal what
`reporting.build_report` gives the app for the same lists, and the counts equal a plain
statement of the rule. A worked example runs the real command line."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith import reporting as R
from goldsmith.cli import main
from goldsmith.corpus import LiveChunk, text_sha256
from goldsmith.formats import goldset as F
from tests.goldset_files import goldset_text

# Printable characters that are not white space (TREC files split on white space): letters of
# every script, marks, digits, punctuation and symbols; CJK drawn on purpose, often.
_printable = st.characters(codec="utf-8", categories=("L", "M", "N", "P", "S"))
_cjk = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
ident = st.text(st.one_of(_printable, _cjk), min_size=1, max_size=200)
query_ident = ident.filter(lambda q: not q.startswith("#"))  # '#' opens a TREC comment line
SCORES = (0.0, 0.25, 0.5, 1.0, 1.00000001)  # the last two tie in trec_eval's 32 bits
BOOTSTRAP = 20


@st.composite
def cases(draw: st.DrawFn) -> dict:
    pool = draw(st.lists(ident, min_size=1, max_size=14, unique=True))
    qids = draw(st.lists(query_ident, min_size=1, max_size=5, unique=True))
    level = draw(st.sampled_from((1, 2)))
    judged: dict[str, dict[str, int]] = {}
    for q in qids:
        chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6, unique=True))
        judged[q] = {c: draw(st.integers(0, 3)) for c in chosen}
    run: dict[str, list[tuple[str, float, int]]] = {}  # (id, score, rank) in file order
    for q in [*qids, "not-judged"]:
        if draw(st.booleans()) and q != qids[0]:
            continue  # missing from the run (the first query is always there)
        # Repeats allowed; an empty list (a TREC run cannot hold one: the query is missing)
        # only after the first, so that the run always shares a query with the qrels.
        listed = draw(st.lists(st.sampled_from(pool), min_size=q == qids[0], max_size=14))
        run[q] = [(c, draw(st.sampled_from(SCORES)), draw(st.integers(1, 6))) for c in listed]
    live = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))  # a file holds one
    changed = draw(st.lists(st.sampled_from(pool), unique=True))
    return {
        "judged": judged,
        "run": run,
        "live": live,
        "changed": set(changed),
        "level": level,
        "k": draw(st.integers(1, 6)),
        "deeper": draw(st.integers(0, 6)),
        "order": draw(st.sampled_from(("rank", "score"))),
        "qrels_format": draw(st.sampled_from(("goldset", "trec"))),
        "run_format": draw(st.sampled_from(("jsonl", "trec"))),
        "corpus_format": draw(st.sampled_from(("chunks", "ids"))),
    }


def text_of(chunk_id: str) -> str:
    return f"the text of {chunk_id}"


def write_files(case: dict, folder: Path) -> list[str]:
    judged, run = case["judged"], case["run"]
    if case["qrels_format"] == "goldset":
        queries = [
            F.GoldenQuery(
                q,
                f"question {q}",
                tuple(F.GoldJudgment(c, g, text=text_of(c)) for c, g in graded.items()),
            )
            for q, graded in judged.items()
        ]
        (folder / "gold.jsonl").write_text(goldset_text("p", "v1", queries), encoding="utf-8")
        qrels = folder / "gold.jsonl"
    else:
        qrels = folder / "qrels.txt"
        qrels.write_text(
            "".join(f"{q} 0 {c} {g}\n" for q, graded in judged.items() for c, g in graded.items()),
            encoding="utf-8",
        )
    if case["run_format"] == "jsonl":
        run_file = folder / "run.jsonl"
        lines = [
            {"query_id": q, "results": [{"id": c, "score": s} for c, s, _ in listed]}
            for q, listed in run.items()
        ]
        run_file.write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
            encoding="utf-8",
        )
    else:
        run_file = folder / "run.txt"
        run_file.write_text(
            "".join(f"{q} Q0 {c} {r} {s!r} t\n" for q, ls in run.items() for c, s, r in ls),
            encoding="utf-8",
        )
    if case["corpus_format"] == "chunks":
        corpus = folder / "corpus.jsonl"
        corpus.write_text(
            "".join(
                json.dumps({"id": c, "doc_id": "d", "text": live_text(case, c)}, ensure_ascii=False)
                + "\n"
                for c in case["live"]
            ),
            encoding="utf-8",
        )
    else:
        corpus = folder / "live-ids.txt"
        corpus.write_text("".join(f"{c}\n" for c in case["live"]), encoding="utf-8")
    return [str(qrels), str(run_file), str(corpus)]


def live_text(case: dict, chunk_id: str) -> str:
    return f"new {text_of(chunk_id)}" if chunk_id in case["changed"] else text_of(chunk_id)


def scored_order(case: dict, listed: list[tuple[str, float, int]]) -> list[str]:
    """The list as `goldsmith eval` scores it, stated plainly: by rank then file order, or by
    score held in 32 bits, descending, ties by id descending bytewise (trec_eval)."""
    if case["order"] == "rank":
        ranks = [r for _, _, r in listed] if case["run_format"] == "trec" else range(len(listed))
        return [c for _, (c, _, _) in sorted(zip(ranks, listed, strict=True), key=lambda x: x[0])]
    by_id = sorted(listed, key=lambda x: x[0].encode("utf-8"), reverse=True)
    return [c for c, _, _ in sorted(by_id, key=lambda x: -float(np.float32(x[1])))]


def app_report(case: dict) -> dict:
    """`reporting.build_report` on the same golden set, lists and corpus, as the app calls it."""
    goldset = case["qrels_format"] == "goldset"
    order = sorted(case["judged"]) if goldset else list(case["judged"])  # the file's order
    items = [
        R.GoldItem(
            q,
            f"question {q}" if goldset else "",
            judgments=tuple(
                R.GoldJudgment(c, g, text=text_of(c) if goldset else None)
                for c, g in case["judged"][q].items()
            ),
        )
        for q in order
    ]
    rows = {q: R.ResultRow(q, tuple(scored_order(case, ls))) for q, ls in case["run"].items()}
    if case["corpus_format"] == "chunks":
        live = {
            c: LiveChunk(text_sha256(live_text(case, c)), live_text(case, c)) for c in case["live"]
        }
        state = R.CorpusState(live=live, label="v1" if goldset else "the golden set")
    else:
        live = {c: LiveChunk("") for c in case["live"]}
        state = R.CorpusState(live=live, ids_only=True, label="v1" if goldset else "the golden set")
    ks = (case["k"], case["k"] + case["deeper"])
    s = R.RunSettings(
        ks=ks,
        headline=case["k"],
        relevance_threshold=case["level"],
        bootstrap_samples=BOOTSTRAP,
        seed=0,
    )
    return R.build_report(items, rows, s, corpus=state)


def cli_report(case: dict, files: list[str]) -> dict:
    k, deeper = case["k"], case["k"] + case["deeper"]
    metrics = [f"recall@{k}", f"ndcg@{k}", f"judged@{k}", f"judged@{deeper}"]
    argv = ["eval", files[0], files[1], "-m", *metrics, "--corpus", files[2], "--format", "json"]
    argv += ["--per-query", "--order", case["order"], "--relevance-level", str(case["level"])]
    argv += ["--bootstrap", str(BOOTSTRAP), "--seed", "0"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


def plainly(case: dict) -> tuple[dict[str, list[str]], dict[str, dict[int, float]]]:
    """The rule as stated: each query's top k (first copies) ids that are not live, and
    judged@K = judged in the top min(K, n) / (min(K, n) - the unjudged ids among them that are
    not live), at every K, the headline's and deeper ones; 0 when nothing was returned, 1 when
    every id is outside."""
    live, k = set(case["live"]), case["k"]
    lists = {
        q: list(dict.fromkeys(scored_order(case, ls)))
        for q, ls in case["run"].items()
        if q in case["judged"]
    }
    outside = {q: [c for c in ids[:k] if c not in live] for q, ids in lists.items()}
    outside = {q: ids for q, ids in outside.items() if ids}
    judged_at: dict[str, dict[int, float]] = {}
    for q, ids in lists.items():
        graded = case["judged"][q]
        judged_at[q] = {}
        for cut in {k, k + case["deeper"]}:
            top = ids[:cut]
            shown = len(top) - sum(1 for c in top if c not in graded and c not in live)
            judged = sum(1 for c in top if c in graded)
            judged_at[q][cut] = 0.0 if not top else (judged / shown if shown else 1.0)
    return outside, judged_at


def without_means(section: dict) -> dict:
    return {**section, "untouched": {**section["untouched"], "aggregate": None}}


def has_a_figure(case: dict) -> bool:
    """`goldsmith eval` refuses qrels where nothing reaches the level, and a run sharing no
    query with them (bad input, exit 2): such cases say nothing here."""
    return any(g >= case["level"] for graded in case["judged"].values() for g in graded.values())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_the_corpus_section_and_judged_at_k_equal_the_apps_report(case):
    if not has_a_figure(case):
        return
    with tempfile.TemporaryDirectory() as folder:
        cli = cli_report(case, write_files(case, Path(folder)))
    app = app_report(case)
    k, deeper = case["k"], case["k"] + case["deeper"]
    for m in (f"recall@{k}", f"ndcg@{k}", f"judged@{k}", f"judged@{deeper}"):
        assert cli["aggregate"][m] == app["aggregate"][m], m
    outside, judged_at = plainly(case)
    section = cli["corpus"]
    assert section["not_in_corpus"]["count"] == sum(len(ids) for ids in outside.values())
    assert section["not_in_corpus"]["queries"] == len(outside)
    assert (
        section["not_in_corpus"]["examples"]
        == sorted({c for v in outside.values() for c in v})[:10]
    )
    if "corpus" in app:
        # The app's part has every metric of its run; the command's, the metrics asked for.
        theirs = app["corpus"]
        shared = set(section["untouched"]["aggregate"])
        assert shared <= set(theirs["untouched"]["aggregate"])
        for m in shared:
            assert section["untouched"]["aggregate"][m] == theirs["untouched"]["aggregate"][m], m
        assert without_means(section) == without_means(theirs)
    else:  # the app adds the part only when the golden set is stale or an id is outside
        assert not section["stale"] and section["not_in_corpus"]["count"] == 0
    for q, values in cli["per_query"].items():
        if q in judged_at:
            for cut, value in judged_at[q].items():
                assert values[f"judged@{cut}"] == pytest.approx(value, abs=1e-12), (q, cut)


# A worked example through the real command line. Live chunks: a, b, c, d, y. q1's list by score
# is x, a (1.0, tied: x > a), y, b (0.5, tied: y > b), z: x and z are outside the corpus, a and
# b judged, so judged@5 = 2 / (5 - 2). q2 retrieves 東京 (outside) after d: 1 / (2 - 1). q3's
# relevant chunk e was retired: q3 is touched, and e, retrieved, is outside but judged: 1 / 1.
QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 d 2\nq3 0 e 2\n"
RUN = (
    "q1 Q0 a 1 1.0 t\nq1 Q0 x 2 1.0 t\nq1 Q0 b 3 0.5 t\nq1 Q0 y 4 0.5 t\nq1 Q0 z 5 0.2 t\n"
    "q2 Q0 d 1 3.0 t\nq2 Q0 東京 2 2.0 t\n"
    "q3 Q0 e 1 1.0 t\n"
)


def test_goldsmith_eval_counts_the_ids_outside_the_corpus_on_the_command_line(tmp_path: Path):
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run.txt").write_text(RUN, encoding="utf-8")
    (tmp_path / "live.txt").write_text("a\nb\nc\nd\ny\n", encoding="utf-8")
    argv = [sys.executable, "-m", "goldsmith.cli", "eval", "qrels.txt", "run.txt"]
    argv += ["-m", "recall@5", "judged@5", "--order", "score", "--format", "json"]
    plain = json.loads(subprocess.run(argv, cwd=tmp_path, capture_output=True, check=True).stdout)
    done = subprocess.run([*argv, "--corpus", "live.txt"], cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert plain["aggregate"]["judged@5"]["mean"] == pytest.approx((2 / 5 + 1 / 2 + 1) / 3)
    assert doc["aggregate"]["judged@5"]["mean"] == pytest.approx((2 / 3 + 1 + 1) / 3)
    assert doc["corpus"]["not_in_corpus"] == {
        "count": 4,
        "queries": 3,
        "examples": ["e", "x", "z", "東京"],
    }
    assert doc["corpus"]["touched"] == ["q3"]
    assert doc["corpus"]["words"][-1] == (
        "4 retrieved ids in the top 5 are not in the corpus (e.g. e, x, z, 東京): they are "
        "counted apart, not as unjudged."
    )
    assert doc["corpus"]["untouched"]["aggregate"]["judged@5"]["mean"] == pytest.approx(
        (2 / 3 + 1) / 2
    )
    # The app's report on the same lists, in the order trec_eval gives them, says the same.
    items = [
        R.GoldItem(
            "q1",
            "",
            judgments=(R.GoldJudgment("a", 2), R.GoldJudgment("b", 0), R.GoldJudgment("c", 1)),
        ),
        R.GoldItem("q2", "", judgments=(R.GoldJudgment("d", 2),)),
        R.GoldItem("q3", "", judgments=(R.GoldJudgment("e", 2),)),
    ]
    rows = {
        "q1": R.ResultRow("q1", ("x", "a", "y", "b", "z")),
        "q2": R.ResultRow("q2", ("d", "東京")),
        "q3": R.ResultRow("q3", ("e",)),
    }
    state = R.CorpusState(
        live={c: LiveChunk("") for c in "abcdy"}, ids_only=True, label="the golden set"
    )
    s = R.RunSettings(ks=(5,), headline=5, bootstrap_samples=1000, seed=0)
    app = R.build_report(items, rows, s, corpus=state)
    assert without_means(doc["corpus"]) == without_means(app["corpus"])
    for m in ("recall@5", "judged@5"):
        assert (
            doc["corpus"]["untouched"]["aggregate"][m] == app["corpus"]["untouched"]["aggregate"][m]
        )
    assert doc["aggregate"]["judged@5"] == app["aggregate"]["judged@5"]
