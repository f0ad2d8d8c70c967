"""A query log uploaded through the API is imported by a real Celery worker process, with its
progress and report in the database."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import QueryLog
from tests.conftest import wait_for


@pytest.mark.slow
def test_a_real_worker_imports_an_upload(personas, api_client_for, celery_worker_process):
    lines = "".join(f"question {i % 40} about call +44 20 7946 {i:04d}\n" for i in range(400))
    client = api_client_for(personas.alice)
    response = client.post(
        f"/api/v1/projects/{personas.project.pk}/querylogs/",
        {"file": SimpleUploadedFile("log.txt", lines.encode())},
        format="multipart",
    )
    assert response.status_code == 202
    log_id = response.json()["id"]
    log = wait_for(
        lambda: QueryLog.objects.filter(pk=log_id, status__in=["done", "failed"]).first(),
        timeout=60,
        message=f"the import to finish; worker log:\n{celery_worker_process.output()[-2000:]}",
    )
    assert log.status == "done", log.error
    assert (log.lines, log.scrubbed) == (400, {"PHONE": 400})
    assert log.distinct == 40
