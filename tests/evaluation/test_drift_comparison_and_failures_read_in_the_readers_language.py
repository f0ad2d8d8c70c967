"""A run's drift and a comparison are stored once, in English (what the webhook and `goldsmith
drift` say) with their templates and values; the pages say their sentences from them in the
reader's language, and in English word for word what the engine wrote, whatever the figures. A
run's failure reason is written by the worker in the language of the person who started it."""

from __future__ import annotations

import numpy as np
import pytest
from django.utils import translation
from django.utils.html import escape
from hypothesis import given, settings
from hypothesis import strategies as st

from config.catalogs import compile_catalogs
from evaluation.models import DriftAlert, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import baseline_set, evaluation_run_create
from goldsmith import bands, metrics, verdicts
from sitewide.i18n import localized
from tests.conftest import wait_for
from tests.evaluation.conftest import make_golden, stored_and_said
from tests.evaluation.run_files import run_with
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN"}


@pytest.fixture(autouse=True)
def catalogs():
    if compile_catalogs():
        translation.trans_real._translations = {}
        translation.trans_real._default = None


def scored(recall: list[float], passing: list[float], included: list[bool], k: int):
    n = len(recall)
    return metrics.EvalResult(
        settings=metrics.EvalSettings(),
        metrics=(f"recall@{k}", f"pass@{k}"),
        query_ids=tuple(f"q{i:03d}" for i in range(n)),
        values=np.column_stack(
            [
                np.array(
                    [r if inc else np.nan for r, inc in zip(recall, included, strict=True)],
                    dtype=float,
                ),
                np.array(
                    [p if inc else np.nan for p, inc in zip(passing, included, strict=True)],
                    dtype=float,
                ),
            ]
        ).reshape(n, 2),
        included=np.array(included, dtype=bool),
        no_relevant=(),
        missing_from_run=(),
        not_in_judgments=(),
    )


fractions = st.integers(0, 20).map(lambda n: n / 20)
run = st.lists(st.tuples(fractions, st.booleans(), st.booleans()), min_size=0, max_size=25)


def _result(rows, k, threshold):
    return scored(
        [r for r, _, _ in rows],
        [1.0 if r >= threshold else 0.0 for r, _, _ in rows],
        [inc or not flip for _, inc, flip in rows],
        k,
    )


@settings(max_examples=200, deadline=None)
@given(
    run,
    st.one_of(st.none(), run),
    st.integers(1, 100),
    st.tuples(fractions, fractions, fractions),
    st.sampled_from([0, 50]),
    st.tuples(
        st.one_of(st.none(), st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.25])),
        st.one_of(st.none(), st.sampled_from([0.0, 0.02, 0.1, 0.3])),
    ),
    st.one_of(
        st.none(),
        st.tuples(
            st.integers(1, 100),
            st.sampled_from([1, 2]),
            st.sampled_from(["chunk", "doc", "span"]),
            fractions,
        ),
    ),
)
def test_in_english_the_page_says_the_engines_drift_sentences(
    now, before, k, limits, samples, drops, then
):
    threshold, floor_a, floor_b = limits
    targets = bands.Targets(
        recall_target=max(floor_a, floor_b),
        recall_floor=min(floor_a, floor_b),
        pass_threshold=threshold,
        pass_rate_target=max(floor_a, floor_b),
        pass_rate_floor=min(floor_a, floor_b),
    )
    out = verdicts.assess(
        _result(now, k, threshold),
        k=k,
        targets=targets,
        drops=verdicts.DropLimits(*drops),
        baseline=None if before is None else _result(before, k, threshold),
        conditions=None if then is None else verdicts.Conditions(k, 2, "chunk", threshold),
        baseline_conditions=None if then is None else verdicts.Conditions(*then),
        permutations=50,
        samples=samples,
    )
    if out["drift"] is None:
        return
    with translation.override("en"):
        stored, said = stored_and_said(out["drift"])
    assert [f["message"] for f in said["fired"]] == [f["message"] for f in stored["fired"]]
    assert said["significance"] == stored["significance"]
    assert said["note"] == stored["note"]


def _drop_drift():
    out = verdicts.assess(
        scored([1.0] * 16 + [0.0] * 4, [1.0] * 16 + [0.0] * 4, [True] * 20, 5),
        k=5,
        targets=bands.Targets(),
        baseline=scored([1.0] * 20, [1.0] * 20, [True] * 20, 5),
        permutations=200,
        samples=100,
    )
    return out["drift"]


def test_in_chinese_a_drop_is_said_in_chinese():
    with translation.override("zh-hans"):
        _, drift = stored_and_said(_drop_drift())
    said = next(f for f in drift["fired"] if f["rule"] == "max_recall_drop")["message"]
    assert said.startswith("平均 recall@5 下降了 0.2000（1.0000 → 0.8000），超过 0.05——")
    assert "在两次运行都评分的 20 条查询上，recall@5 变化 -0.200" in said
    assert "配对随机化检验 p = " in said and "变化的 95% 置信区间为" in said
    assert not any(word in said for word in ("dropped", "noise", "queries"))


def test_a_rule_stored_without_its_template_is_shown_as_stored():
    old = {"fired": [{"rule": "min_recall", "value": 0.5, "message": "m"}], "note": "n"}
    with translation.override("zh-hans"):
        assert localized(old) == old
        # a template where the report holds no sentence (a figure) changes nothing
        odd = localized({**old, "templates": {"/fired/0/value": {"template": "x"}}})
        assert odd["fired"] == old["fired"]
        assert localized(None) is None


@pytest.mark.django_db
def test_a_drift_alert_and_a_comparison_read_in_chinese(personas, tmp_path, client):
    golden = make_golden(personas.project, n=20, label="v1")
    base = run_with(personas.project, golden.version, [1.0] * 20, tmp_path)
    baseline_set(run=base)
    run = run_with(personas.project, golden.version, [1.0] * 16 + [0.0] * 4, tmp_path)
    other = run_with(personas.project, golden.version, [1.0] * 20, tmp_path, relevance_threshold=1)
    alert = DriftAlert.objects.get(run=run)
    english = [f["message"] for f in alert.fired]
    assert any("dropped" in m for m in english)  # the stored alert stays English
    login(client, personas.victor)
    pid = personas.project.pk

    page = client.get(f"/projects/{pid}/runs/{run.pk}/", **ZH).content.decode()
    assert "平均 recall@5 下降了" in page and "通过率（pass@5）" in page
    assert "dropped" not in page and "within noise" not in page and "beyond the noise" not in page
    assert "在噪声范围内" in page or "超出噪声范围" in page
    runs_page = client.get(f"/projects/{pid}/runs/", **ZH).content.decode()
    assert "平均 recall@5 下降了" in runs_page and "dropped" not in runs_page
    english_page = client.get(f"/projects/{pid}/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert english_page.status_code == 200
    for message in english:
        assert escape(message) in english_page.content.decode()

    compared = client.get(f"/projects/{pid}/runs/compare/?a={base.pk}&b={other.pk}", **ZH)
    text = compared.content.decode()
    assert compared.status_code == 200
    assert "相关性阈值 1（A：2）" in text and "relevance threshold" not in text
    changed = client.get(f"/projects/{pid}/runs/{other.pk}/", **ZH).content.decode()
    assert "自基线以来已更改：相关性阈值 评分 ≥ 2 → 评分 ≥ 1" in changed
    english_compare = client.get(
        f"/projects/{pid}/runs/compare/?a={base.pk}&b={other.pk}", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "relevance threshold 1 (A: 2)" in english_compare


def test_a_failed_runs_reason_is_written_in_the_starters_language(
    personas, private_urls, stub_factory, celery_worker_process, api_client_for
):
    golden = make_golden(personas.project, n=4)
    stub = stub_factory(golden.answers)
    config = stub.config(retries=0)
    stub.stop()  # nothing answers there any more: every query fails
    retriever = retriever_save(project=personas.project, name="gone", kind="http", config=config)
    with translation.override("zh-hans"):
        run = evaluation_run_create(
            project=personas.project, retriever=retriever, version=golden.version
        )

    def finished():
        run.refresh_from_db()
        return run.finished

    wait_for(finished, timeout=120, message=f"the run to end ({celery_worker_process.output()})")
    assert run.state == RunState.FAILED
    assert run.error.startswith("所有查询都失败了（例如："), run.error
    api = api_client_for(personas.victor)
    data = api.get(f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/", **ZH).json()
    assert data["error"] == run.error
