# Two commands on a fresh machine: `make demo` and `make test`.
# Each creates .venv if needed, installs the project and finds (or installs) Chromium.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTEST_ARGS ?=
# Test processes: a file's tests stay in one (they share its module-scoped browsers and episodes; each process
# starts one stack for every file that asks, tests/conftest.py); 1 runs them in this process (the default when
# PYTEST_ARGS picks the tests). Five on two cores: a test process keeps about half a core busy (its episodes
# mostly wait on pages and faults' delays); with three the machine sat idle a fifth of the run (vmstat), with four
# a tenth (2026-12-05), and by 2026-12-06, the suite grown, four left it 30% idle over a 666 s pytest part; five
# took 539 s on a fresh clone the same day (with the whole-catalog check moved to `make lint`, the determinism
# test sampled). The files are handed out heaviest first
# (tests/schedule.py), in the order tests/conftest.py gives them, which --no-loadscope-reorder keeps. The API
# fuzzing runs in a pytest of its own (it cannot run under pytest-xdist: tests/sites/test_fuzz.py), started beside
# them (the test target).
TEST_WORKERS ?= $(if $(PYTEST_ARGS),1,5)
PARALLEL := $(filter-out 1,$(TEST_WORKERS))
# The plugins the tests use, named instead of autoloaded: pytest rewrites the asserts of every module of a
# package that registers a plugin (schemathesis, hypothesis, anyio, this project: 600 modules, each parsed and
# compiled again in every test process, as PYTHONDONTWRITEBYTECODE keeps it from caching them); with the
# catalog loaded once per process (tests/catalog.py) a process collects in 14 s instead of 30 (two cores).
PYTEST_PLUGINS := --disable-plugin-autoload -p asyncio -p hypothesispytest -p schemathesis -p webchaos
# The parallel run leaves the fuzzing file out, and schemathesis with it: its plugin marks its 244 modules for
# assert rewriting, 6 s of CPU in each test process's collection (a third of it) for a file skipped there.
XDIST_ARGS := $(subst -p schemathesis ,,$(PYTEST_PLUGINS)) -p xdist -n $(TEST_WORKERS) --dist loadfile \
	--no-loadscope-reorder --ignore=tests/sites/test_fuzz.py
# Frameworks whose pins conflict with mitmproxy's (h11) get a venv of their own.
MCP_VENV := .venv-mcp
MCP_STAMP := $(MCP_VENV)/.installed-stamp
MCP_NODE := examples/playwright_mcp/node_modules/.installed-stamp
BU_VENV := .venv-browser-use
BU_STAMP := $(BU_VENV)/.installed-stamp
BG_VENV := .venv-browsergym
BG_STAMP := $(BG_VENV)/.installed-stamp
# rrweb (page recording and replay.html's player): pinned in third_party/rrweb/package-lock.json.
RRWEB_DIR := third_party/rrweb
RRWEB_STAMP := $(RRWEB_DIR)/node_modules/.installed-stamp
PROJECT_PACKAGES := sites injectors proxy_addons grader scenarios harness webchaos

.PHONY: demo test lint bench chromium install frameworks rrweb bytecode clean

# The proxy runs with -O (proxy_addons/main.py says why), whose bytecode pip does not write: without it every
# proxy start compiled mitmproxy and its dependencies again, 3.4 s of CPU instead of 0.9 (never cached where
# PYTHONDONTWRITEBYTECODE is set), which under a loaded make test outlasted the stack's start. A few files of
# third-party packages are not Python 3 (templates, test data), so compileall's own verdict is not ours.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev,selenium,stagehand,inspect,ray]'
	-@$(PY) -m compileall -q -j 0 -o 1 "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null
	@touch $@

# The project's own bytecode, for both levels (incremental: only changed files are compiled again), so the
# many processes a run or a test starts do not each compile what they import.
bytecode: $(STAMP)
	@$(PY) -m compileall -q -j 0 -o 0 -o 1 -x '/node_modules/' $(PROJECT_PACKAGES) tests benchmarks examples scripts

# Playwright MCP (npm, no browser download: it attaches to the episode's Chromium) and the MCP SDK.
$(MCP_NODE): examples/playwright_mcp/package.json examples/playwright_mcp/package-lock.json
	cd examples/playwright_mcp && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(MCP_STAMP): examples/requirements-mcp.txt
	@test -x $(MCP_VENV)/bin/python || $(PYTHON) -m venv $(MCP_VENV)
	$(MCP_VENV)/bin/python -m pip install -q --disable-pip-version-check -r examples/requirements-mcp.txt
	@touch $@

# browser-use (attaches by CDP to the episode's Chromium; downloads nothing at run time).
$(BU_STAMP): examples/requirements-browser-use.txt
	@test -x $(BU_VENV)/bin/python || $(PYTHON) -m venv $(BU_VENV)
	$(BU_VENV)/bin/python -m pip install -q --disable-pip-version-check -r examples/requirements-browser-use.txt
	@touch $@

# BrowserGym (its pinned Playwright drives the system Chromium; webchaos runs beside it: `webchaos serve`).
$(BG_STAMP): examples/requirements-browsergym.txt
	@test -x $(BG_VENV)/bin/python || $(PYTHON) -m venv $(BG_VENV)
	$(BG_VENV)/bin/python -m pip install -q --disable-pip-version-check -r examples/requirements-browsergym.txt
	@touch $@

frameworks: $(MCP_NODE) $(MCP_STAMP) $(BU_STAMP) $(BG_STAMP)

# Without npm this prints what to install and goes on: webchaos then runs with page recording off.
$(RRWEB_STAMP): $(RRWEB_DIR)/package.json $(RRWEB_DIR)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		echo "cd $(RRWEB_DIR) && npm ci"; \
		cd $(RRWEB_DIR) && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed-stamp; \
	else \
		echo "webchaos: npm not found, so rrweb is not installed: episodes are not recorded for replay."; \
		echo "  Install Node.js 18+ with npm (Debian/Ubuntu: sudo apt-get install nodejs npm; or https://nodejs.org),"; \
		echo "  then run: make rrweb"; \
	fi

rrweb: $(RRWEB_STAMP)

install: $(STAMP) rrweb

chromium:
	@bash scripts/ensure-chromium.sh

demo: $(STAMP) bytecode rrweb chromium
	$(VENV)/bin/webchaos demo

# In the parallel run the API fuzzing runs beside the other test processes, at a lower priority: they leave a
# part of a core idle (their episodes wait on pages), which it takes; its report is printed after theirs.
TEST_CMD = $(PY) -m pytest -q --durations=25 $(if $(PARALLEL),$(XDIST_ARGS),$(PYTEST_PLUGINS) -p xdist) $(PYTEST_ARGS)
test: $(STAMP) bytecode rrweb chromium frameworks
	@$(if $(PARALLEL),fuzz_log=$$(mktemp); nice -n 10 $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_PLUGINS) \
		tests/sites/test_fuzz.py > $$fuzz_log 2>&1 & fuzz=$$!;) \
	echo "$(TEST_CMD)"; \
	$(TEST_CMD); \
	status=$$?; \
	$(if $(PARALLEL),wait $$fuzz; fuzz_status=$$?; \
		echo "--- beside them: the API fuzzing (tests/sites/test_fuzz.py)"; cat $$fuzz_log; rm -f $$fuzz_log; \
		[ $$fuzz_status -eq 0 ] &&) [ $$status -eq 0 ]

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m harness.cli.main catalog check

bench: $(STAMP) chromium
	$(PY) benchmarks/open_episode.py
	$(PY) benchmarks/proxy_overhead.py
	$(PY) benchmarks/latency_accuracy.py
	$(PY) benchmarks/grading.py
	$(PY) benchmarks/header_flood.py
	$(PY) benchmarks/body_bomb.py
	$(PY) benchmarks/episode_memory.py
	$(PY) benchmarks/catalog_load.py
	$(PY) benchmarks/cli_start.py
	$(PY) benchmarks/soak.py
	$(PY) benchmarks/event_delivery.py
	$(PY) benchmarks/throughput.py

clean:
	rm -rf $(VENV) $(MCP_VENV) $(BU_VENV) examples/playwright_mcp/node_modules $(RRWEB_DIR)/node_modules runs .webchaos .pytest_cache .mypy_cache .ruff_cache
