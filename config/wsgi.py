import os

# One BLAS thread per web process: the numeric work of a request is small, gunicorn runs
# several workers, and two BLAS threads per worker made the compare page's tests 2-4x slower
# on a busy two-core machine (docs/benchmarks.md). Set before numpy is imported; an operator's
# own value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# Load views, templates and numpy's lazy parts now, not on a visitor's first request.
from config.warmup import warm_up  # noqa: E402

warm_up()
