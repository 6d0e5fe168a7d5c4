"""numba type strings for the arrays every entry point takes, and the decorator for recursive functions.

Recursive functions need explicit signatures for the ahead-of-time build (pycc cannot compile a
recursive function typed by inference), and the exports in engine/core/exports.py need them anyway.
"""

import os

from numba import njit

TABLES = "u8[::1]"
POS = "u8[::1], i1[::1], i4[::1], u8[::1], i4[:, ::1]"  # bb, board, st, keys, undo

AOT_BUILD = os.environ.get("KIBITZ_AOT_BUILD") == "1"  # set by engine/build.py


def kernel(fn):
    """@njit for hot code that never allocates: compiled without numba's reference counting.

    With NRT on, every call passing arrays increfs and decrefs each one (atomic operations); in the
    search that was half of all the time spent. Code under this decorator must not create arrays.
    """
    return njit(cache=True, _nrt=False)(fn)


def recursive(signature):
    """@njit for a recursive function (and, like kernel(), without reference counting).

    Ahead of time it gets its explicit signature: pycc needs one for recursion. Under the JIT it is
    typed lazily and not cached: an explicit signature would compile the whole search eagerly at
    import, and numba's cache cannot reload recursive functions (it crashes).
    """
    return njit(signature, _nrt=False) if AOT_BUILD else njit(_nrt=False)
