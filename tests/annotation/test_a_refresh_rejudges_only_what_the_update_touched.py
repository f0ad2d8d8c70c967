"""A refresh of v1 after a corpus update: untouched queries carry over, touched ones go back to
their annotators with only the candidates that need a grade, and freezing gives v2 whose diff
says why each row changed."""

from __future__ import annotations

from annotation.models import Assignment, Candidate, GoldenSetVersion, RefreshCandidate
from annotation.selectors.goldsets import version_diff
from annotation.selectors.judging import annotation_view
from annotation.services.adjudication import queries_approve
from annotation.services.refresh import golden_set_refresh_freeze, golden_set_refresh_open
from tests.annotation.refresh_factories import grade_all, judged_v1, update_corpus


def rows(version):
    return {
        (i.query_id, j.chunk_id): (j.grade, j.provenance, j.text)
        for i in version.items.all()
        for j in i.judgments.all()
    }


def test_a_refresh_asks_only_the_changed_and_replacing_chunks_and_freezes_v2(personas):
    judged = judged_v1(personas)
    v1 = judged.version
    update_corpus(personas.project)

    opened = golden_set_refresh_open(version=v1, by=personas.alice)
    refresh = opened.refresh
    assert refresh is not None
    # password: guide#3 (graded 1) changed -> touched; refund: guide#1 (graded 2) retired ->
    # touched; invoices: only grade-0 chunks moved -> untouched.
    assert opened.counts["touched"] == 2
    assert opened.counts["untouched"] == 1
    asked = {
        (rc.candidate.query_id, rc.candidate.chunk.chunk_id): (rc.why, rc.replaces)
        for rc in RefreshCandidate.objects.filter(refresh=refresh).select_related(
            "candidate__chunk"
        )
    }
    p, r = judged.password.pk, judged.refund.pk
    assert asked == {
        (p, "guide#3"): ("changed", ""),
        (p, "guide#1b"): ("replaces", "guide#1"),
        (r, "guide#1b"): ("replaces", "guide#1"),
        (r, "guide#3"): ("changed", ""),  # graded 0, but its text changed
    }
    assert opened.counts["asked"] == 4
    # The annotation page shows the replacement as such, and the annotator's own kept grades.
    view = annotation_view(
        assignment=Assignment.objects.get(query=judged.refund, annotator=personas.bob)
    )
    shown = {c.chunk_id: (c.grade, c.asked, c.replaces) for c in view.candidates}
    assert shown["guide#1b"] == (None, "replaces", "guide#1")
    assert shown["guide#0"][0] == 0 and "guide#1" not in shown
    assert not Candidate.objects.filter(query=judged.refund, chunk__chunk_id="guide#1").exists()

    for user in (personas.bob, personas.carol):
        grade_all(user, judged.password, {"guide#3": 1, "guide#1b": 0})
        grade_all(user, judged.refund, {"guide#1b": 2, "guide#3": 0})
    queries_approve(project=personas.project, by=personas.alice)
    frozen = golden_set_refresh_freeze(refresh=refresh, by=personas.alice)
    v2 = frozen.version
    assert isinstance(v2, GoldenSetVersion) and v2.parent_id == v1.pk

    before, after = rows(v1), rows(v2)
    pw, rf, inv = str(p), str(r), str(judged.invoices.pk)
    # carried: same grade, the live text, marked as carried
    assert after[(pw, "guide#0")][:2] == (2, "carried")
    assert after[(pw, "guide#0")][2].endswith("Security!")
    # re-judged chunks have their new final grades; the retired one is gone
    assert after[(pw, "guide#3")][:2] == (1, "unanimous")
    assert after[(rf, "guide#1b")][:2] == (2, "unanimous")
    assert (rf, "guide#1") not in after
    # the untouched query's rows are as frozen, but for its carried chunk's text
    assert after[(inv, "guide#2")] == before[(inv, "guide#2")]

    reasons = {(x["query_id"], x["chunk_id"]): x for x in frozen.refresh.reasons}
    assert reasons[(rf, "guide#1")]["kind"] == "retired"
    assert reasons[(rf, "guide#1b")]["kind"] == "rejudged"
    assert reasons[(rf, "guide#1b")]["by"] == ["bob", "carol"]
    assert reasons[(pw, "guide#0")]["kind"] == "carried_text"
    diff = version_diff(v1, v2)
    assert (rf, "guide#1", 2) in diff.removed_judgments
    assert (rf, "guide#1b", 2) in diff.added_judgments


def test_a_refresh_on_an_unchanged_corpus_is_identical_and_stores_nothing(personas):
    judged = judged_v1(personas)
    opened = golden_set_refresh_open(version=judged.version, by=personas.alice)
    assert opened.refresh is None
    assert opened.identical_to == judged.version.label
    assert opened.counts["touched"] == 0
    assert GoldenSetVersion.objects.filter(project=personas.project).count() == 1
