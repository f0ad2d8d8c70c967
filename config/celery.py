"""Celery wiring, the standard way: settings come from Django's, prefixed CELERY_.

Tasks use Celery's DjangoTask, so services queue work with `task.delay_on_commit(...)`: a job
is only sent once the transaction that created its rows has committed.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("goldsmith", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
