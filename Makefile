# Two set-up commands: `make demo` (the app on the embedded demo) and `make test` (the test suite).
# Each creates or reuses .venv, installs, then acts.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: demo test install browser bench results clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel

# torch first: the local CPU wheel, so sentence-transformers does not pull a CUDA build.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Debian's Chromium for the end-to-end tests (Playwright drives /usr/bin/chromium; its own download cannot work offline).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; fi; \
	fi

demo: install
	$(BIN)/playground demo --host $(HOST) --port $(PORT)

test: install browser
	$(BIN)/python -m pytest -q -rs

bench: install
	$(BIN)/python bench/retrieval.py
	$(BIN)/python bench/engine.py

# docs/results.md: HotpotQA, SQuAD and OpenBookQA samples (../shared/datasets) through the local model, with intervals.
results: install
	$(BIN)/python bench/results.py

clean:
	rm -rf $(VENV) indexes/*/ .pytest_cache
