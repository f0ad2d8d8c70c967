"""A report stored before the engine's sentences kept their templates (made by the code at
2b7882b: tests/evaluation/data/report_2b7882b.json) is given them by migration 0011, once; the
run page then says its verdict, its drift, its alert and its answer reasons in English as they
were stored, and in Chinese for a zh-hans reader. The migration reads the engine's English of
today back as the engine's own templates and values, so old and new reports read alike."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.utils import translation
from django.utils.html import escape
from hypothesis import given, settings
from hypothesis import strategies as st

from config.catalogs import compile_catalogs
from evaluation.models import DriftAlert, EvaluationRun
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import baseline_set
from goldsmith import reporting, verdicts
from goldsmith.text import text_json
from tests.engine.test_every_sentence_a_report_gives_is_a_template import a_report, sentences
from tests.evaluation.rag_stub import make_rag_golden
from tests.evaluation.test_a_jsonl_run_file_keeps_every_stage import rag_run_file
from tests.evaluation.test_compare_and_drift_cover_the_answer_metrics import _run
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login
from tests.evaluation.test_the_verdict_reads_in_the_readers_language import Scored, targets

OLD = json.loads((Path(__file__).parent / "data" / "report_2b7882b.json").read_text())
MIGRATION = importlib.import_module("evaluation.migrations.0011_report_sentence_templates")


@pytest.fixture(autouse=True)
def catalogs():
    if compile_catalogs():
        translation.trans_real._translations = {}
        translation.trans_real._default = None


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.django_db
def test_an_old_report_reads_in_english_and_in_chinese_after_the_migration(
    personas, client, api_client_for
):
    project = personas.project
    golden = make_rag_golden(project)
    retriever = retriever_save(project=project, name="rag file", kind="runfile")
    base = _run(project, golden.version, retriever, "good.jsonl", rag_run_file())
    baseline_set(run=base)
    run = _run(project, golden.version, retriever, "old.jsonl", rag_run_file())
    old = OLD["report"]
    stored = {**old, "drift": {**old["drift"], "baseline_run": base.pk}}
    EvaluationRun.objects.filter(pk=run.pk).update(report=stored, verdict=OLD["run"]["verdict"])
    DriftAlert.objects.update_or_create(
        run=run,
        defaults={"baseline_run": base, "fired": OLD["alert_fired"], "changed": []},
    )
    assert "templates" not in stored

    MIGRATION.add_templates(apps, None)
    run.refresh_from_db()
    templates = run.report["templates"]
    assert "/verdict/summary" in templates and "/answers/reasons/q4/fact_coverage" in templates
    assert {k: v for k, v in run.report.items() if k != "templates"} == stored  # English kept

    login(client, personas.victor)
    url = f"/projects/{project.pk}/runs/{run.pk}/"
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for sentence in (
        old["verdict"]["summary"],
        *(f["message"] for f in old["drift"]["fired"]),
        old["answers"]["reasons"]["q1"]["answer_correctness"],  # says 14 days, reference 7 days
        old["answers"]["reasons"]["q4"]["fact_coverage"],  # facts 1 and 2 missing
        old["answers"]["reasons"]["q1"]["answer_f1"],  # token F1 0.14 against the reference answer
    ):
        assert escape(sentence) in english, sentence

    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    said = _text(chinese)
    assert "评判不足：judged@5 为 0.18，低于 0.80" in said
    assert "平均 Recall@5 为 0.438，低于底线 0.70" in said
    assert "平均 recall@5 下降了 0.3125（0.7500 → 0.4375），超过 0.05" in said
    assert "平均 answer_correctness 下降了 0.3333" in said and "在噪声范围内" in said
    assert "缺少事实 1 和 2" in said and "回答 14 days，参考答案为 7 days" in said
    assert "与参考答案的词元 F1 为 0.14" in said
    for english_words in ("Not enough judgments", "dropped", "within noise", "facts 1 and 2"):
        assert english_words not in said, english_words

    # The API says them in the language the request asks for, English by default.
    api = api_client_for(personas.victor)
    at = f"/api/v1/projects/{project.pk}/runs/{run.pk}/"
    body = api.get(f"{at}report/", HTTP_ACCEPT_LANGUAGE="zh-CN").json()
    assert body["verdict"]["summary"].startswith("评判不足：judged@5 为 0.18")
    assert body["answers"]["reasons"]["q4"]["fact_coverage"] == "缺少事实 1 和 2"
    detail = api.get(at, HTTP_ACCEPT_LANGUAGE="zh-CN").json()
    assert detail["drift"]["fired"][0]["message"].startswith("平均 recall@5 为 0.4375")
    plain = api.get(f"{at}report/").json()
    assert plain["verdict"]["summary"] == old["verdict"]["summary"]
    assert plain["drift"]["fired"] == old["drift"]["fired"]


def test_the_migration_reads_the_engines_english_as_the_engines_templates():
    """What 0011 makes of a reason, a verdict and a drift in English is the template and the
    values the engine gives them today: an old report reads as a new one does."""
    report = a_report()
    for place, sentence in sentences(report):
        # (faithfulness is said again from the claims the report keeps, not from its English)
        if place.startswith(("reason", "conflict")) and not place.endswith("faithfulness"):
            assert MIGRATION.reason(str(sentence)) == text_json(sentence), place
    stored = json.loads(json.dumps(reporting.strict_json(report)))
    read = MIGRATION.report_templates(stored)
    assert read["/verdict/summary"] == text_json(report["verdict"]["summary"])
    for i, rule in enumerate(report["drift"]["fired"]):
        assert read[f"/drift/fired/{i}/message"] == text_json(rule["message"]), rule["rule"]
    for name, sig in report["drift"]["significance"].items():
        assert read[f"/drift/significance/{name}/words"] == text_json(sig["words"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=0, max_size=30), st.integers(1, 100), targets)
def test_the_migration_reads_every_verdict_as_the_engine_says_it(recall, k, t):
    scored = Scored(recall, [1.0 if r >= t.pass_threshold else 0.0 for r in recall])
    made = verdicts.verdict_report(scored, k, t)
    stored = json.loads(json.dumps(reporting.strict_json(made)))
    assert MIGRATION.verdict_summary(stored) == text_json(made["summary"])


def test_a_report_stored_before_its_figures_gets_the_templates_it_can():
    templates = MIGRATION.report_templates(
        {"settings": {}, "verdict": {"verdict": "pass", "summary": "Pass"}, "drift": {"fired": []}}
    )
    assert templates == {}  # the verdict's figures are missing: nothing is made up
