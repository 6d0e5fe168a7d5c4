"""Transposition table: two-entry buckets in a uint64 array, logically fresh for every search.

tt has 4 words per bucket: (key ^ salt ^ data, data) twice. data packs
  bits  0-15 move | 16-31 score + 32768 | 32-47 static eval + 32768 | 48-55 depth + 8 | 56-57 bound
  bits 58-62 epoch | 63 the node was on a principal variation
The array is reused from search to search (no page faults, no clearing), yet each search sees only
its own entries: it stamps them with its epoch and stores keys XORed with its own salt. An entry of
another epoch counts as empty, exactly as in a zeroed table, so results do not depend on what ran
before. Mate scores are stored relative to the node and converted back on probing.

The key word holds the data XORed in, so that threads sharing the table (Lazy SMP) need no lock:
an entry torn by two threads writing at once (one thread's key beside the other's data) no longer
matches its key and reads as empty. A matching entry can still, very rarely, belong to another
position with the same key bits; its move is used only if the move generator also produces it.
"""

import numpy as np
from numba import njit

from engine.core.bitboard import U64
from engine.core.intrinsics import prefetch
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
def pack(move, score, ev, depth, bound, epoch, pv):
    return (
        U64(move & 0xFFFF)
        | (U64(score + 32768) << U64(16))
        | (U64(ev + 32768) << U64(32))
        | (U64(depth + 8) << U64(48))
        | (U64(bound) << U64(56))
        | (U64(epoch) << U64(58))
        | (U64(pv) << U64(63))
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
def data_epoch(d):
    return np.int64((d >> U64(58)) & U64(31))


@njit(inline="always")
def data_pv(d):
    return np.int64(d >> U64(63))


@njit(inline="always")
def _live_depth(d, epoch):
    """Depth of an entry of this search; entries of other searches (or never written) rank below all."""
    return data_depth(d) if data_epoch(d) == epoch else -99


@njit(inline="always")
def prefetch_bucket(tt, mask, key):
    """Start loading key's bucket into cache (the probe in the child node then rarely waits on memory)."""
    prefetch(tt, np.int64((key & U64(mask)) * U64(4)))


@njit(inline="always")
def probe(tt, mask, key, epoch, salt):
    """The data word stored for key by this search, or 0 (no entry: bound 0)."""
    i = (key & U64(mask)) * U64(4)
    k = key ^ salt
    d = tt[i + U64(1)]
    if tt[i] ^ d == k and data_epoch(d) == epoch:
        return d
    d = tt[i + U64(3)]
    if tt[i + U64(2)] ^ d == k and data_epoch(d) == epoch:
        return d
    return U64(0)


@njit(inline="always")
def store(tt, mask, key, epoch, salt, move, score, ev, depth, bound, ply, pv):
    i = (key & U64(mask)) * U64(4)
    k = key ^ salt
    d0 = _live_depth(tt[i + U64(1)], epoch)
    d1 = _live_depth(tt[i + U64(3)], epoch)
    same0 = tt[i] ^ tt[i + U64(1)] == k
    same1 = tt[i + U64(2)] ^ tt[i + U64(3)] == k
    # Same position: overwrite in place. Otherwise replace the shallower (or stale) slot.
    if same0 and d0 != -99:
        slot = i
    elif same1 and d1 != -99:
        slot = i + U64(2)
    elif d0 <= d1:
        slot = i
    else:
        slot = i + U64(2)
    old = tt[slot + U64(1)]
    if tt[slot] ^ old == k and data_epoch(old) == epoch:
        # Keep an older, deeper exact entry unless this one is exact or deep enough; keep a known move.
        if bound != BOUND_EXACT and depth + 2 < data_depth(old):
            return
        if move == 0:
            move = data_move(old)
    data = pack(move, score_to_tt(score, ply), ev, depth, bound, epoch, pv)
    tt[slot] = k ^ data
    tt[slot + U64(1)] = data


@kernel
def hashfull(tt, epoch):
    """Permille of the first 1000 entries in use by this search (UCI `hashfull`)."""
    used = 0
    n = min(1000, tt.shape[0] // 2)
    for i in range(n):
        if data_epoch(tt[2 * i + 1]) == epoch:
            used += 1
    return used * 1000 // max(n, 1)
