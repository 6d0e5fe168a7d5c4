"""benchmarks/answers.py: the positions it judges (standard chess, the same on every run, none twice) and how one
answer is scored against the reference's move, by Lichess's formulas (engine/review.py)."""

import chess
import pytest

from benchmarks.answers import (
    FIXED_FROM,
    JOURNALS,
    fixed_positions,
    head_to_head,
    mistakes,
    net_spec,
    positions,
    verdict,
)


def test_the_positions_are_a_fixed_sample_of_standard_games():
    fens = positions(n=40, seed=3)
    assert len(fens) == len(set(fens)) == 40 and fens == positions(n=40, seed=3) and fens != positions(n=40, seed=4)
    assert JOURNALS and all("c960" not in p.name for p in JOURNALS)
    for fen in fens:
        board = chess.Board(fen)  # standard chess: python-chess reads it without chess960
        assert board.is_valid() and not board.is_game_over() and board.fullmove_number >= 7


def test_the_nets_are_judged_on_a_fixed_sample_that_new_journals_do_not_change():
    fens = fixed_positions(600)
    assert len(fens) == len(set(fens)) == 600
    assert fixed_positions(120) == fens[:120]
    # It is the seeded draw from the journals that stood when it was fixed (so its provenance holds), and
    # the journals since (the ladder runs after 2026-11-27) are not in it.
    assert all(p.exists() for p in FIXED_FROM) and set(FIXED_FROM) <= set(JOURNALS)
    assert positions(FIXED_FROM, n=600, seed=1) == fens
    for fen in fens:
        assert chess.Board(fen).is_valid()


def test_asking_for_more_positions_than_the_sample_holds_names_the_limit():
    with pytest.raises(SystemExit, match=r"--positions 601: answers.fen holds 600 positions"):
        fixed_positions(601)


def test_the_reference_move_costs_nothing_and_a_blunder_is_one():
    best, lost, accuracy, mistake, blunder, error = verdict("e2e4", 40, "e2e4", 40, 40)
    assert best and lost == 0 and accuracy == 100 and not mistake and not blunder and error == 0
    # +3 pawns thrown away to -3: Lichess's winning chances fall by far more than 0.3
    best, lost, accuracy, mistake, blunder, error = verdict("e2e4", 300, "a2a3", -300, -250)
    assert not best and lost > 40 and accuracy < 20 and mistake and blunder and error > 40
    # a small slip: neither a mistake nor a blunder, and the answer's own score read close to the reference's
    best, lost, accuracy, mistake, blunder, error = verdict("e2e4", 30, "d2d4", 10, 25)
    assert not best and 0 < lost < 3 and 90 < accuracy < 100 and not mistake and error == pytest.approx(0.46, abs=0.01)


def test_a_net_spec_names_a_file_and_the_search_parameters_to_answer_with():
    assert net_spec("on=engine/nets/kibitz.nnue") == ("on", "engine/nets/kibitz.nnue", {})
    assert net_spec("off=a.nnue,NullMove=0,RfpMargin=90") == ("off", "a.nnue", {"NullMove": 0, "RfpMargin": 90})
    for bad, says in (("a.nnue", "expected LABEL=PATH"), ("x=a.nnue,Nope=1", "'Nope=1' is not NAME=INTEGER"),
                      ("x=a.nnue,NullMove=on", "'NullMove=on'"), ("x=", "expected LABEL=PATH")):
        with pytest.raises(SystemExit, match=says):
            net_spec(bad)


def test_each_net_is_set_against_the_first_and_its_mistakes_are_named():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    other = "8/8/8/4k3/8/8/8/4K2R w K - 0 1"
    # (verdict..., depth, nodes, move), as main() keeps them: the same move, then a thrown-away win.
    good = [(*verdict("e2e4", 40, "e2e4", 40, 40), 20, 1000, "e2e4"),
            (*verdict("h1h8", 900, "h1h8", 900, 900), 20, 1000, "h1h8")]
    bad = [(*verdict("e2e4", 40, "e2e4", 40, 40), 20, 1000, "e2e4"),
           (*verdict("h1h8", 900, "e1d1", -300, 50), 20, 1000, "e1d1")]
    assert head_to_head(good, bad) == (1, 0, 1) and head_to_head(bad, good) == (0, 1, 1)
    assert mistakes([start, other], good, ["e2e4", "h1h8"]) == []
    (line,) = mistakes([start, other], bad, ["e2e4", "h1h8"])
    assert line.startswith(f"- {other}: e1d1 (blunder, ") and line.endswith("win% lost; Stockfish h1h8)")
