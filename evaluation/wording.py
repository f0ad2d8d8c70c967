"""Sentences about a run said in the reader's language, from the figures its report stores.

A run's report is computed once, by a worker, and stored as JSON; its verdict carries an English
`summary` (the engine's, `goldsmith.verdicts.verdict_report`, which the command line prints).
A page says the same sentence again from the stored figures (the verdict, each mean with its
target, floor and band), so that a reader of another language reads it in theirs.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_lazy, pgettext

from goldsmith import reporting, verdicts
from sitewide.i18n import localize


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
    basis = verdict.get("basis")
    shown: dict[str, Any] = dict(verdict)
    if basis:  # what the verdict rests on: the engine's sentences, said again
        shown["basis_lines"] = [localize(t) for t in verdicts.basis_words(basis)]
    try:
        k = verdict["k"]
        recall = _recall_words(verdict["recall"], k)
        pass_rate = _pass_words(verdict["pass_rate"], k, verdict["pass_threshold"])
        if verdict["verdict"] == "unjudged":
            judged = (verdict.get("judged") or {}).get("mean")
            if judged is None:
                summary = gettext(
                    "Not enough judgments: a corpus update touched every query with a relevant "
                    "chunk (%(n)s), so no query is left to judge the retriever by. Re-judge the "
                    "touched queries."
                ) % {"n": basis["touched"]}
            else:
                summary = gettext(
                    "Not enough judgments: judged@%(k)s is %(judged)s, under %(min)s: the "
                    "unjudged chunks count as not relevant, so pass, warn or fail would not be "
                    "fair (%(recall)s; %(pass_rate)s). Judge them first: send them to the "
                    "annotation pools."
                ) % {
                    "k": k,
                    "judged": f"{judged:.2f}",
                    "min": f"{verdict['judged']['min']:.2f}",
                    "recall": recall,
                    "pass_rate": pass_rate,
                }
            return {**shown, "summary": summary}
        heading = {
            "pass": gettext("Pass: the run meets its targets"),
            "warn": gettext("Warn: the run is above its floors but below a target"),
            "fail": gettext("Fail: the run is below a floor"),
        }[verdict["verdict"]]
    except (KeyError, TypeError, ValueError):
        return shown
    summary = gettext("%(verdict)s: %(recall)s; %(pass_rate)s.") % {
        "verdict": heading,
        "recall": recall,
        "pass_rate": pass_rate,
    }
    return {**shown, "summary": summary}


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
# Drift: the rules that fired and the significance of a change (goldsmith.verdicts.assess)


def significance_in_words(sig: dict[str, Any] | None) -> str | None:
    """The `words` of a stored significance (`goldsmith.verdicts.significance`) in the active
    language; the stored words when a figure is missing."""
    if not sig:
        return None
    stored = sig.get("words")
    try:
        if not sig["n"]:
            return gettext("no query scored in both runs: the change cannot be tested")
        label = gettext("beyond the noise") if sig["beyond_noise"] else gettext("within noise")
        values = {
            "label": label,
            "metric": sig["metric"],
            "diff": f"{sig['diff']:+.3f}",
            "n": sig["n"],
            "p": f"{sig['p_value']:.3g}",
        }
        if sig.get("ci_low") is None or sig.get("ci_high") is None:
            return (
                gettext(
                    "%(label)s: %(metric)s %(diff)s on the %(n)s queries scored in both runs "
                    "(paired randomization p = %(p)s)"
                )
                % values
            )
        return gettext(
            "%(label)s: %(metric)s %(diff)s on the %(n)s queries scored in both runs "
            "(paired randomization p = %(p)s, 95%% CI of the change %(low)s to %(high)s)"
        ) % {**values, "low": f"{sig['ci_low']:+.3f}", "high": f"{sig['ci_high']:+.3f}"}
    except (KeyError, TypeError, ValueError):
        return stored


def _mean_words(value: float | None) -> str:
    return gettext("undefined (no relevant chunk)") if value is None else f"{value:.4f}"


def fired_rule_in_words(rule: dict[str, Any], k: int | None) -> str:
    """The `message` of a stored drift rule that fired (`goldsmith.metrics.check_drift`, with
    its significance after a dash) in the active language, from its figures and the headline
    K; the stored message when a figure is missing."""
    stored = str(rule.get("message", ""))
    if k is None:
        return stored
    try:
        name, value, limit = rule["rule"], rule["value"], rule["limit"]
        recall, passing = f"recall@{k}", f"pass@{k}"
        if name == "min_recall":
            text = gettext("mean %(metric)s %(value)s is below the floor %(floor)s") % {
                "metric": recall,
                "value": _mean_words(value),
                "floor": f"{limit:.2f}",
            }
        elif name == "min_pass_rate":
            text = gettext("pass rate (%(metric)s) %(value)s is below the floor %(floor)s") % {
                "metric": passing,
                "value": _mean_words(value),
                "floor": f"{limit:.2f}",
            }
        elif name in ("max_recall_drop", "max_pass_rate_drop", "max_answer_drop"):
            before = rule["baseline"]
            metric = {"max_recall_drop": recall, "max_pass_rate_drop": passing}.get(name)
            values = {
                "metric": metric or str(rule["metric"]),
                "drop": f"{before - value:.4f}",
                "before": f"{before:.4f}",
                "after": f"{value:.4f}",
                "limit": f"{limit:g}",
            }
            if name in ("max_recall_drop", "max_answer_drop"):
                text = (
                    gettext(
                        "mean %(metric)s dropped %(drop)s (%(before)s → %(after)s), more than "
                        "%(limit)s"
                    )
                    % values
                )
            else:
                text = (
                    gettext(
                        "pass rate (%(metric)s) dropped %(drop)s (%(before)s → %(after)s), more "
                        "than %(limit)s"
                    )
                    % values
                )
        else:
            return stored
        sig = rule.get("significance")
        if sig:
            text = gettext("%(rule)s — %(significance)s") % {
                "rule": text,
                "significance": significance_in_words(sig),
            }
    except (KeyError, TypeError, ValueError):
        return stored
    return text


def _change_words(change: dict[str, Any]) -> str:
    """One setting changed since the baseline (`goldsmith.verdicts.condition_changes`)."""
    before, after = change["before"], change["after"]
    setting = change["setting"]
    if setting == "headline_k":
        return gettext("top-K %(before)s → %(after)s") % {"before": before, "after": after}
    if setting == "relevance_threshold":
        return gettext("relevance threshold grade ≥ %(before)s → grade ≥ %(after)s") % {
            "before": before,
            "after": after,
        }
    if setting == "matching":
        return gettext("matching by %(before)s → by %(after)s") % {
            "before": before,
            "after": after,
        }
    if setting == "pass_threshold":
        return gettext("pass threshold Recall@K ≥ %(before)s → Recall@K ≥ %(after)s") % {
            "before": f"{before:g}",
            "after": f"{after:g}",
        }
    raise KeyError(setting)


def _note_words(drift: dict[str, Any]) -> str:
    """The drift's `note` (settings changed since the baseline) in the active language."""
    stored = str(drift.get("note") or "")
    changes = drift.get("settings_changed") or []
    if not stored or not changes:
        return stored
    try:
        words = pgettext("list separator", ", ").join(_change_words(c) for c in changes)
    except (KeyError, TypeError, ValueError):
        return stored
    return gettext(
        "changed since the baseline: %(changes)s — the drop rules are not applied across it"
    ) % {"changes": words}


def drift_in_words(drift: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored drift (a report's `drift`) with the words of its rules, significances and note
    said in the active language."""
    if not drift:
        return drift
    k = drift.get("k")
    return {
        **drift,
        "note": _note_words(drift),
        "fired": [{**f, "message": fired_rule_in_words(f, k)} for f in drift.get("fired") or []],
        "significance": {
            name: {**sig, "words": significance_in_words(sig)}
            for name, sig in (drift.get("significance") or {}).items()
        },
    }


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


# --------------------------------------------------------------------------------------------
# The four quadrants of the answer diagnosis (goldsmith.answers.quadrants: the same words)

QUADRANT_TITLES = {
    "low_recall_low_correctness": gettext_lazy("Context missed, answer wrong"),
    "low_recall_high_correctness": gettext_lazy("Context missed, answer right"),
    "high_recall_low_correctness": gettext_lazy("Context found, answer wrong"),
    "high_recall_high_correctness": gettext_lazy("Context found, answer right"),
}
QUADRANT_ADVICE = {
    "low_recall_low_correctness": gettext_lazy(
        "Retrieval is the first suspect: look at chunking, query rewriting, the top-K given to "
        "the model, the reranker, and whether the golden set covers these questions."
    ),
    "low_recall_high_correctness": gettext_lazy(
        "Right without the key facts in context: the question may be too easy (the model "
        "knows the answer), or the reference facts are incomplete or linked to the wrong chunks."
    ),
    "high_recall_low_correctness": gettext_lazy(
        "Generation is the suspect: the facts were in context but the answer missed them. Look "
        "at the prompt, how the answer integrates several facts, and hallucinated details."
    ),
    "high_recall_high_correctness": gettext_lazy(
        "Working: keep these as regression cases, and look here for the hard cases worth "
        "adding to the golden set."
    ),
}
# What to look at for a quadrant's unfaithful queries (goldsmith.answers.quadrants: the same words)
UNFAITHFUL_ADVICE = {
    "low_recall_low_correctness": gettext_lazy(
        "The answer says what its contexts do not: with the key facts missing, the model "
        "filled the gap itself. Fix retrieval first, and have the prompt tell the model to say "
        "when the contexts do not hold the answer."
    ),
    "low_recall_high_correctness": gettext_lazy(
        "Right, but not from its contexts: the model answered from what it knows. Retrieval "
        "missed the facts; the answer will not hold for what the model does not know."
    ),
    "high_recall_low_correctness": gettext_lazy(
        "Context found, answer unfaithful: the prompt or the model, not retrieval. Look at the "
        "grounding instructions, the temperature and the model, and at the claims listed."
    ),
    "high_recall_high_correctness": gettext_lazy(
        "Right, yet it claims more than its contexts hold: the prompt or the model adds "
        "details; check the claims listed before they turn wrong."
    ),
}
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


# --- the answer scorers' reasons (goldsmith.answers.scoring), said again in the reader's words.
# The report stores them in English, as the engine and `goldsmith eval` give them; a page
# matches each against the engine's own sentence shapes and says it with gettext. A reason of
# another shape (an answer judge's own words) is shown as it came.

_FACTS = r"(?P<facts>facts? \d+(?:, \d+)*(?: and \d+)?)"


def _facts_words(text: str) -> str:
    """ "fact 2" / "facts 1, 2 and 3" in the reader's words."""
    numbers = re.findall(r"\d+", text)
    if len(numbers) == 1:
        return gettext("fact %(n)s") % {"n": numbers[0]}
    return gettext("facts %(first)s and %(last)s") % {
        "first": ", ".join(numbers[:-1]),
        "last": numbers[-1],
    }


_REASONS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"all (?P<n>\d+) facts in the top (?P<k>\d+) contexts"),
     lambda m: gettext("all %(n)s facts in the top %(k)s contexts") % m.groupdict()),
    (re.compile(r"the fact is in the top (?P<k>\d+) contexts"),
     lambda m: gettext("the fact is in the top %(k)s contexts") % m.groupdict()),
    (re.compile(_FACTS + r" not in the top (?P<k>\d+) contexts"),
     lambda m: gettext("%(facts)s not in the top %(k)s contexts")
     % {"facts": _facts_words(m["facts"]), "k": m["k"]}),
    (re.compile(r"all (?P<n>\d+) facts stated"),
     lambda m: gettext("all %(n)s facts stated") % m.groupdict()),
    (re.compile(r"the fact is stated"), lambda m: gettext("the fact is stated")),
    (re.compile(_FACTS + r" missing"),
     lambda m: gettext("%(facts)s missing") % {"facts": _facts_words(m["facts"])}),
    (re.compile(r"token F1 (?P<f1>[\d.]+) against the reference answer \(no key facts\)"),
     lambda m: gettext("token F1 %(f1)s against the reference answer (no key facts)")
     % m.groupdict()),
    (re.compile(r"token F1 (?P<f1>[\d.]+) against the reference answer"),
     lambda m: gettext("token F1 %(f1)s against the reference answer") % m.groupdict()),
    (re.compile(r"CMRC 2018 F1 (?P<f1>[\d.]+) against the reference answer"
                r"(?P<tail> \(no key facts\))?"),
     lambda m: (gettext("CMRC 2018 F1 %(f1)s against the reference answer (no key facts)")
                if m["tail"] else gettext("CMRC 2018 F1 %(f1)s against the reference answer"))
     % {"f1": m["f1"]}),
    (re.compile(r"(?P<kind>token|CMRC 2018) F1 (?P<f1>[\d.]+) against reference answer "
                r"(?P<i>\d+) of (?P<n>\d+)(?P<tail> \(no key facts\))?"),
     lambda m: (gettext("%(kind)s F1 %(f1)s against reference answer %(i)s of %(n)s "
                        "(no key facts)") if m["tail"]
                else gettext("%(kind)s F1 %(f1)s against reference answer %(i)s of %(n)s"))
     % {"kind": gettext("token") if m["kind"] == "token" else "CMRC 2018", "f1": m["f1"],
        "i": m["i"], "n": m["n"]}),
    (re.compile(r"the text of the reference answer \((?P<rule>.+) normalisation\)"),
     lambda m: gettext("the text of the reference answer (%(rule)s normalisation)")
     % m.groupdict()),
    (re.compile(r"the text of reference answer (?P<i>\d+) of (?P<n>\d+) "
                r"\((?P<rule>.+) normalisation\)"),
     lambda m: gettext("the text of reference answer %(i)s of %(n)s (%(rule)s normalisation)")
     % m.groupdict()),
    (re.compile(r"not the text of a reference answer \((?P<rule>.+) normalisation\)"),
     lambda m: gettext("not the text of a reference answer (%(rule)s normalisation)")
     % m.groupdict()),
    (re.compile(r"missing from the run"), lambda m: gettext("missing from the run")),
    (re.compile(r"no response in the run"), lambda m: gettext("no response in the run")),
    (re.compile(r"says (?P<a>.+), as the reference"),
     lambda m: gettext("says %(a)s, as the reference") % m.groupdict()),
    (re.compile(r"says (?P<a>.+) but also (?P<b>.+)"),
     lambda m: gettext("says %(a)s but also %(b)s") % m.groupdict()),
    (re.compile(r"says (?P<a>.+), reference (?P<b>.+)"),
     lambda m: gettext("says %(a)s, reference %(b)s") % m.groupdict()),
    (re.compile(r"states no number \(reference (?P<a>.+)\)"),
     lambda m: gettext("states no number (reference %(a)s)") % m.groupdict()),
    (re.compile(r"states no date \(reference (?P<a>.+)\)"),
     lambda m: gettext("states no date (reference %(a)s)") % m.groupdict()),
    (re.compile(r"the reference (?P<a>.+) states no number"),
     lambda m: gettext("the reference %(a)s states no number") % m.groupdict()),
    (re.compile(r"the reference (?P<a>.+) states no date"),
     lambda m: gettext("the reference %(a)s states no date") % m.groupdict()),
    (re.compile(r"the reference (?P<a>.+) is not yes or no"),
     lambda m: gettext("the reference %(a)s is not yes or no") % m.groupdict()),
    (re.compile(r"no yes/no answer found \(reference (?P<a>.+)\)"),
     lambda m: gettext("no yes/no answer found (reference %(a)s)") % m.groupdict()),
    (re.compile(r"names no choice \(reference (?P<a>.+)\)"),
     lambda m: gettext("names no choice (reference %(a)s)") % m.groupdict()),
    (re.compile(r"names several choices: (?P<a>.+)"),
     lambda m: gettext("names several choices: %(a)s") % m.groupdict()),
    (re.compile(r"chose (?P<a>.+), as the reference"),
     lambda m: gettext("chose %(a)s, as the reference") % m.groupdict()),
    (re.compile(r"chose (?P<a>.+), reference (?P<b>.+)"),
     lambda m: gettext("chose %(a)s, reference %(b)s") % m.groupdict()),
]  # fmt: skip


def answer_reason_words(reason: str) -> str:
    """An answer scorer's stored reason in the reader's language: each "; "-separated part
    that has one of the engine's shapes is said again with gettext; any other part (an answer
    judge's own words) is kept as it is."""
    parts = []
    for part in reason.split("; "):
        for pattern, say_again in _REASONS:
            match = pattern.fullmatch(part)
            if match:
                parts.append(say_again(match))
                break
        else:
            parts.append(part)
    return gettext("; ").join(parts) if len(parts) > 1 else parts[0]
