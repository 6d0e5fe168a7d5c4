"""Game review: every move of a game judged by how much of its side's winning chances it gave away.

    review = review_game("white", moves, evals)   # who moves first; a PositionEval (or None) per position
    review.moves[i].judgement, review.sides["white"].accuracy, review.sides["black"].acpl

`evals[i]` is the analysis of the position before move i (len(moves) + 1 of them: the last is the
position the game ended in); None where it is missing (a position that failed), and then the moves
next to it are not judged.

Winning chances are engine/wdl.py's expected score (win + draw/2, in percent) for the score the
search gave, from the mover's side: the model is fitted to Kibitz's own games, so a drop means the
same whatever the score scale of the evaluation, and a score is read for the material on the board
(Lichess's one curve, fitted to Stockfish's scale, would misread both). A move's drop is its side's
winning chances before it (the best move's, as the search saw them) less those after it (the reply
position's analysis, turned round).

Judgements use Lichess's thresholds, which are 0.10 / 0.20 / 0.30 on its -1..1 scale of winning
chances: 5, 10 and 15 points of expected score for an inaccuracy (?!), a mistake (?) and a blunder
(??). A move that is the search's own best move is never marked and loses nothing: the two analyses
it is judged by are separate searches, and what differs between them is the search's noise.

Accuracy is Lichess's: each move's is 103.1668 exp(-0.04354 drop) - 3.1669, plus 1 for the search's
own imprecision, clamped to 0..100 (100 when nothing was lost); a side's is the mean of the
volatility-weighted mean (each move weighted by the standard deviation of the winning chances in a
window around it, 0.5..12) and the harmonic mean of its moves' accuracies. ACPL, average centipawn
loss: each move's loss of the mover's score in centipawns (scores clamped to +-1000, a mate counting
1000), averaged per side.
"""

import dataclasses
import math
import statistics

from engine import wdl
from engine.result import Score

JUDGEMENTS = (("blunder", 15.0), ("mistake", 10.0), ("inaccuracy", 5.0))  # drop in points of expected score
NAGS = {"inaccuracy": 6, "mistake": 2, "blunder": 4}  # $6 ?!, $2 ?, $4 ??
GLYPHS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
CP_CLAMP = 1000


@dataclasses.dataclass(frozen=True)
class PositionEval:
    """What a review needs of one position's analysis."""

    side: str  # "white" or "black" to move
    score: Score  # from the side to move
    pv: tuple = ()  # the best line, UCI (empty when the game is over)
    terminal: str | None = None  # engine.game_over.REASONS
    depth: int = 0
    material: int = 78

    def win_percent_white(self):
        """White's expected score in percent."""
        if self.terminal is not None:
            triple = (0, 0, 1000) if self.terminal == "checkmate" else (0, 1000, 0)
        else:
            triple = wdl.wdl(self.score, self.material)
        return wdl.win_chance_white(*triple, self.side)

    def cp_white(self):
        """White's score in centipawns, clamped to +-CP_CLAMP (a mate: +-CP_CLAMP)."""
        s = self.score.for_white(self.side)
        if s.mate is not None:
            return CP_CLAMP if s.mate > 0 or (s.mate == 0 and self.side == "black") else -CP_CLAMP
        return max(-CP_CLAMP, min(CP_CLAMP, s.cp))


@dataclasses.dataclass(frozen=True)
class MoveReview:
    ply: int  # from 0
    side: str  # who played it
    move: str  # UCI
    best: str | None  # the search's best move in the position before it
    before: float | None  # the mover's winning chances before the move (percent), None if unknown
    after: float | None  # and after it
    drop: float | None  # before - after, at least 0 (0 for the best move)
    cp_loss: int | None
    accuracy: float | None
    judgement: str | None  # "inaccuracy", "mistake", "blunder" or None


@dataclasses.dataclass(frozen=True)
class SideReview:
    accuracy: float | None  # 0..100, None when no move of the side was judged
    acpl: int | None
    counts: dict  # judgement -> number of moves


@dataclasses.dataclass(frozen=True)
class GameReview:
    moves: tuple  # MoveReview per move
    sides: dict  # "white" / "black" -> SideReview
    win_chances: tuple  # White's winning chances (percent) per position, None where unknown


def judgement(drop):
    for name, threshold in JUDGEMENTS:
        if drop >= threshold:
            return name
    return None


def move_accuracy(before, after):
    """Lichess's accuracy of one move from the mover's winning chances (percent) before and after it."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))


def review_game(first_side, moves, evals):
    """GameReview of a game's moves (UCI), the first played by first_side ("white" or "black"), from the
    PositionEval (or None) of each of its positions."""
    if len(evals) != len(moves) + 1:
        raise ValueError(f"{len(moves)} moves need {len(moves) + 1} position analyses, got {len(evals)}")
    white = [e.win_percent_white() if e is not None else None for e in evals]
    cps = [e.cp_white() if e is not None else None for e in evals]
    reviewed = []
    for ply, move in enumerate(moves):
        ev = evals[ply]
        side = first_side if ply % 2 == 0 else _other(first_side)
        best = ev.pv[0] if ev is not None and ev.pv else None
        before = after = drop = cp_loss = accuracy = None
        if white[ply] is not None and white[ply + 1] is not None:
            sign = 1 if side == "white" else -1
            before = white[ply] if sign == 1 else 100 - white[ply]
            after = white[ply + 1] if sign == 1 else 100 - white[ply + 1]
            if move == best:
                drop, cp_loss, accuracy = 0.0, 0, 100.0
            else:
                drop = max(0.0, before - after)
                cp_loss = max(0, sign * (cps[ply] - cps[ply + 1]))
                accuracy = move_accuracy(before, after)
        reviewed.append(MoveReview(ply=ply, side=side, move=move, best=best, before=before, after=after,
                                   drop=drop, cp_loss=cp_loss, accuracy=accuracy,
                                   judgement=judgement(drop) if drop is not None else None))
    weights = _volatility_weights(white, len(moves))
    sides = {side: _side(side, reviewed, weights) for side in ("white", "black")}
    return GameReview(moves=tuple(reviewed), sides=sides, win_chances=tuple(white))


def _other(side):
    return "black" if side == "white" else "white"


def _volatility_weights(white, n_moves):
    """Lichess's weight of each move: the standard deviation of White's winning chances in a window of
    positions around it (window: a tenth of the game, 2..8 positions), clamped to 0.5..12."""
    size = max(2, min(8, n_moves // 10))
    known = [w if w is not None else 50.0 for w in white]
    windows = [known[:size]] * max(0, min(size, len(known)) - 2)
    windows += [known[i:i + size] for i in range(max(1, len(known) - size + 1))]
    return [max(0.5, min(12.0, statistics.pstdev(w) if len(w) > 1 else 0.0)) for w in windows[:n_moves]] + \
        [0.5] * max(0, n_moves - len(windows))


def _side(side, reviewed, weights):
    mine = [(m, weights[m.ply]) for m in reviewed if m.side == side and m.accuracy is not None]
    counts = {name: sum(1 for m, _ in mine if m.judgement == name) for name in GLYPHS}
    if not mine:
        return SideReview(accuracy=None, acpl=None, counts=counts)
    weighted = sum(m.accuracy * w for m, w in mine) / sum(w for _, w in mine)
    harmonic = len(mine) / sum(1 / max(1.0, m.accuracy) for m, _ in mine)
    acpl = round(sum(m.cp_loss for m, _ in mine) / len(mine))
    return SideReview(accuracy=round((weighted + harmonic) / 2, 1), acpl=acpl, counts=counts)
