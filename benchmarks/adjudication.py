"""Ending decided games early, by fishtest's rules, so that long matches cost less time.

fishtest runs every SPRT with cutechess-cli's `-resign movecount=3 score=600 twosided=true` and
`-draw movenumber=34 movecount=8 score=20`:
- resign: for 3 moves of each side in a row, both engines' own scores agree that the same side is at
  least 600 cp ahead (a mate score counts as more). That side wins.
- draw: after move 34, for 8 moves of each side in a row, both engines' scores are within 20 cp of 0.
A ply whose engine gave no score breaks both runs. Scores are centipawns from the mover's side, as UCI
reports them; the engines' scales differ a little (a net against another), which
the wide resign margin and the two-sided agreement absorb.
"""

import chess

RESIGN_MOVES, RESIGN_CP = 3, 600
DRAW_AFTER_MOVE, DRAW_MOVES, DRAW_CP = 34, 8, 20
MATE_CP = 100_000


class Adjudicator:
    """Fed each ply's score; says when the game may end and with what result."""

    def __init__(self):
        self.white_cp = []  # per ply, from White's side; None where the engine gave no score

    def after_move(self, mover, score, board):
        """Record the score (a chess.engine.Score from the mover's side, or None) of the move just played
        by `mover`; `board` is the position after it. Returns "1-0", "0-1", "1/2-1/2" or None."""
        if score is None:
            self.white_cp.append(None)
            return None
        cp = score.score(mate_score=MATE_CP)
        self.white_cp.append(cp if mover == chess.WHITE else -cp)
        return self.resign() or self.draw(board)

    def last(self, plies):
        tail = self.white_cp[-plies:]
        return tail if len(tail) == plies and None not in tail else None

    def resign(self):
        tail = self.last(2 * RESIGN_MOVES)
        if tail is None:
            return None
        if all(cp >= RESIGN_CP for cp in tail):
            return "1-0"
        if all(cp <= -RESIGN_CP for cp in tail):
            return "0-1"
        return None

    def draw(self, board):
        tail = self.last(2 * DRAW_MOVES)
        if tail is None or board.fullmove_number <= DRAW_AFTER_MOVE:
            return None
        return "1/2-1/2" if all(abs(cp) <= DRAW_CP for cp in tail) else None
