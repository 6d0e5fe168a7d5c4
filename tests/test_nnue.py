"""The learned evaluation in the compiled core: the net file format, the shipped net, its integer inference
against a plain numpy forward pass (a net of one output bucket and one of eight), and accumulators kept move
by move against ones built from scratch."""

import random

import numpy as np
import pytest

from engine import nnue
from engine.board import Board
from engine.layout import ACC_SIZE, NNUE_HIDDEN
from tests.nnue_support import FENS, bucketed_net, positions_of_every_bucket, random_positions, reference_eval

H = NNUE_HIDDEN


def test_the_shipped_net_loads_and_fits_the_budget():
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    buckets = len(b2)
    assert 1 <= buckets <= 8 and w1.shape == (768, H) and b1.shape == (H,) and w2.shape == (buckets, 2 * H)
    assert nnue.DEFAULT_NET.stat().st_size <= 2 * 1024 * 1024
    assert np.any(w1 != 0) and all(np.any(row != 0) for row in w2)


def one_bucket_file(tmp_path):
    """A net file of format version 1: the shipped net's weights with its first output layer only."""
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    path = tmp_path / "one.nnue"
    nnue.write(path, w1, b1, w2[:1], b2[:1])
    return path


def test_a_file_that_is_not_a_net_is_refused(tmp_path):
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"not a net at all")
    with pytest.raises(nnue.NetError, match="not a Kibitz net file"):
        nnue.read(bad)
    shipped = one_bucket_file(tmp_path).read_bytes()
    short = tmp_path / "short.nnue"
    short.write_bytes(shipped[:-10])
    with pytest.raises(nnue.NetError, match="bytes"):
        nnue.read(short)
    future = tmp_path / "future.nnue"
    future.write_bytes(b"KBZNNUE3" + shipped[8:])
    with pytest.raises(nnue.NetError, match="format version '3'"):
        nnue.read(future)
    stray = tmp_path / "stray.nnue"  # version 1 with something in the bucket field
    stray.write_bytes(shipped[:12] + np.uint32(8).tobytes() + shipped[16:])
    with pytest.raises(nnue.NetError, match="version 1 has 0 in the bucket field"):
        nnue.read(stray)
    none = tmp_path / "none.nnue"
    none.write_bytes(b"KBZNNUE2" + shipped[8:])
    with pytest.raises(nnue.NetError, match="0 output buckets"):
        nnue.read(none)
    w1, b1, _, _ = nnue.read(nnue.DEFAULT_NET)
    with pytest.raises(nnue.NetError, match="at most 8"):
        nnue.pack(w1, b1, np.zeros((9, 2 * H), np.int16), np.zeros(9, np.int64))


@pytest.mark.parametrize("which", ["shipped", "one bucket"])
def test_a_net_file_is_written_back_byte_for_byte(tmp_path, which):
    """What is read writes back the same; one bucket stays format version 1, what builds from before buckets read."""
    path = nnue.DEFAULT_NET if which == "shipped" else one_bucket_file(tmp_path)
    again = tmp_path / "again.nnue"
    nnue.write(again, *nnue.read(path))
    assert again.read_bytes() == path.read_bytes()
    assert again.read_bytes()[:8] == (b"KBZNNUE1" if len(nnue.read(path)[3]) == 1 else b"KBZNNUE2")


def test_a_bucketed_net_file_reads_back_as_written(tmp_path):
    net = bucketed_net(8, seed=1)
    path = tmp_path / "eight.nnue"
    nnue.write(path, *net)
    assert path.read_bytes()[:8] == b"KBZNNUE2"
    back = nnue.read(path)
    for a, b in zip(net, back, strict=True):
        assert np.array_equal(a, b)


def test_buckets_by_piece_count():
    """Bullet's MaterialCount<8>: four piece counts a bucket, the full board in the last."""
    assert [int(nnue.bucket_of(n, 8)) for n in (2, 5, 6, 9, 10, 17, 18, 29, 30, 32)] == [0, 0, 1, 1, 2, 3, 4, 6, 7, 7]
    assert set(nnue.bucket_of(np.arange(65), 1)) == {0}
    assert np.array_equal(nnue.bucket_of(np.arange(2, 34), 8), np.repeat(np.arange(8), 4))


def test_compiled_inference_equals_numpy_forward_pass(backend):
    w1, b1, w2, b2 = nnue.read(nnue.DEFAULT_NET)
    net = nnue.pack(w1, b1, w2, b2)
    acc = np.zeros(ACC_SIZE, np.int16)
    seen = set()
    for board in random_positions(200, seed=11):
        backend.nnue_refresh(net, acc, 0, *board.arrays)
        got = backend.nnue_evaluate(net, acc, 0, *board.arrays)
        assert got == reference_eval(w1, b1, w2, b2, board.board, board.side), board.fen()
        seen.add(got)
    assert len(seen) > 50  # a net that answers the same for everything would pass the equality trivially


def test_a_bucketed_net_evaluates_as_the_numpy_formula_in_every_bucket(backend):
    w1, b1, w2, b2 = bucketed_net(8, seed=2)
    net = nnue.pack(w1, b1, w2, b2)
    acc = np.zeros(ACC_SIZE, np.int16)
    by_bucket = positions_of_every_bucket(12, seed=4)
    for bucket, boards in by_bucket.items():
        assert len(boards) == 12, f"bucket {bucket}: only {len(boards)} positions"
        for board in boards:
            backend.nnue_refresh(net, acc, 0, *board.arrays)
            got = backend.nnue_evaluate(net, acc, 0, *board.arrays)
            assert got == reference_eval(w1, b1, w2, b2, board.board, board.side), board.fen()
            # Another bucket's output layer would have answered otherwise: the bucket is the one read.
            others = [reference_eval(w1, b1, w2[[k]], b2[[k]], board.board, board.side)
                      for k in range(8) if k != bucket]
            assert got not in others, board.fen()


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
