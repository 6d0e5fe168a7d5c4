# Kibitz — `make run` and `make test` are all a fresh machine needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
EXT := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
MODULE := engine/_compiled$(EXT)
CORE_SOURCES := $(wildcard engine/core/*.py) engine/layout.py engine/params.py engine/build.py engine/buildinfo.py

.PHONY: all venv build run test lint bench clean

all: build

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

venv: $(INSTALLED)

# The ahead-of-time compiled core (numba.pycc + zig clang, for glibc 2.26 and haswell).
$(MODULE): $(INSTALLED) $(CORE_SOURCES)
	$(BIN)/python -m engine.build

build: $(MODULE)

run: build
	@echo "Kibitz UCI engine: try 'uci', 'position startpos', 'go perft 5', 'd', 'quit'."
	$(BIN)/python -m engine.uci

test: build
	$(BIN)/python -m ruff check engine tests benchmarks
	$(BIN)/python -m pytest -q

lint: $(INSTALLED)
	$(BIN)/python -m ruff check engine tests benchmarks

bench: build
	$(BIN)/python benchmarks/perft.py
	$(BIN)/python benchmarks/startup.py

clean:
	rm -rf $(VENV) .numba_cache engine/_compiled*.so .pytest_cache .ruff_cache
