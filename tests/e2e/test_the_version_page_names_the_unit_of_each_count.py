"""The version page names the unit of every count: the grades decided by each rule are counts
of judged chunks and read as such, beside counts of queries ("Adjudicated 6" next to
"Adjudicated queries 1" read as if they disagreed)."""

from __future__ import annotations

import pytest

from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.goldset_factories import small_project

pytestmark = pytest.mark.e2e


def test_each_count_of_the_version_page_says_chunks_or_queries(personas, live_server, sign_in):
    project, _, _ = small_project(personas)
    version = golden_set_version_freeze(project=project, by=personas.alice)
    page = sign_in("alice")
    page.goto(f"{live_server.url}/projects/{project.pk}/goldsets/{version.label}/")

    rows = page.locator(".grid .card table tbody tr")
    labels = {
        rows.nth(i).locator("th").inner_text(): rows.nth(i).locator("td").inner_text()
        for i in range(rows.count())
    }
    assert labels["Judged chunks, adjudicated"] == "1"
    assert labels["Judged chunks, unanimous"] == "2"
    assert "Adjudicated queries" in labels
    assert "Unanimous queries (κ undefined)" in labels
    counts = [label for label, value in labels.items() if value.replace(" · ", "").isdigit()]
    assert "Judged chunks with grade 2 · 1 · 0" in counts
    for label in counts:
        assert "chunk" in label.lower() or "quer" in label.lower(), f"{label!r} names no unit"
