"""Escalation through the real services and API: a flagged query goes to one more annotator
chosen by the balancing rule, resolves by majority or reaches a lead with every grade, at most
once; and it stays consistent when the extra assignment is reassigned, a first annotator
changes a grade meanwhile, a lead adjudicates it anyway, escalation is switched off or on, and
the project is recomputed in bulk."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client

from annotation.models import Assignment, Judgment, QueryAgreement, QueryReview, Resolution
from annotation.selectors.judging import review_counts
from annotation.services.adjudication import (
    project_agreement_recompute,
    project_escalation_set,
    project_tie_rule_set,
    query_adjudicate,
    query_settle,
)
from annotation.services.assignment import assignment_reassign, queries_assign
from annotation.services.projects import membership_set
from tests.annotation.factories import grade_all, make_chunks, make_query, pool
from tests.conftest import PASSWORD


def annotator(project, name: str):
    user = get_user_model().objects.create_user(name, password=PASSWORD)
    membership_set(project=project, username=name, role="annotator")
    return user


def setup(personas, *, extra=("dave",), queries: int = 1, escalate: bool = True, share=False):
    """bob and carol have the queries (three candidates each; with `share`, the `extra`
    annotators share them too); `extra` annotators may be asked next. The kappa threshold is
    off unless a test sets it: two apart flags."""
    project = personas.project
    project.kappa_threshold = -1.0
    project.escalate = escalate
    project.save()
    users = {name: annotator(project, name) for name in extra} if share else {}
    chunks = make_chunks(project)
    made = [make_query(project, f"question {i} about python") for i in range(queries)]
    candidates = {q.pk: pool(q, chunks[:3]) for q in made}
    queries_assign(project=project, per_query=2)
    if not share:
        users = {name: annotator(project, name) for name in extra}
    return project, made, candidates, users


def review(query) -> QueryReview:
    return QueryReview.objects.get(query=query)


def finals(candidates) -> list[tuple[int, str] | None]:
    by_id = {r.candidate_id: r for r in Resolution.objects.filter(candidate__in=candidates)}
    return [
        (by_id[c.pk].grade, by_id[c.pk].provenance) if c.pk in by_id else None for c in candidates
    ]


def extra_of(query) -> list[str]:
    return list(
        Assignment.objects.filter(query=query, escalation=True).values_list(
            "annotator__username", flat=True
        )
    )


def two_apart(personas, api_client_for, project, query, candidates):
    grade_all(api_client_for(personas.bob), project, candidates, [2, 0, 0])
    grade_all(api_client_for(personas.carol), project, candidates, [0, 0, 0])


def test_a_two_apart_query_waits_for_a_third_annotator_then_resolves_by_majority(
    personas, api_client_for
):
    project, (query,), candidates, users = setup(personas)
    cands = candidates[query.pk]
    two_apart(personas, api_client_for, project, query, cands)

    assert (review(query).state, review(query).escalation) == ("escalated", "escalated")
    assert extra_of(query) == ["dave"]
    assert finals(cands) == [None, None, None]
    assert review_counts(project=project)["escalated"] == 1
    dave = api_client_for(users["dave"])
    queue = dave.get(f"/api/v1/projects/{project.pk}/queue/").json()
    assert [item["query_id"] for item in queue["items"]] == [query.pk]
    # dave works blind: his page and its API hold his own grades only (none yet)
    page = dave.get(f"/api/v1/projects/{project.pk}/queries/{query.pk}/annotation/").json()
    assert all(c["grade"] is None for c in page["candidates"])

    grade_all(dave, project, cands, [2, 0, 0])
    assert review(query).state == "resolved"
    assert review(query).adjudicated_at is None
    assert finals(cands) == [(2, "majority"), (0, "unanimous"), (0, "unanimous")]
    assert QueryAgreement.objects.get(query=query).n_annotators == 3


def test_when_the_third_grade_settles_nothing_the_lead_gets_all_three_once(
    personas, api_client_for
):
    project, (query,), candidates, users = setup(personas, extra=("dave", "eve"))
    cands = candidates[query.pk]
    two_apart(personas, api_client_for, project, query, cands)
    assert extra_of(query) == ["dave"]
    grade_all(api_client_for(users["dave"]), project, cands, [1, 0, 0])  # 2/0/1: no majority

    assert review(query).state == "flagged"
    assert QueryAgreement.objects.get(query=query).flag_reasons == ["two_apart"]
    lead = api_client_for(personas.alice)
    shown = lead.get(f"/api/v1/projects/{project.pk}/review/queries/{query.pk}/").json()
    assert shown["escalation"] == "escalated"
    assert [g["grade"] for g in shown["candidates"][0]["grades"]] == [2, 0, 1]  # bob carol dave
    # at most once: eve is free, but a grade change that keeps it flagged asks nobody else
    grade_all(api_client_for(users["dave"]), project, cands[:1], [1])
    assert review(query).state == "flagged"
    assert Assignment.objects.filter(query=query).count() == 3
    html = Client()
    html.force_login(personas.alice)
    page = html.get(f"/projects/{project.pk}/review/{query.pk}/").content.decode()
    assert "One more annotator (dave) graded it too" in page


def test_a_majority_with_low_agreement_still_goes_to_the_lead(personas, api_client_for):
    project, (query,), candidates, users = setup(personas)
    project.kappa_threshold = 0.6
    project.save()
    cands = candidates[query.pk]
    grade_all(api_client_for(personas.bob), project, cands, [2, 1, 0])
    grade_all(api_client_for(personas.carol), project, cands, [0, 1, 0])
    assert review(query).state == "escalated"
    grade_all(api_client_for(users["dave"]), project, cands, [2, 0, 1])  # majority everywhere
    agreement = QueryAgreement.objects.get(query=query)
    assert agreement.kappa < 0.6 and agreement.flag_reasons == ["low_kappa"]
    assert review(query).state == "flagged"


def test_the_balancing_rule_chooses_the_least_loaded_annotator_who_has_not_seen_it(
    personas, api_client_for
):
    # four annotators, three queries: bob+carol, dave+eve, bob+carol; dave and eve have one
    project, queries, candidates, users = setup(
        personas, extra=("dave", "eve"), queries=3, share=True
    )
    assert extra_of(queries[0]) == []
    two_apart(personas, api_client_for, project, queries[0], candidates[queries[0].pk])
    assert extra_of(queries[0]) == ["dave"]  # dave and eve tie on load: username order
    two_apart(personas, api_client_for, project, queries[2], candidates[queries[2].pk])
    assert extra_of(queries[2]) == ["eve"]  # dave has one more now
    # the escalation goes at the end of the chosen annotator's queue
    orders = dict(
        Assignment.objects.filter(annotator=users["dave"]).values_list("query_id", "order")
    )
    assert orders[queries[0].pk] > orders[queries[1].pk]


def test_with_nobody_left_it_goes_to_the_lead_and_says_why(personas, api_client_for):
    project, (query,), candidates, _ = setup(personas, extra=())
    two_apart(personas, api_client_for, project, query, candidates[query.pk])
    assert (review(query).state, review(query).escalation) == ("flagged", "no_annotator")
    client = Client()
    client.force_login(personas.alice)
    page = client.get(f"/projects/{project.pk}/review/{query.pk}/").content.decode()
    assert "every annotator of the project already has this query" in page
    queue = client.get(f"/projects/{project.pk}/review/").content.decode()
    assert "came straight to a lead" in queue


def test_an_annotator_who_graded_it_before_a_reassignment_is_not_asked(personas, api_client_for):
    project, (query,), candidates, users = setup(personas, extra=("dave", "eve"))
    cands = candidates[query.pk]
    grade_all(api_client_for(personas.carol), project, cands[:1], [0])
    carol = Assignment.objects.get(query=query, annotator=personas.carol)
    assignment_reassign(assignment=carol, to_username="dave")  # carol saw it
    grade_all(api_client_for(personas.bob), project, cands, [2, 0, 0])
    grade_all(api_client_for(users["dave"]), project, cands, [0, 0, 0])
    assert extra_of(query) == ["eve"]


def test_an_ambiguous_query_goes_straight_to_the_lead(personas, api_client_for):
    project, (query,), candidates, _ = setup(personas)
    cands = candidates[query.pk]
    bob = api_client_for(personas.bob)
    bob.put(
        f"/api/v1/projects/{project.pk}/queries/{query.pk}/annotation/",
        {"flags": {"ambiguous": True}},
        format="json",
    )
    grade_all(bob, project, cands, [2, 0, 0])
    grade_all(api_client_for(personas.carol), project, cands, [0, 0, 0])
    assert (review(query).state, review(query).escalation) == ("flagged", "")
    assert extra_of(query) == []


def test_reassigning_the_third_annotators_assignment_keeps_the_query_waiting(
    personas, api_client_for
):
    project, (query,), candidates, users = setup(personas, extra=("dave", "eve"))
    cands = candidates[query.pk]
    two_apart(personas, api_client_for, project, query, cands)
    grade_all(api_client_for(users["dave"]), project, cands[:1], [2])  # started, not done
    extra = Assignment.objects.get(query=query, escalation=True)
    assignment_reassign(assignment=extra, to_username="eve")
    assert review(query).state == "escalated"
    assert extra_of(query) == ["eve"]
    grade_all(api_client_for(users["eve"]), project, cands, [0, 0, 0])
    assert review(query).state == "resolved"
    assert finals(cands)[0] == (0, "majority")  # dave's grade 2 was not counted


def test_reassigning_a_first_annotator_meanwhile_reopens_it_until_both_are_done(
    personas, api_client_for
):
    project, (query,), candidates, users = setup(personas, extra=("dave", "eve"))
    cands = candidates[query.pk]
    two_apart(personas, api_client_for, project, query, cands)
    carol = Assignment.objects.get(query=query, annotator=personas.carol)
    assignment_reassign(assignment=carol, to_username="eve")
    assert review(query).state == "open"
    grade_all(api_client_for(users["eve"]), project, cands, [2, 0, 0])
    assert review(query).state == "escalated"  # only dave, the extra annotator, is left
    grade_all(api_client_for(users["dave"]), project, cands, [1, 0, 0])
    assert finals(cands)[0] == (2, "majority")


def test_a_grade_changed_by_a_first_annotator_meanwhile_counts_when_the_third_is_done(
    personas, api_client_for
):
    project, (query,), candidates, users = setup(personas)
    cands = candidates[query.pk]
    two_apart(personas, api_client_for, project, query, cands)
    grade_all(api_client_for(personas.carol), project, cands[:1], [1])  # now 2/1: no flag alone
    assert review(query).state == "escalated"  # the escalation stands
    grade_all(api_client_for(users["dave"]), project, cands, [1, 0, 0])
    assert finals(cands)[0] == (1, "majority")


def test_a_lead_may_adjudicate_a_query_waiting_for_the_third_annotator(personas, api_client_for):
    project, (query,), candidates, users = setup(personas)
    cands = candidates[query.pk]
    two_apart(personas, api_client_for, project, query, cands)
    grade_all(api_client_for(users["dave"]), project, cands[:1], [2])
    query_adjudicate(
        project=project,
        query_id=query.pk,
        by=personas.alice,
        version=review(query).version,
        grades={c.pk: 1 for c in cands},
        reason="guideline_gap",
    )
    assert review(query).state == "resolved"
    assert finals(cands) == [(1, "adjudicated")] * 3
    assert extra_of(query) == []  # withdrawn from dave's queue; his grade is kept
    assert Judgment.objects.filter(annotator=users["dave"]).count() == 1


def test_switching_escalation_off_sends_the_waiting_queries_to_the_lead(personas, api_client_for):
    project, queries, candidates, users = setup(personas, queries=2, extra=("dave",))
    for query in queries:
        two_apart(personas, api_client_for, project, query, candidates[query.pk])
    # dave finishes the first; the second waits for him
    grade_all(api_client_for(users["dave"]), project, candidates[queries[0].pk], [2, 0, 0])
    grade_all(api_client_for(users["dave"]), project, candidates[queries[1].pk][:1], [2])
    response = api_client_for(personas.alice).put(
        f"/api/v1/projects/{project.pk}/escalation/", {"escalate": False}, format="json"
    )
    assert response.json() == {"escalate": False, "escalated": 0, "withdrawn": 1}
    assert review(queries[0]).state == "resolved"  # a finished escalation stays
    assert (review(queries[1]).state, review(queries[1]).escalation) == ("flagged", "")
    assert extra_of(queries[1]) == []
    assert QueryAgreement.objects.get(query=queries[1]).n_annotators == 2


def test_switching_it_on_escalates_flagged_queries_a_lead_has_not_decided(personas, api_client_for):
    project, queries, candidates, _users = setup(
        personas, queries=2, extra=("dave", "eve"), escalate=False
    )
    for query in queries:
        two_apart(personas, api_client_for, project, query, candidates[query.pk])
    assert [review(q).state for q in queries] == ["flagged", "flagged"]
    query_adjudicate(
        project=project,
        query_id=queries[0].pk,
        by=personas.alice,
        version=review(queries[0]).version,
        grades={c.pk: 0 for c in candidates[queries[0].pk]},
        reason="annotator_error",
    )
    change = project_escalation_set(project=project, escalate=True)
    assert (change.escalated, change.withdrawn) == (1, 0)
    assert review(queries[0]).state == "resolved" and extra_of(queries[0]) == []
    assert review(queries[1]).state == "escalated" and extra_of(queries[1]) == ["dave"]
    # switching it on again asks nobody more
    assert project_escalation_set(project=project, escalate=True).escalated == 0


def test_a_tie_rule_change_escalates_what_it_flags_and_leaves_waiting_queries_alone(
    personas, api_client_for
):
    project, queries, candidates, _users = setup(personas, queries=2, extra=("dave", "eve"))
    grade_all(api_client_for(personas.bob), project, candidates[queries[0].pk], [1, 0, 0])
    grade_all(api_client_for(personas.carol), project, candidates[queries[0].pk], [0, 0, 0])
    two_apart(personas, api_client_for, project, queries[1], candidates[queries[1].pk])
    assert [review(q).state for q in queries] == ["resolved", "escalated"]
    project.refresh_from_db()
    assert project_tie_rule_set(project=project, tie_rule="lead") == 1
    assert [review(q).state for q in queries] == ["escalated", "escalated"]
    # a tie, flagged now, goes to eve: dave already has one more query than she has
    assert (extra_of(queries[0]), extra_of(queries[1])) == (["eve"], ["dave"])


def test_the_bulk_recompute_settles_escalated_queries_as_one_at_a_time(personas, api_client_for):
    project, queries, candidates, users = setup(personas, queries=3, extra=("dave",))
    for query in queries:
        two_apart(personas, api_client_for, project, query, candidates[query.pk])
    dave = api_client_for(users["dave"])
    grade_all(dave, project, candidates[queries[0].pk], [2, 0, 0])  # resolves
    grade_all(dave, project, candidates[queries[1].pk], [1, 0, 0])  # to the lead
    one_at_a_time = (
        [(review(q).state, review(q).escalation) for q in queries],
        [finals(candidates[q.pk]) for q in queries],
    )
    # forget what was settled, then settle the whole project in bulk
    Resolution.objects.all().delete()
    QueryAgreement.objects.all().update(signature="", flagged=False, flag_reasons=[])
    for query in queries[:2]:
        QueryReview.objects.filter(query=query).update(state="escalated")
    project.refresh_from_db()
    project_agreement_recompute(project=project)
    bulk = (
        [(review(q).state, review(q).escalation) for q in queries],
        [finals(candidates[q.pk]) for q in queries],
    )
    assert bulk == one_at_a_time
    assert one_at_a_time[0] == [
        ("resolved", "escalated"),
        ("flagged", "escalated"),
        ("escalated", "escalated"),
    ]
    for query in queries:
        query_settle(query_id=query.pk)  # safe to run twice
    assert [(review(q).state, review(q).escalation) for q in queries] == one_at_a_time[0]
    assert Assignment.objects.filter(escalation=True).count() == 3


def test_the_dashboard_counts_queries_waiting_for_one_more_annotator(personas, api_client_for):
    project, (query,), candidates, _ = setup(personas)
    two_apart(personas, api_client_for, project, query, candidates[query.pk])
    client = Client()
    client.force_login(personas.alice)
    html = client.get(f"/projects/{project.pk}/dashboard/").content.decode()
    assert '<span class="stat-n" id="escalated-count">1</span>' in html
    summary = api_client_for(personas.alice).get(f"/api/v1/projects/{project.pk}/agreement/")
    assert summary.json()["states"]["escalated"] == 1 and summary.json()["escalate"] is True
    queue = client.get(f"/projects/{project.pk}/review/").content.decode()
    assert 'id="waiting"' in queue and "dave" in queue
    waiting = api_client_for(personas.alice).get(
        f"/api/v1/projects/{project.pk}/review/queue/?state=escalated"
    )
    assert [row["query_id"] for row in waiting.json()] == [query.pk]
