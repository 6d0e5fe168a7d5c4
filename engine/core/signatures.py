"""numba type strings for the arrays every entry point takes, and the decorator for recursive functions.

Recursive functions need explicit signatures for the ahead-of-time build (pycc cannot compile a
recursive function typed by inference), and the exports in engine/core/exports.py need them anyway.
"""

import os

from numba import njit

TABLES = "u8[::1]"
POS = "u8[::1], i1[::1], i4[::1], u8[::1], i4[:, ::1]"  # bb, board, st, keys, undo

AOT_BUILD = os.environ.get("KIBITZ_AOT_BUILD") == "1"  # set by engine/build.py


def recursive(signature):
    """@njit for a recursive function.

    Ahead of time it gets its explicit signature (pycc needs one for recursion). Under the JIT it is
    typed lazily and never cached: an explicit signature would compile the whole search eagerly at
    import, and numba's cache cannot reload recursive functions (it crashes).
    """
    return njit(signature) if AOT_BUILD else njit
