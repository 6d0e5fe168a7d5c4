"""engine.analyse(explain=True, threats=True) on real positions (Win At Chess, benchmarks/data/wac.epd): each
line's reason names the motif its own moves show, the threat is the null-move position's best move with
its reason, and the threat search's share comes out of the budget. Fixed node counts, one thread: the
searches are deterministic, also where the line reaches the endgame tables (WAC.041): a fixed-limit search
sees only the tables its own earlier iterations wanted (engine/deepening.py), not what earlier searches of the
process loaded."""

import re

import pytest

import engine
from engine import coached
from engine.board import Board
from tests.conftest import SUITES

NODES = 100_000
WAC = {re.search(r'id "([^"]+)"', line).group(1): " ".join(line.split()[:4]) + " 0 1"
       for line in open(SUITES / "wac.epd").read().splitlines() if line.strip()}


def shown_by(reason, pv):
    """The reason's moves are the line's own, from its start."""
    return list(reason.moves) == list(pv[:len(reason.moves)])


@pytest.mark.parametrize("wac, kind, squares, san", [
    ("WAC.060", "mate", ("h8",), ("Qh8+", "Bxh8", "Rxh8#")),  # mate in 2 on the back rank
    ("WAC.001", "mate", ("h7",), None),
    ("WAC.011", "fork", ("c6", "d7", "a8"), None),  # Bxc6 forks the queen and the rook
    ("WAC.024", "pin", ("d4", "e3", "g1"), None),  # Bd4 pins the queen to the king
    ("WAC.036", "skewer", ("e1", "c1", "a1"), None),  # Re1+ skewers a rook to the other
    ("WAC.015", "material", ("b7",), ("Rxb7",)),  # the bishop on b7 hangs
    ("WAC.041", "promotion", ("g8",), ("Ka5", "Rg1", "Rf8+", "Kb7", "g8=Q")),
    ("WAC.046", "exchange", ("e8", "e8"), None),
])
def test_the_best_lines_reason(wac, kind, squares, san):
    found = engine.analyse(WAC[wac], nodes=NODES, explain=True)
    r = found.reason
    assert r is found.lines[0].reason
    assert (r.kind, r.squares) == (kind, squares), r
    assert san is None or r.san == san
    assert r.side == found.side_to_move and shown_by(r, found.pv)
    assert r.sentence().endswith(".") and r.sentence()[0].isupper()


def test_wac_060_says_mate_in_two_on_the_back_rank():
    found = engine.analyse(WAC["WAC.060"], nodes=NODES, explain=True)
    assert found.score.mate == 2 and found.reason.mate == 2 and "backRankMate" in found.reason.themes
    assert found.reason.sentence() == "Mates in 2 on the back rank: Qh8+ Bxh8 Rxh8#."


def test_every_multipv_line_carries_its_own_reason():
    found = engine.analyse(WAC["WAC.001"], nodes=NODES, multipv=3, explain=True)
    assert len(found.lines) == 3
    for line in found.lines:
        assert line.reason is not None and shown_by(line.reason, line.pv)
    assert found.lines[0].reason.kind == "mate"
    assert all(line.reason.kind != "mate" for line in found.lines[1:] if line.score.mate is None)


def test_without_explain_there_is_no_reason():
    found = engine.analyse(WAC["WAC.060"], nodes=20_000)
    assert found.reason is None and all(line.reason is None for line in found.lines) and found.threat is None


def test_the_threat_is_the_opponents_mate():
    # WAC.027, White to move: were it Black's turn, Qxg2 would mate at once
    found = engine.analyse(WAC["WAC.027"], nodes=NODES, explain=True, threats=True)
    t = found.threat
    assert (t.san, t.score.mate) == ("Qxg2#", 1)
    assert t.reason.kind == "mate" and t.reason.side == "black" and t.reason.squares == ("g2",)
    assert shown_by(t.reason, t.pv) and t.reason.text.startswith("threatens")


def test_a_threat_of_material():
    # WAC.021, White to move: were it Black's turn, Qxd2 would take White's queen
    found = engine.analyse(WAC["WAC.021"], nodes=NODES, threats=True)
    t = found.threat
    assert t.san == "Qxd2" and t.reason.kind == "material" and shown_by(t.reason, t.pv)
    assert (t.reason.pieces, t.reason.squares) == (("queen",), ("d2",))
    assert t.reason.sentence() == "Threatens to win the queen on d2: Qxd2."


def test_the_threat_search_takes_its_share_of_the_nodes():
    found = engine.analyse(WAC["WAC.003"], nodes=50_000, threats=True)
    main, threat = coached.split_nodes(50_000)
    assert (main, threat) == (40_000, 10_000)
    # a node limit is checked between nodes: each search stops a little past its share, never near the other's
    assert found.nodes < 50_000 and found.threat.nodes < 20_000


def test_no_threat_when_in_check():
    board = Board.from_moves(moves=["e2e4", "f7f5", "d1h5"])  # Black in check (g6 blocks)
    assert coached.null_board(board) is None
    found = engine.analyse(board=board, nodes=10_000, threats=True)
    assert found.threat is None and found.best_move is not None


def test_the_null_move_position_clears_en_passant():
    board = Board.from_moves(moves=["e2e4", "a7a6", "e4e5", "d7d5"])  # White could take d5 en passant
    null = coached.null_board(board)
    assert null.side == 1 and null.fen().split()[3] == "-" and null.fen().split()[0] == board.fen().split()[0]


def test_threats_need_a_budget_to_share():
    with pytest.raises(ValueError, match="threats"):
        engine.analyse(wtime=1000, btime=1000, threats=True)


def test_a_stopped_search_answers_without_the_threat():
    from engine.stop_signal import StopSignal

    stop = StopSignal()
    stop.set()
    found = engine.analyse(WAC["WAC.021"], movetime_ms=2000, threats=True, stop=stop)
    assert found.best_move is not None and found.threat is None
