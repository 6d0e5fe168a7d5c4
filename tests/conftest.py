"""Shared fixtures: the data folder (tests/data, with its SOURCES.md) and both backends of the compiled core."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(os.environ.get("KIBITZ_DATA", ROOT / "tests" / "data"))


def data_file(name):
    path = DATA / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the tests read tests/data (or $KIBITZ_DATA)")
    return path


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
