from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from kombu import Connection

logger = logging.getLogger(__name__)


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        logger.warning("healthz: database is down", exc_info=True)
        return False


def _broker_ok() -> bool:
    try:
        with Connection(
            settings.CELERY_BROKER_URL,
            transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS,
            connect_timeout=2,
        ) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)
            # Open a channel too: a TCP accept alone does not prove a working broker.
            conn.default_channel  # noqa: B018
        return True
    except Exception:
        # The URL may carry a password: log the failure, never the URL.
        logger.warning("healthz: broker is down")
        return False


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """`{"database": "ok", "broker": "ok"}` with 200, or names what is down with 503."""
    status = {
        "database": "ok" if _database_ok() else "down",
        "broker": "ok" if _broker_ok() else "down",
    }
    healthy = all(value == "ok" for value in status.values())
    return JsonResponse(status, status=200 if healthy else 503)
