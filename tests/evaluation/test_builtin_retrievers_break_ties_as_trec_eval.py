"""Built-in BM25 and TF-IDF break ties in score as trec_eval does: score descending, then
document id descending (bytewise on UTF-8, like strcmp), inside the list and at the cut at k.
So the order they return is the order trec_eval gives the same scores, and pools agree."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from goldsmith.retrievers.builtin import build_retriever

pytrec_eval = pytest.importorskip("pytrec_eval")

SAME = "walrus tusks in arctic water"


def trec_order(hits):
    return sorted(hits, key=lambda h: (-h.score, tuple(-b for b in h.id.encode("utf-8"))))


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_equal_scores_come_in_descending_id_order(name):
    ids = ["a", "b", "B", "é", "z", "10", "9", "文档", "ab"]
    retriever = build_retriever(name, [(i, SAME) for i in ids] + [("other", "dogs bark")])
    [hits] = retriever.search(["walrus"], k=20)
    assert len({h.score for h in hits}) == 1
    # "文档" (E6 96 87 ...) > "é" (C3 A9) > "z" > "b" > "ab" > "a" > "B" > "9" > "10"
    assert [h.id for h in hits] == ["文档", "é", "z", "b", "ab", "a", "B", "9", "10"]


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_the_cut_at_k_inside_a_tie_keeps_the_largest_ids(name):
    corpus = [("m", "walrus walrus walrus tusks")] + [(f"d{i}", SAME) for i in range(12)]
    retriever = build_retriever(name, corpus)
    [top4] = retriever.search(["walrus"], k=4)
    # "m" scores highest; then the tie among d0..d11 is cut after three: d9, d8, d7.
    assert [h.id for h in top4] == ["m", "d9", "d8", "d7"]
    [everything] = retriever.search(["walrus"], k=100)
    assert [h.id for h in everything][:4] == [h.id for h in top4]


ids = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=12,
)
words = st.sampled_from(["walrus", "tusk", "arctic", "water", "seal", "ice"])
texts = st.lists(words, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["bm25", "tfidf"]),
    corpus=st.lists(st.tuples(ids, texts), min_size=1, max_size=25, unique_by=lambda r: r[0]),
    query=texts,
    k=st.integers(min_value=1, max_value=30),
    judged=st.data(),
)
def test_any_list_is_in_trec_eval_order_and_scores_as_trec_eval(name, corpus, query, k, judged):
    retriever = build_retriever(name, corpus)
    [hits] = retriever.search([query], k)
    [full] = retriever.search([query], len(corpus))
    assert hits == trec_order(hits)  # ties by id, descending
    assert hits == full[:k]  # the cut at k follows the same rule
    if not hits:
        return
    doc_ids = [i for i, _ in corpus]
    grades = judged.draw(st.dictionaries(st.sampled_from(doc_ids), st.integers(0, 2), min_size=1))
    ours = M.evaluate(
        {"q": grades},
        {"q": [h.id for h in hits]},  # the returned order, as a run report keeps it
        ["ndcg@5", "ndcg@10", "precision@5", "recall@10", "map@10"],
        M.EvalSettings(relevance_threshold=1, no_relevant="zero"),
    ).per_query()["q"]
    theirs = pytrec_eval.RelevanceEvaluator(
        {"q": grades}, {"ndcg_cut", "P", "recall", "map_cut"}, relevance_level=1
    ).evaluate({"q": {h.id: h.score for h in hits}})["q"]
    for ours_name, trec_name in [
        ("ndcg@5", "ndcg_cut_5"),
        ("ndcg@10", "ndcg_cut_10"),
        ("precision@5", "P_5"),
        ("recall@10", "recall_10"),
        ("map@10", "map_cut_10"),
    ]:
        assert ours[ours_name] == pytest.approx(theirs[trec_name], abs=1e-9), ours_name


def test_a_pool_of_a_builtin_retriever_breaks_ties_by_chunk_id(personas):
    import hashlib

    from annotation.models import Candidate, CandidateSource, Chunk, Document, Query
    from annotation.services.pooling import pool_build_builtin

    project = personas.project
    doc = Document.objects.create(project=project, doc_id="seals")
    # Created in an order unlike the ids' own, so that corpus order cannot pass for the rule.
    for n, chunk_id in enumerate(["c-2", "c-10", "c-7", "c-1", "c-9", "c-3"]):
        Chunk.objects.create(
            project=project,
            document=doc,
            chunk_id=chunk_id,
            text=SAME,
            position=n,
            text_sha256=hashlib.sha256(SAME.encode()).hexdigest(),
        )
    query = Query.objects.create(project=project, text="walrus", normalized="walrus")
    pool_build_builtin(project=project, kind="bm25", k=3)
    ranked = (
        CandidateSource.objects.filter(candidate__query=query)
        .order_by("rank")
        .values_list("candidate__chunk__chunk_id", "rank")
    )
    assert list(ranked) == [("c-9", 1), ("c-7", 2), ("c-3", 3)]
    assert Candidate.objects.filter(query=query).count() == 3
