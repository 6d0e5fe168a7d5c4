"""Bitboard constants and helpers.

Every bitboard is a uint64 and stays one: numba turns uint64 mixed with int64 into float64, so all
bitboard constants here are np.uint64 and shifts take an int64 amount on a uint64 value.
"""

import numpy as np
from numba import njit

from engine.core.intrinsics import lsb

U64 = np.uint64
ZERO = U64(0)
ONE = U64(1)
FULL = U64(0xFFFFFFFFFFFFFFFF)

FILE_A = U64(0x0101010101010101)
FILE_B = FILE_A << U64(1)
FILE_G = FILE_A << U64(6)
FILE_H = FILE_A << U64(7)
NOT_FILE_A = ~FILE_A
NOT_FILE_H = ~FILE_H
NOT_FILE_AB = ~(FILE_A | FILE_B)
NOT_FILE_GH = ~(FILE_G | FILE_H)

RANK_1 = U64(0xFF)
RANK_2 = RANK_1 << U64(8)
RANK_3 = RANK_1 << U64(16)
RANK_4 = RANK_1 << U64(24)
RANK_5 = RANK_1 << U64(32)
RANK_6 = RANK_1 << U64(40)
RANK_7 = RANK_1 << U64(48)
RANK_8 = RANK_1 << U64(56)

LIGHT_SQUARES = U64(0x55AA55AA55AA55AA)
DARK_SQUARES = U64(0xAA55AA55AA55AA55)

S8 = U64(8)
S7 = U64(7)
S9 = U64(9)


@njit(inline="always")
def bit(sq):
    return ONE << U64(sq)


@njit(inline="always")
def pop_lsb(b):
    """(index of the lowest bit, b without it)."""
    return lsb(b), b & (b - ONE)


@njit(inline="always")
def north(b):
    return b << S8


@njit(inline="always")
def south(b):
    return b >> S8


@njit(inline="always")
def pawn_push(b, color):
    """Squares one step forward for pawns of `color`."""
    return (b << S8) if color == 0 else (b >> S8)


@njit(inline="always")
def pawn_attacks_set(b, color):
    """Squares attacked by a set of pawns of `color`."""
    if color == 0:
        return ((b & NOT_FILE_A) << S7) | ((b & NOT_FILE_H) << S9)
    return ((b & NOT_FILE_A) >> S9) | ((b & NOT_FILE_H) >> S7)
