"""Quality bands: what "good enough" means for a project, from the field's practice.

Pure module. A project picks a scenario preset; it sets the pass threshold (per-query Recall@K a
query needs to pass) and a **target** and a **floor** for mean Recall@K and for the pass rate
(docs/design.md, "Targets, floors, verdicts and drift"):

=================  ======================  ==============  ======================
preset             mean recall tgt/floor   pass threshold  pass rate tgt/floor
=================  ======================  ==============  ======================
strict             0.90 / 0.80             0.9             90 % / 80 %
enterprise (dflt)  0.80 / 0.70             0.7             80 % / 70 %
faq                0.70 / 0.60             0.5             85 % / 75 %
messy              0.60 / 0.50             0.5             70 % / 60 %
=================  ======================  ==============  ======================

FAQ: hit rate weighs more than recall. A FAQ query has one or two relevant chunks, so at a pass
threshold of 0.5 it passes as soon as one answer is in the top K: its pass rate is close to its
hit rate, and that is held higher (85 % / 75 %) than the recall target.

Bands: a mean at or above ``good`` (the target) is good, at or above ``fair`` (the floor) is
fair, else poor. Recall and pass rate take their bands from the targets and floors above; the
other metric families have targets of their own and a floor 0.10 below, as in the table.
Every value can be edited per project: :func:`targets_for` and :func:`bands_for` merge the edits
over the preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

Band = dict[str, float]  # {"good": x, "fair": y}
# A value within this of a limit counts as reaching it: means are sums of floats, so 0.90 − 0.85
# is 0.05000000000000004 and a mean of 0.8 may come out 0.7999999999999999.
TOLERANCE = 1e-9


FLOOR_GAP = 0.10  # target − floor, for the families the table gives no floor of their own
# The fields of Targets, the values a project (or `goldsmith drift`) may edit.
TARGET_FIELDS = (
    "recall_target",
    "recall_floor",
    "pass_threshold",
    "pass_rate_target",
    "pass_rate_floor",
)


@dataclass(frozen=True)
class Targets:
    """What a run is held to at the headline K: mean Recall@K and pass rate (share of queries
    whose Recall@K ≥ ``pass_threshold``) each have a target and, below it, a floor."""

    recall_target: float = 0.80
    recall_floor: float = 0.70
    pass_threshold: float = 0.7
    pass_rate_target: float = 0.80
    pass_rate_floor: float = 0.70

    def __post_init__(self) -> None:
        for name in TARGET_FIELDS:
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name.replace('_', ' ')} must be between 0 and 1, not {value}")
        if self.recall_floor > self.recall_target:
            raise ValueError(
                f"the recall floor {self.recall_floor:g} is above its target {self.recall_target:g}"
            )
        if self.pass_rate_floor > self.pass_rate_target:
            raise ValueError(
                f"the pass-rate floor {self.pass_rate_floor:g} is above its target "
                f"{self.pass_rate_target:g}"
            )


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    description: str
    targets: Targets
    bands: Mapping[str, Band]  # metric family -> band limits

    @property
    def pass_threshold(self) -> float:
        return self.targets.pass_threshold

    @property
    def recall_target(self) -> float:
        return self.targets.recall_target

    @property
    def recall_floor(self) -> float:
        return self.targets.recall_floor

    @property
    def pass_rate_target(self) -> float:
        return self.targets.pass_rate_target

    @property
    def pass_rate_floor(self) -> float:
        return self.targets.pass_rate_floor


def _bands(t: Targets, hit: float, mrr: float, ndcg: float) -> dict[str, Band]:
    def band(good: float) -> Band:
        return {"good": round(good, 2), "fair": round(max(good - FLOOR_GAP, 0.0), 2)}

    return {
        "recall": {"good": t.recall_target, "fair": t.recall_floor},
        "hit": band(hit),
        "mrr": band(mrr),
        "ndcg": band(ndcg),
        "map": band(ndcg - 0.05),
        "precision": band(max(t.recall_target - 0.5, 0.1)),
        "pass": {"good": t.pass_rate_target, "fair": t.pass_rate_floor},
        "judged": {"good": 0.9, "fair": 0.7},
    }


def _preset(key: str, label: str, description: str, t: Targets, **bands: float) -> Preset:
    return Preset(key, label, description, t, _bands(t, **bands))


PRESETS: dict[str, Preset] = {
    p.key: p
    for p in (
        _preset(
            "strict",
            "Strict (contracts, regulations, runbooks)",
            "Missing a clause is costly: nearly every relevant chunk must be found.",
            Targets(0.90, 0.80, 0.9, 0.90, 0.80),
            hit=0.97,
            mrr=0.80,
            ndcg=0.80,
        ),
        _preset(
            "enterprise",
            "Enterprise knowledge base",
            "The default: most relevant chunks in the top K for most queries.",
            Targets(0.80, 0.70, 0.7, 0.80, 0.70),
            hit=0.90,
            mrr=0.70,
            ndcg=0.70,
        ),
        _preset(
            "faq",
            "FAQ / support answers",
            "One good answer near the top matters more than finding every chunk: hit rate "
            "and MRR weigh more than recall. A query passes at Recall@K 0.5 (one of its one or "
            "two answers found), so the pass rate follows the hit rate and is held higher.",
            Targets(0.70, 0.60, 0.5, 0.85, 0.75),
            hit=0.90,
            mrr=0.75,
            ndcg=0.70,
        ),
        _preset(
            "messy",
            "Messy documents (tickets, OCR)",
            "Noisy text: lower targets, watch the trend more than the level.",
            Targets(0.60, 0.50, 0.5, 0.70, 0.60),
            hit=0.80,
            mrr=0.55,
            ndcg=0.55,
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


def targets_for(key: str, overrides: Mapping[str, float | None] | None = None) -> Targets:
    """The preset's targets with a project's edits (a missing or None value: the preset's).
    A target edited below the preset's floor takes that floor down with it (unless the floor
    is edited too); a floor edited above its target raises ValueError."""
    base = preset(key).targets
    given = {
        k: float(v) for k, v in (overrides or {}).items() if k in TARGET_FIELDS and v is not None
    }
    for target, floor in (
        ("recall_target", "recall_floor"),
        ("pass_rate_target", "pass_rate_floor"),
    ):
        if target in given and floor not in given:
            given[floor] = min(getattr(base, floor), given[target])
    return replace(base, **given)


def bands_for(
    key: str, overrides: Mapping[str, Any] | None = None, targets: Targets | None = None
) -> dict[str, Band]:
    """The preset's bands with a project's edits (``{family: {"good": x, "fair": y}}``).
    ``targets`` (the project's targets and floors) set the recall and pass-rate bands; an
    explicit band edit still wins over them."""
    out = {k: dict(v) for k, v in preset(key).bands.items()}
    if targets is not None:
        out["recall"] = {"good": targets.recall_target, "fair": targets.recall_floor}
        out["pass"] = {"good": targets.pass_rate_target, "fair": targets.pass_rate_floor}
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
    # Within TOLERANCE of a limit counts as reaching it (a mean of 0.8 may come out 0.7999…).
    if value >= band.get("good", 1.0) - TOLERANCE:
        return "good"
    if value >= band.get("fair", 0.0) - TOLERANCE:
        return "fair"
    return "poor"
