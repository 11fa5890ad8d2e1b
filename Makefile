# Two commands on a fresh machine: `make demo` and `make test`.
# Each creates .venv if needed, installs the project and finds (or installs) Chromium.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: demo test lint bench chromium install clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $@

install: $(STAMP)

chromium:
	@bash scripts/ensure-chromium.sh

demo: $(STAMP) chromium
	$(VENV)/bin/webchaos demo

test: $(STAMP) chromium
	$(PY) -m pytest -q $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: $(STAMP) chromium
	$(PY) benchmarks/open_episode.py
	$(PY) benchmarks/proxy_overhead.py
	$(PY) benchmarks/latency_accuracy.py
	$(PY) benchmarks/grading.py
	$(PY) benchmarks/header_flood.py
	$(PY) benchmarks/body_bomb.py

clean:
	rm -rf $(VENV) runs .webchaos .pytest_cache .mypy_cache .ruff_cache
