"""Positions and a numpy reference for the learned evaluation's tests (tests/test_nnue.py, tests/test_training.py)."""

import random

import numpy as np

from engine import nnue
from engine.board import Board
from engine.fen import FenError, format_fen
from engine.layout import KING, NNUE_HIDDEN

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
    pieces = int(np.count_nonzero(board_codes[:64]))
    bucket = min((pieces - 2) // (32 // len(b2)), len(b2) - 1)  # bullet's MaterialCount, for 1 or 8 buckets
    out = (h * w2[bucket].astype(np.int64)).sum() + b2[bucket]
    return int(out * nnue.SCALE // nnue.OUT_DIV)


def bucketed_net(buckets, seed):
    """The shipped net's accumulator weights under `buckets` random output layers, each its own."""
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    rng = np.random.default_rng(seed)
    w2 = rng.integers(-2000, 2000, (buckets, 2 * H)).astype(np.int16)
    b2 = rng.integers(-500_000, 500_000, buckets)
    return w1, b1, w2, b2


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


def positions_of_every_bucket(per_bucket, seed):
    """per_bucket positions of each of the 8 buckets' piece counts (2-5, 6-9, ..., 30-32): positions of random
    games with pieces taken off at random (the kings stay; a pawn stays where it stood, so on a legal rank)."""
    rng = random.Random(seed)
    found = {b: [] for b in range(8)}
    for board in random_positions(1000, seed):
        men = [sq for sq in range(64) if board.board[sq] and board.board[sq] & 7 != KING]
        for bucket in range(8):
            n = rng.randint(4 * bucket + 2, min(4 * bucket + 5, 32))
            if len(found[bucket]) == per_bucket or n - 2 > len(men):
                continue
            gone = set(rng.sample(men, len(men) - (n - 2)))
            pieces = [0 if sq in gone else int(board.board[sq]) for sq in range(64)]
            try:
                found[bucket].append(Board(format_fen(pieces, board.side, 0, -1, 0, 1)))
            except FenError:
                pass  # the side not to move stands in check
        if all(len(b) == per_bucket for b in found.values()):
            break
    return found
