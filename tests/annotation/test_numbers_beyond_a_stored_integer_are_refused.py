"""An id, a version or a seed too large for a 64-bit column, or a negative seed, is refused as
bad input with a sentence: never a server error from the database driver (SQLite raised
"Python int too large to convert to SQLite INTEGER")."""

import pytest

from annotation.models import Sample
from annotation.services.querylogs import query_log_import
from annotation.services.sampling import SamplingError, sample_draw

HUGE = 2**63
SIXTY_FOUR_BITS = 2**63 - 1


@pytest.fixture
def log(personas, tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("query\n" + "\n".join(f"question {i}" for i in range(20)) + "\n")
    return query_log_import(project=personas.project, path=path)


def test_a_query_id_too_large_is_refused_when_listing_assignments(personas, api_client_for):
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/assignments/"
    assert client.get(url, {"query": SIXTY_FOUR_BITS}).status_code == 200
    refused = client.get(url, {"query": HUGE})
    assert refused.status_code == 400
    assert "query" in refused.json()


@pytest.mark.parametrize("seed", [-1, HUGE])
def test_a_seed_out_of_range_is_refused_by_the_api(personas, log, api_client_for, seed):
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/samples/"
    refused = client.post(url, {"n": 5, "strategy": "uniform", "seed": seed}, format="json")
    assert refused.status_code == 400
    assert "seed" in refused.json()
    assert not Sample.objects.exists()


def test_the_largest_stored_seed_draws_a_sample(personas, log, api_client_for):
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/samples/"
    body = {"n": 5, "strategy": "uniform", "seed": SIXTY_FOUR_BITS}
    created = client.post(url, body, format="json")
    assert created.status_code == 201, created.json()
    assert Sample.objects.get().seed == SIXTY_FOUR_BITS


@pytest.mark.parametrize("seed", [-1, HUGE])
def test_the_service_refuses_a_seed_it_cannot_store(personas, log, seed):
    with pytest.raises(SamplingError, match="the seed must be a whole number from 0"):
        sample_draw(project=personas.project, log=log, n=5, strategy="uniform", seed=seed)


def test_the_sampling_page_says_what_a_seed_may_be(personas, log, client):
    client.force_login(personas.alice)
    url = f"/projects/{personas.project.pk}/sampling/"
    form = {"log": log.pk, "n": 5, "strategy": "uniform", "by": "", "allocation": "", "seed": -3}
    page = client.post(url, {**form, "what": "preview"})
    assert page.status_code in (200, 400)
    assert "greater than or equal to 0" in page.content.decode()
