"""Django's SQLite backend, with write transactions that queue for the database's one writer
without SQLite's sleeps (ENGINE "config.sqlite3", set by config/settings.py).

SQLite lets one transaction write at a time. A writer that finds the lock taken waits in
SQLite's busy handler, which sleeps and tries again: 1 ms at first, then longer, and 100 ms per
try once it has waited a third of a second. Under load the writers that have waited longest
sleep through the moments the lock is free while newcomers take it, and a few grade saves of the
quick-start benchmark waited seconds (docs/benchmarks.md). Here a transaction first takes this
process's lock for the database file (threads wait on it and wake the moment it is released),
then an exclusive lock on a file beside the database, which the few processes (web workers,
the Celery worker) try every 0.5-2 ms; only then does SQLite's BEGIN IMMEDIATE run. Both are
released when the transaction commits or rolls back, or the connection closes. The wait is
bounded by the database's `timeout` option, then fails as SQLite does ("database is locked").
Writes outside a transaction (autocommit) still wait in SQLite's busy handler.
"""

from __future__ import annotations

import threading
import time

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError

try:
    import fcntl
except ImportError:  # not on a POSIX system: threads queue, processes wait in SQLite's handler
    fcntl = None  # type: ignore[assignment]  # fcntl is absent on Windows: the lock is then a no-op

_process_locks: dict[str, threading.Lock] = {}
_process_locks_guard = threading.Lock()


def _process_lock(path: str) -> threading.Lock:
    with _process_locks_guard:
        return _process_locks.setdefault(path, threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    _held: threading.Lock | None = None  # this process's lock, while a transaction is open
    _lock_file = None  # the open lock file beside the database, once one was needed

    def _start_transaction_under_autocommit(self) -> None:
        if self.is_in_memory_db():
            super()._start_transaction_under_autocommit()
            return
        self._take_writer_lock()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_writer_lock()
            raise

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self._release_writer_lock()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._release_writer_lock()

    def _close(self):
        try:
            return super()._close()
        finally:
            self._release_writer_lock()
            if self._lock_file is not None:
                self._lock_file.close()
                self._lock_file = None

    def _take_writer_lock(self) -> None:
        path = str(self.settings_dict["NAME"])
        timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
        deadline = time.monotonic() + timeout
        lock = _process_lock(path)
        if not lock.acquire(timeout=timeout):
            raise OperationalError("database is locked")
        try:
            if fcntl is not None:
                if self._lock_file is None:
                    self._lock_file = open(f"{path}.writer-lock", "ab")  # noqa: SIM115
                delay = 0.0005
                while True:
                    try:
                        fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise OperationalError("database is locked") from None
                        time.sleep(delay)
                        delay = min(2 * delay, 0.002)
        except BaseException:
            lock.release()
            raise
        self._held = lock

    def _release_writer_lock(self) -> None:
        lock, self._held = self._held, None
        if lock is None:
            return
        try:
            if fcntl is not None and self._lock_file is not None:
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
        finally:
            lock.release()
