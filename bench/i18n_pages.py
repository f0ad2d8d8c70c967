"""What the translated interface costs a page: the annotation page and the lead dashboard
rendered in English and in Chinese, and the JavaScript catalog, through Django's test client
on SQLite (no network, one thread).

    GOLDSMITH_VAR_DIR=/tmp/gs-bench-i18n PYTHONPATH=. python bench/i18n_pages.py [rounds]

Prints the median and p95 milliseconds of each page per language. Figures in
docs/benchmarks.md ("Pages in two languages")."""

from __future__ import annotations

import statistics
import sys
import time

from benchlib import django_setup

django_setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    setup_test_environment()
    from django.db import connection

    connection.creation.create_test_db(verbosity=0)
    call_command("compile_catalogs", verbosity=0)
    from django.contrib.auth import get_user_model

    from annotation.services.projects import project_setup
    from tests.annotation.factories import judging_setup
    from tests.conftest import PASSWORD, Personas

    made = project_setup(
        name="Bench", leads=["alice"], annotators=["bob", "carol"], viewers=["victor"],
        password=PASSWORD,
    )  # fmt: skip
    users = {u.username: u for u in get_user_model().objects.all()}
    people = Personas(made.project, users["alice"], users["bob"], users["carol"],
                      users["victor"], users["victor"])  # fmt: skip
    setup = judging_setup(people, per_query=10)
    query, _ = setup.first()
    project = people.project
    pages = {
        "annotation page": (people.bob, f"/projects/{project.pk}/annotate/{query.pk}/"),
        "lead dashboard": (people.alice, f"/projects/{project.pk}/dashboard/"),
        "JavaScript catalog": (people.bob, "/jsi18n/{language}/"),
    }
    # The two languages take turns, request by request, so that a busy machine slows both alike.
    for name, (user, url) in pages.items():
        clients = {}
        for language, header in (("en", "en-US,en"), ("zh-hans", "zh-CN,zh")):
            client = Client(HTTP_ACCEPT_LANGUAGE=header)
            assert client.login(username=user.username, password=PASSWORD)
            assert client.get(url.format(language=language)).status_code == 200
            clients[language] = client
        times: dict[str, list[float]] = {language: [] for language in clients}
        sizes = {}
        for _ in range(rounds):
            for language, client in clients.items():
                start = time.perf_counter()
                response = client.get(url.format(language=language))
                times[language].append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200
                sizes[language] = len(response.content)
        for language, found in times.items():
            found.sort()
            print(
                f"{name:20} {language:8} median {statistics.median(found):6.2f} ms"
                f"  p95 {found[int(len(found) * 0.95)]:6.2f} ms  ({sizes[language]} bytes)"
            )


if __name__ == "__main__":
    main()
