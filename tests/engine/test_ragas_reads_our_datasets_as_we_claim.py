"""RAGAS (the real package, dev extra) reads our RAGAS export with its own loaders, and its
ID-based context recall (a metric without a language model) equals our context recall on the
cases where the two definitions agree: every key fact linked to one chunk of its own
(docs/formats.md, "RAGAS dataset"). Where the definitions differ, the difference is the one the
docs state. Importing RAGAS here reaches no network."""

from __future__ import annotations

import socket
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.answers.scoring import AnswerSettings, context_recall
from goldsmith.formats.ragas import ragas_jsonl_lines, ragas_rows


@pytest.fixture(scope="module")
def ragas(tmp_path_factory):
    """The ragas package, imported with every outgoing connection refused and counted."""
    mp = pytest.MonkeyPatch()
    home = tmp_path_factory.mktemp("hf")
    for name, value in (
        ("RAGAS_DO_NOT_TRACK", "true"),
        ("HF_DATASETS_OFFLINE", "1"),
        ("HF_HUB_OFFLINE", "1"),
        ("HF_HOME", str(home / "home")),
    ):
        mp.setenv(name, value)
    attempts: list[object] = []

    def refuse(self, address):
        attempts.append(address)
        raise OSError(f"no network in this test: {address!r}")

    mp.setattr(socket.socket, "connect", refuse)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its deprecation notices for the legacy names
            module = pytest.importorskip("ragas", reason="the ragas package (dev extra) is absent")
            from ragas.metrics import IDBasedContextRecall
        assert attempts == [], f"importing ragas tried the network: {attempts}"
        yield module, IDBasedContextRecall(), str(home / "cache")
    finally:
        mp.undo()


def _samples(rows, tmp_path):
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(ragas_jsonl_lines(rows)), encoding="utf-8")
    return path


KEY = AnswerKey(
    "q1",
    reference_answer="-10 °C",
    query="How cold does it get?",
    facts=(KeyFact("the low is -10 °C", ("c1",)), KeyFact("in January", ("c2",))),
)
CHUNKS = {"q1": [("c1", "Lows reach -10 °C.", 2), ("c2", None, 2), ("c3", "=SUM(A1)", 0)]}
RUN = [StagedQuery("q1", contexts=(Context("c1", "Lows reach -10 °C."), Context("c3", "=SUM(A1)")))]


def test_the_export_loads_with_ragas_own_loaders_as_written(ragas, tmp_path):
    module, _, cache = ragas
    rows = ragas_rows([KEY], CHUNKS, RUN, k=5)
    path = _samples(rows, tmp_path)
    import datasets

    for dataset in (
        module.EvaluationDataset.from_jsonl(str(path)),
        module.EvaluationDataset.from_hf_dataset(
            datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=cache)
        ),
    ):
        (sample,) = dataset.samples
        assert sample.user_input == "How cold does it get?"
        assert sample.reference == "-10 °C"  # no spreadsheet apostrophe
        assert sample.reference_context_ids == ["c1", "c2"]  # c2 has no text: its id stays
        assert sample.reference_contexts == ["Lows reach -10 °C."]
        assert sample.retrieved_context_ids == ["c1", "c3"]
        assert sample.retrieved_contexts == ["Lows reach -10 °C.", "=SUM(A1)"]


def _theirs(metric, module, row) -> float:
    sample = module.SingleTurnSample(
        user_input=row.user_input,
        retrieved_context_ids=list(row.retrieved_context_ids),
        reference_context_ids=list(row.reference_context_ids),
    )
    return float(metric.single_turn_score(sample))


def test_a_chunk_without_text_counts_in_ragas_recall_as_in_ours(ragas):
    module, metric, _ = ragas
    (row,) = ragas_rows([KEY], CHUNKS, RUN, k=5)
    ours, _, _ = context_recall(KEY, RUN[0], 5, AnswerSettings())
    assert ours == 0.5 and _theirs(metric, module, row) == 0.5


@st.composite
def agreeing_cases(draw):
    """Queries whose facts each link one chunk of their own; runs retrieving any chunks."""
    pool = [f"c{i}" for i in range(8)]
    keys, chunks, run = [], {}, []
    for n in range(draw(st.integers(1, 4))):
        linked = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
        qid = f"q{n}"
        keys.append(
            AnswerKey(
                qid, query=f"question {n}", facts=tuple(KeyFact(f"f {c}", (c,)) for c in linked)
            )
        )
        chunks[qid] = [(c, draw(st.none() | st.just(f"text {c}")), 2) for c in linked]
        got = draw(st.lists(st.sampled_from(pool), max_size=7))
        run.append(StagedQuery(qid, contexts=tuple(Context(c, f"text {c}") for c in got)))
    return keys, chunks, run, draw(st.integers(1, 6))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(agreeing_cases())
def test_ragas_id_based_context_recall_equals_ours_where_the_definitions_agree(ragas, case):
    module, metric, _ = ragas
    keys, chunks, run, k = case
    rows = ragas_rows(keys, chunks, run, k=k)
    for key, staged, row in zip(keys, run, rows, strict=True):
        ours, _, _ = context_recall(key, staged, k, AnswerSettings())
        assert _theirs(metric, module, row) == pytest.approx(ours), key.query_id


def test_a_fact_backed_by_two_chunks_is_where_the_definitions_differ(ragas):
    # docs/formats.md's example: one fact, supported by c1 or c2; the run retrieved c1.
    module, metric, _ = ragas
    key = AnswerKey("q", query="q?", facts=(KeyFact("the refund period is 7 days", ("c1", "c2")),))
    staged = StagedQuery("q", contexts=(Context("c1", "7 days"),))
    (row,) = ragas_rows([key], {"q": [("c1", "7 days", 2), ("c2", "a week", 2)]}, [staged])
    ours, _, _ = context_recall(key, staged, 5, AnswerSettings())
    assert ours == 1.0  # the fact is found: one of its chunks is there
    assert _theirs(metric, module, row) == 0.5  # RAGAS counts chunks: c2 was not retrieved
