"""A Chinese file saved in GBK (as Excel and older Windows programs save it) is refused with its
line and a sentence that says what it looks like and how to convert it; bytes that are not UTF-8
for another reason keep the byte and column."""

from __future__ import annotations

import io

import pytest

from goldsmith.intake.readers import ReadError, read_corpus, read_querylog

GBK_LOG = "query,category\n退款多久到账,售后\n忘记密码怎么办,账户\n".encode("gbk")


def test_a_gbk_query_log_says_gbk_and_how_to_convert_it():
    with pytest.raises(ReadError) as raised:
        list(read_querylog(io.BytesIO(GBK_LOG), "日志.csv"))
    message = str(raised.value)
    assert message.startswith("日志.csv:2: not valid UTF-8: it looks like Chinese in GBK")
    assert "iconv -f GB18030 -t UTF-8" in message
    assert raised.value.reason.template.startswith("not valid UTF-8: it looks like Chinese")


def test_a_gbk_corpus_says_gbk():
    corpus = '{"chunk_id": "c1", "doc_id": "d1", "text": "退款七天到账"}\n'.encode("gbk")
    with pytest.raises(ReadError, match=r"^faq\.jsonl:1: not valid UTF-8: it looks like Chinese"):
        list(read_corpus(io.BytesIO(corpus), "faq.jsonl"))


def test_latin_1_is_not_taken_for_gbk():
    text = "query\ncafé, où est la gare\n".encode("latin-1")
    with pytest.raises(ReadError, match=r"^q\.csv:2: not valid UTF-8 \(byte 0xe9 at column 4\)$"):
        list(read_querylog(io.BytesIO(text), "q.csv"))
