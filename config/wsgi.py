import os
import sys

# One BLAS thread per web process: the numeric work of a request is small, gunicorn runs
# several workers, and two BLAS threads per worker made the compare page's tests 2-4x slower
# on a busy two-core machine (docs/benchmarks.md). Set before numpy is imported; an operator's
# own value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# The threads of a web process take turns at the GIL every millisecond instead of every 5: a
# grade save, which needs the GIL back after each database call, then waits far less behind a
# page being rendered (with config/turns.py; the quick start's figures in docs/benchmarks.md).
sys.setswitchinterval(0.001)

# Load views, templates and numpy's lazy parts now, not on a visitor's first request.
from config.warmup import warm_up  # noqa: E402

warm_up()
