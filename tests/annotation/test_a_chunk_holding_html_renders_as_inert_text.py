"""A chunk's text is data: HTML and script in it are shown, never run."""

from __future__ import annotations

import hashlib

from django.test import Client

from annotation.models import Chunk, Document
from tests.annotation.factories import make_query, pool
from tests.conftest import PASSWORD

EVIL = '<script>alert("pwned")</script><img src=x onerror="alert(1)"> python <b>bold</b>'


def test_a_chunk_holding_html_and_script_renders_as_inert_text(personas):
    project = personas.project
    doc = Document.objects.create(project=project, doc_id="evil", title="<i>Title</i> & co")
    chunk = Chunk.objects.create(
        project=project,
        document=doc,
        chunk_id="evil#0",
        text=EVIL,
        text_sha256=hashlib.sha256(EVIL.encode()).hexdigest(),
    )
    query = make_query(project, "python")
    pool(query, [chunk])
    from annotation.services.assignment import queries_assign

    queries_assign(project=project)
    for user in ("bob", "alice"):
        client = Client()
        assert client.login(username=user, password=PASSWORD)
        url = (
            f"/projects/{project.pk}/annotate/{query.pk}/"
            if user == "bob"
            else f"/projects/{project.pk}/review/{query.pk}/"
        )
        html = client.get(url).content.decode()
        assert "<script>alert" not in html
        assert "<img src=x" not in html
        assert "<b>bold</b>" not in html
        assert "<i>Title</i>" not in html
        assert "&lt;script&gt;" in html
        assert "&lt;img src=x onerror=" in html
        # query terms are still highlighted, inside the escaped text
        assert "<mark>python</mark>" in html
