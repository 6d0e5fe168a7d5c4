"""The learned evaluation in the compiled core: the shipped net, its integer inference against a plain numpy
forward pass, and accumulators kept move by move against ones built from scratch."""

import random

import numpy as np
import pytest

from engine import nnue
from engine.board import Board
from engine.layout import ACC_SIZE, NNUE_HIDDEN

H = NNUE_HIDDEN

# Castling both ways, en passant, promotions with and without capture, and ordinary middlegames.
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
]


def reference_eval(w1, b1, w2, b2, board_codes, side):
    """engine/nnue.py's formula, written out in numpy from the mailbox: the compiled core must agree."""
    acc = []
    for persp in (side, side ^ 1):
        a = b1.astype(np.int64).copy()
        for sq in range(64):
            p = int(board_codes[sq])
            if p:
                a += w1[((p >> 3) ^ persp) * 384 + ((p & 7) - 1) * 64 + (sq ^ (56 * persp))]
        acc.append(np.clip(a, 0, nnue.QA))
    h = np.concatenate(acc) ** 2 >> nnue.SHIFT
    out = (h * w2.astype(np.int64)).sum() + b2
    return int(out * nnue.SCALE // nnue.OUT_DIV)


def random_positions(count, seed):
    rng = random.Random(seed)
    for i in range(count):
        board = Board(FENS[i % len(FENS)])
        for _ in range(rng.randint(0, 40)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
        yield board


def test_the_shipped_net_loads_and_fits_the_budget():
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    assert w1.shape == (768, H) and b1.shape == (H,) and w2.shape == (2 * H,)
    assert nnue.DEFAULT_NET.stat().st_size <= 2 * 1024 * 1024
    assert np.any(w1 != 0) and np.any(w2 != 0)


def test_a_file_that_is_not_a_net_is_refused(tmp_path):
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"not a net at all")
    with pytest.raises(nnue.NetError, match="not a Kibitz net file"):
        nnue.read(bad)
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    short = tmp_path / "short.nnue"
    short.write_bytes(nnue.DEFAULT_NET.read_bytes()[:-10])
    with pytest.raises(nnue.NetError, match="bytes"):
        nnue.read(short)


def test_compiled_inference_equals_numpy_forward_pass(backend):
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    net = nnue.pack(w1, b1, w2, b2)
    acc = np.zeros(ACC_SIZE, np.int16)
    seen = set()
    for board in random_positions(200, seed=11):
        backend.nnue_refresh(net, acc, 0, *board.arrays)
        got = backend.nnue_evaluate(net, acc, 0, board.side)
        assert got == reference_eval(w1, b1, w2, b2, board.board, board.side), board.fen()
        seen.add(got)
    assert len(seen) > 50  # a net that answers the same for everything would pass the equality trivially


def test_incremental_accumulators_equal_a_full_refresh(backend):
    """Random games: after every move (castling, en passant, promotions, captures), the accumulators that
    push_move derived from the previous ply equal those built from scratch for the new position."""
    net = nnue.load()
    rng = random.Random(5)
    acc = np.zeros(ACC_SIZE, np.int16)
    fresh = np.zeros(ACC_SIZE, np.int16)
    checked = 0
    for start in FENS * 4:
        board = Board(start)
        backend.nnue_refresh(net, acc, 0, *board.arrays)
        path = []
        for ply in range(100):
            moves = board.legal_moves()
            if not moves or ply + 1 >= ACC_SIZE // (2 * H):
                break
            m = rng.choice(moves)
            backend.nnue_push_move(net, acc, ply, board.board, m)
            board.push(m)
            path.append(m)
            backend.nnue_refresh(net, fresh, ply + 1, *board.arrays)
            row = slice((ply + 1) * 2 * H, (ply + 2) * 2 * H)
            assert np.array_equal(acc[row], fresh[row]), f"{board.fen()} after {path}"
            checked += 1
        # Unmaking leaves each earlier ply's accumulators as they were: step back and compare again.
        for ply in range(len(path), 0, -1):
            board.pop()
            backend.nnue_refresh(net, fresh, ply - 1, *board.arrays)
            row = slice((ply - 1) * 2 * H, ply * 2 * H)
            assert np.array_equal(acc[row], fresh[row])
    assert checked > 1000


def test_incremental_accumulators_after_chess960_castling(backend):
    """Chess960 castling moves the rook from wherever its right says (king and rook may swap squares or
    stay): push_move's accumulators still equal a full refresh."""
    from engine.fen import chess960_fen
    from engine.moves import is_castling

    net = nnue.load()
    rng = random.Random(960)
    acc = np.zeros(ACC_SIZE, np.int16)
    fresh = np.zeros(ACC_SIZE, np.int16)
    castles = 0
    for _ in range(60):
        board = Board(chess960_fen(rng.randrange(960)), chess960=True)
        backend.nnue_refresh(net, acc, 0, *board.arrays)
        for ply in range(60):
            moves = board.legal_moves()
            if not moves:
                break
            castling = [m for m in moves if is_castling(m)]
            m = rng.choice(castling) if castling else rng.choice(moves)
            castles += bool(castling)
            backend.nnue_push_move(net, acc, ply, board.board, m)
            board.push(m)
            backend.nnue_refresh(net, fresh, ply + 1, *board.arrays)
            row = slice((ply + 1) * 2 * H, (ply + 2) * 2 * H)
            assert np.array_equal(acc[row], fresh[row]), board.fen()
    assert castles > 50
