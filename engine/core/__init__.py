"""The compiled core: numba code over numpy arrays, built ahead of time into engine/_compiled*.so.

Nothing here is imported at run time when the compiled module is present (see engine/native.py).

numba's on-disk cache only notices edits to the file that holds a cached function, not to the
functions it calls, so under the JIT the cache lives in .numba_cache/<hash of all core sources>:
any edit anywhere in the core starts a fresh cache instead of running stale machine code.
"""

import os

if "NUMBA_CACHE_DIR" not in os.environ:
    from numba.core import config as _config

    from engine.buildinfo import ENGINE_DIR, source_hash

    _config.CACHE_DIR = str(ENGINE_DIR.parent / ".numba_cache" / f"{source_hash():016x}")


def _index_without_wraparound():
    """numba lets a negative array index count from the end: a sign test and an add at every access, and
    the array's length kept at hand (make_move's code is a quarter shorter without). The core never indexes
    from the end (its indices are squares, plies, pieces and offsets built from them), so code compiled
    from engine.core indexes directly; other numba code in the process keeps numpy's rule."""
    from numba.core import types
    from numba.np import arrayobj

    wraparound = arrayobj.fix_integer_index
    if getattr(wraparound, "kibitz", False):
        return

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and "6engine4core" in builder.function.name:  # mangled "engine.core."
            return context.cast(builder, idx, idxty, types.intp)
        return wraparound(context, builder, idxty, idx, size)

    fix_integer_index.kibitz = True
    arrayobj.fix_integer_index = fix_integer_index


_index_without_wraparound()
