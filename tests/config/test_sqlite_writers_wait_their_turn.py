"""On SQLite, write transactions queue for the one writer (config/sqlite3/base.py): many at once
all commit, and one that fails lets the next one in at once."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import close_old_connections, connection, transaction

from annotation.models import Project

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("the writer queue is SQLite's")


def in_threads(n: int, work) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            start.wait()
            work(i)
        except BaseException as error:  # reported by the test
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_many_write_transactions_at_once_all_commit():
    def write(i: int) -> None:
        for j in range(15):
            with transaction.atomic():
                project = Project.objects.create(name=f"p{i}-{j}")
                Project.objects.filter(pk=project.pk).update(name=f"project {i}-{j}")

    assert in_threads(8, write) == []
    assert Project.objects.filter(name__startswith="project ").count() == 8 * 15


def test_a_failed_transaction_lets_the_next_writer_in_at_once():
    class Refused(Exception):
        pass

    with pytest.raises(Refused), transaction.atomic():
        Project.objects.create(name="rolled back")
        raise Refused

    waited: list[float] = []

    def write(_: int) -> None:
        start = time.monotonic()
        with transaction.atomic():
            Project.objects.create(name="next")
        waited.append(time.monotonic() - start)

    assert in_threads(1, write) == []
    assert waited[0] < 5  # not the 20 s timeout: the lock was released by the rollback
    assert list(Project.objects.values_list("name", flat=True)) == ["next"]
