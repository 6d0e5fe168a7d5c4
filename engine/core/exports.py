"""Entry points of the compiled core: what Python may call.

Each is registered with its numba signature. Under the JIT (engine/native.py's fallback) they are
lazily compiled, cached @njit functions; engine/build.py compiles the same functions ahead of time
into engine/_compiled*.so with those signatures. Both paths therefore run this very source.
"""

import numpy as np
from numba import njit

from engine.core import attacks, movegen, nnue, position, search, tbprobe, transposition, zobrist
from engine.core import perft as perft_mod
from engine.core.intrinsics import acquire_gil, release_gil
from engine.core.signatures import POS, TABLES
from engine.layout import BB_ALL, MAX_MOVES, ST_SIDE

EXPORTS = {}  # name -> (signature, python function)


def export(signature, cache=True):
    def register(fn):
        EXPORTS[fn.__name__] = (signature, fn)
        return njit(cache=cache)(fn)

    return register


@export(f"i8({TABLES})")
def build_tables(T):
    return attacks.build_tables(T)


@export(f"i8({TABLES}, {POS}, i4[::1], i8, i8)")
def generate(T, bb, board, st, keys, undo, moves, start, kind):
    return movegen.generate(T, bb, st, moves, start, kind)


@export(f"void({TABLES}, {POS}, i4)")
def make_move(T, bb, board, st, keys, undo, m):
    position.make_move(T, bb, board, st, keys, undo, m)


@export(f"void({TABLES}, {POS}, i4)")
def unmake_move(T, bb, board, st, keys, undo, m):
    position.unmake_move(T, bb, board, st, keys, undo, m)


@export(f"u8({TABLES}, {POS})")
def key_from_scratch(T, bb, board, st, keys, undo):
    return zobrist.key_from_scratch(T, bb, board, st)


@export(f"u8({TABLES}, {POS})")
def checkers(T, bb, board, st, keys, undo):
    return movegen.checkers_of(T, bb, st)


@export(f"i8({TABLES}, {POS}, i8)")
def perft(T, bb, board, st, keys, undo, depth):
    if depth <= 0:
        return 1
    moves = np.empty(depth * MAX_MOVES, np.int32)
    ts = release_gil()
    n = perft_mod.perft_from(T, bb, board, st, keys, undo, moves, depth)
    acquire_gil(ts)
    return n


@export(f"i8({TABLES}, {POS}, i8, i4[::1], i8[::1])")
def divide(T, bb, board, st, keys, undo, depth, out_moves, out_counts):
    return perft_mod.divide(T, bb, board, st, keys, undo, depth, out_moves, out_counts)



@export(f"i8({TABLES}, {POS}, u8[::1], i4[::1], i8[::1], i2[::1], i2[::1], i2[::1], u1[::1], i8[::1])",
        cache=False)  # recursive code
def search_depth(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI):
    """One iteration of iterative deepening (all multipv lines), with the GIL released."""
    ts = release_gil()
    lines = search.iterate(T, bb, board, st, keys, undo, tt, S, ctl, NET, ACC, H, TB, TBI)
    acquire_gil(ts)
    return lines


@export(f"void(i2[::1], i2[::1], i8, {POS})")
def nnue_refresh(NET, ACC, ply, bb, board, st, keys, undo):
    nnue.refresh(NET, ACC, ply, bb, board)


@export("void(i2[::1], i2[::1], i8, i1[::1], i4)")
def nnue_push_move(NET, ACC, ply, board, m):
    nnue.push_move(NET, ACC, ply, board, m)


@export(f"i8(i2[::1], i2[::1], i8, {POS})")
def nnue_evaluate(NET, ACC, ply, bb, board, st, keys, undo):
    return nnue.evaluate(NET, ACC, ply, st[ST_SIDE], bb[BB_ALL])


@export("u8(u8[::1], i8, u8, i8, u8, i8)")
def tt_probe(tt, mask, key, epoch, salt, ages):
    return transposition.probe(tt, mask, key, epoch, salt, ages)


@export("i8(u8[::1], i8)")
def hashfull(tt, epoch):
    return transposition.hashfull(tt, epoch)


@export(f"i8({POS}, u1[::1], i8[::1])")
def tb_probe(bb, board, st, keys, undo, TB, TBI):
    """The search's probe of the endgame tables (engine/core/tbprobe.py), for tests."""
    return tbprobe.probe(bb, board, st, TB, TBI)

