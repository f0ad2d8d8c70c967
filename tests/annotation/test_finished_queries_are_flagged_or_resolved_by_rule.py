"""When every annotator has finished, a query is flagged for a lead or resolved by rule."""

from __future__ import annotations

import pytest

from annotation.models import QueryAgreement, QueryReview, Resolution
from annotation.models.judging import Provenance
from goldsmith.agreement import rule_resolution
from tests.annotation.factories import grade_all, judging_setup


def finish(personas, api_client_for, bob, carol, per_query=None, carol_flags=None):
    setup = judging_setup(personas, per_query=per_query or len(bob))
    query, candidates = setup.first()
    grade_all(api_client_for(personas.bob), personas.project, candidates, bob)
    if carol_flags:
        api_client_for(personas.carol).put(
            f"/api/v1/projects/{personas.project.pk}/queries/{query.pk}/annotation/",
            {"flags": carol_flags},
            format="json",
        )
    grade_all(api_client_for(personas.carol), personas.project, candidates, carol)
    return query, candidates


def test_a_unanimous_query_resolves_by_rule(personas, api_client_for):
    query, candidates = finish(personas, api_client_for, [2, 0, 0], [2, 0, 0])
    agreement = QueryAgreement.objects.get(query=query)
    assert agreement.kappa == 1.0 and not agreement.flagged
    assert QueryReview.objects.get(query=query).state == "resolved"
    finals = {r.candidate_id: (r.grade, r.provenance) for r in Resolution.objects.all()}
    assert finals == {
        candidates[0].pk: (2, "unanimous"),
        candidates[1].pk: (0, "unanimous"),
        candidates[2].pk: (0, "unanimous"),
    }


def test_identical_labels_everywhere_are_unanimous_not_ambiguous(personas, api_client_for):
    query, _ = finish(personas, api_client_for, [0, 0, 0], [0, 0, 0])
    agreement = QueryAgreement.objects.get(query=query)
    assert agreement.kappa is None  # undefined
    assert not agreement.flagged
    assert QueryReview.objects.get(query=query).state == "resolved"


def test_two_annotators_two_grades_apart_flag_the_query(personas, api_client_for):
    query, _ = finish(personas, api_client_for, [2, 0, 0, 1, 1], [0, 0, 0, 1, 1], per_query=5)
    agreement = QueryAgreement.objects.get(query=query)
    assert "two_apart" in agreement.flag_reasons
    assert QueryReview.objects.get(query=query).state == "flagged"
    assert not Resolution.objects.exists()


def test_kappa_below_the_threshold_flags_the_query(personas, api_client_for):
    query, _ = finish(personas, api_client_for, [1, 0, 0, 1, 0], [0, 0, 1, 1, 0], per_query=5)
    agreement = QueryAgreement.objects.get(query=query)
    assert agreement.kappa < 0.6
    assert "low_kappa" in agreement.flag_reasons
    assert agreement.raw_agreement == pytest.approx(0.6)


def test_an_ambiguity_flag_flags_the_query(personas, api_client_for):
    query, _ = finish(
        personas, api_client_for, [2, 0, 1], [2, 0, 1], carol_flags={"ambiguous": True}
    )
    agreement = QueryAgreement.objects.get(query=query)
    assert agreement.flag_reasons == ["ambiguous"]
    assert QueryReview.objects.get(query=query).state == "flagged"


def test_a_tie_between_two_annotators_flags_the_query_when_ties_go_to_a_lead(
    personas, api_client_for
):
    personas.project.kappa_threshold = -1.0  # only the tie can flag it
    personas.project.tie_rule = "lead"
    personas.project.save()
    query, _ = finish(personas, api_client_for, [2, 1, 0, 0], [2, 1, 0, 1], per_query=4)
    agreement = QueryAgreement.objects.get(query=query)
    assert agreement.flag_reasons == ["tie"]
    assert QueryReview.objects.get(query=query).state == "flagged"


def test_a_tie_between_two_annotators_resolves_to_the_lower_grade_by_default(
    personas, api_client_for
):
    personas.project.kappa_threshold = -1.0
    personas.project.save()
    query, candidates = finish(personas, api_client_for, [2, 1, 0, 0], [2, 1, 0, 1], per_query=4)
    assert QueryAgreement.objects.get(query=query).flag_reasons == []
    assert QueryReview.objects.get(query=query).state == "resolved"
    final = Resolution.objects.get(candidate=candidates[3])
    assert (final.grade, final.provenance) == (0, "tie_lower")


def test_the_rule_is_unanimous_else_majority_else_tie():
    assert rule_resolution([1, 1, 1], tie_rule="lead") == (1, "unanimous")
    assert rule_resolution([2, 2, 1], tie_rule="lead") == (2, "majority")
    assert rule_resolution([2, 1], tie_rule="lead") is None
    assert rule_resolution([2, 1, 0], tie_rule="lower") is None


def test_the_rules_names_are_stored_as_the_models_provenances():
    names = {
        rule_resolution(grades, tie_rule=rule)[1]
        for grades, rule in [
            ([1], "lead"),
            ([2, 2, 0], "lead"),
            ([1, 0], "lower"),
            ([1, 0], "higher"),
        ]
    }
    assert names == {"unanimous", "majority", "tie_lower", "tie_higher"}
    assert names <= set(Provenance.values)
