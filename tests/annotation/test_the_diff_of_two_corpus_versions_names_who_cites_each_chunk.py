"""The diff of two corpus versions lists the chunk ids added, changed and retired between them
(net: a chunk retired and brought back unchanged is not listed), each with the frozen versions
and queries citing it; on the page, through the API and with `corpus_versions --diff A B`."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from annotation.models import Chunk
from annotation.selectors.corpus import corpus_version_diff
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.corpus_files import V1, import_corpus, write_corpus
from tests.annotation.goldset_factories import make_query


@pytest.fixture
def three_versions(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    chunk = {c.chunk_id: c for c in Chunk.objects.filter(project=project)}
    refund = make_query(project, "refund time", {chunk["kb-2"]: 2})
    contact = make_query(project, "contact", {chunk["kb-3"]: 2, chunk["kb-1"]: 0})
    golden_set_version_freeze(project=project, by=personas.alice)
    v2 = {**V1, "kb-2": "Refunds take ten working days."}
    del v2["kb-3"]
    import_corpus(project, write_corpus(tmp_path, "v2.jsonl", v2), "--replace")
    import_corpus(
        project, write_corpus(tmp_path, "v3.jsonl", {"kb-3": V1["kb-3"], "kb-5": "Plans renew."})
    )
    return project, str(refund.pk), str(contact.pk)


def test_it_lists_the_net_changes_with_who_cites_them(three_versions):
    project, refund, contact = three_versions
    diff = corpus_version_diff(project=project, old=1, new=2)
    assert [(c.chunk_id, c.kind) for c in diff.chunks] == [("kb-2", "changed"), ("kb-3", "retired")]
    assert [(b.label, b.query_id) for b in diff.chunks[0].cited_by] == [("v1", refund)]
    assert [(b.label, b.query_id) for b in diff.chunks[1].cited_by] == [("v1", contact)]
    across = corpus_version_diff(project=project, old=3, new=1)  # either order
    assert [(c.chunk_id, c.kind) for c in across.chunks] == [("kb-2", "changed"), ("kb-5", "added")]
    assert across.counts == {"added": 1, "changed": 1, "retired": 0}


def test_the_api_and_the_command_give_the_diff(three_versions, personas, api_client_for):
    project, refund, _contact = three_versions
    url = f"/api/v1/projects/{project.pk}/corpus/versions/diff/"
    body = api_client_for(personas.bob).get(url, {"a": 1, "b": 2}).json()
    assert (body["old"], body["new"], body["counts"]) == (
        1,
        2,
        {"added": 0, "changed": 1, "retired": 1},
    )
    assert body["chunks"][0]["cited_by"] == [{"label": "v1", "query_id": refund}]
    assert api_client_for(personas.bob).get(url, {"a": 1, "b": 9}).status_code == 404
    assert api_client_for(personas.bob).get(url, {"a": "x", "b": 2}).status_code == 400

    out = io.StringIO()
    call_command("corpus_versions", project.name, "--diff", "1", "2", stdout=out)
    assert out.getvalue().splitlines() == [
        "corpus version 1 → 2: 0 added, 1 changed, 1 retired",
        f"changed\tkb-2\tcited by v1:{refund}",
        f"retired\tkb-3\tcited by v1:{three_versions[2]}",
    ]
    with pytest.raises(CommandError) as refused:
        call_command("corpus_versions", project.name, "--diff", "1", "7", stdout=io.StringIO())
    assert refused.value.returncode == 2 and "it has: 3, 2, 1" in str(refused.value)


def test_the_page_shows_the_diff_to_members(three_versions, personas):
    project, refund, _contact = three_versions
    client = Client()
    client.force_login(personas.victor)
    page = client.get(f"/projects/{project.pk}/corpus/").content.decode()
    assert 'id="corpus-version-3"' in page and 'id="corpus-diff-form"' in page
    html = client.get(f"/projects/{project.pk}/corpus/versions/diff/?a=1&b=2").content.decode()
    assert "0 added, 1 changed, 1 retired." in html
    assert f"v1</a>: {refund}" in html
    assert client.get(f"/projects/{project.pk}/corpus/versions/diff/?a=1&b=8").status_code == 404
