"""Small server-rendered SVG plots for the lead dashboard (no JavaScript, no third-party code).

Every text that reaches the SVG is escaped; numbers are formatted by us.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def kappa_histogram_svg(bins: Sequence[dict[str, object]], width: int = 380) -> SafeString:
    """Vertical bars, one per kappa bin, with counts above and labels below."""
    height, top, bottom, left = 200, 22, 30, 4
    n = max(len(bins), 1)
    slot = (width - 2 * left) / n
    peak = max([int(b["count"]) for b in bins] + [1])
    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Histogram of per-query kappa" xmlns="http://www.w3.org/2000/svg">'
    ]
    usable = height - top - bottom
    for i, b in enumerate(bins):
        count = int(b["count"])
        h = usable * count / peak
        x = left + i * slot + 4
        y = top + usable - h
        css = "kbar-low" if b.get("low") else ("kbar-undefined" if b.get("undefined") else "kbar")
        label = escape(str(b["label"]))
        parts.append(
            f'<rect class="{css}" x="{x:.1f}" y="{y:.1f}" width="{slot - 8:.1f}" '
            f'height="{max(h, 0.5):.1f}"><title>{label}: {count} queries</title></rect>'
        )
        parts.append(
            f'<text class="count" x="{x + (slot - 8) / 2:.1f}" y="{y - 4:.1f}" '
            f'text-anchor="middle">{count}</text>'
        )
        parts.append(
            f'<text class="axis" x="{x + (slot - 8) / 2:.1f}" y="{height - bottom + 16}" '
            f'text-anchor="middle">{label}</text>'
        )
    parts.append(
        f'<line class="baseline" x1="{left}" x2="{width - left}" y1="{top + usable}" '
        f'y2="{top + usable}"/></svg>'
    )
    return mark_safe("".join(parts))  # built from escaped labels and numbers


def _cell_colour(kappa: float | None) -> str:
    if kappa is None:
        return "#e6e9ee"
    # Red (≤0) through amber to green (1).
    k = max(0.0, min(1.0, kappa))
    if k < 0.6:
        t = k / 0.6
        r, g, b = 214, int(96 + t * (176 - 96)), 80
    else:
        t = (k - 0.6) / 0.4
        r, g, b = int(214 - t * (214 - 62)), int(176 - t * (176 - 155)), int(80 + t * 10)
    return f"rgb({r},{g},{b})"


def pairwise_matrix(pairs: Sequence[dict[str, object]]) -> SafeString:
    """A heat-map of Cohen's kappa for each pair of annotators, as SVG."""
    names = sorted({str(p["a"]) for p in pairs} | {str(p["b"]) for p in pairs})
    if not names:
        return mark_safe(
            '<p class="empty">No pair of annotators has judged the same chunks yet.</p>'
        )
    lookup: dict[tuple[str, str], dict[str, object]] = {}
    for p in pairs:
        lookup[(str(p["a"]), str(p["b"]))] = p
        lookup[(str(p["b"]), str(p["a"]))] = p
    cell, label_w, label_h = 64, 110, 26
    size_w = label_w + cell * len(names)
    size_h = label_h + cell * len(names)
    parts = [
        f'<svg class="plot matrix" viewBox="0 0 {size_w} {size_h}" role="img" '
        f'aria-label="Pairwise kappa matrix" xmlns="http://www.w3.org/2000/svg" '
        f'width="{size_w}" height="{size_h}">'  # never wider than this (CSS: svg.plot.matrix)
    ]
    for j, name in enumerate(names):
        parts.append(
            f'<text class="axis" x="{label_w + j * cell + cell / 2}" y="{label_h - 8}" '
            f'text-anchor="middle">{escape(name[:12])}</text>'
        )
    for i, a in enumerate(names):
        y = label_h + i * cell
        parts.append(
            f'<text class="axis" x="{label_w - 8}" y="{y + cell / 2 + 4}" '
            f'text-anchor="end">{escape(a[:14])}</text>'
        )
        for j, b in enumerate(names):
            x = label_w + j * cell
            if a == b:
                parts.append(
                    f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="#f6f7f9"/>'
                )
                continue
            p = lookup.get((a, b))
            kappa = p["kappa"] if p else None
            n = int(p["n"]) if p else 0
            text = "–" if kappa is None else f"{float(kappa):.2f}"  # type: ignore[arg-type]
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                f'fill="{_cell_colour(kappa)}"><title>{escape(a)} × {escape(b)}: '  # type: ignore[arg-type]
                f"kappa {text} over {n} chunks</title></rect>"
                f'<text class="cell" x="{x + cell / 2 - 1}" y="{y + cell / 2 + 4}" '
                f'text-anchor="middle">{text}</text>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # built from escaped labels and numbers
