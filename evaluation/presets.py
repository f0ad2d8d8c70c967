"""Quality bands: what "good enough" means for a project, from the field's practice.

Pure module. A project picks a scenario preset; it sets the default pass threshold (per-query
Recall@K a query needs to pass), the targets of the drift check, and the bands a report shows
each metric in: a mean at or above ``good`` is good, at or above ``fair`` is fair, else poor.
Every value can be edited per project; :func:`bands_for` merges the edits over the preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Band = dict[str, float]  # {"good": x, "fair": y}


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    description: str
    min_recall: float  # target mean Recall@K
    pass_threshold: float  # per-query Recall@K needed to pass
    min_pass_rate: float  # target share of passing queries
    bands: Mapping[str, Band]  # metric family -> band limits


def _bands(recall: float, hit: float, mrr: float, ndcg: float, pass_rate: float) -> dict[str, Band]:
    def band(good: float) -> Band:
        return {"good": round(good, 2), "fair": round(max(good - 0.15, 0.0), 2)}

    return {
        "recall": band(recall),
        "hit": band(hit),
        "mrr": band(mrr),
        "ndcg": band(ndcg),
        "map": band(ndcg - 0.05),
        "precision": band(max(recall - 0.5, 0.1)),
        "pass": band(pass_rate),
        "judged": {"good": 0.9, "fair": 0.7},
    }


PRESETS: dict[str, Preset] = {
    p.key: p
    for p in (
        Preset(
            "strict",
            "Strict (contracts, regulations, runbooks)",
            "Missing a clause is costly: nearly every relevant chunk must be found.",
            min_recall=0.90,
            pass_threshold=0.9,
            min_pass_rate=0.90,
            bands=_bands(recall=0.90, hit=0.97, mrr=0.80, ndcg=0.80, pass_rate=0.90),
        ),
        Preset(
            "enterprise",
            "Enterprise knowledge base",
            "The default: most relevant chunks in the top K for most queries.",
            min_recall=0.80,
            pass_threshold=0.7,
            min_pass_rate=0.80,
            bands=_bands(recall=0.80, hit=0.90, mrr=0.70, ndcg=0.70, pass_rate=0.80),
        ),
        Preset(
            "faq",
            "FAQ / support answers",
            "One good answer near the top matters more than finding every chunk: hit rate "
            "and MRR weigh more than recall.",
            min_recall=0.70,
            pass_threshold=0.5,
            min_pass_rate=0.75,
            bands=_bands(recall=0.70, hit=0.90, mrr=0.75, ndcg=0.70, pass_rate=0.75),
        ),
        Preset(
            "messy",
            "Messy documents (tickets, OCR)",
            "Noisy text: lower targets, watch the trend more than the level.",
            min_recall=0.60,
            pass_threshold=0.5,
            min_pass_rate=0.70,
            bands=_bands(recall=0.60, hit=0.80, mrr=0.55, ndcg=0.55, pass_rate=0.70),
        ),
    )
}
DEFAULT_PRESET = "enterprise"


def preset(key: str) -> Preset:
    try:
        return PRESETS[key]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"unknown scenario preset {key!r}; use one of {known}") from None


def bands_for(key: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Band]:
    """The preset's bands with a project's edits (``{family: {"good": x, "fair": y}}``)."""
    out = {k: dict(v) for k, v in preset(key).bands.items()}
    for family, band in (overrides or {}).items():
        if isinstance(band, Mapping):
            merged = dict(out.get(family, {}))
            merged.update({k: float(v) for k, v in band.items() if k in ("good", "fair")})
            out[family] = merged
    return out


def band_of(metric: str, value: float | None, bands: Mapping[str, Band]) -> str:
    """ "good", "fair", "poor", or "" when the metric has no band or the value is missing."""
    if value is None or value != value:  # NaN
        return ""
    family = metric.split("@", 1)[0]
    band = bands.get(family)
    if not band:
        return ""
    if value >= band.get("good", 1.0):
        return "good"
    if value >= band.get("fair", 0.0):
        return "fair"
    return "poor"
