"""The run page, the report API and the JSON download carry the top-K choice (a table and a
curve, the best K marked, latency beside it), the hints and the low-recall list with its own
cut-off; the project's weights and cut-off are edited on the settings page."""

from __future__ import annotations

import re

import pytest

from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from evaluation.services.settings import evaluation_settings_update
from goldsmith import metrics as M
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden


@pytest.fixture
def run(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=16)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    created = evaluation_run_create(
        project=personas.project,
        retriever=retriever,
        version=golden.version,
        ks=[5],
        enqueue=False,
    )
    return evaluation_run_execute_inline(run_id=created.pk)


def page(client, user, run) -> str:
    assert client.login(username=user.username, password=PASSWORD)
    return client.get(f"/projects/{run.project_id}/runs/{run.pk}/").content.decode()


def rows_of(html: str, table_id: str = "topk") -> list[list[str]]:
    section = html.split(f'id="{table_id}"', 1)[1].split("</section>", 1)[0]
    table = section.split('<table class="table compact topk-table">', 1)[1].split("</table>")[0]
    body = table.split("<tbody>", 1)[1]
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    ]


@pytest.mark.django_db
def test_the_run_page_shows_the_top_k_table_and_curve_with_the_best_k_marked(personas, run, client):
    topk = run.report["topk"]
    assert topk["ks"] == [1, 2, 3, 4, 5]  # every K up to the depth asked for
    assert topk["weights"] == {"mrr": 0.4, "ndcg": 0.3, "precision": 0.2, "recall": 0.1}
    best = topk["best_k"]
    assert best == topk["ks"][max(range(5), key=lambda i: (topk["score"][i], -i))] == 2
    html = page(client, personas.victor, run)
    assert f"Top-K choice: best K = {best}" in html
    rows = rows_of(html)
    assert [r[0].split()[0] for r in rows] == ["1", "2", "3", "5"]  # the table's Ks and the best
    marked = [r for r in rows if "best" in r[0]]
    assert len(marked) == 1 and marked[0][0].startswith(str(best))
    # K, mrr, ndcg, precision, recall, score: the figures of the report, to 3 places
    i = topk["ks"].index(best)
    assert marked[0][1:] == [
        f"{topk['means'][f][i]:.3f}" for f in ("mrr", "ndcg", "precision", "recall")
    ] + [f"{topk['score'][i]:.3f}"]
    svg = html.split('id="topk"', 1)[1].split("</svg>", 1)[0]
    assert '<line class="marker"' in svg and f'y="24">best K = {best}</text>' in svg
    assert 'text-anchor="end" y="24">best' not in svg  # K = 2 of 5: the label to the right
    assert svg.count('<polyline class="line') == 5  # the score and its four metrics
    assert "Not per K: each query was one call for its top 5" in html
    assert "p50" in html.split('id="topk-latency"', 1)[1].split("</p>", 1)[0]


@pytest.mark.django_db
def test_the_report_api_and_download_carry_the_top_k_choice_and_the_hints(
    personas, run, client, api_client_for
):
    api = api_client_for(personas.victor)
    data = api.get(f"/api/v1/projects/{run.project_id}/runs/{run.pk}/report/").json()
    assert data["topk"]["best_k"] == run.report["topk"]["best_k"]
    assert set(data["topk"]["means"]) == set(M.TOPK_FAMILIES)
    assert data["topk"]["latency"]["per_k"] is None
    assert data["hints"] == run.report["hints"]
    assert data["low_recall"] == {"metric": "recall@5", "cutoff": 0.2, "count": 4, "listed": 4}
    assert {"precision", "f1"} <= set(data["aggregate"])
    assert client.login(username="victor", password=PASSWORD)
    download = client.get(f"/projects/{run.project_id}/runs/{run.pk}/report.json").json()
    assert download["report"]["topk"] == data["topk"]


@pytest.mark.django_db
def test_editing_the_weights_rescores_past_runs_without_a_new_run(personas, run, client):
    evaluation_settings_update(
        project=personas.project, topk_scenario="summarisation", topk_weights={"precision": 0}
    )
    weights = M.topk_weights("summarisation", {"precision": 0})
    stored = run.report["topk"]
    score, best = M.topk_score(stored["ks"], stored["means"], weights)
    # without precision nothing much falls as K grows: the deepest K wins
    assert best == 5 != stored["best_k"]
    html = page(client, personas.victor, run)
    assert "Top-K choice: best K = 5" in html
    svg = html.split('id="topk"', 1)[1].split("</svg>", 1)[0]
    assert 'text-anchor="end" y="24">best K = 5</text>' in svg  # the last K: label on the left
    assert "Scenario “Summarisation" in html
    assert '<th class="num">precision@K' not in html.split('id="topk"', 1)[1]
    api = client.get(f"/api/v1/projects/{run.project_id}/runs/{run.pk}/report/").json()
    assert api["topk"]["weights"] == weights
    assert api["topk"]["score"] == pytest.approx(list(score))


@pytest.mark.django_db
def test_the_low_recall_list_uses_its_own_cut_off_and_says_so(personas, run, client):
    # recall@5 of the stub's answers: 1 (q4k, q4k+3), 0.5 (q4k+1), 0 (q4k+2)
    listed = {q["query_id"] for q in run.report["low_queries"]}
    assert listed == {"q2", "q6", "q10", "q14"}  # below 0.2, not below the pass threshold 0.7
    html = page(client, personas.victor, run)
    assert "Recall@5 below 0.2, worst first" in html
    assert "4 scored queries below the diagnosis cut-off 0.2" in html
    assert "apart from the pass threshold 0.7" in html
    evaluation_settings_update(project=personas.project, low_recall_cutoff=0.6)
    assert "The project's cut-off is now 0.6" in page(client, personas.victor, run)
    again = evaluation_run_create(
        project=personas.project,
        retriever=run.retriever,
        version=run.version,
        ks=[5],
        enqueue=False,
    )
    again = evaluation_run_execute_inline(run_id=again.pk)
    assert again.report["low_recall"]["cutoff"] == 0.6
    assert len(again.report["low_queries"]) == 8  # the 0.5 ones too


@pytest.mark.django_db
def test_the_run_page_shows_the_hints_with_their_figures(
    personas, private_urls, stub_factory, client
):
    golden = make_golden(personas.project, n=12)
    # every relevant chunk found, but below a non-relevant and a partly relevant one
    late = {q: [f"n{q[1:]}", f"p{q[1:]}", f"r{q[1:]}a", f"r{q[1:]}b"] for q in golden.query_ids}
    stub = stub_factory(late)
    retriever = retriever_save(
        project=personas.project, name="late", kind="http", config=stub.config()
    )
    created = evaluation_run_create(
        project=personas.project,
        retriever=retriever,
        version=golden.version,
        ks=[5],
        enqueue=False,
    )
    run = evaluation_run_execute_inline(run_id=created.pk)
    [hint] = run.report["hints"]
    assert hint["rule"] == "reranking"
    assert hint["figures"] == {"recall@5": 1.0, "mrr@5": pytest.approx(1 / 3)}
    html = page(client, personas.victor, run)
    section = html.split('id="hints"', 1)[1].split("</section>", 1)[0]
    assert "Add or tune a reranker" in section
    assert "Figures: recall@5 1.000 · mrr@5 0.333" in section
    assert 'id="whole-list"' in html and "set_P" in html


@pytest.mark.django_db
def test_the_settings_page_edits_the_scenario_the_weights_and_the_cut_off(personas, client):
    assert client.login(username="alice", password=PASSWORD)
    url = f"/projects/{personas.project.pk}/evaluation-settings/"
    response = client.get(url)
    form = response.context["form"]
    data = {
        name: ("" if form[name].value() is None else form[name].value()) for name in form.fields
    }
    html = response.content.decode()
    assert "Top-K scenario" in html and "Low-recall cut-off" in html
    for scenario in M.TOPK_SCENARIOS.values():
        assert scenario.why[:40] in html.replace("&#x27;", "'")
    bad = client.post(url, {**data, "topk_weights": "mrr=lots"})
    assert "top-K weight of mrr is not a number" in bad.content.decode().replace("&#x27;", "'")
    ok = client.post(
        url,
        {
            **data,
            "topk_scenario": "qa",
            "topk_weights": "hit=0.3, recall=0",
            "low_recall_cutoff": 0.3,
        },
    )
    assert ok.status_code == 302
    record = personas.project.evaluation_settings
    record.refresh_from_db()
    assert (record.topk_scenario, record.topk_weights, record.low_recall_cutoff) == (
        "qa",
        {"hit": 0.3, "recall": 0.0},
        0.3,
    )
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'value="hit=0.3, recall=0"' in html
    # The weights in force, named as the pages name the metrics, in the reader's language.
    assert "MRR 0.45, Precision 0.3, nDCG 0.15, Hit rate 0.3" in html
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "MRR 0.45、精确率 0.3、nDCG 0.15、命中率 0.3" in chinese


@pytest.mark.django_db
def test_the_default_scenario_saved_by_name_still_saves_from_the_page(personas, client):
    evaluation_settings_update(project=personas.project, topk_scenario="default")
    assert client.login(username="alice", password=PASSWORD)
    url = f"/projects/{personas.project.pk}/evaluation-settings/"
    form = client.get(url).context["form"]
    data = {n: ("" if form[n].value() is None else form[n].value()) for n in form.fields}
    assert data["topk_scenario"] == ""
    assert client.post(url, data).status_code == 302
