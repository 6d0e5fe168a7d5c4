"""Zobrist keys: random uint64s per (piece, square), castling-rights mask, en-passant file and side,
and (Chess960) each castling right's rook file.

The keys come from splitmix64 with a fixed seed, so a position's key is the same in every process
and on every build (tests and logs can quote keys).
"""

import numpy as np
from numba import njit

from engine.core.bitboard import U64, ZERO
from engine.core.intrinsics import lsb
from engine.core.signatures import kernel
from engine.layout import (
    BB_ALL,
    NO_SQ,
    ST_CASTLE,
    ST_CASTLE_ROOK,
    ST_CHESS960,
    ST_EP,
    ST_SIDE,
    T_ZOBRIST_CASTLE,
    T_ZOBRIST_CASTLE_FILE,
    T_ZOBRIST_EP,
    T_ZOBRIST_PSQ,
    T_ZOBRIST_SIDE,
)

SEED = U64(0x4B6962697A7A2121)  # "Kibizz!!"


@njit(cache=True)
def _splitmix64(state):
    state = state + U64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31)), state


@njit(cache=True)
def fill_zobrist(T):
    s = SEED
    for i in range(16 * 64):
        T[T_ZOBRIST_PSQ + i], s = _splitmix64(s)
    # Castling keys are XOR-combinations of four per-right keys, so rights can be updated as a mask.
    base = np.empty(4, np.uint64)
    for i in range(4):
        base[i], s = _splitmix64(s)
    for mask in range(16):
        k = ZERO
        for i in range(4):
            if mask & (1 << i):
                k ^= base[i]
        T[T_ZOBRIST_CASTLE + mask] = k
    for f in range(8):
        T[T_ZOBRIST_EP + f], s = _splitmix64(s)
    T[T_ZOBRIST_SIDE], s = _splitmix64(s)
    # Chess960: a held right's rook file, drawn after every standard key so those stay as they were;
    # the standard file's entry is 0, so a standard position's key does not change.
    for right in range(4):
        for f in range(8):
            T[T_ZOBRIST_CASTLE_FILE + right * 8 + f], s = _splitmix64(s)
        T[T_ZOBRIST_CASTLE_FILE + right * 8 + (0 if right & 1 else 7)] = ZERO  # the h or a file


@njit(inline="always")
def castle_file_keys(T, st, rights):
    """The rook-file keys of the rights in `rights` (Chess960; 0 for standard squares)."""
    k = ZERO
    for right in range(4):
        if rights & (1 << right):
            k ^= T[T_ZOBRIST_CASTLE_FILE + right * 8 + (st[ST_CASTLE_ROOK + right] & 7)]
    return k


@kernel
def key_from_scratch(T, bb, board, st):
    """The position's key computed from nothing, to check the incremental one."""
    k = ZERO
    occ = bb[BB_ALL]
    while occ:
        sq = lsb(occ)
        occ &= occ - U64(1)
        k ^= T[T_ZOBRIST_PSQ + board[sq] * 64 + sq]
    k ^= T[T_ZOBRIST_CASTLE + st[ST_CASTLE]]
    if st[ST_CHESS960]:
        k ^= castle_file_keys(T, st, st[ST_CASTLE])
    if st[ST_EP] != NO_SQ:
        k ^= T[T_ZOBRIST_EP + (st[ST_EP] & 7)]
    if st[ST_SIDE] == 1:
        k ^= T[T_ZOBRIST_SIDE]
    return k
