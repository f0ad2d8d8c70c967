"""Blindness of the judging order and of the stop estimate (issue 22 §1), through what the page
and the API show: whatever another annotator grades on a query that is not resolved (any
subset of its candidates, any grades, permuted or not), this annotator's annotation page shows
the same candidates in the same order, the same random checks and the same estimate, and the
API gives the same estimate."""

from __future__ import annotations

import re

from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Judgment
from tests.annotation.stopping_factories import POOL, stoppable_project

CARD = re.compile(r'<li class="candidate([^"]*)" id="cand-(\d+)"')
ESTIMATE = re.compile(r'<section id="stop-estimate".*?</section>', re.S)


def what_bob_sees(client, api, setup) -> tuple[object, ...]:
    html = client.get(reverse("annotate-query", args=[setup.project.pk, setup.query.pk]))
    page = html.content.decode()
    cards = tuple((int(pk), classes.strip()) for classes, pk in CARD.findall(page))
    assert len(cards) == POOL
    estimate = ESTIMATE.search(page)
    assert estimate is not None
    api_estimate = api.get(
        f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/"
    ).json()
    return cards, estimate.group(0), api_estimate


def test_another_annotators_grades_change_nothing_this_annotator_sees(
    personas, client, api_client_for
):
    setup = stoppable_project(personas)
    personas.project.stopping_allowed = True
    personas.project.save(update_fields=["stopping_allowed"])
    ids = [c.pk for c in setup.candidates]
    # Bob has graded four candidates of his own (one relevant) with the order he was shown.
    client.force_login(personas.bob)
    api = api_client_for(personas.bob)
    first, _, _ = what_bob_sees(client, api, setup)
    for pk, _ in first[:4]:
        Judgment.objects.create(
            candidate_id=pk, annotator=personas.bob, grade=setup.grade_of(pk), order="likely"
        )
    before = what_bob_sees(client, api, setup)

    @given(
        grades=st.lists(st.integers(0, 2), min_size=POOL, max_size=POOL),
        graded=st.lists(st.booleans(), min_size=POOL, max_size=POOL),
        order=st.permutations(list(range(POOL))),
        checks=st.booleans(),
    )
    @settings(
        max_examples=25,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    def carol_grades(grades, graded, order, checks):
        with transaction.atomic():
            Judgment.objects.filter(annotator=personas.carol).delete()
            # Carol's grades, given in any order, permuted over the candidates.
            for i in order:
                if graded[i]:
                    Judgment.objects.create(
                        candidate_id=ids[i],
                        annotator=personas.carol,
                        grade=grades[order.index(i)],
                        order="check" if checks else "likely",
                    )
            assert what_bob_sees(client, api, setup) == before
            transaction.set_rollback(True)

    carol_grades()
