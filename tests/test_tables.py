"""Attack tables: every magic lookup against ray walking, leapers and between/line against geometry."""

import numpy as np
from numba import njit

from engine.core import attacks
from engine.core.bitboard import ZERO
from engine.layout import T_BETWEEN, T_KING, T_KNIGHT, T_LINE, T_SIZE


@njit(cache=True)
def _magic_mismatches(T):
    bad = 0
    for sq in range(64):
        for rook in (True, False):
            dirs = attacks.ROOK_DIRS if rook else attacks.BISHOP_DIRS
            mask = attacks._relevant_mask(sq, dirs)
            sub = ZERO
            while True:
                got = attacks.rook_attacks(T, sq, sub) if rook else attacks.bishop_attacks(T, sq, sub)
                if got != attacks._ray_attacks(sq, sub, dirs):
                    bad += 1
                sub = (sub - mask) & mask
                if sub == ZERO:
                    break
    return bad


def test_every_magic_entry_matches_ray_walk(tables):
    assert _magic_mismatches(tables) == 0


def test_table_layout_fills_exactly(backend):
    T = np.zeros(T_SIZE, np.uint64)
    assert backend.build_tables(T) == T_SIZE


def test_both_backends_build_identical_tables(aot, jit):
    a = np.zeros(T_SIZE, np.uint64)
    b = np.zeros(T_SIZE, np.uint64)
    aot.build_tables(a)
    jit.build_tables(b)
    assert np.array_equal(a, b)


def popcount(x):
    return bin(int(x)).count("1")


def test_leapers_and_lines(tables):
    assert popcount(tables[T_KNIGHT + 0]) == 2 and popcount(tables[T_KNIGHT + 27]) == 8
    assert popcount(tables[T_KING + 0]) == 3 and popcount(tables[T_KING + 27]) == 8
    # between a1 and h8: b2..g7; a1 and b3 are not aligned
    assert int(tables[T_BETWEEN + 0 * 64 + 63]) == sum(1 << (9 * i) for i in range(1, 7))
    assert tables[T_BETWEEN + 0 * 64 + 17] == 0 and tables[T_LINE + 0 * 64 + 17] == 0
    assert int(tables[T_LINE + 8 * 64 + 9]) == 0xFF00  # the whole second rank
