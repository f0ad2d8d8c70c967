"""An A/B comparison names the queries that got worse and better, worst first, with their
figures (the headline metric in A and B and the difference), on the page, in the API and in
`goldsmith compare`; its metric table is grouped by K."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith import metrics as M
from goldsmith.cli import main
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden


def _changed_answers(answers: dict[str, list[str]]) -> dict[str, list[str]]:
    """Run B: queries 1-5 find every relevant chunk first (better or the same), queries 6-10
    find nothing relevant (worse), the rest answer as A did."""
    out = {}
    for q, ids in answers.items():
        i = int(q[1:])
        if i <= 5:
            out[q] = [f"r{i}a", f"r{i}b", f"p{i}"]
        elif i <= 10:
            out[q] = [f"n{i}", f"u{i}"][: 1 + i % 2]
        else:
            out[q] = ids
    return out


@pytest.fixture
def ab_runs(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=16)
    runs = []
    for name, answers in (("a", golden.answers), ("b", _changed_answers(golden.answers))):
        stub = stub_factory(answers)
        r = retriever_save(project=personas.project, name=name, kind="http", config=stub.config())
        run = evaluation_run_create(
            project=personas.project,
            retriever=r,
            version=golden.version,
            ks=[5, 10],
            enqueue=False,
        )
        runs.append(evaluation_run_execute_inline(run_id=run.pk))
    return runs


def per_query(client, project, run, metric: str) -> dict[str, float]:
    text = client.get(f"/projects/{project.pk}/runs/{run.pk}/report.csv").content.decode(
        "utf-8-sig"
    )
    return {
        row["query_id"]: float(row[metric])
        for row in csv.DictReader(io.StringIO(text))
        if row["included"] == "True"
    }


@pytest.mark.django_db
def test_the_api_lists_worse_and_better_queries_with_their_figures(personas, ab_runs, client):
    a, b = ab_runs
    project = personas.project
    assert client.login(username="victor", password=PASSWORD)
    data = client.get(f"/api/v1/projects/{project.pk}/runs/compare/?a={a.pk}&b={b.pk}").json()
    k = data["headline_k"]
    metric = f"recall@{k}"
    changes = data["changes"]
    assert changes["metric"] == metric and changes["also"] == f"ndcg@{k}"

    # Every figure is the per-query value of each run's own report.
    in_a, in_b = per_query(client, project, a, metric), per_query(client, project, b, metric)
    ndcg_a = per_query(client, project, a, f"ndcg@{k}")
    expected_worse = sorted(
        (q for q in in_a if in_b[q] < in_a[q] - 1e-12), key=lambda q: (in_b[q] - in_a[q], q)
    )
    expected_better = sorted(
        (q for q in in_a if in_b[q] > in_a[q] + 1e-12), key=lambda q: (in_a[q] - in_b[q], q)
    )
    assert [w["query_id"] for w in changes["worse"]] == expected_worse != []
    assert [w["query_id"] for w in changes["better"]] == expected_better != []
    for entry in changes["worse"] + changes["better"]:
        q = entry["query_id"]
        assert entry["a"] == pytest.approx(in_a[q]) and entry["b"] == pytest.approx(in_b[q])
        assert entry["diff"] == pytest.approx(in_b[q] - in_a[q])
        assert entry["also_a"] == pytest.approx(ndcg_a[q])
        assert entry["text"] == f"question number {q[1:]}"
    diffs = [w["diff"] for w in changes["worse"]]
    assert diffs == sorted(diffs) and all(d < 0 for d in diffs)  # worst first

    # The counts are the headline metric's losses, wins and ties.
    row = next(m for m in data["metrics"] if m["metric"] == metric)
    assert (changes["worse_count"], changes["better_count"], changes["ties"]) == (
        row["losses"],
        row["wins"],
        row["ties"],
    )
    assert changes["n"] == row["n"] == len(in_a)


@pytest.mark.django_db
def test_the_page_shows_the_worst_query_first_and_names_the_metric(personas, ab_runs, client):
    a, b = ab_runs
    project = personas.project
    assert client.login(username="victor", password=PASSWORD)
    page = client.get(f"/projects/{project.pk}/runs/compare/?a={a.pk}&b={b.pk}")
    assert page.status_code == 200
    text = page.content.decode()
    changes = page.context["changes"]
    worse = text[text.index('id="queries-worse"') : text.index('id="queries-better"')]
    metric = f"Recall@{page.context['k']}"  # the key recall@K in words
    assert f"Worse in B on {metric}: {changes['worse_count']} of {changes['n']} queries" in worse
    assert f"Each query's {metric} in A and in B, worst first" in worse
    ids = re.findall(r'<span class="mono">([^<]+)</span>', worse)
    assert ids == [w["query_id"] for w in changes["worse"]]
    first = changes["worse"][0]
    assert f"{first['a']:.3f}" in worse and f"{first['diff']:+.3f}" in worse
    better = text[text.index('id="queries-better"') :]
    assert f"Better in B on {metric}: {changes['better_count']} of" in better
    assert "B is better on" in text and "worse on" in text  # the headline sentence
    zh = client.get(
        f"/projects/{project.pk}/runs/compare/?a={a.pk}&b={b.pk}", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert f"B 在“召回率@{page.context['k']}”上变差" in zh  # quoted: no space inside Han text
    assert f'id="compare-headline">召回率@{page.context["k"]}: A ' in zh  # as the table names it
    assert "recall@" not in zh[zh.index('id="queries-worse"') : zh.index('id="queries-better"')]


@pytest.mark.django_db
def test_the_metric_table_has_a_row_per_family_and_a_column_per_k(personas, ab_runs, client):
    a, b = ab_runs
    assert client.login(username="victor", password=PASSWORD)
    page = client.get(f"/projects/{personas.project.pk}/runs/compare/?a={a.pk}&b={b.pk}")
    grid = page.context["grid"]
    assert grid["ks"] == [5, 10] and page.context["k"] in (5, 10)
    families = [r["family"] for r in grid["rows"]]
    assert families[:8] == ["recall", "precision", "hit", "mrr", "ndcg", "map", "pass", "judged"]
    for row in grid["rows"]:
        assert [c["metric"] for c in row["cells"]] == [f"{row['family']}@{k}" for k in (5, 10)]
    assert [s["title"] for s in grid["sections"]][:2] == ["K = 5", "K = 10"]
    text = page.content.decode()
    table = text[text.index('class="table compare-grid"') : text.index("</table>")]
    assert table.count("<tr>") == 1 + len(grid["rows"])  # header + one row per family
    assert "@5" in table and "@10" in table and "(headline)" in table
    assert "p (Holm)" in text and "win / tie / loss" in text and "K = 5" in text


@pytest.mark.django_db
def test_comparing_runs_of_two_versions_says_why_it_refuses(personas, ab_runs, client):
    a, _ = ab_runs
    other = make_golden(personas.project, n=4, label="v-other")
    run = evaluation_run_create(
        project=personas.project, retriever=a.retriever, version=other.version, enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert client.login(username="victor", password=PASSWORD)
    api = client.get(f"/api/v1/projects/{personas.project.pk}/runs/compare/?a={a.pk}&b={run.pk}")
    assert api.status_code == 400
    assert "needs two runs of the same version" in json.dumps(api.json())
    assert "v-other" in json.dumps(api.json())


def test_goldsmith_compare_prints_the_lists_and_puts_them_all_in_json(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 r{i} 2\nq{i} 0 s{i} 2\n" for i in range(1, 7)))
    run_a, run_b = tmp_path / "a.txt", tmp_path / "b.txt"
    # A finds both relevant chunks of q1-q3 and q6, one of q4-q5; B finds one of q1-q2, both
    # of q3-q5, and nothing for q6.
    run_a.write_text(
        "".join(f"q{i} Q0 r{i} 1 2 a\nq{i} Q0 s{i} 2 1 a\n" for i in (1, 2, 3, 6))
        + "".join(f"q{i} Q0 r{i} 1 2 a\nq{i} Q0 x{i} 2 1 a\n" for i in (4, 5))
    )
    run_b.write_text(
        "".join(f"q{i} Q0 r{i} 1 2 b\nq{i} Q0 x{i} 2 1 b\n" for i in (1, 2))
        + "".join(f"q{i} Q0 r{i} 1 2 b\nq{i} Q0 s{i} 2 1 b\n" for i in (3, 4, 5))
        + "q6 Q0 x6 1 2 b\n"
    )
    args = ["compare", str(qrels), str(run_a), str(run_b), "-m", "ndcg@2", "recall@2"]
    assert main([*args, "--permutations", "200", "--list", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 of 6 queries worse in B on recall@2 (worst first); the first 1:" in out
    worse_block = out[out.index("worse in B") :]
    assert worse_block.splitlines()[2].split() == ["q6", "1.0000", "0.0000", "-1.0000"]
    assert "2 of 6 queries better in B on recall@2 (largest gain first); the first 1:" in out

    assert main([*args, "--permutations", "200", "--format", "json", "--by", "ndcg@2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    changes = doc["changes"]
    assert changes["metric"] == "ndcg@2" and changes["n"] == 6
    assert [c["query_id"] for c in changes["worse"]] == ["q6", "q1", "q2"]
    assert [c["query_id"] for c in changes["better"]] == ["q4", "q5"]
    assert changes["ties"] == 1
    assert changes["worse"][0] == {"query_id": "q6", "a": 1.0, "b": 0.0, "diff": -1.0}


chunk = st.sampled_from([f"c{i}" for i in range(8)])
workload = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(10)]),
    st.dictionaries(chunk, st.integers(0, 2), min_size=1, max_size=6),
    min_size=1,
)


@given(workload, st.data())
@settings(max_examples=100, deadline=None)
def test_the_lists_agree_with_the_comparisons_wins_and_losses(judgments, data):
    run_a = {q: data.draw(st.lists(chunk, max_size=6)) for q in judgments}
    run_b = {q: data.draw(st.lists(chunk, max_size=6)) for q in judgments}
    names = ["recall@3", "ndcg@3"]
    a, b = M.evaluate(judgments, run_a, names), M.evaluate(judgments, run_b, names)
    row = M.compare(a, b, metrics=["recall@3"], samples=0, permutations=10)[0]
    changes = M.query_changes(a, b, "recall@3")
    assert (len(changes.worse), len(changes.better), changes.ties) == (
        row.losses,
        row.wins,
        row.ties,
    )
    assert [c.diff for c in changes.worse] == sorted(c.diff for c in changes.worse)
    assert [c.diff for c in changes.better] == sorted(
        (c.diff for c in changes.better), reverse=True
    )
    assert all(c.diff == c.b - c.a for c in changes.worse + changes.better)


def test_two_runs_without_a_query_in_common_compare_to_undefined_figures():
    judgments = {"q1": {"c1": 0}, "q2": {"c2": 1}}  # no relevant chunk: no query is scored
    a = M.evaluate(judgments, {"q1": ["c1"]}, ["recall@3"])
    b = M.evaluate(judgments, {"q2": ["c2"]}, ["recall@3"])
    (row,) = M.compare(a, b, samples=10, permutations=10)
    assert row.n == 0 and row.diff != row.diff and (row.wins, row.ties, row.losses) == (0, 0, 0)
    changes = M.query_changes(a, b, "recall@3")
    assert (changes.n, changes.worse, changes.better, changes.ties) == (0, (), (), 0)
