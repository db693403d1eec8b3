# Two entry points for a fresh Debian machine; both install what is missing first.
#   make demo   set up, then run the main job on the offline default model
#   make test   set up, then run the whole test suite
VENV ?= .venv
PYTEST_ARGS ?=

.PHONY: setup demo test lint
setup:
	@scripts/setup.sh

demo: setup
	$(VENV)/bin/colorbrowser demo

test: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/python -m pytest -q $(PYTEST_ARGS)

lint:
	$(VENV)/bin/ruff check src tests benchmarks
