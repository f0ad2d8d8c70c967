"""What changed between two golden sets: queries added, removed or reworded, grades changed,
chunks judged or dropped (see docs/goldsets.md, "Diff"). Pure module: the standard library."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from goldsmith.answers.model import KeyFact

# What a query says about its answer, compared as one value:
# (reference_answer, answer_type, choices, key facts).
AnswerFields = tuple[str | None, str | None, tuple[str, ...], tuple[KeyFact, ...]]


@dataclass(frozen=True)
class GradeChange:
    query_id: str
    chunk_id: str
    old: int
    new: int


@dataclass
class GoldsetDiff:
    """What changed from version A to version B."""

    added_queries: list[str] = field(default_factory=list)
    removed_queries: list[str] = field(default_factory=list)
    changed_text: list[str] = field(default_factory=list)
    changed_answers: list[str] = field(default_factory=list)
    changed_grades: list[GradeChange] = field(default_factory=list)
    added_judgments: list[tuple[str, str, int]] = field(default_factory=list)
    removed_judgments: list[tuple[str, str, int]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)

    @property
    def unchanged(self) -> bool:
        return not (
            self.added_queries
            or self.removed_queries
            or self.changed_text
            or self.changed_answers
            or self.changed_grades
            or self.added_judgments
            or self.removed_judgments
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "added_queries": self.added_queries,
            "removed_queries": self.removed_queries,
            "changed_text": self.changed_text,
            "changed_answers": self.changed_answers,
            "changed_grades": [
                {"query_id": c.query_id, "chunk_id": c.chunk_id, "old": c.old, "new": c.new}
                for c in self.changed_grades
            ],
            "added_judgments": [
                {"query_id": q, "chunk_id": c, "grade": g} for q, c, g in self.added_judgments
            ],
            "removed_judgments": [
                {"query_id": q, "chunk_id": c, "grade": g} for q, c, g in self.removed_judgments
            ],
            "totals": self.totals,
        }


def goldset_diff(
    a_queries: dict[str, str],
    a_rows: Iterable[tuple[str, str, int]],
    b_queries: dict[str, str],
    b_rows: Iterable[tuple[str, str, int]],
    a_answers: Mapping[str, AnswerFields] | None = None,
    b_answers: Mapping[str, AnswerFields] | None = None,
) -> GoldsetDiff:
    """Diff of two versions given their queries (id → text) and judgments (qid, chunk, grade),
    and optionally their answer fields (id → `AnswerFields`; a query missing from a mapping has
    none): a common query whose reference answer, type, choices or key facts differ is in
    ``changed_answers``.

    Judgments of queries only in one version count as added/removed with their query, not
    again as added/removed judgments; grade changes are per (query, chunk) of common queries."""
    a = {(q, c): g for q, c, g in a_rows}
    b = {(q, c): g for q, c, g in b_rows}
    d = GoldsetDiff()
    d.added_queries = sorted(set(b_queries) - set(a_queries))
    d.removed_queries = sorted(set(a_queries) - set(b_queries))
    common = set(a_queries) & set(b_queries)
    d.changed_text = sorted(q for q in common if a_queries[q] != b_queries[q])
    none: AnswerFields = (None, None, (), ())
    a_ans, b_ans = a_answers or {}, b_answers or {}
    d.changed_answers = sorted(q for q in common if a_ans.get(q, none) != b_ans.get(q, none))
    for key in sorted(set(a) | set(b)):
        if key[0] not in common:
            continue
        old, new = a.get(key), b.get(key)
        if old is None and new is not None:
            d.added_judgments.append((key[0], key[1], new))
        elif new is None and old is not None:
            d.removed_judgments.append((key[0], key[1], old))
        elif old is not None and new is not None and old != new:
            d.changed_grades.append(GradeChange(key[0], key[1], old, new))
    d.totals = {
        "queries_a": len(a_queries),
        "queries_b": len(b_queries),
        "judgments_a": len(a),
        "judgments_b": len(b),
        "relevant_a": sum(1 for g in a.values() if g >= 2),
        "relevant_b": sum(1 for g in b.values() if g >= 2),
        "queries_added": len(d.added_queries),
        "queries_removed": len(d.removed_queries),
        "queries_text_changed": len(d.changed_text),
        "answers_changed": len(d.changed_answers),
        "grades_changed": len(d.changed_grades),
        "judgments_added": len(d.added_judgments),
        "judgments_removed": len(d.removed_judgments),
    }
    return d


def diff_text(diff: GoldsetDiff, a_name: str, b_name: str, limit: int = 200) -> Iterator[str]:
    """The diff as lines for a terminal (at most `limit` detail lines per kind)."""
    t = diff.totals
    yield f"{a_name} → {b_name}"
    yield (
        f"queries: {t['queries_a']} → {t['queries_b']} "
        f"(+{t['queries_added']} added, -{t['queries_removed']} removed, "
        f"{t['queries_text_changed']} text changed)"
    )
    yield f"answer keys: {t['answers_changed']} changed (reference answer, type, choices, facts)"
    yield (
        f"judgments: {t['judgments_a']} → {t['judgments_b']} "
        f"(+{t['judgments_added']} added, -{t['judgments_removed']} removed, "
        f"{t['grades_changed']} grades changed); relevant (grade 2): "
        f"{t['relevant_a']} → {t['relevant_b']}"
    )
    for qid in diff.added_queries[:limit]:
        yield f"+ query {qid}"
    for qid in diff.removed_queries[:limit]:
        yield f"- query {qid}"
    for qid in diff.changed_text[:limit]:
        yield f"~ query {qid}: text changed"
    for qid in diff.changed_answers[:limit]:
        yield f"~ query {qid}: answer key changed"
    for change in diff.changed_grades[:limit]:
        yield f"~ {change.query_id} {change.chunk_id}: grade {change.old} → {change.new}"
    for q, c, g in diff.added_judgments[:limit]:
        yield f"+ {q} {c}: grade {g}"
    for q, c, g in diff.removed_judgments[:limit]:
        yield f"- {q} {c}: grade {g}"
