"""Inter-annotator agreement: the one implementation behind every agreement figure.

Pure module: numpy only, no Django. Labels are ordinal integers (Goldsmith grades 0/1/2, but any
ints work). Ratings are an ``items × annotators`` float matrix with NaN where an annotator did
not label an item. Every coefficient returns ``None`` when it is undefined.

Conventions (DESIGN.md "Agreement conventions"):

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
- Fleiss' kappa, Gwet's AC1 and Krippendorff's alpha use every item with at least two labels
  (items may have different numbers of labels).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
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


def _none(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


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
    return ((c * (c - 1)).sum(axis=1)) / (n * (n - 1))


@dataclass(frozen=True)
class TwoRaterGroups:
    """Per-group statistics from :func:`two_rater_group_stats` (NaN where undefined)."""

    groups: NDArray[np.int64]
    n_items: NDArray[np.int64]
    kappa: FloatArray
    kappa_linear: FloatArray
    percent_agreement: FloatArray
    ac1: FloatArray


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
    return TwoRaterGroups(
        groups=groups.astype(np.int64),
        n_items=n.astype(np.int64),
        kappa=kappa,
        kappa_linear=kappa_linear,
        percent_agreement=agree,
        ac1=ac1,
    )


# --------------------------------------------------------------------------------------------
# Any number of annotators


def fleiss_kappa(
    ratings: Sequence[Sequence[float | None]] | FloatArray, categories: Sequence[int] | None = None
) -> float | None:
    """Fleiss' kappa: (P̄ − P_e) / (1 − P_e), P̄ the mean pairwise agreement per item, P_e = Σ p_k²
    with p_k the share of all labels in category k (items with ≥ 2 labels)."""
    m = _matrix(ratings)
    counts = _counts(m, _categories(m, categories))
    counts = counts[counts.sum(axis=1) >= 2]
    if len(counts) == 0:
        return None
    p_bar = float(_item_agreement(counts).mean())
    p_k = counts.sum(axis=0) / counts.sum()
    p_e = float((p_k**2).sum())
    if 1.0 - p_e <= _EPS:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def gwet_ac1(
    ratings: Sequence[Sequence[float | None]] | FloatArray, categories: Sequence[int] | None = None
) -> float | None:
    """Gwet's AC1: (p_a − p_e) / (1 − p_e) with p_a the mean pairwise agreement per item,
    π_k the mean over items of the share of the item's labels in category k, and
    p_e = Σ π_k (1 − π_k) / (K − 1), K the number of categories (observed unless given;
    p_e = 0 when K = 1). Items with ≥ 2 labels. Robust to the kappa paradox."""
    m = _matrix(ratings)
    cats = _categories(m, categories)
    counts = _counts(m, cats)
    counts = counts[counts.sum(axis=1) >= 2]
    if len(counts) == 0:
        return None
    p_a = float(_item_agreement(counts).mean())
    pi = (counts / counts.sum(axis=1, keepdims=True)).mean(axis=0)
    k = len(cats)
    p_e = float((pi * (1 - pi)).sum() / (k - 1)) if k > 1 else 0.0
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


def pairwise_kappa_matrix(
    ratings: Sequence[Sequence[float | None]] | FloatArray, weights: Weights = None
) -> FloatArray:
    """``κ[a, b]`` for every annotator pair (over items both labelled); NaN where undefined,
    1 on the diagonal for an annotator with at least two distinct labels."""
    m = _matrix(ratings)
    n = m.shape[1]
    out = np.full((n, n), np.nan)
    for i, j in itertools.product(range(n), repeat=2):
        if i <= j:
            k = cohen_kappa(m[:, i], m[:, j], weights)
            out[i, j] = out[j, i] = np.nan if k is None else k
    return out


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
    labels of one item (2 on the 0/1/2 scale flags a query for adjudication)."""

    n_items: int
    n_annotators: int
    n_labels: int
    percent_agreement: float | None
    cohen_kappa: float | None
    cohen_kappa_linear: float | None
    cohen_kappa_quadratic: float | None
    gwet_ac1: float | None
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


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


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


# Project-level agreement below this means the guidelines are read in different ways
# (DESIGN.md "Agreement conventions").
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
