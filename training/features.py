"""Records -> the network's input features, for both perspectives.

A piece's feature, seen from perspective P (0 White, 1 Black), is

    (colour != P) * 384 + (type - 1) * 64 + (square ^ 56 * P)

so each side sees the board from its own first rank with its own pieces first (engine/nnue.py
defines the same for the engine). A position gives two lists: the side to move's and the other's.
"""

import numpy as np
from numba import njit, prange

MAX_PIECES = 32
N_FEATURES = 768


@njit(inline="always")
def feature(piece, sq, persp):
    return ((piece >> 3) ^ persp) * 384 + ((piece & 7) - 1) * 64 + (sq ^ (56 * persp))


@njit(parallel=True, cache=True)
def _extract(occ, pieces, stm, own, other, count):
    for i in prange(len(occ)):
        o = occ[i]
        k = 0
        for sq in range(64):
            if (o >> np.uint64(sq)) & np.uint64(1):
                byte = pieces[i, k >> 1]
                p = (byte >> 4) if k & 1 else (byte & 15)
                s = stm[i]
                own[i, k] = feature(np.int64(p), sq, np.int64(s))
                other[i, k] = feature(np.int64(p), sq, np.int64(s ^ 1))
                k += 1
        count[i] = k
        for j in range(k, MAX_PIECES):
            own[i, j] = 0
            other[i, j] = 0


def extract(recs):
    """(own, other, count): int16 feature indices [n, 32] for the side to move and the other side, and
    how many of each row are pieces."""
    n = len(recs)
    own = np.zeros((n, MAX_PIECES), np.int16)
    other = np.zeros((n, MAX_PIECES), np.int16)
    count = np.zeros(n, np.int8)
    if n:
        _extract(np.ascontiguousarray(recs["occ"]), np.ascontiguousarray(recs["pieces"]),
                 np.ascontiguousarray(recs["stm"]), own, other, count)
    return own, other, count
