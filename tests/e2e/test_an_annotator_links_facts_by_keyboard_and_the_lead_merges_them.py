"""Reference answers and key facts built by people (issue 13), in a browser: the lead turns
the step on; an annotator grades, writes a reference answer and links two key facts to chunks
by keyboard; the other annotator's draft comes through the API; the lead sees both side by side
with their fact agreement, merges them, approves and freezes; the version's native JSONL export
carries the answer key and re-imports byte-identically."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.models import AnswerDraft, GoldenSetVersion, Query
from annotation.services.projects import project_setup
from tests.annotation.factories import grade_all, judging_setup

pytestmark = pytest.mark.e2e

ANSWER = "Download the installer from python.org and run it"


def test_an_annotator_links_two_facts_by_keyboard_and_the_lead_merges_and_freezes(
    personas, live_server, sign_in, api_client_for, tmp_path
):
    setup = judging_setup(personas, per_query=3)
    query, _ = setup.first()
    project = personas.project
    base = f"{live_server.url}/projects/{project.pk}"

    # The lead switches the step on from the dashboard.
    lead = sign_in("alice")
    lead.goto(f"{base}/dashboard/")
    lead.select_option("#answers-form select", "1")
    lead.click("#answers-form button[type=submit]")
    lead.get_by_text("Annotators now write reference answers").wait_for()

    # bob grades by keyboard, then writes the answer and two facts, each linked by a key press.
    bob = sign_in("bob")
    bob.goto(f"{base}/annotate/{query.pk}/")
    cards = bob.locator(".candidate")
    for key in ("2", "2", "0"):
        bob.keyboard.press(key)
    bob.get_by_text("All changes saved").wait_for()
    chunk = [cards.nth(i).get_attribute("data-chunk-id") for i in range(3)]

    bob.keyboard.press("a")  # to the reference answer
    bob.keyboard.type(ANSWER)
    bob.keyboard.press("Escape")
    bob.keyboard.press("f")  # a new fact, its words, then back to the chunks
    bob.keyboard.type("the installer comes from python.org")
    bob.keyboard.press("Escape")
    bob.keyboard.press("k")
    bob.keyboard.press("k")  # on the first chunk
    bob.keyboard.press("l")  # linked to fact 1
    bob.keyboard.press("f")
    bob.keyboard.type("pip adds packages")
    bob.keyboard.press("Escape")
    bob.keyboard.press("j")  # the second chunk
    bob.keyboard.press("l")  # linked to fact 2
    bob.keyboard.press("j")
    bob.keyboard.press("l")  # graded 0: refused, said in words
    bob.get_by_text("Grade this chunk relevant or partly relevant").wait_for()
    bob.get_by_text("Answer and facts saved").wait_for()
    facts = bob.locator("#draft-facts .fact")
    assert facts.count() == 2
    assert facts.nth(0).locator(".fact-links").inner_text() == "chunk 1"
    assert facts.nth(1).locator(".fact-links").inner_text() == "chunk 2"
    assert cards.nth(1).locator(".fact-marks").inner_text() == "fact 2"
    bob.keyboard.press("?")
    assert bob.locator("#help-dialog").get_by_text("Link the chunk you are on").is_visible()
    bob.keyboard.press("Escape")

    draft = AnswerDraft.objects.get(query=query, annotator=personas.bob)
    assert draft.reference_answer == ANSWER
    assert draft.reference_facts == [
        {"text": "the installer comes from python.org", "chunk_ids": [chunk[0]]},
        {"text": "pip adds packages", "chunk_ids": [chunk[1]]},
    ]
    bob.reload()  # the draft comes back as saved
    assert bob.locator("#draft-answer").input_value() == ANSWER
    assert bob.locator("#draft-facts .fact").nth(1).locator(".fact-links").inner_text() == "chunk 2"

    # carol grades the same and writes her draft: one fact on the same chunk, one not.
    carol = api_client_for(personas.carol)
    # By chunk, as bob graded them: bob's page shows the order most likely relevant first,
    # which need not be the pool's plain order (ties break by the candidates' ids).
    by_chunk = {c.chunk.chunk_id: c for c in query.candidates.select_related("chunk")}
    grade_all(carol, project, [by_chunk[c] for c in chunk], [2, 2, 0])
    carol_draft = {
        "reference_answer": "From python.org",
        "answer_type": "open",
        "reference_facts": [
            {"text": "python.org has the installer", "chunk_ids": [chunk[0]]},
            {"text": "pip and the installer", "chunk_ids": [chunk[0], chunk[1]]},
        ],
    }
    url = f"/api/v1/projects/{project.pk}/queries/{query.pk}/answer-draft/"
    assert carol.put(url, carol_draft, format="json").status_code == 200

    # The lead sees both side by side, merges: bob's answer, edited; a fact from each.
    lead.goto(f"{base}/review/{query.pk}/")
    merge = lead.locator("#answer-merge")
    assert merge.locator(".answer-of").count() == 2
    assert "0.33" in merge.locator("#fact-agreement").inner_text()  # 1 of 3 facts
    bob_col = merge.locator(".answer-of[data-annotator=bob]")
    carol_col = merge.locator(".answer-of[data-annotator=carol]")
    bob_col.get_by_role("button", name="Use this answer").click()
    assert lead.locator("#merge-answer").input_value() == ANSWER
    lead.fill("#merge-answer", ANSWER + ".")
    lead.select_option("#merge-type", "open")
    bob_col.locator(".take-fact").nth(0).click()
    carol_col.locator(".take-fact").nth(1).click()
    lead.click("#save-answer-key")
    lead.get_by_text(f"Query {query.pk}: answer key saved.").wait_for()
    lead.click("#approve")
    lead.get_by_text(f"Query {query.pk} approved.").wait_for()
    stored = Query.objects.get(pk=query.pk)
    assert stored.reference_answer == ANSWER + "."
    assert stored.reference_facts == [
        {"text": "the installer comes from python.org", "chunk_ids": [chunk[0]]},
        {"text": "pip and the installer", "chunk_ids": [chunk[0], chunk[1]]},
    ]

    # The lead freezes; the version's native export carries the key and re-imports as it was.
    lead.goto(f"{base}/goldsets/")
    lead.fill("input[name=label]", "v1")
    lead.click("text=Freeze approved queries")
    lead.get_by_text("Froze v1").wait_for()
    response = lead.request.get(
        f"{live_server.url}/api/v1/projects/{project.pk}/goldsets/v1/export/jsonl/"
    )
    assert response.ok
    first = tmp_path / "first.jsonl"
    first.write_bytes(response.body())
    line = json.loads(first.read_text().splitlines()[1])
    assert line["reference_answer"] == ANSWER + "." and line["answer_type"] == "open"
    assert line["reference_facts"] == stored.reference_facts
    project_setup(name="Acme Copy", leads=["alice"])
    call_command("import_goldset", "--project", "Acme Copy", "--format", "jsonl", str(first))
    copy = GoldenSetVersion.objects.get(project__name="Acme Copy", label="v1")
    assert copy.content_hash == GoldenSetVersion.objects.get(project=project).content_hash
    second = tmp_path / "second.jsonl"
    call_command(
        "export_goldset", "--project", "Acme Copy", "--version", "v1", "--format", "jsonl",
        "-o", str(second),
    )  # fmt: skip
    assert second.read_bytes() == first.read_bytes()
