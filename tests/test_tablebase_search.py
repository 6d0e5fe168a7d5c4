"""The endgame tables inside the search tree (engine/core/tbprobe.py): the compiled probe reads what the Python
probe reads, an unloaded table is marked wanted and loaded in the background, and a search whose tree reaches the
tables scores those positions by them (a mate by the table's distance, tbhits counted)."""

import random

import numpy as np
import pytest

from engine import analyse, native
from engine import tablebase as tb
from engine.board import Board
from engine.fen import FenError
from engine.layout import TB_LOADED, TB_WANT, TBI_KEYS, TBI_ROW, TBI_ROWS

PIECES = "PNBRQ"


@pytest.fixture(scope="module")
def tables():
    t = tb.Tables()
    if not all(t.available(m) for m in t.materials):
        pytest.skip("engine/tablebases is missing its files")
    return t


def random_board(rng, white, black):
    """A legal position with kings and the given pieces (letters), either side to move, no castling or en
    passant. (FEN written here: engine.board only parses.)"""
    while True:
        squares = rng.sample(range(64), 2 + len(white) + len(black))
        grid = [""] * 64
        grid[squares[0]] = "K"
        grid[squares[1]] = "k"
        for sq, p in zip(squares[2:], white.upper() + black.lower(), strict=True):
            grid[sq] = p
        if any(grid[sq].lower() == "p" for sq in list(range(8)) + list(range(56, 64))):
            continue
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for f in range(8):
                p = grid[rank * 8 + f]
                if p:
                    row += (str(empty) if empty else "") + p
                    empty = 0
                else:
                    empty += 1
            rows.append(row + (str(empty) if empty else ""))
        try:
            return Board("/".join(rows) + f" {rng.choice('wb')} - - 0 1")
        except FenError:
            continue  # the side not to move in check


def compiled_probe(tables, board):
    return int(native.core.tb_probe(*board.arrays, tables.store.values, tables.store.tbi))


@pytest.mark.parametrize("white,black", [("Q", "R"), ("R", "P"), ("P", "P"), ("BN", ""), ("Q", "")])
def test_the_compiled_probe_reads_what_the_python_probe_reads(tables, white, black):
    rng = random.Random(f"{white}v{black}")
    for name in {f"K{white}vK{black}", f"K{black}vK{white}"}:
        if name in tables.tid:
            tables.preload([name])
    for _ in range(500):
        # both colourings: the table of the weaker side's pieces is read with the colours swapped
        board = random_board(rng, white, black) if rng.random() < 0.5 else random_board(rng, black, white)
        assert compiled_probe(tables, board) == tables.probe(board), board.fen()


def test_more_than_four_pieces_castling_or_en_passant_are_not_probed(tables):
    tables.preload(["KPvKP"])
    for fen in ("8/8/8/8/8/8/1R6/K1k1r2b w - - 0 1", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
                "8/8/8/8/3pP3/8/8/K1k5 b - e3 0 1"):
        assert compiled_probe(tables, Board(fen)) == -1, fen


def test_an_unloaded_table_is_marked_wanted_and_loaded_in_the_background():
    tables = tb.Tables()
    tid = tables.tid["KRvKN"]
    row = TBI_ROWS + tid * TBI_ROW
    board = Board("8/8/8/3n4/8/2k5/8/KR6 w - - 0 1")
    assert tables.store.tbi[row + TB_LOADED] == 0
    assert compiled_probe(tables, board) == -1
    assert tables.store.tbi[row + TB_WANT] == 1 and tables.store.wanted() == [tid]
    tables.store.load_wanted()
    tables.store.wait()
    assert tables.store.tbi[row + TB_LOADED] == 1 and tables.store.wanted() == []
    assert compiled_probe(tables, board) == tables.probe(board)


def test_only_the_tables_a_search_reaches_are_loaded(monkeypatch):
    """A five-piece search loads the tables its captures reach, nothing else."""
    tables = tb.Tables()
    monkeypatch.setattr(tb, "_DEFAULT", tables)
    analyse("8/8/6k1/3r4/8/8/1q6/K1Q5 w - - 0 1", depth=6, tablebases=True)
    tables.store.wait()
    loaded = {m.name for tid, m in enumerate(tables.materials) if tables.store.loaded(tid)}
    assert "KQvKR" in loaded or "KQvKQ" in loaded
    assert not loaded & {"KPPvK", "KBNvK", "KRvKP", "KNNvK"}


def test_a_capture_into_a_won_table_position_is_scored_as_the_tables_mate():
    """White takes the rook and is left with KQvKN: the search scores it a mate in one move plus the table's
    distance after the capture, and counts its probes; without the tables it is a big score but no mate."""
    fen = "1n5k/8/8/3r4/8/8/8/K2Q4 w - - 0 1"
    tables = tb.default()
    tables.preload(["KQvKN", "KQvK", "KNvK"])
    after = Board(fen)
    after.push_uci("d1d5")
    v = tables.probe(after)
    assert v % 2 == 0 and v > 10  # black is mated in v plies
    on = analyse(fen, depth=8, tablebases=True)
    assert on.best_move == "d1d5" and on.tbhits > 0
    assert on.score.mate is not None and 0 < on.score.mate <= (v + 2) // 2
    off = analyse(fen, depth=8, tablebases=False)
    assert off.best_move == "d1d5" and off.tbhits == 0 and off.score.mate is None


def test_a_capture_into_a_drawn_table_position_is_scored_a_draw():
    """Black's only way out is to take the last pawn into a drawn KRvKR (KRvKRP otherwise lost): the tables say
    draw, the search answers 0."""
    tables = tb.default()
    tables.preload(["KRvKR", "KRvK", "KRPvK", "KRvKP", "KPvK"])
    r = analyse("8/8/8/8/8/1k6/r1P5/1R2K3 b - - 0 1", depth=8, tablebases=True)
    assert r.tbhits > 0
    assert r.best_move in ("a2c2", "b3c2") and r.score.cp == 0


def test_the_tables_change_no_search_that_does_not_reach_them():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    on = analyse(fen, depth=7, tablebases=True)
    off = analyse(fen, depth=7, tablebases=False)
    assert (on.nodes, on.pv, on.score, on.tbhits) == (off.nodes, off.pv, off.score, 0)


def test_the_table_index_has_every_material_both_ways(tables):
    keys = tables.store.tbi[TBI_KEYS:]
    assert np.count_nonzero(keys >= 0) == 2 * len(tables.materials) - sum(
        1 for m in tables.materials if m.white == m.black)


@pytest.mark.parametrize("fen,limit", [
    ("7k/8/6K1/8/8/P7/1P6/Q7 b - - 0 1", {"depth": 10}),  # KQPPvK: its captures reach KQPvK, KPPvK, ...
    ("7k/p7/8/6K1/8/P7/1P6/Q7 b - - 0 1", {"depth": 10}),
    ("8/8/3k4/8/3P4/8/r7/4K2R w - - 0 1", {"nodes": 30000}),  # KRPvKR
    ("8/8/6k1/3r4/8/8/1q6/K1Q5 w - - 0 1", {"nodes": 50000}),
])
def test_a_fixed_limit_search_gives_the_same_answer_whatever_tables_are_loaded(monkeypatch, fen, limit):
    """A search to a fixed depth or node count sees only the tables its own earlier iterations wanted (loaded
    before its next iteration, engine/deepening.py), not those earlier searches of the process loaded: the same
    answer from a fresh process's tables as from tables all loaded (before: -M25 or -1114 cp, tests/
    test_review_mates.py)."""
    answers = []
    for preload in (False, True, False):
        tables = tb.Tables()
        if preload:
            tables.preload([m.name for m in tables.materials])
        monkeypatch.setattr(tb, "_DEFAULT", tables)
        r = analyse(fen, tablebases=True, **limit)
        answers.append((r.score, r.pv, r.nodes, r.tbhits))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][3] > 0  # the tree reached the tables


def test_a_fixed_limit_search_loads_what_it_wanted_before_it_returns(monkeypatch):
    tables = tb.Tables()
    monkeypatch.setattr(tb, "_DEFAULT", tables)
    analyse("1n5k/8/8/3r4/8/8/8/K2Q4 w - - 0 1", depth=8, tablebases=True)
    assert tables.store.loaded(tables.tid["KQvKN"])  # no wait(): loaded in the search's own thread
