# Goldsmith: `make run` to try it, `make test` to test it. Needs only Python 3.11+.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test install lint format bench clean messages

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("Goldsmith needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	# BEIR's own loader checks our BEIR exports; its declared deps (torch, ...) are not needed.
	$(PY) -m pip install --quiet --no-deps 'beir==2.2.0'
	# irrCAC checks AC1, AC2 and Fleiss with missing labels; it pins scipy==1.12 and pandas<3,
	# which its code does not need (tests/engine/test_ac1_ac2_and_fleiss_*_equal_irrcac.py).
	$(PY) -m pip install --quiet --no-deps 'irrCAC==0.4.4'
	@touch $@

# The translation catalogs' .mo files and the Chinese variant fold's table of regional words
# (from the installed OpenCC) are built here (run and test need install), never committed.
install: $(VENV)/.installed
	$(PY) manage.py compile_catalogs
	$(PY) -m goldsmith.intake.regional_words

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py serve --port $(PORT)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# After changing words: refresh the zh_Hans catalogs, translate what is new (docs/glossary-zh.md),
# then `make install` compiles them. The apps' catalogs hold what their Python code marks (read
# with Python's own parser); the project's, the pages' and scripts' words (GNU gettext).
messages: install
	$(PY) -m config.python_catalogs
	$(PY) manage.py makemessages -l zh_Hans -d django --no-obsolete --no-wrap $(MESSAGES_IGNORE)
	$(PY) manage.py makemessages -l zh_Hans -d djangojs --no-obsolete --no-wrap $(MESSAGES_IGNORE)

MESSAGES_IGNORE := -i .venv -i var -i tests -i bench -i docs -i node_modules -i staticfiles -i '*.py'

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	$(PY) bench/metrics_bench.py

clean:
	rm -rf var/broker var/test*.sqlite3 .pytest_cache
