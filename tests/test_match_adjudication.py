"""benchmarks/adjudication.py: fishtest's resign and draw rules, and match.py games ended by them."""

import chess
import chess.engine

from benchmarks.adjudication import DRAW_AFTER_MOVE, Adjudicator
from benchmarks.common import ROOT
from benchmarks.match import Limits, Player, kibitz_command, play_game


def feed(judge, white_cps, board=None, fullmove=1):
    """Plies alternate White, Black; each cp is from White's side and reported from the mover's."""
    board = board or chess.Board()
    board.fullmove_number = fullmove
    result = None
    for i, cp in enumerate(white_cps):
        mover = chess.WHITE if i % 2 == 0 else chess.BLACK
        score = None if cp is None else chess.engine.Cp(cp if mover == chess.WHITE else -cp)
        result = judge.after_move(mover, score, board)
        if result:
            return result, i
    return result, None


def test_resign_needs_three_moves_of_each_side_agreeing():
    assert feed(Adjudicator(), [650] * 5) == (None, None)
    assert feed(Adjudicator(), [650] * 6) == ("1-0", 5)
    assert feed(Adjudicator(), [-700] * 6) == ("0-1", 5)


def test_resign_is_two_sided_and_broken_by_a_missing_score():
    # Black (the odd plies) thinks it is only 100 cp down: no agreement.
    assert feed(Adjudicator(), [650, 100] * 5) == (None, None)
    assert feed(Adjudicator(), [650, 650, 650, None, 650, 650, 650, 650]) == (None, None)
    assert feed(Adjudicator(), [650, 650, 650, None, 650, 650, 650, 650, 650, 650]) == ("1-0", 9)


def test_a_mate_score_counts_as_decided():
    judge = Adjudicator()
    board = chess.Board()
    for i in range(6):
        mover = chess.WHITE if i % 2 == 0 else chess.BLACK
        score = chess.engine.Mate(3) if mover == chess.WHITE else chess.engine.Mate(-3)
        result = judge.after_move(mover, score, board)
    assert result == "1-0"


def test_draw_only_after_move_34_and_sixteen_quiet_plies():
    assert feed(Adjudicator(), [5] * 40, fullmove=DRAW_AFTER_MOVE) == (None, None)
    assert feed(Adjudicator(), [5] * 15, fullmove=DRAW_AFTER_MOVE + 1) == (None, None)
    assert feed(Adjudicator(), [5] * 16, fullmove=DRAW_AFTER_MOVE + 1) == ("1/2-1/2", 15)
    assert feed(Adjudicator(), [5] * 8 + [25] + [5] * 8, fullmove=DRAW_AFTER_MOVE + 1) == (None, None)


def test_a_match_game_in_a_won_ending_is_adjudicated_with_kibitz_scores():
    command, checkout = kibitz_command(ROOT)
    player = Player("Kibitz", command, cwd=checkout)
    engines = {"a": player.open(), "b": player.open()}
    try:
        fen = "8/8/8/3k4/8/8/8/Q3K3 w - - 0 1"  # a queen up, the king in the centre: mate takes moves
        problems = []
        score, game = play_game(engines, fen, True, Limits(nodes=3000, adjudicate=True), problems)
        assert problems == []
        assert score == 1.0
        assert game.headers["Result"] == "1-0"
        assert game.headers["Termination"] == "adjudication"
        adjudicated = list(game.mainline_moves())
        score, game = play_game(engines, fen, True, Limits(nodes=3000), problems)
        assert "Termination" not in game.headers
        played = list(game.mainline_moves())
        assert chess.Board(fen).variation_san(played).endswith("#")
        # The same deterministic searches: the adjudicated game is the mating one cut short.
        assert 6 <= len(adjudicated) < len(played)
        assert played[:len(adjudicated)] == adjudicated
        # Every move carries its search score from White's side ([%eval]): White is winning, then mates.
        evals = [node.eval() for node in game.mainline()]
        assert all(e is not None for e in evals)
        assert all(e.white().score(mate_score=100000) > 500 for e in evals)
        assert evals[-1].white().is_mate()
        assert "[%eval" in str(game)
    finally:
        for e in engines.values():
            e.quit()
