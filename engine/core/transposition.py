"""Transposition table: two-entry buckets in a uint64 array, logically fresh for every search.

tt has 4 words per bucket: (key ^ salt ^ data, data) twice. data packs
  bits  0-15 move | 16-31 score + 32768 | 32-47 static eval + 32768 | 48-55 depth + 8 | 56-57 bound
  bits 58-62 epoch | 63 unused (0)
The array is reused from search to search (no page faults, no clearing), yet each search sees only
its own entries: it stamps them with its epoch and stores keys XORed with its own salt. An entry of
another epoch counts as empty, exactly as in a zeroed table, so results do not depend on what ran
before. Mate scores are stored relative to the node and converted back on probing.

The searches of one game (UCI) share a salt instead, and each passes `ages`: how many earlier epochs
still count. Their entries are probed as this search's own, and in replacement rank 8 plies lower
for every search since they were written, so the game's old entries give way to new ones first.

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
from engine.layout import TB_BOUND, TT_EPOCHS

BOUND_UPPER = 1  # score <= true value's upper bound (fail low)
BOUND_LOWER = 2  # fail high
BOUND_EXACT = 3

_M16 = U64(0xFFFF)
AGE_PLIES = 8  # an entry of the game's previous search ranks as 8 plies shallower in replacement
DEAD = -999  # the rank of an empty slot or another search's entry: replaced first


@njit(inline="always")
def score_to_tt(score, ply):
    # mates and the endgame tables' wins and losses count from the node, not the root
    if score >= TB_BOUND:
        return score + ply
    if score <= -TB_BOUND:
        return score - ply
    return score


@njit(inline="always")
def score_from_tt(score, ply):
    if score >= TB_BOUND:
        return score - ply
    if score <= -TB_BOUND:
        return score + ply
    return score


@njit(inline="always")
def pack(move, score, ev, depth, bound, epoch):
    return (
        U64(move & 0xFFFF)
        | (U64(score + 32768) << U64(16))
        | (U64(ev + 32768) << U64(32))
        | (U64(depth + 8) << U64(48))
        | (U64(bound) << U64(56))
        | (U64(epoch) << U64(58))
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
def _age(d, epoch):
    """Searches since the entry was written (0: this one), or -1 for an empty slot."""
    e = data_epoch(d)
    return (epoch - e + TT_EPOCHS) % TT_EPOCHS if e != 0 else -1


@njit(inline="always")
def _live(d, epoch, ages):
    """The entry belongs to this search or, within `ages`, to an earlier search of its game."""
    a = _age(d, epoch)
    return a >= 0 and a <= ages


@njit(inline="always")
def _rank(d, epoch, ages):
    """How much an entry is worth keeping: its depth, less AGE_PLIES a search of age; DEAD if not live."""
    a = _age(d, epoch)
    return data_depth(d) - AGE_PLIES * a if a >= 0 and a <= ages else DEAD


@njit(inline="always")
def prefetch_bucket(tt, mask, key):
    """Start loading key's bucket into cache (the probe in the child node then rarely waits on memory)."""
    prefetch(tt, np.int64((key & U64(mask)) * U64(4)))


@njit(inline="always")
def probe(tt, mask, key, epoch, salt, ages):
    """The data word stored for key by this search (or its game's last `ages`), or 0 (no entry: bound 0)."""
    i = (key & U64(mask)) * U64(4)
    k = key ^ salt
    d = tt[i + U64(1)]
    if tt[i] ^ d == k and _live(d, epoch, ages):
        return d
    d = tt[i + U64(3)]
    if tt[i + U64(2)] ^ d == k and _live(d, epoch, ages):
        return d
    return U64(0)


@njit(inline="always")
def store(tt, mask, key, epoch, salt, move, score, ev, depth, bound, ply, ages):
    i = (key & U64(mask)) * U64(4)
    k = key ^ salt
    r0 = _rank(tt[i + U64(1)], epoch, ages)
    r1 = _rank(tt[i + U64(3)], epoch, ages)
    same0 = tt[i] ^ tt[i + U64(1)] == k
    same1 = tt[i + U64(2)] ^ tt[i + U64(3)] == k
    # Same position: overwrite in place. Otherwise replace the lower-ranked (shallower, older or dead) slot.
    if same0 and r0 != DEAD:
        slot = i
    elif same1 and r1 != DEAD:
        slot = i + U64(2)
    elif r0 <= r1:
        slot = i
    else:
        slot = i + U64(2)
    old = tt[slot + U64(1)]
    if tt[slot] ^ old == k and _live(old, epoch, ages):
        # Keep a deeper exact entry of this search unless this one is exact or deep enough; keep a known move.
        if data_epoch(old) == epoch and bound != BOUND_EXACT and depth + 2 < data_depth(old):
            return
        if move == 0:
            move = data_move(old)
    data = pack(move, score_to_tt(score, ply), ev, depth, bound, epoch)
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
