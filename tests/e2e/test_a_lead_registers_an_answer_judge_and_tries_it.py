"""In Chromium: a lead opens the answer judges page from the project's navigation, is told
which field is wrong when the URL is not a web address, registers the engine's stub judge
(served over real HTTP, with a token) with its model, prompt version, temperature and auth
header, reads it in the list without the secret, makes a test call that shows the stub's
score and reason for the sample answer, and removes it."""

from __future__ import annotations

import pytest

from evaluation.models import AnswerJudge
from goldsmith.answers.judge import AnswerJudgeStub

pytestmark = pytest.mark.e2e
TOKEN = "page-s3cr3t-771"


@pytest.fixture
def stub(settings):
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = True  # the stub listens on 127.0.0.1
    server = AnswerJudgeStub(("127.0.0.1", 0), token=TOKEN).start()
    yield server
    server.stop()


def test_a_lead_registers_tries_and_removes_an_answer_judge(personas, stub, live_server, sign_in):
    lead = sign_in("alice")
    lead.goto(f"{live_server.url}/projects/{personas.project.pk}/")
    lead.click("nav.subnav >> text=Answer judges")
    lead.get_by_text("No answer judge yet.").wait_for()

    form = "#answer-judge-form"
    lead.fill(f"{form} input[name=name]", "sage")
    lead.fill(f"{form} input[name=url]", "ftp://judge.example/")
    lead.click(f"{form} button[type=submit]")
    error = lead.locator(f"{form} .errorlist").first
    assert error.inner_text() == "the URL must start with http:// or https://"
    assert not AnswerJudge.objects.exists()

    lead.fill(f"{form} input[name=url]", stub.url)
    lead.fill(f"{form} input[name=model]", "m-1")
    lead.fill(f"{form} input[name=prompt_version]", "v2")
    lead.fill(f"{form} input[name=temperature]", "0")
    lead.fill(f"{form} input[name=auth_header_name]", "Authorization")
    lead.fill(f"{form} input[name=auth_header_value]", f"Bearer {TOKEN}")
    lead.click(f"{form} button[type=submit]")
    lead.get_by_text("Answer judge sage registered.").wait_for()
    row = lead.locator("#answer-judges tbody tr")
    assert row.count() == 1
    cells = row.locator("td").all_inner_texts()
    assert cells[0] == "sage" and stub.url in cells[1]
    assert cells[2:5] == ["m-1", "v2", "0"]
    assert "Authorization (stored encrypted)" in cells[5]
    assert TOKEN not in lead.content()

    lead.click("#answer-judges button:has-text('Test call')")
    result = lead.locator("#test-call")
    result.wait_for()
    assert "Score 1" in result.locator(".score").inner_text()
    assert result.locator(".reason").inner_text() == "all 2 facts stated"
    assert "The warranty covers manufacturing defects" in result.inner_text()
    assert stub.calls == 1  # the header reached the stub, which refuses requests without it
    assert TOKEN not in lead.content()

    lead.click("#answer-judges button:has-text('Remove')")
    lead.get_by_text("Answer judge sage removed.").wait_for()
    assert not AnswerJudge.objects.exists()
