"""Shared fixtures: the data folder (tests/data, with its SOURCES.md) and both backends of the compiled core."""

import contextlib
import io
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(os.environ.get("KIBITZ_DATA", ROOT / "tests" / "data"))
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
    """What a function (a kibitz.runtime.FunctionRuntime) prints while the block runs: its metrics (print)
    and its logs (its module's Powertools Logger, whose stream is the sys.stdout of its import)."""
    handler = sys.modules[runtime.load().__module__].logger.registered_handler
    out = io.StringIO()
    saved = handler.setStream(out)
    try:
        with contextlib.redirect_stdout(out):
            yield out
    finally:
        handler.setStream(saved)


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
