"""Issue 68 item 5: the review's marks understand mates and lost positions, on the engine's own analysis of
real positions (not made-up scores): a move that keeps a forced mate is never marked for taking longer, and
a move in a position lost whatever is played is judged by what it loses (lila's rules: a mate both ways is
no mistake; a mate allowed from a lost score is at most an inaccuracy)."""

import engine
from engine.review import PositionEval, review_game

DEPTH = 10  # one thread at a fixed depth: deterministic, with the endgame tables too
# The positions are beyond the endgame tables, but their searches reach them: a fixed-depth search sees only
# the tables its own earlier iterations wanted (engine/deepening.py), whatever earlier searches of the process
# loaded, so its answer is the same alone or in a suite run (before, -M25 or -1114 cp for the same position).


def evals_of(fen, moves, tablebases=True):
    out = []
    for ply in range(len(moves) + 1):
        a = engine.analyse(fen, moves=moves[:ply], depth=DEPTH, tablebases=tablebases)
        table = a.tablebase["category"] if a.tablebase else None
        out.append(PositionEval(side=a.side_to_move, score=a.score, pv=tuple(a.pv), terminal=a.terminal,
                                depth=a.depth, tablebase=table))
    return out


def test_a_slower_mate_is_not_marked():
    # KQ+2P v K (beyond the tables): White mates in 2 (Qh1+ Kg8 Qa8#); 1. Kg5 still mates, three moves later
    fen, moves = "7k/8/6K1/8/8/P7/1P6/Q7 w - - 0 1", ["g6g5"]
    evals = evals_of(fen, moves)
    assert evals[0].score.mate == 2
    assert evals[1].score.mate is not None and evals[1].score.mate < -2  # a longer mate, from Black's side
    (slower,) = review_game("white", moves, evals, start_fen=fen).moves
    assert slower.move != slower.best and slower.judgement is None and slower.mate is None
    assert slower.cp_loss == 0 and slower.accuracy == 100.0


def test_every_move_loses_from_a_mated_position_and_none_is_marked():
    # after 1. Kg5 Black is mated whatever is played; 1... Kg8 (not the search's choice) keeps White's mate
    fen, moves = "7k/8/6K1/8/8/P7/1P6/Q7 w - - 0 1", ["g6g5", "h8g8"]
    evals = evals_of(fen, moves)
    assert evals[1].score.mate is not None and evals[1].score.mate < 0
    assert evals[2].score.mate is not None and evals[2].score.mate > 0
    review = review_game("white", moves, evals, start_fen=fen)
    assert [(m.judgement, m.mate) for m in review.moves] == [(None, None), (None, None)]
    assert review.moves[1].cp_loss == 0


def test_a_mate_allowed_from_a_lost_score_is_an_inaccuracy_not_a_blunder():
    # Black, a queen down (about -10), walks into a mate in 4: lila marks ?! below -999, ?? only from a
    # position that was not already lost (above -700). Without the tables: with them the search reaches KQPvK
    # and KPPvK wins and scores the start as the mate they are (-M26), which is not this test's lost score.
    fen, moves = "7k/p7/8/6K1/8/P7/1P6/Q7 b - - 0 1", ["h8g8"]
    evals = evals_of(fen, moves, tablebases=False)
    assert evals[0].score.cp is not None and evals[0].score.cp < -999
    assert evals[1].score.mate is not None and evals[1].score.mate > 0
    (move,) = review_game("black", moves, evals, start_fen=fen).moves
    assert move.judgement == "inaccuracy" and move.mate == "created"
