"""Intent clustering of Chinese queries uses the project's tokenizer: queries about one thing
share a cluster whatever interrogative they use, and clusters are named by Chinese words."""

from __future__ import annotations

import pytest

from goldsmith.intake.sampling import cluster_queries

QUERIES = ["怎么退款", "如何退款", "退款要多久", "快递到哪里了", "快递什么时候到", "快递单号查询",
           "发票怎么开", "开发票", "电子发票下载"]  # fmt: skip


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
def test_queries_about_one_thing_share_a_cluster(tokenizer):
    labels, names = cluster_queries(QUERIES, k=3, seed=0, tokenizer=tokenizer)
    refunds, deliveries, invoices = labels[0:3], labels[3:6], labels[6:9]
    assert len(set(refunds)) == len(set(deliveries)) == len(set(invoices)) == 1
    assert len({refunds[0], deliveries[0], invoices[0]}) == 3
    assert "退款" in names[refunds[0]] and "快递" in names[deliveries[0]]
    assert "发票" in names[invoices[0]]
    assert not any("怎么" in name for name in names)


def test_the_default_tokenizer_sees_each_chinese_query_as_one_word():
    labels, names = cluster_queries(QUERIES, k=3, seed=0)
    assert len(labels) == len(QUERIES)
    assert any(name in QUERIES for n in names for name in n.split(", "))


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
def test_a_cluster_is_named_by_words_never_by_bigram_fragments(tokenizer):
    queries = ["退款多久到账", "退款多久能到账", "退款什么时候到账", "查物流信息", "物流信息怎么查",
               "身份证怎么绑定", "绑定身份证失败", "积分怎么兑换", "积分兑换礼品"]  # fmt: skip
    _, names = cluster_queries(queries, k=4, seed=1, tokenizer=tokenizer)
    words = {w for name in names for w in name.split(", ")}
    assert {"退款", "物流"} <= words
    for fragment in ("款多", "查物", "份证", "久到", "分兑"):
        assert fragment not in words, names


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
def test_a_cluster_is_named_by_what_it_asks_about_not_by_how_it_asks(tokenizer):
    # Model numbers and asking or hedging words recur in every query of a cluster, but name no
    # topic: "airbuds, 2, 耳机" and "meet, 可以, 视频会议" were the demo's names.
    queries = ["AirBuds Pro 2 耳机连不上", "AirBuds Pro 2 耳机多少钱", "AirBuds Pro 2 耳机能退吗",
               "视频会议 Meet 可以录屏吗", "视频会议 Meet 可以多少人", "视频会议 Meet 套餐价格",
               "发票多久能开", "发票可以重开吗", "电子发票多久到"]  # fmt: skip
    _, names = cluster_queries(queries, k=3, seed=0, tokenizer=tokenizer)
    words = {w for name in names for w in name.split(", ")}
    assert {"耳机", "视频会议", "发票"} <= words, names
    for asking in ("2", "可以", "多少", "多久", "能"):
        assert asking not in words, names
