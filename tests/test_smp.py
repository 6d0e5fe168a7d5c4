"""Lazy SMP: threads=1 stays deterministic, helper threads share the table safely, `stop` ends them all,
and a corrupted table entry can never make the engine play an illegal move."""

import random
import threading
import time

import chess
import numpy as np
import pytest

from engine import analyse, deepening, native, tt_pool
from engine.board import Board
from engine.layout import C_DEPTH, C_TT_EPOCH, C_TT_SALT
from engine.stop_signal import StopSignal
from engine.time_manager import Budget
from tests.conftest import LATE_MS

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 4 8"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def legal_line(fen, pv):
    b = chess.Board(fen)
    for m in pv:
        move = chess.Move.from_uci(m)
        if move not in b.legal_moves:
            return False
        b.push(move)
    return True


def test_one_thread_is_deterministic_and_the_default():
    a = analyse(MIDDLEGAME, depth=9)
    b = analyse(MIDDLEGAME, depth=9, threads=1)
    c = analyse(MIDDLEGAME, nodes=30000, threads=1)
    d = analyse(MIDDLEGAME, nodes=30000)
    assert (a.nodes, a.pv, a.score) == (b.nodes, b.pv, b.score)
    assert (c.nodes, c.pv, c.score) == (d.nodes, d.pv, d.score)


@pytest.mark.parametrize("threads", [2, 4])
def test_helpers_search_with_the_main_thread(threads):
    infos = []
    many = analyse(KIWIPETE, depth=8, threads=threads, on_info=infos.append)
    assert many.depth >= 8 and legal_line(KIWIPETE, many.pv)
    # Each iteration's info counts the main thread's nodes; the answer adds the helpers'. (Not a comparison
    # with a one-thread search: sharing the table, the threads can reach depth 8 in fewer nodes in all.)
    assert infos and many.nodes > infos[-1].nodes


@pytest.mark.parametrize("threads", [0, 9, 1.5, True])
def test_threads_out_of_range_are_refused(threads):
    with pytest.raises(ValueError, match="threads"):
        analyse(MIDDLEGAME, depth=3, threads=threads)


def test_stop_ends_every_thread():
    before = threading.active_count()
    stop = StopSignal()
    out = {}
    t = threading.Thread(target=lambda: out.update(r=analyse(MIDDLEGAME, infinite=True, stop=stop, threads=4)))
    t.start()
    time.sleep(0.5)
    assert threading.active_count() >= before + 4  # the caller's thread and three helpers
    stop.set()
    t.join(5)
    assert not t.is_alive()
    deadline = time.monotonic() + 2
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() == before
    assert legal_line(MIDDLEGAME, out["r"].pv)


def test_two_threads_keep_the_deadline():
    for ms in (20, 100, 300):
        started = time.monotonic()
        r = analyse(MIDDLEGAME, movetime_ms=ms, threads=2)
        assert (time.monotonic() - started) * 1000 < ms + LATE_MS  # the helpers stopped with the main thread
        assert r.time_ms >= ms - 1  # the time ended it
        assert legal_line(MIDDLEGAME, r.pv)


def _searcher(board, epoch_salt, buckets):
    table, used, epoch, salt = epoch_salt
    ctl = deepening.control(board, buckets, epoch, salt, 0, None, 1, Budget(None, None), time.monotonic_ns())
    return deepening.Searcher(board, None, ctl)


@pytest.mark.parametrize("fen", [MIDDLEGAME, KIWIPETE, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"])
def test_corrupted_table_entries_never_yield_an_illegal_move(fen):
    """Every live entry gets a random move (and a consistent key word, so the corruption is read, as a race
    between two writers of the same key could leave it); the search goes on from that table. Moves come
    from the move generator, so a table move that is not legal is never played: the best move and the
    whole PV stay legal."""
    rng = np.random.default_rng(7)
    buckets = tt_pool.buckets(4)
    acquired = tt_pool.acquire(buckets)
    table = acquired[0][:buckets * 4]
    try:
        board = Board(fen)
        s = _searcher(board, acquired, buckets)
        for d in range(1, 8):
            assert s.iterate(d, table)
        epoch = int(s.ctl[C_TT_EPOCH])
        live = 0
        for slot in range(0, len(table), 2):
            data = int(table[slot + 1])
            if data and (data >> 58) & 31 == epoch:
                key = int(table[slot]) ^ data
                data = (data & ~0xFFFF) | int(rng.integers(1, 1 << 16))
                table[slot + 1] = np.uint64(data)
                table[slot] = np.uint64(key ^ data)
                live += 1
        assert live > 100
        for d in range(1, 10):
            s.ctl[C_DEPTH] = d
            assert s.iterate(d, table)
            r = deepening.readout.Iteration(board, s.S, s.ctl, table, d, time.monotonic_ns(), "white").analysis()
            assert legal_line(fen, r.pv), (d, r.pv)
        # A torn entry (key word and data from two different writes) reads as empty, not as a hit.
        salt = int(s.ctl[C_TT_SALT]) & 0xFFFFFFFFFFFFFFFF
        some = next(i for i in range(0, len(table), 2) if (int(table[i + 1]) >> 58) & 31 == epoch)
        key = np.uint64(int(table[some]) ^ int(table[some + 1]) ^ salt)
        probe = native.core.tt_probe
        assert probe(table, buckets - 1, key, epoch, np.uint64(salt), 0) == table[some + 1]
        table[some + 1] ^= np.uint64(1 << 20)  # another writer's data beside this key word
        assert probe(table, buckets - 1, key, epoch, np.uint64(salt), 0) == 0
    finally:
        tt_pool.release(acquired[0], acquired[1])


def test_many_short_two_thread_searches_play_legal_moves():
    rng = random.Random(3)
    fens = [MIDDLEGAME, KIWIPETE, "8/8/1p1k4/1P1p4/3P1K2/8/8/8 w - - 0 1",
            "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1"]
    for i in range(40):
        fen = fens[i % len(fens)]
        r = analyse(fen, movetime_ms=rng.randint(5, 60), threads=2)
        assert r.best_move and legal_line(fen, r.pv), (fen, r.pv)
