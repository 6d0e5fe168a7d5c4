"""Transposition table: two-entry buckets in a uint64 array, fresh for every search.

tt has 4 words per bucket: (key, data) twice. data packs
  bits  0-15 move   | 16-31 score + 32768 | 32-47 static eval + 32768 | 48-55 depth + 8 | 56-57 bound
Mate scores are stored relative to the node (distance from it, not from the root) and converted back
on probing, so they stay right wherever the position recurs.
"""

import numpy as np
from numba import njit

from engine.core.bitboard import U64
from engine.core.signatures import kernel
from engine.layout import MATE_BOUND

BOUND_NONE = 0
BOUND_UPPER = 1  # score <= true value's upper bound (fail low)
BOUND_LOWER = 2  # fail high
BOUND_EXACT = 3

_M16 = U64(0xFFFF)


@njit(inline="always")
def score_to_tt(score, ply):
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


@njit(inline="always")
def score_from_tt(score, ply):
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


@njit(inline="always")
def pack(move, score, ev, depth, bound):
    return (
        U64(move & 0xFFFF)
        | (U64(score + 32768) << U64(16))
        | (U64(ev + 32768) << U64(32))
        | (U64(depth + 8) << U64(48))
        | (U64(bound) << U64(56))
    )


@njit(inline="always")
def data_move(d):
    return np.int64(d & _M16)


@njit(inline="always")
def data_score(d):
    return np.int64((d >> U64(16)) & _M16) - 32768


@njit(inline="always")
def data_eval(d):
    return np.int64((d >> U64(32)) & _M16) - 32768


@njit(inline="always")
def data_depth(d):
    return np.int64((d >> U64(48)) & U64(0xFF)) - 8


@njit(inline="always")
def data_bound(d):
    return np.int64((d >> U64(56)) & U64(3))


@njit(inline="always")
def probe(tt, mask, key):
    """The data word stored for key, or 0 (no entry: bound 0)."""
    i = (key & U64(mask)) * U64(4)
    if tt[i] == key:
        return tt[i + U64(1)]
    if tt[i + U64(2)] == key:
        return tt[i + U64(3)]
    return U64(0)


@njit(inline="always")
def store(tt, mask, key, move, score, ev, depth, bound, ply):
    i = (key & U64(mask)) * U64(4)
    # Same position: overwrite in place. Otherwise keep the deeper of the two slots and replace the other.
    if tt[i] == key:
        slot = i
    elif tt[i + U64(2)] == key:
        slot = i + U64(2)
    elif data_depth(tt[i + U64(1)]) <= data_depth(tt[i + U64(3)]) or tt[i] == U64(0):
        slot = i
    else:
        slot = i + U64(2)
    old = tt[slot + U64(1)]
    if tt[slot] == key:
        # Keep an older, deeper exact entry unless this one is exact or deep enough; keep a known move.
        if bound != BOUND_EXACT and depth + 2 < data_depth(old):
            return
        if move == 0:
            move = data_move(old)
    tt[slot] = key
    tt[slot + U64(1)] = pack(move, score_to_tt(score, ply), ev, depth, bound)


@kernel
def hashfull(tt):
    """Permille of the first 1000 entries in use (UCI `hashfull`)."""
    used = 0
    n = min(1000, tt.shape[0] // 2)
    for i in range(n):
        if tt[2 * i] != U64(0):
            used += 1
    return used * 1000 // max(n, 1)
