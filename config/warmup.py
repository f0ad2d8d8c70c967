"""What a web process does once when it starts, so that no visitor pays it on a first request.

Django imports the URLconf (every view and API module), builds the URL resolver's reverse
tables and compiles each template on first use, and numpy loads some of its submodules on the
first bootstrap or comparison: together 1-2 s on the first page of each new server process
(measured in bench/compare_first_request.py; docs/benchmarks.md). Called by config/wsgi.py, so
it runs in every gunicorn worker and under runserver, not in Celery workers, management
commands or tests.
"""

from __future__ import annotations

import logging
import time
from importlib import import_module
from pathlib import Path

logger = logging.getLogger(__name__)


def warm_up() -> float:
    """Load and compile what the first requests would; returns the seconds it took. A failure
    is logged and ignored: warming up must never keep the server from starting (the request
    that needs the broken part reports it as usual)."""
    start = time.perf_counter()
    try:
        _urls()
        _templates()
        _numbers()
    except Exception:  # see the docstring
        logger.warning("warm-up failed; the first requests will be slower", exc_info=True)
    return time.perf_counter() - start


def _urls() -> None:
    from django.conf import settings
    from django.urls import reverse

    import_module(settings.ROOT_URLCONF)  # every view and API module
    reverse("healthz")  # the resolver's reverse tables, which every {% url %} needs


def _templates() -> None:
    """Compile every template of the project's template directories (the cached loader keeps
    them, as it does after a first render)."""
    from django.conf import settings
    from django.template import engines

    engine = engines["django"]
    for config in settings.TEMPLATES:
        for directory in map(Path, config.get("DIRS", ())):
            for path in sorted(directory.rglob("*.html")):
                engine.get_template(path.relative_to(directory).as_posix())


def _numbers() -> None:
    """One comparison of two tiny runs: numpy imports numpy.random, numpy.ma and the
    quantile code on first use, about 0.2 s that the first comparison page paid."""
    from goldsmith import metrics

    judgments = {"q1": {"a": 2, "b": 0}, "q2": {"a": 1, "b": 2}, "q3": {"b": 2, "c": 1}}
    run_a = {"q1": ["a", "b"], "q2": ["b"], "q3": ["a", "c"]}
    run_b = {"q1": ["b", "a"], "q2": ["a", "b"], "q3": ["b"]}
    names = ["recall@2", "ndcg@2", "mrr@2"]
    a = metrics.evaluate(judgments, run_a, names)
    b = metrics.evaluate(judgments, run_b, names)
    metrics.compare(a, b, samples=20, permutations=20)
    metrics.aggregate(a, samples=20)
