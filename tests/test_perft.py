"""Perft against the suites in tests/data, through the compiled module and the JIT: zero mismatches.

The three suites sampled here hold, in tests/data, just the 300 positions the seeded sample picks
from the whole suite (tests/data/SOURCES.md): the sample of 300 is then the whole file, and with
KIBITZ_DATA pointing at the whole suites it picks the same 300 positions."""

import pytest

from engine.board import Board
from tests.perft_data import cases

SUITES = [
    ("perftsuite.epd", None),
    ("perft_cpw.epd", None),
    ("perft_special.epd", None),
    ("perft_en_passant.epd", 300),
    ("perft_single_check.epd", 300),
    ("perft_double_check.epd", None),
    ("perft_random_marcel.epd", 300),
]


@pytest.mark.parametrize("suite,sample", SUITES, ids=[s for s, _ in SUITES])
def test_perft_suite(backend, tables, suite, sample):
    mismatches = []
    positions = cases(suite, sample)
    assert len(positions) >= min(sample or 0, 100) or suite == "perft_cpw.epd" or len(positions) > 100
    for fen, depth, expected in positions:
        board = Board(fen)
        got = backend.perft(tables, *board.arrays, depth)
        if got != expected:
            mismatches.append(f"{fen} D{depth}: expected {expected}, got {got}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:20])


def test_perft_leaves_position_unchanged(backend, tables):
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    board.push_uci("e1g1")
    before = [a.copy() for a in board.arrays]
    assert backend.perft(tables, *board.arrays, 3) == 86975
    # Entries past the current ply in keys/undo are scratch; everything up to it must be intact.
    bb, mb, st, keys, undo = board.arrays
    ply = board.ply
    assert (before[0] == bb).all() and (before[1] == mb).all() and (before[2] == st).all()
    assert (before[3][: ply + 1] == keys[: ply + 1]).all()
    assert (before[4][:ply] == undo[:ply]).all()


def test_divide_sums_to_perft(backend, tables):
    import numpy as np

    board = Board("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")
    moves = np.zeros(256, np.int32)
    counts = np.zeros(256, np.int64)
    n = backend.divide(tables, *board.arrays, 4, moves, counts)
    assert n == 14
    assert counts[:n].sum() == 43238
    assert len(set(moves[:n].tolist())) == n


def test_perft_depth_zero_is_one(backend, tables):
    assert backend.perft(tables, *Board().arrays, 0) == 1
