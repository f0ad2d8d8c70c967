"""What a run's figures are: its report, verdict and drift against the baseline (recomputed
from the stored rows), quality bands, comparisons, downloads, drift alerts sent to a webhook,
and the way back into the annotation pools. The run's life cycle is services/runs.py, which
calls `run_report` and `run_assessment` when a run finishes."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from annotation.models import Chunk, PoolSource, Query
from annotation.models.judging import SourceKind
from annotation.services.pool_hits import pool_add_hits
from evaluation.models import (
    Baseline,
    DriftAlert,
    EvaluationRun,
    Matching,
    QueryResult,
    RetrieverKind,
    RunState,
)
from evaluation.selectors.corpus import chunk_places, chunk_texts, chunk_values, live_chunks
from evaluation.selectors.goldsets import golden_items
from evaluation.selectors.runs import pool_contributions, result_rows
from evaluation.services.answers import (
    answer_drift_of,
    answers_as_shown,
    compare_answers,
    run_answer_report,
)
from evaluation.services.endpoints import ssrf_policy
from evaluation.services.settings import ProjectSettings, project_settings, run_settings
from goldsmith import pool_bias, reporting, text, verdicts
from goldsmith.corpus import text_sha256
from goldsmith.formats import spreadsheets
from goldsmith.formats.trec import trec_list_in_order, write_trec_run
from goldsmith.retrievers import http


class RunInvalid(ValueError):
    """A run cannot be created, compared or pooled with these inputs; the message says why.

    Defined here, below services/runs.py (which imports this module to finish a run), so that
    both services raise the same error."""


# --------------------------------------------------------------------------------------------
# A run's figures: settings, report, verdict and drift, bands


def run_places(
    run: EvaluationRun, items: Sequence[reporting.GoldItem], rows: dict[str, reporting.ResultRow]
) -> dict[str, reporting.ChunkPlace] | None:
    if run.matching == Matching.CHUNK:
        return None
    ids = {c for r in rows.values() for c in r.ids} | {
        j.chunk_id for i in items for j in i.judgments
    }
    return chunk_places(project=run.project, chunk_ids=ids)


def corpus_assumed(run: EvaluationRun) -> bool:
    """Whether the run's corpus version is assumed (the live one at run time) rather than the
    one the retriever searched: HTTP retrievers and run files do not say which they searched."""
    return run.retriever.kind not in (RetrieverKind.BM25, RetrieverKind.TFIDF)


def run_corpus(
    run: EvaluationRun, items: Sequence[reporting.GoldItem], rows: dict[str, reporting.ResultRow]
) -> reporting.CorpusState | None:
    """The corpus the run ran against, for its report: the live chunks among the golden set's
    graded chunks and the retrieved ids, read from the chunks themselves (removed, text
    sha256 and text against each graded text), whether or not corpus versions exist (their
    numbers are labels only). None for a project without a corpus (a golden set and run files
    alone): nothing can be said of chunks that were never imported."""
    project = run.project
    if not Chunk.objects.filter(project=project).exists():
        return None
    graded = {
        j.chunk_id: text_sha256(j.text) for i in items for j in i.judgments if j.text is not None
    }
    ids = {j.chunk_id for i in items for j in i.judgments} | {
        c for r in rows.values() for c in r.ids
    }
    judged_on = run.version.corpus_version
    ran_on = run.corpus_version
    return reporting.CorpusState(
        live=live_chunks(project=project, chunk_ids=ids, graded=graded),
        judged_on=judged_on.number if judged_on is not None else None,
        ran_on=ran_on.number if ran_on is not None else None,
        assumed=corpus_assumed(run),
        label=run.version.label,
    )


def run_report(run: EvaluationRun) -> dict[str, Any]:
    """The report of a run, recomputed from its stored rows. The low-recall list's cut-off and
    the top-K weights are the project's at the time (the report states both); the corpus part
    (a stale golden set) is :func:`run_corpus`'s."""
    items = golden_items(version_id=run.version_id, machine_grades=run.machine_grades)
    rows = result_rows(run=run)
    project = run.project
    settings = project_settings(project=project)
    s = replace(
        run_settings(run),
        low_recall_cutoff=settings.low_recall_cutoff,
        topk_scenario=settings.topk_scenario,
        topk_weights=settings.topk_weights,
    )
    report = reporting.build_report(
        items,
        rows,
        s,
        places=run_places(run, items, rows),
        snippets=lambda ids: chunk_texts(project=project, chunk_ids=list(ids)),
        # Built-in retrievers return their lists by score, ties by id (trec_eval's rule);
        # HTTP retrievers and run files are scored in the order they gave.
        ranked_by="score"
        if run.retriever.kind in (RetrieverKind.BM25, RetrieverKind.TFIDF)
        else "retriever",
        corpus=run_corpus(run, items, rows),
    )
    report["settings"]["tokenizer"] = run.tokenizer  # "" unless a built-in index cut the texts
    report["machine_grades"] = machine_grades_statement(run)
    bias = run_pool_share(run)
    if bias is not None:  # no pool data (a golden set from a file): nothing said, not 0
        report["pool_bias"] = bias
    answers = run_answer_report(run, items, settings)
    if answers is not None:
        report["answers"] = answers
        if "quadrants" in answers:  # named as `goldsmith eval` prints them
            report["quadrants"] = answers["quadrants"]
    return report


def run_pool_share(run: EvaluationRun) -> dict[str, Any] | None:
    """The share of the golden set's judged candidates that the run's own retriever put in the
    pools (`goldsmith.pool_bias.pool_share`), or None without pool data."""
    data = pool_contributions(run=run)
    if data is None:
        return None
    judged, own, sources = data
    return pool_bias.pool_share(judged, own, sources).to_json()


def machine_grades_statement(run: EvaluationRun) -> dict[str, Any]:
    """What the report says of the version's machine grades (final grades a machine judge
    filled, provenance ``machine``): how many there are and whether they counted as judged;
    and of its simulated grades (provenance ``simulated``: the demo's), how many there are."""
    counts = run.version.counts or {}
    count = int(counts.get("machine_grades", 0))
    simulated = int(counts.get("simulated_grades", 0))
    included = run.machine_grades
    if not count and simulated:
        text = (
            f"{simulated} of the golden set's grades are simulated (made by a rule, as the "
            "demo's are, not by a person)."
        )
    elif not count:
        text = "The golden set holds no machine grade: every grade is a person's."
    elif included:
        text = (
            f"{count} grades of the golden set come from a machine judge (no person graded "
            "those chunks); they are counted as judged."
        )
    else:
        text = (
            f"{count} grades of the golden set come from a machine judge; they are left out: "
            "those chunks count as unjudged."
        )
    if count and simulated:
        text += f" {simulated} of its grades are simulated (made by a rule, not by a person)."
    return {"count": count, "included": included, "simulated": simulated, "text": text}


def run_scored(
    run: EvaluationRun, s: reporting.RunSettings, metric_names: Sequence[str] | None = None
) -> reporting.Scored:
    items = golden_items(version_id=run.version_id, machine_grades=run.machine_grades)
    rows = result_rows(run=run)
    return reporting.score(items, rows, s, run_places(run, items, rows), metric_names=metric_names)


def run_conditions(run: EvaluationRun) -> verdicts.Conditions:
    """What a baseline must share with a run for their figures to be compared."""
    return verdicts.Conditions(
        headline_k=run_settings(run).headline_k,
        relevance_threshold=run.relevance_threshold,
        matching=run.matching,
        pass_threshold=run.pass_threshold,
    )


def run_assessment(run: EvaluationRun, report: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run's verdict against the project's targets and floors, and its drift against the
    retriever's baseline (``drift`` None without one, for the baseline itself and for runs
    older than it). Numbers from `verdicts.assess`, as `goldsmith drift` computes them; the
    answer drop rules read the run's `report` being made (else the stored one) and the
    baseline's stored report."""
    settings = project_settings(project=run.project)
    targets = replace(settings.targets, pass_threshold=run.pass_threshold)
    s = run_settings(run)
    k = s.headline_k
    heads = [f"recall@{k}", f"pass@{k}", f"judged@{k}"]
    current = run_scored(run, s, metric_names=heads)
    stored = report if report is not None else (run.report or {})
    section = stored.get("corpus") or {}
    outside = (section.get("not_in_corpus") or {}).get("count")
    if outside and run.matching == Matching.CHUNK:
        # judged@K among the chunks of the corpus, as the report counts it
        state = run_corpus(run, golden_items(version_id=run.version_id), result_rows(run=run))
        if state is not None:
            current = replace(current, result=reporting.judged_in_corpus(current, state.live))
    untouched = untouched_of(current.result.query_ids, section)
    baseline = Baseline.objects.filter(retriever_id=run.retriever_id).select_related("run").first()
    if baseline is None or baseline.run_id == run.pk or baseline.run.created_at > run.created_at:
        return verdicts.assess(current.result, k=k, targets=targets, untouched=untouched)
    now, before = run_conditions(run), run_conditions(baseline.run)
    comparable = now == before
    out = verdicts.assess(
        current.result,
        k=k,
        targets=targets,
        drops=verdicts.DropLimits(settings.max_recall_drop, settings.max_pass_rate_drop),
        baseline=run_scored(baseline.run, s, metric_names=heads).result if comparable else None,
        conditions=now,
        baseline_conditions=before,
        untouched=untouched,
        baseline_untouched=untouched_of(
            current.result.query_ids, (baseline.run.report or {}).get("corpus") or {}
        ),
    )
    changed = []
    if baseline.run.version_id != run.version_id:
        changed.append("golden_set")
    if (
        baseline.run.retriever_fingerprint != run.retriever_fingerprint
        or baseline.run.tokenizer != run.tokenizer
    ):
        changed.append("retriever_config")
    if baseline.run.corpus_hash != run.corpus_hash:
        changed.append("corpus")
    out["drift"] = {"baseline_run": baseline.run_id, **out["drift"], "changed": changed}
    answer_drift = (
        answer_drift_of(run, baseline.run, settings.max_answer_drop, report) if comparable else None
    )
    if answer_drift is not None:
        out["drift"]["answer_drift"] = answer_drift
        out["drift"]["fired"] = [*out["drift"]["fired"], *answer_drift["fired"]]
    return out


def untouched_of(query_ids: Sequence[str], section: dict[str, Any]) -> frozenset[str] | None:
    """The queries a stored report's corpus part leaves untouched (None: the corpus did not
    touch the golden set, every query counts)."""
    if not section.get("stale"):
        return None
    touched = set(section.get("touched") or ())
    return frozenset(q for q in query_ids if q not in touched)


# --------------------------------------------------------------------------------------------
# Reports as shown and downloaded


def run_report_cached(run: EvaluationRun, **thresholds: float | None) -> dict[str, Any]:
    """The stored report of a finished run (recomputed from its rows if it is missing), as
    shown (:func:`report_as_shown`; ``recall_threshold``, ``correctness_threshold``)."""
    return report_as_shown(run, run.report if run.report else run_report(run), **thresholds)


def report_as_shown(
    run: EvaluationRun,
    report: dict[str, Any],
    *,
    recall_threshold: float | None = None,
    correctness_threshold: float | None = None,
    settings: ProjectSettings | None = None,
) -> dict[str, Any]:
    """A stored report with the project's top-K weights of today: the weights are a view of
    the stored means at each K, so editing them on the settings page needs no new run. The
    hints are derived again from the report's own figures (PostgreSQL's jsonb does not keep
    the order of their figures, and reports stored before hints existed get them too). The
    answer quadrants are placed under the project's thresholds of today, or the ones given.
    ``settings``: the project's, when the caller has read them already."""
    if not report or "settings" not in report:
        return report
    out = dict(report)
    settings = settings or project_settings(project=run.project)
    if out.get("topk"):
        out["topk"] = reporting.topk_reweigh(out["topk"], *settings.topk_choice)
    out["hints"] = reporting.hints(out)
    # the sentences' templates: the stored ones (those of a report computed now, from its
    # texts), the hints' of today
    stored = report.get("templates") or text.templates_of(report)
    out["templates"] = {
        **{at: t for at, t in stored.items() if not at.startswith("/hints/")},
        **text.templates_of(out["hints"], "/hints"),
    }
    if out.get("answers"):
        recall_t, correct_t = settings.quadrant_thresholds(run.pass_threshold)
        out["answers"] = answers_as_shown(
            run,
            out["answers"],
            recall_t if recall_threshold is None else recall_threshold,
            correct_t if correctness_threshold is None else correctness_threshold,
        )
        if "quadrants" in out["answers"]:
            out["quadrants"] = out["answers"]["quadrants"]
    return out


def per_query_rows(run: EvaluationRun) -> tuple[list[str], list[dict[str, Any]]]:
    """One row per golden query: its metrics at every K (and the answer and first-stage metrics
    of the stored report, empty where they do not apply), latency and error."""
    s = run_settings(run)
    scored = run_scored(run, s)
    rows = result_rows(run=run)
    items = {i.query_id: i for i in golden_items(version_id=run.version_id, with_judgments=False)}
    names = list(scored.result.metrics)
    answers = (run.report or {}).get("answers") or {}
    answer_values: dict[str, dict[str, Any]] = answers.get("per_query") or {}
    answer_names = [m for m in answers.get("metrics") or [] if m not in names]
    out = []
    for qid, values, included in zip(
        scored.result.query_ids, scored.result.values.tolist(), scored.result.included, strict=True
    ):
        row = rows.get(qid)
        item = items.get(qid)
        out.append(
            {
                "query_id": qid,
                "category": item.category if item else None,
                "stratum": item.stratum if item else None,
                "included": bool(included),
                **{m: (v if included else None) for m, v in zip(names, values, strict=True)},
                **{m: answer_values.get(qid, {}).get(m) for m in answer_names},
                "latency_ms": row.latency_ms if row else None,
                "error": row.error if row else "missing",
            }
        )
    return [*names, *answer_names], out


def report_csv(run: EvaluationRun) -> str:
    names, rows = per_query_rows(run)
    buffer = io.StringIO()
    fields = ["query_id", "category", "stratum", "included", *names, "latency_ms", "error"]
    writer = spreadsheets.writer(buffer)
    writer.writerow(fields)
    for row in rows:
        writer.writerow([row[f] for f in fields])
    return buffer.getvalue()


def report_download(run: EvaluationRun) -> dict[str, Any]:
    _names, rows = per_query_rows(run)
    return {
        "run": run.pk,
        "retriever": run.retriever.name,
        "version": {"label": run.version.label, "content_hash": run.version.content_hash},
        "report": run_report_cached(run),
        "per_query": rows,
    }


@dataclass(frozen=True)
class SavedRun:
    lines: int
    rescored_queries: int  # lists whose score column is 1/rank (original scores in `originals`)
    duplicates: int  # later copies of an id, dropped
    originals: Path | None  # the original scores of the rescored lists, when there are any


def original_scores_path(path: Path) -> Path:
    return path.with_name(path.name + ".original-scores.tsv")


def run_trec_save(*, run: EvaluationRun, path: Path) -> SavedRun:
    """The run's ranked lists as a TREC run ``qid Q0 chunk rank score goldsmith-run-N`` that
    trec_eval ranks exactly as the report did (docs/formats.md, "Saved runs").

    Failed queries have no line (they have no result). A list whose stored order is not
    trec_eval's order of its scores (ties not by id descending, scores that rise, missing
    scores: HTTP retrievers and run files keep the retriever's order) gets 1/rank in the score
    column; its original scores go to ``PATH.original-scores.tsv``. Both files are written
    whole or not at all; a stale scores file of an earlier save to the same path is removed."""
    rows = QueryResult.objects.filter(run=run, error="").order_by("query_id")
    tag = f"goldsmith-run-{run.pk}"
    lines = rescored = duplicates = 0
    originals = original_scores_path(path)
    partial = path.with_name(path.name + ".partial")
    partial_originals = originals.with_name(originals.name + ".partial")
    with (
        partial.open("w", encoding="utf-8") as out,
        partial_originals.open("w", encoding="utf-8", newline="") as side,
    ):
        table = csv.writer(side, delimiter="\t", lineterminator="\n")
        table.writerow(["query_id", "docno", "rank", "score"])
        for qid, ids, scores in rows.values_list("query_id", "ranked_ids", "scores").iterator():
            listed = trec_list_in_order(qid, ids, scores)
            write_trec_run(out, listed.rows, run_id=tag)
            lines += len(listed.rows)
            duplicates += listed.duplicates
            if not listed.scores_kept:
                rescored += 1
                table.writerows(
                    [qid, doc, rank, "" if score is None else repr(score)]
                    for rank, (doc, score) in enumerate(listed.original, 1)
                )
    partial.replace(path)
    if rescored:
        partial_originals.replace(originals)
    else:
        partial_originals.unlink()
        originals.unlink(missing_ok=True)
    return SavedRun(lines, rescored, duplicates, originals if rescored else None)


def compare_report(*, a: EvaluationRun, b: EvaluationRun) -> dict[str, Any]:
    """B against A; both must have succeeded on the same golden-set version. Both are scored
    with A's settings at the cut-offs they share; ``settings_differ`` names what B was run
    with otherwise (its own report used those)."""
    if a.version_id != b.version_id:
        raise RunInvalid(
            gettext(
                "run #%(run_a)s is on golden set %(version_a)s and run #%(run_b)s on "
                "%(version_b)s: a comparison needs two runs of the same version"
            )
            % {
                "run_a": a.pk,
                "version_a": a.version.label,
                "run_b": b.pk,
                "version_b": b.version.label,
            }
        )
    if a.state != RunState.SUCCEEDED or b.state != RunState.SUCCEEDED:
        raise RunInvalid(gettext("both runs must have succeeded"))
    if a.machine_grades != b.machine_grades:
        raise RunInvalid(
            gettext(
                "one run counts the golden set's machine grades and the other does not: compare "
                "runs that score them the same way"
            )
        )
    common = sorted(set(a.ks) & set(b.ks)) or sorted(set(a.ks))
    s = run_settings(a, ks=common)
    items = golden_items(version_id=a.version_id, with_texts=False, machine_grades=a.machine_grades)
    docs = a.matching != "chunk"  # both runs are matched as A is
    rows_a = result_rows(run=a, ranking_only=True, with_docs=docs)
    rows_b = result_rows(run=b, ranking_only=True, with_docs=docs)
    places = None
    if a.matching != "chunk":
        places = {**(run_places(a, items, rows_a) or {}), **(run_places(a, items, rows_b) or {})}
    out = reporting.compare_runs(items, rows_a, rows_b, s, places=places)
    out["a"] = {"id": a.pk, "retriever": a.retriever.name, "created_at": a.created_at.isoformat()}
    out["b"] = {"id": b.pk, "retriever": b.retriever.name, "created_at": b.created_at.isoformat()}
    out["version"] = a.version.label
    out["settings"] = {
        "ks": list(s.ks),
        "relevance_threshold": s.relevance_threshold,
        "gain": s.gain,
        "matching": s.matching,
        "pass_threshold": s.pass_threshold,
    }
    answers, not_comparable, without = compare_answers(a, b)
    if answers:
        out["answers"] = answers
    if not_comparable:
        out["answers_not_comparable"] = not_comparable
    if without:
        out["no_answers"] = without
    gap = pool_bias.pool_gap(
        (a.report or {}).get("pool_bias") or run_pool_share(a),
        (b.report or {}).get("pool_bias") or run_pool_share(b),
    )
    if gap is not None:
        out["pool_bias"] = gap
    out["settings_differ"] = [
        f"{name.replace('_', ' ')} {getattr(b, name)} (A: {getattr(a, name)})"
        for name in ("relevance_threshold", "gain", "matching", "pass_threshold", "tokenizer")
        if getattr(b, name) != getattr(a, name)
    ]
    return out


# --------------------------------------------------------------------------------------------
# Drift alerts


def _corpus_payload(section: dict[str, Any] | None) -> dict[str, Any] | None:
    """A webhook's word on a stale golden set: counts and the engine's sentences."""
    if not section:
        return None
    return {
        "stale": section.get("stale", False),
        "touched": len(section.get("touched") or []),
        "untouched": (section.get("untouched") or {}).get("queries"),
        "judged_on": section.get("judged_on"),
        "ran_on": section.get("ran_on"),
        "words": section.get("words") or [],
    }


def evaluation_alert_notify(*, alert_id: int) -> str:
    """POST a drift alert to the project's webhook (SSRF-checked). Raises TemporaryFailure for
    the task to retry."""
    alert = DriftAlert.objects.select_related("run", "run__project", "run__retriever").get(
        pk=alert_id
    )
    url = project_settings(project=alert.run.project).webhook_url
    if not url:
        return "no webhook"
    drift = (alert.run.report or {}).get("drift") or {}
    payload = {
        "event": "goldsmith.drift",
        "project": alert.run.project.name,
        "retriever": alert.run.retriever.name,
        "run": alert.run_id,
        "baseline_run": alert.baseline_run_id,
        "verdict": alert.run.verdict or None,
        "verdict_summary": ((alert.run.report or {}).get("verdict") or {}).get("summary"),
        # "unjudged" (not enough judgments) is a verdict too; what it rests on, in words
        "verdict_basis": ((alert.run.report or {}).get("verdict") or {}).get("basis_words"),
        "corpus": _corpus_payload((alert.run.report or {}).get("corpus")),
        "fired": alert.fired,
        "significance": drift.get("significance") or {},
        "comparable": drift.get("comparable", True),
        "settings_changed": drift.get("settings_changed") or [],
        "changed": alert.changed,
        "newly_failing": alert.newly_failing[:50],
    }
    try:
        status = http.post_json(url, payload, policy=ssrf_policy())
        alert.webhook_status = f"HTTP {status}"
    except http.PermanentFailure as error:
        alert.webhook_status = str(error)[:200]
    alert.save(update_fields=["webhook_status"])
    return alert.webhook_status


# --------------------------------------------------------------------------------------------
# Back into the annotation pools


@transaction.atomic
def pool_unjudged(*, run: EvaluationRun) -> dict[str, int]:
    """Add the unjudged chunks of the run's top K to the annotation pools, as a pool source
    named after the run, so that the next version can judge them."""
    if run.state != RunState.SUCCEEDED:
        raise RunInvalid(gettext("only a succeeded run's unjudged chunks can be pooled"))
    if run.matching != "chunk":
        raise RunInvalid(
            gettext("pooling needs chunk-id matching (document and span ids are not chunks)")
        )
    s = run_settings(run)
    scored = run_scored(run, s)
    pairs = reporting.unjudged_pairs(scored, s.headline_k)
    queries = {
        str(pk): pk for pk in Query.objects.filter(project=run.project).values_list("id", flat=True)
    }
    wanted = {c for _, c in pairs}
    rows = chunk_values(project=run.project, chunk_ids=wanted, fields=["id"], removed=False)
    chunks: dict[str, int] = dict(rows)
    hits: dict[int, list[int]] = {}
    skipped = 0
    for qid, chunk_id in pairs:
        if qid in queries and chunk_id in chunks:
            hits.setdefault(queries[qid], []).append(chunks[chunk_id])
        else:
            skipped += 1
    if not hits:
        return {"queries": 0, "chunks": 0, "new_candidates": 0, "skipped": skipped}
    name = f"run-{run.pk}-{run.retriever.name}"[:120]
    source, _ = PoolSource.objects.get_or_create(
        project=run.project, name=name, defaults={"kind": SourceKind.RUN, "k": s.headline_k}
    )
    result = pool_add_hits(source=source, hits=hits)
    return {
        "queries": len(hits),
        "chunks": sum(len(v) for v in hits.values()),
        "new_candidates": result.new_candidates,
        "skipped": skipped,
    }
