"""The judging order's likeness (goldsmith.judging_order.similarities) is the cosine of the
texts' TF-IDF rows, computed over their shared terms only: on random pools (English words,
Chinese runs, repeated words, empty texts, texts of digits and punctuation alone, any unicode)
it equals, to 1e-12, the whole dense TF-IDF matrix times its transpose that it replaced."""

from __future__ import annotations

import math
import re

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from goldsmith import judging_order as jo
from goldsmith.intake.tokenizers import HAN, has_han
from tests.conftest import require_shared_data

_TERM = re.compile(f"[{HAN}]+|[^\\W\\d_][^\\W_]+")


def dense_terms(text: str) -> list[str]:
    """The terms as the dense version read them (every run looked at)."""
    out: list[str] = []
    for run in _TERM.findall(text.lower()):
        if has_han(run[0]):
            out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
        else:
            out.append(run)
    return out


def dense_similarities(texts: list[str]) -> np.ndarray:
    """The dense version the sparse one replaced, kept here as the reference."""
    vocab: dict[str, int] = {}
    rows = []
    for text in texts:
        counts: dict[int, int] = {}
        for t in dense_terms(text):
            j = vocab.setdefault(t, len(vocab))
            counts[j] = counts.get(j, 0) + 1
        rows.append(counts)
    x = np.zeros((len(texts), len(vocab)))
    for i, counts in enumerate(rows):
        for j, n in counts.items():
            x[i, j] = 1.0 + math.log(n)
    df = (x > 0).sum(axis=0)
    x *= np.log((len(texts) + 1) / (df + 0.5))
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    x /= np.where(norm == 0, 1.0, norm)
    sim = x @ x.T
    np.fill_diagonal(sim, 0.0)
    return sim


WORDS = ["shock", "wave", "Mach", "flow", "the", "of", "a", "3d", "x2", "2.5", "—", ",", "!"]
CHINESE = ["退款", "流程", "很慢", "的", "物流", "查询", "中国", "〇", "慢", "退"]
piece = st.sampled_from(WORDS + CHINESE)
separator = st.sampled_from([" ", "", "  ", "\n", "，", "-"])
made = st.lists(st.tuples(piece, separator), max_size=25).map(
    lambda parts: "".join(p + s for p, s in parts)
)
# A word repeated (sublinear tf), an empty text, and anything unicode.
text = st.one_of(
    made,
    made.map(lambda t: (t + " ") * 3),
    st.just(""),
    st.text(max_size=40),
)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(text, max_size=12), dense_from=st.sampled_from([2, 3, 5, jo.DENSE_FROM]))
@example(texts=[], dense_from=jo.DENSE_FROM)
@example(texts=["", ""], dense_from=2)
@example(texts=["退款流程很慢", "退款的流程", "物流查询", ""], dense_from=2)
@example(texts=["flow flow flow", "flow", "wave"], dense_from=3)
def test_the_likeness_equals_the_dense_tfidf_product(texts, dense_from):
    # Both ways a shared term is counted (the dense product of the common ones, the pairs of
    # the rarer ones) are tried on these small pools by moving the line between them.
    for t in texts:
        assert jo.terms(t) == dense_terms(t), t
    kept = jo.DENSE_FROM
    jo.DENSE_FROM = dense_from
    try:
        got = jo.similarities(texts)
    finally:
        jo.DENSE_FROM = kept
    want = dense_similarities(texts)
    assert got.shape == want.shape == (len(texts), len(texts))
    assert np.abs(got - want).max(initial=0.0) <= 1e-12
    assert np.all(np.diag(got) == 0.0)


def test_a_pool_of_200_real_texts_has_the_dense_likeness():
    # Cranfield's first 200 abstracts and 200 CMRC 2018 paragraphs: common terms (in 16 texts
    # or more) and rare ones both occur, as on a real annotation page.
    from bench.similarities_timing import cmrc, cranfield

    require_shared_data("cranfield", "cran.all.1400")
    require_shared_data("cmrc2018", "cmrc2018_dev.json")
    for texts in (cranfield(200), cmrc(200)):
        got, want = jo.similarities(texts), dense_similarities(texts)
        assert np.abs(got - want).max() <= 1e-12
        assert (got > 0).sum() > len(texts)  # something is alike
