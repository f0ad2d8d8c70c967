"""A judges page's form posted with a judge or job id that is not a number, or not this
project's, is refused with a 404 page, never a server error, on both judges pages."""

from __future__ import annotations

import pytest
from django.test import Client

from evaluation.services.judges import judge_register


@pytest.mark.parametrize("page", ["judges", "answer-judges"])
@pytest.mark.parametrize("bad", ["abc", "", "-1", "1e3", "99999"])
def test_a_bad_judge_id_is_a_404(personas, page, bad):
    judge_register(project=personas.project, name="stub", kind="keyword")
    client = Client()
    client.force_login(personas.alice)
    action = "run" if page == "judges" else "test"
    response = client.post(
        f"/projects/{personas.project.pk}/{page}/", {"action": action, "judge": bad}
    )
    assert response.status_code == 404


def test_a_bad_job_id_is_a_404(personas):
    judge = judge_register(project=personas.project, name="stub", kind="keyword")
    client = Client()
    client.force_login(personas.alice)
    response = client.post(
        f"/projects/{personas.project.pk}/judges/",
        {"action": "cancel", "judge": judge.pk, "job": "x"},
    )
    assert response.status_code == 404
