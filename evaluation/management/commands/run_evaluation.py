"""Evaluate a retriever against a frozen golden-set version, for CI.

--wait waits for the Celery job; --inline runs it in this process (no broker needed); neither
only queues it. --format json prints the aggregate in the shape of `goldsmith eval --format
json`. --save-run writes the ranked lists as a TREC run.

Every finished run has a verdict against the project's targets and floors at its headline K:
pass, warn or fail, or "not enough judgments" (unjudged) when judged@K is under 0.8. Exit
codes: 0 done, 1 the run failed or was cancelled (or --wait timed out), 2 bad input, 3 the
verdict is at or below the gate (--gate fail, the default: a fail; --gate warn: a warn, not
enough judgments or a fail) or a drift rule fired against the baseline (gate a deployment).
When the corpus changed since the golden set was judged, the output says so first, and the
verdict and drift read the queries the update did not touch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import bad_input, project_named
from evaluation.management.commands._args import retriever_named, version_labelled
from evaluation.models import EvaluationRun, Matching, RunState
from evaluation.services.reports import RunInvalid, corpus_assumed, per_query_rows, run_trec_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith import verdicts
from goldsmith.reporting import strict_json

EXIT_FAILED = 1
EXIT_DRIFT = 3  # also a verdict at or below the gate


def _corpus_version(run: EvaluationRun) -> dict[str, Any] | None:
    version = run.corpus_version
    if version is None:
        return None
    return {
        "number": version.number,
        "content_hash": version.content_hash,
        "assumed": corpus_assumed(run),
    }


class Command(BaseCommand):
    help = (
        "Run an evaluation of a retriever against a golden-set version. Exit codes: 0 done, "
        "1 the run failed, 2 bad input, 3 the verdict is at or below --gate or a drift rule fired."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):  # type: ignore[no-untyped-def]  # Django's signature, untyped
        # `--version LABEL` names the golden-set version; Django's own --version gives way.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]  # Django's signature, untyped
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument(
            "--version", dest="label", default="latest", help="version label (default: latest)"
        )
        parser.add_argument("--retriever", required=True, help="retriever name")
        parser.add_argument("--k", type=int, nargs="+", default=None, help="cut-offs (5 10)")
        parser.add_argument("--relevance-threshold", type=int, choices=(1, 2), default=2)
        parser.add_argument("--gain", choices=("linear", "exp"), default="linear")
        parser.add_argument("--matching", choices=Matching.values, default=Matching.CHUNK)
        parser.add_argument("--pass-threshold", type=float, default=None)
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--wait", action="store_true", help="wait for the Celery job")
        mode.add_argument("--inline", action="store_true", help="run here, without a broker")
        parser.add_argument("--timeout", type=float, default=3600, help="--wait limit (s)")
        parser.add_argument("--format", choices=("table", "json"), default="table")
        parser.add_argument("--per-query", action="store_true", help="json: per-query values")
        parser.add_argument("--save-run", metavar="PATH", help="write the ranked lists (TREC)")
        parser.add_argument(
            "--gate",
            choices=("warn", "fail"),
            default="fail",
            help="the verdict that exits 3: fail (default) or warn (a warn or a fail)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        project = project_named(o["project"])
        version = version_labelled(project, o["label"])
        retriever = retriever_named(project, o["retriever"])
        if o["save_run"] and not Path(o["save_run"]).resolve().parent.is_dir():
            raise bad_input(f"--save-run: {Path(o['save_run']).parent} is not a folder")
        try:
            run = evaluation_run_create(
                project=project,
                retriever=retriever,
                version=version,
                ks=o["k"],
                relevance_threshold=o["relevance_threshold"],
                gain=o["gain"],
                matching=o["matching"],
                pass_threshold=o["pass_threshold"],
                trigger="cli",
                enqueue=not o["inline"],
            )
        except RunInvalid as error:
            raise bad_input(str(error)) from None
        if o["inline"]:
            run = evaluation_run_execute_inline(run_id=run.pk)
        elif o["wait"]:
            run = self._wait(run, o["timeout"])
        else:
            self.stdout.write(f"queued run {run.pk} ({run.total} queries)")
            return
        if o["save_run"]:
            self._save_run(run, Path(o["save_run"]))
        if run.state != RunState.SUCCEEDED:
            raise CommandError(f"run {run.pk} {run.state}: {run.error}", returncode=EXIT_FAILED)
        for warning in (run.report or {}).get("warnings") or []:
            self.stderr.write(f"warning: {warning}")
        if o["format"] == "json":
            self._json(run, per_query=o["per_query"])
        else:
            self._table(run)
        self._gate(run, o["gate"])

    def _gate(self, run: EvaluationRun, gate: str) -> None:
        """Exit 3 when the verdict is at or below the gate or a drift rule fired."""
        report = run.report or {}
        problems = []
        verdict = report.get("verdict") or {}
        if run.verdict and verdicts.worse_or_equal(run.verdict, gate):
            problems.append(f"verdict {run.verdict} (gate: {gate}): {verdict.get('summary', '')}")
        drift = report.get("drift") or {}
        if drift.get("note"):
            self.stderr.write(drift["note"])
        if drift.get("fired"):
            reasons = "; ".join(verdicts.fired_messages(drift))
            changed = ", ".join(drift.get("changed") or []) or "nothing recorded"
            problems.append(
                f"drift against baseline run {drift['baseline_run']}: {reasons} "
                f"(changed since: {changed})"
            )
        if problems:
            raise CommandError(" | ".join(problems), returncode=EXIT_DRIFT)

    def _save_run(self, run: EvaluationRun, path: Path) -> None:
        saved = run_trec_save(run=run, path=path)
        self.stderr.write(f"wrote {saved.lines} lines to {path}")
        if saved.duplicates:
            self.stderr.write(
                f"{saved.duplicates} repeated ids left out (a list counts an id once)"
            )
        if saved.rescored_queries:
            self.stderr.write(
                f"{saved.rescored_queries} lists are in the retriever's order, not trec_eval's "
                f"order of their scores: their score column is 1/rank, so that trec_eval ranks "
                f"them as the report did; their original scores are in {saved.originals}"
            )

    def _wait(self, run: EvaluationRun, timeout: float) -> EvaluationRun:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.finished:
                return run
            time.sleep(0.5)
        raise CommandError(
            f"run {run.pk} did not finish within {timeout:g}s (is a worker running?)",
            returncode=EXIT_FAILED,
        )

    def _json(self, run: EvaluationRun, per_query: bool) -> None:
        report = run.report
        doc: dict[str, Any] = {
            "settings": {
                **{
                    k: report["settings"][k]
                    for k in (
                        "relevance_threshold",
                        "gain",
                        "pass_threshold",
                        "order",
                        "no_relevant",
                    )
                },
                "metrics": list(report["aggregate"]),
                "bootstrap": report["settings"]["bootstrap_samples"],
                "seed": 0,
                "run": run.pk,
                "retriever": run.retriever.name,
                "version": run.version.label,
                "content_hash": run.version.content_hash,
                "matching": run.matching,
            },
            "aggregate": report["aggregate"],
        }
        if per_query:
            _names, rows = per_query_rows(run)
            metric_names = list(report["aggregate"])
            doc["per_query"] = {
                r["query_id"]: {m: r[m] for m in metric_names} for r in rows if r["included"]
            }
        doc["excluded"] = {
            "no_relevant_chunk": report["excluded"]["no_relevant"],
            "not_in_qrels": [],
        }
        doc["failed"] = report["counts"]["failed"]
        doc["corpus_version"] = _corpus_version(run)
        doc["corpus"] = report.get("corpus")
        doc["verdict"] = report.get("verdict")
        doc["drift"] = report.get("drift")
        self.stdout.write(json.dumps(strict_json(doc), indent=1))

    def _table(self, run: EvaluationRun) -> None:
        report = run.report
        for line in (report.get("corpus") or {}).get("words") or []:
            self.stdout.write(line)  # a stale golden set is said first
        counts = report["counts"]
        self.stdout.write(
            f"run {run.pk}: {run.retriever.name} on {run.version.label} "
            f"({counts['queries']} queries, {counts['included']} scored, "
            f"{counts['no_relevant']} without a relevant chunk, {counts['failed']} failed)"
        )
        self.stdout.write(f"{'metric':<14}{'mean':>9}{'95% CI':>20}{'n':>7}")
        for name, a in report["aggregate"].items():
            mean = "-" if a["mean"] is None else f"{a['mean']:.4f}"
            ci = "" if a["ci_low"] is None else f"[{a['ci_low']:.4f}, {a['ci_high']:.4f}]"
            self.stdout.write(f"{name:<14}{mean:>9}{ci:>20}{a['n']:>7}")
        lat = report.get("latency") or {}
        if lat.get("n"):
            self.stdout.write(
                f"latency ms: p50 {lat['p50']:.1f}  p95 {lat['p95']:.1f}  p99 {lat['p99']:.1f}"
            )
        if report.get("verdict"):
            self.stdout.write(report["verdict"]["summary"])
            if report["verdict"].get("basis_words"):
                self.stdout.write(report["verdict"]["basis_words"])
        version = _corpus_version(run)
        if version is not None:
            assumed = " (assumed: the live corpus at run time)" if version["assumed"] else ""
            self.stdout.write(f"corpus version {version['number']}{assumed}")
        for sig in ((report.get("drift") or {}).get("significance") or {}).values():
            self.stdout.write(f"against the baseline: {sig['words']}")
