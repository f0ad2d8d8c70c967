"""Span matching on a Chinese corpus: a golden set graded on one chunking finds its chunks in a
corpus cut again at another size, because chunk spans are character offsets into the document
(chunking at 。！？； keeps them exact) and span matching compares those, whatever the tokenizer."""

from __future__ import annotations

from goldsmith import metrics
from goldsmith.intake.chunking import chunk_text
from goldsmith.reporting import ChunkPlace, GoldItem, GoldJudgment, ResultRow, match
from goldsmith.retrievers.builtin import build_retriever

DOCUMENT = (
    "退款说明：仓库收到退回的商品并检测无误后发起退款，3 个工作日内退回原支付账户。"
    "分期付款的订单会同时取消剩余分期！使用优惠券的订单，优惠券在退款后返还到账户；"
    "iPhone15 的保修期为一年，保修范围包括电池和屏幕的非人为损坏。"
    "进水、摔落等人为损坏不在免费保修范围内，可以付费维修？申请保修时请提供订单号和序列号（SN）。"
)


def test_a_chinese_golden_set_finds_its_answers_after_rechunking():
    old = chunk_text(DOCUMENT, max_chars=80, overlap=0)
    new = chunk_text(DOCUMENT, max_chars=55, overlap=10)
    assert [s.text for s in old] != [s.text for s in new]
    for span in (*old, *new):
        assert DOCUMENT[span.start : span.end] == span.text
    # graded on the old chunking: the chunk about the iPhone15's warranty is the answer
    answer = next(i for i, s in enumerate(old) if "iPhone15" in s.text)
    item = GoldItem(
        "q1",
        "iPhone15 保修多久",
        judgments=(GoldJudgment(f"old{answer}", 2, "doc", old[answer].start, old[answer].end),),
    )
    # a retriever over the new chunking, with the project's tokenizer
    corpus = [(f"new{i}", s.text) for i, s in enumerate(new)]
    hits = build_retriever("bm25", corpus, tokenizer="zh-bigrams").search([item.text], 3)[0]
    places = {f"new{i}": ChunkPlace("doc", s.start, s.end) for i, s in enumerate(new)}
    row = ResultRow("q1", tuple(h.id for h in hits))
    judgments, ranking = match([item], {"q1": row}, "span", places)
    result = metrics.evaluate(judgments, ranking, ["recall@3", "ndcg@3"])
    assert result.per_query()["q1"]["recall@3"] == 1.0
    assert ranking["q1"][0] == f"old{answer}"  # the best hit overlaps the graded chunk
    chunk_only, _ = match([item], {"q1": row}, "chunk", places)
    assert (
        metrics.evaluate(chunk_only, {"q1": [h.id for h in hits]}, ["recall@3"]).per_query()["q1"][
            "recall@3"
        ]
        == 0.0
    )  # by chunk id nothing matches: the ids changed
