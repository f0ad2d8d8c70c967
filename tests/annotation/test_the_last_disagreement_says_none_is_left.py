""" "Save and open the next disagreement" on the last one says none is left and opens the
review queue, instead of reloading the query just settled."""

from __future__ import annotations

from annotation.models import QueryReview
from tests.annotation.factories import grade_all, judging_setup


def test_saving_the_last_disagreement_says_none_is_left(personas, api_client_for, client):
    setup = judging_setup(personas, per_query=3)
    query, candidates = setup.first()
    grade_all(api_client_for(personas.bob), personas.project, candidates, [2, 0, 1])
    grade_all(api_client_for(personas.carol), personas.project, candidates, [0, 0, 1])
    review = QueryReview.objects.get(query=query)
    assert review.state == "flagged"
    client.force_login(personas.alice)
    project = personas.project
    form = {f"grade-{c.pk}": g for c, g in zip(candidates, ["2", "0", "1"], strict=True)}
    response = client.post(
        f"/projects/{project.pk}/review/{query.pk}/",
        {**form, "version": review.version, "reason": "annotator_error", "then": "next"},
        headers={"accept-language": "en"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == f"/projects/{project.pk}/review/"
    assert "That was the last disagreement: none is left to settle." in response.content.decode()
