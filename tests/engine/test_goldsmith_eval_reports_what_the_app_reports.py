"""`goldsmith eval --format json` and the app's run report (`reporting.build_report`) say the
same thing of the same golden set and run: settings, means with their CIs, the queries left out
and the figures per category, field by field where the two reports overlap."""

from __future__ import annotations

import json
import random
from pathlib import Path

from goldsmith import reporting as R
from goldsmith.cli import main
from goldsmith.formats import goldset as F
from tests.goldset_files import goldset_text

METRICS = [
    "recall@5",
    "recall@10",
    "precision@5",
    "hit@5",
    "mrr@10",
    "ndcg@10",
    "map@10",
    "pass@10",
    "judged@10",
]


def _golden_set_and_run() -> tuple[list[F.GoldenQuery], dict[str, list[tuple[str, float]]]]:
    """40 queries in two categories, 1-4 judged chunks each (one query with none relevant),
    a run of 12 results per query with NaN-free scores; two golden queries are not in the run."""
    rng = random.Random(25)
    queries: list[F.GoldenQuery] = []
    run: dict[str, list[tuple[str, float]]] = {}
    for n in range(40):
        qid = f"q{n}"
        grades = [1] if n == 7 else [rng.choice((1, 2, 2)) for _ in range(rng.randint(1, 4))]
        judged = [f"c{n}_{j}" for j in range(len(grades))]
        queries.append(
            F.GoldenQuery(
                qid,
                f"question {n}",
                tuple(F.GoldJudgment(c, g) for c, g in zip(judged, grades, strict=True)),
                category="billing" if n % 3 else "login",
            )
        )
        if n in (11, 12):
            continue
        found = [c for c in judged if rng.random() < 0.7]
        listed = found + [f"other{n}_{j}" for j in range(12 - len(found))]
        rng.shuffle(listed)
        run[qid] = [(c, 12.0 - i) for i, c in enumerate(listed)]
    return queries, run


def test_goldsmith_eval_json_equals_the_apps_report_where_they_overlap(tmp_path: Path, capsys):
    queries, run = _golden_set_and_run()
    gold = tmp_path / "gold.jsonl"
    gold.write_text(goldset_text("p", "v1", queries))
    run_file = tmp_path / "run.txt"
    run_file.write_text(
        "".join(
            f"{q} Q0 {c} {rank} {score} bm25\n"
            for q, listed in run.items()
            for rank, (c, score) in enumerate(listed, 1)
        )
    )
    assert main(["eval", str(gold), str(run_file), "-m", *METRICS, "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)

    items = [
        R.GoldItem(
            q.query_id,
            q.query,
            category=q.category,
            judgments=tuple(R.GoldJudgment(j.chunk_id, j.grade) for j in q.judgments),
        )
        for q in sorted(queries, key=lambda q: q.query_id)  # the file's order
    ]
    rows = {
        q: R.ResultRow(q, tuple(c for c, _ in listed), tuple(s for _, s in listed))
        for q, listed in run.items()
    }
    app = R.build_report(items, rows, R.RunSettings(ks=(5, 10), bootstrap_samples=1000, seed=0))

    shared_settings = set(cli["settings"]) & set(app["settings"])
    assert {"relevance_threshold", "gain", "pass_threshold", "order", "means_over"} <= (
        shared_settings
    )
    for key in shared_settings:
        assert cli["settings"][key] == app["settings"][key], key
    for metric in METRICS:
        assert cli["aggregate"][metric] == app["aggregate"][metric], metric
    with_relevant = sum(1 for q in queries if any(j.grade >= 2 for j in q.judgments))
    assert cli["aggregate"]["recall@5"]["n"] == with_relevant < len(queries)
    assert cli["excluded"]["no_relevant_chunk"] == app["excluded"]["no_relevant"] != []
    assert set(cli["categories"]) == set(app["by_category"]) == {"billing", "login"}
    for category, figures in app["by_category"].items():
        shared = set(figures) & set(cli["categories"][category])
        assert {"recall@10", "ndcg@10", "mrr@10", "pass@10"} <= shared
        for metric in shared:
            assert cli["categories"][category][metric] == figures[metric], (category, metric)
