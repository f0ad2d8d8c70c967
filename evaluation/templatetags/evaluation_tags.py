"""Small formatting filters for evaluation pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import template
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy

from evaluation.wording import ANSWER_METRIC_NAMES, FAMILY_LABELS, verdict_label
from sitewide.i18n import engine_word as _engine_word
from sitewide.i18n import localized

register = template.Library()


@register.filter
def family_word(family: Any) -> str:
    """A metric family's name in the reader's language (the compare page's names)."""
    return str(FAMILY_LABELS.get(str(family), family))


@register.filter
def metric_words(name: Any) -> str:
    """A metric's key in the reader's words: recall@5 → "Recall@5" (召回率@5), context_recall@5
    → "Context recall@5"; a key without words (nDCG's, a first stage's) as it is."""
    family, at, k = str(name).partition("@")
    words = FAMILY_LABELS.get(family) or ANSWER_METRIC_NAMES.get(family)
    if words is None:
        return str(name)
    return f"{capfirst(str(words))}{at}{k}"


@register.filter
def gain_word(code: Any) -> str:
    """nDCG's gain, as a run stores it ("linear" or "exp"), in words."""
    return str(gettext_lazy("exponential") if code == "exp" else gettext_lazy("linear"))


@register.filter
def engine_word(word: Any) -> str:
    """A word the engine keeps as data (a preset's or a top-K scenario's name and text, a call
    setting's label) in the reader's language."""
    return str(_engine_word(str(word))) if word else ""


def _number(write: Callable[[float], str]) -> Callable[[Any], str]:
    """A filter that writes a number with `write` ("–" for what is not one: None, "", text)."""

    def filter_(value: Any) -> str:
        try:
            return write(float(value))
        except (TypeError, ValueError):
            return "–"

    return filter_


pct = register.filter("pct", _number(lambda v: f"{v * 100:.0f}%"))
ms = register.filter("ms", _number(lambda v: f"{v:.1f} ms"))
pvalue = register.filter("pvalue", _number(lambda v: "<0.001" if v < 0.001 else f"{v:.3f}"))
signed = register.filter("signed", _number(lambda v: f"{v:+.3f}"))
# Three decimals ("0.812"): ``floatformat:3`` without its Decimal and localisation work, which
# cost the compare page a third of its time.
f3 = register.filter("f3", _number(lambda v: f"{v:.3f}"))


@register.filter
def mean_of(aggregate: Any, metric: str) -> str:
    """`report.aggregate|mean_of:"recall@10"` → "0.812" (– when absent)."""
    try:
        return f3(aggregate[metric]["mean"])
    except (KeyError, TypeError):
        return "–"


@register.filter
def get(mapping: Any, key: str) -> Any:
    try:
        return mapping[key]
    except (KeyError, TypeError, IndexError):
        return None


@register.filter
def fired_words(alert: Any) -> list[str]:
    """A drift alert's fired rules, each said in the active language from the template its
    run's report keeps (the alert holds the report's ``drift.fired``)."""
    templates = (alert.run.report or {}).get("templates")
    shown = localized({"drift": {"fired": list(alert.fired or [])}}, templates)
    return [str(rule.get("message", "")) for rule in shown["drift"]["fired"]]


@register.filter
def verdict_words(verdict: Any) -> str:
    """A verdict value in plain words ("not enough judgments", never the code)."""
    return verdict_label(str(verdict))


@register.filter
def verdict_class(verdict: Any) -> str:
    """The badge class of a verdict: ok, warn (also not enough judgments) or bad."""
    return {"pass": "ok", "warn": "warn", "unjudged": "warn"}.get(str(verdict), "bad")
