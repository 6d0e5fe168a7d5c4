"""Shared fixtures: the data folder (tests/data, with its SOURCES.md), both backends of the compiled core, and the
template's functions loaded in this process (function_runtime, runtime)."""

import contextlib
import io
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(os.environ.get("KIBITZ_DATA", ROOT / "tests" / "data"))
SUITES = ROOT / "benchmarks" / "data"  # what the benchmarks read too (WAC, the UHO book): benchmarks/data/SOURCES.md
# How late a search that keeps its deadline (or obeys `stop`) may still end when the machine is busy:
# two cores shared with other jobs delay any process by scheduling alone. The deadline tests allow this
# much, so that load cannot fail them, and it is still far short of a search that misses its deadline
# (it would run on to its depth limit: minutes). How late the engine really is, is measured by
# benchmarks/search.py (the deadline's p99), not asserted here.
LATE_MS = 1000


def data_file(name):
    path = DATA / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the tests read tests/data (or $KIBITZ_DATA)")
    return path


@contextlib.contextmanager
def captured(runtime):
    """What a function (a kibitz.local.runtime.FunctionRuntime) prints while the block runs: its metrics (print)
    and its logs (its module's Powertools Logger, whose stream is the sys.stdout of its import)."""
    handler = sys.modules[runtime.load().__module__].logger.registered_handler
    out = io.StringIO()
    saved = handler.setStream(out)
    try:
        with contextlib.redirect_stdout(out):
            yield out
    finally:
        handler.setStream(saved)


@pytest.fixture(scope="module")
def function_runtime():
    """A factory: function_runtime("JobsFunction") is the template's function of that name, loaded in this process
    (kibitz.local.runtime.FunctionRuntime: its handler imported, its init's output swallowed), one per name and
    module; every invoke after the first is warm."""
    from kibitz.local import template
    from kibitz.local.runtime import FunctionRuntime

    loaded = {}

    def get(name):
        if name not in loaded:
            rt = FunctionRuntime(template.load()[name])
            with contextlib.redirect_stdout(io.StringIO()):
                rt.load()
            loaded[name] = rt
        return loaded[name]

    return get


@pytest.fixture(scope="module")
def runtime(function_runtime):
    """AnalyzeFunction, loaded (tests/test_api.py, test_api_explain.py, test_bill.py call it)."""
    return function_runtime("AnalyzeFunction")


@pytest.fixture(scope="session")
def aot():
    from engine import native

    module = native.load_aot()
    assert module is not None, "engine/_compiled is missing or stale: run `make build`"
    return module


@pytest.fixture(scope="session")
def jit():
    from engine import native

    return native.load_jit()


@pytest.fixture(scope="session", params=["aot", "jit"])
def backend(request):
    """Each compiled-core test runs against the ahead-of-time module and under the JIT."""
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def tables():
    from engine import native

    return native.TABLES


# The tiers (issue 67): `make test-fast` runs the unit tier less its slow tests, `make test` (CI) runs everything.
# A module is unit unless named here.
# Debian's chromium through Playwright
BROWSER = {"test_page_browser", "test_page_live_browser", "test_page_coach_browser"}
INTEGRATION = {
    # moto-backed AWS (S3, SQS, DynamoDB servers on 127.0.0.1) and the local stack
    "test_analysis_cache", "test_batch", "test_batch_local", "test_bill", "test_cache_batch", "test_jobs_api",
    "test_jobs_chess960", "test_live", "test_live_server", "test_s3_drop", "test_s3_jobs", "test_s3_chess960",
    "test_jobs_positions", "test_review", "test_page", "test_puzzles", "test_review_lichess",
    # built artifacts, other interpreters, sam and the compiler
    "test_api_artifact", "test_api_local", "test_api_template", "test_api_fuzz", "test_build", "test_python313",
    "test_snapstart", "test_live_template",
    # processes of their own: engines over UCI, matches, self-play workers
    "test_match_journal", "test_uci", "test_uci_search", "test_bench", "test_smp",
}
# In-process, but minutes of the unit tier: slow, so left to make test (durations from a run of the unit tier)
# (A loaded 2-core host, 2026-12-02: ~130-150 s each; the unit tier was ~15 min with them.)
SLOW = {
    "test_answers": "parses every kept journal's games for the fixed sample",
    "test_differential": "300 random games move by move against python-chess",
    "test_properties": "Hypothesis: thousands of generated FENs, EPDs and games",
    "test_endgames": "searches of a million nodes a move, replaying ladder games",
    "test_store": "plays self-play games: compiles the whole game loop with numba",
    "test_tablebase4": "checks every value of each 4-piece table against its children",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.path.stem
        if module in BROWSER:
            item.add_marker(pytest.mark.browser)
        elif module in INTEGRATION:
            item.add_marker(pytest.mark.integration)
        else:
            item.add_marker(pytest.mark.unit)
        if module in SLOW:
            item.add_marker(pytest.mark.slow)  # SLOW[module] says why
