"""A run records the live corpus's content hash as a corpus version does
(`goldsmith.corpus.corpus_hash`): a run on an unchanged corpus carries the hash of the corpus
version it ran against, and an update changes both alike."""

from __future__ import annotations

from annotation.models import CorpusVersion
from evaluation.selectors.corpus import corpus_state
from tests.evaluation.stale_corpus import make_stale_ready, update_corpus


def test_a_runs_corpus_hash_is_its_corpus_versions(personas, tmp_path):
    project = personas.project
    make_stale_ready(project, tmp_path)
    live = CorpusVersion.objects.filter(project=project).order_by("-number").first()
    digest, chunks = corpus_state(project=project)
    assert digest == live.content_hash and digest.startswith("sha256:")
    assert chunks == 6
    update_corpus(project, tmp_path)
    after = CorpusVersion.objects.filter(project=project).order_by("-number").first()
    digest, chunks = corpus_state(project=project)
    assert after.number == live.number + 1
    assert digest == after.content_hash != live.content_hash
    assert chunks == 4
