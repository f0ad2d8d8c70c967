from __future__ import annotations

import pytest
from django.test import override_settings


@pytest.mark.django_db
def test_it_reports_database_and_broker_ok_without_login(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0", CELERY_BROKER_TRANSPORT_OPTIONS={})
def test_it_reports_a_stopped_broker_as_down(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"database": "ok", "broker": "down"}


@pytest.mark.django_db
def test_it_never_puts_the_broker_url_in_the_response(client, settings):
    settings.CELERY_BROKER_URL = "redis://:s3cret-password@127.0.0.1:1/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    response = client.get("/healthz")
    assert response.status_code == 503
    assert b"s3cret" not in response.content
