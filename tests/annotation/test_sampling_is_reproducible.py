"""The same log, parameters and seed give the same sample, whatever the storage order; the
sample records its provenance (log sha256, strategy, parameters, seed, strata weights)."""

import csv

import pytest

from annotation.models import Query, Sample
from annotation.services.projects import project_setup
from annotation.services.querylogs import query_log_import
from annotation.services.sampling import sample_create, sample_draw

CATEGORIES = ["json", "files", "dates", "asyncio", "regex"]


@pytest.fixture
def log_file(tmp_path):
    path = tmp_path / "log.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "category", "count", "feedback"])
        for i in range(300):
            feedback = "thumbs_down" if i % 7 == 0 else ""
            count = max(1, 200 // (i + 1))
            writer.writerow([f"question number {i} about {CATEGORIES[i % 5]}",
                             CATEGORIES[i % 5], count, feedback])  # fmt: skip
    return path


STRATEGIES = [
    {"strategy": "uniform"},
    {"strategy": "stratified", "by": "category"},
    {"strategy": "stratified", "by": "category", "allocation": "equal"},
    {"strategy": "frequency"},
    {"strategy": "cluster"},
    {"strategy": "feedback"},
]


@pytest.mark.parametrize("params", STRATEGIES, ids=lambda p: "-".join(p.values()))
def test_the_same_seed_gives_the_same_sample(params, personas, log_file):
    other = project_setup(name="Other", leads=["alice"]).project
    log_a = query_log_import(project=personas.project, path=log_file, near_duplicate_threshold=1)
    log_b = query_log_import(project=other, path=log_file, near_duplicate_threshold=1)
    assert log_a.sha256 == log_b.sha256
    draw_a = sample_draw(project=personas.project, log=log_a, n=25, seed=11, **params)
    draw_b = sample_draw(project=other, log=log_b, n=25, seed=11, **params)
    assert [r.normalized for r in draw_a.rows] == [r.normalized for r in draw_b.rows]
    assert draw_a.strata == draw_b.strata
    assert len(draw_a.rows) == 25
    again = sample_draw(project=personas.project, log=log_a, n=25, seed=11, **params)
    assert [r.normalized for r in again.rows] == [r.normalized for r in draw_a.rows]
    changed = sample_draw(project=personas.project, log=log_a, n=25, seed=12, **params)
    assert [r.normalized for r in changed.rows] != [r.normalized for r in draw_a.rows]


def test_a_stored_sample_records_its_provenance(personas, log_file):
    log = query_log_import(project=personas.project, path=log_file)
    outcome = sample_create(
        project=personas.project, log=log, n=20, strategy="stratified", by="category", seed=3,
        created_by=personas.alice,
    )  # fmt: skip
    sample = Sample.objects.get()
    assert sample.log_sha256 == log.sha256
    assert (sample.strategy, sample.by, sample.allocation, sample.seed) == (
        "stratified", "category", "proportional", 3,
    )  # fmt: skip
    assert [s["name"] for s in sample.strata] == sorted(CATEGORIES)
    assert sum(s["allocated"] for s in sample.strata) == 20 == sample.n_chosen
    for stratum in sample.strata:
        assert {"size", "volume", "share", "allocated", "weight"} <= set(stratum)
    queries = Query.objects.filter(sample=sample)
    assert queries.count() == 20
    assert {q.normalized for q in queries} == {r.normalized for r in outcome.rows}
    assert all(q.log_query_id and q.stratum in CATEGORIES for q in queries)


def test_queries_already_in_the_project_are_excluded(personas, log_file):
    log = query_log_import(project=personas.project, path=log_file)
    first = sample_create(project=personas.project, log=log, n=30, strategy="uniform", seed=1)
    second = sample_draw(project=personas.project, log=log, n=30, strategy="uniform", seed=1)
    assert second.excluded == 30
    assert not {r.normalized for r in first.rows} & {r.normalized for r in second.rows}
