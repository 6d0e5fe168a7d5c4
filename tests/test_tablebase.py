"""The 3-piece tables, generated here, against Debian's Gaviota tables over every position; the
generator's self-consistency over every index; the Python probe's index against the compiled one."""

import chess
import chess.gaviota
import numpy as np
import pytest

from engine import tablebase as tb
from engine.board import Board
from tests.conftest import data_file

pytest.importorskip("numba")

from engine.core import tablebase as core  # noqa: E402
from engine.tablebase_gen import Generator  # noqa: E402

THREE = ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]
PIECE = {1: chess.PAWN, 2: chess.KNIGHT, 3: chess.BISHOP, 4: chess.ROOK, 5: chess.QUEEN, 6: chess.KING}


@pytest.fixture(scope="module")
def three():
    gen = Generator(max_pieces=3)
    for name in THREE:
        gen.generate(name)
    return gen


def positions(material):
    """Every position of the table once: (index, side to move, chess.Board)."""
    for idx in range(material.nside):
        sqs, rest = [], idx
        for _ in range(material.pieces - 1):
            sqs.append(rest & 63)
            rest >>= 6
        sqs.append(tb.TRI_SQ[rest] if not material.pawnful else (rest >> 2) * 8 + (rest & 3))
        sqs.reverse()
        if len(set(sqs)) < len(sqs) or tb.canon_index(sqs, material.pawnful) != idx:
            continue
        pieces = {sq: chess.Piece(PIECE[c & 7], not (c >> 3)) for c, sq in zip(material.order, sqs, strict=True)}
        for side in (0, 1):
            board = chess.Board.empty()
            board.set_piece_map(pieces)
            board.turn = side == 0
            if board.is_valid():
                yield idx, side, board


@pytest.mark.parametrize("name", THREE)
def test_every_position_agrees_with_gaviota(three, name):
    gaviota = chess.gaviota.open_tablebase(str(data_file("gaviota")))
    material = next(m for m in three.materials if m.name == name)
    data = three.table(name)
    count = 0
    for idx, side, board in positions(material):
        ours = int(data[side * material.nside + idx])
        wdl, dtm = gaviota.probe_wdl(board), gaviota.probe_dtm(board)
        if ours == tb.DRAW:
            assert (wdl, dtm) == (0, 0), board.fen()
        elif ours % 2:
            assert (wdl, dtm) == (1, ours), board.fen()
        else:
            assert (wdl, dtm) == (-1, -ours), board.fen()
        count += 1
    assert count > 40000


@pytest.mark.parametrize("name", THREE)
def test_every_value_follows_from_its_children(three, name):
    checked, bad = three.check(name)
    assert checked > 40000 and bad == 0


def test_a_wrong_value_is_found(three):
    """The check can fail: one KRvK position made a draw disagrees with its children."""
    data = three.table("KRvK")
    pos = int(np.flatnonzero((data != tb.DRAW) & (data > 10))[0])
    saved = data[pos]
    data[pos] = tb.DRAW
    try:
        assert three.check("KRvK")[1] >= 1
    finally:
        data[pos] = saved


def test_longest_three_piece_mates(three):
    longest = {}
    for name in THREE:
        data = three.table(name)
        won = data[(data != tb.DRAW) & (data % 2 == 1)]
        longest[name] = (int(won.max()) + 1) // 2 if won.size else 0
    # KQvK 10, KRvK 16, KPvK 28 moves (Gaviota's and every published table's figures); minors cannot mate.
    assert longest == {"KBvK": 0, "KNvK": 0, "KQvK": 10, "KRvK": 16, "KPvK": 28}


def test_python_index_matches_the_compiled_one():
    rng = np.random.default_rng(7)
    for pawnful in (False, True):
        for _ in range(2000):
            sqs = rng.choice(64, size=4, replace=False).astype(np.int64)
            assert tb.canon_index(list(sqs), pawnful) == core.canon_index(sqs, 4, pawnful)


def test_symmetric_positions_share_one_index():
    sqs = [1, 40, 20, 33]  # b1 a6 e3 b5
    images = set()
    for m in range(8):
        images.add(tb.canon_index([tb._xform(s, m) for s in sqs], False))
    assert len(images) == 1
    assert tb.canon_index([s ^ 7 for s in sqs], True) == tb.canon_index(sqs, True)


def test_probe_reads_files_and_answers_categories(three, tmp_path):
    import lzma

    for name in THREE:
        (tmp_path / (name + tb.SUFFIX)).write_bytes(lzma.compress(three.table(name).tobytes()))
    tables = tb.Tables(tmp_path, max_pieces=3)
    # white: Kb6, Qh2 (mate in 1 by Qb8 or Qh8), black Ka8 to move after white's turn
    assert tables.result(Board("k7/8/1K6/8/8/8/7Q/8 w - - 0 1"))["dtm"] == 1
    assert tables.probe(Board("k7/8/1K6/8/8/8/7Q/8 b - - 0 1")) is not None
    drawn = tables.result(Board("8/8/8/4k3/8/8/8/KB6 w - - 0 1"))
    assert drawn["category"] == "draw" and "dtm" not in drawn
    lost = tables.result(Board("8/8/8/4k3/8/8/8/KQ6 b - - 0 1"))
    assert lost == {"category": "loss", "dtm": -9, "best": lost["best"], "best_san": lost["best_san"], "exact": True}
    assert lost["best"] and len(lost["best_san"]) == len(lost["best"]) and lost["best_san"][0].startswith("K")
    # black the stronger side: the colours are swapped on the way in
    assert tables.result(Board("kq6/8/8/8/3K4/8/8/8 w - - 0 1"))["category"] == "loss"
    # outside the tables: castling rights, five pieces
    assert tables.probe(Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")) is None
    assert tables.probe(Board("4k3/8/8/8/8/8/8/RR2K2R w - - 0 1")) is None
