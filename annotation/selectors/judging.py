"""Reads for annotators and leads. Annotator reads only ever touch the caller's own rows.

Reads return data: a row that is not there (or not the caller's) comes back as None for the
view or API view to answer 404, and a chunk's highlighted text comes as segments that the
templates escape and mark."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import (
    Count,
    Exists,
    F,
    FilteredRelation,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils.translation import gettext

from annotation.models import (
    Assignment,
    Candidate,
    Guideline,
    Judgment,
    Project,
    Query,
    QueryAgreement,
    QueryAnnotation,
    QueryReview,
    RefreshCandidate,
    RefreshState,
    Resolution,
)
from annotation.models.judging import AssignmentStatus, Escalation, Provenance, ReviewState
from goldsmith.agreement import flag_kappa, flag_sentences, rule_resolution, settling_tie_rule
from goldsmith.intake.tokenizers import DEFAULT, get_tokenizer
from sitewide.i18n import localize


def query_terms(text: str, *, tokenizer: str = DEFAULT) -> list[str]:
    """The words of a query worth highlighting, as the project's tokenizer cuts them: with the
    default one, two letters or more, no stop words; with a Chinese one, its words without
    stop words and interrogatives (`goldsmith.intake.tokenizers`)."""
    return get_tokenizer(tokenizer).query_terms(text)


def highlight_segments(
    text: str, terms: list[str], *, tokenizer: str = DEFAULT
) -> list[tuple[str, bool]]:
    """Split `text` into (piece, is_query_term) segments. Templates escape every piece and wrap
    query terms in <mark>, so a chunk holding HTML or script stays inert text."""
    return get_tokenizer(tokenizer).highlight(text, terms)


def graded_text() -> Coalesce:
    """A candidate's text as annotators grade it: the text it keeps from before a corpus
    re-import changed its graded chunk (`Candidate.judged_text`), else the chunk's own."""
    return Coalesce("judged_text", "chunk__text")


def assignment_for(*, user: AbstractBaseUser, project: Project, query_id: int) -> Assignment | None:
    """The caller's assignment for a query of the project; None when it is not theirs."""
    return (
        Assignment.objects.select_related("query")
        .filter(query_id=query_id, query__project=project, annotator_id=user.pk)
        .first()
    )


def candidate_for(
    *, user: AbstractBaseUser, project: Project, candidate_id: int
) -> tuple[Candidate | None, Assignment | None]:
    """(candidate, the caller's assignment for its query): (None, None) when the project has
    no such candidate, (candidate, None) when its query is not in the caller's queue.

    One statement (every grade save runs it): the candidate, its query and the caller's
    assignment (at most one: one per query and annotator) joined."""
    candidate = (
        Candidate.objects.annotate(
            mine=FilteredRelation(
                "query__assignments", condition=Q(query__assignments__annotator_id=user.pk)
            )
        )
        .select_related("query", "mine")
        .filter(pk=candidate_id, query__project=project)
        .first()
    )
    if candidate is None:
        return None, None
    assignment = getattr(candidate, "mine", None)  # absent when the join found no row
    if assignment is not None:
        assignment.query = candidate.query
    return candidate, assignment


def annotator_queue(*, user: AbstractBaseUser, project: Project) -> QuerySet[Assignment]:
    """The annotator's assignments in queue order; `simulated` counts the grades of each that
    were simulated on their behalf (the demo's), which the queue shows as not theirs."""
    return (
        Assignment.objects.filter(annotator_id=user.pk, query__project=project)
        .select_related("query")
        .annotate(simulated=_simulated_grades(user))
        .order_by("order")
    )


def _simulated_grades(user: AbstractBaseUser) -> Subquery:
    return Subquery(
        Judgment.objects.filter(
            annotator_id=user.pk, simulated=True, candidate__query_id=OuterRef("query_id")
        )
        .values("annotator_id")
        .annotate(n=Count("id"))
        .values("n")[:1],
        output_field=IntegerField(),
    )


def queue_summary(*, user: AbstractBaseUser, project: Project) -> dict[str, int]:
    """How many assignments the annotator has and has done, and of the done ones how many
    hold simulated grades (`simulated`: graded by a rule on their behalf, the demo's)."""
    mine = Assignment.objects.filter(annotator_id=user.pk, query__project=project)
    counts = mine.aggregate(
        total=Count("id"), done=Count("id", filter=Q(status=AssignmentStatus.DONE))
    )
    # An aggregate filtered on an annotated subquery names a column PostgreSQL does not have:
    # the done queries holding simulated grades are counted apart.
    simulated = Judgment.objects.filter(
        annotator_id=user.pk, simulated=True, candidate__query_id=OuterRef("query_id")
    )
    done_simulated = mine.filter(Exists(simulated), status=AssignmentStatus.DONE).count()
    return {
        "total": counts["total"] or 0,
        "done": counts["done"] or 0,
        "simulated": done_simulated,
    }


def next_assignment(*, user: AbstractBaseUser, project: Project, after: Assignment | None):
    """The first unfinished assignment after `after` in the queue, wrapping to the start."""
    todo = annotator_queue(user=user, project=project).exclude(status=AssignmentStatus.DONE)
    if after is not None:
        later = todo.filter(order__gt=after.order).exclude(pk=after.pk).first()
        if later is not None:
            return later
        return todo.exclude(pk=after.pk).first()
    return todo.first()


@dataclass
class CandidateView:
    id: int
    chunk_id: str
    document_title: str
    text: str
    segments: list[tuple[str, bool]]  # the text in pieces, query terms marked True
    grade: int | None
    note: str
    # Why an open refresh asks for this candidate's grade ("changed", "replaces", "pool"), and
    # the retired chunk it replaces; empty for an ordinary candidate.
    asked: str = ""
    replaces: str = ""


@dataclass
class AnnotationView:
    assignment: Assignment
    query: Query
    candidates: list[CandidateView]
    annotation: QueryAnnotation | None
    guideline_version: int | None
    locked: bool
    terms: list[str] = field(default_factory=list)
    closed_reason: str = ""  # why no chunk may be added ("" when one may)
    locked_reason: str = ""  # why the page is read-only ("" when it is not)


def closed_to_new_chunks(review: QueryReview | None) -> str:
    """Why no chunk may be added to the query of `review` ("" when one may): an approved or
    adjudicated query's grades are final, and a new candidate would send it back into the
    queues behind the lead's back. Leads reopen such a query by pooling more chunks."""
    if review is None:
        return ""
    if review.state == ReviewState.APPROVED:
        return gettext(
            "This query is approved: its grades are final, so no chunk can be added to it. If a "
            "good chunk is missing, tell a lead: a lead can reopen it by pooling more chunks "
            "(the pools page)."
        )
    if review.state == ReviewState.RESOLVED and review.adjudicated_at is not None:
        return gettext(
            "This query was adjudicated by a lead: its grades are final, so no chunk can be "
            "added to it. If a good chunk is missing, tell a lead: a lead can reopen it by "
            "pooling more chunks (the pools page)."
        )
    return ""


def read_only_reason(review: QueryReview | None) -> str:
    """Why an annotator's page of the query of `review` is read-only ("" when it is not): once
    a lead adjudicated or approved the query, its grades are final."""
    if review is None:
        return ""
    if review.state == ReviewState.APPROVED:
        return gettext(
            "A lead approved this query: its final grades are set, so your grades, flags and "
            "note are shown as you left them and can no longer be changed. You can still read "
            "every chunk and move between them with j and k."
        )
    if review.state == ReviewState.RESOLVED and review.adjudicated_at is not None:
        return gettext(
            "A lead adjudicated this query: its final grades are set, so your grades, flags and "
            "note are shown as you left them and can no longer be changed. You can still read "
            "every chunk and move between them with j and k."
        )
    return ""


def annotation_view(*, assignment: Assignment) -> AnnotationView:
    """Everything the annotation page shows: the query, its candidates in the shared shuffled
    order, and the caller's own grades, flags and note (never anyone else's)."""
    query = assignment.query
    tokenizer = Project.objects.values_list("tokenizer", flat=True).get(pk=query.project_id)
    terms = query_terms(query.text, tokenizer=tokenizer)
    own = {
        cid: (grade, note)
        for cid, grade, note in Judgment.objects.filter(
            candidate__query_id=query.pk, annotator_id=assignment.annotator_id
        ).values_list("candidate_id", "grade", "note")
    }
    rows = (
        Candidate.objects.filter(query_id=query.pk)
        .order_by("shuffle_key", "id")
        .values_list("id", "chunk__chunk_id", "chunk__document__title", graded_text())
    )
    asked = {
        cid: (why, replaces)
        for cid, why, replaces in RefreshCandidate.objects.filter(
            candidate__query_id=query.pk, refresh__state=RefreshState.OPEN
        ).values_list("candidate_id", "why", "replaces")
    }
    candidates = [
        CandidateView(
            id=cid,
            chunk_id=chunk_id,
            document_title=title,
            text=text,
            segments=highlight_segments(text, terms, tokenizer=tokenizer),
            grade=own.get(cid, (None, ""))[0],
            note=own.get(cid, (None, ""))[1],
            asked=asked.get(cid, ("", ""))[0],
            replaces=asked.get(cid, ("", ""))[1],
        )
        for cid, chunk_id, title, text in rows
    ]
    annotation = QueryAnnotation.objects.filter(
        query_id=query.pk, annotator_id=assignment.annotator_id
    ).first()
    review = QueryReview.objects.filter(query_id=query.pk).first()
    locked_reason = read_only_reason(review)
    version = (
        Guideline.objects.filter(project_id=query.project_id)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )
    return AnnotationView(
        assignment=assignment,
        query=query,
        candidates=candidates,
        annotation=annotation,
        guideline_version=version,
        locked=bool(locked_reason),
        terms=terms,
        closed_reason=closed_to_new_chunks(review),
        locked_reason=locked_reason,
    )


# --- Leads -------------------------------------------------------------------------------


def disagreement_queue(*, project: Project) -> QuerySet[QueryReview]:
    """Flagged queries, lowest agreement first (undefined kappa counts as agreement 1)."""
    return (
        QueryReview.objects.filter(query__project=project, state=ReviewState.FLAGGED)
        .select_related("query", "query__agreement")
        .order_by(
            F("query__agreement__kappa").asc(nulls_last=True),
            F("query__agreement__raw_agreement").asc(nulls_last=True),
            "query_id",
        )
    )


def escalated_queue(*, project: Project) -> QuerySet[QueryReview]:
    """Flagged queries waiting for one more annotator (a lead may still adjudicate them)."""
    return (
        QueryReview.objects.filter(query__project=project, state=ReviewState.ESCALATED)
        .select_related("query", "query__agreement")
        .order_by("query_id")
    )


def extra_annotators(*, query_ids: list[int]) -> dict[int, list[str]]:
    """query → the names of the annotators it was escalated to (normally one)."""
    out: dict[int, list[str]] = {}
    for qid, name in (
        Assignment.objects.filter(query_id__in=query_ids, escalation=True)
        .order_by("annotator__username")
        .values_list("query_id", "annotator__username")
    ):
        out.setdefault(qid, []).append(name)
    return out


def annotator_labels(assigned: list[tuple[int, str]], *, hide_names: bool) -> dict[int, str]:
    """Annotator id → how the lead's pages name them: their user name, or "Annotator A", "B"…
    in the order of `assigned` ((id, user name) pairs) when the lead hides names."""
    return {
        uid: (gettext("Annotator %(letter)s") % {"letter": chr(65 + i)} if hide_names else name)
        for i, (uid, name) in enumerate(assigned)
    }


def escalation_words(review: QueryReview | None, extra: list[str], escalate: bool) -> str:
    """What the adjudication and review pages say about a query's escalation ("" if nothing):
    who it is waiting for, why it came to a lead without one more annotator, or that one more
    annotator's grades did not settle it."""
    if review is None:
        return ""
    names = ", ".join(extra) or gettext("one more annotator")
    if review.state == ReviewState.ESCALATED:
        return gettext(
            "Flagged, so it went to one more annotator (%(names)s) before a lead; it resolves "
            "by majority when their grades settle it. You can adjudicate it now anyway."
        ) % {"names": names}
    if review.escalation == Escalation.NO_ANNOTATOR and escalate:
        return gettext(
            "Escalation is on, but every annotator of the project already has this query, so "
            "it came straight to a lead."
        )
    if review.escalation == Escalation.ESCALATED and review.state == ReviewState.FLAGGED:
        return gettext(
            "One more annotator (%(names)s) graded it too, and the grades still need a lead: "
            "the reasons below are read on every annotator's grades."
        ) % {"names": names}
    if review.escalation == Escalation.ESCALATED:
        return gettext("It went to one more annotator (%(names)s) before a lead.") % {
            "names": names
        }
    return ""


def resolved_queue(*, project: Project) -> QuerySet[QueryReview]:
    """Resolved queries awaiting approval; `machine_grades` counts the final grades of each
    that a machine judge filled (no person graded those chunks)."""
    return (
        QueryReview.objects.filter(query__project=project, state=ReviewState.RESOLVED)
        .select_related("query", "query__agreement")
        .annotate(
            machine_grades=Count(
                "query__candidates__resolution",
                filter=Q(query__candidates__resolution__provenance=Provenance.MACHINE),
            )
        )
        .order_by("query_id")
    )


def review_counts(*, project: Project) -> dict[str, int]:
    counts = dict.fromkeys(ReviewState.values, 0)
    for row in (
        QueryReview.objects.filter(query__project=project).values("state").annotate(n=Count("id"))
    ):
        counts[row["state"]] = row["n"]
    counts["queries"] = Query.objects.filter(project=project).count()
    counts["pooled"] = (
        Candidate.objects.filter(query__project=project).values("query_id").distinct().count()
    )
    return counts


def flag_reasons_in_words(
    *, project: Project, reviews: list[QueryReview], labels: dict[int, str] | None = None
) -> dict[int, list[str]]:
    """query → why it is flagged, as sentences in the reader's language
    (`goldsmith.agreement.flag_sentences`): the
    kappa the project's flag rule reads against its threshold, who gave which grade on which
    chunk (numbered as on the adjudication page), who marked it ambiguous. Assigned annotators
    only, named by `labels` (annotator id → label, e.g. "Annotator A" when names are hidden)
    or else by user name. `reviews` come from `disagreement_queue` (with their agreement
    rows)."""
    ids = [r.query_id for r in reviews]
    assigned = set(
        Assignment.objects.filter(query_id__in=ids).values_list("query_id", "annotator_id")
    )
    names = dict(
        Assignment.objects.filter(query_id__in=ids).values_list(
            "annotator_id", "annotator__username"
        )
    )
    if labels is not None:
        names = {uid: labels.get(uid, name) for uid, name in names.items()}
    grades: dict[int, dict[int, dict[int, int]]] = {q: {} for q in ids}
    for qid, cid, uid, grade in Judgment.objects.filter(candidate__query_id__in=ids).values_list(
        "candidate__query_id", "candidate_id", "annotator_id", "grade"
    ):
        if (qid, uid) in assigned:
            grades[qid].setdefault(uid, {})[cid] = grade
    numbers: dict[int, dict[int, int]] = {q: {} for q in ids}
    for qid, cid in (
        Candidate.objects.filter(query_id__in=ids)
        .order_by("query_id", "shuffle_key", "id")
        .values_list("query_id", "id")
    ):
        numbers[qid][cid] = len(numbers[qid]) + 1
    ambiguous: dict[int, list[str]] = {q: [] for q in ids}
    for qid, uid in (
        QueryAnnotation.objects.filter(query_id__in=ids, ambiguous=True)
        .order_by("annotator__username")
        .values_list("query_id", "annotator_id")
    ):
        if (qid, uid) in assigned:
            ambiguous[qid].append(names[uid])
    out = {}
    for review in reviews:
        agreement = getattr(review.query, "agreement", None)
        if agreement is None:
            continue
        sentences = flag_sentences(
            reasons=agreement.flag_reasons,
            kappa=flag_kappa(
                {
                    "kappa": agreement.kappa,
                    "kappa_linear": agreement.kappa_linear,
                    "ac1": agreement.ac1,
                    "ac2_linear": agreement.ac2_linear,
                },
                project.kappa_weights,
            ),
            threshold=project.kappa_threshold,
            grades=grades[review.query_id],
            names=names,
            chunk_numbers=numbers[review.query_id],
            ambiguous_by=ambiguous[review.query_id],
            escalated=review.escalation == Escalation.ESCALATED,
            weights=project.kappa_weights,
        )
        out[review.query_id] = [localize(sentence) for sentence in sentences]
    return out


def grades_decided_by(*, project: Project) -> list[dict[str, object]]:
    """How many final grades each rule decided (unanimous, majority, tie → lower, tie →
    higher) and how many a lead set, in that order, zeros included."""
    counts = dict(
        Resolution.objects.filter(candidate__query__project=project)
        .values("provenance")
        .annotate(n=Count("id"))
        .values_list("provenance", "n")
    )
    return [
        {"provenance": value, "label": label, "count": counts.get(value, 0)}
        for value, label in Provenance.choices
    ]


@dataclass
class AdjudicationRow:
    candidate_id: int
    chunk_id: str
    document_title: str
    text: str
    segments: list[tuple[str, bool]]  # the text in pieces, query terms marked True
    grades: list[tuple[str, int | None, str]]  # (annotator label, grade, note) per annotator
    final: int | None
    provenance: str
    suggested: int | None
    sources: list[tuple[str, int | None]]
    provenance_label: str = ""  # "Tie → lower" for tie_lower


@dataclass
class AdjudicationView:
    query: Query
    review: QueryReview | None
    agreement: QueryAgreement | None
    annotators: list[str]
    annotations: list[tuple[str, QueryAnnotation | None]]
    rows: list[AdjudicationRow]
    escalation: str = ""  # what the page says about escalation ("" when nothing)
    extra: list[str] = field(default_factory=list)  # labels of the escalation annotators
    why: list[str] = field(default_factory=list)  # why it is flagged, as sentences


def adjudication_view(
    *, project: Project, query_id: int, hide_names: bool
) -> AdjudicationView | None:
    """Every annotator's grade and note per candidate, side by side (for leads only); None
    when the project has no such query."""
    query = Query.objects.filter(project=project, pk=query_id).first()
    if query is None:
        return None
    assigned = list(
        Assignment.objects.filter(query=query)
        .order_by("annotator__username")
        .values_list("annotator_id", "annotator__username")
    )
    extra_ids = set(
        Assignment.objects.filter(query=query, escalation=True).values_list(
            "annotator_id", flat=True
        )
    )
    labels = annotator_labels(assigned, hide_names=hide_names)
    judgments: dict[int, dict[int, tuple[int, str]]] = {}
    for cid, uid, grade, note in Judgment.objects.filter(candidate__query=query).values_list(
        "candidate_id", "annotator_id", "grade", "note"
    ):
        judgments.setdefault(cid, {})[uid] = (grade, note)
    finals = {r.candidate_id: r for r in Resolution.objects.filter(candidate__query=query)}
    sources: dict[int, list[tuple[str, int | None]]] = {}
    for cand in Candidate.objects.filter(query=query).prefetch_related("sources__source"):
        sources[cand.pk] = sorted(
            ((s.source.name, s.rank) for s in cand.sources.all()), key=lambda x: x[0]
        )
    terms = query_terms(query.text, tokenizer=project.tokenizer)
    review = QueryReview.objects.filter(query=query).first()
    tie_rule = settling_tie_rule(
        project.tie_rule,
        escalated=review is not None and review.escalation == Escalation.ESCALATED,
    )
    rows = []
    for cid, chunk_id, title, text in (
        Candidate.objects.filter(query=query)
        .order_by("shuffle_key", "id")
        .values_list("id", "chunk__chunk_id", "chunk__document__title", graded_text())
    ):
        given = judgments.get(cid, {})
        grades = [
            (labels[uid], given.get(uid, (None, ""))[0], given.get(uid, (None, ""))[1])
            for uid, _ in assigned
        ]
        ruled = rule_resolution([g for _, g, _ in grades if g is not None], tie_rule=tie_rule)
        final = finals.get(cid)
        rows.append(
            AdjudicationRow(
                candidate_id=cid,
                chunk_id=chunk_id,
                document_title=title,
                text=text,
                segments=highlight_segments(text, terms, tokenizer=project.tokenizer),
                grades=grades,
                final=final.grade if final else None,
                provenance=final.provenance if final else "",
                provenance_label=final.get_provenance_display() if final else "",
                suggested=final.grade if final else (ruled[0] if ruled else None),
                sources=sources.get(cid, []),
            )
        )
    annotations = {a.annotator_id: a for a in QueryAnnotation.objects.filter(query=query)}
    extra = [labels[uid] for uid, _ in assigned if uid in extra_ids]
    agreement = QueryAgreement.objects.filter(query=query).first()
    why = (
        flag_reasons_in_words(project=project, reviews=[review], labels=labels).get(query.pk, [])
        if review is not None and agreement is not None and agreement.flag_reasons
        else []
    )
    return AdjudicationView(
        query=query,
        review=review,
        agreement=agreement,
        why=why,
        annotators=[labels[uid] for uid, _ in assigned],
        annotations=[(labels[uid], annotations.get(uid)) for uid, _ in assigned],
        rows=rows,
        escalation=escalation_words(review, extra, project.escalate),
        extra=extra,
    )
