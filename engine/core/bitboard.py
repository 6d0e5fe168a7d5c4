"""Bitboard constants and helpers.

Every bitboard is a uint64 and stays one: numba turns uint64 mixed with int64 into float64, so all
bitboard constants here are np.uint64 and shifts take an int64 amount on a uint64 value.
"""

import numpy as np
from numba import njit

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)
FULL = U64(0xFFFFFFFFFFFFFFFF)

FILE_A = U64(0x0101010101010101)
FILE_H = FILE_A << U64(7)
NOT_FILE_A = ~FILE_A
NOT_FILE_H = ~FILE_H

RANK_1 = U64(0xFF)
RANK_3 = RANK_1 << U64(16)
RANK_6 = RANK_1 << U64(40)
RANK_8 = RANK_1 << U64(56)

S8 = U64(8)
S7 = U64(7)
S9 = U64(9)


@njit(inline="always")
def pawn_attacks_set(b, color):
    """Squares attacked by a set of pawns of `color`."""
    if color == 0:
        return ((b & NOT_FILE_A) << S7) | ((b & NOT_FILE_H) << S9)
    return ((b & NOT_FILE_A) >> S9) | ((b & NOT_FILE_H) >> S7)
