"""An HTTP retriever's other stages are read from its JSON response by the dotted paths of its
configuration: the first-stage candidates (items as the results'), the contexts (id and text
fields of their own) and the response; a path left empty is not read, a path the response
lacks gives no stage, and a value of the wrong shape fails the query naming the path."""

from __future__ import annotations

import pytest

from goldsmith.retrievers.http import (
    Hit,
    HttpRetrieverConfig,
    PermanentFailure,
    Stages,
    extract_outcome,
)

CONFIG = HttpRetrieverConfig(
    url="http://example.org/search",
    results_path="out.reranked",
    id_field="chunk",
    score_field="s",
    candidates_path="out.first",
    contexts_path="ctx",
    context_id_field="meta.id",
    context_text_field="body",
    response_path="answer.text",
)
PAYLOAD = {
    "out": {
        "first": [{"chunk": "c9", "s": 3}, {"chunk": "c7", "s": "2.5"}],
        "reranked": [{"chunk": "c7", "s": 0.9}],
    },
    "ctx": [{"meta": {"id": "c7"}, "body": "The refund period is 7 days."}],
    "answer": {"text": "7 days"},
}


def test_every_stage_is_read_by_its_path():
    hits, stages = extract_outcome(PAYLOAD, CONFIG)
    assert hits == (Hit("c7", 0.9),)
    assert stages == Stages(
        candidates=(Hit("c9", 3.0), Hit("c7", 2.5)),
        contexts=(("c7", "The refund period is 7 days."),),
        response="7 days",
    )


def test_empty_paths_are_not_read_and_missing_values_give_no_stage():
    plain = HttpRetrieverConfig(url="http://example.org/q={query}", method="GET")
    _, stages = extract_outcome({"results": [{"id": "c1"}], "answer": "x"}, plain)
    assert stages == Stages()
    _, stages = extract_outcome({"out": {"reranked": []}, "answer": None}, CONFIG)
    assert stages == Stages()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"ctx": {"c7": "text"}}, "'ctx' is not a list"),
        ({"ctx": [{"meta": {}, "body": "t"}]}, "context 0 has no usable 'meta.id'"),
        ({"ctx": [{"meta": {"id": "c7"}, "body": 7}]}, "context 0 has no text string at 'body'"),
        ({"answer": {"text": ["7 days"]}}, "'answer.text' is not a string"),
        ({"out": {"first": [{"s": 1}], "reranked": []}}, "candidate 0 has no usable 'chunk'"),
    ],
)
def test_a_stage_of_the_wrong_shape_fails_the_query_naming_its_path(change, words):
    with pytest.raises(PermanentFailure, match=words):
        extract_outcome({**PAYLOAD, **change}, CONFIG)


def test_a_contexts_path_needs_its_fields():
    config = HttpRetrieverConfig(url="http://e.org/", contexts_path="ctx", context_text_field="")
    assert "with a contexts path, the context id and text fields are required" in config.problems()
