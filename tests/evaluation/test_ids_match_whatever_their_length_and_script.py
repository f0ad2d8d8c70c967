"""Two ids match when they are the same string: whatever their length, their script, or the
length of any other id in the same files.

The defect this guards against: ids were hashed in 8-byte words including the NUL padding of
the numpy array that held them, so `abc` in a file whose longest id was 3 bytes and `abc` in a
file whose longest id was 10 bytes hashed apart. One long unjudged id in one query then zeroed
every query of the run. These tests go through every reader (TREC and JSONL files, the
in-memory mappings) and compare with pytrec_eval, the trusted peer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from goldsmith.formats import trec
from goldsmith.formats.detect import read_qrels, read_run
from tests.conftest import require_shared_data

CUTS = (1, 3, 5, 10)
# Our name -> pytrec_eval's measure, for every measure both compute.
PEER = {"map": "map", "r_precision": "Rprec", "mrr": "recip_rank", "ndcg": "ndcg"}
for _k in CUTS:
    PEER |= {f"precision@{_k}": f"P_{_k}", f"recall@{_k}": f"recall_{_k}"}
    PEER |= {f"ndcg@{_k}": f"ndcg_cut_{_k}", f"map@{_k}": f"map_cut_{_k}"}
PEER |= {f"hit@{k}": f"success_{k}" for k in (1, 5, 10)}
_KS = ",".join(map(str, CUTS))
PEER_MEASURES = {"map", "Rprec", "recip_rank", "ndcg", f"P.{_KS}", f"recall.{_KS}"}
PEER_MEASURES |= {f"ndcg_cut.{_KS}", f"map_cut.{_KS}", "success.1,5,10"}
OURS = list(PEER)
GOLDSMITH_EVAL = [sys.executable, "-m", "goldsmith.cli", "eval", "--format", "json", "--per-query"]
ALL = [*OURS, *(f"judged@{k}" for k in CUTS), *(f"pass@{k}" for k in CUTS)]

# Printable characters that are not white space (TREC files split on white space): letters of
# every script, marks, digits, punctuation and symbols; CJK drawn on purpose, often.
_printable = st.characters(codec="utf-8", categories=("L", "M", "N", "P", "S"))
_cjk = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
ident = st.text(st.one_of(_printable, _cjk), min_size=1, max_size=200)
short_ident = st.text(st.one_of(_printable, _cjk), min_size=1, max_size=12)


@st.composite
def workloads(draw: st.DrawFn, ids: st.SearchStrategy[str] = ident) -> tuple[dict, dict]:
    """Judgments {q: {id: grade}} and a scored run {q: {id: score}} over ids of any length;
    coarse scores, so that ties (and trec_eval's tie rule) are common."""
    pool = draw(st.lists(ids, min_size=1, max_size=25, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(draw(st.integers(1, 5))):
        judged = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=10, unique=True))
        # Grades 0-3: trec_eval's ndcg can loop for ever on some lists of negative grades
        # (seen with pytrec_eval 0.5.11); negative grades are compared in test_metrics_trec_eval.
        qrels[f"q{q}"] = {d: draw(st.integers(0, 3)) for d in judged}
        ranked = draw(st.lists(st.sampled_from(pool), max_size=15, unique=True))
        if ranked:
            run[f"q{q}"] = {d: draw(st.integers(0, 4)) / 4 for d in ranked}
    return qrels, run


def pytrec(qrels: dict, run: dict, level: int) -> dict[str, dict[str, float]]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PEER_MEASURES, relevance_level=level)
    return evaluator.evaluate(run)


def assert_equals_peer(result: M.EvalResult, peer: dict[str, dict[str, float]]) -> None:
    ours = result.per_query()
    for q, vals in peer.items():
        for metric, measure in PEER.items():
            assert ours[q][metric] == pytest.approx(vals[measure], abs=1e-9), (q, metric)


def scoring(level: int) -> M.EvalSettings:
    return M.EvalSettings(relevance_threshold=level, order="score", no_relevant="zero")


def write_trec(tmp: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    qrels_path, run_path = tmp / "qrels.txt", tmp / "run.txt"
    with qrels_path.open("w", encoding="utf-8") as f:
        for q, docs in qrels.items():
            for d, g in docs.items():
                f.write(f"{q} 0 {d} {g}\n")
    with run_path.open("w", encoding="utf-8") as f:
        for q, docs in run.items():
            for rank, (d, s) in enumerate(docs.items(), 1):
                f.write(f"{q} Q0 {d} {rank} {s} test\n")
    return qrels_path, run_path


def write_jsonl(tmp: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    qrels_path, run_path = tmp / "qrels.jsonl", tmp / "run.jsonl"
    with qrels_path.open("w", encoding="utf-8") as f:
        for q, docs in qrels.items():
            judgments = [{"id": d, "grade": g} for d, g in docs.items()]
            f.write(json.dumps({"query_id": q, "judgments": judgments}, ensure_ascii=False))
            f.write("\n")
    with run_path.open("w", encoding="utf-8") as f:
        for q, docs in run.items():
            results = [{"id": d, "score": s} for d, s in docs.items()]
            f.write(json.dumps({"query_id": q, "results": results}, ensure_ascii=False) + "\n")
    return qrels_path, run_path


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """TREC files are parsed in blocks of lines, each block in an array as wide as its own
    longest id. Tiny blocks make every file span many blocks of different widths."""
    monkeypatch.setattr(trec, "_BLOCK", 64)


# --------------------------------------------------------------------------------------------
# The defect as it was reported


@pytest.mark.parametrize("other", ["xyz", "abcdefghij", "x" * 200, "长文档编号" * 12])
def test_a_judged_id_matches_whatever_the_other_ids_of_the_run_are(tmp_path, other):
    (tmp_path / "qrels.txt").write_text("q1 0 abc 2\n")
    (tmp_path / "run.txt").write_text(f"q1 Q0 abc 1 2.0 r\nq1 Q0 {other} 2 1.0 r\n")
    result = M.evaluate(
        read_qrels(tmp_path / "qrels.txt"),
        read_run(tmp_path / "run.txt"),
        ["recall@2", "mrr"],
    )
    assert result.per_query()["q1"] == {"recall@2": 1.0, "mrr": 1.0}


def test_one_long_unjudged_id_in_another_query_changes_no_query(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 abc 2\nq2 0 def 2\n")
    (tmp_path / "run.txt").write_text(
        "q1 Q0 abc 1 2.0 r\nq2 Q0 def 1 2.0 r\nq2 Q0 " + "u" * 64 + " 2 1.0 r\n"
    )
    cli = subprocess.run(
        [
            *GOLDSMITH_EVAL,
            str(tmp_path / "qrels.txt"),
            str(tmp_path / "run.txt"),
            "-m",
            "recall@10",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(cli.stdout)
    assert doc["aggregate"]["recall@10"]["mean"] == 1.0
    assert {q: v["recall@10"] for q, v in doc["per_query"].items()} == {"q1": 1.0, "q2": 1.0}


def test_the_hash_of_an_id_does_not_depend_on_the_array_holding_it():
    import numpy as np

    ids = [b"", b"a", b"abc", b"abcdefgh", b"abcdefghi", "检索".encode(), b"x" * 200]
    alone = [int(M.id_hash(np.array([i], dtype=np.bytes_))[0]) for i in ids]
    for width in (1, 7, 8, 9, 16, 64, 201, 256):
        wide = np.array(ids, dtype=f"S{max(width, 200)}")
        assert M.id_hash(wide).tolist() == alone
    assert len(set(alone)) == len(alone)


# --------------------------------------------------------------------------------------------
# Properties, against the trusted peer


@given(workloads(), st.sampled_from([1, 2]))
@settings(max_examples=150, deadline=None)
def test_ids_of_any_length_and_script_score_as_in_pytrec_eval(w, level):
    qrels, run = w
    result = M.evaluate(qrels, {q: list(d.items()) for q, d in run.items()}, OURS, scoring(level))
    assert_equals_peer(result, pytrec(qrels, run, level))


@given(w=workloads(), level=st.sampled_from([1, 2]), fmt=st.sampled_from(["trec", "jsonl"]))
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_files_of_any_ids_score_as_in_pytrec_eval(tmp_path, tiny_blocks, w, level, fmt):
    qrels, run = w
    writer = write_trec if fmt == "trec" else write_jsonl
    qrels_path, run_path = writer(tmp_path, qrels, run)
    result = M.evaluate(read_qrels(qrels_path), read_run(run_path), OURS, scoring(level))
    assert_equals_peer(result, pytrec(qrels, run, level))


@given(
    w=workloads(short_ident),
    noise=st.lists(st.tuples(st.sampled_from(["run", "qrels"]), ident), min_size=1, max_size=8),
    fmt=st.sampled_from(["trec", "jsonl", "mapping"]),
)
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_unjudged_ids_added_to_other_queries_change_nothing(tmp_path, tiny_blocks, w, noise, fmt):
    qrels, run = w
    known = {d for docs in qrels.values() for d in docs} | {
        d for docs in run.values() for d in docs
    }
    noisy_qrels = {q: dict(d) for q, d in qrels.items()}
    noisy_run = {q: dict(d) for q, d in run.items()}
    for i, (where, doc) in enumerate(noise):
        assume(doc not in known)
        other = f"other{i % 3}"  # queries that are not in the workload
        if where == "run":
            noisy_run.setdefault(other, {})[doc] = 0.5
        else:
            noisy_qrels.setdefault(other, {})[doc] = i % 3

    def score(q: dict, r: dict, sub: str) -> dict[str, dict[str, float]]:
        if fmt == "mapping":
            res = M.evaluate(q, {k: list(v.items()) for k, v in r.items()}, ALL, scoring(2))
            return res.per_query()
        folder = tmp_path / sub
        folder.mkdir(exist_ok=True)
        qp, rp = (write_trec if fmt == "trec" else write_jsonl)(folder, q, r)
        return M.evaluate(read_qrels(qp), read_run(rp), ALL, scoring(2)).per_query()

    clean, noisy = score(qrels, run, "clean"), score(noisy_qrels, noisy_run, "noisy")
    assert {q: noisy[q] for q in qrels} == clean


@given(w=workloads(), data=st.data())
@settings(max_examples=100, deadline=None)
def test_renaming_every_id_changes_no_value(w, data):
    qrels, run = w
    old = sorted(
        {d for docs in qrels.values() for d in docs} | {d for r in run.values() for d in r}
    )
    new = data.draw(st.lists(ident, min_size=len(old), max_size=len(old), unique=True))
    rename = dict(zip(old, new, strict=True))
    # In the retriever's order (ranks), so that ties are not broken by the ids themselves.
    ranked = {q: list(docs) for q, docs in run.items()}
    renamed_qrels = {q: {rename[d]: g for d, g in docs.items()} for q, docs in qrels.items()}
    renamed_run = {q: [rename[d] for d in docs] for q, docs in ranked.items()}
    before = M.evaluate(qrels, ranked, ALL).per_query()
    after = M.evaluate(renamed_qrels, renamed_run, ALL).per_query()
    assert after == before


# --------------------------------------------------------------------------------------------
# Real collections: Cranfield and CISI in one corpus (CISI's ids are `cisi-N`, longer than 8
# bytes, Cranfield's are 1..1400)


@pytest.mark.slow
def test_bm25_over_cranfield_and_cisi_scores_as_in_pytrec_eval(tmp_path):
    from goldsmith.formats.beir import cranfield_documents, cranfield_queries
    from goldsmith.retrievers.builtin import build_retriever

    cran = require_shared_data("cranfield")
    cisi = require_shared_data("cisi")
    corpus = [
        (str(d["doc_id"]), str(d["text"])) for d in cranfield_documents(cran / "cran.all.1400")
    ]
    corpus += [
        (f"cisi-{d['doc_id']}", str(d["text"])) for d in cranfield_documents(cisi / "CISI.ALL")
    ]
    bm25 = build_retriever("bm25", corpus)
    qrels: dict[str, dict[str, int]] = {}
    for line in (cran / "cranqrel").read_text().split("\n"):
        if not line.strip():
            continue
        q, d, g = line.split()[:3]
        if int(g) == -1:
            continue
        qrels.setdefault(q, {})[d] = 2 if int(g) <= 2 else 1
    queries = [(str(q["qid"]), str(q["query"])) for q in cranfield_queries(cran / "cran.qry")]
    queries = [(q, text) for q, text in queries if q in qrels]
    hits = bm25.search([text for _, text in queries], 100)
    run = {q: {h.id: h.score for h in found} for (q, _), found in zip(queries, hits, strict=True)}
    assert any(d.startswith("cisi-") for docs in run.values() for d in docs)
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    # trec_eval's conventions: graded 1 counts, ties by score then id, no query left out.
    peer_like = ["--relevance-level", "1", "--order", "score", "--no-relevant", "zero"]
    cli = subprocess.run(
        [*GOLDSMITH_EVAL, str(qrels_path), str(run_path), *peer_like, "-m", "recall@10"],
        capture_output=True,
        text=True,
        check=True,
    )
    ours = json.loads(cli.stdout)["per_query"]
    peer = pytrec(qrels, run, 1)
    assert {q: v["recall@10"] for q, v in ours.items()} == pytest.approx(
        {q: v["recall_10"] for q, v in peer.items()}, abs=1e-9
    )
    mean = sum(v["recall_10"] for v in peer.values()) / len(peer)
    assert mean > 0.3  # BM25 finds Cranfield's documents; a broken id match gives 0


# --------------------------------------------------------------------------------------------
# The app's path: stored results matched by chunk, document or span, and a real run


@st.composite
def stored_runs(draw: st.DrawFn) -> tuple[list, dict, dict]:
    """Golden items whose judged chunks sit in documents with spans, stored result rows, and
    where each corpus chunk sits; every id is drawn from `ident` (any length, any script)."""
    from goldsmith.reporting import ChunkPlace, GoldItem, GoldJudgment, ResultRow

    chunks = draw(st.lists(ident, min_size=2, max_size=12, unique=True))
    docs = draw(st.lists(ident, min_size=1, max_size=3, unique=True))
    places = {
        c: ChunkPlace(draw(st.sampled_from(docs)), 100 * i, 100 * i + draw(st.integers(1, 150)))
        for i, c in enumerate(chunks)
    }
    items, rows = [], {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(chunks), min_size=1, max_size=5, unique=True))
        judgments = tuple(
            GoldJudgment(
                c, draw(st.integers(0, 2)), places[c].doc_id, places[c].start, places[c].end
            )
            for c in judged
        )
        items.append(GoldItem(f"q{q}", f"query {q}", judgments=judgments))
        ranked = draw(st.lists(st.sampled_from(chunks), max_size=8, unique=True))
        rows[f"q{q}"] = ResultRow(f"q{q}", tuple(ranked))
    return items, rows, places


@given(w=stored_runs(), noise=ident, mode=st.sampled_from(["chunk", "document", "span"]))
@settings(max_examples=150, deadline=None)
def test_stored_results_match_by_chunk_document_and_span_whatever_the_other_ids(w, noise, mode):
    from goldsmith import reporting
    from goldsmith.reporting import ChunkPlace, GoldItem, GoldJudgment, ResultRow

    items, rows, places = w
    assume(noise not in places)
    s = reporting.RunSettings(ks=(1, 3, 5), matching=mode)
    clean = reporting.score(items, rows, s, places).result.per_query()
    # Another query, judged and retrieved, whose ids are long and whose chunk lies elsewhere.
    other = GoldItem("other", "x", judgments=(GoldJudgment(noise, 2, noise, 0, 10),))
    noisy_rows = {**rows, "other": ResultRow("other", (noise, noise + "-" * 150))}
    noisy_places = {**places, noise: ChunkPlace(noise, 0, 10)}
    noisy = reporting.score([*items, other], noisy_rows, s, noisy_places).result.per_query()
    assert {q: noisy[q] for q in clean} == clean


@pytest.mark.django_db
def test_a_stored_run_with_one_long_id_scores_every_query(personas, tmp_path):
    from evaluation.models import RunState
    from tests.evaluation.conftest import make_golden
    from tests.evaluation.run_files import run_with

    golden = make_golden(personas.project, n=6, label="v1")
    run = run_with(personas.project, golden.version, [1.0] * 6, tmp_path)
    assert run.state == RunState.SUCCEEDED
    assert run.report["aggregate"]["recall@5"]["mean"] == 1.0
    # The same answers, plus one unjudged id of 200 characters in the last query only.
    path = tmp_path / "long.txt"
    lines = (tmp_path / f"files-{run.pk}.txt").read_text().splitlines()
    lines.append(f"q6 Q0 {'长' * 200} 9 1.0 test")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from evaluation.services.retrievers import retriever_save
    from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline

    retriever_save(project=personas.project, retriever=run.retriever, run_file=path)
    again = evaluation_run_create(
        project=personas.project,
        retriever=run.retriever,
        version=golden.version,
        ks=[5],
        enqueue=False,
    )
    again = evaluation_run_execute_inline(run_id=again.pk)
    assert again.state == RunState.SUCCEEDED
    assert again.report["aggregate"]["recall@5"]["mean"] == 1.0
