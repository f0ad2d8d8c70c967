"""An annotator who links a key fact to a chunk and then grades that chunk not relevant sees the
link go, in words; the draft is saved without it, and later edits of the answer still save
(before, the server refused every later save of such a draft, and the outbox dropped them)."""

from __future__ import annotations

import pytest

from annotation.models import AnswerDraft
from tests.annotation.factories import judging_setup

pytestmark = pytest.mark.e2e


def test_regrading_a_linked_chunk_to_0_unlinks_it_and_the_draft_keeps_saving(
    personas, live_server, sign_in
):
    setup = judging_setup(personas, per_query=3)
    query, _ = setup.first()
    project = personas.project
    project.annotators_write_answers = True
    project.save(update_fields=["annotators_write_answers"])

    bob = sign_in("bob")
    bob.goto(f"{live_server.url}/projects/{project.pk}/annotate/{query.pk}/")
    cards = bob.locator(".candidate")
    for key in ("2", "2", "0"):
        bob.keyboard.press(key)
    bob.get_by_text("All changes saved").wait_for()
    chunk = [cards.nth(i).get_attribute("data-chunk-id") for i in range(3)]

    bob.keyboard.press("f")
    bob.keyboard.type("the installer comes from python.org")
    bob.keyboard.press("Escape")
    bob.keyboard.press("k")
    bob.keyboard.press("k")  # on the first chunk
    bob.keyboard.press("l")  # linked to fact 1
    bob.get_by_text("Answer and facts saved").wait_for()
    assert cards.nth(0).locator(".fact-marks").inner_text() == "fact 1"

    bob.keyboard.press("0")  # the first chunk, now not relevant
    bob.get_by_text("no key fact is linked to it").wait_for()
    assert cards.nth(0).locator(".fact-marks").inner_text() == ""
    bob.keyboard.press("a")
    bob.keyboard.type("From python.org")
    bob.keyboard.press("Escape")

    def saved() -> AnswerDraft | None:
        draft = AnswerDraft.objects.filter(query=query, annotator=personas.bob).first()
        return draft if draft and draft.reference_answer == "From python.org" else None

    for _ in range(50):
        if saved():
            break
        bob.wait_for_timeout(200)
    draft = saved()
    assert draft is not None, "the answer written after the regrade was saved"
    assert draft.reference_facts == [
        {"text": "the installer comes from python.org", "chunk_ids": []}
    ]
    assert chunk[0] not in str(draft.reference_facts)
