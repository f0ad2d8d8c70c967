"""A refusal names the caller's role with the right article and says who may do it instead:
"An annotator of this project may not do this: only a lead can", never "A annotator … may not
lead"."""

from __future__ import annotations

import pytest

from annotation.wording import with_article


@pytest.mark.parametrize(
    ("noun", "expected"),
    [
        ("lead", "a lead"),
        ("annotator", "an annotator"),
        ("viewer", "a viewer"),
        ("owner", "an owner"),
        ("user", "a user"),
        ("hour", "an hour"),
        ("Annotator", "an Annotator"),
        ("", ""),
    ],
)
def test_a_noun_gets_its_indefinite_article(noun, expected):
    assert with_article(noun) == expected


def test_an_annotator_is_refused_a_leads_work_in_plain_words(personas, api_client_for):
    project = personas.project
    response = api_client_for(personas.bob).post(
        f"/api/v1/projects/{project.pk}/members/",
        {"username": "mallory", "role": "viewer"},
        format="json",
    )
    assert response.status_code == 403
    assert response.json() == {
        "detail": "An annotator of this project may not do this: only a lead can."
    }


def test_a_viewer_is_refused_grading_in_plain_words(personas, api_client_for):
    response = api_client_for(personas.victor).get(f"/api/v1/projects/{personas.project.pk}/queue/")
    assert response.status_code == 403
    assert response.json() == {
        "detail": "A viewer of this project may not grade: only annotators and leads can."
    }


def test_the_members_page_says_who_became_what_with_an_article(client, personas):
    client.force_login(personas.alice)
    response = client.post(
        f"/projects/{personas.project.pk}/members/",
        {"username": "mallory", "role": "annotator"},
        follow=True,
    )
    assert "mallory is now an annotator." in response.content.decode()


def test_a_membership_reads_as_a_sentence(personas):
    membership = personas.project.memberships.get(user=personas.bob)
    assert str(membership) == "bob is an annotator of Acme Support"
