"""Golden-set versions: freeze approved queries, import a golden set a team already has.

Both write one immutable `GoldenSetVersion` with its items and judgments in one transaction.
The content hash is `goldsmith.formats.goldset.goldset_content_hash` of exactly the queries stored,
so the hash the app shows equals the one `goldsmith` and the native reader compute from an
export.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Avg, Count, Exists, Max, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import (
    Chunk,
    CorpusVersion,
    CorpusVersionOrigin,
    Document,
    GoldenItem,
    GoldenJudgment,
    GoldenSetVersion,
    Project,
    Query,
    QueryAgreement,
    Resolution,
    Sample,
)
from annotation.models.goldsets import VersionOrigin
from annotation.models.judging import ReviewState
from annotation.models.stopping import JudgingStop, StoppedCandidate
from annotation.selectors.corpus import corpus_version_live, live_corpus_hash
from annotation.services.corpus_versions import ChangeRows, corpus_version_record
from annotation.services.judging import latest_guideline_version
from annotation.services.search import search_index_build
from annotation.services.uploads import upload_limits
from goldsmith.agreement import MACHINE, SIMULATED
from goldsmith.answers.model import KeyFact
from goldsmith.formats.beir import CorpusRow, read_beir, read_corpus_jsonl
from goldsmith.formats.goldset import (
    GOLDSET_FORMAT,
    GOLDSET_FORMAT_VERSION,
    GRADES,
    LABEL_PATTERN,
    GoldenQuery,
    GoldsetHeader,
    GradeMap,
    JudgmentRow,
    QueryRecord,
    goldset_content_hash,
    iter_goldset,
    record_order,
    split_for,
)
from goldsmith.formats.trec import trec_queries
from goldsmith.intake.limits import UploadLimits

IMPORT_FORMATS = ("jsonl", "trec", "beir")
# Columns (and PostgreSQL types, for binary COPY) of the rows a freeze inserts.
ITEM_COLUMNS = [
    ("version_id", "int8"), ("position", "int4"), ("query_id", "varchar"), ("text", "text"),
    ("category", "varchar"), ("stratum", "varchar"), ("weight", "float8"), ("split", "varchar"),
    ("reference_answer", "text"), ("answer_type", "varchar"), ("choices", "jsonb"),
    ("reference_facts", "jsonb"), ("reference_alternatives", "jsonb"),
]  # fmt: skip
JUDGMENT_COLUMNS = [
    ("item_id", "int8"), ("position", "int4"), ("chunk_id", "varchar"), ("doc_id", "varchar"),
    ("start", "int4"), ("end", "int4"), ("text", "text"), ("grade", "int2"),
    ("provenance", "varchar"),
]  # fmt: skip
FREEZE_QUERY_FIELDS = (
    "id", "text", "category", "stratum", "weight",
    "reference_answer", "answer_type", "choices", "reference_facts", "reference_alternatives",
)  # fmt: skip
RESERVED_LABELS = frozenset({"diff", "import", "freeze"})


class FreezeIdentical(ValueError):
    """A freeze whose queries and grades are those of the latest version: nothing is stored."""

    def __init__(self, latest: GoldenSetVersion) -> None:
        self.latest = latest
        super().__init__(
            gettext(
                "identical to %(label)s: the approved queries and their grades have not "
                "changed since it was frozen, so no new version was made"
            )
            % {"label": latest.label}
        )


JUDGMENT_BATCH = 2000


@dataclass(frozen=True)
class SplitSpec:
    """A dev/test split: a query is ``test`` when a hash of (seed, query id) falls below
    `test_share`, else ``dev`` (see `goldsmith.formats.goldset.split_for`)."""

    seed: int
    test_share: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 < self.test_share < 1.0:
            raise ValueError(gettext("the test share of a split is between 0 and 1 (exclusive)"))

    @classmethod
    def given(cls, seed: int | None, test_share: float | None) -> SplitSpec | None:
        """The split a freeze form or request names (half test when no share is given); none
        without a seed."""
        return None if seed is None else cls(seed=seed, test_share=test_share or 0.5)


def goldsmith_version() -> str:
    try:
        return importlib.metadata.version("goldsmith")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - running from a copy
        return "0.1.0"


def latest_version(project: Project) -> GoldenSetVersion | None:
    return GoldenSetVersion.objects.filter(project=project).order_by("-created_at", "-id").first()


def _check_label(project: Project, label: str) -> str:
    label = label.strip()
    if not LABEL_PATTERN.match(label):
        raise ValueError(
            gettext("label %(label)r is not valid: use up to 40 letters, digits, '.', '_' or '-'")
            % {"label": label}
        )
    if label.lower() in RESERVED_LABELS:
        raise ValueError(
            gettext("label %(label)r is reserved (it names a page); pick another label")
            % {"label": label}
        )
    if GoldenSetVersion.objects.filter(project=project, label=label).exists():
        raise ValueError(
            gettext("version %(label)r already exists in %(name)s; pick another label")
            % {"label": label, "name": project.name}
        )
    return label


def next_label(project: Project) -> str:
    taken = set(GoldenSetVersion.objects.filter(project=project).values_list("label", flat=True))
    n = len(taken) + 1
    while f"v{n}" in taken:
        n += 1
    return f"v{n}"


def _iso(moment: Any) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _counts(records: Sequence[QueryRecord]) -> dict[str, Any]:
    grades: Counter[str] = Counter()
    provenance: Counter[str] = Counter()
    for r in records:
        grades.update(str(j[5]) for j in r.judgments)
        provenance.update(j[6] or "unknown" for j in r.judgments)
    return {
        "queries": len(records),
        "judgments": sum(grades.values()),
        "grades": {g: grades.get(g, 0) for g in ("0", "1", "2")},
        "provenance": dict(sorted(provenance.items())),
        # final grades a machine judge filled (no person graded those chunks)
        "machine_grades": provenance.get(MACHINE, 0),
        # final grades settled from simulated grades (the demo's: no person graded them)
        "simulated_grades": provenance.get(SIMULATED, 0),
        "queries_without_relevant": sum(
            1 for r in records if not any(j[5] >= 2 for j in r.judgments)
        ),
        "splits": dict(sorted(Counter(r.split or "none" for r in records).items())),
        "categories": dict(sorted(Counter(r.category or "" for r in records).items())),
        "strata": dict(sorted(Counter(r.stratum or "" for r in records).items())),
    }


def _insert_rows(
    model: type[Any], columns: list[tuple[str, str]], rows: list[tuple[Any, ...]]
) -> None:
    """Insert plain rows (values in `columns` order). PostgreSQL gets a binary COPY, several
    times faster than INSERT for the hundreds of thousands of rows of a large freeze (see
    docs/benchmarks.md, "Golden sets"); other databases get batched bulk_create."""
    names = [name for name, _type in columns]
    if connection.vendor == "postgresql":
        table = model._meta.db_table
        quoted = ", ".join(connection.ops.quote_name(n) for n in names)
        sql = f"COPY {table} ({quoted}) "
        with (
            connection.cursor() as cursor,
            cursor.cursor.copy(sql + "FROM STDIN (FORMAT BINARY)") as copy,
        ):
            copy.set_types([pg_type for _name, pg_type in columns])
            for row in rows:
                copy.write_row(row)
        return
    model.objects.bulk_create(
        (model(**dict(zip(names, row, strict=True))) for row in rows), batch_size=JUDGMENT_BATCH
    )


def _store(
    *,
    project: Project,
    by: AbstractBaseUser | None,
    label: str,
    note: str,
    origin: str,
    records: Sequence[QueryRecord],
    parent: GoldenSetVersion | None,
    header: dict[str, Any],
    source_name: str = "",
    guideline_version: int | None = None,
    agreement_summary: dict[str, Any] | None = None,
    sampling_provenance: list[dict[str, Any]] | None = None,
    filters: dict[str, Any] | None = None,
    split: SplitSpec | None = None,
    corpus_counts: dict[str, int] | None = None,
    corpus_version: CorpusVersion | None = None,
    corpus_hash: str = "",
    refuse_identical: bool = False,
    stopped: dict[str, Any] | None = None,
) -> GoldenSetVersion:
    """Write one version with its items and judgments (inside the caller's transaction).
    With `refuse_identical`, raises :class:`FreezeIdentical` when its content hash is the
    parent's (the latest version's)."""
    ordered = sorted(records, key=lambda r: r.query_id)
    for a, b in itertools.pairwise(ordered):
        if a.query_id == b.query_id:
            raise ValueError(gettext("query %(query_id)r appears twice") % {"query_id": a.query_id})
    for r in ordered:
        for j in r.judgments:
            if j[5] not in GRADES:
                raise ValueError(
                    gettext(
                        "query %(query_id)r, chunk %(chunk)r: grade %(grade)s is not 0, 1 or 2 "
                        "(map grades with --grade-map)"
                    )
                    % {"query_id": r.query_id, "chunk": j[0], "grade": j[5]}
                )
    content_hash = goldset_content_hash(ordered)
    if refuse_identical and parent is not None and parent.content_hash == content_hash:
        raise FreezeIdentical(parent)
    counts = _counts(ordered)
    if corpus_counts is not None:
        counts["corpus"] = corpus_counts
    if stopped is not None:
        counts["stopped"] = stopped
    header = {
        **header,
        "label": label,
        "content_hash": content_hash,
        "query_count": len(ordered),
        "judgment_count": counts["judgments"],
    }
    version = GoldenSetVersion(
        project=project,
        label=label,
        note=note,
        content_hash=content_hash,
        parent=parent,
        origin=origin,
        source_name=source_name[:255],
        created_by=getattr(by, "username", "") or "",
        created_at=timezone.now(),
        query_count=len(ordered),
        judgment_count=counts["judgments"],
        counts=counts,
        agreement_summary=agreement_summary or {},
        guideline_version=guideline_version,
        sampling_provenance=sampling_provenance or [],
        filters=filters or {},
        split_seed=split.seed if split else None,
        test_share=split.test_share if split else None,
        header=header,
        corpus_version=corpus_version,
        corpus_hash=corpus_hash,
    )
    version.save()
    _insert_rows(
        GoldenItem,
        ITEM_COLUMNS,
        [
            (version.pk, position, r.query_id, r.query, r.category, r.stratum, r.weight, r.split,
             r.reference_answer, r.answer_type, list(r.choices), facts_json(r.reference_facts),
             list(r.reference_alternatives))
            for position, r in enumerate(ordered)
        ],
    )  # fmt: skip
    item_ids = dict(GoldenItem.objects.filter(version=version).values_list("query_id", "id"))
    _insert_rows(
        GoldenJudgment,
        JUDGMENT_COLUMNS,
        [
            (item_ids[r.query_id], position, *j)
            for r in ordered
            for position, j in enumerate(r.judgments)
        ],
    )
    return version


def _agreement_summary(project: Project, approved: Q) -> dict[str, Any]:
    stats = QueryAgreement.objects.filter(query__in=Query.objects.filter(approved)).aggregate(
        n=Count("id"),
        mean_kappa=Avg("kappa"),
        mean_kappa_linear=Avg("kappa_linear"),
        mean_raw=Avg("raw_agreement"),
        mean_ac1=Avg("ac1"),
        n_flagged=Count("id", filter=Q(flagged=True)),
        n_undefined=Count("id", filter=Q(kappa__isnull=True)),
    )
    adjudicated = Query.objects.filter(approved, review__adjudicated_at__isnull=False).count()
    out: dict[str, Any] = {
        "kappa_threshold": project.kappa_threshold,
        # the flag and tie settings the version's queries were settled under
        "kappa_weights": project.kappa_weights,
        "tie_rule": project.tie_rule,
        "queries_with_agreement": stats["n"],
        "mean_kappa": stats["mean_kappa"],
        "mean_kappa_linear": stats["mean_kappa_linear"],
        "mean_raw_agreement": stats["mean_raw"],
        "mean_ac1": stats["mean_ac1"],
        "flagged_queries": stats["n_flagged"],
        "unanimous_queries": stats["n_undefined"],
        "adjudicated_queries": adjudicated,
    }
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


def _stopped_summary(approved: Q, judged: dict[int, list[JudgmentRow]]) -> dict[str, Any]:
    """What stops left in the frozen queries (annotation/models/stopping.py).

    ``candidates``: candidates left not judged (stopped) that no final grade covers (another
    annotator's grade settles a chunk one annotator stopped before); they are unjudged, left
    out of the version and of every export. ``queries``: frozen queries with such a candidate.
    ``estimated_recall``: relevant final grades (≥ 1) / (those + the relevant candidates the
    stop estimates expected among the uncovered ones), where a query's expected count is the
    largest of its stops', each scaled by the share of its left candidates still uncovered;
    1.0 when nothing was stopped. It is the recall the stop estimates expect (their mean), not
    a bound: a stop is taken when the model puts at least its confidence (70 %) on the target
    (95 %) being reached, so the expected figure can be below the target. ``stops``: the stops
    that left such a candidate; ``rules``: how many of them rested on each rule (``target``,
    ``confidence``, ``checks`` as recorded at the stop; null confidence and checks: a stop
    taken before they were recorded), so the figure is read beside what it rests on."""
    left: dict[int, set[int]] = defaultdict(set)
    expected: dict[int, float] = defaultdict(float)
    rules: Counter[tuple[float, float | None, int | None]] = Counter()
    covered = Resolution.objects.filter(candidate_id=OuterRef("candidate_id"))
    for stop in JudgingStop.objects.filter(
        assignment__query__in=Query.objects.filter(approved)
    ).select_related("assignment"):
        rows = list(
            StoppedCandidate.objects.filter(stop=stop)
            .exclude(Exists(covered))
            .values_list("candidate_id", flat=True)
        )
        qid = stop.assignment.query_id
        left[qid].update(rows)
        if rows:
            rules[(stop.target, stop.confidence, stop.checks)] += 1
        if stop.left:
            share = len(rows) / stop.left
            expected[qid] = max(expected[qid], stop.expected_remaining * share)
    stopped = sum(len(v) for v in left.values())
    found = sum(1 for rows in judged.values() for j in rows if j[5] >= 1)
    missing = sum(expected.values())
    recall = 1.0 if not stopped else (found / (found + missing) if found + missing else None)
    return {
        "candidates": stopped,
        "queries": sum(1 for v in left.values() if v),
        "expected_relevant_left": round(missing, 2),
        "estimated_recall": None if recall is None else round(recall, 4),
        "stops": sum(rules.values()),
        "rules": [
            {"target": target, "confidence": confidence, "checks": checks, "stops": n}
            # Recorded rules by confidence, target and checks; then the stops that recorded none.
            for (target, confidence, checks), n in sorted(
                rules.items(),
                key=lambda kv: (kv[0][1] is None, kv[0][1] or 0.0, kv[0][0], kv[0][2] or 0),
            )
        ],
    }


def _sampling_provenance(approved: Q) -> list[dict[str, Any]]:
    per_sample = Counter(
        Query.objects.filter(approved).values_list("sample_id", flat=True).iterator()
    )
    out: list[dict[str, Any]] = []
    samples = Sample.objects.in_bulk([pk for pk in per_sample if pk is not None])
    for pk in sorted(samples):
        out.append({"sample_id": pk, "queries": per_sample[pk], **samples[pk].provenance()})
    if per_sample.get(None):
        out.append({"sample_id": None, "queries": per_sample[None], "strategy": "unsampled"})
    return out


@transaction.atomic
def golden_set_version_freeze(
    *,
    project: Project,
    by: AbstractBaseUser,
    note: str = "",
    label: str | None = None,
    categories: Iterable[str] | None = None,
    strata: Iterable[str] | None = None,
    split: SplitSpec | None = None,
) -> GoldenSetVersion:
    """Freeze the project's approved queries (all, or those of the given categories/strata)
    into a new immutable version with copies of their final grades.

    Judged chunks are the candidates that have a resolution, every grade included (0 is a
    judgment: not relevant). Without `split`, the parent version's split (seed and share) is
    kept, so that a query keeps its split in every later version. Refuses a taken label, a
    freeze that matches no approved query, and (:class:`FreezeIdentical`) one whose content
    hash is the latest version's: nothing changed, so nothing is stored. Records the live
    corpus version and its hash (also in the header the export writes).
    """
    Project.objects.select_for_update().filter(pk=project.pk).first()  # one freeze at a time
    label = _check_label(project, label) if label else next_label(project)
    parent = latest_version(project)
    if split is None and parent is not None and parent.split_seed is not None:
        split = SplitSpec(seed=parent.split_seed, test_share=parent.test_share or 0.5)
    cats = sorted(set(categories or []))
    strs = sorted(set(strata or []))
    approved = Q(project=project, review__state=ReviewState.APPROVED)
    if cats:
        approved &= Q(category__in=cats)
    if strs:
        approved &= Q(stratum__in=strs)
    rows = list(Query.objects.filter(approved).values_list(*FREEZE_QUERY_FIELDS))
    if not rows:
        if cats or strs:
            raise ValueError(
                gettext(
                    "no approved query matching the filters to freeze: approve queries in "
                    "Review first"
                )
            )
        raise ValueError(gettext("no approved query to freeze: approve queries in Review first"))
    prefixed = Q(candidate__query__project=project)
    prefixed &= Q(candidate__query__review__state=ReviewState.APPROVED)
    if cats:
        prefixed &= Q(candidate__query__category__in=cats)
    if strs:
        prefixed &= Q(candidate__query__stratum__in=strs)
    judged: dict[int, list[JudgmentRow]] = defaultdict(list)
    # One plain fetch: a server-side cursor (.iterator()) is several times slower here. A
    # candidate graded before a corpus re-import changed its chunk's text keeps the text and
    # span that were graded (`judged_text`): the version records those, not the new ones.
    for qid, cid, doc, start, end, text, kept, kept_start, kept_end, grade, provenance in list(
        Resolution.objects.filter(prefixed).values_list(
            "candidate__query_id",
            "candidate__chunk__chunk_id",
            "candidate__chunk__document__doc_id",
            "candidate__chunk__start",
            "candidate__chunk__end",
            "candidate__chunk__text",
            "candidate__judged_text",
            "candidate__judged_start",
            "candidate__judged_end",
            "grade",
            "provenance",
        )
    ):
        if kept is not None:
            text, start, end = kept, kept_start, kept_end
        judged[qid].append((cid, doc, start, end, text, grade, provenance))
    records = [
        QueryRecord(
            query_id=str(pk),
            query=text,
            category=category or None,
            stratum=stratum or None,
            weight=float(weight),
            split=split_for(str(pk), seed=split.seed, test_share=split.test_share)
            if split
            else None,
            reference_answer=answer,
            judgments=sorted(judged.get(pk, ()), key=record_order),
            answer_type=answer_type or None,
            choices=tuple(choices or ()),
            reference_facts=_frozen_facts(pk, facts, judged.get(pk, ())),
            reference_alternatives=tuple(more or ()) if answer is not None else (),
        )
        for pk, text, category, stratum, weight, answer, answer_type, choices, facts, more in rows
    ]
    guideline = latest_guideline_version(project.pk)
    # The corpus the judgments were made on: the live version (its hash), or the hash of the
    # live chunks for a project whose chunks never went through a versioned write.
    corpus = corpus_version_live(project=project)
    judged_on = corpus.content_hash if corpus else live_corpus_hash(project=project)
    agreement = _agreement_summary(project, approved)
    stopped = _stopped_summary(approved, judged)
    sampling = _sampling_provenance(approved)
    filters = {"categories": cats, "strata": strs}
    created = timezone.now()
    header = {
        "goldsmith_version": goldsmith_version(),
        "format": GOLDSET_FORMAT,
        "format_version": GOLDSET_FORMAT_VERSION,
        "project": project.name,
        "created_at": _iso(created),
        "note": note,
        "origin": VersionOrigin.FROZEN.value,
        "parent": {"label": parent.label, "content_hash": parent.content_hash} if parent else None,
        "guideline_version": guideline,
        "agreement_summary": agreement,
        "sampling_provenance": sampling,
        "filters": filters,
        "split": {"seed": split.seed, "test_share": split.test_share} if split else None,
        "corpus_version": corpus.number if corpus else None,
        "corpus_hash": judged_on,
        # candidates left not judged (stopped): unjudged, in no export's grades
        "stopped": stopped,
    }
    return _store(
        project=project,
        by=by,
        label=label,
        note=note,
        origin=VersionOrigin.FROZEN,
        corpus_version=corpus,
        corpus_hash=judged_on,
        refuse_identical=True,
        records=records,
        parent=parent,
        header=header,
        guideline_version=guideline,
        agreement_summary=agreement,
        sampling_provenance=sampling,
        filters=filters,
        split=split,
        stopped=stopped,
    )


def facts_json(facts: Sequence[KeyFact]) -> list[dict[str, Any]]:
    """Key facts as a query and a version row store them (and the native format writes them)."""
    return [{"text": f.text, "chunk_ids": list(f.chunk_ids)} for f in facts]


def _frozen_facts(pk: int, facts: Any, judged: Sequence[JudgmentRow]) -> tuple[KeyFact, ...]:
    """A query's stored key facts, each linked only to chunks it is frozen with: a fact linked
    to a chunk that has no final grade would give a file the native reader refuses."""
    out: list[KeyFact] = []
    chunks = {j[0] for j in judged}
    for i, fact in enumerate(facts or ()):
        for cid in fact.get("chunk_ids") or ():
            if cid not in chunks:
                raise ValueError(
                    gettext(
                        "query {query}: key fact {n} is linked to chunk {chunk}, which has no "
                        "final grade; grade the chunk or unlink it before freezing"
                    ).format(query=pk, n=i + 1, chunk=cid)
                )
        out.append(KeyFact(fact["text"], tuple(fact.get("chunk_ids") or ())))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Import


@dataclass
class LoadedGoldset:
    """A golden set read from files, ready to store."""

    queries: list[GoldenQuery]
    header: dict[str, Any] | None  # the native header (None for TREC and BEIR)
    corpus: Iterable[CorpusRow] | None
    source_name: str


def goldset_load(
    *,
    fmt: str,
    path: Path,
    topics: Path | None = None,
    corpus: Path | None = None,
    grade_map: GradeMap | None = None,
    name: str | None = None,
) -> LoadedGoldset:
    """Read a golden set: native JSONL (its content hash is checked), TREC qrels with a topics
    file, or a BEIR folder/zip. `corpus` is a BEIR-style ``corpus.jsonl`` for JSONL and TREC
    (BEIR brings its own). `name` is the file's own name when `path` is a copy of an upload
    (recorded as the version's source). Raises `FormatError` (``FILE:LINE: what``) or
    ValueError."""
    source_name = name or path.name
    if fmt not in IMPORT_FORMATS:
        raise ValueError(
            gettext("unknown format %(fmt)r; use one of %(names)s")
            % {"fmt": fmt, "names": ", ".join(IMPORT_FORMATS)}
        )
    limits = upload_limits()
    corpus_rows: Iterable[CorpusRow] | None = None
    if corpus is not None:
        if not corpus.exists():
            raise ValueError(gettext("%(corpus)s: no such file") % {"corpus": corpus})
        corpus_rows = _replayable(corpus, limits)
    if fmt == "jsonl":
        if grade_map:
            raise ValueError(gettext("a native golden set is imported as it is: no --grade-map"))
        items = iter_goldset(path)
        head = next(items)
        assert isinstance(head, GoldsetHeader)  # iter_goldset yields the header first
        queries = [q for q in items if isinstance(q, GoldenQuery)]
        return LoadedGoldset(queries, head.to_json(), corpus_rows, source_name)
    if fmt == "trec":
        if topics is None:
            raise ValueError(
                gettext("a TREC import needs a topics file (qid<TAB>query) with --topics")
            )
        texts = {r.chunk_id: r.text for r in _replayable(corpus, limits)} if corpus else None
        queries = trec_queries(path, topics, grade_map=grade_map, texts=texts)
        return LoadedGoldset(queries, None, corpus_rows, source_name)
    bundle = read_beir(path, grade_map=grade_map, limits=limits)
    if bundle.corpus_rows is not None:
        corpus_rows = bundle.corpus_rows()
    return LoadedGoldset(bundle.queries, None, corpus_rows, source_name)


class _replayable:
    """A corpus file that can be read more than once (each iteration re-opens it)."""

    def __init__(self, path: Path, limits: UploadLimits) -> None:
        self.path, self.limits = path, limits

    def __iter__(self) -> Iterator[CorpusRow]:
        return read_corpus_jsonl(self.path, limits=self.limits)


def _corpus_add(project: Project, rows: Iterable[CorpusRow]) -> dict[str, int]:
    """Add the chunks (and their documents) the project does not hold yet; existing ones are
    left as they are. A BEIR row without ``metadata.doc_id`` is its own document."""
    counts = {"documents_created": 0, "chunks_created": 0, "chunks_existing": 0}
    batch: list[CorpusRow] = []

    def flush() -> None:
        doc_ids = {r.doc_id or r.chunk_id: r.title for r in batch}
        known = dict(
            Document.objects.filter(project=project, doc_id__in=doc_ids).values_list("doc_id", "id")
        )
        new_docs = [
            Document(project=project, doc_id=d, title=t)
            for d, t in doc_ids.items()
            if d not in known
        ]
        Document.objects.bulk_create(new_docs, batch_size=JUDGMENT_BATCH)
        counts["documents_created"] += len(new_docs)
        known = dict(
            Document.objects.filter(project=project, doc_id__in=doc_ids).values_list("doc_id", "id")
        )
        existing = set(
            Chunk.objects.filter(
                project=project, chunk_id__in=[r.chunk_id for r in batch]
            ).values_list("chunk_id", flat=True)
        )
        new_chunks = [
            Chunk(
                project=project,
                document_id=known[r.doc_id or r.chunk_id],
                chunk_id=r.chunk_id,
                text=r.text,
                start=r.start,
                end=r.end,
                text_sha256=hashlib.sha256(r.text.encode("utf-8")).hexdigest(),
            )
            for r in dict((r.chunk_id, r) for r in batch).values()
            if r.chunk_id not in existing
        ]
        Chunk.objects.bulk_create(new_chunks, batch_size=JUDGMENT_BATCH)
        counts["chunks_created"] += len(new_chunks)
        counts["chunks_existing"] += len(existing)

    for row in rows:
        batch.append(row)
        if len(batch) >= JUDGMENT_BATCH:
            flush()
            batch = []
    if batch:
        flush()
    if counts["chunks_created"]:
        # In the caller's transaction: the new chunks are searchable when it commits.
        search_index_build(project_id=project.pk)
    return counts


@transaction.atomic
def golden_set_version_import(
    *,
    project: Project,
    by: AbstractBaseUser | None,
    loaded: LoadedGoldset,
    fmt: str,
    label: str | None = None,
    note: str = "",
    with_corpus: bool = True,
) -> GoldenSetVersion:
    """Store a golden set read by `goldset_load` as a new frozen version of `project`.

    A native file keeps its header (project, created_at and any extra fields) and its content
    hash, so exporting the new version gives the same bytes as the file (unless `label` renames
    it). When a corpus came with the set, its chunks the project lacks are added (the next
    corpus version, when any was). A file whose header names the corpus it was judged on
    (`corpus_hash`) keeps that hash, and the project's corpus version of that hash if it has
    one; a file that names none records none.
    """
    Project.objects.select_for_update().filter(pk=project.pk).first()
    if not loaded.queries:
        raise ValueError(
            gettext("%(source_name)s: no queries to import") % {"source_name": loaded.source_name}
        )
    wanted = label or (loaded.header or {}).get("label")
    label = _check_label(project, wanted) if wanted else next_label(project)
    parent = latest_version(project)
    corpus_counts = None
    if with_corpus and loaded.corpus is not None:
        before = Chunk.objects.filter(project=project).aggregate(top=Max("pk"))["top"] or 0
        corpus_counts = _corpus_add(project, loaded.corpus)
        corpus_version_record(
            project=project,
            changes=ChangeRows(),
            created_after=before,
            filename=loaded.source_name,
            by=by,
            origin=CorpusVersionOrigin.GOLDEN_SET,
        )
    if loaded.header is not None:
        header = dict(loaded.header)
        header.setdefault("note", note)
    else:
        header = {
            "goldsmith_version": goldsmith_version(),
            "format": GOLDSET_FORMAT,
            "format_version": GOLDSET_FORMAT_VERSION,
            "project": project.name,
            "created_at": _iso(timezone.now()),
            "note": note,
            "origin": VersionOrigin.IMPORTED.value,
            "source": {"format": fmt, "file": loaded.source_name},
        }
    corpus_hash = str(header.get("corpus_hash") or "")
    corpus_version = (
        CorpusVersion.objects.filter(project=project, content_hash=corpus_hash)
        .order_by("-number")
        .first()
        if corpus_hash
        else None
    )
    return _store(
        project=project,
        by=by,
        label=label,
        note=note or f"Imported from {loaded.source_name} ({fmt})",
        corpus_version=corpus_version,
        corpus_hash=corpus_hash,
        origin=VersionOrigin.IMPORTED,
        records=[QueryRecord.of(q) for q in loaded.queries],
        parent=parent,
        header=header,
        source_name=loaded.source_name,
        corpus_counts=corpus_counts,
    )
