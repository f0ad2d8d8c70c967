"""A web process loads what its first page needs when it starts (config/wsgi.py →
config/warmup.py): the URLconf with every view, the URL resolver's tables, the compiled
templates and numpy's lazily imported parts, and it never imports scipy.stats (the compare
page's first request once spent 1-3 s importing it). The time itself is measured by
bench/compare_first_request.py, not here."""

from __future__ import annotations

import logging

from config import warmup
from tests.test_the_layers_import_one_way import run_python


def test_loading_the_wsgi_application_warms_up_without_scipy():
    code = (
        "import os, sys\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'\n"
        "import config.wsgi\n"
        "from django.template import engines\n"
        "loader = engines['django'].engine.template_loaders[0]\n"
        "cached = {t.origin.template_name for t in loader.get_template_cache.values()\n"
        "          if hasattr(t, 'origin')}\n"
        "print('compare.html', 'evaluation/compare.html' in cached)\n"
        "print('dashboard.html', 'annotation/dashboard.html' in cached)\n"
        "for m in ('config.urls', 'evaluation.views', 'evaluation.api', 'numpy.random',\n"
        "          'scipy.stats'):\n"
        "    print(m, m in sys.modules)\n"
        "print('blas threads', os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert "warm-up failed" not in proc.stderr
    lines = dict(line.rsplit(" ", 1) for line in proc.stdout.splitlines())
    assert lines == {
        "compare.html": "True",
        "dashboard.html": "True",
        "config.urls": "True",
        "evaluation.views": "True",
        "evaluation.api": "True",
        "numpy.random": "True",
        "scipy.stats": "False",
        "blas threads": "1",
    }


def test_a_failing_warm_up_is_logged_and_the_server_still_starts(monkeypatch, caplog):
    def broken() -> None:
        raise RuntimeError("template directory unreadable")

    monkeypatch.setattr(warmup, "_templates", broken)
    with caplog.at_level(logging.WARNING, logger="config.warmup"):
        seconds = warmup.warm_up()
    assert seconds >= 0
    assert "warm-up failed" in caplog.text and "template directory unreadable" in caplog.text
