"""Goldsmith settings: one file, every value from the environment, safe local defaults.

Locally (DEBUG on, the default) nothing has to be configured: SQLite under ``var/`` and an
embedded filesystem broker. In production (``DEBUG=0``) the app refuses to start without
``SECRET_KEY`` and ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("GOLDSMITH_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean; anything but the usual spellings is an error, not a silent False."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no)")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    """Read an integer; a value that is not one, or is out of range, is an error."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = f"{'' if minimum is None else minimum}..{'' if maximum is None else maximum}"
        raise ImproperlyConfigured(f"{name}={raw!r} is out of range ({bounds})")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])

if DEBUG:
    # A fixed development key: never used with DEBUG off (see the checks below).
    SECRET_KEY = SECRET_KEY or "goldsmith-insecure-development-key-do-not-use-in-production"
else:
    if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("goldsmith-insecure"):
        raise ImproperlyConfigured(
            "SECRET_KEY must be set to a random value of at least 50 characters when DEBUG is off"
        )
    if not os.environ.get("ALLOWED_HOSTS", "").strip():
        raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.forms",  # its form templates, found by FORM_RENDERER below
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "annotation",
    "evaluation",
    # The site itself, for its commands: `serve` (what `make run` runs) and `compile_catalogs`.
    "config",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.csp.ContentSecurityPolicyMiddleware",  # SECURE_CSP below
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A process's page renders run one at a time; grade saves and other writes never wait.
    "config.turns.ReadsTakeTurns",
    # 400, with the reason, for a NUL or a lone surrogate in the path, a query string or a form
    # (PostgreSQL cannot store them); the API's parsers below check JSON bodies.
    "sitewide.text_input.RefuseUnstorableText",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page's language: the browser's (Accept-Language) or the language cookie; after the
    # session, before CommonMiddleware (Django's order). UserLanguageMiddleware below puts the
    # signed-in user's own choice over it.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.language.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.navigation",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL or f"sqlite:///{VAR_DIR / 'goldsmith.sqlite3'}",
        # Each web thread keeps its connection for a minute: opening one costs a PostgreSQL
        # round trip, and for SQLite ~2.5 ms of CPU (Django registers its SQL functions).
        conn_max_age=60,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server's threads and processes and the Celery worker share one file. WAL: readers
    # never wait for the writer, nor the writer for them. IMMEDIATE: a transaction takes the
    # write lock when it begins, so two transactions never both read and then both try to write
    # (SQLite fails one of them at once, busy timeout or not); a writer waits up to 20 s for the
    # lock. synchronous=NORMAL is safe with WAL: a power cut may lose the last commits, never
    # corrupts the file; commits no longer wait for the disk.
    # Write transactions queue for the lock without SQLite's sleeps (config/sqlite3/base.py).
    DATABASES["default"]["ENGINE"] = "config.sqlite3"
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; "
            "PRAGMA cache_size=-32000"
        ),
    }
    # A file, not memory, so that a Celery worker started by a test sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache ----------------------------------------------------------------------------------
# One cache for every web process and worker: sign-in and API throttling count in it, so it is
# never per-process memory (each gunicorn worker would count alone, multiplying every limit by
# the number of workers). Redis when REDIS_URL is set, else a table of the database
# (goldsmith_cache, made by `migrate`).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "goldsmith",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "goldsmith_cache",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Argon2id first (config/hashers.py): PBKDF2 took 0.8-1.8 s per sign-in on two cores. The
# others stay so that existing hashes still check; Django re-hashes them at the next sign-in.
PASSWORD_HASHERS = [
    "config.hashers.Argon2idPasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
# Every password sign-in (the site's and the admin's) goes through this backend: an account is
# refused for GOLDSMITH_SIGNIN_LOCKOUT_SECONDS after GOLDSMITH_SIGNIN_FAILURES_PER_ACCOUNT failed
# sign-ins, an address after GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS (config/throttling.py).
AUTHENTICATION_BACKENDS = ["config.authentication.ThrottledModelBackend"]
GOLDSMITH_SIGNIN_FAILURES_PER_ACCOUNT = env_int("GOLDSMITH_SIGNIN_FAILURES_PER_ACCOUNT", 10, 1)
GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS = env_int("GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS", 50, 1)
GOLDSMITH_SIGNIN_LOCKOUT_SECONDS = env_int("GOLDSMITH_SIGNIN_LOCKOUT_SECONDS", 900, 1)
# Requests made with an API token, per minute, per account and per address.
GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE = env_int("GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE", 600, 1)
GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE_PER_ADDRESS = env_int(
    "GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE_PER_ADDRESS", 1200, 1
)
# Behind a reverse proxy, the header it puts the client's address in (X-Forwarded-For,
# X-Real-IP); the last address in it counts. Empty: the connection's address, and no header a
# client sends is believed. Set it only behind a proxy that always writes it.
GOLDSMITH_CLIENT_ADDRESS_HEADER = os.environ.get("GOLDSMITH_CLIENT_ADDRESS_HEADER", "").strip()

# --- Languages (docs/design.md "The interface in two languages") ----------------------------
# English and Simplified Chinese. A page follows the browser's Accept-Language until the user
# picks a language in the page header: that choice is stored on the account
# (annotation.UserLanguage) and wins on every request and every device (config/language.py).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
# The project's catalog (templates and static/js); the apps keep theirs in <app>/locale/.
# The .mo files are compiled from the .po files by `manage.py compile_catalogs` (make install,
# make run, make test and the test session do it): they are never committed.
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "goldsmith_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_HTTPONLY = True  # no script of ours reads it
TIME_ZONE = "UTC"
USE_I18N = True
# Numbers and dates are formatted for the page's language (Django's locale formats). No
# thousands separator: it would also apply to every id a template writes into a URL or a data
# attribute (ids are numbers too).
USE_THOUSAND_SEPARATOR = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Static files as in production: collected into STATIC_ROOT with hashed names, compressed, and
# served by WhiteNoise from there (cached by browsers for good). Always with DEBUG off, and
# under `manage.py serve` (what `make run` runs), which collects them at start and sets this.
# Otherwise (tests, runserver) WhiteNoise reads them from the source folders as they change.
GOLDSMITH_STATIC_COLLECTED = env_bool("GOLDSMITH_STATIC_COLLECTED", not DEBUG)
FORM_RENDERER = "config.forms.Renderer"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "config.static.CollectedStaticFilesStorage"
        if GOLDSMITH_STATIC_COLLECTED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not GOLDSMITH_STATIC_COLLECTED
WHITENOISE_AUTOREFRESH = not GOLDSMITH_STATIC_COLLECTED
MEDIA_ROOT = VAR_DIR / "media"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "project-list"
LOGOUT_REDIRECT_URL = "login"

# --- Security (strict when DEBUG is off) ----------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the annotation page's fetch() reads it to send X-CSRFToken
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy (config/csp.py; Django 6.0's setting of the same name and shape).
# Pages run and style themselves from our own static files only: no template or code of ours
# writes an inline script, event handler, javascript: URL, <style> block or style attribute
# (tests/config/test_no_page_holds_inline_script_or_style.py), so markup that slipped past escaping
# could not run. Swagger UI too: /api/docs/ loads its start-up script from a URL.
SECURE_CSP: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "config.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Requests made with an API token, per account and per address (config/throttling.py).
    "DEFAULT_THROTTLE_CLASSES": [
        "config.throttling.TokenAccountThrottle",
        "config.throttling.TokenAddressThrottle",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "sitewide.text_input.JSONParser",
        "sitewide.text_input.FormParser",
        "sitewide.text_input.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "config.schema.GoldsmithAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Goldsmith API",
    "DESCRIPTION": "Golden sets for retrieval evaluation: annotation, frozen versions, runs.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Interactive docs work offline: Swagger UI and ReDoc come from the sidecar package.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two choice sets share a field name ("kind": retrievers', machine judges'): each named.
    "ENUM_NAME_OVERRIDES": {
        "MachineJudgeKindEnum": "annotation.models.machine.MachineJudgeKind",
    },
}

# --- Celery ---------------------------------------------------------------------------------
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600}
else:
    # Embedded broker: kombu's filesystem transport needs no server and no extra package, and
    # works across processes on one machine (web server + worker started by `make run`).
    BROKER_DIR = VAR_DIR / "broker"
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_BACKEND = None  # state lives in the database, never only in the broker
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 30 * 60)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 25 * 60)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Re-queues evaluation batches whose lease expired (a worker died) and finishes lost runs.
    "evaluation-watchdog": {"task": "evaluation.tasks.evaluation_watchdog", "schedule": 30.0},
    # Fails the imports whose worker died mid-way (no progress for GOLDSMITH_IMPORT_STALE_SECONDS).
    "imports-watchdog": {"task": "annotation.tasks.imports_watchdog", "schedule": 60.0},
    # Indexes for search the chunks an interrupted import left without a search vector.
    "corpus-search-backlog": {
        "task": "annotation.tasks.corpus_search_backlog",
        "schedule": 300.0,
    },
    # Creates the runs of scheduled retrievers (hourly, nightly, weekly) when they are due.
    "evaluation-scheduled-runs": {
        "task": "evaluation.tasks.evaluation_schedule_due",
        "schedule": 300.0,
    },
}
# An import with no progress for this long lost its worker: the watchdog fails it.
GOLDSMITH_IMPORT_STALE_SECONDS = env_int("GOLDSMITH_IMPORT_STALE_SECONDS", 600, minimum=1)
# A change of tie rule or flag kappa settles every finished query again: in the request up to
# this many finished queries, by a worker beyond (9 000 queries take 25-60 s: docs/benchmarks.md).
GOLDSMITH_SETTLE_IN_REQUEST_MAX = env_int("GOLDSMITH_SETTLE_IN_REQUEST_MAX", 2000, minimum=0)
# The longest query a query log may hold (characters): a longer one refuses the file at its
# line. Longer "queries" are pasted documents or prompts, not what people type into a search box.
GOLDSMITH_QUERY_MAX_CHARS = env_int("GOLDSMITH_QUERY_MAX_CHARS", 2000, minimum=1)
# Bounds on an uploaded file, checked while it streams (goldsmith/intake/limits.py): the
# longest line of any file read line by line (a reader holds at most one such line), the
# longest upload and what the members of a zip declare in all, and how many times a member
# over 1 MiB may expand.
GOLDSMITH_UPLOAD_MAX_LINE_BYTES = env_int("GOLDSMITH_UPLOAD_MAX_LINE_BYTES", 16 << 20, minimum=1024)
GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES = env_int(
    "GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES", 1 << 30, minimum=1 << 20
)
GOLDSMITH_UPLOAD_MAX_ZIP_RATIO = env_int("GOLDSMITH_UPLOAD_MAX_ZIP_RATIO", 100, minimum=2)
# Retrievers under test on loopback or private networks (never link-local or metadata).
GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = env_bool("GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS", False)
# Environment variables a retriever's auth header may be read from, besides those named
# GOLDSMITH_SECRET_…: a lead names the variable and its value goes to the lead's URL, so only
# variables exposed here on purpose, never the server's own secrets.
GOLDSMITH_RETRIEVER_SECRET_ENV = env_list("GOLDSMITH_RETRIEVER_SECRET_ENV", [])
_server_secrets = {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "GOLDSMITH_ENCRYPTION_KEY"}
if _server_secrets & set(GOLDSMITH_RETRIEVER_SECRET_ENV):
    raise ImproperlyConfigured(
        "GOLDSMITH_RETRIEVER_SECRET_ENV may not list the server's own secrets "
        f"({', '.join(sorted(_server_secrets & set(GOLDSMITH_RETRIEVER_SECRET_ENV)))})"
    )
# Evaluation runs: queries per batch (0: by the retriever's kind, HTTP 200, run file 2000,
# built-in 500), batches of one run in flight at once (each gets an equal share of the
# retriever's max concurrency), and how long a worker's lease on a batch lasts without renewal
# before the watchdog gives the batch to another worker.
GOLDSMITH_EVAL_BATCH_SIZE = env_int("GOLDSMITH_EVAL_BATCH_SIZE", 0, minimum=0)
GOLDSMITH_EVAL_LANES = env_int("GOLDSMITH_EVAL_LANES", 2, minimum=1)
GOLDSMITH_EVAL_LEASE_SECONDS = env_int("GOLDSMITH_EVAL_LEASE_SECONDS", 60, minimum=5)
# The key that encrypts retriever auth headers at rest (evaluation/credentials.py): a Fernet key
# or any passphrase. Empty: derived from SECRET_KEY, so rotating SECRET_KEY then makes stored
# headers unreadable (they must be entered again).
GOLDSMITH_ENCRYPTION_KEY = os.environ.get("GOLDSMITH_ENCRYPTION_KEY", "").strip()
# The port `manage.py serve` (what `make run` runs) listens on.
PORT = env_int("PORT", 8000, minimum=1, maximum=65535)

LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL={LOG_LEVEL!r} is not a log level (DEBUG, INFO, WARNING, ERROR, CRITICAL)"
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # The handler filters too: some libraries (bm25s) set their own loggers to DEBUG.
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "level": LOG_LEVEL}
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "bm25s": {"level": "WARNING"},
    },
}
