"""The ``goldsmith`` command line: metrics and agreement from files, no database.

    goldsmith eval QRELS RUN [-m METRIC ...] [--sweep [--sweep-ks 1,3,5,10,20] [--weights ...]]
    goldsmith compare QRELS RUN_A RUN_B [-m METRIC ...] [--by METRIC] [--list N] [options]
    goldsmith drift QRELS BASELINE_RUN CURRENT_RUN [--preset enterprise] [--k 5] [options]
        [--max-answer-drop METRIC=X ...]

Metrics are retrieval metrics (recall@10, ndcg@10...), first-stage retrieval metrics computed on
a JSONL run's candidates (first_stage:recall@50) and answer metrics (context_recall@5,
answer_correctness, fact_coverage, answer_f1, exact_match; faithfulness, which needs only
responses and contexts; answer_relevance, from a judge only), which need JSONL qrels or a golden
set with reference answers or key facts, and a JSONL run with contexts and responses.
    goldsmith agreement LABELS [--format table|json]
    goldsmith eval ... -m answer_correctness --judge-url URL [--judge-name NAME --judge-model M
        --judge-prompt-version V --judge-temperature X --judge-header-env VAR]
    goldsmith answer-judge-stub [--port 8766] [--delay-ms MS]   (the stub judge, for trying it)
    goldsmith cmrc2018 SOURCE --out OUT [--max-chars 200 --overlap 30]   (CMRC 2018 as a RAG
        collection: corpus, queries and golden set; docs/formats.md)

Exit status: 0 on success, 2 on bad input (one line on stderr: ``goldsmith: FILE:LINE: why``),
3 from ``drift`` when a drift rule fired or the verdict is at or below ``--gate``.
Pure module: no Django import (see docs/formats.md for the file formats and JSON shapes).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import socketserver
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, NoReturn

import numpy as np

from goldsmith import metrics as M
from goldsmith import reporting as R
from goldsmith.answers import report as AR
from goldsmith.answers import scoring as AS
from goldsmith.answers.extractive import answer_run
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.formats import FormatError
from goldsmith.formats.detect import (
    detect_format,
    read_qrels,
    read_run,
    repeats_warning,
    run_repeats,
)
from goldsmith.formats.goldset import (
    GoldSet,
    goldset_answer_keys,
    goldset_judgments,
    read_goldset,
)
from goldsmith.formats.jsonl import read_jsonl_qrels_rows, read_jsonl_stages
from goldsmith.formats.labels import read_labels_csv

if TYPE_CHECKING:  # loaded when a judge is used (it brings the HTTP client)
    from goldsmith.answers import judge as AJ

_PROG = "goldsmith"


ORDER_HELP = (
    "rank: as returned (TREC: rank column); score: by score compared in 32 bits, "
    "ties by id descending, as trec_eval"
)


class _BadInput(Exception):
    """Bad input that is reported as one line and exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _BadInput(message)


def _metric_list(values: Sequence[str] | None) -> list[str]:
    names = [m for v in (values or M.DEFAULT_METRICS) for m in v.split(",") if m.strip()]
    # Raises ValueError with a readable reason; retrieval, first-stage and answer metrics.
    return list(dict.fromkeys(AS.parse_any_metric(n) for n in names))


def _add_eval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-m",
        "--metric",
        action="extend",
        nargs="+",
        dest="metrics",
        metavar="METRIC",
        help="metrics such as recall@10 ndcg@10 mrr map@100, first_stage:recall@50, "
        "context_recall@5 answer_correctness fact_coverage answer_f1 exact_match "
        "(repeat or comma-separate)",
    )
    p.add_argument(
        "--relevance-level",
        type=int,
        default=2,
        metavar="N",
        help="grade counted as relevant by binary metrics (default 2, lenient 1)",
    )
    p.add_argument("--gain", choices=("linear", "exp"), default="linear")
    p.add_argument(
        "--order",
        choices=("rank", "score"),
        default="rank",
        help=ORDER_HELP,
    )
    p.add_argument("--pass-threshold", type=float, default=0.7, metavar="X")
    p.add_argument(
        "--no-relevant",
        choices=("exclude", "zero"),
        default="exclude",
        help="queries without a relevant chunk: left out of means (default) or 0",
    )
    p.add_argument(
        "--convention",
        choices=M.CONVENTIONS,
        default="goldsmith",
        help="which queries the means are over: goldsmith (default: queries with a relevant "
        "chunk, missing ones 0; neither of trec_eval's), trec_eval (its default: the run's "
        "queries with a judgment), trec_eval-c (trec_eval -c: every judged query, missing 0)",
    )
    p.add_argument("--qrels-format", choices=("trec", "jsonl", "goldset"))
    p.add_argument("--run-format", choices=("trec", "jsonl"))
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples for the 95%% CI (0: none)",
    )
    p.add_argument("--seed", type=int, default=0)
    _add_answer_options(p)


def _add_answer_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("answers (answer metrics and the quadrants)")
    g.add_argument(
        "--fact-overlap",
        type=float,
        default=AS.AnswerSettings().fact_overlap,
        metavar="X",
        help="share of a key fact's terms a text must hold when no chunk link decides "
        "(default %(default)s); its numbers and dates must be there too",
    )
    g.add_argument(
        "--number-tolerance",
        type=float,
        default=0.0,
        metavar="X",
        help="relative tolerance of number comparisons (default 0: exact)",
    )
    g.add_argument(
        "--answer-tokenizer",
        default="auto",
        choices=("auto", "squad", "default", "zh-words", "zh-bigrams"),
        help="how answers are cut into tokens (auto: SQuAD's for English, zh-words for Chinese)",
    )
    g.add_argument(
        "--recall-threshold",
        type=float,
        metavar="X",
        help="high context recall from X (default: the pass threshold)",
    )
    g.add_argument(
        "--correctness-threshold",
        type=float,
        metavar="X",
        help="high correctness from X (default: the pass threshold)",
    )
    g.add_argument(
        "--extractive",
        action="store_true",
        help="answer with the extractive baseline (the best-matching sentence of the top "
        "contexts) instead of the run's responses",
    )
    _add_judge_options(p)


def _add_judge_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "answer judge (an HTTP judge scores answer_correctness of open answers; "
        "docs/formats.md, 'HTTP answer judge')"
    )
    g.add_argument("--judge-url", metavar="URL", help="the judge's URL (POST, JSON)")
    g.add_argument("--judge-name", default="judge", metavar="NAME", help="reports say judge:NAME")
    g.add_argument("--judge-model", default="", metavar="MODEL", help="recorded and sent")
    g.add_argument(
        "--judge-prompt-version", default="", metavar="VERSION", help="recorded and sent"
    )
    g.add_argument(
        "--judge-temperature", type=float, metavar="X", help="recorded and sent (default none)"
    )
    g.add_argument(
        "--judge-header-env",
        metavar="VAR",
        help="an environment variable holding the auth header as 'Name: value' (never printed)",
    )
    g.add_argument(
        "--judge-concurrency", type=int, default=4, metavar="N", help="requests at once (4)"
    )
    g.add_argument(
        "--judge-timeout", type=float, default=30.0, metavar="S", help="per request (30 s)"
    )
    g.add_argument(
        "--judge-retries",
        type=int,
        default=3,
        metavar="N",
        help="retries of a temporary failure (429, 5xx, timeout; default 3)",
    )
    g.add_argument(
        "--judge-score-path",
        default="score",
        metavar="PATH",
        help="dotted path of the score (0 to 1) in the judge's answer (default score)",
    )
    g.add_argument(
        "--judge-reason-path",
        default="reason",
        metavar="PATH",
        help="dotted path of the reason in the judge's answer (default reason)",
    )
    g.add_argument(
        "--judge-faithfulness-path",
        default=AS.FAITHFULNESS,
        metavar="PATH",
        help="dotted path of the judge's faithfulness (a score, or {score, reason}); when the "
        "judge gives it, it scores faithfulness (default faithfulness; '' not read)",
    )
    g.add_argument(
        "--judge-relevance-path",
        default=AS.ANSWER_RELEVANCE,
        metavar="PATH",
        help="dotted path of the judge's answer relevance (default answer_relevance)",
    )


def _build_parser() -> _Parser:
    parser = _Parser(prog=_PROG, description="Goldsmith metrics and agreement from files.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ev = sub.add_parser("eval", help="score a run against judgments")
    ev.add_argument("qrels")
    ev.add_argument("run")
    _add_eval_options(ev)
    ev.add_argument("--per-query", action="store_true", help="also print per-query values")
    ev.add_argument("--format", choices=("table", "json", "csv"), default="table")
    _add_corpus_option(ev)
    _add_sweep_options(ev)
    cmp_ = sub.add_parser("compare", help="compare run B with run A on the same judgments")
    cmp_.add_argument("qrels")
    cmp_.add_argument("run_a")
    cmp_.add_argument("run_b")
    _add_eval_options(cmp_)
    cmp_.add_argument("--permutations", type=int, default=10_000, metavar="N")
    cmp_.add_argument(
        "--by",
        metavar="METRIC",
        help="the metric of the lists of queries that got worse and better "
        "(default: the first recall@K of the metrics, else the first metric)",
    )
    cmp_.add_argument(
        "--list",
        type=int,
        default=10,
        metavar="N",
        help="queries shown in each list in the table (default 10; JSON lists all)",
    )
    cmp_.add_argument("--format", choices=("table", "json"), default="table")
    _add_drift_parser(sub)
    ag = sub.add_parser("agreement", help="inter-annotator agreement from a labels CSV")
    ag.add_argument("labels")
    ag.add_argument("--format", choices=("table", "json"), default="table")
    js = sub.add_parser(
        "judge-stub",
        help="serve the keyword-overlap judge stub over HTTP (for trying machine judges)",
        description="Answer POST {query, chunk} with {grade, reason} by keyword overlap, "
        "until interrupted. Register its URL as an HTTP machine judge.",
    )
    js.add_argument("--host", default="127.0.0.1")
    js.add_argument("--port", type=int, default=8765)
    ajs = sub.add_parser(
        "answer-judge-stub",
        help="serve the key-fact overlap answer judge stub over HTTP (for --judge-url)",
        description="Answer POST {response, reference_answer, facts, ...} with {score, reason}: "
        "the share of key facts the response states by word overlap (else of the reference "
        "answer's words), until interrupted. Port 0 picks a free port; the first line "
        "printed is the URL.",
    )
    ajs.add_argument("--host", default="127.0.0.1")
    ajs.add_argument("--port", type=int, default=8766)
    ajs.add_argument(
        "--delay-ms", type=float, default=0.0, metavar="MS", help="wait before each answer"
    )
    ajs.add_argument(
        "--token-env",
        metavar="VAR",
        help="require 'Authorization: Bearer <the value of VAR>' (HTTP 401 otherwise)",
    )
    cm = sub.add_parser(
        "cmrc2018",
        help="turn CMRC 2018 (SQuAD-style JSON) into a corpus, a query set and a golden set",
        description="Write OUT/corpus.jsonl (chunks with offsets), OUT/queries.jsonl and "
        "OUT/goldset.jsonl (the chunk holding an answer span is relevant; the human answers "
        "are the references). SOURCE is the JSON file or a folder holding cmrc2018_dev.json.",
    )
    cm.add_argument("source", metavar="SOURCE")
    cm.add_argument("--out", required=True, metavar="OUT", help="folder to write (created)")
    cm.add_argument("--max-chars", type=int, default=200, metavar="N", help="chunk size (200)")
    cm.add_argument("--overlap", type=int, default=30, metavar="N", help="chunk overlap (30)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit status.

    When the reader of our output goes away (``goldsmith eval ... | head``), stop quietly, as
    the Python documentation advises for SIGPIPE: stdout is pointed at /dev/null, so that the
    interpreter's last flush does not fail again and print a traceback, and the status is 1,
    as Python's own on EPIPE."""
    try:
        status = _run(argv)
        sys.stdout.flush()  # a closed pipe shows here, while we can still handle it
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a file (e.g. replaced in a test)
            pass
        return 1
    return status


def _run(argv: list[str] | None) -> int:
    out = sys.stdout
    try:
        args = _build_parser().parse_args(argv)
        if args.command == "eval":
            _eval(args, out)
        elif args.command == "compare":
            _compare(args, out)
        elif args.command == "drift":
            return _drift(args, out)
        elif args.command == "judge-stub":
            return _judge_stub(args, out)
        elif args.command == "answer-judge-stub":
            return _answer_judge_stub(args, out)
        elif args.command == "cmrc2018":
            _cmrc2018(args, out)
        else:
            _agreement(args, out)
    except FormatError as e:
        return _fail(str(e))
    except BrokenPipeError:
        raise  # not bad input: the reader of our output left (see main)
    except OSError as e:
        where = e.filename if e.filename is not None else "input"
        return _fail(f"{where}: {e.strerror or e}")
    except (_BadInput, ValueError) as e:
        return _fail(str(e))
    return 0


def _judge_stub(args: argparse.Namespace, out: IO[str]) -> int:
    from goldsmith.judges import KeywordJudgeServer

    server = KeywordJudgeServer((args.host, args.port))
    return _serve(server, f"keyword judge stub at {server.url} (Ctrl-C stops it)", out)


def _answer_judge_stub(args: argparse.Namespace, out: IO[str]) -> int:
    from goldsmith.answers.judge import AnswerJudgeStub

    token = None
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            raise _BadInput(f"--token-env {args.token_env}: the environment variable is not set")
    if args.delay_ms < 0:
        raise _BadInput("--delay-ms must be at least 0")
    server = AnswerJudgeStub((args.host, args.port), token=token, delay_ms=args.delay_ms)
    return _serve(server, f"{server.url} answer judge stub (Ctrl-C stops it)", out)


def _serve(server: socketserver.BaseServer, banner: str, out: IO[str]) -> int:
    """Say ``banner`` (the first line holds the URL), then serve until interrupted."""
    print(banner, file=out, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _cmrc2018(args: argparse.Namespace, out: IO[str]) -> None:
    from goldsmith.formats.cmrc2018 import cmrc2018_collection, write_collection

    source = args.source
    if os.path.isdir(source):
        source = os.path.join(source, "cmrc2018_dev.json")
        if not os.path.isfile(source):
            raise _BadInput(f"{args.source}: no cmrc2018_dev.json in this folder")
    try:
        collection = cmrc2018_collection(source, max_chars=args.max_chars, overlap=args.overlap)
    except ValueError as error:
        if isinstance(error, FormatError):
            raise
        raise _BadInput(f"--max-chars/--overlap: {error}") from None
    files = write_collection(collection, args.out)
    relevant = sum(any(j.grade == 2 for j in q.judgments) for q in collection.golden)
    print(
        f"{len(collection.chunks)} chunks, {len(collection.golden)} queries "
        f"({relevant} with a relevant chunk), "
        f"{collection.answers_not_found} answers not found in their paragraph, "
        f"{collection.questions_left_out} questions left out",
        file=out,
    )
    for name, path in files.items():
        print(f"{name}: {path}", file=out)


def _json(doc: Any, out: IO[str]) -> None:
    """A command's JSON output: strict JSON (no NaN: see :func:`reporting.strict_json`)."""
    json.dump(R.strict_json(doc), out, indent=1, allow_nan=False)
    out.write("\n")


def _fail(message: str) -> int:
    print(f"{_PROG}: {' '.join(message.split())}", file=sys.stderr)
    return 2


# --------------------------------------------------------------------------------------------
# --corpus: the corpus the run searched, against the one the golden set was judged on

_CORPUS_FILES = (".jsonl", ".json", ".csv")


def _add_corpus_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--corpus",
        metavar="FILE",
        help="the corpus the run searched: its chunks (.jsonl or .csv, as import_corpus reads "
        "them; texts are compared by sha256 with the golden set's graded texts) or a file of "
        "live chunk ids, one a line (then only retired chunks are seen). The report then says "
        "what the corpus changed, gives every metric over the queries it did not touch, and "
        "the verdict and drift read those only, as the web app does",
    )


def _corpus_state(args: argparse.Namespace) -> R.CorpusState | None:
    path = getattr(args, "corpus", None)
    if not path:
        return None
    from goldsmith.corpus import LiveChunk, text_sha256
    from goldsmith.intake.readers import ChunkRecord, read_corpus

    live: dict[str, LiveChunk] = {}
    label = "the golden set"
    if os.path.splitext(path)[1].lower() in _CORPUS_FILES:
        try:
            with open(path, "rb") as stream:
                for record in read_corpus(stream, path):
                    if not isinstance(record, ChunkRecord):
                        raise _BadInput(
                            f"{path}:{record.line}: a corpus of whole documents has no chunk "
                            "ids: give its chunks (an 'id' per record) or a file of chunk ids"
                        )
                    live[record.chunk_id] = LiveChunk(text_sha256(record.text), record.text)
        except OSError as error:
            raise _BadInput(f"{path}: {error.strerror or error}") from None
        return R.CorpusState(live=live, label=label)
    try:
        with open(path, encoding="utf-8") as lines:
            for n, line in enumerate(lines, 1):
                chunk_id = line.strip()
                if "\x00" in chunk_id:
                    raise _BadInput(f"{path}:{n}: a chunk id may not hold a NUL character")
                if chunk_id:
                    live[chunk_id] = LiveChunk("")
    except UnicodeDecodeError:
        raise _BadInput(f"{path}: not UTF-8 text (a file of chunk ids, one a line)") from None
    except OSError as error:
        raise _BadInput(f"{path}: {error.strerror or error}") from None
    return R.CorpusState(live=live, ids_only=True, label=label)


def _golden_items(args: argparse.Namespace) -> list[R.GoldItem]:
    """The golden set as the report reads it: a golden-set file with its graded texts (a
    changed chunk is then seen), else qrels (ids and grades only)."""
    fmt = args.qrels_format or detect_format(args.qrels)
    if fmt == "goldset":
        gold = read_goldset(args.qrels)
        return [
            R.GoldItem(
                q.query_id,
                q.query,
                judgments=tuple(
                    R.GoldJudgment(j.chunk_id, j.grade, text=j.text) for j in q.judgments
                ),
            )
            for q in gold.queries
        ]
    cols = read_qrels(args.qrels, fmt)
    judged: dict[str, list[R.GoldJudgment]] = {q: [] for q in cols.query_ids}
    for q, c, g in zip(cols.qidx.tolist(), cols.ids.tolist(), cols.grades.tolist(), strict=True):
        judged[cols.query_ids[q]].append(R.GoldJudgment(c.decode("utf-8"), int(g)))
    return [R.GoldItem(q, "", judgments=tuple(js)) for q, js in judged.items()]


@dataclass
class _Lists:
    """Asks :func:`_load_arrays` for each judged query's ranked ids (the first ``depth``, in
    the order the run is scored in), which it puts in ``ids``; only ``--corpus`` needs them."""

    depth: int
    ids: dict[str, list[str]] = field(default_factory=dict)


def _corpus_lists(args: argparse.Namespace, metrics: Sequence[str], k: int) -> _Lists | None:
    """With ``--corpus``: the ranked ids the corpus part counts, deep enough for its top ``k``
    and every judged@K of ``metrics``."""
    if not getattr(args, "corpus", None):
        return None
    ks = [s.k for s in map(M.parse_metric, metrics) if s.family == "judged" and s.k]
    return _Lists(max([k, *ks]))


def _corpus_section(
    args: argparse.Namespace,
    state: R.CorpusState,
    result: M.EvalResult,
    arrays: M.EvalArrays,
    lists: _Lists,
    k: int,
) -> tuple[M.EvalResult, dict[str, Any]]:
    """``result`` with judged@K among the corpus's chunks, and the report's corpus part:
    computed by the app's own functions, as ``reporting.build_report`` calls them (chunk-id
    matching)."""
    items = _golden_items(args)
    if (
        state.label == "the golden set"
        and (args.qrels_format or detect_format(args.qrels)) == "goldset"
    ):
        state = R.CorpusState(
            live=state.live, ids_only=state.ids_only, label=read_goldset(args.qrels).header.label
        )
    judgments = {i.query_id: {j.chunk_id: j.grade for j in i.judgments} for i in items}
    scored = R.Scored(result, arrays, judgments, lists.ids)
    not_live = R.not_in_corpus(scored, {}, state.live, k, "chunk")
    if R.any_outside(scored, state.live):
        result = R.judged_in_corpus(scored, state.live)
    effect = R.corpus_effect_of(items, state)
    agg_kw = {"samples": args.bootstrap, "seed": args.seed}
    return result, R.corpus_report(items, result, effect, state, not_live, k, agg_kw)


def _headline_k(metrics: Sequence[str]) -> int:
    for m in metrics:
        spec = M.parse_metric(m)
        if spec.family == "recall" and spec.k:
            return spec.k
    return 5


# --------------------------------------------------------------------------------------------
# eval


def _settings(args: argparse.Namespace) -> M.EvalSettings:
    return M.EvalSettings(
        relevance_threshold=args.relevance_level,
        gain=args.gain,
        pass_threshold=args.pass_threshold,
        order=args.order,
        no_relevant=args.no_relevant,
        convention=getattr(args, "convention", "goldsmith"),
    )


def _load(
    args: argparse.Namespace, run_path: str, metrics: list[str], settings: M.EvalSettings
) -> tuple[M.EvalResult, GoldSet | None]:
    arrays, gold = _load_arrays(args, run_path, metrics, settings)
    return M.evaluate(arrays, None, metrics, settings), gold


def _without_huge_pages() -> None:
    """Stop numpy asking the kernel for transparent huge pages on its large arrays. A run is
    read into fresh arrays touched once each; on the 2-vCPU machine of docs/benchmarks.md the
    kernel's zeroing and compaction of huge pages cost about 1 s of system time on 100,000
    queries x depth 100, more than the page faults they save, and the figures stay the same."""
    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    if switch is not None and hasattr(switch, "_set_madvise_hugepage"):
        switch._set_madvise_hugepage(False)


def _load_arrays(
    args: argparse.Namespace,
    run_path: str,
    metrics: list[str],
    settings: M.EvalSettings,
    at_least: int = 0,
    lists: _Lists | None = None,
) -> tuple[M.EvalArrays, GoldSet | None]:
    """The run joined with the judgments, deep enough for ``metrics`` and ``at_least``; with
    ``lists``, each judged query's ranked ids put in ``lists.ids`` too."""
    _without_huge_pages()
    fmt = args.qrels_format or detect_format(args.qrels)
    gold = read_goldset(args.qrels) if fmt == "goldset" else None
    qrels = goldset_judgments(gold) if gold else read_qrels(args.qrels, fmt)
    _refuse_if_nothing_is_relevant(args, qrels, settings.relevance_threshold)
    specs = [M.parse_metric(m) for m in metrics]
    depth = None if any(s.k is None for s in specs) else max(s.k or 0 for s in specs)
    if depth is not None:
        depth = max(depth, at_least)
    held = [read_run(run_path, args.run_format, require_scores=settings.order == "score")]
    _refuse_if_no_query_is_shared(args.qrels, qrels, run_path, held[0])
    if lists is not None:
        judged = frozenset(qrels.query_ids)
        lists.ids = M.ranked_lists(held[0], judged, order=settings.order, depth=lists.depth)
    # The run is handed over (no name here keeps it), so prepare() frees each of its columns
    # as soon as it is done with it: the largest arrays are never all alive at once.
    arrays = M.prepare(qrels, held.pop(), order=settings.order, depth=depth, consume=True)
    if arrays.repeated_in:
        _warn_about_repeats(args, run_path, arrays.repeated_in)
    return arrays, gold


def _warn_about_repeats(args: argparse.Namespace, run_path: str, queries: Sequence[str]) -> None:
    """Say on stderr where a run lists an id twice for one query (trec_eval refuses such a
    file): the first copy in the ranking counts, the later ones are dropped (docs/formats.md)."""
    fmt = args.run_format or detect_format(run_path)
    repeats = run_repeats(run_path, "jsonl" if fmt == "jsonl" else "trec", queries)
    if repeats:
        print(f"{_PROG}: warning: {repeats_warning(run_path, repeats)}", file=sys.stderr)


def _refuse_if_nothing_is_relevant(
    args: argparse.Namespace, qrels: M.JudgmentColumns, level: int
) -> None:
    """Bad input when no judgment reaches the relevance level: every query would be left out
    of the means, and a table of empty means is no figure. The usual cause: TREC qrels mark
    relevant with 1, and Goldsmith's default level is 2."""
    if len(qrels.grades) == 0 or int(qrels.grades.max()) >= level:
        return
    top = int(qrels.grades.max())
    advice = (
        f"; if grade {top} means relevant in this file (as 1 does in most TREC qrels), "
        f"add --relevance-level {top}"
        if top >= 1
        else ""
    )
    raise _BadInput(
        f"no judgment in {args.qrels} reaches relevance level {level} (the highest grade is "
        f"{top}): no query has a relevant chunk, so there is nothing to measure{advice}"
    )


def _refuse_if_no_query_is_shared(
    qrels_path: str, qrels: M.JudgmentColumns, run_path: str, ranking: M.RankingColumns
) -> None:
    """Bad input when the run answers none of the judged queries: every figure would be the
    0 of a query missing from the run, which says nothing of the retriever (usually a run of
    another query set, or ids written differently: "q1" against "1")."""
    judged = set(qrels.query_ids)
    if any(q in judged for q in ranking.query_ids):
        return
    if not ranking.query_ids:
        raise _BadInput(f"{run_path}: the run holds no query")
    if not qrels.query_ids:
        raise _BadInput(f"{qrels_path}: the judgments hold no query")
    raise _BadInput(
        f"{run_path} and {qrels_path} share no query id (the run's first: "
        f"{ranking.query_ids[0]!r}, the judgments' first: {qrels.query_ids[0]!r}): every query "
        "would score 0 as missing from the run"
    )


def _answer_settings(args: argparse.Namespace) -> AS.AnswerSettings:
    return AS.AnswerSettings(
        tokenizer=args.answer_tokenizer,
        fact_overlap=args.fact_overlap,
        number_tolerance=args.number_tolerance,
    )


def _answer_keys(args: argparse.Namespace) -> tuple[tuple[AnswerKey, ...], M.JudgmentColumns]:
    """The answer keys and judgments of the qrels (JSONL qrels or a golden set)."""
    fmt = args.qrels_format or detect_format(args.qrels)
    if fmt == "trec":
        raise _BadInput(
            f"{args.qrels}: TREC qrels carry no reference answers, key facts or query texts; "
            "answer and first-stage metrics need JSONL qrels or a golden set"
        )
    if fmt == "goldset":
        gs = read_goldset(args.qrels)
        return goldset_answer_keys(gs), goldset_judgments(gs)
    rows = read_jsonl_qrels_rows(args.qrels)
    return tuple(r.answer for r in rows), read_qrels(args.qrels, "jsonl")


def _staged_run(
    args: argparse.Namespace, path: str, keys: Sequence[AnswerKey]
) -> list[StagedQuery]:
    """A JSONL run with its stages (responses from the extractive answerer with
    ``--extractive``)."""
    fmt = args.run_format or detect_format(path)
    if fmt != "jsonl":
        raise _BadInput(
            f"{path}: answer and first-stage metrics need a JSONL run (candidates, contexts, "
            "response); this is a TREC run"
        )
    run = read_jsonl_stages(path)
    asked = {k.query_id for k in keys}
    if run and not any(s.query_id in asked for s in run):
        raise _BadInput(
            f"{path} and {args.qrels} share no query id (the run's first: {run[0].query_id!r}"
            + (f", the judgments' first: {keys[0].query_id!r}" if keys else "")
            + "): every query would score 0 as missing from the run"
        )
    if args.extractive:
        texts = {k.query_id: k.query for k in keys if k.query}
        run = answer_run(texts, run, k=5)
    return run


def _warn_about_answers(
    args: argparse.Namespace,
    keys: Sequence[AnswerKey],
    run: Sequence[StagedQuery],
    answer: list[str],
) -> None:
    """Say so on stderr when answer metrics cannot be scored: no reference answer or key fact
    in the qrels, or no response in the run."""
    keyed = [m for m in answer if m not in (AS.FAITHFULNESS, AS.ANSWER_RELEVANCE)]
    if keyed and not any(k.has_answer for k in keys):
        print(
            f"{_PROG}: warning: no query in {args.qrels} has a reference answer or key facts: "
            "the answer metrics score nothing",
            file=sys.stderr,
        )
    reading = [m for m in answer if AS.reads_response(m)]
    if reading and run and not AS.has_answers(run):
        print(
            f"{_PROG}: warning: this run has no answers (no query has a response): "
            f"{', '.join(reading)} not scored, only context recall "
            "(--extractive answers with the extractive baseline)",
            file=sys.stderr,
        )


_JUDGE_OPTIONS = ("judge_model", "judge_prompt_version", "judge_temperature", "judge_header_env")


def _judge(
    args: argparse.Namespace,
    keys: Sequence[AnswerKey],
    run: Sequence[StagedQuery],
    answer: Sequence[str],
) -> AJ.JudgeResults | None:
    """The judge's answers for the run's open answers (``--judge-url``), or None. A judge
    failure is a warning naming the queries (their correctness is left unscored); the auth
    header's value is never printed."""
    if not args.judge_url:
        given = [o for o in _JUDGE_OPTIONS if getattr(args, o) not in (None, "")]
        if given:
            raise _BadInput(f"--{given[0].replace('_', '-')} needs --judge-url")
        only = [m for m in answer if m in AS.JUDGE_ONLY]
        if only:
            raise _BadInput(f"{only[0]} is scored only by an answer judge: add --judge-url URL")
        return None
    from goldsmith.answers import judge as AJ
    from goldsmith.retrievers.ssrf import Policy

    if not any(m in answer for m in AR.JUDGED_METRICS):
        print(
            f"{_PROG}: warning: the judge scores answer_correctness, faithfulness and "
            "answer_relevance, none of which was asked for (-m answer_correctness): the judge "
            "is not called",
            file=sys.stderr,
        )
        return None
    config = AJ.AnswerJudgeConfig(
        url=args.judge_url,
        name=args.judge_name,
        model=args.judge_model,
        prompt_version=args.judge_prompt_version,
        temperature=args.judge_temperature,
        max_concurrency=args.judge_concurrency,
        timeout=args.judge_timeout,
        retries=args.judge_retries,
        score_path=args.judge_score_path,
        reason_path=args.judge_reason_path,
        faithfulness_path=args.judge_faithfulness_path,
        relevance_path=args.judge_relevance_path,
    )
    problems = config.problems()
    if problems:
        raise _BadInput(f"--judge-url: {'; '.join(problems)}")
    auth = None
    if args.judge_header_env:
        raw = os.environ.get(args.judge_header_env)
        if not raw:
            raise _BadInput(
                f"--judge-header-env {args.judge_header_env}: the environment variable is not set"
            )
        try:
            auth = AJ.parse_auth_header(raw, source=f"--judge-header-env {args.judge_header_env}")
        except ValueError as error:
            raise _BadInput(str(error)) from None
    # The command runs on its user's machine, so a judge on localhost or the private network
    # is allowed; cloud-metadata and link-local addresses are still refused.
    with AJ.HttpAnswerJudge(config, policy=Policy(allow_private=True), auth_header=auth) as j:
        # Faithfulness and relevance are about every response, closed answers too.
        every = any(m in answer for m in (AS.FAITHFULNESS, AS.ANSWER_RELEVANCE))
        judged = j.judge_run(
            keys, run, every_response=every, context_k=_answer_settings(args).context_k
        )
    failures = judged.failures()
    if failures:
        shown = "; ".join(f"{q}: {e}" for q, e in list(failures.items())[:3])
        more = f" (and {len(failures) - 3} more)" if len(failures) > 3 else ""
        print(
            f"{_PROG}: warning: {judged.scorer} gave no score for {len(failures)} of "
            f"{len(judged.answers)} answers, left unscored: {shown}{more}",
            file=sys.stderr,
        )
    return judged


def _score_answers(
    args: argparse.Namespace, run_path: str, metrics: list[str], settings: M.EvalSettings
) -> tuple[AR.AnswerRun, tuple[AnswerKey, ...], list[StagedQuery]]:
    keys, judgments = _answer_keys(args)
    run = _staged_run(args, run_path, keys)
    _, _, answer = AR.split_metrics(metrics)
    _warn_about_answers(args, keys, run, answer)
    scored = AR.score_run(
        keys,
        run,
        metrics,
        judgments=judgments,
        settings=_answer_settings(args),
        eval_settings=settings,
        judge=_judge(args, keys, run, answer),
    )
    return scored, keys, run


def _eval(args: argparse.Namespace, out: IO[str]) -> None:
    metrics = _metric_list(args.metrics)
    retrieval, stage, answer = AR.split_metrics(metrics)
    settings = _settings(args)
    sweep_ks, weights = _sweep_request(args)
    result: M.EvalResult | None = None
    gold: GoldSet | None = None
    sweep = None
    k = _headline_k(retrieval)
    lists = _corpus_lists(args, retrieval, k)
    arrays: M.EvalArrays | None = None
    if retrieval or sweep_ks:
        depth_metrics = retrieval or [f"recall@{max(sweep_ks)}"]
        arrays, gold = _load_arrays(
            args, args.run, depth_metrics, settings, max(sweep_ks, default=0), lists
        )
        if retrieval:
            result = M.evaluate(arrays, None, retrieval, settings)
        sweep = _sweep(arrays, settings, sweep_ks, args.scenario, weights) if sweep_ks else None
    answers: dict[str, Any] | None = None
    if stage or answer:
        keys, judgments = _answer_keys(args)
        run = _staged_run(args, args.run, keys)
        _warn_about_answers(args, keys, run, answer)
        answers = AR.answer_report(
            keys,
            run,
            [*stage, *answer],
            judgments=judgments,
            settings=_answer_settings(args),
            eval_settings=settings,
            recall_threshold=args.recall_threshold,
            correctness_threshold=args.correctness_threshold,
            samples=args.bootstrap,
            seed=args.seed,
            judge=_judge(args, keys, run, answer),
        )
    elif args.judge_url:
        raise _BadInput("--judge-url needs an answer metric: -m answer_correctness")
    if sweep is not None and args.format == "csv":  # the sweep instead of the means
        _sweep_csv(sweep, out)
        return
    state = _corpus_state(args)
    section: dict[str, Any] | None = None
    if state is not None:
        if result is None or arrays is None or lists is None:
            raise _BadInput("--corpus needs a retrieval metric (-m recall@5 ...)")
        result, section = _corpus_section(args, state, result, arrays, lists, k)
    if result is None or (args.format == "csv" and args.per_query):  # no means: no bootstrap
        agg: dict[str, M.Aggregate] = {}
    else:
        agg = M.aggregate(result, samples=args.bootstrap, seed=args.seed)
    if args.format == "json":
        doc: dict[str, Any] = {
            "settings": {
                **R.settings_json(settings),
                "metrics": metrics,
                "bootstrap": args.bootstrap,
                "seed": args.seed,
                "qrels": args.qrels,
                "run": args.run,
            },
            "aggregate": R.aggregate_json(agg),
        }
        if section is not None:
            doc["corpus"] = section
        if answers is not None:
            doc["settings"]["answers"] = {**answers["scorer"], "extractive": args.extractive}
            doc["aggregate"].update(answers["aggregate"])
        if args.per_query or answers is not None:
            per_query: dict[str, dict[str, Any]] = {} if result is None else result.per_query()
            for q, vals in (answers or {}).get("per_query", {}).items():
                per_query.setdefault(q, {}).update(vals)
            doc["per_query"] = per_query
        if result is not None:
            doc["excluded"] = {
                "no_relevant_chunk": list(result.no_relevant),
                "not_in_qrels": list(result.not_in_judgments),
            }
            doc["missing_from_run"] = list(result.missing_from_run)
        if answers is not None:
            for key in (
                "has_answers",
                "responses",
                "reasons",
                "quadrants",
                "diagnosis",
                "fact_rules",
                "conflicts",
                "claims",
                "scored_by",
                "judge_failures",
            ):
                if key in answers:
                    doc[key] = answers[key]
            doc.setdefault("missing_from_run", answers.get("missing_from_run", []))
        if sweep is not None:
            doc["topk"] = sweep
        if gold is not None and result is not None:
            cats = {q.query_id: q.category for q in gold.queries}
            doc["categories"] = {
                c: R.aggregate_json(a)
                for c, a in M.by_category(
                    result, cats, samples=args.bootstrap, seed=args.seed
                ).items()
            }
        if answers is not None and "categories" in answers:
            for c, vals in answers["categories"].items():
                doc.setdefault("categories", {}).setdefault(c, {}).update(vals)
        _json(doc, out)
    elif args.format == "csv":
        _eval_csv(args, result, agg, answers, out)
    else:
        if section is not None:
            _corpus_table(section, out)
        if result is not None:
            _eval_table(args, result, agg, out)
        if answers is not None:
            _answers_table(args, answers, out, first=result is None)
        if sweep is not None:
            _sweep_table(sweep, out)


def _corpus_table(section: dict[str, Any], out: IO[str]) -> None:
    """A stale golden set, said first: the sentences, then the untouched queries' means."""
    for line in section["words"]:
        out.write(f"{line}\n")
    if section["stale"]:
        out.write(f"on the {section['untouched']['queries']} untouched queries:\n")
        _means_table(section["untouched"]["aggregate"], out)
        shown = ", ".join(section["touched"][:20]) + (" …" if len(section["touched"]) > 20 else "")
        out.write(f"touched (left out of the verdict and drift): {shown}\n\n")


def _eval_csv(
    args: argparse.Namespace,
    result: M.EvalResult | None,
    agg: dict[str, M.Aggregate],
    answers: dict[str, Any] | None,
    out: IO[str],
) -> None:
    w = csv.writer(out, lineterminator="\n")
    extra = list((answers or {}).get("aggregate", {}))
    if args.per_query:
        names = [*(result.metrics if result is not None else ()), *extra]
        w.writerow(["query_id", *names])
        rows: dict[str, dict[str, Any]] = {} if result is None else result.per_query()
        for q, vals in (answers or {}).get("per_query", {}).items():
            rows.setdefault(q, {}).update(vals)
        for q, vals in rows.items():
            w.writerow([q, *("" if vals.get(m) is None else vals[m] for m in names)])
        return
    w.writerow(["metric", "mean", "ci_low", "ci_high", "n"])
    w.writerows([m, a.mean, a.ci_low, a.ci_high, a.n] for m, a in agg.items())
    for m, a in (answers or {}).get("aggregate", {}).items():
        w.writerow(
            [m, *("" if a[x] is None else a[x] for x in ("mean", "ci_low", "ci_high")), a["n"]]
        )


def _answers_table(
    args: argparse.Namespace, answers: dict[str, Any], out: IO[str], *, first: bool
) -> None:
    """The answer part of ``goldsmith eval``'s table: means, per-query values with reasons
    (``--per-query``), the quadrants with what to look at, and the rules used."""
    agg = answers["aggregate"]
    if not first:
        out.write("\n")
    if args.per_query and answers.get("reasons"):
        for q, vals in answers["per_query"].items():
            shown = ", ".join(f"{m} {_f(v)}" for m, v in vals.items() if v is not None)
            out.write(f"{q}: {shown}\n")
            by = answers.get("scored_by", {}).get(q, {})
            for m, why in answers["reasons"].get(q, {}).items():
                scorer = by.get(m, AR.SCORER)
                out.write(f"    {m}{'' if scorer == AR.SCORER else f' ({scorer})'}: {why}\n")
        out.write("\n")
    _means_table(agg, out)
    given = answers.get("responses") or {}
    if not answers.get("has_answers", True):
        out.write(
            "\nthis run has no answers (no query has a response): no answer correctness, fact "
            "coverage, answer F1, exact match or quadrants; context recall needs only the "
            "retrieved contexts and the key facts.\n"
        )
    elif given and given["with_response"] < given["queries"]:
        out.write(
            f"\nanswer metrics over the {given['with_response']} of {given['queries']} queries "
            "with a response (the others have no answer to score).\n"
        )
    diag = answers.get("diagnosis")
    if diag is not None:
        out.write(
            f"\nquadrants: {diag['recall_metric']} (high from {diag['recall_threshold']:g}) × "
            f"{diag['correctness_metric']} (high from {diag['correctness_threshold']:g}), "
            f"{sum(diag['counts'].values())} queries\n"
        )
        unfaithful = diag.get("unfaithful") or {}
        for name, n in diag["counts"].items():
            out.write(f"  {diag['titles'][name]}: {n}\n    {diag['advice'][name]}\n")
            if unfaithful.get(name):
                qs = unfaithful[name]
                shown = ", ".join(qs[:5]) + (f" and {len(qs) - 5} more" if len(qs) > 5 else "")
                out.write(
                    f"    unfaithful (faithfulness below {diag['faithfulness_threshold']:g}): "
                    f"{len(qs)} ({shown})\n      {diag['unfaithful_advice'][name]}\n"
                )
        if diag["unplaced"]:
            out.write(f"  not placed (a score is missing): {len(diag['unplaced'])}\n")
    rules = answers.get("fact_rules") or {}
    for m, counts in rules.items():
        used = ", ".join(f"{r} {n}" for r, n in counts.items())
        out.write(f"{m}: facts decided by {used}\n")
    s = answers["scorer"]
    out.write(
        f"answers scored by rules: tokenizer {s['tokenizer']}, fact overlap ≥ "
        f"{s['fact_overlap']:g}, number tolerance {s['number_tolerance']:g}"
        f"{'; responses from the extractive answerer' if args.extractive else ''}.\n"
    )
    judge = s.get("judge")
    if judge is not None:
        from goldsmith.answers.judge import JudgeIdentity

        who = JudgeIdentity(
            judge["name"], judge["model"], judge["prompt_version"], judge["temperature"]
        ).describe()
        out.write(
            f"answer_correctness of open answers scored by {who}: {judge['judged']} judged, "
            f"{judge['failed']} failed (left out); {judge['by_rules']} by rules (closed "
            "answers, no response).\n"
        )
        for m in AR.JUDGED_METRICS[1:]:
            if s["metrics"].get(m) == judge["scorer"]:
                out.write(f"{m} scored by {who} (its scores and reasons as it gave them).\n")


def _f(x: float | None) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.4f}"


def _means_table(
    agg: Mapping[str, Mapping[str, Any]], out: IO[str], width: int | None = None
) -> None:
    """Each metric's mean, 95% CI and query count (``agg`` as :func:`reporting.aggregate_json`
    gives them); the metric column ``width`` wide (default: its longest name or heading)."""
    width = width or max([len("metric"), *(len(m) for m in agg)])
    out.write(f"{'metric':<{width}}  {'mean':>6}  {'95% CI':^16}  {'n':>6}\n")
    for m, a in agg.items():
        ci = f"[{_f(a['ci_low'])}, {_f(a['ci_high'])}]"
        out.write(f"{m:<{width}}  {_f(a['mean']):>6}  {ci:^16}  {a['n']:>6}\n")


def _eval_table(
    args: argparse.Namespace, result: M.EvalResult, agg: dict[str, M.Aggregate], out: IO[str]
) -> None:
    if args.per_query:
        width = max([len("query_id"), *(len(q) for q in result.query_ids)])
        out.write("query_id".ljust(width) + "".join(f"  {m:>12}" for m in result.metrics) + "\n")
        for q, vals in result.per_query().items():
            out.write(q.ljust(width) + "".join(f"  {_f(vals[m]):>12}" for m in vals) + "\n")
        out.write("\n")
    _means_table(R.aggregate_json(agg), out, max(len(m) for m in result.metrics))
    s = result.settings
    zero = s.no_relevant == "zero" or s.convention != "goldsmith"
    out.write(
        f"\n{len(result.query_ids)} judged queries: {int(result.included.sum())} in the means, "
        f"{len(result.no_relevant)} without a relevant chunk "
        f"({'scored 0' if zero else 'left out'}), "
        f"{len(result.missing_from_run)} missing from the run "
        f"({'left out' if s.convention == 'trec_eval' else 'scored 0'}); "
        f"{len(result.not_in_judgments)} run queries without judgments (ignored).\n"
        f"means over: {s.means_over()}.\n"
        f"relevant: grade >= {s.relevance_threshold}; gain {s.gain}; order {s.order}; "
        f"pass threshold {s.pass_threshold:g}.\n"
    )


# --------------------------------------------------------------------------------------------
# eval --sweep: the top-K choice

_SWEEP_KS = "1,3,5,10,20"


def _add_sweep_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sweep",
        action="store_true",
        help="also choose a top-K: a weighted score of metrics at each K, best K marked "
        "(with --format csv: the sweep instead of the means)",
    )
    p.add_argument(
        "--sweep-ks",
        metavar="KS",
        help=f"cut-offs of the sweep, e.g. {_SWEEP_KS} (default) or 1-30 (implies --sweep)",
    )
    p.add_argument(
        "--weights",
        metavar="W",
        help="weights laid over the scenario's, e.g. mrr=0.4,ndcg=0.3,precision=0.2,recall=0.1; "
        f"0 drops a metric; metrics: {', '.join(M.TOPK_FAMILIES)} (implies --sweep)",
    )
    p.add_argument(
        "--scenario",
        choices=tuple(M.TOPK_SCENARIOS),
        help="the weights' starting point: "
        + "; ".join(f"{s.key}: {s.label}" for s in M.TOPK_SCENARIOS.values())
        + " (default: default; implies --sweep)",
    )


def _parse_ks(text: str) -> list[int]:
    """``"1,3,5"`` or ``"1-30"`` or both (``"1-10,20,50"``) → sorted distinct cut-offs."""
    ks: set[int] = set()
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        lo, dash, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi if dash else lo)
        except ValueError:
            msg = f"--sweep-ks: {part!r} is not a cut-off or a range such as 1-30"
            raise _BadInput(msg) from None
        if a < 1 or b < a:
            raise _BadInput(f"--sweep-ks: {part!r}: cut-offs are whole numbers from 1 up")
        ks.update(range(a, b + 1))
    if not ks:
        raise _BadInput("--sweep-ks: give at least one cut-off")
    if len(ks) > 10_000:
        raise _BadInput("--sweep-ks: at most 10,000 cut-offs")
    return sorted(ks)


def _sweep_request(args: argparse.Namespace) -> tuple[list[int], dict[str, float]]:
    """(the sweep's cut-offs, its weights); no cut-offs when no sweep was asked for."""
    asked = args.sweep or any(x is not None for x in (args.sweep_ks, args.weights, args.scenario))
    if not asked:
        return [], {}
    weights = M.topk_weights(args.scenario or "", M.parse_topk_weights(args.weights or ""))
    return _parse_ks(args.sweep_ks or _SWEEP_KS), weights


def _sweep(
    arrays: M.EvalArrays,
    settings: M.EvalSettings,
    ks: list[int],
    scenario: str | None,
    weights: dict[str, float],
) -> dict[str, Any]:
    from goldsmith import reporting

    sweep = M.topk_sweep(arrays, ks, settings, weights)
    return reporting.topk_json(sweep, scenario or "", max(ks), {})


def _sweep_table(sweep: dict[str, Any], out: IO[str]) -> None:
    fams = list(sweep["weights"])
    terms = " + ".join(f"{w:g}·{f}@K" for f, w in sweep["weights"].items())
    total = sum(sweep["weights"].values())
    out.write(
        f"\ntop-K choice, scenario {sweep['scenario']}: score = ({terms}) / {total:g}, "
        f"over {sweep['n']} queries\n"
    )
    out.write(f"{'K':>5}" + "".join(f"  {f + '@K':>12}" for f in fams) + f"  {'score':>8}\n")
    for i, k in enumerate(sweep["ks"]):
        values = "".join(f"  {_f(sweep['means'][f][i]):>12}" for f in fams)
        mark = "  <- best K" if k == sweep["best_k"] else ""
        out.write(f"{k:>5}{values}  {_f(sweep['score'][i]):>8}{mark}\n")
    best = sweep["best_k"]
    out.write(
        f"best K: {'-' if best is None else best} (the highest score; the smallest K on a tie)\n"
        f"latency: {sweep['latency']['why']}\n"
    )


def _sweep_csv(sweep: dict[str, Any], out: IO[str]) -> None:
    fams = list(sweep["means"])
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["k", *fams, "score", "best"])
    for i, k in enumerate(sweep["ks"]):
        w.writerow(
            [k, *(sweep["means"][f][i] for f in fams), sweep["score"][i], k == sweep["best_k"]]
        )


# --------------------------------------------------------------------------------------------
# compare


def _compare(args: argparse.Namespace, out: IO[str]) -> None:
    metrics = _metric_list(args.metrics)
    by = _metric_list([args.by])[0] if args.by else _list_metric(metrics)
    scored = metrics if by in metrics else [*metrics, by]
    settings = _settings(args)
    retrieval, stage, answer = AR.split_metrics(scored)
    results_a: dict[str, M.EvalResult] = {}
    results_b: dict[str, M.EvalResult] = {}
    rows: list[M.MetricComparison] = []
    left_out: dict[str, str] = {}  # metric → why it is not compared (AR.unanswered)
    if retrieval:
        a, _ = _load(args, args.run_a, retrieval, settings)
        b, _ = _load(args, args.run_b, retrieval, settings)
        results_a, results_b = dict.fromkeys(retrieval, a), dict.fromkeys(retrieval, b)
        shown = [m for m in metrics if m in retrieval]
        if shown:
            rows = M.compare(
                a,
                b,
                metrics=shown,
                samples=args.bootstrap,
                permutations=args.permutations,
                seed=args.seed,
            )
    if stage or answer:
        sa, _, _ = _score_answers(args, args.run_a, [*stage, *answer], settings)
        sb, _, _ = _score_answers(args, args.run_b, [*stage, *answer], settings)
        results_a.update(sa.results())
        results_b.update(sb.results())
        asked = [m for m in metrics if m in stage or m in answer]
        left_out = AR.unanswered(sa, sb, asked)
        rows += AR.compare_answer_runs(
            sa,
            sb,
            asked,
            samples=args.bootstrap,
            permutations=args.permutations,
            seed=args.seed,
        )
        rows = AR.holm_over(rows)
        if by in left_out:
            raise _BadInput(f"--by {by}: not compared: {left_out[by]}")
    order = {m: i for i, m in enumerate(metrics)}
    rows.sort(key=lambda r: order[r.metric])
    changes = M.query_changes(results_a[by], results_b[by], by)
    if args.format == "json":
        doc = {
            "settings": {
                **settings.as_dict(),
                "metrics": metrics,
                "bootstrap": args.bootstrap,
                "permutations": args.permutations,
                "seed": args.seed,
                "qrels": args.qrels,
                "run_a": args.run_a,
                "run_b": args.run_b,
            },
            "n": rows[0].n if rows else 0,
            "metrics": {
                r.metric: {k: v for k, v in vars(r).items() if k != "metric"} for r in rows
            },
            # Only when a metric was left out: a script reading today's keys sees no new one.
            **({"not_compared": left_out} if left_out else {}),
            "changes": {
                "metric": changes.metric,
                "n": changes.n,
                "worse_count": len(changes.worse),
                "better_count": len(changes.better),
                "ties": changes.ties,
                "worse": [vars(c) for c in changes.worse],
                "better": [vars(c) for c in changes.better],
            },
        }
        _json(doc, out)
        return
    width = max(len(m) for m in metrics)
    out.write(
        f"{'metric':<{width}}  {'A':>6}  {'B':>6}  {'B-A':>7}  {'95% CI':^18}  "
        f"{'p rand':>6}  {'p t':>6}  {'p Holm':>6}  {'W/T/L':>11}\n"
    )
    for r in rows:
        ci = f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
        out.write(
            f"{r.metric:<{width}}  {_f(r.mean_a):>6}  {_f(r.mean_b):>6}  {r.diff:+.4f}  "
            f"{ci:^18}  {_f(r.p_randomization):>6}  {_f(r.p_ttest):>6}  "
            f"{_f(r.p_holm):>6}  {f'{r.wins}/{r.ties}/{r.losses}':>11}\n"
        )
    for why in left_out.values():
        out.write(f"not compared: {why}\n")
    out.write(
        f"\n{rows[0].n if rows else 0} queries in both; B - A; Holm over {len(rows)} "
        f"metrics; {args.permutations} sign-flip permutations.\n"
    )
    _changes_table(changes, args.list, out)


def _list_metric(metrics: Sequence[str]) -> str:
    """The default metric of the worse / better lists: the first recall@K, else the first."""
    return next((m for m in metrics if m.startswith("recall@")), metrics[0])


def _changes_table(changes: M.QueryChanges, limit: int, out: IO[str]) -> None:
    """The queries that got worse (worst first) and better (largest gain first), ``limit``
    of each."""
    if limit <= 0:
        return
    for title, rows in (("worse", changes.worse), ("better", changes.better)):
        out.write(
            f"\n{len(rows)} of {changes.n} queries {title} in B on {changes.metric}"
            f"{' (worst first)' if title == 'worse' else ' (largest gain first)'}"
            f"{f'; the first {limit}' if len(rows) > limit else ''}"
            f"{':' if rows else '.'}\n"
        )
        if not rows:
            continue
        shown = rows[:limit]
        width = max(len("query_id"), *(len(c.query_id) for c in shown))
        out.write(f"  {'query_id':<{width}}  {'A':>6}  {'B':>6}  {'B-A':>7}\n")
        for c in shown:
            out.write(f"  {c.query_id:<{width}}  {_f(c.a):>6}  {_f(c.b):>6}  {c.diff:+.4f}\n")


# --------------------------------------------------------------------------------------------
# drift

EXIT_DRIFT = 3
_DRIFT_EPILOG = """\
The verdict (of CURRENT_RUN, at K): pass when mean Recall@K and the pass rate reach their
targets, fail when either is below its floor, warn in between. Drift (against BASELINE_RUN):
mean Recall@K dropped by more than --max-recall-drop, the pass rate by more than
--max-pass-rate-drop, or a mean below its floor; limits are compared with a 1e-9 tolerance, so a
drop of exactly the limit does not fire. Each drop says whether it is beyond the noise (paired
randomization test on the queries scored in both runs, p < 0.05). The web app computes the same
numbers with the same functions.

A verdict needs judged@K of at least 0.8: below it the run is "not enough judgments"
(unjudged), which --gate warn stops on and --gate fail does not. With --corpus, the verdict and
the drift rules read the queries the corpus change did not touch.

exit status:
  0  no drift rule fired and the verdict is better than --gate
  2  bad input (one line on stderr)
  3  a drift rule fired, or the verdict is at or below --gate (default: fail)
"""


def _add_drift_parser(sub: Any) -> None:
    from goldsmith import bands

    dr = sub.add_parser(
        "drift",
        help="verdict of a run and its drift from a baseline run (exit 3 when a rule fires)",
        description="Verdict and drift of CURRENT_RUN against BASELINE_RUN on the same "
        "judgments, as the web app reports them.",
        epilog=_DRIFT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dr.add_argument("qrels")
    dr.add_argument("baseline_run")
    dr.add_argument("current_run")
    dr.add_argument(
        "--preset",
        choices=tuple(bands.PRESETS),
        default=bands.DEFAULT_PRESET,
        help="targets, floors and pass threshold (default %(default)s)",
    )
    dr.add_argument("--k", type=int, default=5, help="the headline K (default 5)")
    dr.add_argument("--relevance-level", type=int, default=2, metavar="N")
    dr.add_argument(
        "--order",
        choices=("rank", "score"),
        default="rank",
        help=ORDER_HELP,
    )
    dr.add_argument("--pass-threshold", type=float, metavar="X", help="default: the preset's")
    for name in ("recall-target", "recall-floor", "pass-rate-target", "pass-rate-floor"):
        dr.add_argument(f"--{name}", type=float, metavar="X", help="default: the preset's")
    dr.add_argument("--max-recall-drop", type=float, default=0.05, metavar="X")
    dr.add_argument("--max-pass-rate-drop", type=float, default=0.10, metavar="X")
    dr.add_argument("--gate", choices=("warn", "fail"), default="fail")
    dr.add_argument("--qrels-format", choices=("trec", "jsonl", "goldset"))
    dr.add_argument("--run-format", choices=("trec", "jsonl"))
    dr.add_argument("--permutations", type=int, default=10_000, metavar="N")
    dr.add_argument("--bootstrap", type=int, default=1000, metavar="N")
    dr.add_argument("--seed", type=int, default=0)
    dr.add_argument("--format", choices=("table", "json"), default="table")
    _add_corpus_option(dr)
    dr.add_argument(
        "--max-answer-drop",
        action="append",
        default=[],
        metavar="METRIC=X",
        help="a drop rule on an answer or first-stage metric, e.g. answer_correctness=0.05 or "
        "context_recall@5=0.05 (repeatable; fires on a drop of more than X, exit 3)",
    )
    _add_answer_options(dr)


def _answer_drop_limits(values: Sequence[str]) -> dict[str, float]:
    """``["answer_correctness=0.05"]`` → ``{"answer_correctness": 0.05}`` (answer and
    first-stage metrics only)."""
    out: dict[str, float] = {}
    for text in values:
        name, sep, value = text.partition("=")
        if not sep:
            raise _BadInput(
                f"--max-answer-drop {text!r}: write METRIC=X, e.g. answer_correctness=0.05"
            )
        metric = AS.parse_any_metric(name)
        if not (AS.is_answer_metric(metric) or AS.is_stage_metric(metric)):
            raise _BadInput(
                f"--max-answer-drop {text!r}: {metric} is a retrieval metric "
                "(its drop rules are --max-recall-drop and --max-pass-rate-drop)"
            )
        try:
            limit = float(value)
        except ValueError:
            raise _BadInput(f"--max-answer-drop {text!r}: {value!r} is not a number") from None
        if not 0.0 <= limit <= 1.0:
            raise _BadInput(f"--max-answer-drop {text!r}: the drop must be between 0 and 1")
        out[metric] = limit
    return out


def _drift(args: argparse.Namespace, out: IO[str]) -> int:
    from goldsmith import bands, verdicts

    if args.k < 1:
        raise _BadInput("--k must be at least 1")
    targets = bands.targets_for(args.preset, {f: getattr(args, f) for f in bands.TARGET_FIELDS})
    settings = M.EvalSettings(
        relevance_threshold=args.relevance_level,
        pass_threshold=targets.pass_threshold,
        order=args.order,
    )
    metrics = [f"recall@{args.k}", f"pass@{args.k}", f"judged@{args.k}"]
    baseline, _ = _load(args, args.baseline_run, metrics, settings)
    lists = _corpus_lists(args, metrics, args.k)
    arrays, _ = _load_arrays(args, args.current_run, metrics, settings, lists=lists)
    current = M.evaluate(arrays, None, metrics, settings)
    state = _corpus_state(args)
    section = None
    if state is not None and lists is not None:
        current, section = _corpus_section(args, state, current, arrays, lists, args.k)
    untouched = None
    if section is not None and section["stale"]:
        untouched = frozenset(current.query_ids) - frozenset(section["touched"])
    out_doc = verdicts.assess(
        current,
        k=args.k,
        targets=targets,
        drops=verdicts.DropLimits(args.max_recall_drop, args.max_pass_rate_drop),
        baseline=baseline,
        untouched=untouched,
        permutations=args.permutations,
        samples=args.bootstrap,
        seed=args.seed,
        # Every newly failing query, so that the count printed is the count, not a cap.
        newly_failing_limit=len(current.query_ids),
    )
    verdict, drift = out_doc["verdict"], out_doc["drift"]
    answer_limits = _answer_drop_limits(args.max_answer_drop)
    answers: dict[str, Any] | None = None
    if answer_limits:
        names = list(answer_limits)
        before, _, _ = _score_answers(args, args.baseline_run, names, settings)
        now, _, _ = _score_answers(args, args.current_run, names, settings)
        answers = AR.answer_drift(
            now,
            before,
            answer_limits,
            permutations=args.permutations,
            samples=args.bootstrap,
            seed=args.seed,
        )
    code = 0
    if drift["fired"] or verdicts.worse_or_equal(verdict["verdict"], args.gate):
        code = EXIT_DRIFT
    if answers is not None and answers["fired"]:
        code = EXIT_DRIFT
    if args.format == "json":
        doc = {
            "settings": {
                "preset": args.preset,
                "k": args.k,
                "relevance_threshold": args.relevance_level,
                "order": args.order,
                **vars(targets),
                "max_recall_drop": args.max_recall_drop,
                "max_pass_rate_drop": args.max_pass_rate_drop,
                "gate": args.gate,
                "permutations": args.permutations,
                "bootstrap": args.bootstrap,
                "seed": args.seed,
                "qrels": args.qrels,
                "baseline_run": args.baseline_run,
                "current_run": args.current_run,
            },
            "verdict": verdict,
            "drift": drift,
            **({"corpus": section} if section is not None else {}),
            # Only with --max-answer-drop: a script reading today's keys sees no new one.
            **({"answer_drift": answers} if answers is not None else {}),
            "exit_status": code,
        }
        _json(doc, out)
        return code
    if section is not None:
        _corpus_table(section, out)
    out.write(f"{verdict['summary']}\n{verdict['basis_words']}\n")
    before, now = drift["baseline"], drift["current"]
    out.write(
        f"baseline → current at K={args.k}: mean recall {_f(before['recall'])} → "
        f"{_f(now['recall'])}; pass rate {_f(before['pass_rate'])} → "
        f"{_f(now['pass_rate'])}\n"
    )
    for sig in drift["significance"].values():
        out.write(f"  {sig['words']}\n")
    for f in drift["fired"]:
        out.write(f"drift: {f['message']}\n")
    if answers is not None:
        for metric, sig in answers["significance"].items():
            out.write(
                f"baseline → current: mean {metric} {_f(answers['baseline'][metric])} → "
                f"{_f(answers['current'][metric])}\n  {sig['words']}\n"
            )
        for why in (answers.get("not_applied") or {}).values():
            out.write(f"rule not applied: {why}\n")
        for f in answers["fired"]:
            out.write(f"drift: {f['message']}\n")
    if not drift["fired"] and not (answers and answers["fired"]):
        out.write("no drift rule fired\n")
    failing = drift["newly_failing"]
    if failing:
        # The count first, the ids after a word saying they are ids: "failing now: 11" read
        # as eleven queries when it was query 11.
        shown = ", ".join(failing[:20])
        more = f", … ({len(failing) - 20} more)" if len(failing) > 20 else ""
        if len(failing) == 1:
            out.write(f"1 query passing in the baseline fails now (query id {shown})\n")
        else:
            out.write(
                f"{len(failing)} queries passing in the baseline fail now "
                f"(query ids {shown}{more})\n"
            )
    return code


# --------------------------------------------------------------------------------------------
# agreement


def _agreement(args: argparse.Namespace, out: IO[str]) -> None:
    from goldsmith import agreement as A

    rows = read_labels_csv(args.labels)
    report = A.agreement_by_group(rows)
    if args.format == "json":
        _json(report.to_json(), out)
        return
    pooled = report.pooled
    out.write(
        f"{pooled.n_items} items, {pooled.n_annotators} annotators, {pooled.n_labels} labels\n"
    )
    names = (
        "percent_agreement",
        "cohen_kappa",
        "cohen_kappa_linear",
        "cohen_kappa_quadratic",
        "gwet_ac1",
        "gwet_ac2_linear",
        "fleiss_kappa",
        "krippendorff_alpha_nominal",
        "krippendorff_alpha_ordinal",
    )
    for n in names:
        v = getattr(pooled, n)
        out.write(f"{n:<28} {'undefined' if v is None else f'{v:.4f}'}\n")
    out.write(
        "gwet_ac1, gwet_ac2_linear (linear weights on the label values) and fleiss_kappa are "
        "Gwet's definitions for missing labels (as irrCAC): an item labelled once counts in "
        "the category shares\n"
    )
    if pooled.unanimous:
        out.write("every label is identical: kappa is undefined (unanimous, not ambiguous)\n")
    if pooled.pairwise:
        out.write("\npairwise Cohen's kappa (items both judged):\n")
        for p in pooled.pairwise:
            k = "undefined" if p.kappa is None else f"{p.kappa:.4f}"
            out.write(f"  {p.annotator_a} / {p.annotator_b}: {k} over {p.n_items} items\n")
    if report.groups:
        out.write("\ngroup  items  agreement  kappa  note\n")
        for g, r in report.groups.items():
            k = "-" if r.cohen_kappa is None else f"{r.cohen_kappa:.4f}"
            pa = "-" if r.percent_agreement is None else f"{r.percent_agreement:.4f}"
            note = "unanimous" if r.unanimous else ""
            out.write(f"{g}  {r.n_items}  {pa}  {k}  {note}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
