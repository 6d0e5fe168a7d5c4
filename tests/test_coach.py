"""The coach's reasons (engine/coach) on lines given outright: each motif's kind, pieces and squares, and
the static exchange it counts with. tests/test_coach_positions.py runs the real-game positions."""

import pytest

from engine.board import Board
from engine.coach import KINDS, explain_line, explain_move, explain_threat
from engine.coach import board_facts as bf
from engine.fen import parse_square
from engine.result import Score


def mailbox(fen):
    return tuple(int(x) for x in Board(fen).board)


@pytest.mark.parametrize("fen, square, side, value", [
    ("4k3/8/8/8/8/2n5/1P6/4K3 w - - 0 1", "c3", 0, 3),  # an undefended knight: the pawn takes it
    ("4k3/8/8/3p4/2n5/8/8/2R1K3 w - - 0 1", "c4", 0, 0),  # defended by a pawn: RxN dxR loses 2, so no capture
    ("4k3/8/8/3p4/2n5/8/8/2R1K3 w - - 0 1", "d5", 0, 0),  # the rook does not reach d5
    ("4k3/8/1p6/2n5/8/8/8/2R1K2B w - - 0 1", "c5", 0, 0),  # defended knight, a rook alone: no gain
    ("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", "d2", 0, 9),  # the king takes an undefended queen
    ("4k3/8/8/8/8/8/3q4/3rK3 w - - 0 1", "d2", 0, 0),  # not a defended one
])
def test_static_exchange(fen, square, side, value):
    assert bf.see(mailbox(fen), parse_square(square), side) == value


def line(fen, pv, score, **kw):
    return explain_line(Board(fen), score, pv, **kw)


def test_fork_names_the_forker_and_both_targets():
    r = line("r3k3/8/8/1N6/8/8/8/4K3 w - - 0 1", ["b5c7", "e8d7", "c7a8"], Score(cp=500))
    assert r.kind == "fork" and r.side == "white"
    assert r.squares[0] == "c7" and set(r.squares[1:]) == {"e8", "a8"}
    assert r.material == 5 and r.san == ("Nc7+", "Kd7", "Nxa8")
    assert "forks" in r.text and "wins the rook on a8" in r.text


def test_pin_wins_the_pinned_piece():
    r = line("4k3/7p/2n5/8/8/8/3P4/4KB2 w - - 0 1",
             ["f1b5", "h7h6", "d2d4", "h6h5", "d4d5", "h5h4", "d5c6"], Score(cp=300))
    assert r.kind == "pin" and r.squares == ("b5", "c6", "e8") and r.pieces == ("bishop", "knight", "king")


def test_skewer_wins_the_piece_behind():
    r = line("6q1/8/8/3k4/8/8/8/1B2K3 w - - 0 1", ["b1a2", "d5e5", "a2g8"], Score(cp=900))
    assert r.kind == "skewer" and r.squares == ("a2", "d5", "g8")


def test_promotion():
    r = line("1k6/8/8/8/8/8/6p1/4K3 b - - 0 1", ["g2g1q", "e1e2"], Score(cp=900))
    assert r.kind == "promotion" and r.squares == ("g1",) and r.side == "black"


def test_exchange_is_a_rook_for_a_minor_piece():
    r = line("3r4/1N2kppp/8/8/8/8/5PPP/6K1 w - - 0 1", ["b7d8", "e7d8"], Score(cp=200))
    assert r.kind == "exchange" and r.squares == ("d8", "d8") and r.pieces == ("rook", "knight")
    assert r.material == 2


def test_mate_on_the_back_rank():
    r = line("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", ["d1d8"], Score(mate=1))
    assert r.kind == "mate" and r.mate == 1 and r.squares == ("d8",) and "backRankMate" in r.themes
    assert r.sentence() == "Mates in 1 on the back rank: Rd8#."


def test_a_quiet_line_names_no_piece():
    r = line("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", ["e2e4", "e8e7"], Score(cp=150))
    assert r.kind == "quiet" and r.pieces == () and r.squares == ()


def test_hangs_the_piece_the_move_put_en_prise():
    board = Board("4k3/8/8/8/8/5q2/8/1N2K3 w - - 0 1")
    r = explain_move(board, "b1c3", (Score(cp=-900), ["b1d2"]), (Score(cp=1200), ["f3c3", "e1d1"]))
    assert r.kind == "hangs" and r.squares == ("c3",) and r.pieces == ("knight",)
    assert r.sentence() == "Loses the knight on c3: Qxc3+."
    assert r.moves == ("f3c3",)


def test_a_threat_not_parried():
    board = Board("4k3/8/8/8/8/2N2q2/7P/4K3 w - - 0 1")
    r = explain_move(board, "h2h3", (Score(cp=-900), ["c3e2"]), (Score(cp=1200), ["f3c3", "e1d1"]))
    assert r.kind == "threat_not_parried" and r.squares == ("c3",)


def test_allows_mate():
    board = Board("6k1/p4ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1")
    r = explain_move(board, "a7a6", (Score(cp=-500), ["h7h6"]), (Score(mate=1), ["d1d8"]))
    assert r.kind == "allows_mate" and r.mate == -1 and r.squares == ("d8",) and r.san == ("Rd8#",)
    assert r.sentence() == "Allows mate in 1 on the back rank: Rd8#."


def test_misses_mate():
    board = Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    r = explain_move(board, "d1d2", (Score(mate=1), ["d1d8"]), (Score(cp=-400), ["h7h6"]))
    assert r.kind == "misses_mate" and r.squares == ("d8",) and r.mate == 1


def test_nothing_simple_says_what_it_costs_and_the_better_move():
    board = Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    r = explain_move(board, "e1d1", (Score(cp=600), ["e1d2", "e8e7"]), (Score(cp=-100), ["e8d7"]))
    assert r.kind == "loses" and r.san == ("Kd2",)
    assert r.sentence() == "Kd2 was better: the score goes from +6.00 to +1.00."


def test_threat_wording():
    board = Board("4k3/8/8/8/8/5q2/8/1N2K3 w - - 0 1")  # Black to move, as a null move leaves it
    null = Board("4k3/8/8/8/8/2N2q2/8/4K3 b - - 0 1")
    r = explain_threat(null, Score(cp=900), ["f3c3", "e1d1"])
    assert r.kind == "material" and r.squares == ("c3",) and r.text.startswith("threatens to win the knight on c3")
    assert board.side == 0


def test_every_kind_is_documented():
    for k in ("mate", "fork", "pin", "skewer", "hangs", "allows_mate", "loses"):
        assert k in KINDS


def test_a_line_ending_on_a_capture_with_check_counts_the_recapture():
    # Qxf7+ takes a pawn with check, and the king takes the queen back: no material won, the queen lost
    r = line("6k1/5ppp/8/8/8/5Q2/5PPP/6K1 w - - 0 1", ["f3f7"], Score(cp=-800))
    assert r.kind == "loses_material" and r.material == -8 and r.squares == ("f7",), r


def test_a_queen_taken_with_check_and_retaken_at_the_lines_end_is_a_trade_not_a_win():
    # Qxb7 Qd7 Qxd7+ (Kxd7 at once): the queens are traded, the pawn is what is won (the Opera game's
    # "loses the queen on e7: ... Qe7 Qxe7+" and "... Qxd1+ Qxd1+" were such trades)
    from engine.board import Board
    from engine.coach import explain_line
    from engine.result import Score
    r = explain_line(Board("4k3/1p6/8/8/6q1/1Q6/8/4K3 w - - 0 1"), Score(cp=100), ["b3b7", "g4d7", "b7d7"])
    assert r.text == "wins the pawn on b7: Qxb7" and r.squares == ("b7",)



def test_a_pawn_in_front_of_a_bishop_is_not_named_as_pinned():
    # Evergreen 17. Nf6+ "misses Bh3, which pins the pawn on d7 to the bishop on c8": a pawn is not pinned
    # to a minor piece in any sense worth naming; the line wins the pawn
    from engine.board import Board
    from engine.coach import explain_line
    from engine.result import Score
    r = explain_line(Board("3bk3/8/8/3p4/8/8/8/R3K3 w - - 0 1"), Score(cp=100), ["a1d1", "e8e7", "d1d5"])
    assert r.text == "wins the pawn on d5: Rd1 Ke7 Rxd5" and r.kind == "material"


def test_a_tactic_later_in_the_line_names_the_lines_first_move_too():
    # Opera game 12... Rd8?! "allows Qxa7+, which skewers ..." on a line that starts with Rxd7: the named
    # move must be the line's first, or the sentence says the line's first move comes before it
    from engine.board import Board
    from engine.coach import explain_line
    from engine.result import Score
    b = Board("6q1/7p/8/3k4/8/8/8/1B2K3 w - - 0 1")
    r = explain_line(b, Score(cp=900), ["e1e2", "h7h6", "b1a2", "d5e5", "a2g8"], mode="misses")
    assert r.text.startswith("misses Ke2, then Ba2+ skewers the king on d5 to the queen on g8")
    r = explain_line(b, Score(cp=900), ["b1a2", "d5e5", "a2g8"], mode="misses")
    assert r.text.startswith("misses Ba2+, which skewers")
