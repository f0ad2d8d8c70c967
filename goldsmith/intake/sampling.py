"""Sampling strategies over the distinct queries of a log: pure, no Django, seeded.

The unit sampled is a distinct query; its *volume* is how often it was asked (its count).
Every strategy splits the pool into strata, allocates the sample size `n` to the strata, and
draws uniformly without replacement inside each stratum:

- ``uniform``: one stratum, ``all``.
- ``stratified``: one stratum per value of a field (category, frequency band, cluster,
  feedback); allocation ``proportional`` (to the stratum's share of query volume, largest
  remainder) or ``equal`` (n / strata each). A stratum never gets more than it holds; what it
  cannot take goes to the others by the same rule.
- ``frequency``: strata head / torso / tail. Distinct queries sorted by count (descending);
  a query is *head* while the volume before it is below `head_share` (50 %) of the total,
  *torso* below `head_share + torso_share` (80 %), and *tail* after. Equal allocation by
  default, so that the long tail is represented.
- ``cluster``: strata are the intents found by clustering the queries (TF-IDF + k-means);
  equal allocation by default.
- ``feedback``: strata ``negative`` (at least one negative signal) and ``other``; negatives
  first: ``negative`` gets min(n, its size), ``other`` the rest.

Weights, for re-weighting metrics to the whole traffic: a query of stratum h weighs
``(V_h / V) / (n_h / n)`` where V is volume and n_h the stratum's sample size. The mean weight
over a sample that covers every stratum is 1; a weighted mean of per-query metrics then
estimates the traffic-weighted mean (up to within-stratum variation).

Reproducible: the pool is ordered by its keys before drawing, strata are visited by name, and
`numpy.random.default_rng(seed)` is the only source of randomness.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from goldsmith.intake.tokenizers import (
    DEFAULT,
    QUESTION_WORDS,
    ZH_WORDS,
    get_tokenizer,
    is_han_token,
)

UNIFORM = "uniform"
STRATIFIED = "stratified"
FREQUENCY = "frequency"
CLUSTER = "cluster"
FEEDBACK = "feedback"
STRATEGIES = (UNIFORM, STRATIFIED, FREQUENCY, CLUSTER, FEEDBACK)
PROPORTIONAL = "proportional"
EQUAL = "equal"
ALLOCATIONS = (PROPORTIONAL, EQUAL)
BANDS = ("head", "torso", "tail")


@dataclass(frozen=True)
class Stratum:
    name: str
    size: int  # distinct queries in the pool
    volume: int  # sum of their counts
    share: float  # volume / total volume
    allocated: int  # sampled from it
    weight: float  # weight of each of its sampled queries (0 when none sampled)


@dataclass(frozen=True)
class Chosen:
    index: int  # position in the caller's pool
    stratum: str
    weight: float


@dataclass(frozen=True)
class Draw:
    chosen: list[Chosen]
    strata: list[Stratum]


def frequency_bands(
    counts: Sequence[int] | np.ndarray, *, head_share: float = 0.5, torso_share: float = 0.3
) -> list[str]:
    """head / torso / tail of each query by the share of volume before it (see module doc)."""
    values = np.asarray(counts, dtype=np.float64)
    if values.size == 0:
        return []
    order = np.argsort(-values, kind="stable")
    before = np.concatenate([[0.0], np.cumsum(values[order])[:-1]]) / values.sum()
    bands = np.empty(values.size, dtype=object)
    bands[order] = np.where(
        before < head_share, "head", np.where(before < head_share + torso_share, "torso", "tail")
    )
    return [str(b) for b in bands]


def allocate(
    sizes: dict[str, int], volumes: dict[str, float], n: int, allocation: str
) -> dict[str, int]:
    """Sample size per stratum: proportional to volume (largest remainder) or equal, capped
    at each stratum's size, with what a full stratum cannot take redistributed."""
    if allocation not in ALLOCATIONS:
        raise ValueError(f"unknown allocation {allocation!r}; use one of {', '.join(ALLOCATIONS)}")
    names = sorted(sizes)
    result = dict.fromkeys(names, 0)
    remaining = min(n, sum(sizes.values()))
    while remaining > 0:
        open_names = [s for s in names if result[s] < sizes[s]]
        if allocation == PROPORTIONAL:
            total = sum(volumes[s] for s in open_names)
            raw = {
                s: remaining * (volumes[s] / total if total > 0 else 1 / len(open_names))
                for s in open_names
            }
        else:
            raw = {s: remaining / len(open_names) for s in open_names}
        give = {s: int(np.floor(raw[s])) for s in open_names}
        leftover = remaining - sum(give.values())
        # Largest remainder first; ties go to the bigger stratum, then by name.
        for s in sorted(open_names, key=lambda s: (-(raw[s] - give[s]), -sizes[s], s))[:leftover]:
            give[s] += 1
        progressed = 0
        for s in open_names:
            take = min(give[s], sizes[s] - result[s])
            result[s] += take
            progressed += take
        remaining -= progressed
        if progressed == 0:  # pragma: no cover - every open stratum has room, so never
            break
    return result


# Seeds are stored in a signed 64-bit column; numpy takes any seed from 0 up.
SEED_MAX = 2**63 - 1


def draw(
    *,
    keys: Sequence[str],
    counts: Sequence[int] | np.ndarray,
    strata: Sequence[str],
    n: int,
    allocation: str,
    seed: int,
    priority: Sequence[str] = (),
) -> Draw:
    """Allocate `n` to the strata and draw uniformly inside each (see the module docstring).

    `priority` names strata that are filled completely, in order, before the others share
    what is left (the ``feedback`` strategy's "negatives first").
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if not len(keys) == len(counts) == len(strata):
        raise ValueError("keys, counts and strata must have the same length")
    count_arr = np.asarray(counts, dtype=np.int64)
    # Deterministic order, whatever order the caller's database returned.
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    members: dict[str, list[int]] = {}
    for i in order:
        members.setdefault(strata[i], []).append(i)
    sizes = {s: len(m) for s, m in members.items()}
    volumes = {s: float(count_arr[m].sum()) for s, m in members.items()}
    total_volume = sum(volumes.values()) or 1.0
    allocated: dict[str, int] = dict.fromkeys(sizes, 0)
    left = n
    for name in priority:
        if name in sizes:
            allocated[name] = min(left, sizes[name])
            left -= allocated[name]
    rest = {s: sizes[s] for s in sizes if s not in priority}
    if rest and left > 0:
        allocated.update(allocate(rest, {s: volumes[s] for s in rest}, left, allocation))
    n_total = sum(allocated.values())
    rng = np.random.default_rng(seed)
    chosen: list[Chosen] = []
    out_strata: list[Stratum] = []
    for name in sorted(members):
        size, k = sizes[name], allocated[name]
        share = volumes[name] / total_volume
        weight = share / (k / n_total) if k else 0.0
        out_strata.append(Stratum(name, size, int(volumes[name]), share, k, weight))
        if k:
            picks = np.sort(rng.choice(size, size=k, replace=False))
            chosen.extend(Chosen(members[name][p], name, weight) for p in picks.tolist())
    return Draw(chosen=chosen, strata=out_strata)


def strata_for(
    strategy: str,
    *,
    counts: Sequence[int] | np.ndarray,
    field_values: Sequence[str] | None = None,
    negatives: Sequence[int] | np.ndarray | None = None,
    clusters: Sequence[str] | None = None,
    head_share: float = 0.5,
    torso_share: float = 0.3,
) -> tuple[list[str], str, tuple[str, ...]]:
    """The stratum of every query, the default allocation and the priority strata."""
    n = len(counts)
    if strategy == UNIFORM:
        return ["all"] * n, PROPORTIONAL, ()
    if strategy == STRATIFIED:
        if field_values is None:
            raise ValueError("the stratified strategy needs a field (--by)")
        return [v or "(none)" for v in field_values], PROPORTIONAL, ()
    if strategy == FREQUENCY:
        if field_values is not None:  # bands computed over the whole log beforehand
            return list(field_values), EQUAL, ()
        return frequency_bands(counts, head_share=head_share, torso_share=torso_share), EQUAL, ()
    if strategy == CLUSTER:
        if clusters is None:
            raise ValueError("the cluster strategy needs clusters")
        return list(clusters), EQUAL, ()
    if strategy == FEEDBACK:
        if negatives is None:
            raise ValueError("the feedback strategy needs feedback counts")
        labels = ["negative" if int(v) > 0 else "other" for v in negatives]
        return labels, PROPORTIONAL, ("negative",)
    raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")


def cluster_queries(
    texts: Sequence[str], *, k: int, seed: int, fit_limit: int = 20000, tokenizer: str = DEFAULT
) -> tuple[list[int], list[str]]:
    """Intents: TF-IDF (words and bigrams, English stop words) + k-means. With a Chinese
    `tokenizer` (`goldsmith.intake.tokenizers`) the words are its terms without interrogatives
    (怎么, 为什么…): an intent is what is asked about.

    Returns each text's cluster and each cluster's name: its three heaviest terms, or for a
    Chinese tokenizer its three most telling Chinese words (`_word_names`: words even when the
    clusters were found with bigrams). Fitted on at most `fit_limit` texts (a seeded subset),
    then every text is assigned.
    """
    n = len(texts)
    if n == 0:
        return [], []
    k = max(1, min(k, n))
    from sklearn.cluster import KMeans, MiniBatchKMeans
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.feature_extraction.text import TfidfVectorizer

    if k == 1:
        return [0] * n, ["(all)"]
    if tokenizer == DEFAULT:
        vectorizer = TfidfVectorizer(
            stop_words="english",
            ngram_range=(1, 2),
            sublinear_tf=True,
            min_df=1,
            max_features=20000,
        )
    else:
        terms = get_tokenizer(tokenizer).terms

        def topic_terms(text: str) -> list[str]:
            return [t for t in terms(text) if t not in QUESTION_WORDS]

        vectorizer = TfidfVectorizer(
            tokenizer=topic_terms,
            token_pattern=None,
            lowercase=False,
            ngram_range=(1, 2),
            sublinear_tf=True,
            min_df=1,
            max_features=20000,
        )
    rng = np.random.default_rng(seed)
    fit_rows = np.sort(rng.choice(n, size=fit_limit, replace=False)) if n > fit_limit else None
    fit_texts = [texts[i] for i in fit_rows] if fit_rows is not None else list(texts)
    try:
        fit_matrix = vectorizer.fit_transform(fit_texts)
    except ValueError:  # only stop words: one cluster
        return [0] * n, ["(misc)"]
    if fit_matrix.shape[1] == 0:
        return [0] * n, ["(all)"]
    model: KMeans | MiniBatchKMeans
    if fit_matrix.shape[0] > 5000:
        model = MiniBatchKMeans(n_clusters=k, random_state=seed, n_init=3, batch_size=2048)
    else:
        model = KMeans(n_clusters=k, random_state=seed, n_init=3)
    with warnings.catch_warnings():
        # Fewer distinct texts than clusters is fine: some clusters stay empty.
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(fit_matrix)
    matrix = vectorizer.transform(texts) if fit_rows is not None else fit_matrix
    labels = model.predict(matrix).tolist()
    if tokenizer != DEFAULT:
        fit_labels = [labels[i] for i in fit_rows] if fit_rows is not None else labels
        return [int(x) for x in labels], _word_names(fit_texts, fit_labels, k)
    terms = vectorizer.get_feature_names_out()
    names = []
    for centre in model.cluster_centers_:
        top = np.argsort(-centre)[:3]
        names.append(", ".join(str(terms[t]) for t in top if centre[t] > 0) or "(misc)")
    return [int(x) for x in labels], names


# Words that ask or hedge rather than name a topic: modal verbs, negations and the asking words
# the tokenizer keeps (they change what a question asks, so search keeps them; a cluster's name
# does not need them: "可以, meet, 视频会议" says less than "meet, 视频会议, 套餐").
_NOT_A_TOPIC = frozenset(
    """能 可以 可 要 需要 会 不 没 没有 不能 能否 是否 多少 多久 几 哪个 哪些 怎么办""".split()  # noqa: SIM905
)


def _names_a_topic(word: str) -> bool:
    """Whether a word may stand in a cluster's name: not an asking or hedging word, not a bare
    number (the 2 of "AirBuds Pro 2"), not a single Han character."""
    if word in QUESTION_WORDS or word in _NOT_A_TOPIC or word.isdigit():
        return False
    return len(word) > 1 or not is_han_token(word)


def _word_names(texts: Sequence[str], labels: Sequence[int], k: int) -> list[str]:
    """Each cluster's name in Chinese words, whatever the project's tokenizer: its three words
    (jieba's, stop and question words out) that most set its queries apart, weighed as
    TF-IDF over the clusters (a word's count in the cluster × log(k / clusters holding it)), so
    a cluster of 退款多久到账 is named 退款, 到账 and never by the bigrams 款多, 久到."""
    terms = get_tokenizer(ZH_WORDS).terms
    counts: list[dict[str, int]] = [{} for _ in range(k)]
    for text, label in zip(texts, labels, strict=True):
        bag = counts[label]
        for word in dict.fromkeys(terms(text)):
            if _names_a_topic(word):
                bag[word] = bag.get(word, 0) + 1
    holding: dict[str, int] = {}
    for bag in counts:
        for word in bag:
            holding[word] = holding.get(word, 0) + 1
    names = []
    for bag in counts:
        weight = {w: n * np.log((k + 1) / holding[w]) for w, n in bag.items()}
        top = sorted(weight, key=lambda w: (-weight[w], w))[:3]
        names.append(", ".join(top) or "(misc)")
    return names
