"""The run page's metrics table names each metric as the other pages do, in the reader's
language: 召回率, 精确率, 命中率 for a zh-hans reader (MRR, nDCG and MAP stay as they are written
in Chinese too), Recall, Precision, Hit rate in English; never the report's own keys (recall,
precision, hit) that the table used to print."""

from __future__ import annotations

import re

import pytest

from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden


@pytest.fixture
def run(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=8)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    created = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, ks=[5],
        enqueue=False,
    )  # fmt: skip
    return evaluation_run_execute_inline(run_id=created.pk)


def row_names(client, run, language: str) -> list[str]:
    html = client.get(
        f"/projects/{run.project_id}/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    table = html.split('<table class="table metrics-table">', 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr><th>([^<]*)</th>", table.split("<tbody>", 1)[1])


@pytest.mark.parametrize(
    ("language", "names"),
    [
        ("zh-CN", ["召回率", "精确率", "命中率", "MRR", "nDCG", "MAP"]),
        ("en", ["Recall", "Precision", "Hit rate", "MRR", "nDCG", "MAP"]),
    ],
)
def test_the_metric_rows_are_named_in_the_readers_language(personas, run, client, language, names):
    assert client.login(username=personas.victor.username, password=PASSWORD)
    shown = row_names(client, run, language)
    assert shown[: len(names)] == names, shown
