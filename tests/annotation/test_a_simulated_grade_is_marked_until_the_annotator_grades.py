"""A grade saved on an annotator's behalf as simulated (the demo loader's) is marked so in her
queue and, once a rule settles the query, its final grades carry the provenance `simulated`;
the annotator's own save of a grade clears the mark (the grade is hers from then on)."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Assignment, Judgment, Resolution
from annotation.models.judging import Provenance
from annotation.services.judging import judgment_save, resolutions_mark_simulated
from tests.annotation.factories import grade_all, judging_setup
from tests.annotation.test_a_grade_save_is_short import signed_in


@pytest.mark.django_db
def test_simulated_grades_are_marked_and_the_annotators_own_grade_clears_the_mark(personas):
    setup = judging_setup(personas)
    query = setup.queries[0]
    candidates = setup.candidates[query.pk]
    assignments = list(Assignment.objects.filter(query=query).select_related("annotator"))
    for assignment in assignments:
        for candidate in candidates:
            judgment_save(assignment=assignment, candidate=candidate, grade=2, simulated=True)
    assert Judgment.objects.filter(candidate__query=query, simulated=True).count() == 6
    assert resolutions_mark_simulated(project=setup.project) == 3
    assert set(
        Resolution.objects.filter(candidate__query=query).values_list("provenance", flat=True)
    ) == {Provenance.SIMULATED}

    first = assignments[0].annotator
    page = Client()
    page.force_login(first)
    html = page.get(f"/projects/{setup.project.pk}/annotate/").content.decode()
    assert 'class="badge simulated" data-simulated="3"' in html and 'id="simulated-queue"' in html

    # Her own grade replaces the simulated one and is hers.
    grade_all(signed_in(first), setup.project, candidates[:1], [1])
    mine = Judgment.objects.get(candidate=candidates[0], annotator=first)
    assert (mine.grade, mine.simulated) == (1, False)
    html = page.get(f"/projects/{setup.project.pk}/annotate/").content.decode()
    assert 'data-simulated="2"' in html
