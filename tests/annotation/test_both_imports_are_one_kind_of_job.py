"""A corpus import and a query-log import are one kind of job (`annotation.models.ImportJob`):
the same fields for the file, its progress and its end, defined once, so that the import
service, the watchdog and the progress pages treat both alike. Sharing them changed no table:
the migrations still describe the models exactly."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import CorpusImport, ImportJob, ImportStatus, QueryLog

SHARED = [f.name for f in ImportJob._meta.get_fields()]


def test_both_kinds_have_every_shared_field_as_defined_once():
    assert {"status", "phase", "heartbeat_at", "bytes_read", "error", "upload_path"} <= set(SHARED)
    for model in (CorpusImport, QueryLog):
        for name in SHARED:
            here = model._meta.get_field(name).deconstruct()[1:]
            assert here == ImportJob._meta.get_field(name).deconstruct()[1:], (model, name)
        assert model._meta.ordering == ["-created_at", "-id"]


@pytest.mark.django_db
def test_sharing_the_fields_changed_no_table():
    out = StringIO()
    call_command("makemigrations", "annotation", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.parametrize("model", [CorpusImport, QueryLog])
def test_progress_is_read_the_same_way(model):
    job = model(filename="f.jsonl", bytes_total=200, bytes_read=50)
    assert job.progress == 0.25 and str(job) == "f.jsonl (queued)"
    job.status = ImportStatus.DONE
    assert job.progress == 1.0
