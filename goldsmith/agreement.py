"""Inter-annotator agreement: the one implementation behind every agreement figure, and the
rules that turn a query's grades into flags and final grades.

Pure module: numpy only, no Django. Labels are ordinal integers (Goldsmith grades 0/1/2, but any
ints work). Ratings are an ``items × annotators`` float matrix with NaN where an annotator did
not label an item. Every coefficient returns ``None`` when it is undefined.

Sections: the coefficients (two annotators, any number, reports for a labels file); a query's
grades (its statistics, why it is flagged, its final grades by rule); a project (the pooled
figures of the judgments export, agreement with the final grades, the kappa histogram, the
"revisit the guidelines" warning). The annotation app reads and stores; every figure it shows
is computed here, as ``goldsmith agreement`` computes it from an export.

Conventions (docs/design.md "Agreement conventions"):

- Cohen's kappa is computed for a pair over the items both annotators labelled:
  κ = 1 − Σ w_ij O_ij / Σ w_ij E_ij, with O the observed and E the chance (product of marginals)
  joint proportions; w_ij = 1 − [i = j] (unweighted), |c_i − c_j| (linear) or (c_i − c_j)²
  (quadratic) on the label *values* c (so 0 and 2 are two apart even if nobody used 1).
  For consecutive labels this equals scikit-learn's ``cohen_kappa_score``.
- Kappa is undefined when chance disagreement is 0 (expected agreement = 1), which happens
  exactly when every label given is the same: such a group is reported ``unanimous``, not
  ambiguous, and its kappas are None.
- Percent agreement (raw agreement) is the mean over items of the share of agreeing annotator
  pairs (for two annotators: the share of items where they agree).
- With more than two annotators ``cohen_kappa`` is the mean of the defined pairwise kappas,
  reported beside Fleiss' kappa.
- Krippendorff's alpha uses every item with at least two labels (items may have different
  numbers of labels). Fleiss' kappa, Gwet's AC1 and AC2 follow Gwet's definitions for missing
  labels (the irrCAC package): agreement over the items with at least two labels, the category
  shares over every labelled item, one label being enough.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

import numpy as np
from numpy.typing import NDArray

from goldsmith.text import say

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
Weights = Literal["linear", "quadratic"] | None

_EPS = 1e-12  # tolerance for "chance agreement is 1"


def _matrix(ratings: Sequence[Sequence[float | None]] | FloatArray) -> FloatArray:
    m = np.array(
        [[np.nan if v is None else v for v in row] for row in ratings]
        if not isinstance(ratings, np.ndarray)
        else ratings,
        dtype=np.float64,
    )
    if m.ndim != 2:
        raise ValueError("ratings must be a 2-D items × annotators matrix")
    finite = m[~np.isnan(m)]
    if len(finite) and not np.array_equal(finite, np.round(finite)):
        raise ValueError("labels must be integers")
    return m


def _categories(m: FloatArray, categories: Sequence[int] | None) -> FloatArray:
    observed = np.unique(m[~np.isnan(m)])
    if categories is None:
        return observed
    cats = np.unique(np.asarray(categories, dtype=np.float64))
    if not np.isin(observed, cats).all():
        raise ValueError("a label is not among the given categories")
    return cats


def _counts(m: FloatArray, cats: FloatArray) -> FloatArray:
    """``n[i, k]``: how many annotators gave item i category k."""
    counts = np.zeros((m.shape[0], len(cats)))
    for k, c in enumerate(cats):
        counts[:, k] = (m == c).sum(axis=1)
    return counts


def _defined(x: float) -> float | None:
    """None for NaN (an undefined coefficient), else the value as a Python float."""
    return None if np.isnan(x) else float(x)


def _mean(values: Iterable[float | None]) -> float | None:
    """The mean of the defined values (None when none is defined)."""
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


# --------------------------------------------------------------------------------------------
# Two annotators


def cohen_kappa(
    a: Sequence[float | None] | FloatArray,
    b: Sequence[float | None] | FloatArray,
    weights: Weights = None,
    categories: Sequence[int] | None = None,
) -> float | None:
    """Cohen's kappa of two label sequences over the positions both labelled (None/NaN =
    not labelled); None when undefined (no common item, or expected agreement = 1)."""
    m = _matrix(np.column_stack([np.asarray(a, dtype=float), np.asarray(b, dtype=float)]))
    both = m[~np.isnan(m).any(axis=1)]
    if len(both) == 0:
        return None
    cats = _categories(both, categories)
    ia = np.searchsorted(cats, both[:, 0])
    ib = np.searchsorted(cats, both[:, 1])
    k = len(cats)
    observed = np.zeros((k, k))
    np.add.at(observed, (ia, ib), 1.0)
    observed /= len(both)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    dist = np.abs(cats[:, None] - cats[None, :])
    w = {None: (dist > 0).astype(float), "linear": dist, "quadratic": dist**2}[weights]
    chance = float((w * expected).sum())
    if chance <= _EPS:
        return None
    return 1.0 - float((w * observed).sum()) / chance


def percent_agreement(ratings: Sequence[Sequence[float | None]] | FloatArray) -> float | None:
    """Mean over items with ≥ 2 labels of the share of annotator pairs that agree."""
    m = _matrix(ratings)
    p_i = _item_agreement(_counts(m, _categories(m, None)))
    return float(p_i.mean()) if len(p_i) else None


def _item_agreement(counts: FloatArray) -> FloatArray:
    n = counts.sum(axis=1)
    rated = n >= 2
    c, n = counts[rated], n[rated]
    share: FloatArray = (c * (c - 1)).sum(axis=1) / (n * (n - 1))
    return share


@dataclass(frozen=True)
class TwoRaterGroups:
    """Per-group statistics from :func:`two_rater_group_stats` (NaN where undefined)."""

    groups: NDArray[np.int64]
    n_items: NDArray[np.int64]
    kappa: FloatArray
    kappa_linear: FloatArray
    percent_agreement: FloatArray
    ac1: FloatArray
    ac2_linear: FloatArray  # over GRADE_SCALE (widened to any label outside it)


def two_rater_group_stats(group: NDArray[np.int64], a: FloatArray, b: FloatArray) -> TwoRaterGroups:
    """Cohen's kappa (unweighted and linear), percent agreement and Gwet's AC1 of many groups at
    once, each group (e.g. a query) judged by the same two annotators on every one of its items:
    row i is item i of group ``group[i]``, labelled ``a[i]`` and ``b[i]``.

    The same numbers as :func:`cohen_kappa`, :func:`percent_agreement` and :func:`gwet_ac1` on
    each group's items × 2 matrix, with their conventions: categories are the labels observed in
    the group; kappa is undefined (NaN) when chance agreement is 1; AC1 uses K = the number of
    categories observed in the group (p_e = 0 when K = 1). Vectorised: one pass over all rows.
    """
    groups, gidx = np.unique(group, return_inverse=True)
    n_groups = len(groups)
    cats, idx = np.unique(np.concatenate([a, b]), return_inverse=True)
    ia, ib = idx[: len(a)], idx[len(a) :]
    n = np.bincount(gidx, minlength=n_groups).astype(np.float64)
    share_a = np.zeros((n_groups, len(cats)))
    share_b = np.zeros((n_groups, len(cats)))
    np.add.at(share_a, (gidx, ia), 1.0)
    np.add.at(share_b, (gidx, ib), 1.0)
    share_a /= n[:, None]
    share_b /= n[:, None]
    agree = np.bincount(gidx, weights=(a == b).astype(np.float64), minlength=n_groups) / n
    distance = np.bincount(gidx, weights=np.abs(a - b), minlength=n_groups) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        chance = 1.0 - (share_a * share_b).sum(axis=1)
        kappa = np.where(chance > _EPS, 1.0 - (1.0 - agree) / chance, np.nan)
        dist = np.abs(cats[:, None] - cats[None, :])
        chance_linear = np.einsum("gk,kl,gl->g", share_a, dist, share_b)
        kappa_linear = np.where(chance_linear > _EPS, 1.0 - distance / chance_linear, np.nan)
        pi = (share_a + share_b) / 2.0
        k = (pi > 0).sum(axis=1)
        p_e = np.where(k > 1, (pi * (1.0 - pi)).sum(axis=1) / np.maximum(k - 1, 1), 0.0)
        ac1 = (agree - p_e) / (1.0 - p_e)
        # AC2, linear weights over the grade scale: with two labels an item's p_a is the
        # weight of its pair, 1 − |a − b| / range; p_e = (Σ_kl w_kl) / (K (K − 1)) Σ π(1 − π).
        scale = np.array(sorted(set(GRADE_SCALE) | set(cats.tolist())), dtype=np.float64)
        span = float(scale.max() - scale.min())
        w = 1.0 - np.abs(scale[:, None] - scale[None, :]) / span
        agree_w = 1.0 - np.bincount(gidx, weights=np.abs(a - b), minlength=n_groups) / n / span
        pi_scale = np.zeros((n_groups, len(scale)))
        pi_scale[:, np.searchsorted(scale, cats)] = pi
        k2 = len(scale)
        p_e2 = w.sum() / (k2 * (k2 - 1)) * (pi_scale * (1.0 - pi_scale)).sum(axis=1)
        ac2_linear = np.where(1.0 - p_e2 > _EPS, (agree_w - p_e2) / (1.0 - p_e2), np.nan)
    return TwoRaterGroups(
        groups=groups.astype(np.int64),
        n_items=n.astype(np.int64),
        kappa=kappa,
        kappa_linear=kappa_linear,
        percent_agreement=agree,
        ac1=ac1,
        ac2_linear=ac2_linear,
    )


# --------------------------------------------------------------------------------------------
# Any number of annotators


def _gwet_shares(m: FloatArray, cats: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Gwet's ingredients for ratings with missing labels: ``(counts of the items with ≥ 2
    labels, π)`` with π_k = (1/n) Σ_i r_ik / r_i over the n items with at least one label, an
    item labelled once counting in the shares (Gwet, *Handbook of Inter-Rater Reliability*,
    4th ed., ch. 2; the irrCAC package). None when no item has two labels."""
    counts = _counts(m, cats)
    per_item = counts.sum(axis=1)
    rated = counts[per_item >= 1]
    if not (per_item >= 2).any():
        return None
    pi: FloatArray = (rated / rated.sum(axis=1, keepdims=True)).mean(axis=0)
    return counts[per_item >= 2], pi


def fleiss_kappa(
    ratings: Sequence[Sequence[float | None]] | FloatArray, categories: Sequence[int] | None = None
) -> float | None:
    """Fleiss' kappa as Gwet extends it to missing labels (the irrCAC package's ``fleiss``):
    (p_a − p_e) / (1 − p_e), p_a the mean over items with ≥ 2 labels of the share of agreeing
    pairs, p_e = Σ π_k² with π_k the mean over every labelled item (one label is enough) of the
    share of its labels in category k. With complete data π_k is the share of all labels in k,
    Fleiss' own definition. None when no item has two labels or p_e = 1."""
    m = _matrix(ratings)
    parts = _gwet_shares(m, _categories(m, categories))
    if parts is None:
        return None
    counts, pi = parts
    p_a = float(_item_agreement(counts).mean())
    p_e = float((pi**2).sum())
    if 1.0 - p_e <= _EPS:
        return None
    return (p_a - p_e) / (1.0 - p_e)


def gwet_ac1(
    ratings: Sequence[Sequence[float | None]] | FloatArray, categories: Sequence[int] | None = None
) -> float | None:
    """Gwet's AC1 as Gwet defines it with missing labels (the irrCAC package's ``gwet``):
    (p_a − p_e) / (1 − p_e), p_a the mean over items with ≥ 2 labels of the share of agreeing
    pairs, p_e = Σ π_k (1 − π_k) / (K − 1) with π_k the mean over every labelled item (one label
    is enough) of the share of its labels in category k, K the number of categories (observed
    unless given). K = 1 gives 1 (every label agrees; irrCAC divides by 1 − 10⁻¹⁵ there). None
    when no item has two labels. Robust to the kappa paradox."""
    return gwet_ac2(ratings, categories, weights=None)


def gwet_ac2(
    ratings: Sequence[Sequence[float | None]] | FloatArray,
    categories: Sequence[int] | None = None,
    weights: Literal["linear"] | None = "linear",
) -> float | None:
    """Gwet's AC2 (weighted AC1) as irrCAC computes it, for ordinal labels: with
    w_kl = 1 − |c_k − c_l| / (c_max − c_min) on the category values c (``linear``; ``None``:
    w = identity, which is AC1), p_a = mean over items with ≥ 2 labels of
    Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1)) with r*_ik = Σ_l w_kl r_il, and
    p_e = (Σ_kl w_kl) / (K (K − 1)) · Σ_k π_k (1 − π_k), π as for :func:`gwet_ac1`.
    The categories are the observed labels unless given (give the whole scale, e.g. 0, 1, 2,
    so that 0 and 2 are as far apart as the scale says)."""
    m = _matrix(ratings)
    cats = _categories(m, categories)
    parts = _gwet_shares(m, cats)
    if parts is None:
        return None
    counts, pi = parts
    k = len(cats)
    if k < 2:
        return 1.0
    if weights is None:
        w = np.eye(k)
    elif weights == "linear":
        w = 1.0 - np.abs(cats[:, None] - cats[None, :]) / float(cats.max() - cats.min())
    else:
        raise ValueError(f"weights must be 'linear' or None, not {weights!r}")
    n_i = counts.sum(axis=1)
    p_a = float(((counts * (counts @ w.T - 1)).sum(axis=1) / (n_i * (n_i - 1))).mean())
    p_e = float(w.sum() / (k * (k - 1)) * (pi * (1 - pi)).sum())
    if 1.0 - p_e <= _EPS:
        return None
    return (p_a - p_e) / (1.0 - p_e)


def krippendorff_alpha(
    ratings: Sequence[Sequence[float | None]] | FloatArray,
    level: Literal["nominal", "ordinal"] = "nominal",
    categories: Sequence[int] | None = None,
) -> float | None:
    """Krippendorff's alpha from the coincidence matrix o (items with ≥ 2 labels, each item's
    pairs weighted 1/(m_u − 1)): α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck. Nominal δ² =
    [c ≠ k]; ordinal δ²_ck = (Σ_{g between c and k} n_g − (n_c + n_k)/2)². None when only one
    value occurs. Matches the ``krippendorff`` package (value domain = observed labels)."""
    m = _matrix(ratings)
    cats = _categories(m, categories)
    counts = _counts(m, cats)
    m_u = counts.sum(axis=1)
    counts, m_u = counts[m_u >= 2], m_u[m_u >= 2]
    if len(counts) == 0:
        return None
    scaled = counts / (m_u - 1)[:, None]
    o = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        delta = 1.0 - np.eye(len(cats))
    else:
        cum = np.concatenate(([0.0], np.cumsum(n_c)))
        lo = np.minimum.outer(np.arange(len(cats)), np.arange(len(cats)))
        hi = np.maximum.outer(np.arange(len(cats)), np.arange(len(cats)))
        between = cum[hi + 1] - cum[lo]
        delta = (between - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    expected = float((np.outer(n_c, n_c) * delta).sum())
    if expected <= _EPS:
        return None
    return float(1.0 - (n - 1) * float((o * delta).sum()) / expected)


# --------------------------------------------------------------------------------------------
# Reports


@dataclass(frozen=True)
class PairAgreement:
    annotator_a: str
    annotator_b: str
    n_items: int
    percent_agreement: float | None
    kappa: float | None
    kappa_linear: float | None
    kappa_quadratic: float | None


@dataclass(frozen=True)
class AgreementReport:
    """All coefficients for one set of ratings (a query's candidates, or a whole project).

    ``unanimous``: every label given is the same, so every kappa is undefined (None) — this is
    full agreement, not ambiguity. ``max_label_gap``: the largest difference between two
    labels of one item (2 on the 0/1/2 scale flags a query for adjudication).
    ``gwet_ac1``, ``gwet_ac2_linear`` and ``fleiss_kappa`` are Gwet's definitions for missing
    labels (irrCAC's): an item labelled once counts in the category shares."""

    n_items: int
    n_annotators: int
    n_labels: int
    percent_agreement: float | None
    cohen_kappa: float | None
    cohen_kappa_linear: float | None
    cohen_kappa_quadratic: float | None
    gwet_ac1: float | None
    gwet_ac2_linear: float | None
    fleiss_kappa: float | None
    krippendorff_alpha_nominal: float | None
    krippendorff_alpha_ordinal: float | None
    unanimous: bool
    max_label_gap: int
    pairwise: tuple[PairAgreement, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k != "pairwise"}
        out["pairwise"] = [vars(p) for p in self.pairwise]
        return out


def agreement_report(
    ratings: Sequence[Sequence[float | None]] | FloatArray,
    annotators: Sequence[str] | None = None,
    categories: Sequence[int] | None = None,
) -> AgreementReport:
    """Every coefficient for an ``items × annotators`` matrix (NaN/None = not labelled)."""
    m = _matrix(ratings)
    names = list(annotators) if annotators is not None else [str(i) for i in range(m.shape[1])]
    if len(names) != m.shape[1]:
        raise ValueError("one annotator name per column is needed")
    labelled = ~np.isnan(m)
    pairs: list[PairAgreement] = []
    for i, j in itertools.combinations(range(m.shape[1]), 2):
        both = labelled[:, i] & labelled[:, j]
        a, b = m[both, i], m[both, j]
        pairs.append(
            PairAgreement(
                annotator_a=names[i],
                annotator_b=names[j],
                n_items=int(both.sum()),
                percent_agreement=float((a == b).mean()) if both.any() else None,
                kappa=cohen_kappa(a, b, None, categories),
                kappa_linear=cohen_kappa(a, b, "linear", categories),
                kappa_quadratic=cohen_kappa(a, b, "quadratic", categories),
            )
        )
    values = m[labelled]
    per_item = np.where(labelled, m, np.nan)
    multi = labelled.sum(axis=1) >= 2
    gap = np.nanmax(per_item[multi], axis=1) - np.nanmin(per_item[multi], axis=1)
    return AgreementReport(
        n_items=int(labelled.any(axis=1).sum()),
        n_annotators=int(labelled.any(axis=0).sum()),
        n_labels=int(labelled.sum()),
        percent_agreement=percent_agreement(m),
        cohen_kappa=_mean(p.kappa for p in pairs),
        cohen_kappa_linear=_mean(p.kappa_linear for p in pairs),
        cohen_kappa_quadratic=_mean(p.kappa_quadratic for p in pairs),
        gwet_ac1=gwet_ac1(m, categories),
        gwet_ac2_linear=gwet_ac2(m, categories, weights="linear"),
        fleiss_kappa=fleiss_kappa(m, categories),
        krippendorff_alpha_nominal=krippendorff_alpha(m, "nominal", categories),
        krippendorff_alpha_ordinal=krippendorff_alpha(m, "ordinal", categories),
        unanimous=len(values) > 0 and bool((values == values[0]).all()),
        max_label_gap=int(gap.max()) if len(gap) else 0,
        pairwise=tuple(pairs),
    )


class LabelLike(Protocol):
    """What :func:`agreement_by_group` needs of a label row
    (``goldsmith.formats.labels.LabelRow`` fits)."""

    @property
    def item(self) -> str: ...
    @property
    def annotator(self) -> str: ...
    @property
    def label(self) -> int: ...
    @property
    def group(self) -> str | None: ...


@dataclass(frozen=True)
class GroupedAgreement:
    """``pooled`` over all items; ``groups`` per item group (e.g. per query), in first-seen
    order; empty when the rows carry no group."""

    pooled: AgreementReport
    groups: dict[str, AgreementReport]

    def to_json(self) -> dict[str, Any]:
        out = self.pooled.to_json()
        if self.groups:
            out["groups"] = {g: r.to_json() for g, r in self.groups.items()}
        return out


def ratings_matrix(rows: Iterable[LabelLike]) -> tuple[FloatArray, list[str], list[str]]:
    """(items × annotators matrix, item keys, annotator names) from label rows; an item is
    identified by (group, item)."""
    items: dict[tuple[str | None, str], int] = {}
    anns: dict[str, int] = {}
    cells: list[tuple[int, int, int]] = []
    for r in rows:
        i = items.setdefault((r.group, r.item), len(items))
        a = anns.setdefault(r.annotator, len(anns))
        cells.append((i, a, r.label))
    m = np.full((len(items), len(anns)), np.nan)
    for i, a, label in cells:
        m[i, a] = label
    keys = [item if g is None else f"{g}/{item}" for g, item in items]
    return m, keys, list(anns)


def agreement_by_group(
    rows: Sequence[LabelLike], categories: Sequence[int] | None = None
) -> GroupedAgreement:
    """Pooled and per-group reports from label rows (see :class:`LabelLike`)."""
    m, _, anns = ratings_matrix(rows)
    pooled = agreement_report(m, anns, categories)
    groups: dict[str, list[LabelLike]] = {}
    for r in rows:
        if r.group is not None:
            groups.setdefault(r.group, []).append(r)
    reports = {}
    for g, grows in groups.items():
        gm, _, ganns = ratings_matrix(grows)
        reports[g] = agreement_report(gm, ganns, categories)
    return GroupedAgreement(pooled, reports)


# --------------------------------------------------------------------------------------------
# A query's grades: its statistics, why it needs a lead, its final grades by rule

# How a final grade was decided by rule (the values the app stores as a resolution's provenance).
UNANIMOUS = "unanimous"
MAJORITY = "majority"
TIE_LOWER = "tie_lower"  # shown as "tie → lower"
TIE_HIGHER = "tie_higher"  # shown as "tie → higher"
# A machine judge's grade filling a gap no person judged (never decided by a rule over human
# grades, never over a human grade: see annotation.services.machine).
MACHINE = "machine"
SIMULATED = "simulated"  # a final grade settled from simulated grades (the demo's), no person's

# A project's tie rule: what a candidate whose grades are one apart with no majority gets in a
# query that is not otherwise flagged — the lower grade, the higher grade, or a lead.
LOWER = "lower"
HIGHER = "higher"
LEAD = "lead"
TIE_RULES = (LOWER, HIGHER, LEAD)

# Why a finished query needs a lead (the values the app stores as its flag reasons).
LOW_KAPPA = "low_kappa"
TWO_APART = "two_apart"
AMBIGUOUS = "ambiguous"
TIE = "tie"

# Which of a query's kappas the flag rule reads (a project setting): Cohen's kappa unweighted
# (every disagreement counts alike) or linearly weighted (a one-grade difference counts half of
# a two-grade one, as the grades are ordinal). Both are computed and stored for every query.
UNWEIGHTED = "unweighted"
LINEAR = "linear"
# Or Gwet's AC1, unweighted or as AC2 with linear weights over the grade scale (0, 1, 2): on a
# pool of mostly "not relevant" chunks kappa is low even when people agree (the kappa paradox),
# AC1 is not. Kappa stays the default: it is what the product promises to compute.
AC1 = "ac1"
AC2_LINEAR = "ac2_linear"
KAPPA_WEIGHTS = (UNWEIGHTED, LINEAR, AC1, AC2_LINEAR)
GRADE_SCALE = (0, 1, 2)  # the grades AC2's linear weights are spread over
_FLAG_FIELD = {UNWEIGHTED: "kappa", LINEAR: "kappa_linear", AC1: "ac1", AC2_LINEAR: "ac2_linear"}


def flag_field(weights: str) -> str:
    """The name of the statistic (a :class:`QueryStats` key, a stored column) the flag rule
    reads under ``weights``."""
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(
            f"unknown kappa weights {weights!r}; use one of {', '.join(KAPPA_WEIGHTS)}"
        )
    return _FLAG_FIELD[weights]


def flag_kappa(stats: Mapping[str, Any], weights: str) -> float | None:
    """The kappa of a query's ``stats`` (:class:`QueryStats`, or a stored row with the same
    names) that the flag rule compares with the threshold under ``weights``
    (:data:`UNWEIGHTED`: ``kappa``; :data:`LINEAR`: ``kappa_linear``; :data:`AC1`: ``ac1``;
    :data:`AC2_LINEAR`: ``ac2_linear``)."""
    value = stats.get(flag_field(weights))
    return None if value is None else float(value)


# One query's grades: annotator → candidate → grade.
QueryGrades = Mapping[int, Mapping[int, int]]


class QueryStats(TypedDict):
    """The figures stored for a query (``None`` where undefined)."""

    n_annotators: int
    n_items: int
    kappa: float | None
    kappa_linear: float | None
    raw_agreement: float | None
    ac1: float | None
    ac2_linear: float | None


def query_stats(grades: QueryGrades) -> QueryStats:
    """Statistics of one query from its grades (annotator → candidate → grade).

    The same coefficients :func:`agreement_report` gives for the query's group (mean pairwise
    Cohen's kappa unweighted and linear, percent agreement, Gwet's AC1; and Gwet's AC2 with
    linear weights over :data:`GRADE_SCALE`), computed with the same
    functions; the Fleiss, quadratic and alpha figures a query page does not show are skipped.
    Rows are the candidates anyone graded, columns the annotators (NaN: not graded)."""
    annotators = sorted(grades)
    items = sorted({item for by_item in grades.values() for item in by_item})
    n = len(annotators)
    if not items:
        return QueryStats(
            n_annotators=n,
            n_items=0,
            kappa=None,
            kappa_linear=None,
            raw_agreement=None,
            ac1=None,
            ac2_linear=None,
        )
    m = _matrix([[grades[a].get(item) for a in annotators] for item in items])
    pairs = list(itertools.combinations(range(n), 2))
    return QueryStats(
        n_annotators=n,
        n_items=len(items),
        kappa=_mean(cohen_kappa(m[:, i], m[:, j]) for i, j in pairs),
        kappa_linear=_mean(cohen_kappa(m[:, i], m[:, j], "linear") for i, j in pairs),
        raw_agreement=percent_agreement(m),
        ac1=gwet_ac1(m),
        ac2_linear=gwet_ac2(m, _scale(m)),
    )


def _scale(m: FloatArray) -> list[int]:
    """:data:`GRADE_SCALE`, widened to any grade outside it (so AC2 never drops a label)."""
    seen = {int(v) for v in m[~np.isnan(m)].tolist()}
    return sorted(set(GRADE_SCALE) | seen)


def two_rater_query_stats(
    grades: Mapping[int, QueryGrades], query_ids: Iterable[int]
) -> dict[int, QueryStats]:
    """:func:`query_stats` of those of ``query_ids`` that exactly two annotators graded
    completely (the usual case), computed for all of them at once with
    :func:`two_rater_group_stats`; the other queries are left out (the caller uses
    :func:`query_stats` for them). ``grades``: query → annotator → candidate → grade."""
    group: list[int] = []
    first: list[int] = []
    second: list[int] = []
    for qid in query_ids:
        by_annotator = grades.get(qid, {})
        if len(by_annotator) != 2:
            continue
        a, b = (by_annotator[uid] for uid in sorted(by_annotator))
        if not a or a.keys() != b.keys():
            continue
        for cid in a:
            group.append(qid)
            first.append(a[cid])
            second.append(b[cid])
    if not group:
        return {}
    result = two_rater_group_stats(
        np.asarray(group, dtype=np.int64),
        np.asarray(first, dtype=np.float64),
        np.asarray(second, dtype=np.float64),
    )
    return {
        int(qid): QueryStats(
            n_annotators=2,
            n_items=int(result.n_items[i]),
            kappa=_defined(result.kappa[i]),
            kappa_linear=_defined(result.kappa_linear[i]),
            raw_agreement=_defined(result.percent_agreement[i]),
            ac1=_defined(result.ac1[i]),
            ac2_linear=_defined(result.ac2_linear[i]),
        )
        for i, qid in enumerate(result.groups)
    }


def rule_resolution(grades: Sequence[int], *, tie_rule: str) -> tuple[int, str] | None:
    """(final grade, how it was decided) of one candidate by rule, or None (left to a lead, or
    no grade).

    :data:`UNANIMOUS` when every grade is equal; :data:`MAJORITY` when one grade has more than
    half the votes; otherwise a tie. A tie whose grades are one apart (e.g. 2/1, or 1/1/0/0)
    goes by ``tie_rule``: :data:`LOWER` gives the lower grade (:data:`TIE_LOWER`),
    :data:`HIGHER` the higher (:data:`TIE_HIGHER`), :data:`LEAD` None, which flags the query for
    a lead (:data:`TIE`). A tie over grades two apart is always None (such a query is flagged
    anyway, :data:`TWO_APART`)."""
    if tie_rule not in TIE_RULES:
        raise ValueError(f"unknown tie rule {tie_rule!r}; use one of {', '.join(TIE_RULES)}")
    if not grades:
        return None
    grade, votes = Counter(grades).most_common(1)[0]
    if votes == len(grades):
        return grade, UNANIMOUS
    if votes * 2 > len(grades):
        return grade, MAJORITY
    if max(grades) - min(grades) != 1 or tie_rule == LEAD:
        return None
    if tie_rule == LOWER:
        return min(grades), TIE_LOWER
    return max(grades), TIE_HIGHER


def has_majority(grades: Sequence[int]) -> bool:
    """Whether one grade has more than half the votes (unanimity included)."""
    return bool(grades) and Counter(grades).most_common(1)[0][1] * 2 > len(grades)


def two_apart(grades: Sequence[int], *, escalated: bool = False) -> bool:
    """Whether one candidate's grades count as "two grades apart" for the flag rule.

    Before escalation: any two grades two apart (2 and 0). After a query was escalated to one
    more annotator, whose vote is there to settle exactly such a split: only when no grade has
    a majority (2/1/0); a majority outvotes one outlying grade (2/2/0 → 2, 0/0/2 → 0)."""
    if not grades or max(grades) - min(grades) < 2:
        return False
    return not (escalated and has_majority(grades))


def settling_tie_rule(tie_rule: str, *, escalated: bool) -> str:
    """The tie rule a query settles under: the project's, except after escalation, where a
    candidate without a majority goes to a lead whatever the project's rule (an escalated query
    resolves only when the grades give a majority on every candidate)."""
    return LEAD if escalated else tie_rule


def flag_reasons(
    *,
    kappa: float | None,
    threshold: float,
    grades: QueryGrades,
    ambiguous: bool,
    tie_rule: str,
    escalated: bool = False,
) -> list[str]:
    """Why a finished query needs a lead (empty: it resolves by rule), in this order:
    :data:`LOW_KAPPA` when its kappa is below ``threshold`` (an undefined kappa, every grade
    identical, is unanimous and never low; with more than two annotators the kappa is the mean
    pairwise one); :data:`TWO_APART` when a candidate's grades are two apart
    (:func:`two_apart`); :data:`AMBIGUOUS` when an annotator marked it ambiguous; and only when
    none of these holds, :data:`TIE` when a candidate's grades have no majority and the
    project's ``tie_rule`` leaves ties to a lead (:func:`rule_resolution`; with :data:`LOWER`
    or :data:`HIGHER` every such tie resolves, so :data:`TIE` is never given).

    ``escalated``: the query already had one more annotator (:func:`escalates`). Then a
    candidate with a majority is decided by it even when an outlying grade is two apart, and
    any candidate without a majority needs a lead whatever ``tie_rule`` says
    (:func:`settling_tie_rule`). ``grades``: annotator → candidate → grade."""
    reasons = []
    if kappa is not None and kappa < threshold:
        reasons.append(LOW_KAPPA)
    by_item: dict[int, list[int]] = defaultdict(list)
    for by_candidate in grades.values():
        for item, grade in by_candidate.items():
            by_item[item].append(grade)
    if any(two_apart(g, escalated=escalated) for g in by_item.values()):
        reasons.append(TWO_APART)
    if ambiguous:
        reasons.append(AMBIGUOUS)
    rule = settling_tie_rule(tie_rule, escalated=escalated)
    if not reasons and any(rule_resolution(g, tie_rule=rule) is None for g in by_item.values()):
        reasons.append(TIE)
    return reasons


def escalates(reasons: Sequence[str], *, escalated: bool) -> bool:
    """Whether a query flagged for ``reasons`` goes to one more annotator first (in a project
    that escalates): when it is flagged, was not escalated before (at most once), and no
    annotator marked it ambiguous (a further grade cannot take that mark back, so a lead would
    see it anyway; the extra annotator's time is saved)."""
    return bool(reasons) and not escalated and AMBIGUOUS not in reasons


def flag_sentences(
    *,
    reasons: Sequence[str],
    kappa: float | None,
    threshold: float,
    grades: QueryGrades,
    names: Mapping[int, str],
    chunk_numbers: Mapping[int, int],
    ambiguous_by: Sequence[str],
    limit: int = 3,
    escalated: bool = False,
    weights: str = UNWEIGHTED,
) -> list[str]:
    """The stored flag ``reasons`` of a query as sentences a lead reads, in the same order:
    "κ 0.29 below 0.6" ("linearly weighted κ 0.41 below 0.6" with ``weights`` :data:`LINEAR`,
    ``kappa`` then being the linearly weighted one); "alice 2 and bob 0 on chunk 3" for each
    candidate with grades two apart (the lowest and highest grade given; at most ``limit``,
    then "and N more chunks two grades apart"); "marked ambiguous by bob"; "alice 2 and bob 1
    on chunk 4, no majority" for a tie. ``names``: annotator → name; ``chunk_numbers``:
    candidate → its 1-based place in the query's list (the adjudication page's order).
    ``escalated``: as for :func:`flag_reasons` (only candidates without a majority count as
    two apart)."""
    by_item: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for uid in sorted(grades, key=lambda u: names.get(u, str(u))):
        for item, grade in grades[uid].items():
            by_item[item].append((names.get(uid, str(uid)), grade))
    ordered = sorted(by_item, key=lambda c: (chunk_numbers.get(c, 1 << 30), c))

    def chunks(items: list[int], *, tie: bool) -> list[str]:
        out: list[str] = []
        for c in items[:limit]:
            votes = by_item[c]
            low = min(votes, key=lambda v: v[1])
            high = max(votes, key=lambda v: v[1])
            where = (
                say("chunk %(number)s", number=chunk_numbers[c])
                if c in chunk_numbers
                else say("candidate %(id)s", id=c)
            )
            values = {
                "where": where,
                "a": high[0],
                "grade_a": high[1],
                "b": low[0],
                "grade_b": low[1],
            }
            out.append(
                say("%(a)s %(grade_a)s and %(b)s %(grade_b)s on %(where)s, no majority", **values)
                if tie
                else say("%(a)s %(grade_a)s and %(b)s %(grade_b)s on %(where)s", **values)
            )
        if len(items) > limit:
            more = len(items) - limit
            out.append(
                say("and %(n)s more chunks, no majority", n=more)
                if tie
                else say("and %(n)s more chunks two grades apart", n=more)
            )
        return out

    sentences: list[str] = []
    for reason in reasons:
        if reason == LOW_KAPPA:
            below = f"{threshold:g}"
            if kappa is None:
                sentences.append(say("κ undefined below %(threshold)s", threshold=below))
                continue
            figures = {"kappa": f"{kappa:.2f}", "threshold": below}
            if weights == AC1:
                sentences.append(say("Gwet's AC1 %(kappa)s below %(threshold)s", **figures))
            elif weights == AC2_LINEAR:
                sentences.append(
                    say("Gwet's AC2 (linear weights) %(kappa)s below %(threshold)s", **figures)
                )
            elif weights == LINEAR:
                sentences.append(
                    say("linearly weighted κ %(kappa)s below %(threshold)s", **figures)
                )
            else:
                sentences.append(say("κ %(kappa)s below %(threshold)s", **figures))
        elif reason == TWO_APART:
            apart = [
                c for c in ordered if two_apart([g for _, g in by_item[c]], escalated=escalated)
            ]
            sentences.extend(chunks(apart, tie=False))
        elif reason == AMBIGUOUS:
            if ambiguous_by:
                sentences.append(say("marked ambiguous by %(who)s", who=", ".join(ambiguous_by)))
            else:
                sentences.append(say("marked ambiguous by an annotator"))
        elif reason == TIE:
            tied = [
                c
                for c in ordered
                if rule_resolution([g for _, g in by_item[c]], tie_rule=LEAD) is None
            ]
            sentences.extend(chunks(tied, tie=True))
        else:
            sentences.append(reason)
    return sentences


# --------------------------------------------------------------------------------------------
# A judge against people: kappa with a bootstrap interval


@dataclass(frozen=True)
class KappaInterval:
    """Cohen's kappa of two graders over the items both graded, with a percentile bootstrap
    interval (None where undefined), the raw agreement and how many items and groups it
    rests on."""

    kappa: float | None
    low: float | None
    high: float | None
    raw_agreement: float | None
    n_items: int
    n_groups: int

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


def kappa_interval(
    a: Sequence[int] | IntArray,
    b: Sequence[int] | IntArray,
    groups: Sequence[int] | IntArray,
    *,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> KappaInterval:
    """Unweighted Cohen's kappa of ``a`` against ``b`` (:func:`cohen_kappa`, equal to
    scikit-learn's ``cohen_kappa_score``) with a ``confidence`` percentile interval from a
    bootstrap over ``groups`` (the query of each item): the grades of one query are not
    independent, so whole queries are resampled.

    Each resample's kappa comes from bootstrap means (``goldsmith.stats.bootstrap_means``,
    weighted by each query's item count, so a resample's mean is its pooled share): the
    observed agreement p_o and the two graders' shares of each grade, then
    κ = (p_o − Σ_k pa_k pb_k) / (1 − Σ_k pa_k pb_k); resamples where every grade is the same
    (kappa undefined) are left out of the quantiles. No items: every figure None."""
    from goldsmith.stats import bootstrap_means  # stats imports nothing of ours; kept local

    x = np.asarray(a, dtype=np.int64)
    y = np.asarray(b, dtype=np.int64)
    g = np.asarray(groups, dtype=np.int64)
    if not len(x) == len(y) == len(g):
        raise ValueError("a, b and groups must be equally long")
    if len(x) == 0:
        return KappaInterval(None, None, None, None, 0, 0)
    kappa = cohen_kappa(x.astype(np.float64), y.astype(np.float64))
    raw = float((x == y).mean())
    keys, gidx = np.unique(g, return_inverse=True)
    cats = np.unique(np.concatenate([x, y]))
    n = np.bincount(gidx, minlength=len(keys)).astype(np.float64)
    columns = [np.bincount(gidx, weights=(x == y).astype(np.float64), minlength=len(keys))]
    for c in cats:
        columns.append(np.bincount(gidx, weights=(x == c).astype(np.float64), minlength=len(keys)))
    for c in cats:
        columns.append(np.bincount(gidx, weights=(y == c).astype(np.float64), minlength=len(keys)))
    low = high = None
    if samples > 0 and kappa is not None:
        values = np.column_stack(columns) / n[:, None]
        means = bootstrap_means(values, samples=samples, seed=seed, weights=n)
        k = len(cats)
        p_o = means[:, 0]
        p_e = (means[:, 1 : 1 + k] * means[:, 1 + k :]).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappas = np.where(1.0 - p_e > _EPS, (p_o - p_e) / (1.0 - p_e), np.nan)
        kappas = kappas[~np.isnan(kappas)]
        if len(kappas):
            alpha = (1.0 - confidence) / 2.0
            lo, hi = np.quantile(kappas, [alpha, 1.0 - alpha])
            low, high = float(lo), float(hi)
    return KappaInterval(kappa, low, high, raw, len(x), len(keys))


# --------------------------------------------------------------------------------------------
# A project: the figures of its judgments export


class PairKappa(TypedDict):
    a: str
    b: str
    kappa: float | None
    n: int


class PooledAgreement(TypedDict):
    items: int
    alpha_ordinal: float | None
    raw_agreement: float | None
    ac1: float | None
    kappa: float | None
    pairwise: list[PairKappa]


def pooled_agreement(rows: IntArray, names: Mapping[int, str]) -> PooledAgreement:
    """Project-level coefficients from the judgments export: ``rows`` is int64[n, 4] (query,
    candidate, annotator, grade), sorted by query, candidate and annotator (the export's order);
    ``names`` gives each annotator id its name.

    Equal to the ``pooled`` part of ``goldsmith agreement`` on the exported CSV: the multi-rater
    coefficients depend only on each item's labels, so they are computed on a compact
    items × (labels per item) matrix in the CSV's item order; each pair of annotators (in the
    CSV's first-seen order) gets Cohen's kappa over the items both judged; pairs that share no
    item are left out. ``kappa`` is the mean of the pairwise kappas.
    """
    if len(rows) == 0:
        return PooledAgreement(
            items=0, alpha_ordinal=None, raw_agreement=None, ac1=None, kappa=None, pairwise=[]
        )
    qid, cid, uid, grade = rows.T
    new_item = np.r_[True, (qid[1:] != qid[:-1]) | (cid[1:] != cid[:-1])]
    starts = np.flatnonzero(new_item)
    item = np.cumsum(new_item) - 1
    position = np.arange(len(rows)) - starts[item]
    width = int(position.max()) + 1
    m = np.full((len(starts), width), np.nan)
    m[item, position] = grade
    # First-seen order of annotators in the export, as the CLI numbers its columns.
    seen, first, which = np.unique(uid, return_index=True, return_inverse=True)
    by_first = np.argsort(first)
    order = seen[by_first]
    rank = np.empty(len(seen), dtype=np.int64)
    rank[by_first] = np.arange(len(seen))
    ann = np.full((len(starts), width), -1, dtype=np.int64)
    ann[item, position] = rank[which]
    keys, lefts, rights, items = [], [], [], []
    for p, q in itertools.combinations(range(width), 2):
        both = (ann[:, p] >= 0) & (ann[:, q] >= 0)
        a, b = ann[both, p], ann[both, q]
        ga, gb = m[both, p], m[both, q]
        swap = a > b
        keys.append(np.where(swap, b, a) * len(order) + np.where(swap, a, b))
        lefts.append(np.where(swap, gb, ga))
        rights.append(np.where(swap, ga, gb))
        items.append(np.flatnonzero(both))
    pairwise: list[PairKappa] = []
    if keys:
        key, left, right, idx = (np.concatenate(x) for x in (keys, lefts, rights, items))
        sort = np.lexsort((idx, key))
        key, left, right = key[sort], left[sort], right[sort]
        bounds = np.flatnonzero(np.r_[True, key[1:] != key[:-1], True])
        for lo, hi in itertools.pairwise(bounds.tolist()):
            i, j = divmod(int(key[lo]), len(order))
            pairwise.append(
                PairKappa(
                    a=names[int(order[i])],
                    b=names[int(order[j])],
                    kappa=cohen_kappa(left[lo:hi], right[lo:hi]),
                    n=hi - lo,
                )
            )
    return PooledAgreement(
        items=len(starts),
        alpha_ordinal=krippendorff_alpha(m, "ordinal"),
        raw_agreement=percent_agreement(m),
        ac1=gwet_ac1(m),
        kappa=_mean(p["kappa"] for p in pairwise),
        pairwise=pairwise,
    )


def agreement_with_final(
    rows: IntArray, finals: IntArray
) -> tuple[dict[int, int], dict[int, float | None]]:
    """Per annotator: (how many grades they gave, the share of their grades of candidates that
    have a final grade that equal it; None when none of theirs has one). ``rows`` as for
    :func:`pooled_agreement`; ``finals`` int64[n, 2] (candidate, final grade)."""
    final_of = dict(zip(finals[:, 0].tolist(), finals[:, 1].tolist(), strict=True))
    has_final = np.isin(rows[:, 1], finals[:, 0])
    finals_here = np.array([final_of[c] for c in rows[has_final, 1].tolist()], dtype=np.int64)
    matches = rows[has_final, 3] == finals_here
    volume: dict[int, int] = {}
    agreement: dict[int, float | None] = {}
    for u in np.unique(rows[:, 2]).tolist():
        mine = rows[:, 2] == u
        volume[u] = int(mine.sum())
        judged = mine[has_final]
        agreement[u] = float(matches[judged].mean()) if judged.any() else None
    return volume, agreement


# Histogram bins of per-query kappa, with the undefined (unanimous) queries on their own.
KAPPA_BINS: list[tuple[str, float, float]] = [
    ("< 0", -math.inf, 0.0),
    ("0–.2", 0.0, 0.2),
    (".2–.4", 0.2, 0.4),
    (".4–.6", 0.4, 0.6),
    (".6–.8", 0.6, 0.8),
    (".8–1", 0.8, math.inf),
]


def kappa_histogram(kappas: Sequence[float | None], threshold: float) -> list[dict[str, Any]]:
    """Counts of per-query kappas in :data:`KAPPA_BINS`, after a first bin of the unanimous
    queries (kappa undefined, ``"undefined": True``); a bin wholly below ``threshold`` (where
    queries are flagged) is marked ``"low": True``."""
    bins: list[dict[str, Any]] = [
        {"label": "unanimous", "count": sum(1 for k in kappas if k is None), "undefined": True}
    ]
    for label, lo, hi in KAPPA_BINS:
        count = sum(1 for k in kappas if k is not None and lo <= k < hi)
        bins.append({"label": label, "count": count, "low": hi <= threshold})
    return bins


# Project-level agreement below this means the guidelines are read in different ways
# (docs/design.md "Agreement conventions").
GUIDELINES_MIN_AGREEMENT = 0.6


def guidelines_warning(
    *,
    alpha: float | None,
    kappa: float | None,
    items: int,
    raw_agreement: float | None = None,
    ac1: float | None = None,
    limit: float = GUIDELINES_MIN_AGREEMENT,
) -> dict[str, Any] | None:
    """The "revisit the guidelines" warning, or None when agreement reaches ``limit``.

    The figure is Krippendorff's alpha (ordinal) over the project; when alpha is undefined, the
    mean pairwise Cohen's kappa; with neither there is no warning (nothing to measure). The
    warning carries the figure, its name, the limit, the number of judged items and, when
    given, raw agreement and Gwet's AC1: pools are mostly "not relevant", so a low alpha beside
    a high raw agreement may come from that imbalance (the kappa paradox) rather than from
    annotators who disagree, and the text says so."""
    if alpha is not None:
        measure, key, value = "Krippendorff's α (ordinal)", "alpha_ordinal", alpha
    elif kappa is not None:
        measure, key, value = "the mean pairwise Cohen's κ", "kappa", kappa
    else:
        return None
    if value >= limit:
        return None
    text = (
        f"Agreement is low: {measure} is {value:.2f} over {items} judged chunks, below "
        f"{limit:.1f}. The annotators read the guidelines in different ways: revisit the "
        "guidelines. Look at the flagged queries and the pairwise κ to see where they differ, "
        "make the grade definitions sharper with examples, and brief the annotators again "
        "before judging more."
    )
    if raw_agreement is not None and raw_agreement >= 0.8:
        text += (
            f" Raw agreement is {raw_agreement:.2f}"
            + (f" and Gwet's AC1 {ac1:.2f}" if ac1 is not None else "")
            + ": when most chunks are not relevant, a few disagreements on the relevant ones "
            "pull the figure down, so read it beside these."
        )
    return {
        "measure": measure,
        "metric": key,
        "value": value,
        "limit": limit,
        "items": items,
        "text": text,
    }
