"""The lead dashboard shows each machine judge's kappa against every annotator and the final
grades, beside the annotators' own kappa against the final grades, with the same figures as
the API, which equal scikit-learn's; the judges page registers the stub, runs it and fills
gaps; annotators never meet a machine grade."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Candidate, Judgment, MachineJudgeKind, Resolution
from annotation.models.judging import Provenance
from annotation.services.machine import machine_grades_store, machine_judge_add
from evaluation.services.judges import judging_job_create
from tests.evaluation.judges import graded_project

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _judged(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=3, spare=0)
    judge = machine_judge_add(project=setup.project, name="half right", kind=MachineJudgeKind.FILE)
    cands = list(Candidate.objects.filter(query__project=setup.project).order_by("pk"))
    # agrees with bob on every other candidate, says 0 elsewhere
    bob = dict(Judgment.objects.filter(annotator=personas.bob).values_list("candidate_id", "grade"))
    grades = {c.pk: (bob[c.pk] if i % 2 else 0, "r") for i, c in enumerate(cands)}
    machine_grades_store(judge=judge, grades=grades)
    return setup, judge, grades, bob


def test_the_api_gives_kappa_against_each_person_equal_to_scikit_learns(personas, api_client_for):
    setup, _judge, grades, bob = _judged(personas, api_client_for)
    body = api_client_for(personas.alice).get(
        f"/api/v1/projects/{setup.project.pk}/judges/agreement/"
    )
    assert body.status_code == 200
    data = body.json()
    (mine,) = data["judges"]
    by_who = {a["who"]: a for a in mine["against"]}
    assert set(by_who) == {"final grades", "bob", "carol"}
    ids = sorted(grades)
    expected = sklearn_metrics.cohen_kappa_score([grades[c][0] for c in ids], [bob[c] for c in ids])
    assert by_who["bob"]["overall"]["kappa"] == pytest.approx(expected, abs=1e-12)
    assert by_who["bob"]["overall"]["n_items"] == len(ids)
    assert by_who["bob"]["overall"]["n_groups"] == 3
    low, high = by_who["bob"]["overall"]["low"], by_who["bob"]["overall"]["high"]
    assert low is not None and low <= high
    finals = dict(
        Resolution.objects.filter(candidate__query__project=setup.project).values_list(
            "candidate_id", "grade"
        )
    )
    both = sorted(finals)
    expected_final = sklearn_metrics.cohen_kappa_score(
        [grades[c][0] for c in both], [finals[c] for c in both]
    )
    assert by_who["final grades"]["overall"]["kappa"] == pytest.approx(expected_final, abs=1e-12)
    # per category: two categories, their items add up
    cats = by_who["bob"]["categories"]
    assert set(cats) == {"howto", "packaging"}
    assert sum(c["n_items"] for c in cats.values()) == len(ids)
    # the people against the final grades, by the same function
    assert {p["who"] for p in data["people"]} == {"bob", "carol"}


def test_the_dashboard_shows_the_judge_beside_the_annotators(personas, api_client_for):
    from annotation.selectors.machine import judge_agreement

    setup, _, _, _ = _judged(personas, api_client_for)
    judge_agreement(project=setup.project)  # as a worker does (a judging job as it ends)
    page = _browser(personas.alice).get(f"/projects/{setup.project.pk}/dashboard/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="machine-judges"' in html and "half right" in html
    assert html.count('class="judge"') == 3 and html.count('class="person"') == 2


def test_the_judges_page_registers_runs_and_fills(personas, api_client_for, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the job's own worker test is elsewhere
    setup = graded_project(personas, api_client_for, humans=1, spare=1)
    lead = _browser(personas.alice)
    url = f"/projects/{setup.project.pk}/judges/"
    assert lead.get(url).status_code == 200
    made = lead.post(url, {"action": "register", "name": "stub", "kind": "keyword"})
    assert made.status_code == 302
    judge = setup.project.machine_judges.get()
    with pytest.MonkeyPatch.context() as mp:
        from evaluation import tasks

        mp.setattr(
            tasks.judging_job_execute,
            "delay_on_commit",
            lambda job_id: tasks.judging_job_execute.apply(args=[job_id]),
        )
        ran = lead.post(url, {"action": "run", "judge": judge.pk, "scope": "all"})
    assert ran.status_code == 302
    from evaluation.models import JudgingJob

    queued = judging_job_create(judge=judge, scope="new", enqueue=False)
    cancelled = lead.post(url, {"action": "cancel", "judge": judge.pk, "job": queued.pk})
    assert cancelled.status_code == 302
    assert JudgingJob.objects.get(pk=queued.pk).state == "cancelled"
    assert judge.grades.count() == Candidate.objects.filter(query__project=setup.project).count()
    filled = lead.post(url, {"action": "fill", "judge": judge.pk}, follow=True)
    assert "4 chunks no person graded" in filled.content.decode()
    assert Resolution.objects.filter(provenance=Provenance.MACHINE).count() == 4
    # annotators neither reach the page nor see machine grades on theirs
    assert _browser(personas.bob).get(url).status_code == 403
    query = setup.queries[0]
    annotate = _browser(personas.bob).get(f"/projects/{setup.project.pk}/annotate/{query.pk}/")
    assert annotate.status_code == 200
    for grade in judge.grades.filter(candidate__query=query):
        assert grade.reason not in annotate.content.decode()
