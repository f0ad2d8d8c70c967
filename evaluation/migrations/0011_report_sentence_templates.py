# A stored report keeps each of the engine's sentences as its template and values beside its
# English (report["templates"], goldsmith.text.templates_of), so that a page says it in its
# reader's language. Reports stored before are given theirs here, once: the verdict, the drift
# and the note from their figures, the answer scorers' reasons and conflicts from their English
# (the only place the old English is read back), the quadrants' words as they were. A sentence
# of another shape (an answer judge's own words) gets no template and is shown as it came.

from __future__ import annotations

import re
from typing import Any

from django.db import migrations


def said(template: str, **values: Any) -> dict[str, Any]:
    return {"template": template, "values": values} if values else {"template": template}


UNDEFINED = said("undefined (no relevant chunk)")


# --- the verdict, from its figures (goldsmith.verdicts.verdict_report at 2b7882b)


def _recall(recall: dict[str, Any], k: int) -> dict[str, Any]:
    mean = recall.get("mean")
    values = {
        "k": k,
        "value": UNDEFINED if mean is None else f"{mean:.3f}",
        "target": f"{recall['target']:.2f}",
        "floor": f"{recall['floor']:.2f}",
    }
    if recall.get("band") == "poor":
        return said("mean Recall@%(k)s %(value)s is below its floor %(floor)s", **values)
    if recall.get("band") == "fair":
        return said(
            "mean Recall@%(k)s %(value)s is below its target %(target)s (above its floor "
            "%(floor)s)",
            **values,
        )
    return said("mean Recall@%(k)s %(value)s meets its target %(target)s", **values)


def _pass(rate: dict[str, Any], k: int, threshold: float) -> dict[str, Any]:
    mean = rate.get("mean")
    values = {
        "k": k,
        "threshold": f"{threshold:g}",
        "value": UNDEFINED if mean is None else f"{mean:.0%}",
        "target": f"{rate['target']:.0%}",
        "floor": f"{rate['floor']:.0%}",
    }
    what = "pass rate %(value)s (Recall@%(k)s ≥ %(threshold)s) "
    if rate.get("band") == "poor":
        return said(what + "is below its floor %(floor)s", **values)
    if rate.get("band") == "fair":
        return said(what + "is below its target %(target)s (above its floor %(floor)s)", **values)
    return said(what + "meets its target %(target)s", **values)


HEADINGS = {
    "pass": "Pass: the run meets its targets",
    "warn": "Warn: the run is above its floors but below a target",
    "fail": "Fail: the run is below a floor",
}


def verdict_summary(v: dict[str, Any]) -> dict[str, Any]:
    k = v["k"]
    recall, rate = _recall(v["recall"], k), _pass(v["pass_rate"], k, v["pass_threshold"])
    if v["verdict"] != "unjudged":
        return said(
            "%(verdict)s: %(recall)s; %(pass_rate)s.",
            verdict=said(HEADINGS[v["verdict"]]),
            recall=recall,
            pass_rate=rate,
        )
    judged = (v.get("judged") or {}).get("mean")
    if judged is None:
        return said(
            "Not enough judgments: a corpus update touched every query with a relevant chunk "
            "(%(n)s), so no query is left to judge the retriever by. Re-judge the touched "
            "queries.",
            n=v["basis"]["touched"],
        )
    return said(
        "Not enough judgments: judged@%(k)s is %(judged)s, under %(min)s: the unjudged "
        "chunks count as not relevant, so pass, warn or fail would not be fair (%(recall)s; "
        "%(pass_rate)s). Judge them first: send them to the annotation pools.",
        k=k,
        judged=f"{judged:.2f}",
        min=f"{v['judged']['min']:.2f}",
        recall=recall,
        pass_rate=rate,
    )


# --- the drift, from its figures (goldsmith.verdicts.assess and metrics.check_drift)


def significance(sig: dict[str, Any]) -> dict[str, Any]:
    if not sig["n"]:
        return said("no query scored in both runs: the change cannot be tested")
    values = {
        "label": said("beyond the noise" if sig["beyond_noise"] else "within noise"),
        "metric": sig["metric"],
        "diff": f"{sig['diff']:+.3f}",
        "n": sig["n"],
        "p": f"{sig['p_value']:.3g}",
    }
    if sig.get("ci_low") is None or sig.get("ci_high") is None or "CI" not in sig["words"]:
        return said(
            "%(label)s: %(metric)s %(diff)s on the %(n)s queries scored in both runs (paired "
            "randomization p = %(p)s)",
            **values,
        )
    return said(
        "%(label)s: %(metric)s %(diff)s on the %(n)s queries scored in both runs (paired "
        "randomization p = %(p)s, 95%% CI of the change %(low)s to %(high)s)",
        low=f"{sig['ci_low']:+.3f}",
        high=f"{sig['ci_high']:+.3f}",
        **values,
    )


def fired_message(rule: dict[str, Any], k: int) -> dict[str, Any] | None:
    name, value, limit = rule["rule"], rule["value"], rule["limit"]
    shown = UNDEFINED if value is None else f"{value:.4f}"
    if name == "min_recall":
        text = said(
            "mean %(metric)s %(value)s is below the floor %(floor)s",
            metric=f"recall@{k}",
            value=shown,
            floor=f"{limit:.2f}",
        )
    elif name == "min_pass_rate":
        text = said(
            "pass rate (%(metric)s) %(value)s is below the floor %(floor)s",
            metric=f"pass@{k}",
            value=shown,
            floor=f"{limit:.2f}",
        )
    elif name in ("max_recall_drop", "max_pass_rate_drop", "max_answer_drop"):
        before = rule["baseline"]
        values = {
            "metric": {"max_recall_drop": f"recall@{k}", "max_pass_rate_drop": f"pass@{k}"}.get(
                name, rule.get("metric")
            ),
            "drop": f"{before - value:.4f}",
            "before": f"{before:.4f}",
            "after": f"{value:.4f}",
            "limit": f"{limit:g}",
        }
        if name == "max_pass_rate_drop":
            text = said(
                "pass rate (%(metric)s) dropped %(drop)s (%(before)s → %(after)s), more than "
                "%(limit)s",
                **values,
            )
        else:
            text = said(
                "mean %(metric)s dropped %(drop)s (%(before)s → %(after)s), more than %(limit)s",
                **values,
            )
    else:
        return None
    if rule.get("significance"):
        return said(
            "%(rule)s — %(significance)s",
            rule=text,
            significance=significance(rule["significance"]),
        )
    return text


CHANGES = {
    "headline_k": "top-K %(before)s → %(after)s",
    "relevance_threshold": "relevance threshold grade ≥ %(before)s → grade ≥ %(after)s",
    "matching": "matching by %(before)s → by %(after)s",
    "pass_threshold": "pass threshold Recall@K ≥ %(before)s → Recall@K ≥ %(after)s",
}


def change_words(change: dict[str, Any]) -> dict[str, Any]:
    before, after = change["before"], change["after"]
    if change["setting"] == "pass_threshold":
        before, after = f"{before:g}", f"{after:g}"
    return said(CHANGES[change["setting"]], before=before, after=after)


def joined(parts: list[dict[str, Any]]) -> dict[str, Any] | str:
    out: dict[str, Any] | str = parts[0] if parts else ""
    for part in parts[1:]:
        out = said("%(first)s, %(next)s", first=out, next=part)
    return out


# --- the answer scorers' reasons, from their English (goldsmith.answers.scoring at 2b7882b)

FACTS = r"(?P<facts>facts? \d+(?:, \d+)*(?: and \d+)?)"


def facts(text: str) -> dict[str, Any]:
    numbers = re.findall(r"\d+", text)
    if len(numbers) == 1:
        return said("fact %(n)s", n=int(numbers[0]))
    return said(
        "facts %(first)s and %(last)s", first=", ".join(numbers[:-1]), last=int(numbers[-1])
    )


def _ints(m: re.Match[str], *names: str) -> dict[str, Any]:
    return {n: int(m[n]) for n in names}


def _kind(m: re.Match[str]) -> dict[str, Any] | str:
    return said("token") if m["kind"] == "token" else "CMRC 2018"


TAIL = " (no key facts)"
REASONS: list[tuple[str, Any]] = [
    (r"all (?P<n>\d+) facts in the top (?P<k>\d+) contexts",
     lambda m: said("all %(n)s facts in the top %(k)s contexts", **_ints(m, "n", "k"))),
    (r"the fact is in the top (?P<k>\d+) contexts",
     lambda m: said("the fact is in the top %(k)s contexts", k=int(m["k"]))),
    (FACTS + r" not in the top (?P<k>\d+) contexts",
     lambda m: said("%(facts)s not in the top %(k)s contexts", facts=facts(m["facts"]),
                    k=int(m["k"]))),
    (r"all (?P<n>\d+) facts stated", lambda m: said("all %(n)s facts stated", n=int(m["n"]))),
    (r"the fact is stated", lambda m: said("the fact is stated")),
    (FACTS + r" missing", lambda m: said("%(facts)s missing", facts=facts(m["facts"]))),
    (r"token F1 (?P<f1>[\d.]+) against the reference answer(?P<tail> \(no key facts\))?",
     lambda m: said("token F1 %(f1)s against the reference answer" + (m["tail"] or ""),
                    f1=m["f1"])),
    (r"CMRC 2018 F1 (?P<f1>[\d.]+) against the reference answer(?P<tail> \(no key facts\))?",
     lambda m: said("CMRC 2018 F1 %(f1)s against the reference answer" + (m["tail"] or ""),
                    f1=m["f1"])),
    (r"(?P<kind>token|CMRC 2018) F1 (?P<f1>[\d.]+) against reference answer (?P<i>\d+) of "
     r"(?P<n>\d+)(?P<tail> \(no key facts\))?",
     lambda m: said("%(kind)s F1 %(f1)s against reference answer %(i)s of %(n)s"
                    + (m["tail"] or ""), kind=_kind(m), f1=m["f1"], **_ints(m, "i", "n"))),
    (r"the text of the reference answer \((?P<rule>.+) normalisation\)",
     lambda m: said("the text of the reference answer (%(rule)s normalisation)", rule=m["rule"])),
    (r"the text of reference answer (?P<i>\d+) of (?P<n>\d+) \((?P<rule>.+) normalisation\)",
     lambda m: said("the text of reference answer %(i)s of %(n)s (%(rule)s normalisation)",
                    rule=m["rule"], **_ints(m, "i", "n"))),
    (r"not the text of a reference answer \((?P<rule>.+) normalisation\)",
     lambda m: said("not the text of a reference answer (%(rule)s normalisation)",
                    rule=m["rule"])),
    (r"missing from the run", lambda m: said("missing from the run")),
    (r"no response in the run", lambda m: said("no response in the run")),
    (r"says (?P<a>.+), as the reference", lambda m: said("says %(a)s, as the reference", a=m["a"])),
    (r"says (?P<a>.+) but also (?P<b>.+)",
     lambda m: said("says %(a)s but also %(b)s", a=m["a"], b=m["b"])),
    (r"says (?P<a>.+), reference (?P<b>.+)",
     lambda m: said("says %(a)s, reference %(b)s", a=m["a"], b=m["b"])),
    (r"states no number \(reference (?P<a>.+)\)",
     lambda m: said("states no number (reference %(a)s)", a=m["a"])),
    (r"states no date \(reference (?P<a>.+)\)",
     lambda m: said("states no date (reference %(a)s)", a=m["a"])),
    (r"the reference (?P<a>.+) states no number",
     lambda m: said("the reference %(a)s states no number", a=m["a"])),
    (r"the reference (?P<a>.+) states no date",
     lambda m: said("the reference %(a)s states no date", a=m["a"])),
    (r"the reference (?P<a>.+) is not yes or no",
     lambda m: said("the reference %(a)s is not yes or no", a=m["a"])),
    (r"no yes/no answer found \(reference (?P<a>.+)\)",
     lambda m: said("no yes/no answer found (reference %(a)s)", a=m["a"])),
    (r"names no choice \(reference (?P<a>.+)\)",
     lambda m: said("names no choice (reference %(a)s)", a=m["a"])),
    (r"names several choices: (?P<a>.+)", lambda m: said("names several choices: %(a)s", a=m["a"])),
    (r"chose (?P<a>.+), as the reference", lambda m: said("chose %(a)s, as the reference", a=m["a"])),
    (r"chose (?P<a>.+), reference (?P<b>.+)",
     lambda m: said("chose %(a)s, reference %(b)s", a=m["a"], b=m["b"])),
]  # fmt: skip
PATTERNS = [(re.compile(p), make) for p, make in REASONS]


def reason(text: str) -> dict[str, Any] | None:
    """An old reason's template: each "; "-separated part of the engine's shapes; None when a
    part has another shape (an answer judge's own words)."""
    parts = []
    for part in text.split("; "):
        for pattern, make in PATTERNS:
            m = pattern.fullmatch(part)
            if m:
                parts.append(make(m))
                break
        else:
            return None
    out = parts[0]
    for part in parts[1:]:
        out = said("%(first)s; %(next)s", first=out, next=part)
    return out


# --- one report


def _at(*keys: object) -> str:
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in keys)


def report_templates(report: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def put(place: str, make: Any, *args: Any) -> None:
        try:
            found = make(*args)
        except (KeyError, TypeError, ValueError):  # a report stored before a figure was
            return
        if found is not None:
            out[place] = found

    verdict = report.get("verdict")
    if verdict:
        put(_at("verdict", "summary"), verdict_summary, verdict)
    drift = report.get("drift") or {}
    k = drift.get("k") or (report.get("settings") or {}).get("headline_k")
    changes = drift.get("settings_changed") or []
    for i, change in enumerate(changes):
        put(_at("drift", "settings_changed", i, "words"), change_words, change)
    if drift.get("note") and changes:
        put(
            _at("drift", "note"),
            lambda: said(
                "changed since the baseline: %(changes)s — the drop rules are not applied "
                "across it",
                changes=joined([change_words(c) for c in changes]),
            ),
        )
    for i, rule in enumerate(drift.get("fired") or []):
        if k is not None:
            put(_at("drift", "fired", i, "message"), fired_message, rule, k)
        if rule.get("significance"):
            put(
                _at("drift", "fired", i, "significance", "words"),
                significance,
                rule["significance"],
            )
    for name, sig in (drift.get("significance") or {}).items():
        put(_at("drift", "significance", name, "words"), significance, sig)
    answer_drift = drift.get("answer_drift") or {}
    for i, rule in enumerate(answer_drift.get("fired") or []):
        put(_at("drift", "answer_drift", "fired", i, "message"), fired_message, rule, k)
        if rule.get("significance"):
            put(
                _at("drift", "answer_drift", "fired", i, "significance", "words"),
                significance,
                rule["significance"],
            )
    for name, sig in (answer_drift.get("significance") or {}).items():
        put(_at("drift", "answer_drift", "significance", name, "words"), significance, sig)
    answers = report.get("answers") or {}
    for q, reasons in (answers.get("reasons") or {}).items():
        for metric, text in reasons.items():
            if isinstance(text, str):
                put(_at("answers", "reasons", q, metric), reason, text)
    for q, found in (answers.get("conflicts") or {}).items():
        for i, text in enumerate(found):
            put(_at("answers", "conflicts", q, i), reason, text)
    diagnosis = answers.get("diagnosis") or {}
    for part in ("titles", "advice", "unfaithful_advice"):
        for key, text in (diagnosis.get(part) or {}).items():
            out[_at("answers", "diagnosis", part, key)] = said(text)
    return out


def add_templates(apps: Any, schema_editor: Any) -> None:
    EvaluationRun = apps.get_model("evaluation", "EvaluationRun")
    for run in EvaluationRun.objects.exclude(report={}).only("pk", "report").iterator():
        report = run.report
        if not isinstance(report, dict) or "templates" in report or "settings" not in report:
            continue
        report["templates"] = report_templates(report)
        EvaluationRun.objects.filter(pk=run.pk).update(report=report)


def drop_templates(apps: Any, schema_editor: Any) -> None:
    """Back: the reports as they were (English only)."""
    EvaluationRun = apps.get_model("evaluation", "EvaluationRun")
    for run in EvaluationRun.objects.exclude(report={}).only("pk", "report").iterator():
        if isinstance(run.report, dict) and "templates" in run.report:
            run.report.pop("templates")
            EvaluationRun.objects.filter(pk=run.pk).update(report=run.report)


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0010_endpoint_auth_header_fields"),
    ]

    operations = [migrations.RunPython(add_templates, drop_templates, elidable=True)]
