"""A web process renders one page at a time, and a grade save never waits for a page being
rendered (config/turns.py): under load the saves stay quick."""

from __future__ import annotations

import threading

from django.http import HttpResponse
from django.test import RequestFactory

from config.turns import ReadsTakeTurns

factory = RequestFactory()


class SlowPages:
    """A view whose GET requests block until released; every other request answers at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.rendering = threading.Semaphore(0)

    def __call__(self, request) -> HttpResponse:
        if request.method == "GET" and request.path != "/healthz":
            self.rendering.release()
            self.release.wait(timeout=10)
        return HttpResponse("ok")


def in_background(middleware: ReadsTakeTurns, request) -> threading.Thread:
    thread = threading.Thread(target=middleware, args=(request,), daemon=True)
    thread.start()
    return thread


def test_a_save_does_not_wait_for_a_page_being_rendered():
    view = SlowPages()
    middleware = ReadsTakeTurns(view)
    page = in_background(middleware, factory.get("/projects/1/annotate/2/"))
    assert view.rendering.acquire(timeout=5)
    save = in_background(middleware, factory.put("/api/v1/projects/1/candidates/3/judgment/"))
    save.join(timeout=2)
    assert not save.is_alive(), "the save waited for the page"
    view.release.set()
    page.join(timeout=5)


def test_a_second_page_waits_for_the_first_and_the_health_check_never_waits():
    view = SlowPages()
    middleware = ReadsTakeTurns(view)
    first = in_background(middleware, factory.get("/projects/1/annotate/2/"))
    assert view.rendering.acquire(timeout=5)
    second = in_background(middleware, factory.get("/projects/1/annotate/3/"))
    assert not view.rendering.acquire(timeout=0.5), "two pages rendered at once"
    health = in_background(middleware, factory.get("/healthz"))
    health.join(timeout=2)
    assert not health.is_alive(), "the health check waited for a page"
    view.release.set()
    first.join(timeout=5)
    assert view.rendering.acquire(timeout=5)  # the second page's turn came
    second.join(timeout=5)
    assert not second.is_alive()
