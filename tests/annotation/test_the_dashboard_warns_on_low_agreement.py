"""The lead dashboard warns, in plain words and with the figure, when project-level agreement
(Krippendorff's α, or the mean pairwise κ when α is undefined) is below 0.6: revisit the
guidelines (docs/design.md, "Agreement conventions")."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client

from annotation.services.assignment import queries_assign
from goldsmith.agreement import guidelines_warning
from tests.annotation.factories import grade_all, make_chunks, make_query, pool
from tests.conftest import PASSWORD


def judge(personas, api_client_for, grades: dict[int, dict[str, list[int]]]) -> None:
    project = personas.project
    chunks = make_chunks(project)
    queries = [make_query(project, f"question {i} about python") for i in grades]
    candidates = {q.pk: pool(q, chunks) for q in queries}
    queries_assign(project=project, per_query=2)
    for i, query in enumerate(queries):
        for username, given in grades[i].items():
            user = get_user_model().objects.get(username=username)
            grade_all(api_client_for(user), project, candidates[query.pk], given)


def dashboard(personas) -> str:
    client = Client()
    assert client.login(username="alice", password=PASSWORD)
    return client.get(f"/projects/{personas.project.pk}/dashboard/").content.decode()


def test_annotators_who_disagree_are_told_to_revisit_the_guidelines(personas, api_client_for):
    judge(
        personas,
        api_client_for,
        {
            0: {"bob": [2, 0, 1, 2, 0], "carol": [0, 2, 2, 0, 1]},
            1: {"bob": [1, 1, 0, 2, 0], "carol": [2, 0, 1, 0, 2]},
            2: {"bob": [0, 2, 0, 1, 2], "carol": [1, 0, 2, 2, 0]},
        },
    )
    api = api_client_for(personas.alice).get(f"/api/v1/projects/{personas.project.pk}/agreement/")
    data = api.json()
    alpha = data["alpha_ordinal"]
    assert alpha is not None and alpha < 0.6
    warning = data["guidelines_warning"]
    assert warning["metric"] == "alpha_ordinal" and warning["value"] == alpha
    assert warning["limit"] == 0.6 and warning["items"] == data["items"]
    html = dashboard(personas)
    assert 'id="guidelines-warning"' in html
    assert "Revisit the guidelines." in html
    assert (
        f"Krippendorff&#x27;s α (ordinal) is {alpha:.2f} over {data['items']} judged chunks" in html
    )
    assert "below 0.6" in html


def test_annotators_who_agree_see_no_warning(personas, api_client_for):
    judge(
        personas,
        api_client_for,
        {
            0: {"bob": [2, 0, 1, 2, 0], "carol": [2, 0, 1, 2, 0]},
            1: {"bob": [1, 1, 0, 2, 0], "carol": [1, 1, 0, 2, 0]},
            2: {"bob": [0, 2, 0, 1, 2], "carol": [0, 2, 1, 1, 2]},
        },
    )
    data = (
        api_client_for(personas.alice)
        .get(f"/api/v1/projects/{personas.project.pk}/agreement/")
        .json()
    )
    assert data["alpha_ordinal"] >= 0.6 and data["guidelines_warning"] is None
    assert 'id="guidelines-warning"' not in dashboard(personas)


def test_the_mean_kappa_stands_in_when_alpha_is_undefined():
    warning = guidelines_warning(alpha=None, kappa=0.35, items=40)
    assert warning is not None and warning["metric"] == "kappa"
    assert "the mean pairwise Cohen's κ is 0.35 over 40 judged chunks, below 0.6" in warning["text"]
    assert "revisit the guidelines" in warning["text"]
    assert guidelines_warning(alpha=None, kappa=None, items=40) is None  # nothing to measure
    assert guidelines_warning(alpha=0.72, kappa=0.3, items=40) is None  # alpha comes first


def test_exactly_0_6_is_enough_and_high_raw_agreement_is_pointed_out():
    assert guidelines_warning(alpha=0.6, kappa=None, items=10) is None
    low = guidelines_warning(alpha=0.41, kappa=None, items=10, raw_agreement=0.93, ac1=0.9)
    assert low is not None
    assert "Raw agreement is 0.93 and Gwet's AC1 0.90" in low["text"]
