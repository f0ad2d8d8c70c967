"""Query normalisation and near-duplicate grouping: pure, no Django.

`normalize_query` is the key of exact de-duplication: Unicode NFKC, case-folded, whitespace
collapsed; for a Chinese project also Chinese punctuation as its ASCII counterpart, no spaces
between Han characters, and traditional text read by phrase as mainland usage
(`goldsmith.intake.tokenizers.fold_variants`: a Han run holding a traditional character
converted as OpenCC's Hong Kong and Taiwan to mainland conversions do, a simplified run kept as
typed, and 帳 as 账 outside the curtain words), so that "怎麼退款。" and "怎么退款." are one query,
and so are 退款多久到帳 and 退款多久到账, 軟體 and 软件; 查询 and 查找, or 软体 and 软件, typed in
simplified characters, stay two. `display_text`
keeps the case, the script and the full-width punctuation that a person typed (NFKC for the
rest, white space collapsed).

`near_duplicate_groups` groups distinct queries whose TF-IDF vectors have a cosine similarity
≥ `threshold` (single linkage), punctuation ignored. With the default tokenizer the vectors are
of character 3-grams inside words. With a Chinese tokenizer (`goldsmith.intake.tokenizers`) a
Chinese word (or bigram) is a feature of its own, Chinese stop words are left out and
interrogatives of one meaning count as one (如何 = 怎么), while words outside Chinese runs still
give their character 3-grams: "怎么退款", "如何退款？" and "怎麼退款" are one group, "退款期限" and
"退货期限" are not. To stay fast on hundreds of thousands of distinct queries it compares only
queries that share a *blocking key* (one of their two longest words, or their first 12
characters) and sit near each other in that block's sort order. Two variants that share no
long word and no prefix are not grouped.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from goldsmith.intake.tokenizers import (
    DEFAULT,
    HAN,
    QUESTION_WORDS,
    chinese_term,
    fold_variants,
    get_tokenizer,
    is_han_token,
)

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

_SPACE_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r"\w+")
_PUNCT_RE = re.compile(r"[^\w\s]+")
# Chinese punctuation that NFKC leaves alone, as the ASCII a query typed in English would use
# (NFKC already turns full-width ，？！：；（） into , ? ! : ; ( )).
_CHINESE_PUNCTUATION = str.maketrans(
    {"。": ".", "、": ",", "「": '"', "」": '"', "『": '"', "』": '"', "“": '"', "”": '"',
     "‘": "'", "’": "'", "《": '"', "》": '"', "〈": '"', "〉": '"', "【": "[", "】": "]",
     "〔": "(", "〕": ")", "—": "-"}
)  # fmt: skip
_SPACE_BETWEEN_HAN_RE = re.compile(rf"(?<=[{HAN}])\s+(?=[{HAN}])")


# Full-width punctuation (，？！：；（）…) is how Chinese is written: the stored text keeps it,
# NFKC would make it ASCII. Only matching folds it (`normalize_query`).
_FULL_WIDTH_PUNCTUATION_RE = re.compile(
    "(["
    + "".join(chr(c) for c in range(0xFF01, 0xFF5F) if unicodedata.category(chr(c))[0] in "PS")
    + "])"
)


def display_text(text: str) -> str:
    """The text as stored and shown: NFKC (full-width letters and digits as ASCII) but for
    full-width punctuation, white space collapsed."""
    if text.isascii():
        return _SPACE_RE.sub(" ", text).strip()
    parts = _FULL_WIDTH_PUNCTUATION_RE.split(text)
    kept = "".join(p if i % 2 else unicodedata.normalize("NFKC", p) for i, p in enumerate(parts))
    return _SPACE_RE.sub(" ", kept).strip()


def normalize_query(text: str, *, chinese: bool = False) -> str:
    """The key of exact de-duplication: NFKC, case-folded, whitespace collapsed; with
    `chinese`, Chinese punctuation, traditional characters and spaces between Han characters
    folded too (see the module docstring). Text without a non-ASCII character never pays for
    the Chinese folding."""
    key = unicodedata.normalize("NFKC", text).casefold()
    if chinese and not key.isascii():
        key = _SPACE_BETWEEN_HAN_RE.sub("", key.translate(_CHINESE_PUNCTUATION))
        key = fold_variants(key).casefold()  # 隨身碟 → U盘
    return _SPACE_RE.sub(" ", key).strip()


def _blocks_of(text: str) -> list[str]:
    """The blocks a text belongs to: its two longest words (4+ characters), its prefix."""
    words = sorted(set(_WORD_RE.findall(text)), key=lambda w: (-len(w), w))
    return [f"w:{w}" for w in words[:2] if len(w) >= 4] + [f"p:{text[:12]}"]


def _sort_key(block: str, text: str) -> str:
    """In the block of a long word, texts sort by what follows the word, then what precedes
    it, so "how do i parse json" and "how to parse json" sit side by side; in the block of a
    prefix, by the text itself."""
    if block.startswith("w:"):
        word = block[2:]
        at = text.find(word)
        return text[at + len(word) :] + "\x00" + text[:at]
    return text


def char_trigram_tfidf(texts: Sequence[str]) -> csr_matrix:
    """TF-IDF vectors of the texts' character 3-grams inside words, rows L2-normalised: what
    scikit-learn's ``TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3),
    sublinear_tf=True)`` computes (up to the order of the columns), in whole-array NumPy
    operations instead of a Python loop over every 3-gram (110,000 distinct queries: 0.7 s
    instead of 2.0 s).

    A word's 3-grams are those of the word padded with a space on each side. All texts are
    laid end to end, each padded and whitespace-collapsed, separated by NUL: the 3-gram
    windows that hold a NUL or have a space in the middle cross a text or word boundary and
    are dropped. Each 3-gram is numbered exactly (no hashing), from its three code points.
    """
    from scipy.sparse import csr_matrix

    n = len(texts)
    padded = [f" {' '.join(t.lower().split())} " for t in texts]
    joined = "\x00".join(padded) + "\x00"
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    del joined
    first, middle, last = codes[:-2], codes[1:-1], codes[2:]
    keep = (first != 0) & (middle != 0) & (last != 0) & (middle != 32)
    # Text i starts at bounds[i] in `codes`; its kept windows are counted between the bounds.
    bounds = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(p) + 1 for p in padded), dtype=np.int64, count=n), out=bounds[1:])
    kept_before = np.zeros(len(keep) + 1, dtype=np.int32)
    np.cumsum(keep, dtype=np.int32, out=kept_before[1:])
    indptr = kept_before[np.minimum(bounds, len(keep))]
    del kept_before, bounds
    # Code points renumbered densely (a few dozen in most logs), so that a 3-gram's number is
    # small enough to index an array when the alphabet is small; else the numbers are sorted.
    present = np.zeros(0x110000, dtype=bool)
    present[codes] = True
    size = int(present.sum())
    dense = (np.cumsum(present) - 1).astype(np.int64 if size**3 > 1 << 24 else np.int32)
    grams = dense[first[keep]]
    grams *= size
    grams += dense[middle[keep]]
    grams *= size
    grams += dense[last[keep]]
    del codes, first, middle, last, keep, dense
    if size**3 <= 1 << 24:
        seen = np.zeros(size**3, dtype=bool)
        seen[grams] = True
        width = int(seen.sum())
        column = (np.cumsum(seen, dtype=np.int32) - 1)[grams]
    else:
        vocabulary, inverse = np.unique(grams, return_inverse=True)
        width = len(vocabulary)
        column = inverse.astype(np.int32)
    del grams
    # One entry per window, rows in text order (summed below); float32 counts are exact.
    counts = csr_matrix(
        (np.ones(len(column), dtype=np.float32), column, indptr), shape=(n, max(width, 1))
    )
    del column
    return _sublinear_tfidf(counts, n)


def feature_tfidf(features: Sequence[Sequence[str]]) -> csr_matrix:
    """TF-IDF vectors of lists of features (one list per text), rows L2-normalised: what
    scikit-learn's ``TfidfVectorizer(analyzer=<the lists>, sublinear_tf=True)`` computes (up
    to the order of the columns). The Chinese path of :func:`near_duplicate_groups` uses it."""
    from scipy.sparse import csr_matrix

    vocabulary: dict[str, int] = {}
    number = vocabulary.setdefault
    indices: list[int] = []
    indptr = [0]
    for row in features:
        indices.extend(number(feature, len(vocabulary)) for feature in row)
        indptr.append(len(indices))
    counts = csr_matrix(
        (
            np.ones(len(indices), dtype=np.float32),
            np.asarray(indices, dtype=np.int32),
            np.asarray(indptr, dtype=np.int64),
        ),
        shape=(len(features), max(len(vocabulary), 1)),
    )
    return _sublinear_tfidf(counts, len(features))


def _sublinear_tfidf(counts: csr_matrix, n: int) -> csr_matrix:
    """Feature counts (one entry per occurrence, rows in text order) into sublinear TF-IDF
    with scikit-learn's smooth idf, rows L2-normalised, in place and in float32."""
    counts.sum_duplicates()  # the count of each feature in each text
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0  # smooth idf, as scikit-learn's default
    data = counts.data  # in place, in float32 like scikit-learn's float32 output
    np.log(data, out=data)
    data += 1.0
    data *= idf.astype(np.float32)[counts.indices]
    sizes = np.diff(counts.indptr)
    filled = sizes > 0
    norms = np.ones(n, dtype=np.float32)
    if data.size:
        norms[filled] = np.sqrt(np.add.reduceat(data * data, counts.indptr[:-1][filled]))
    data /= np.repeat(norms, sizes)
    return counts


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted. What ``np.unique`` returns, by sorting: NumPy 2.3+ takes a
    hash-based path for ``np.unique`` that is ten times slower on a million integers."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        parent = self.parent
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:
            parent[i], i = root, parent[i]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # The smaller index (the more frequent query: callers sort by count) stays root.
            if ra < rb:
                self.parent[rb] = ra
            else:
                self.parent[ra] = rb


def near_duplicate_groups(
    texts: Sequence[str], *, threshold: float = 0.85, window: int = 5, tokenizer: str = DEFAULT
) -> list[int]:
    """The group of each text, as the index of the group's first member.

    Callers pass texts ordered by descending count, so a group is named after its most
    frequent variant. `threshold` ≥ 1 disables grouping (every text is its own group).
    `tokenizer` is the project's (`goldsmith.intake.tokenizers`); see the module docstring.
    Inside each block (see the module docstring) every text is compared with its `window`
    next neighbours in sort order (the sorted-neighbourhood method): cost O(n · window).
    """
    n = len(texts)
    if n < 2 or threshold >= 1.0:
        return list(range(n))
    blocks: dict[str, list[int]] = defaultdict(list)
    if tokenizer == DEFAULT:
        # Punctuation does not make a different question: "parse json?" is "parse json".
        matrix = char_trigram_tfidf([_PUNCT_RE.sub(" ", t) for t in texts])
        keys = texts
        for index, text in enumerate(texts):
            for block in _blocks_of(text):
                blocks[block].append(index)
    else:
        split = get_tokenizer(tokenizer).tokens
        units = [_units(split(text)) for text in texts]
        matrix = feature_tfidf([_features(u) for u in units])
        keys = [" ".join(u) for u in units]
        for index, (text, words) in enumerate(zip(texts, units, strict=True)):
            for block in _unit_blocks(words, text):
                blocks[block].append(index)
    # Candidate pairs as small integer arrays, block by block (the blocks are freed as we go).
    parts: list[np.ndarray] = []
    while blocks:
        block, members = blocks.popitem()
        if len(members) < 2:
            continue
        members.sort(key=lambda i: _sort_key(block, keys[i]))
        order = np.asarray(members, dtype=np.int64)
        for offset in range(1, min(window, len(order) - 1) + 1):
            a, b = order[:-offset], order[offset:]
            parts.append(np.minimum(a, b) * n + np.maximum(a, b))
    uf = _UnionFind(n)
    if parts:
        pairs = sorted_unique(np.concatenate(parts))
        del parts
        first, second = pairs // n, pairs % n
        step = 40_000  # pairs per batch: bounds the memory of the row products
        for start in range(0, len(pairs), step):
            a, b = first[start : start + step], second[start : start + step]
            close = np.asarray(matrix[a].multiply(matrix[b]).sum(axis=1)).ravel() >= threshold
            for i, j in zip(a[close].tolist(), b[close].tolist(), strict=True):
                uf.union(i, j)
    return [uf.find(i) for i in range(n)]


def _units(tokens: list[str]) -> list[str]:
    """A query's words as near-duplicate grouping sees them with a Chinese tokenizer: Chinese
    stop words out, interrogatives folded (如何 → 怎么), every other word kept."""
    units = []
    for token in tokens:
        if is_han_token(token):
            term = chinese_term(token)
            if term is not None:
                units.append(term)
        else:
            units.append(token)
    return units


def _features(units: list[str]) -> list[str]:
    """A Chinese word is one feature; another word gives its character 3-grams, padded with a
    space on each side as scikit-learn's ``char_wb`` analyzer pads it."""
    features = []
    for unit in units:
        if is_han_token(unit):
            features.append(unit)
        else:
            padded = f" {unit} "
            features.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    return features


def _unit_blocks(units: list[str], text: str) -> list[str]:
    """The blocks of a text with a Chinese tokenizer: its two longest words (a Han character
    counting twice, interrogatives left out), at least 4 long, and its prefix."""
    weight = {u: (2 * len(u) if is_han_token(u) else len(u)) for u in units}
    words = sorted(
        (u for u, w in weight.items() if w >= 4 and u not in QUESTION_WORDS),
        key=lambda u: (-weight[u], u),
    )
    return [f"w:{w}" for w in words[:2]] + [f"p:{text[:12]}"]
