"""The compiled core, loaded once per process: the ahead-of-time module if present, else the JIT.

`core` is the module whose functions Python calls (engine._compiled, or engine.core.exports under
numba's JIT); `BACKEND` says which ("aot" or "jit"); `TABLES` holds the attack tables and Zobrist
keys, built here once per process (in Lambda: once per warm container) and shared by every call;
`NET` the learned evaluation's weights (engine/nnue.py), read once from engine/nets/kibitz.nnue.

KIBITZ_BACKEND=jit forces the JIT, =aot refuses to fall back. A compiled module built from other
sources than the ones beside it is stale: it is not used, and a warning says so.
"""

import os
import sys
import time

import numpy as np

from engine import nnue
from engine.buildinfo import source_hash
from engine.layout import T_SIZE


def load_aot():
    """engine._compiled if it is importable and built from the current sources, else None."""
    try:
        from engine import _compiled
    except ImportError:
        return None
    expected = source_hash()
    if expected is not None and _compiled.build_hash() != expected:
        print("kibitz: engine/_compiled is stale (sources changed since `make build`); using the JIT",
              file=sys.stderr)
        return None
    return _compiled


def load_jit():
    """engine.core.exports under numba's JIT (cached per source version, see engine/core/__init__.py)."""
    from engine.core import exports

    return exports


def _select():
    wanted = os.environ.get("KIBITZ_BACKEND", "")
    if wanted not in ("", "aot", "jit"):
        raise ValueError(f"KIBITZ_BACKEND must be 'aot' or 'jit', not {wanted!r}")
    if wanted != "jit":
        module = load_aot()
        if module is not None:
            return module, "aot"
        if wanted == "aot":
            raise ImportError("KIBITZ_BACKEND=aot but engine/_compiled is missing or stale: run `make build`")
    return load_jit(), "jit"


def _build_tables():
    global TABLE_BUILDS, TABLE_BUILD_MS
    t0 = time.perf_counter()
    tables = np.zeros(T_SIZE, dtype=np.uint64)
    core.build_tables(tables)
    TABLE_BUILD_MS = (time.perf_counter() - t0) * 1000.0
    TABLE_BUILDS += 1
    return tables


core, BACKEND = _select()
TABLE_BUILDS = 0  # how many times this process built the tables: once, at import (tests check it)
TABLE_BUILD_MS = 0.0
TABLES = _build_tables()
NET = nnue.load()  # the learned evaluation's weights, read once per process like the tables
