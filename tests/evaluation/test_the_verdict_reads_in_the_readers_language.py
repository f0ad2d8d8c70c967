"""A run's verdict is stored once, in English (as `goldsmith eval` prints it) with its template
and values; the run page says it from them in the reader's language. In English the page's
sentence is the engine's, word for word, whatever the figures."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from config.catalogs import compile_catalogs
from goldsmith import verdicts
from goldsmith.bands import Targets
from sitewide.i18n import localized
from tests.evaluation.conftest import stored_and_said


@dataclass
class Scored:
    """What `verdict_report` reads of a scored run: each metric's per-query values."""

    recall: list[float]
    passing: list[float]

    metrics = ("recall@K", "pass@K")  # no judged@K: the judgments gate is not read here
    no_relevant = ()
    missing_from_run = ()

    @property
    def query_ids(self) -> tuple[str, ...]:
        return tuple(f"q{i}" for i in range(len(self.recall)))

    @property
    def included(self) -> np.ndarray:
        return np.ones(len(self.recall), dtype=bool)

    def column(self, metric: str) -> np.ndarray:
        return np.array(self.recall if metric.startswith("recall") else self.passing, dtype=float)


def _stored(scored: Scored, k: int, t: Targets) -> tuple[dict, dict]:
    """The verdict as a report stores it (JSON, undefined means as null), and as a page says it
    in the active language."""
    return stored_and_said(verdicts.verdict_report(scored, k, t))


fractions = st.integers(0, 20).map(lambda n: n / 20)
targets = st.tuples(fractions, fractions, fractions, fractions, fractions).map(
    lambda v: Targets(
        recall_target=max(v[0], v[1]),
        recall_floor=min(v[0], v[1]),
        pass_threshold=v[2],
        pass_rate_target=max(v[3], v[4]),
        pass_rate_floor=min(v[3], v[4]),
    )
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=0, max_size=30),
    st.integers(1, 100),
    targets,
)
def test_in_english_the_page_says_the_engines_sentence(recall, k, t):
    scored = Scored(recall, [1.0 if r >= t.pass_threshold else 0.0 for r in recall])
    with translation.override("en"):
        stored, said = _stored(scored, k, t)
        assert said["summary"] == stored["summary"]


@pytest.fixture
def chinese():
    if compile_catalogs():
        translation.trans_real._translations = {}
        translation.trans_real._default = None
    with translation.override("zh-hans"):
        yield


def test_in_chinese_the_page_says_it_in_chinese(chinese):
    t = Targets(
        recall_target=0.8, recall_floor=0.7, pass_threshold=0.7, pass_rate_target=0.8,
        pass_rate_floor=0.7,
    )  # fmt: skip
    _, warn = _stored(Scored([1.0] * 15 + [0.5] * 5, [1.0] * 15 + [0.0] * 5), 5, t)
    assert warn["summary"] == (
        "警告：运行结果高于底线但低于某项目标：平均 Recall@5 为 0.875，达到目标 0.80；"
        "通过率 75%（Recall@5 ≥ 0.7）低于目标 80%（高于底线 70%）。"
    )
    _, nothing = _stored(Scored([], []), 5, t)
    assert nothing["summary"] == (
        "不通过：运行结果低于底线：平均 Recall@5 为 无法计算（没有相关文本块），低于底线 0.70；"
        "通过率 无法计算（没有相关文本块）（Recall@5 ≥ 0.7）低于底线 70%。"
    )


def test_a_verdict_stored_without_its_template_is_shown_as_stored(chinese):
    assert localized({"verdict": "pass", "summary": "Pass"}) == {
        "verdict": "pass",
        "summary": "Pass",
    }
    assert localized(None) is None
