"""The compare page's per-query scatter draws queries at the same point once, with their count:
40 queries at (1, 1) must not look like one."""

from __future__ import annotations

import re

from goldsmith.plots import scatter


def circles(svg: str) -> list[dict[str, str]]:
    return [
        dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m)) for m in re.findall(r"<circle [^>]*>", svg)
    ]


def test_forty_queries_at_one_point_are_one_circle_marked_40():
    points = [(f"q{i}", 1.0, 1.0) for i in range(40)] + [("lone", 0.5, 0.25)]
    svg = str(scatter(points, label="Per-query Recall@5", a="A", b="B"))
    drawn = circles(svg)
    assert len(drawn) == 2
    crowd = next(c for c in drawn if c["data-count"] == "40")
    lone = next(c for c in drawn if c["data-count"] == "1")
    assert float(crowd["r"]) > float(lone["r"])  # the area grows with the count
    assert re.search(r'<text class="pt-count"[^>]*>40</text>', svg)
    assert "40 queries at 1.000 → 1.000: q0, q1" in svg and "(32 more)" in svg
    assert "1 query at 0.500 → 0.250: lone" in svg
    assert svg.count('class="pt-count"') == 1  # a single query carries no number


def test_values_equal_to_rounding_share_a_point_and_the_crowd_is_drawn_first():
    points = [("a", 1 / 3, 2 / 3), ("b", 1 - 2 / 3, 2 / 3 + 1e-15), ("c", 0.0, 1.0)]
    svg = str(scatter(points, label="x", a="A", b="B"))
    drawn = circles(svg)
    assert [c["data-count"] for c in drawn] == ["2", "1"]
    assert drawn[0]["class"] == "pt up" and drawn[1]["class"] == "pt up"


def test_query_ids_are_escaped_in_the_tooltip():
    svg = str(scatter([("<b>q</b>", 0.0, 0.0)], label="x", a="A", b="B"))
    assert "<b>" not in svg and "&lt;b&gt;q&lt;/b&gt;" in svg
