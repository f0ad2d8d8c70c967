"""The dashboard's machine-judge table is never recomputed while a lead waits: after a grade
changes, the page shows the figures it has with the time they were computed and queues one
recomputation for a worker; a real worker then brings the figures up to date, equal to
scikit-learn's kappa on the new grades."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from annotation.models import Candidate, Judgment, MachineGrade, MachineJudgeKind
from annotation.selectors.machine import judge_agreement, judge_agreement_as_of
from annotation.services.machine import machine_grades_store, machine_judge_add
from evaluation.services.judges import _refresh_lock
from tests.conftest import wait_for
from tests.evaluation.judges import graded_project

sklearn_metrics = pytest.importorskip("sklearn.metrics")

STALE_NOTE = 'id="judge-kappa-as-of"'


def _judged(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=3, spare=0)
    judge = machine_judge_add(project=setup.project, name="copy of bob", kind=MachineJudgeKind.FILE)
    bob = dict(Judgment.objects.filter(annotator=personas.bob).values_list("candidate_id", "grade"))
    machine_grades_store(judge=judge, grades={c: (g, "r") for c, g in bob.items()})
    return setup, judge


def _latest_keys(project) -> list[str]:
    from annotation.selectors.machine import _latest_key

    return [_latest_key(project, 1000)]


def _dashboard(user, project) -> str:
    client = Client()
    client.force_login(user)
    page = client.get(f"/projects/{project.pk}/dashboard/")
    assert page.status_code == 200
    return page.content.decode()


def _regrade_one(personas, api_client_for, project) -> Candidate:
    """bob changes his grade on the first candidate (2 → 0), through the API."""
    cand = Candidate.objects.filter(query__project=project).order_by("pk").first()
    before = Judgment.objects.get(candidate=cand, annotator=personas.bob).grade
    response = api_client_for(personas.bob).put(
        f"/api/v1/projects/{project.pk}/candidates/{cand.pk}/judgment/",
        {"grade": 0 if before else 2},
        format="json",
    )
    assert response.status_code in (200, 201), response.content
    return cand


def _kappa_against_bob(personas, judge) -> float:
    bob = dict(Judgment.objects.filter(annotator=personas.bob).values_list("candidate_id", "grade"))
    mine = dict(MachineGrade.objects.filter(judge=judge).values_list("candidate_id", "grade"))
    ids = sorted(bob)
    return sklearn_metrics.cohen_kappa_score([mine[c] for c in ids], [bob[c] for c in ids])


def test_figures_never_computed_are_queued_and_the_page_says_so(personas, api_client_for):
    setup, _judge = _judged(personas, api_client_for)  # a file of grades: nothing computed
    page = _dashboard(personas.alice, setup.project)
    assert "The figures are being computed from the latest grades" in page
    assert cache.get(_refresh_lock(setup.project.pk)) == 1  # one computation is queued
    cache.delete(_refresh_lock(setup.project.pk))


def test_a_grade_change_shows_the_last_figures_and_queues_one_refresh(personas, api_client_for):
    setup, _judge = _judged(personas, api_client_for)
    judge_agreement(project=setup.project)  # as a worker does
    first = _dashboard(personas.alice, setup.project)
    assert "copy of bob" in first and STALE_NOTE not in first  # current
    assert judge_agreement_as_of(project=setup.project).current

    _regrade_one(personas, api_client_for, setup.project)
    shown = judge_agreement_as_of(project=setup.project)
    assert not shown.current and shown.figures is not None and shown.computed_at is not None
    (row,) = shown.figures["judges"]
    bob_cell = next(a for a in row["against"] if a["who"] == "bob")
    assert bob_cell["overall"]["kappa"] == pytest.approx(1.0)  # the figures from before

    cache.delete(_refresh_lock(setup.project.pk))
    page = _dashboard(personas.alice, setup.project)
    assert STALE_NOTE in page and "grades given since are being counted" in page
    # one recomputation is queued, and a second visit queues no other
    assert cache.get(_refresh_lock(setup.project.pk)) == 1
    again = _dashboard(personas.alice, setup.project)
    assert STALE_NOTE in again
    cache.delete(_refresh_lock(setup.project.pk))


def test_a_project_without_judges_computes_nothing(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=2, spare=0)
    shown = judge_agreement_as_of(project=setup.project)
    assert shown.current and shown.figures == {"judges": [], "people": []}
    assert "No machine judge yet." in _dashboard(personas.alice, setup.project)


def test_a_real_worker_brings_the_figures_up_to_date(
    personas, api_client_for, celery_worker_process, settings
):
    import config.settings

    settings.CACHES = config.settings.CACHES  # the worker's keys, not this test's own prefix
    setup, judge = _judged(personas, api_client_for)
    for key in (_refresh_lock(setup.project.pk), *_latest_keys(setup.project)):
        cache.delete(key)  # left by an earlier test's project of the same id

    def current():
        shown = judge_agreement_as_of(project=setup.project)
        return shown if shown.current else None

    assert "being computed" in _dashboard(personas.alice, setup.project)  # never computed
    wait_for(current, timeout=90, message="the worker's first computation")
    _regrade_one(personas, api_client_for, setup.project)
    expected = _kappa_against_bob(personas, judge)
    assert expected < 1.0
    _dashboard(personas.alice, setup.project)  # queues the recomputation

    shown = wait_for(
        current,
        timeout=90,
        message="the worker's recomputation",
    )
    (row,) = shown.figures["judges"]
    bob_cell = next(a for a in row["against"] if a["who"] == "bob")
    assert bob_cell["overall"]["kappa"] == pytest.approx(expected, abs=1e-12)
    page = _dashboard(personas.alice, setup.project)
    assert STALE_NOTE not in page
    assert cache.get(_refresh_lock(setup.project.pk)) is None  # the worker freed its lock
