"""Retrievers, machine judges and answer judges refuse the same credential headers as plain
headers (they belong in the auth header, stored encrypted), and refuse an auth header value
that holds a line break (it would end the header early and start another on the wire)."""

from __future__ import annotations

import pytest

from annotation.services.machine import JudgeInvalid
from evaluation.credentials import CREDENTIAL_HEADERS
from evaluation.services.answer_judges import AnswerJudgeInvalid, answer_judge_register
from evaluation.services.judges import judge_register
from evaluation.services.retrievers import RetrieverInvalid, retriever_save

URL = "https://judge.example/score"


@pytest.mark.parametrize("header", sorted(CREDENTIAL_HEADERS | {"Proxy-Authorization"}))
def test_every_kind_refuses_a_credential_as_a_plain_header(personas, header):
    project = personas.project
    headers = {header: "secret"}
    with pytest.raises(RetrieverInvalid, match="auth header"):
        retriever_save(
            project=project, name="r", kind="http", config={"url": URL, "headers": headers}
        )
    with pytest.raises(JudgeInvalid, match="auth header"):
        judge_register(
            project=project, name="j", kind="http", config={"url": URL, "headers": headers}
        )
    with pytest.raises(AnswerJudgeInvalid, match="auth header"):
        answer_judge_register(project=project, name="a", url=URL, config={"headers": headers})


@pytest.mark.parametrize("value", ["Bearer a\r\nX-Evil: 1", "Bearer a\nb", "Bearer \0"])
def test_an_auth_value_with_a_line_break_is_refused(personas, value):
    with pytest.raises(RetrieverInvalid, match="one line"):
        retriever_save(
            project=personas.project,
            name="r",
            kind="http",
            config={"url": URL},
            auth_header_name="Authorization",
            auth_header_value=value,
        )
