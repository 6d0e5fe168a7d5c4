# Kibitz — `make run` and `make test` are all a fresh machine needs.
#
# One interpreter, Python 3.13 (Lambda's python3.13 runtime), for .venv/, the layers and the functions:
# .ci/python313.sh finds it (PYTHON=..., python3.13 on PATH, pyenv's versions/3.13*, uv) or builds it
# once into ~/.cache/kibitz/python-3.13 (docs/python313.md). It runs only when .venv/ is missing or is not 3.13.
PYTHON ?=
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
IS_313 := import sys; sys.exit(sys.version_info[:2] != (3, 13))
# The compiled module's file name; before .venv/ exists, what CPython 3.13 on Linux x86_64 names it.
EXT := $(or $(shell test -x $(BIN)/python && $(BIN)/python -c "$(IS_313); import sysconfig; \
	print(sysconfig.get_config_var('EXT_SUFFIX'))" 2>/dev/null),.cpython-313-x86_64-linux-gnu.so)
MODULE := engine/_compiled$(EXT)
CORE_SOURCES := $(wildcard engine/core/*.py) engine/layout.py engine/params.py engine/build.py engine/buildinfo.py

# aws-sam-cli in a venv of its own (its pins would fight the project's); the tests run `sam build` with it.
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_INSTALLED := $(SAM_VENV)/.installed
# checkov (template security checks) in a venv of its own too: it pins much of what the project uses.
CHECKOV_VENV := .venv-checkov
CHECKOV := $(CHECKOV_VENV)/bin/checkov
CHECKOV_INSTALLED := $(CHECKOV_VENV)/.installed
LINT_PATHS := engine tests benchmarks functions kibitz training
CURL_EXAMPLE := curl -s -X POST http://127.0.0.1:3000/analyze -H 'Content-Type: application/json' \
	-d '{\"fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\", \"movetime_ms\": 500}'

BATCH_EXAMPLE := .venv/bin/kibitz batch submit benchmarks/data/bratko_kopec.epd --movetime-ms 200 --wait --format epd

.PHONY: all venv build run test test-fast lint bench clean sam sam-build browser checkov

all: build

# A .venv/ of another Python (3.11 before issue 16) is out of date, however new: it is made again.
ifneq ($(shell $(BIN)/python -c "$(IS_313)" 2>/dev/null && echo yes),yes)
.PHONY: $(INSTALLED)
endif
$(INSTALLED): pyproject.toml
	@if ! $(BIN)/python -c "$(IS_313)" 2>/dev/null; then \
		python=$$(PYTHON='$(PYTHON)' .ci/python313.sh) || exit 1; \
		rm -rf $(VENV) && echo "$$python -m venv $(VENV)" && $$python -m venv $(VENV); fi
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

venv: $(INSTALLED)

# The ahead-of-time compiled core (numba.pycc + zig clang, for glibc 2.26 and haswell; Lambda's
# Amazon Linux 2023 has 2.34).
$(MODULE): $(INSTALLED) $(CORE_SOURCES)
	$(BIN)/python -m engine.build

build: $(MODULE)

# On the project's Python 3.13 too. sam build only runs the Makefiles, so an existing .venv-sam/ of
# another Python that aws-sam-cli runs on is kept.
$(SAM_INSTALLED): | $(INSTALLED)
	test -x $(SAM_VENV)/bin/python || $(BIN)/python -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install --quiet --upgrade pip
	$(SAM_VENV)/bin/pip install --quiet 'aws-sam-cli>=1.140,<2'
	touch $@

sam: $(SAM_INSTALLED)

# On the project's Python 3.13 as well (PYTHON is only a hint for .ci/python313.sh, often empty).
$(CHECKOV_INSTALLED): | $(INSTALLED)
	test -x $(CHECKOV_VENV)/bin/python || $(BIN)/python -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet --upgrade pip
	$(CHECKOV_VENV)/bin/pip install --quiet 'checkov>=3.2,<4'
	touch $@

# Every finding is fixed or skipped in template.yaml with its reason (# checkov:skip=...); offline.
checkov: $(CHECKOV_INSTALLED)
	$(CHECKOV) -f template.yaml --framework cloudformation --compact --quiet --skip-download

# What `sam deploy` ships: .aws-sam/build (EngineLayer via layers/engine/Makefile, AnalyzeFunction via pip).
sam-build: build $(SAM_INSTALLED)
	SAM_CLI_TELEMETRY=0 $(SAM) build

# The analysis API on http://127.0.0.1:3000, as `sam local start-api` would serve it (no Docker needed),
# with batch jobs: SQS and DynamoDB embedded (moto on 127.0.0.1) and local pollers running BatchFunction.
# The UCI engine itself: .venv/bin/python -m engine.uci
run: build
	@echo "Kibitz on http://127.0.0.1:3000/ : open it in a browser to try the API (Swagger UI: /swagger). Or try:"
	@echo "  $(CURL_EXAMPLE)"
	@echo "Batch jobs on /jobs (SQS and DynamoDB embedded). Try, from another shell:"
	@echo "  $(BATCH_EXAMPLE)"
	$(BIN)/kibitz serve

# The page's browser tests (tests/test_page_browser.py) drive Debian's chromium: installed here when it
# is missing (apt-get, as root). If that fails they skip, loudly, and under CI they fail.
CHROMIUM := /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { echo "Installing Debian's chromium for the page's browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo "WARNING: could not install $(CHROMIUM): the page's browser tests will not run" >&2

test: build $(SAM_INSTALLED) browser checkov
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(BIN)/cfn-lint template.yaml
	KIBITZ_SAM=$(SAM) $(BIN)/python -m pytest -q

# The unit tier only (tests/conftest.py assigns the tiers: in-process tests, no moto, servers, artifacts or
# browser, nothing marked slow), for the edit-and-test loop: a few minutes on a built checkout, and it says how
# long it took. `make test` above is what CI runs (.ci/run): lint, the template checks and every tier.
test-fast: build
	@start=$$(date +%s); $(BIN)/python -m pytest -q -m "unit and not slow"; status=$$?; \
		echo "make test-fast: the unit tier took $$(( $$(date +%s) - start )) s"; exit $$status

lint: $(INSTALLED)
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(BIN)/cfn-lint template.yaml

# What to run first (each script's --help and docstring say more; docs/benchmarks.md holds the figures).
# `make bench` prints this list and runs the first two, which take about a minute.
define BENCH_LIST
  python -m benchmarks.perft              perft speed: the compiled move generator beside python-chess and Stockfish
  python -m benchmarks.startup            engine cold start: import + tables, and uci -> uciok
  python -m benchmarks.search bench       the bench signature and nodes/s (bench-ab --b-dir CHECKOUT: two builds)
  python -m benchmarks.search wac         Win At Chess solved at 1 s a position (sts: the Strategic Test Suite)
  python -m benchmarks.api                the API's goals: cold start, warm overhead, budget, layer size
  python -m benchmarks.match self ...     A/B matches with SPRT (stockfish --elo N: the strength ladder)
  python -m benchmarks.batch              batch jobs: positions per second with 1..N pollers
endef
export BENCH_LIST

bench: build
	@echo "Benchmarks, run from the checkout's root as modules (.venv/bin/python -m benchmarks.NAME [--record]):"
	@echo "$$BENCH_LIST"
	$(BIN)/python -m benchmarks.perft
	$(BIN)/python -m benchmarks.startup

clean:
	rm -rf $(VENV) $(SAM_VENV) $(CHECKOV_VENV) .aws-sam layers/engine/build .numba_cache engine/_compiled*.so .pytest_cache .ruff_cache
