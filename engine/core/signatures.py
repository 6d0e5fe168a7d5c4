"""numba type strings for the arrays every entry point takes.

Recursive functions need explicit signatures for the ahead-of-time build (pycc cannot compile a
recursive function typed by inference), and the exports in engine/core/exports.py need them anyway.
"""

TABLES = "u8[::1]"
POS = "u8[::1], i1[::1], i4[::1], u8[::1], i4[:, ::1]"  # bb, board, st, keys, undo
