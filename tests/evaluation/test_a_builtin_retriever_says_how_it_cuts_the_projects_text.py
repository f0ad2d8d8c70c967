"""A built-in retriever's page says what its index does with the project's text: English stop
words for a project cut into words between spaces, Chinese words or character pairs (and what
is left out) for a Chinese project, never "English stop words" there (issue 23)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.services.projects import project_tokenizer_set
from evaluation.models import Retriever


@pytest.mark.parametrize(
    ("tokenizer", "said", "not_said"),
    [
        ("default", "English stop words left out", "Chinese"),
        ("zh-words", "Chinese words (jieba)", "English stop words"),
        ("zh-bigrams", "overlapping pairs of Chinese characters", "English stop words"),
    ],
)
def test_the_builtin_bm25_page_describes_the_projects_tokenizer(
    personas, client, tokenizer, said, not_said
):
    project = personas.project
    if tokenizer != "default":
        project_tokenizer_set(project=project, tokenizer=tokenizer)
    retriever = Retriever.objects.create(project=project, name="bm25", kind="bm25")
    client.force_login(personas.victor)
    page = client.get(reverse("retriever-detail", args=[project.pk, retriever.pk]))
    assert page.status_code == 200
    words = page.content.decode().split('id="builtin-words">')[1].split("</p>")[0]
    assert said in words and not_said not in words
