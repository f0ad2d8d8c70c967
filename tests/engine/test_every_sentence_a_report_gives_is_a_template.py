"""Every sentence the engine gives in a report (the answer scorers' reasons and conflicts, the
verdict, the drift rules that fired, their significance, the note on changed settings, the
hints, the warnings) is a `say()` text: its English is its template filled with its values, and
its template is a literal the catalogs collect, so a page can say it in its reader's language.
Editing a sentence's English anywhere but in its template fails here; a template missing from
the catalogs fails `tests/config/test_every_python_string_is_translated.py`. A stored report
keeps the texts (`templates_of`) and gives them back (`with_texts`) as the engine made them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from config.python_catalogs import marked_messages
from goldsmith import bands, metrics, reporting, verdicts
from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.answers.report import answer_drift, answer_report, score_run
from goldsmith.reporting import GoldItem, GoldJudgment
from goldsmith.text import Text, say, templates_of, text_json, with_texts

FACTS = (
    KeyFact("refunds take 7 days", ("c1",)),
    KeyFact("exceptions beyond 7 days need a manager", ("c2",)),
)
CONTEXTS = (Context("c1", "Refunds take 7 days."), Context("c9", "Unrelated text."))
KEYS = [
    AnswerKey("q1", "Refunds take 7 days.", "open", facts=FACTS),
    AnswerKey("q2", "Refunds take 7 days.", "open", facts=FACTS[:1]),
    AnswerKey("q3", "seven days", "open", alternatives=("a week",)),
    AnswerKey("q4", "7 days", "number"),
    AnswerKey("q5", "2024-03-05", "date"),
    AnswerKey("q6", "yes", "boolean"),
    AnswerKey("q7", "red", "choice", ("red", "blue")),
    AnswerKey("q8", "7 days", "number", facts=FACTS[:1]),
]
GOOD = [
    StagedQuery("q1", contexts=CONTEXTS, response="Refunds take 7 days."),
    StagedQuery("q2", contexts=CONTEXTS, response="It takes 14 days."),
    StagedQuery("q3", response="a week"),
    StagedQuery("q4", response="7 days or 14 days"),
    StagedQuery("q5", response="on 2024-04-05"),
    StagedQuery("q6", response="Perhaps."),
    StagedQuery("q7", response="red, blue"),
]
WORSE = [StagedQuery(s.query_id, contexts=s.contexts, response="Nobody knows.") for s in GOOD]
METRICS = [
    "context_recall@1",
    "fact_coverage",
    "answer_f1",
    "squad_em",
    "exact_match",
    "answer_correctness",
    "faithfulness",
]


def templates(text: Text) -> Iterator[str]:
    yield text.template
    for value in text.values.values():
        if isinstance(value, Text):
            yield from templates(value)


def engine_templates() -> set[str]:
    return {m.msgid for m in marked_messages()["annotation"]}


def scored(recall: list[float], k: int = 5) -> metrics.EvalResult:
    n = len(recall)
    values = np.array([[r, 1.0 if r >= 0.7 else 0.0] for r in recall], dtype=float)
    return metrics.EvalResult(
        settings=metrics.EvalSettings(),
        metrics=(f"recall@{k}", f"pass@{k}"),
        query_ids=tuple(f"q{i}" for i in range(n)),
        values=values.reshape(n, 2),
        included=np.ones(n, dtype=bool),
        no_relevant=(),
        missing_from_run=(),
        not_in_judgments=(),
    )


def a_report() -> dict[str, Any]:
    """What a run stores of the engine's sentences: its answers, verdict, drift (a drop and a
    changed setting), hints and warnings."""
    answers = answer_report(KEYS, GOOD, METRICS, samples=0)
    assessed = verdicts.assess(
        scored([1.0] * 12 + [0.0] * 8),
        k=5,
        targets=bands.Targets(),
        baseline=scored([1.0] * 20),
        permutations=100,
        samples=50,
    )
    changed = verdicts.assess(
        scored([1.0] * 20),
        k=5,
        targets=bands.Targets(),
        conditions=verdicts.Conditions(5, 2, "chunk", 0.7),
        baseline_conditions=verdicts.Conditions(10, 1, "doc", 0.5),
    )
    drop = answer_drift(
        score_run(KEYS, WORSE, METRICS), score_run(KEYS, GOOD, METRICS), {"fact_coverage": 0.1}
    )
    low = {
        "settings": {"headline_k": 5},
        "aggregate": {"recall@5": {"mean": 0.3, "n": 20}, "judged@5": {"mean": 0.5}},
        "unjudged_top_k": 7,
    }
    graded = [GoldItem("q1", "a question", judgments=(GoldJudgment("c1", 1),))]
    return {
        "answers": answers,
        "verdict": assessed["verdict"],
        "drift": {**assessed["drift"], "answer_drift": drop},
        "changed": changed["drift"],
        "hints": reporting.hints(low),
        "warnings": reporting.threshold_warnings(graded, 2),
        "latency": reporting.topk_latency({"n": 3}, 100),
    }


def sentences(report: dict[str, Any]) -> list[tuple[str, object]]:
    """Where the report holds a sentence, and what it holds there."""
    drift, changed = report["drift"], report["changed"]
    found = [
        (f"reason {q} {m}", r)
        for q, reasons in report["answers"]["reasons"].items()
        for m, r in reasons.items()
    ]
    found += [(f"conflict {q}", c) for q, cs in report["answers"]["conflicts"].items() for c in cs]
    found += [("verdict", report["verdict"]["summary"]), ("note", changed["note"])]
    found += [("change", c["words"]) for c in changed["settings_changed"]]
    found += [(f"fired {f['rule']}", f["message"]) for f in drift["fired"]]
    found += [(f"answer drop {f['metric']}", f["message"]) for f in drift["answer_drift"]["fired"]]
    found += [(f"significance {m}", s["words"]) for m, s in drift["significance"].items()]
    found += [
        (f"hint {h['rule']}", h[part]) for h in report["hints"] for part in ("title", "detail")
    ]
    found += [("warning", w) for w in report["warnings"]]
    found += [("latency", report["latency"]["why"])]
    found += [
        (f"quadrant {part} {key}", text)
        for part in ("titles", "advice")
        for key, text in report["answers"]["diagnosis"][part].items()
    ]
    return found


def test_the_report_gives_every_kind_of_sentence():
    places = {place.split()[0] for place, _ in sentences(a_report())}
    assert places >= {
        "reason", "conflict", "verdict", "note", "change", "fired", "answer", "significance",
        "hint", "warning", "latency", "quadrant",
    }  # fmt: skip
    rules = {place for place, _ in sentences(a_report()) if place.startswith("fired")}
    assert {"fired max_recall_drop", "fired max_pass_rate_drop", "fired min_recall"} <= rules


def test_every_sentence_is_a_template_with_values_the_catalogs_collect():
    known = engine_templates()
    for place, sentence in sentences(a_report()):
        assert isinstance(sentence, Text), (place, sentence)
        if sentence.values:
            assert sentence == sentence.template % sentence.values, place
        for template in templates(sentence):
            assert template in known, (place, template)


def test_a_stored_report_gives_its_sentences_back_as_the_engine_made_them():
    report = a_report()
    stored = json.loads(
        json.dumps(reporting.strict_json({**report, "templates": templates_of(report)}))
    )
    assert not any(isinstance(s, Text) for _, s in sentences(stored))  # JSON: English only
    back = with_texts(stored)
    for (place, made), (_, read) in zip(sentences(report), sentences(back), strict=True):
        assert isinstance(read, Text), place
        assert text_json(read) == json.loads(json.dumps(text_json(made))), place
        assert str(read) == str(made), place


def test_a_template_is_applied_only_over_the_english_it_makes():
    made = say("fact %(n)s", n=2)
    templates = {"/a": text_json(made)}
    assert with_texts({"a": "fact 3"}, templates) == {"a": "fact 3"}  # edited since: as stored
    back = with_texts({"a": "fact 2"}, templates)["a"]
    assert isinstance(back, Text) and back.values == {"n": 2}
