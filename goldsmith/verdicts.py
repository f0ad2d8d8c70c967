"""Verdicts and drift: is a run good enough, and is it worse than its baseline?

Pure module (numpy; no Django). The web app (``evaluation_run_finish``), ``run_evaluation`` and
``goldsmith drift`` all call :func:`assess`, so the verdict, the rules that fired and the
significance a CI job computes from files equal the ones on the run page.

Conventions (docs/design.md, "Targets, floors, verdicts and drift"), at the headline K:

- **Verdict**, for every run, baseline or not, from mean Recall@K and the pass rate (mean
  pass@K, the share of queries whose Recall@K ≥ the pass threshold):
  ``pass`` when both reach their targets, ``fail`` when either is under its floor, ``warn``
  otherwise. A run with no scored query (every mean NaN) fails.
- **Not enough judgments** (``unjudged``): when the mean judged@K of the queries the verdict
  rests on is below ``MIN_JUDGED`` (0.8, within the tolerance), the unjudged chunks (scored as
  not relevant) weigh too much for pass, warn or fail to be fair, and the run gets ``unjudged``
  instead. A gate of ``warn`` stops on it, a gate of ``fail`` does not.
- **What a verdict rests on**: the queries in its means (those with a relevant chunk, and the
  ones missing from the run, which score 0), among the queries a corpus update did not touch
  when ``untouched`` is given (docs/design.md, "Corpus versions"). When more than
  ``LEFT_OUT_WARNING`` (20 %) of the golden set's queries are left out (no relevant chunk,
  touched by an update) or missing from the run, the verdict carries a warning naming them.
- The drop rules compare the untouched queries only, those untouched in both runs when the
  baseline's are given too.
- **Drift** against a baseline, only when the two are comparable: same headline K, relevance
  threshold, matching mode and pass threshold. Otherwise the report lists each change in plain
  words ("top-K 5 → 20") and the drop rules are not applied across it (the floors still are).
  Drop rules: mean Recall@K dropped by more than 0.05, pass rate by more than 0.10.
- Every limit is compared with a tolerance of ``presets.TOLERANCE`` (1e-9): a value within it of
  a limit counts as reaching it, so a drop of exactly 0.05 (0.90 → 0.85, 0.05000000000000004 in
  floating point) does not fire, and a mean of 0.7999999999999999 meets a target of 0.8.
- **Significance** of a change: a two-sided paired randomization (sign-flip) test of the mean
  difference over the queries scored in both runs (sorted by query id, so the result does not
  depend on the order the files list them), with a percentile bootstrap 95 % CI of that mean
  difference. The change is "beyond the noise" when p < 0.05, else "within noise". It is stated
  beside each drop; it does not decide whether a rule fires.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from goldsmith import metrics, stats
from goldsmith.bands import TOLERANCE, Targets
from goldsmith.reporting import json_number
from goldsmith.text import Text, id_order, joined, say

Verdict = Literal["pass", "warn", "unjudged", "fail"]
VERDICTS: tuple[Verdict, ...] = ("pass", "warn", "unjudged", "fail")
# How bad each verdict is for a gate: "not enough judgments" stops a gate of warn, not of fail.
_SEVERITY: dict[str, int] = {"pass": 0, "warn": 1, "unjudged": 1, "fail": 2}
MIN_JUDGED = 0.8  # judged@K a verdict needs (docs/design.md, "Metric conventions")
LEFT_OUT_WARNING = 0.2  # share of left-out or missing queries above which a verdict warns
NAMED = 20  # query ids a verdict names per kind
ALPHA = 0.05
PERMUTATIONS = 10_000
BOOTSTRAP_SAMPLES = 1000


def worse_or_equal(verdict: str, gate: str) -> bool:
    """True when ``verdict`` is at least as bad as ``gate`` (``warn`` or ``fail``). Not enough
    judgments (``unjudged``) counts as a warn: a gate of warn stops on it, one of fail does not."""
    if verdict not in VERDICTS or gate not in VERDICTS:
        raise ValueError(f"verdicts are {', '.join(VERDICTS)}; not {verdict!r} / {gate!r}")
    return _SEVERITY[verdict] >= _SEVERITY[gate]


# --------------------------------------------------------------------------------------------
# Verdict


def verdict_of(recall: float, pass_rate: float, t: Targets) -> Verdict:
    """pass / warn / fail from mean Recall@K and the pass rate (see the module docstring)."""
    if not (recall >= t.recall_floor - TOLERANCE and pass_rate >= t.pass_rate_floor - TOLERANCE):
        return "fail"  # also when a mean is NaN
    if recall >= t.recall_target - TOLERANCE and pass_rate >= t.pass_rate_target - TOLERANCE:
        return "pass"
    return "warn"


def _band(value: float, target: float, floor: float) -> str:
    if not value >= floor - TOLERANCE:
        return "poor"
    return "good" if value >= target - TOLERANCE else "fair"


def _mean(result: metrics.EvalResult, metric: str) -> float:
    col = result.column(metric)
    return float(col.mean()) if len(col) else math.nan


UNDEFINED = say("undefined (no relevant chunk)")  # a mean over no query


def _recall_words(value: float, k: int, t: Targets) -> Text:
    figures = {
        "k": k,
        "value": UNDEFINED if value != value else f"{value:.3f}",
        "target": f"{t.recall_target:.2f}",
        "floor": f"{t.recall_floor:.2f}",
    }
    if not value >= t.recall_floor - TOLERANCE:
        return say("mean Recall@%(k)s %(value)s is below its floor %(floor)s", **figures)
    if not value >= t.recall_target - TOLERANCE:
        return say(
            "mean Recall@%(k)s %(value)s is below its target %(target)s (above its floor "
            "%(floor)s)",
            **figures,
        )
    return say("mean Recall@%(k)s %(value)s meets its target %(target)s", **figures)


def _pass_words(value: float, k: int, t: Targets) -> Text:
    figures = {
        "k": k,
        "threshold": f"{t.pass_threshold:g}",
        "value": UNDEFINED if value != value else f"{value:.0%}",
        "target": f"{t.pass_rate_target:.0%}",
        "floor": f"{t.pass_rate_floor:.0%}",
    }
    if not value >= t.pass_rate_floor - TOLERANCE:
        return say(
            "pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) is below its floor %(floor)s",
            **figures,
        )
    if not value >= t.pass_rate_target - TOLERANCE:
        return say(
            "pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) is below its target "
            "%(target)s (above its floor %(floor)s)",
            **figures,
        )
    return say(
        "pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) meets its target %(target)s",
        **figures,
    )


def verdict_report(
    result: metrics.EvalResult,
    k: int,
    t: Targets,
    *,
    untouched: Collection[str] | None = None,
    min_judged: float = MIN_JUDGED,
) -> dict[str, Any]:
    """The verdict of a scored run, JSON-ready: the verdict, both means with their targets,
    floors and bands, what it rests on (``basis``), its judged@K when ``result`` holds it, and
    one plain sentence. ``untouched``: the queries a corpus update did not touch; the verdict
    reads those only (the others are named in ``basis.touched``)."""
    scope = result if untouched is None else metrics.restrict(result, untouched)
    recall = _mean(scope, f"recall@{k}")
    pass_rate = _mean(scope, f"pass@{k}")
    judged_metric = f"judged@{k}"
    judged = _mean(scope, judged_metric) if judged_metric in scope.metrics else math.nan
    verdict = verdict_of(recall, pass_rate, t)
    basis = verdict_basis(result, scope, untouched)
    all_touched = recall != recall and basis["touched"] > 0
    if all_touched or (recall == recall and judged == judged and judged < min_judged - TOLERANCE):
        verdict = "unjudged"
    if all_touched:
        summary: str = say(
            "Not enough judgments: a corpus update touched every query with a relevant chunk "
            "(%(n)s), so no query is left to judge the retriever by. Re-judge the touched "
            "queries.",
            n=basis["touched"],
        )
    elif verdict == "unjudged":
        summary = say(
            "Not enough judgments: judged@%(k)s is %(judged)s, under %(min)s: the unjudged "
            "chunks count as not relevant, so pass, warn or fail would not be fair (%(recall)s; "
            "%(pass_rate)s). Judge them first: send them to the annotation pools.",
            k=k,
            judged=f"{judged:.2f}",
            min=f"{min_judged:.2f}",
            recall=_recall_words(recall, k, t),
            pass_rate=_pass_words(pass_rate, k, t),
        )
    else:
        summary = say(
            "%(verdict)s: %(recall)s; %(pass_rate)s.",
            verdict={
                "pass": say("Pass: the run meets its targets"),
                "warn": say("Warn: the run is above its floors but below a target"),
                "fail": say("Fail: the run is below a floor"),
            }[verdict],
            recall=_recall_words(recall, k, t),
            pass_rate=_pass_words(pass_rate, k, t),
        )
    return {
        "verdict": verdict,
        "k": k,
        "queries": int(scope.included.sum()),
        "recall": {
            "metric": f"recall@{k}",
            "mean": json_number(recall),
            "target": t.recall_target,
            "floor": t.recall_floor,
            "band": _band(recall, t.recall_target, t.recall_floor),
        },
        "pass_rate": {
            "metric": f"pass@{k}",
            "mean": json_number(pass_rate),
            "target": t.pass_rate_target,
            "floor": t.pass_rate_floor,
            "band": _band(pass_rate, t.pass_rate_target, t.pass_rate_floor),
        },
        "judged": {"metric": judged_metric, "mean": json_number(judged), "min": min_judged},
        "pass_threshold": t.pass_threshold,
        "basis": basis,
        "basis_words": " ".join(basis_words(basis)),
        "summary": summary,
    }


def verdict_basis(
    result: metrics.EvalResult,
    scope: metrics.EvalResult,
    untouched: Collection[str] | None,
    *,
    named: int = NAMED,
) -> dict[str, Any]:
    """What a verdict rests on: the golden set's queries (``total``), those in its means
    (``queries``), and the ones left out (no relevant chunk; touched by a corpus update) or
    missing from the run (scored 0), each counted and the first ``named`` of each in the order a
    reader counts ids (:func:`goldsmith.text.id_order`: q2 before q10). The
    ``warning`` is set when left-out and missing queries together are more than
    ``LEFT_OUT_WARNING`` of the golden set."""
    total = len(result.query_ids)
    touched = sorted(
        (q for q in result.query_ids if untouched is not None and q not in untouched), key=id_order
    )
    no_relevant = sorted(scope.no_relevant, key=id_order)
    missing = sorted(scope.missing_from_run, key=id_order)
    apart = len(touched) + len(no_relevant) + len(missing)
    share = apart / total if total else 0.0
    return {
        "total": total,
        "queries": int(scope.included.sum()),
        "no_relevant": len(no_relevant),
        "touched": len(touched),
        "missing": len(missing),
        "named": {
            "no_relevant": no_relevant[:named],
            "touched": touched[:named],
            "missing": missing[:named],
        },
        "left_out_share": share,
        "warning": share > LEFT_OUT_WARNING + TOLERANCE,
    }


def basis_words(basis: Mapping[str, Any]) -> list[Text]:
    """The verdict's basis in sentences: what it rests on and, when the warning is set, the
    warning and one sentence per kind of query left out, naming them (:func:`verdict_basis`)."""
    out = [
        say(
            "The verdict rests on %(n)s of the golden set's %(total)s queries.",
            n=basis["queries"],
            total=basis["total"],
        )
    ]
    if not basis.get("warning"):
        return out
    named = basis.get("named") or {}

    def listed(kind: str) -> dict[str, Any]:
        """How many of ``kind`` there are (``n``) and the ids named (``ids``)."""
        ids = list(named.get(kind) or [])
        return {"n": basis[kind], "ids": ", ".join(ids) + (" …" if basis[kind] > len(ids) else "")}

    out.append(
        say(
            "Warning: %(share)s of the queries are left out or missing from the run, more "
            "than %(limit)s:",
            share=f"{basis['left_out_share']:.0%}",
            limit=f"{LEFT_OUT_WARNING:.0%}",
        )
    )
    if basis["no_relevant"]:
        out.append(say("%(n)s without a relevant chunk: %(ids)s", **listed("no_relevant")))
    if basis["touched"]:
        out.append(say("%(n)s touched by a corpus update: %(ids)s", **listed("touched")))
    if basis["missing"]:
        out.append(say("%(n)s missing from the run: %(ids)s", **listed("missing")))
    return out


# --------------------------------------------------------------------------------------------
# Comparability with the baseline


@dataclass(frozen=True)
class Conditions:
    """What must be equal for two runs' figures to be compared."""

    headline_k: int
    relevance_threshold: int
    matching: str
    pass_threshold: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _change_words(setting: str, before: Any, after: Any) -> Text:
    if setting == "headline_k":
        return say("top-K %(before)s → %(after)s", before=before, after=after)
    if setting == "relevance_threshold":
        return say(
            "relevance threshold grade ≥ %(before)s → grade ≥ %(after)s", before=before, after=after
        )
    if setting == "matching":
        return say("matching by %(before)s → by %(after)s", before=before, after=after)
    return say(
        "pass threshold Recall@K ≥ %(before)s → Recall@K ≥ %(after)s",
        before=f"{before:g}",
        after=f"{after:g}",
    )


def condition_changes(before: Conditions, now: Conditions) -> list[dict[str, Any]]:
    """Each setting that differs, with its words: ``top-K 5 → 20``."""
    out = []
    for name in ("headline_k", "relevance_threshold", "matching", "pass_threshold"):
        a, b = getattr(before, name), getattr(now, name)
        same = abs(a - b) <= TOLERANCE if isinstance(a, float) else a == b
        if not same:
            out.append(
                {"setting": name, "before": a, "after": b, "words": _change_words(name, a, b)}
            )
    return out


# --------------------------------------------------------------------------------------------
# Significance


def _scored(result: metrics.EvalResult, metric: str) -> dict[str, float]:
    """``metric`` of every query in the means (query id → value)."""
    j = result.metrics.index(metric)
    values = result.values[:, j].tolist()
    return {
        q: v for q, v, inc in zip(result.query_ids, values, result.included, strict=True) if inc
    }


def significance(
    current: metrics.EvalResult,
    baseline: metrics.EvalResult,
    metric: str,
    *,
    permutations: int = PERMUTATIONS,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """Is the change of ``metric`` from ``baseline`` to ``current`` beyond the noise?

    Over the queries scored in both runs (sorted by query id): the mean of each, the mean
    difference (current − baseline) with a bootstrap CI, the paired randomization p-value and
    a label, "beyond the noise" (p < 0.05) or "within noise"."""
    before, now = _scored(baseline, metric), _scored(current, metric)
    common = sorted(before.keys() & now.keys())
    a = np.array([before[q] for q in common], dtype=np.float64)
    b = np.array([now[q] for q in common], dtype=np.float64)
    n = len(common)
    if n == 0:
        return {
            "metric": metric,
            "n": 0,
            "before": None,
            "after": None,
            "diff": None,
            "ci_low": None,
            "ci_high": None,
            "p_value": None,
            "beyond_noise": False,
            "words": say("no query scored in both runs: the change cannot be tested"),
        }
    diff = b - a
    p = float(stats.randomization_test(diff, permutations=permutations, seed=seed)[0])
    low, high = stats.bootstrap_ci(diff, samples=samples, seed=seed)
    mean_diff = float(diff.mean())
    beyond = p < ALPHA
    figures = {
        "label": say("beyond the noise") if beyond else say("within noise"),
        "metric": metric,
        "diff": f"{mean_diff:+.3f}",
        "n": n,
        "p": f"{p:.3g}",
    }
    if samples <= 0:
        words = say(
            "%(label)s: %(metric)s %(diff)s on the %(n)s queries scored in both runs (paired "
            "randomization p = %(p)s)",
            **figures,
        )
    else:
        words = say(
            "%(label)s: %(metric)s %(diff)s on the %(n)s queries scored in both runs (paired "
            "randomization p = %(p)s, 95%% CI of the change %(low)s to %(high)s)",
            low=f"{float(low[0]):+.3f}",
            high=f"{float(high[0]):+.3f}",
            **figures,
        )
    return {
        "metric": metric,
        "n": n,
        "before": float(a.mean()),
        "after": float(b.mean()),
        "diff": mean_diff,
        "ci_low": json_number(float(low[0])),
        "ci_high": json_number(float(high[0])),
        "p_value": p,
        "beyond_noise": beyond,
        "words": words,
    }


# --------------------------------------------------------------------------------------------
# Everything at once


@dataclass(frozen=True)
class DropLimits:
    """The drop rules (None: off)."""

    max_recall_drop: float | None = 0.05
    max_pass_rate_drop: float | None = 0.10


def assess(
    current: metrics.EvalResult,
    *,
    k: int,
    targets: Targets,
    drops: DropLimits | None = None,
    baseline: metrics.EvalResult | None = None,
    conditions: Conditions | None = None,
    baseline_conditions: Conditions | None = None,
    permutations: int = PERMUTATIONS,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    newly_failing_limit: int = 200,
    untouched: Collection[str] | None = None,
    baseline_untouched: Collection[str] | None = None,
) -> dict[str, Any]:
    """The verdict of ``current`` and, when a ``baseline`` result is given, its drift.

    Returns ``{"verdict": verdict_report(...), "drift": None | {...}}``. The drift part holds
    ``comparable`` and ``settings_changed`` (when ``conditions`` differ, the baseline's figures
    are not compared: pass ``baseline=None`` there or they are ignored), the rules that
    ``fired`` (each drop with its ``significance``), ``significance`` of both headline metrics,
    the baseline's and current means, and ``newly_failing`` queries. The caller adds what
    changed in the data (golden set, retriever configuration, corpus).

    ``untouched``: the queries the corpus update since the golden set was judged did not
    touch (None: every query); the verdict reads those only. ``baseline_untouched``: the same
    for the baseline's run. The drop rules and their significance compare the queries in both
    (``drift.queries`` says how many), so no rule fires on a query the corpus moved."""
    drops = drops or DropLimits()
    recall_metric, pass_metric = f"recall@{k}", f"pass@{k}"
    verdict = verdict_report(current, k, targets, untouched=untouched)
    has_baseline = baseline is not None or baseline_conditions is not None
    if not has_baseline:
        return {"verdict": verdict, "drift": None}
    compared: frozenset[str] | None = None
    if untouched is not None or baseline_untouched is not None:
        now_ok = set(current.query_ids) if untouched is None else set(untouched)
        before_ok = (
            set(baseline.query_ids if baseline is not None else now_ok)
            if baseline_untouched is None
            else set(baseline_untouched)
        )
        compared = frozenset(now_ok & before_ok)
        current = metrics.restrict(current, compared)
        if baseline is not None:
            baseline = metrics.restrict(baseline, compared)
    changes = (
        condition_changes(baseline_conditions, conditions)
        if baseline_conditions is not None and conditions is not None
        else []
    )
    comparable = not changes and baseline is not None
    rules = metrics.DriftRules(
        recall_metric=recall_metric,
        pass_metric=pass_metric,
        max_recall_drop=drops.max_recall_drop,
        max_pass_rate_drop=drops.max_pass_rate_drop,
        min_recall=targets.recall_floor,
        min_pass_rate=targets.pass_rate_floor,
    )
    before = baseline if comparable else None
    report = metrics.check_drift(current, before, rules)
    sig: dict[str, Any] = {}
    if before is not None:
        for m in (recall_metric, pass_metric):
            sig[m] = significance(
                current, before, m, permutations=permutations, samples=samples, seed=seed
            )
    fired = []
    for f in report.fired:
        entry: dict[str, Any] = {
            "rule": f.rule,
            "value": json_number(f.value),
            "limit": f.limit,
            "baseline": None if f.baseline is None else json_number(f.baseline),
            "message": f.message,
            "significance": None,
        }
        if f.rule == "max_recall_drop":
            entry["significance"] = sig[recall_metric]
        elif f.rule == "max_pass_rate_drop":
            entry["significance"] = sig[pass_metric]
        if entry["significance"] is not None:
            entry["message"] = with_significance(f.message, entry["significance"])
        fired.append(entry)
    note = ""
    if changes:
        note = say(
            "changed since the baseline: %(changes)s — the drop rules are not applied across it",
            changes=joined([c["words"] for c in changes]),
        )
    return {
        "verdict": verdict,
        "drift": {
            "comparable": comparable,
            "settings_changed": changes,
            "note": note,
            "k": k,
            "limits": {
                "max_recall_drop": drops.max_recall_drop,
                "max_pass_rate_drop": drops.max_pass_rate_drop,
                "recall_floor": targets.recall_floor,
                "pass_rate_floor": targets.pass_rate_floor,
            },
            "current": {
                "recall": json_number(_mean(current, recall_metric)),
                "pass_rate": json_number(_mean(current, pass_metric)),
            },
            "baseline": (
                {
                    "recall": json_number(_mean(before, recall_metric)),
                    "pass_rate": json_number(_mean(before, pass_metric)),
                }
                if before is not None
                else None
            ),
            "fired": fired,
            "significance": sig,
            "newly_failing": list(report.newly_failing[:newly_failing_limit]),
            # Only when a corpus update touched queries: how many were compared.
            **(
                {"untouched_queries": len(compared & set(current.query_ids))}
                if compared is not None
                else {}
            ),
        },
    }


def with_significance(message: str, sig: Mapping[str, Any]) -> Text:
    """A drop rule's message with the significance of the change after a dash."""
    return say("%(rule)s — %(significance)s", rule=message, significance=sig["words"])


def fired_messages(drift: Mapping[str, Any] | None) -> Sequence[str]:
    """The plain sentences of the rules that fired (for alerts and exit messages)."""
    return [f["message"] for f in (drift or {}).get("fired") or []]
