"""Refresh a frozen version on the current corpus: carry what still holds, re-judge the rest.

Opening a refresh (`golden_set_refresh_open`) reads the plan (`annotation.selectors.refresh`,
rules in `goldsmith.refresh`) and puts each touched query that needs a grade back into the usual
process: its live query (the one the version froze, else a query made from the frozen item)
gets the asked candidates (changed chunks, replacements of retired chunks, new hits of the
pool's built-in retrievers), loses the candidates of retired chunks and the grades of changed
ones, goes back to its annotators and to the "open" review state. Annotators grade, the query
settles, a lead approves it: nothing new there. Freezing the refresh
(`golden_set_refresh_freeze`) stores the next version: untouched queries as frozen (carried
chunks with their live text), touched ones with their held rows and the final grades of their
asked candidates; a refresh whose content equals its version stores nothing.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import (
    Assignment,
    Candidate,
    Chunk,
    CorpusVersion,
    GoldenSetRefresh,
    GoldenSetVersion,
    Judgment,
    PoolSource,
    Project,
    Query,
    QueryReview,
    RefreshCandidate,
    RefreshQuery,
    RefreshState,
    Resolution,
)
from annotation.models.goldsets import VersionOrigin
from annotation.models.judging import ReviewState, SourceKind
from annotation.models.refresh import AskedWhy
from annotation.selectors.goldsets import golden_queries
from annotation.selectors.refresh import live_corpus_hash, refresh_plan_read, retired_in
from annotation.services.assignment import assignments_refresh, queries_assign
from annotation.services.goldsets import (
    GOLDSET_FORMAT,
    GOLDSET_FORMAT_VERSION,
    _check_label,
    _iso,
    _store,
    goldsmith_version,
    next_label,
)
from annotation.services.pool_hits import _corpus, pool_add_hits, shuffle_key
from goldsmith.answers.model import KeyFact
from goldsmith.formats.goldset import (
    GoldenQuery,
    JudgmentRow,
    QueryRecord,
    goldset_content_hash,
    record_order,
)
from goldsmith.intake.normalize import normalize_query
from goldsmith.refresh import FrozenRow, QueryPlan


@dataclass(frozen=True)
class RefreshOpened:
    refresh: GoldenSetRefresh | None  # None: nothing to refresh, the version is current
    counts: dict[str, int]
    identical_to: str | None = None


@dataclass(frozen=True)
class RefreshFrozen:
    refresh: GoldenSetRefresh
    version: GoldenSetVersion | None  # None: identical to `identical_to`, nothing stored
    identical_to: str | None = None


def _row_json(r: FrozenRow) -> list[Any]:
    return [r.chunk_id, r.doc_id, r.start, r.end, r.text, r.grade, r.provenance]


def _live_query(project: Project, golden_query_id: str, text: str) -> Query:
    """The live query the version froze under this id, else one with the same text, else a
    new one (a version imported from a file)."""
    if golden_query_id.isdigit():
        found = Query.objects.filter(project=project, pk=int(golden_query_id), text=text).first()
        if found is not None:
            return found
    normalized = normalize_query(text, chinese=project.tokenizer.startswith("zh"))
    found = Query.objects.filter(project=project, normalized=normalized).first()
    if found is not None:
        return found
    return Query.objects.create(project=project, text=text, normalized=normalized)


def _pool_hits(
    project: Project, queries: dict[int, str], k_by_kind: dict[str, int]
) -> dict[str, dict[int, list[int]]]:
    """The top k of each built-in pool retriever now, per live query (chunk pks)."""
    from goldsmith.retrievers.builtin import build_retriever

    if not queries or not k_by_kind:
        return {}
    corpus, pks = _corpus(project)
    ids = sorted(queries)
    out: dict[str, dict[int, list[int]]] = {}
    for kind, k in k_by_kind.items():
        retriever = build_retriever(kind, corpus, tokenizer=project.tokenizer)
        results = retriever.search([queries[q] for q in ids], k)
        out[kind] = {q: [pks[h.id] for h in ranked] for q, ranked in zip(ids, results, strict=True)}
    return out


@transaction.atomic
def golden_set_refresh_open(*, version: GoldenSetVersion, by: AbstractBaseUser) -> RefreshOpened:
    """Open a refresh of `version` on the live corpus (see the module's text). When the corpus
    holds every row of the version as it was frozen, nothing is stored and the result says the
    refresh would be identical to the version. Refuses a second open refresh of one version."""
    project = Project.objects.select_for_update().get(pk=version.project_id)
    if GoldenSetRefresh.objects.filter(base=version, state=RefreshState.OPEN).exists():
        raise ValueError(
            gettext("a refresh of %(label)s is already open: freeze it first")
            % {"label": version.label}
        )
    read = refresh_plan_read(version=version)
    plan = read.plan
    counts = plan.counts()
    if plan.identical:
        return RefreshOpened(None, {**counts, "pool": 0}, identical_to=version.label)
    refresh = GoldenSetRefresh.objects.create(
        project=project,
        base=version,
        corpus_version=CorpusVersion.objects.filter(project=project).order_by("-number").first(),
        corpus_hash=live_corpus_hash(project),
        created_by=by,
        counts=counts,
    )
    texts = dict(version.items.values_list("query_id", "text"))
    chunk_pks = dict(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", "id")
    )
    sources: dict[str, int] = {}
    for source in PoolSource.objects.filter(
        project=project, kind__in=[SourceKind.BM25, SourceKind.TFIDF]
    ).order_by("name"):
        sources[source.kind] = max(sources.get(source.kind, 0), source.k)
    rows: list[RefreshQuery] = []
    rejudged: dict[int, QueryPlan] = {}
    for qid, p in sorted(plan.queries.items()):
        if not p.changed:
            continue
        live = None
        if p.touched and (p.asked or sources):
            live = _live_query(project, qid, texts[qid])
            rejudged[live.pk] = p
        rows.append(
            RefreshQuery(
                refresh=refresh,
                golden_query_id=qid,
                live=live,
                touched=p.touched,
                held=[_row_json(h.row) for h in sorted(p.held, key=lambda h: h.row.chunk_id)],
                dropped=list(p.dropped),
                carried={h.row.chunk_id: [h.why, h.was] for h in p.held if h.why != "kept"},
            )
        )
    RefreshQuery.objects.bulk_create(rows, batch_size=2000)
    asked_rows = _ask(project, refresh, rejudged, chunk_pks)
    pool = _ask_pool(project, refresh, rejudged, sources, asked_rows)
    # A touched query with nothing to grade is not reopened: its held rows are its new rows.
    asking = set(refresh.candidates.values_list("candidate__query_id", flat=True).distinct())
    idle = [qid for qid in rejudged if qid not in asking]
    RefreshQuery.objects.filter(refresh=refresh, live_id__in=idle).update(live=None)
    for qid in idle:
        del rejudged[qid]
    live_ids = sorted(rejudged)
    # Queries nobody judged yet (made from an imported version) get annotators as usual.
    unassigned = set(live_ids) - set(
        Assignment.objects.filter(query_id__in=live_ids).values_list("query_id", flat=True)
    )
    if unassigned:
        # No annotator yet: a lead assigns later, as for any pooled query.
        with contextlib.suppress(ValueError):
            queries_assign(project=project, query_ids=unassigned)
    assignments_refresh(query_ids=live_ids)
    for qid in live_ids:
        QueryReview.objects.get_or_create(query_id=qid)
    QueryReview.objects.filter(query_id__in=live_ids).exclude(state=ReviewState.OPEN).update(
        state=ReviewState.OPEN,
        version=F("version") + 1,
        approved_by=None,
        approved_at=None,
        updated_at=timezone.now(),
    )
    refresh.counts = {
        **counts,
        "pool": pool,
        "asked": counts["asked"] + pool,
        "rejudged": len(live_ids),
    }
    refresh.save(update_fields=["counts"])
    return RefreshOpened(refresh, refresh.counts)


def _ask(
    project: Project,
    refresh: GoldenSetRefresh,
    rejudged: dict[int, QueryPlan],
    chunk_pks: dict[str, int],
) -> set[tuple[int, int]]:
    """Make the asked candidates of each re-judged live query; clear what no longer holds."""
    asked: set[tuple[int, int]] = set()
    links: list[RefreshCandidate] = []
    removed = dict(
        Chunk.objects.filter(project=project, removed=True).values_list("chunk_id", "id")
    )
    for qid, p in rejudged.items():
        # The chunks that left the corpus leave the query's pool (the version keeps their grades).
        gone = [removed[c] for c in p.dropped if c in removed]
        gone += [removed[h.was] for h in p.held if h.why == "span" and h.was in removed]
        Candidate.objects.filter(query_id=qid, chunk_id__in=gone).delete()
        for a in p.asked:
            pk = chunk_pks[a.chunk_id]
            candidate, created = Candidate.objects.get_or_create(
                query_id=qid, chunk_id=pk, defaults={"shuffle_key": shuffle_key(qid, pk)}
            )
            if not created:
                # Its new text needs a grade: the old grades are the frozen version's.
                Judgment.objects.filter(candidate=candidate).delete()
                Resolution.objects.filter(candidate=candidate).delete()
                Candidate.objects.filter(pk=candidate.pk).update(
                    judged_text=None, judged_start=None, judged_end=None
                )
            asked.add((qid, pk))
            links.append(
                RefreshCandidate(
                    refresh=refresh, candidate=candidate, why=a.why, replaces=a.replaces or ""
                )
            )
        # A held chunk is graded already: its live candidate's grade is not asked again.
    RefreshCandidate.objects.bulk_create(links, batch_size=2000)
    return asked


def _ask_pool(
    project: Project,
    refresh: GoldenSetRefresh,
    rejudged: dict[int, QueryPlan],
    sources: dict[str, int],
    asked: set[tuple[int, int]],
) -> int:
    """Add what the pool's built-in retrievers now return in each re-judged query's top k and
    nobody graded for it: new candidates, asked as pool hits."""
    texts = dict(Query.objects.filter(pk__in=list(rejudged)).values_list("id", "text"))
    hits = _pool_hits(project, texts, sources)
    pk_of = dict(Chunk.objects.filter(project=project).values_list("chunk_id", "id"))
    graded: dict[int, set[int]] = defaultdict(set)
    for qid, p in rejudged.items():
        graded[qid] = {pk_of[h.row.chunk_id] for h in p.held if h.row.chunk_id in pk_of}
    existing = set(
        Candidate.objects.filter(query_id__in=list(rejudged)).values_list("query_id", "chunk_id")
    )
    total = 0
    for kind, per_query in hits.items():
        source = PoolSource.objects.filter(project=project, kind=kind).order_by("name").first()
        assert source is not None  # the kinds come from the project's sources
        new = {
            q: [c for c in cids if c not in graded[q] and (q, c) not in asked]
            for q, cids in per_query.items()
        }
        fresh = {(q, c) for q, cids in new.items() for c in cids if (q, c) not in existing}
        if not fresh:
            continue
        pool_add_hits(
            source=source, hits={q: [c for c in cids if (q, c) in fresh] for q, cids in new.items()}
        )
        existing |= fresh
        asked |= fresh
        ids = dict(
            ((q, c), pk)
            for pk, q, c in Candidate.objects.filter(query_id__in=list(new)).values_list(
                "id", "query_id", "chunk_id"
            )
        )
        RefreshCandidate.objects.bulk_create(
            [
                RefreshCandidate(refresh=refresh, candidate_id=ids[pair], why=AskedWhy.POOL)
                for pair in sorted(fresh)
            ],
            ignore_conflicts=True,
        )
        total += len(fresh)
    return total


def _held_rows(rq: RefreshQuery) -> list[JudgmentRow]:
    return [(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rq.held]


def _facts(facts: tuple[KeyFact, ...], chunks: set[str]) -> tuple[KeyFact, ...]:
    """Key facts linked only to chunks the refreshed query still grades."""
    return tuple(KeyFact(f.text, tuple(c for c in f.chunk_ids if c in chunks)) for f in facts)


@transaction.atomic
def golden_set_refresh_freeze(
    *, refresh: GoldenSetRefresh, by: AbstractBaseUser, label: str | None = None, note: str = ""
) -> RefreshFrozen:
    """Freeze the refresh into the next version (see the module's text). Refuses while a
    re-judged query is not approved, and when the corpus changed since the refresh was opened
    (its plan no longer describes the corpus: open a new refresh). When the content equals the
    base version's, nothing is stored and the result says which version it is identical to."""
    project = Project.objects.select_for_update().get(pk=refresh.project_id)
    refresh = GoldenSetRefresh.objects.select_for_update().get(pk=refresh.pk)
    base = refresh.base
    if refresh.state != RefreshState.OPEN:
        raise ValueError(gettext("this refresh is already finished"))
    if live_corpus_hash(project) != refresh.corpus_hash:
        raise ValueError(
            gettext(
                "the corpus changed since this refresh was opened: freeze it no more, open a "
                "new refresh of %(label)s"
            )
            % {"label": base.label}
        )
    changed = {rq.golden_query_id: rq for rq in refresh.queries.select_related("live__review")}
    waiting = sorted(
        rq.golden_query_id
        for rq in changed.values()
        if rq.live is not None
        and getattr(getattr(rq.live, "review", None), "state", None) != ReviewState.APPROVED
    )
    if waiting:
        raise ValueError(
            gettext(
                "%(n)s re-judged queries are not approved yet (e.g. %(shown)s): approve them in "
                "Review first"
            )
            % {"n": len(waiting), "shown": ", ".join(waiting[:3])}
        )
    graded = _asked_grades(refresh)
    records: list[QueryRecord] = []
    reasons: list[dict[str, Any]] = []
    retired_numbers = retired_in(
        project=project, chunk_ids=[c for rq in changed.values() for c in rq.dropped]
    )
    for q in golden_queries(base):
        rq = changed.get(q.query_id)
        if rq is None:
            records.append(QueryRecord.of(q))
            continue
        rows = _held_rows(rq)
        held = {r[0] for r in rows}
        for cid, (row, why, replaces, by_names) in sorted(graded.get(rq.pk, {}).items()):
            if cid in held:
                continue
            rows.append(row)
            reasons.append(
                {"query_id": q.query_id, "chunk_id": cid, "kind": "rejudged", "why": why,
                 "replaces": replaces, "by": by_names, "grade": row[5]}
            )  # fmt: skip
        for cid in rq.dropped:
            reasons.append(
                {"query_id": q.query_id, "chunk_id": cid, "kind": "retired",
                 "corpus_version": retired_numbers.get(cid)}
            )  # fmt: skip
        for cid, (how, was) in sorted(rq.carried.items()):
            reasons.append(
                {"query_id": q.query_id, "chunk_id": cid, "kind": f"carried_{how}", "from": was}
            )
        rows.sort(key=record_order)
        chunks = {r[0] for r in rows}
        records.append(
            QueryRecord.of(
                GoldenQuery(
                    query_id=q.query_id, query=q.query, judgments=(), category=q.category,
                    stratum=q.stratum, weight=q.weight, split=q.split,
                    reference_answer=q.reference_answer, answer_type=q.answer_type,
                    choices=q.choices, reference_facts=_facts(q.reference_facts, chunks),
                )
            )
        )  # fmt: skip
        records[-1].judgments.extend(rows)
    now = timezone.now()
    if goldset_content_hash(sorted(records, key=lambda r: r.query_id)) == base.content_hash:
        refresh.state, refresh.finished_at = RefreshState.IDENTICAL, now
        refresh.result = None
        refresh.save(update_fields=["state", "finished_at", "result"])
        return RefreshFrozen(refresh, None, identical_to=base.label)
    label = _check_label(project, label) if label else next_label(project)
    header = {
        "goldsmith_version": goldsmith_version(),
        "format": GOLDSET_FORMAT,
        "format_version": GOLDSET_FORMAT_VERSION,
        "project": project.name,
        "created_at": _iso(now),
        "note": note,
        "origin": VersionOrigin.FROZEN.value,
        "parent": {"label": base.label, "content_hash": base.content_hash},
        "refresh": {"of": base.label, "corpus_hash": refresh.corpus_hash},
        "guideline_version": base.guideline_version,
        "agreement_summary": base.agreement_summary,
        "sampling_provenance": base.sampling_provenance,
        "filters": base.filters,
        "split": {"seed": base.split_seed, "test_share": base.test_share}
        if base.split_seed is not None
        else None,
    }
    version = _store(
        project=project,
        by=by,
        label=label,
        note=note or gettext("Refresh of %(label)s on the current corpus") % {"label": base.label},
        origin=VersionOrigin.FROZEN,
        records=records,
        parent=base,
        header=header,
        guideline_version=base.guideline_version,
        agreement_summary=base.agreement_summary,
        sampling_provenance=base.sampling_provenance,
        filters=base.filters,
        corpus_version=refresh.corpus_version,
        corpus_hash=refresh.corpus_hash,
    )
    refresh.state, refresh.finished_at, refresh.result = RefreshState.FROZEN, now, version
    refresh.reasons = reasons
    refresh.save(update_fields=["state", "finished_at", "result", "reasons"])
    return RefreshFrozen(refresh, version)


def _asked_grades(
    refresh: GoldenSetRefresh,
) -> dict[int, dict[str, tuple[JudgmentRow, str, str, list[str]]]]:
    """Per refresh query: the final grade of each asked candidate (as a version row), why it
    was asked, the chunk it replaces, and who graded it (its annotators, a lead who settled it)."""
    by_query = dict(refresh.queries.filter(live__isnull=False).values_list("live_id", "id"))
    links = {
        cand: (why, replaces)
        for cand, why, replaces in refresh.candidates.values_list("candidate_id", "why", "replaces")
    }
    names: dict[int, set[str]] = defaultdict(set)
    for cand, name in Judgment.objects.filter(candidate_id__in=list(links)).values_list(
        "candidate_id", "annotator__username"
    ):
        names[cand].add(name)
    out: dict[int, dict[str, tuple[JudgmentRow, str, str, list[str]]]] = defaultdict(dict)
    for cand, qid, cid, doc, s, e, text, kept, grade, prov, lead in Resolution.objects.filter(
        candidate_id__in=list(links)
    ).values_list(
        "candidate_id", "candidate__query_id", "candidate__chunk__chunk_id",
        "candidate__chunk__document__doc_id", "candidate__chunk__start", "candidate__chunk__end",
        "candidate__chunk__text", "candidate__judged_text", "grade", "provenance",
        "resolved_by__username",
    ):  # fmt: skip
        who = names.get(cand, set()) | ({lead} if lead else set())
        why, replaces = links[cand]
        row: JudgmentRow = (cid, doc, s, e, kept if kept is not None else text, grade, prov)
        out[by_query[qid]][cid] = (row, why, replaces, sorted(who))
    return out
