"""Inline SVG plots of the run pages and the lead dashboard: no JavaScript, no third-party code.

Pure module: each plot is a string of SVG (or a short <p class="empty"> when there is nothing
to draw). Every label is escaped here and numbers are formatted here, so a view may mark the
string safe as it is (evaluation/views/, annotation/views/review.py). Values are in [0, 1]
unless stated. Colours, fonts and sizes on screen come from the classes (static/css): no style
attribute, so the pages keep their Content-Security-Policy.

Every word a plot draws (labels, axis titles, legends, tooltips) is a `goldsmith.text.Text`
said here, or a label the caller passes; each goes through ``words`` before it is escaped. The
pages pass ``annotation.i18n.localize`` so that a chart reads in the reader's language; the
default, ``str``, keeps the English.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from goldsmith.text import Text, say

Words = Callable[[str], str]
"""Says a label in the reader's language: a `Text` translated, any other string as it is."""

W, H = 560, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 14, 14, 34

# A metric family's name on a chart (the keys of a report: ``recall@10`` → "Recall@10").
METRIC_NAMES: dict[str, Text] = {
    "recall": say("Recall"),
    "precision": say("Precision"),
    "hit": say("Hit rate"),
    "mrr": say("MRR"),
    "ndcg": say("nDCG"),
    "map": say("MAP"),
    "pass": say("Pass rate"),
    "judged": say("Judged"),
    "f1": say("F1"),
    "score": say("Score"),
}


def metric_name(key: str, words: Words = str) -> str:
    """``recall@10`` as a chart names it ("Recall@10"), in the language of ``words``; a key
    of no known family as it is."""
    family, at, k = key.partition("@")
    name = METRIC_NAMES.get(family)
    return (words(name) if name is not None else family) + at + k


def _empty(message: Text, words: Words) -> str:
    return f'<p class="empty">{escape(words(message))}</p>'


def _width(text: str, latin: int) -> int:
    """About how wide ``text`` is drawn: a Chinese character is about twice a Latin one."""
    return sum(2 * latin if ord(c) >= 0x2E80 else latin for c in text)


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
    marker_label: str | None = None,
    x_labels: Sequence[str] | None = None,
    words: Words = str,
) -> str:
    """One polyline per series over evenly spaced x positions; None values break the line.
    ``marker_index`` draws a vertical line (e.g. at the baseline run), named "baseline"
    unless ``marker_label`` names it."""
    if not xs:
        return _empty(say("Nothing to plot yet."), words)
    marker_label = words(say("baseline") if marker_label is None else marker_label)
    parts = _frame(words(label))
    usable_w, usable_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    n = len(xs)

    def px(i: int) -> float:
        return LEFT + (usable_w * i / (n - 1) if n > 1 else usable_w / 2)

    def py(v: float) -> float:
        return TOP + usable_h * (1 - max(0.0, min(1.0, v)))

    if marker_index is not None and 0 <= marker_index < n:
        x = px(marker_index)
        # Near the right edge the label goes to the left of the line, so it stays in view.
        left = x > W - RIGHT - _width(marker_label, 7) - 8
        at = f'x="{x - 4:.1f}" text-anchor="end"' if left else f'x="{x + 4:.1f}"'
        parts.append(
            f'<line class="marker" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + usable_h}"/>'
            f'<text class="axis marker-label" {at} y="{TOP + 10}">'
            f"{escape(marker_label)}</text>"
        )
    names = [words(name) for name in series]
    for s_index, values in enumerate(series.values()):
        name = names[s_index]
        segments: list[list[str]] = [[]]
        for i, v in enumerate(values):
            if v is None:
                segments.append([])
                continue
            segments[-1].append(f"{px(i):.1f},{py(v):.1f}")
            tip = say("%(series)s at %(x)s: %(value)s", series=name, x=str(xs[i]), value=f"{v:.4f}")
            parts.append(
                f'<circle class="dot s{s_index % 6}" cx="{px(i):.1f}" cy="{py(v):.1f}" r="2.5">'
                f"<title>{escape(words(tip))}</title></circle>"
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
    for s_index, name in enumerate(names):
        parts.append(
            f'<text class="legend s{s_index % 6}" x="{legend_x}" y="{H - 4}">'
            f"■ {escape(name)}</text>"
        )
        legend_x += 12 + _width(name, 8) + 14
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Frame:
    """An SVG of `width` × `height` and the margins around its plot area."""

    width: int
    height: int
    top: int
    right: int
    bottom: int
    left: int


REPORT = Frame(W, H, top=TOP, right=RIGHT, bottom=BOTTOM, left=LEFT)  # the run pages
DASHBOARD = Frame(380, 200, top=22, right=4, bottom=30, left=4)  # the lead dashboard's cards


@dataclass(frozen=True)
class Bar:
    """One bar of a histogram of queries: `count` queries fell in `span`."""

    label: str  # under the bar (through `words`)
    count: int
    span: str  # its tooltip says "<span>: <count> queries" (through `words`)
    css: str = "hbar"


def histogram(
    bars: Sequence[Bar],
    *,
    label: str,
    frame: Frame = REPORT,
    gap: float = 4,
    words: Words = str,
) -> str:
    """Vertical bars side by side, `gap` apart, the tallest as high as the plot area, each with
    its count above and its label below; a line along the bottom. Every histogram of the pages
    is drawn here (`recall_histogram`, `kappa_histogram`)."""
    if not bars:
        return _empty(say("Nothing to plot yet."), words)
    usable_w = frame.width - frame.left - frame.right
    usable_h = frame.height - frame.top - frame.bottom
    slot = usable_w / len(bars)
    peak = max([*(b.count for b in bars), 1])
    parts = [
        f'<svg class="plot" viewBox="0 0 {frame.width} {frame.height}" role="img" '
        f'aria-label="{escape(words(label))}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, bar in enumerate(bars):
        tip = say("%(span)s: %(count)s queries", span=words(bar.span), count=bar.count)
        h = usable_h * bar.count / peak
        x = frame.left + i * slot + gap / 2
        y = frame.top + usable_h - h
        middle = x + (slot - gap) / 2
        parts.append(
            f'<rect class="{escape(bar.css)}" x="{x:.1f}" y="{y:.1f}" width="{slot - gap:.1f}" '
            f'height="{max(h, 0.5):.1f}"><title>{escape(words(tip))}</title></rect>'
            f'<text class="count" x="{middle:.1f}" y="{y - 3:.1f}" text-anchor="middle">'
            f"{bar.count}</text>"
            f'<text class="axis" x="{middle:.1f}" y="{frame.height - frame.bottom + 16}" '
            f'text-anchor="middle">{escape(words(bar.label))}</text>'
        )
    bottom = frame.top + usable_h
    parts.append(
        f'<line class="baseline" x1="{frame.left}" x2="{frame.width - frame.right}" '
        f'y1="{bottom}" y2="{bottom}"/></svg>'
    )
    return "".join(parts)


def recall_histogram(
    edges: Sequence[float], counts: Sequence[int], *, label: str, words: Words = str
) -> str:
    """The run page's histogram of per-query recall: ``counts[i]`` queries in
    [``edges[i]``, ``edges[i + 1]``)."""
    return histogram(
        [
            Bar(f"{edges[i]:.1f}", c, f"{edges[i]:.1f}–{edges[i + 1]:.1f}")
            for i, c in enumerate(counts)
        ],
        label=label,
        words=words,
    )


def kappa_histogram(bins: Sequence[Mapping[str, Any]], *, words: Words = str) -> str:
    """The dashboard's histogram of per-query kappa, one bar per bin of
    ``project_agreement()["kappa_histogram"]`` (annotation/services/agreement.py): the bins
    below the project's threshold (``low``) and the unanimous one (``undefined``) stand out."""
    unanimous = say("unanimous")
    return histogram(
        [
            Bar(
                unanimous if b.get("undefined") else str(b["label"]),
                int(b["count"]),
                unanimous if b.get("undefined") else str(b["label"]),
                "kbar-low" if b.get("low") else "kbar-undefined" if b.get("undefined") else "kbar",
            )
            for b in bins
        ],
        label=say("Histogram of per-query kappa"),
        frame=DASHBOARD,
        gap=8,
        words=words,
    )


def scatter(
    points: Sequence[tuple[str, float, float]],
    *,
    label: str,
    a: str,
    b: str,
    words: Words = str,
) -> str:
    """Per-query (a, b) values with the diagonal: above it B is better.

    Queries at the same point (values equal to 1e-9; metrics at a cut-off take few values, so
    many queries often share one, e.g. 1.0 in both runs) are drawn once: the circle's area
    grows with their number, the number is written beside it and its tooltip names them."""
    if not points:
        return _empty(say("No query to compare."), words)
    size = 300
    pad = 36
    usable = size - 2 * pad
    parts = [
        f'<svg class="plot square" viewBox="0 0 {size} {size}" role="img" '
        f'aria-label="{escape(words(label))}" xmlns="http://www.w3.org/2000/svg">',
        f'<rect class="frame" x="{pad}" y="{pad}" width="{usable}" height="{usable}"/>',
        f'<line class="diagonal" x1="{pad}" y1="{pad + usable}" x2="{pad + usable}" y2="{pad}"/>',
        f'<text class="axis" x="{size / 2}" y="{size - 8}" text-anchor="middle">'
        f"{escape(words(a))}</text>",
        f'<text class="axis" x="12" y="{size / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {size / 2})">{escape(words(b))}</text>',
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
        shown = ", ".join(qids[:8])
        if n > 8:
            shown = words(say("%(shown)s, … (%(more)s more)", shown=shown, more=n - 8))
        at = {"a": f"{va:.3f}", "b": f"{vb:.3f}", "ids": shown}
        tip = (
            say("%(n)s queries at %(a)s → %(b)s: %(ids)s", n=n, **at)
            if n > 1
            else say("1 query at %(a)s → %(b)s: %(ids)s", **at)
        )
        parts.append(
            f'<circle class="pt {css}" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" data-count="{n}">'
            f"<title>{escape(words(tip))}</title></circle>"
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
    return "".join(parts)


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


def pairwise_matrix(pairs: Sequence[Mapping[str, Any]], *, words: Words = str) -> str:
    """A heat-map of Cohen's kappa for each pair of annotators, as SVG."""
    names = sorted({str(p["a"]) for p in pairs} | {str(p["b"]) for p in pairs})
    if not names:
        return _empty(say("No pair of annotators has judged the same chunks yet."), words)
    lookup: dict[tuple[str, str], Mapping[str, Any]] = {}
    for p in pairs:
        lookup[(str(p["a"]), str(p["b"]))] = p
        lookup[(str(p["b"]), str(p["a"]))] = p
    cell, label_w, label_h = 64, 110, 26
    size_w = label_w + cell * len(names)
    size_h = label_h + cell * len(names)
    parts = [
        f'<svg class="plot matrix" viewBox="0 0 {size_w} {size_h}" role="img" '
        f'aria-label="{escape(words(say("Pairwise kappa matrix")))}" '
        'xmlns="http://www.w3.org/2000/svg" '
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
            pair = lookup.get((a, b))
            kappa = pair["kappa"] if pair else None
            n = int(pair["n"]) if pair else 0
            text = "–" if kappa is None else f"{float(kappa):.2f}"
            tip = say("%(a)s × %(b)s: kappa %(kappa)s over %(n)s chunks", a=a, b=b, kappa=text, n=n)
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                f'fill="{_cell_colour(kappa)}"><title>{escape(words(tip))}</title></rect>'
                f'<text class="cell" x="{x + cell / 2 - 1}" y="{y + cell / 2 + 4}" '
                f'text-anchor="middle">{text}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
