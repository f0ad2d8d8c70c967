"""Words the run pages add to a stored report, in the reader's language: a verdict's name, the
settings of a comparison, the answer metrics' names, and the corpus part said again from its
figures. The engine's own sentences (the verdict, the drift, the answer scorers' reasons) are
stored with their templates and said by `sitewide.i18n.localized`.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy

from goldsmith import reporting
from sitewide.i18n import localize

VERDICT_WORDS = {
    "pass": gettext_lazy("pass"),
    "warn": gettext_lazy("warn"),
    "fail": gettext_lazy("fail"),
    "unjudged": gettext_lazy("not enough judgments"),
}


def verdict_label(verdict: str) -> str:
    """A verdict value in plain words ("not enough judgments" for ``unjudged``)."""
    return str(VERDICT_WORDS.get(verdict, verdict))


def corpus_in_words(section: dict[str, Any] | None) -> list[str]:
    """The stored corpus part of a report (`goldsmith.reporting.corpus_report`) in sentences
    in the active language, from its figures."""
    if not section:
        return []
    try:
        return [localize(t) for t in reporting.corpus_words(section)]
    except (KeyError, TypeError, ValueError):
        return list(section.get("words") or [])


# --------------------------------------------------------------------------------------------
# Comparison: the settings B was run with that differ from A's


def _setting_names() -> dict[str, str]:
    return {
        "relevance_threshold": gettext("relevance threshold"),
        "gain": gettext("gain"),
        "matching": gettext("matching"),
        "pass_threshold": gettext("pass threshold"),
        "tokenizer": gettext("tokenizer"),
    }


def settings_differ_in_words(a: Any, b: Any) -> list[str]:
    """What `compare_report`'s `settings_differ` says (``gain exponential (A: linear)``), in
    the active language: each setting of run `b` that differs from run `a`'s."""
    return [
        gettext("%(setting)s %(b)s (A: %(a)s)")
        % {"setting": name, "b": getattr(b, field), "a": getattr(a, field)}
        for field, name in _setting_names().items()
        if getattr(b, field) != getattr(a, field)
    ]


ANSWER_METRIC_NAMES = {
    "context_recall": gettext_lazy("context recall"),
    "answer_correctness": gettext_lazy("answer correctness"),
    "fact_coverage": gettext_lazy("key facts stated"),
    "answer_f1": gettext_lazy("F1 against the reference answers"),
    "exact_match": gettext_lazy("exact match (closed answers)"),
    "squad_em": gettext_lazy("exact text match (open answers)"),
    "faithfulness": gettext_lazy("faithfulness (claims the contexts support)"),
    "answer_relevance": gettext_lazy("answer relevance (from the judge)"),
}


# A metric family's name on the pages (compare, the settings' band table).
FAMILY_LABELS = {
    "recall": gettext_lazy("Recall"),
    "precision": gettext_lazy("Precision"),
    "hit": gettext_lazy("Hit rate"),
    "mrr": "MRR",
    "ndcg": "nDCG",
    "map": "MAP",
    "pass": gettext_lazy("Pass rate"),
    "judged": gettext_lazy("Judged"),
    "f1": "F1",
}
