"""Sentences about a run said in the reader's language, from the figures its report stores.

A run's report is computed once, by a worker, and stored as JSON; its verdict carries an English
`summary` (the engine's, `goldsmith.verdicts.verdict_report`, which the command line prints).
A page says the same sentence again from the stored figures (the verdict, each mean with its
target, floor and band), so that a reader of another language reads it in theirs.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext


def _recall_words(recall: dict[str, Any], k: int) -> str:
    mean = recall.get("mean")
    values = {
        "k": k,
        "value": gettext("undefined (no relevant chunk)") if mean is None else f"{mean:.3f}",
        "target": f"{recall['target']:.2f}",
        "floor": f"{recall['floor']:.2f}",
    }
    if recall.get("band") == "poor":
        return gettext("mean Recall@%(k)s %(value)s is below its floor %(floor)s") % values
    if recall.get("band") == "fair":
        return (
            gettext(
                "mean Recall@%(k)s %(value)s is below its target %(target)s (above its floor "
                "%(floor)s)"
            )
            % values
        )
    return gettext("mean Recall@%(k)s %(value)s meets its target %(target)s") % values


def _pass_words(pass_rate: dict[str, Any], k: int, threshold: float) -> str:
    mean = pass_rate.get("mean")
    values = {
        "k": k,
        "threshold": f"{threshold:g}",
        "value": gettext("undefined (no relevant chunk)") if mean is None else f"{mean:.0%}",
        "target": f"{pass_rate['target']:.0%}",
        "floor": f"{pass_rate['floor']:.0%}",
    }
    if pass_rate.get("band") == "poor":
        return (
            gettext(
                "pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) is below its floor %(floor)s"
            )
            % values
        )
    if pass_rate.get("band") == "fair":
        return (
            gettext(
                "pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) is below its target "
                "%(target)s (above its floor %(floor)s)"
            )
            % values
        )
    return (
        gettext("pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) meets its target %(target)s")
        % values
    )


def verdict_in_words(verdict: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stored verdict with its `summary` said in the active language (itself when it lacks
    a figure the sentence needs: a report stored before the figures were)."""
    if not verdict:
        return verdict
    try:
        k = verdict["k"]
        recall = _recall_words(verdict["recall"], k)
        pass_rate = _pass_words(verdict["pass_rate"], k, verdict["pass_threshold"])
        heading = {
            "pass": gettext("Pass: the run meets its targets"),
            "warn": gettext("Warn: the run is above its floors but below a target"),
            "fail": gettext("Fail: the run is below a floor"),
        }[verdict["verdict"]]
    except (KeyError, TypeError, ValueError):
        return verdict
    summary = gettext("%(verdict)s: %(recall)s; %(pass_rate)s.") % {
        "verdict": heading,
        "recall": recall,
        "pass_rate": pass_rate,
    }
    return {**verdict, "summary": summary}
