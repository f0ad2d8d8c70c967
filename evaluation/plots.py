"""Server-rendered inline SVG plots of run reports (no JavaScript, no third-party code).

Every label is escaped; numbers are formatted here. Values are in [0, 1] unless stated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

W, H = 560, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 14, 14, 34


def _frame(label: str, width: int = W, height: int = H) -> list[str]:
    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
    ]
    usable = height - TOP - BOTTOM
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = TOP + usable * (1 - tick)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{width - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:.2f}</text>'
        )
    return parts


def line_chart(
    xs: Sequence[object],
    series: dict[str, Sequence[float | None]],
    *,
    label: str,
    marker_index: int | None = None,
    marker_label: str = "baseline",
    x_labels: Sequence[str] | None = None,
) -> SafeString:
    """One polyline per series over evenly spaced x positions; None values break the line.
    ``marker_index`` draws a vertical line (e.g. at the baseline run)."""
    if not xs:
        return mark_safe('<p class="empty">Nothing to plot yet.</p>')
    parts = _frame(label)
    usable_w, usable_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    n = len(xs)

    def px(i: int) -> float:
        return LEFT + (usable_w * i / (n - 1) if n > 1 else usable_w / 2)

    def py(v: float) -> float:
        return TOP + usable_h * (1 - max(0.0, min(1.0, v)))

    if marker_index is not None and 0 <= marker_index < n:
        x = px(marker_index)
        # Near the right edge the label goes to the left of the line, so it stays in view.
        left = x > W - RIGHT - 7 * len(marker_label) - 8
        at = f'x="{x - 4:.1f}" text-anchor="end"' if left else f'x="{x + 4:.1f}"'
        parts.append(
            f'<line class="marker" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + usable_h}"/>'
            f'<text class="axis marker-label" {at} y="{TOP + 10}">'
            f"{escape(marker_label)}</text>"
        )
    for s_index, (name, values) in enumerate(series.items()):
        segments: list[list[str]] = [[]]
        for i, v in enumerate(values):
            if v is None:
                segments.append([])
                continue
            segments[-1].append(f"{px(i):.1f},{py(v):.1f}")
            parts.append(
                f'<circle class="dot s{s_index % 6}" cx="{px(i):.1f}" cy="{py(v):.1f}" r="2.5">'
                f"<title>{escape(name)} at {escape(str(xs[i]))}: {v:.4f}</title></circle>"
            )
        for seg in segments:
            if len(seg) > 1:
                parts.append(f'<polyline class="line s{s_index % 6}" points="{" ".join(seg)}"/>')
    labels = list(x_labels) if x_labels is not None else [str(x) for x in xs]
    step = max(1, n // 10)
    for i in range(0, n, step):
        parts.append(
            f'<text class="axis" x="{px(i):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">'
            f"{escape(labels[i])}</text>"
        )
    legend_x = LEFT + 8
    for s_index, name in enumerate(series):
        parts.append(
            f'<text class="legend s{s_index % 6}" x="{legend_x}" y="{H - 4}">'
            f"■ {escape(name)}</text>"
        )
        legend_x += 12 + 8 * len(name) + 14
    parts.append("</svg>")
    return mark_safe("".join(parts))  # built from escaped labels and numbers


def histogram(edges: Sequence[float], counts: Sequence[int], *, label: str) -> SafeString:
    if not counts:
        return mark_safe('<p class="empty">Nothing to plot yet.</p>')
    parts = [
        f'<svg class="plot" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(label)}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    usable_w, usable_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    slot = usable_w / len(counts)
    peak = max([*counts, 1])
    for i, c in enumerate(counts):
        h = usable_h * c / peak
        x = LEFT + i * slot + 2
        y = TOP + usable_h - h
        span = f"{edges[i]:.1f}–{edges[i + 1]:.1f}"
        parts.append(
            f'<rect class="hbar" x="{x:.1f}" y="{y:.1f}" width="{slot - 4:.1f}" '
            f'height="{max(h, 0.5):.1f}"><title>{span}: {c} queries</title></rect>'
            f'<text class="count" x="{x + (slot - 4) / 2:.1f}" y="{y - 3:.1f}" '
            f'text-anchor="middle">{c}</text>'
        )
        parts.append(
            f'<text class="axis" x="{x + (slot - 4) / 2:.1f}" y="{H - BOTTOM + 16}" '
            f'text-anchor="middle">{edges[i]:.1f}</text>'
        )
    parts.append(
        f'<line class="baseline" x1="{LEFT}" x2="{W - RIGHT}" y1="{TOP + usable_h}" '
        f'y2="{TOP + usable_h}"/></svg>'
    )
    return mark_safe("".join(parts))  # built from escaped labels and numbers


def scatter(
    points: Sequence[tuple[str, float, float]], *, label: str, a: str, b: str
) -> SafeString:
    """Per-query (a, b) values with the diagonal: above it B is better.

    Queries at the same point (values equal to 1e-9; metrics at a cut-off take few values, so
    many queries often share one, e.g. 1.0 in both runs) are drawn once: the circle's area
    grows with their number, the number is written beside it and its tooltip names them."""
    if not points:
        return mark_safe('<p class="empty">No query to compare.</p>')
    size = 300
    pad = 36
    usable = size - 2 * pad
    parts = [
        f'<svg class="plot square" viewBox="0 0 {size} {size}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">',
        f'<rect class="frame" x="{pad}" y="{pad}" width="{usable}" height="{usable}"/>',
        f'<line class="diagonal" x1="{pad}" y1="{pad + usable}" x2="{pad + usable}" y2="{pad}"/>',
        f'<text class="axis" x="{size / 2}" y="{size - 8}" text-anchor="middle">{escape(a)}</text>',
        f'<text class="axis" x="12" y="{size / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {size / 2})">{escape(b)}</text>',
    ]
    groups: dict[tuple[float, float], list[str]] = {}
    for qid, va, vb in points:
        groups.setdefault((round(va, 9), round(vb, 9)), []).append(qid)
    # The largest groups first, so that a single query is never hidden under a crowd.
    for (va, vb), qids in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        x = pad + usable * va
        y = pad + usable * (1 - vb)
        n = len(qids)
        r = min(3.0 * math.sqrt(n), 15.0)
        css = "up" if vb > va + 1e-12 else "down" if vb < va - 1e-12 else "tie"
        shown = ", ".join(qids[:8]) + (f", … ({n - 8} more)" if n > 8 else "")
        who = f"{n} queries" if n > 1 else "1 query"
        parts.append(
            f'<circle class="pt {css}" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" data-count="{n}">'
            f"<title>{who} at {va:.3f} → {vb:.3f}: {escape(shown)}</title></circle>"
        )
        if n > 1:
            # Beside the circle, on the side away from the frame's nearest edge.
            right = x + r + 2 <= pad + usable - 14
            tx = x + r + 2 if right else x - r - 2
            anchor = "start" if right else "end"
            parts.append(
                f'<text class="pt-count" x="{tx:.1f}" y="{y + 4:.1f}" text-anchor="{anchor}">'
                f"{n}</text>"
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # built from escaped labels and numbers
