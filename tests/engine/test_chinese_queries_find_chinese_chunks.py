"""Built-in BM25 and TF-IDF with a Chinese tokenizer: Chinese queries find Chinese chunks
(the default tokenizer finds none, a Chinese sentence being one token to it), mixed
Chinese–English queries find their product names, and ties still break as trec_eval does."""

from __future__ import annotations

import pytest

from goldsmith.retrievers.builtin import build_retriever

CORPUS = [
    ("c1", "退款政策：收到商品后七天内可以申请退款，退款期限为七天。"),
    ("c2", "退货流程：在订单页面点击“申请退货”，快递员会上门取件。"),
    ("c3", "發票說明：電子發票會在訂單完成後發送到您的郵箱。"),  # traditional characters
    ("c4", "iPhone 15 的保修期为一年，AirPods Pro 的保修期也是一年。"),
    ("c5", "会员积分可以在下单时抵扣现金，100积分抵扣1元。"),
    ("c6", "How to reset your password: open Settings and choose Reset."),
]
QUERIES = {
    "怎么申请退款": "c1",
    "如何退货？": "c2",
    "电子发票什么时候发送": "c3",
    "iPhone 15 保修多久": "c4",
    "积分怎么抵扣": "c5",
    "reset password": "c6",
}


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_every_chinese_query_finds_its_chunk_first(name, tokenizer):
    retriever = build_retriever(name, CORPUS, tokenizer=tokenizer)
    results = retriever.search(list(QUERIES), k=3)
    for (query, expected), hits in zip(QUERIES.items(), results, strict=True):
        assert hits, query
        assert hits[0].id == expected, (query, hits)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_the_default_tokenizer_finds_no_chinese_chunk(name):
    retriever = build_retriever(name, CORPUS)
    chinese = [q for q in QUERIES if not any(ch.isascii() and ch.isalnum() for ch in q)]
    assert len(chinese) == 4
    assert retriever.search(chinese, k=3) == [[] for _ in chinese]
    # Only through its English words: "iphone" and "15".
    assert retriever.search(["iPhone 15 保修多久"], k=1)[0][0].id == "c4"
    assert retriever.search(["reset password"], k=1)[0][0].id == "c6"


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_equal_scores_rank_the_larger_id_first_as_trec_eval_does(name, tokenizer):
    corpus = [(doc_id, "退款期限是七天") for doc_id in ("a", "c", "b", "doc10", "doc9")]
    [hits] = build_retriever(name, corpus, tokenizer=tokenizer).search(["退款期限"], k=3)
    assert [h.id for h in hits] == ["doc9", "doc10", "c"]
    assert len({h.score for h in hits}) == 1


@pytest.mark.parametrize("tokenizer", ["default", "zh-words", "zh-bigrams"])
def test_a_corpus_of_stop_words_only_matches_nothing(tokenizer):
    for name in ("bm25", "tfidf"):
        retriever = build_retriever(name, [("a", "的了吗"), ("b", "the of")], tokenizer=tokenizer)
        assert retriever.search(["的", "退款"], k=3) == [[], []]


def test_an_unknown_tokenizer_is_refused():
    with pytest.raises(ValueError, match="unknown tokenizer"):
        build_retriever("bm25", CORPUS, tokenizer="zh")
