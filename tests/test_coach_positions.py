"""The coach's reasons on real positions, engine-free: Win At Chess positions (benchmarks/data/wac.epd, most
from played games) with the engine's own line for each written out (found at 100 000 nodes, one
thread), so that the reasons are checked on fixed lines whatever the search later finds. Each has a
known motif (fork, pin, skewer, mate on the back rank or elsewhere, a hanging piece, promotion, the
exchange): the reason's kind and its squares, and the moves it quotes are the line's own."""

import re

import pytest

from engine.board import Board
from engine.coach import explain_line
from engine.result import Score
from tests.conftest import SUITES

WAC = {re.search(r'id "([^"]+)"', line).group(1): " ".join(line.split()[:4]) + " 0 1"
       for line in open(SUITES / "wac.epd").read().splitlines() if line.strip()}

POSITIONS = [
    # fork
    ("WAC.011", Score(cp=494), "fork", ("c6", "d7", "a8"),
     "f3c6 f6d5 c6d7 c8d7 d1d4 d7a4 f4f5 a4d7 a1e1 d5b6 d4b6 f8e7"),
    ("WAC.025", Score(cp=808), "fork", ("h4", "f6", "f2"),
     "g4h4 f2g2 h4f6 d8f8 g8f8 b2b4 h6h5 b4c5 f8e7 c5c6 f6c6 a3a4 c6c4 a4a5 c4e2 g2h1 "
     "e2f3 h1h2 f3e3"),
    ("WAC.056", Score(cp=528), "fork", ("e4", "g3", "f2"),
     "c5f2 e1f2 f6e4 f2f1 e4g3 h2g3 e8g8 c1f4 d8f6 b3c2 e5g6 g1f3 f6b6"),
    ("WAC.094", Score(cp=484), "fork", ("c3", "d5", "e4"),
     "e5e4 d3e4 a4c3 e4f5 c3d5 c4d5 b2h2 e3e4 a6a5 e4e5 h2h5 f5f6 a5a4 d5d6 h5h8 f6e6 "
     "a4a3"),
    ("WAC.107", Score(cp=211), "fork", ("b5", "c7", "a7"),
     "d4b5 f8e6 b5c7 e6c7 b7a7 d7c6 g1f2 c6b6 a7b7 b6c6 f2g3 g7g6 g3f2 h6h5 b7a7 c6b6 "
     "a7b7"),
    ("WAC.126", Score(cp=396), "fork", ("c6", "b6", "c5"),
     "f6c6 c5b5 c6b6 a7b6 b7h7 b5a6 h7c7 g8e8 c7c4 a6b7 h2h4 a8c8 c4b5 b7a7 h4h5"),
    ("WAC.162", Score(cp=206), "fork", ("c6", "e8", "a8"),
     "c4d5 e6d5 a4c6 e8d8 c6a8 d8d7 a8a7 d7e6 a7a6 f8d6 a6c8 e6e7 c8b7 e7f6 b7d5"),
    ("WAC.168", Score(cp=1421), "fork", ("d2", "g2", "c2", "e3"),
     "d7d2 f1f2 d2e3 a1b1 b7d5 c3c4 h8h3 c4d5 e3g3 g2f1 e4e3 f2g2 h3h1 f1e2 g3g2"),
    ("WAC.171", Score(cp=283), "fork", ("f7", "h6", "d8"),
     "e3h6 g7h6 e5f7 h6g7 f7d8 c8d8 g3e5 g7f7 d1e1 b7c8 e5b8 e7f6 e1e2 f7g7 b3d5 e6d5"),
    ("WAC.204", Score(cp=-180), "fork", ("c7", "e8", "a8"),
     "d5c7 e5c7 e1e8 f8e8 c1h1 c8f5 g2g4 f5e4 h1g1 a8d8 a1a2"),
    # pin
    ("WAC.024", Score(cp=634), "pin", ("d4", "e3", "g1"),
     "g7d4 e1d2 d4e3 c4e3 b7e4 b1e4 e7e4 f5g6 h7g6 h2h3 d7e5 g1h2"),
    ("WAC.053", Score(cp=335), "pin", ("e1", "f1", "g1"),
     "e3e1 d5d6 e1f1 f2f1 g8f7 g1h1 g7g5 d6d7 e5d7 f3g4 d7e5 g4c8"),
    ("WAC.068", Score(cp=447), "pin", ("e3", "c5", "b6"),
     "e2e3 b6b2 c3c5 g7g6 e3c3 b2c3 c5c3 g6g5 c3c5 f7f6 g3g4 h7h5 g4h5 g8g7"),
    ("WAC.095", Score(cp=849), "pin", ("e3", "g5", "h6"),
     "f6g4 h6g7 e3g5 c8h8 g5f6 g7h7 f6e6 h7g7 g4f6 d5d4 c3d4 b7f7"),
    ("WAC.110", Score(cp=708), "pin", ("e3", "d2", "c1"),
     "a7e3 b3a1 e3d2 d1d2 c4f1 d2d1 f1g2 g3f4 g2e4 f4d2 d8h8 c1b1 c8d7 d2c3 h8h2 c3f6 "
     "e4c6"),
    ("WAC.122", Score(cp=1058), "pin", ("f6", "f4", "f1"),
     "d1f1 f2f1 f5d3 f1g1 f6f4 e5e1 f4c4 a2a4 c4c5 g1h1 a7a6 h2h3 a6b5 a4b5 c5d5 h1h2 "
     "d3e4"),
    ("WAC.194", Score(cp=538), "pin", ("g3", "e5", "c7"),
     "f5h6 g8h8 g3e5 c7e5 h6f7 h8g8 f7e5 f8e8 f2f4 h7h6 g2g3 g7g5 e5d7 g8f7 d7e5"),
    ("WAC.218", Score(cp=1075), "pin", ("g4", "g6", "g8"),
     "g5h6 e4e2 h5g6 e2f2 h2g3 f2g2 g3g2 c4e3 h6e3 h7g6 g4g6 g8f8 e3h6 f8e7 g2f2 e7d8"),
    ("WAC.062", Score(cp=-42), "pin", ("g6", "g3", "g1"),
     "g6g3 g1h1 g3d3 f1e1 f5f4 e2f2 g7g5 c5b6 g5f6 b6c7"),
    ("WAC.083", Score(cp=431), "pin", ("d4", "d7", "d8"),
     "d4d7 c7d7 d1d7 g7g6 d7d8 e8d8 c2b3 d8d2 e7f7 d2d1 b3d1 g8f7 g3e4"),
    # skewer
    ("WAC.036", Score(cp=440), "skewer", ("e1", "c1", "a1"),
     "e7e1 g1f2 d6c6 c1c6 e1a1 c6c7 f7e6 c7b7 d8d6 h2h4 a1a2 f2g3 a2a3 b7g7 d6d4 g7g6 "
     "d4b4"),
    ("WAC.071", Score(cp=419), "skewer", ("b7", "c7", "d7"),
     "b5a7 c5a7 h3a3 g7g5 a3a7 g5f4 a7a8 c8c7 b1b7 c7d6 b7d7 f6d7 a8d5 d6e7 f1e1 e7f6 "
     "d5d4 f6g6 d4f4"),
    ("WAC.292", Score(cp=257), "skewer", ("d1", "d6", "d7"),
     "d5d6 e7e6 b7b3 e6f5 b3d3 f5g5 d3e3 g5f5 e3e4 f5e6 e4c4 e6d6 e1d1 d6e7 d1d7 e7d7 "
     "c4a6 e8b8 a6d3 d7e7 a4a5"),
    # back-rank mate
    ("WAC.012", Score(mate=2), "mate", ("g1",),
     "g4f3 f1f3 g7g1"),
    ("WAC.027", Score(mate=2), "mate", ("f8",),
     "a3f8 f2f8 f1f8"),
    ("WAC.054", Score(mate=2), "mate", ("f1",),
     "h5h1 g1h1 f8f1"),
    ("WAC.060", Score(mate=2), "mate", ("h8",),
     "h3h8 d4h8 h1h8"),
    ("WAC.079", Score(mate=3), "mate", ("h1",),
     "h3h2 g1h2 h4g3 h2g1 h8h1"),
    ("WAC.154", Score(mate=2), "mate", ("e8",),
     "f2f7 f8f7 e1e8"),
    ("WAC.172", Score(mate=3), "mate", ("f1",),
     "e5e1 f2e1 f4e2 g1h1 f8f1"),
    # mate
    ("WAC.001", Score(mate=2), "mate", ("h7",),
     "g3g6 c6e5 g6h7"),
    ("WAC.004", Score(mate=2), "mate", ("g6",),
     "h6h7 h8h7 h5g6"),
    ("WAC.005", Score(mate=2), "mate", ("c4",),
     "c6c4 d6c4 b5c4"),
    ("WAC.057", Score(mate=3), "mate", ("g6",),
     "f3f8 e8f8 f1f8 a8f8 h6g6"),
    ("WAC.061", Score(mate=2), "mate", ("f7",),
     "f3f7 e7f7 e6f7"),
    ("WAC.064", Score(mate=3), "mate", ("h5",),
     "g2g4 f5g6 e3e8 g6g5 e8h5"),
    # hanging piece
    ("WAC.013", Score(cp=116), "material", ("f8",),
     "f1f8 g8f8 c5d7 f8e7 d7e5 c6e5 a1b1 b7b6 h1g1 e7d6 b1d1 c4c3 d1c1 d5d4 e2e3 d6c5 "
     "g2h3 c5b4 e3d4"),
    ("WAC.015", Score(cp=640), "material", ("b7",),
     "b8b7 c7b7 c5c6 d7c7 c6b7 c7b7 c1d1 b7c6 d1d6 c6c5 d6e6 c5d5 e6g6 d5e5 g6g7 f5f4 "
     "g3f4 e5f4 g7a7 h6h5 a7a5 h5h4"),
    ("WAC.044", Score(cp=215), "material", ("c4",),
     "d5c4 d1d8 e6d8 f3b7 d8b7 g3b8 b7c5 b8a7 c5a4 b2b3 a4c3 b1c2 c3b5 a7e3 c4c3 g1f1"),
    ("WAC.045", Score(cp=511), "material", ("a1",),
     "f1a1 g3g2 a1e1 h2h3 f4f8 h1h2 f8f1 g1d4 e7f8 g2c6 e1e2"),
    ("WAC.112", Score(cp=279), "material", ("e6",),
     "e1e6 h6f4 d4f4 f6f4 g3f4 g8g1 c1c2 g1h1 h2h3 a8d8 e6f6 f8g7 f6f7"),
    ("WAC.119", Score(cp=386), "material", ("d3",),
     "d8d3 g4g7 g8g7 c2d3 e4f2 h1g1 a8d8 d3d4 d8d4 f4f5 d4d3 c1f4 e8e2"),
    ("WAC.170", Score(cp=398), "material", ("c4",),
     "a2c4 b4e1 c4f1 e1f1 g1f1 h7h5 g7b7 h8g8 b7b6 f8e8 b6a6 a5a4 a6a4 e8c8 a4a7 g8f8 "
     "a7c7 c8c7 e5c7"),
    ("WAC.257", Score(cp=393), "material", ("d4",),
     "d1d4 b7b6 d4a4 b6c5 e4c5 e6e7 g4g5 e8d8 c5e4 c6c5 h2h4 g8g7 e4c5"),
    ("WAC.280", Score(cp=229), "material", ("a3",),
     "f8a3 e2g4 a3b2 g4c8 a8c8 b1c2 c8c2 a1b1 b6c4 a5b3 g8g7 b3a1 c2e2 f1d1 b2c3"),
    # promotion
    ("WAC.041", Score(cp=598), "promotion", ("g8",),
     "b5a5 g4g1 f7f8 b8b7 g7g8q g1a1 a5b4 a1b1 b4a3 b1a1 a3b2 a1d1 g8f7 b7a6 f8a8 a6b5 "
     "f7b3"),
    ("WAC.155", Score(cp=197), "promotion", ("c8",),
     "d5d6 b7c7 d6c7 d4e2 e1e2 b2e2 c7c8q e2d1 g1h2 d1d2 h2g3 h7h5 g4h5 g6h5 c8e6"),
    ("WAC.189", Score(cp=761), "promotion", ("d8",),
     "e7e8 d8e8 e4e8 g7e8 d7d8q c7c6 g6g7 f8g7 d8e8 c6d5 e8h5 b7b5 h5g5 g7f7 g5d5 f7g7 "
     "h4f5 g7g6 f3e4"),
    # exchange
    ("WAC.046", Score(cp=62), "exchange", ("e8", "e8"),
     "c3b5 d7f6 b5c7 c8d7 c7e8 f6e8 c2d2 d8b6 d1c1 d7a4"),
    ("WAC.115", Score(cp=186), "exchange", ("f7", "f7"),
     "e8d6 h8g8 d6f7 g8f7 b6b7 f7g8 b7c6 h7h6 c6c4 g8h8 c4c8 h8h7 c8c2"),
    ("WAC.130", Score(cp=86), "exchange", ("e3", "e3"),
     "g7h6 e1e3 f4e3 d3e3 h6e3 d2e3 f6f3 e3g5 f3h3 g5f4 c7c6 b5c6 b7c6 g1g2 h3d3 f4e5 "
     "g8f7"),
]


@pytest.mark.parametrize("wac, score, kind, squares, pv", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_the_reason_names_the_motif_the_line_shows(wac, score, kind, squares, pv):
    board = Board(WAC[wac])
    line = pv.split()
    r = explain_line(board, score, line)
    assert (r.kind, r.squares) == (kind, squares), r
    assert list(r.moves) == line[:len(r.moves)] and r.moves  # quoted from the line, from its start
    assert r.side == ("white" if board.side == 0 else "black")
    assert len(r.pieces) == len(r.squares)
    sentence = r.sentence()
    assert sentence.endswith(".") and " ".join(r.san) in sentence


def test_at_least_forty_positions_and_every_motif():
    assert len(POSITIONS) >= 40
    assert {"fork", "pin", "skewer", "mate", "material", "promotion", "exchange"} <= {p[2] for p in POSITIONS}
