"""Perft: count leaf nodes of the legal move tree, with bulk counting one ply above the leaves."""

import numpy as np
from numba import njit

from engine.core.movegen import generate
from engine.core.position import make_move, unmake_move
from engine.core.signatures import POS, TABLES
from engine.layout import GEN_ALL, MAX_MOVES


@njit(f"i8({TABLES}, {POS}, i4[::1], i8)", cache=True, _nrt=False)
def perft_from(T, bb, board, st, keys, undo, moves, depth):
    """Leaves at `depth` below the position; moves[] is scratch, MAX_MOVES per ply of depth."""
    base = (depth - 1) * MAX_MOVES
    end = generate(T, bb, st, moves, base, GEN_ALL)
    if depth == 1:
        return end - base
    total = 0
    for i in range(base, end):
        m = moves[i]
        make_move(T, bb, board, st, keys, undo, m)
        total += perft_from(T, bb, board, st, keys, undo, moves, depth - 1)
        unmake_move(T, bb, board, st, keys, undo, m)
    return total


@njit(cache=True)
def divide(T, bb, board, st, keys, undo, depth, out_moves, out_counts):
    """Per-root-move leaf counts: writes out_moves/out_counts, returns the number of root moves."""
    moves = np.empty(MAX_MOVES * max(depth, 1) + MAX_MOVES, np.int32)
    root = moves[MAX_MOVES * max(depth, 1):]
    n = generate(T, bb, st, root, 0, GEN_ALL)
    for i in range(n):
        m = root[i]
        out_moves[i] = m
        if depth <= 1:
            out_counts[i] = 1
            continue
        make_move(T, bb, board, st, keys, undo, m)
        out_counts[i] = perft_from(T, bb, board, st, keys, undo, moves, depth - 1)
        unmake_move(T, bb, board, st, keys, undo, m)
    return n
