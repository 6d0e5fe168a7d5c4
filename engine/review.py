"""Game review by Lichess's published method: each move's accuracy and its inaccuracy, mistake or
blunder mark, computed from the scores of the positions around it with the formulas and constants of
lichess-org/lila and lichess-org/scalachess (docs/review-numbers.md names the files and commits read,
and the choices taken where Lichess leaves one).

    review = review_game("white", moves, evals)   # who moves first; a PositionEval (or None) per position
    review.moves[i].judgement, review.sides["white"].accuracy, review.sides["black"].acpl

`evals[i]` is the analysis of the position before move i (len(moves) + 1 of them: the last is the
position the game ended in); None where it is missing (a position that failed), and then the moves
next to it are not judged.

Win% (scalachess WinPercent): 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1), cp from the side's
point of view clamped to +-1000, a mate counting +-1000. Accuracy and the graph (win_chances) use it.
Kibitz's own W/D/L model (engine/wdl.py) is not used here: it stays for the W/D/L beside a score.

Marks (lila Advice): for a move that is not the search's best move in the position before it, the
loss of winning chances, 2 / (1 + exp(-0.00368208 * cp)) - 1 on Lichess's -1..1 scale (the score not
clamped), before the move less after it: 0.1 an inaccuracy (?!), 0.2 a mistake (?), 0.3 a blunder
(??). Where a mate score is on either side, Lichess's mate rules instead: a move that lets the
opponent force mate ("Checkmate is now unavoidable") is an inaccuracy when the mover's score before
it was below -999, a mistake below -700, else a blunder; a move that lets a forced mate go ("Lost
forced checkmate sequence") is an inaccuracy when the score after it is still above 999, a mistake
above 700, else (or when it walks into a mate) a blunder.
A mate both ways (kept, however much longer, or a mated side's move that brings the mate closer) is
never marked: the move loses nothing, the position being won or lost whatever is played (lila #18262).

Accuracy (lila AccuracyPercent): each move's is 103.1668100711649 exp(-0.04354415386753951 drop)
- 3.166924740191411, plus 1, clamped to 0..100 (100 when the mover's win% did not drop), the best
move's too; a side's is the mean of the volatility-weighted mean (each move weighted by the standard
deviation of White's win% in a window of positions around it: a tenth of the game, 2..8 positions;
weights clamped to 0.5..12) and the harmonic mean of its moves' accuracies. ACPL (lila AccuracyCP):
each move's loss of the mover's score in centipawns (clamped to +-1000, a mate counting 1000, at
least 0), averaged per side and rounded. The move that mates is neither marked nor counted: Lichess
keeps no analysis of a mated position.

Endgame tables (docs/tablebases.md): where the position before a move is within the tables and the one
after it is too (or is the game's end), the move is judged by the tables' results, not the scores: a move
that keeps the mover's result (a win still a win, however much slower; a draw a draw; a loss a loss) is
never marked, and one that throws a result away (a win to a draw or a loss, a draw to a loss) is a
blunder whatever the scores say. Accuracy and ACPL still come from the scores.

Reasons: given the game's start (review_game(..., start_fen=...)), every marked move carries the coach's
reason (engine/coach explain_move), made from the two lines the review already has: the best line of
the position before the move, and the opponent's line after it. Nothing is searched for it.
"""

import dataclasses
import math
import statistics

from engine.result import Score

CP_CEILING = 1000  # scalachess Eval.Cp.CEILING
WIN_MULTIPLIER = -0.00368208  # scalachess WinPercent.winningChances (lila pull request 11148)
JUDGEMENTS = (("blunder", 0.3), ("mistake", 0.2), ("inaccuracy", 0.1))  # loss of winning chances, -1..1
NAGS = {"inaccuracy": 6, "mistake": 2, "blunder": 4}  # $6 ?!, $2 ?, $4 ??
GLYPHS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
MATE_SEQUENCES = {"created": "Checkmate is now unavoidable", "lost": "Lost forced checkmate sequence"}
# A cursed win counts as a win and a blessed loss as a loss here: the fifty-move judgement is not always exact
# (engine/tablebase.py fifty()), so the review marks no move by it.
TABLE_RANK = {"loss": 0, "blessed-loss": 0, "draw": 1, "cursed-win": 2, "win": 2}
TABLE_FLIP = {"win": "loss", "cursed-win": "blessed-loss", "draw": "draw", "blessed-loss": "cursed-win", "loss": "win"}


@dataclasses.dataclass(frozen=True)
class PositionEval:
    """What a review needs of one position's analysis."""

    side: str  # "white" or "black" to move
    score: Score  # from the side to move
    pv: tuple = ()  # the best line, UCI (empty when the game is over)
    terminal: str | None = None  # engine.game_over.REASONS
    depth: int = 0
    material: int = 78  # the W/D/L model's input (engine/wdl.py); the review's numbers do not use it
    tablebase: str | None = None  # within the endgame tables: "win", "draw" or "loss" for the side to move

    def mover_result(self):
        """The result by the tables (or the rules, at the game's end) for the side that moved INTO this position:
        "win", "draw", "loss", or None when neither knows."""
        if self.terminal == "checkmate":
            return "win"
        if self.terminal is not None:
            return "draw"
        return None if self.tablebase is None else TABLE_FLIP[self.tablebase]

    def white_score(self):
        """The score from White's side (a finished game: a draw is cp 0; not for a checkmate)."""
        if self.terminal is not None and self.terminal != "checkmate":
            return Score(cp=0)
        return self.score.for_white(self.side)

    def white_cp(self):
        """White's score in centipawns as Lichess counts it for accuracy: clamped to +-CP_CEILING, a mate
        (a checkmate too) +-CP_CEILING."""
        if self.terminal == "checkmate":
            return -CP_CEILING if self.side == "white" else CP_CEILING
        s = self.white_score()
        if s.mate is not None:
            return CP_CEILING if s.mate > 0 else -CP_CEILING
        return max(-CP_CEILING, min(CP_CEILING, s.cp))

    def win_percent_white(self):
        """White's win% (Lichess's, 0..100); a checkmate at the ceiling (2.5 or 97.5), as Lichess's graph
        draws it."""
        return win_percent(self.white_cp())


@dataclasses.dataclass(frozen=True)
class MoveReview:
    ply: int  # from 0
    side: str  # who played it
    move: str  # UCI
    best: str | None  # the search's best move in the position before it
    before: float | None  # the mover's win% before the move (Lichess's, 0..100), None if not judged
    after: float | None  # and after it
    drop: float | None  # before - after, at least 0
    cp_loss: int | None
    accuracy: float | None
    judgement: str | None  # "inaccuracy", "mistake", "blunder" or None
    mate: str | None = None  # a marked move that turned a mate round: "created" or "lost" (MATE_SEQUENCES)
    reason: object = None  # a marked move's engine.coach.Reason (review_game with start_fen), else None

    @property
    def comment(self):
        """Lichess's words for the mark: "Blunder", "Checkmate is now unavoidable", ...; None if unmarked."""
        if self.judgement is None:
            return None
        return MATE_SEQUENCES[self.mate] if self.mate else self.judgement.capitalize()


@dataclasses.dataclass(frozen=True)
class SideReview:
    accuracy: float | None  # 0..100, one decimal; None when no move of the side was judged
    acpl: int | None
    counts: dict  # judgement -> number of moves


@dataclasses.dataclass(frozen=True)
class GameReview:
    moves: tuple  # MoveReview per move
    sides: dict  # "white" / "black" -> SideReview
    win_chances: tuple  # White's win% (Lichess's) per position, None where unknown


def winning_chances(cp):
    """Lichess's winning chances, -1..1, of a score in centipawns (not clamped first)."""
    cp = max(-100_000, min(100_000, cp))  # only keeps exp() finite: the value is +-1 long before
    return max(-1.0, min(1.0, 2 / (1 + math.exp(WIN_MULTIPLIER * cp)) - 1))


def win_percent(cp):
    """Lichess's win%, 0..100, of a score in centipawns (clamped to +-CP_CEILING first)."""
    return 50 + 50 * winning_chances(max(-CP_CEILING, min(CP_CEILING, cp)))


def judgement(loss):
    """The mark for a loss of winning chances on Lichess's -1..1 scale."""
    for name, threshold in JUDGEMENTS:
        if loss >= threshold:
            return name
    return None


def move_accuracy(before, after):
    """Lichess's accuracy of one move from the mover's win% before and after it."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))  # + 1: Lichess's bonus for the analysis' own imprecision


def advice(side, before, after):
    """(judgement, mate) of a move that is not the search's best, by lila's Advice: side is the mover,
    before and after the PositionEvals around the move."""
    b, a = before.white_score(), after.white_score()
    if b.cp is not None and a.cp is not None:
        delta = winning_chances(a.cp) - winning_chances(b.cp)  # as lila has it: White's, then turned round
        return judgement(-delta if side == "white" else delta), None
    sign = 1 if side == "white" else -1
    b_cp, a_cp = (None if s.cp is None else sign * s.cp for s in (b, a))
    b_mate, a_mate = (None if s.mate is None else sign * s.mate for s in (b, a))
    if b_cp is not None and a_mate is not None and a_mate < 0:
        return ("inaccuracy" if b_cp < -999 else "mistake" if b_cp < -700 else "blunder"), "created"
    if b_mate is not None and b_mate > 0 and (a_cp is not None or a_mate < 0):
        a_cp = a_cp or 0  # a mate both ways counts 0
        return ("inaccuracy" if a_cp > 999 else "mistake" if a_cp > 700 else "blunder"), "lost"
    return None, None


def table_verdict(before, after):
    """True when the move between two positions throws the mover's table result away, False when it keeps it,
    None when the tables (or the rules, at the end) do not know both positions."""
    if before.tablebase is None or after.mover_result() is None:
        return None
    return TABLE_RANK[after.mover_result()] < TABLE_RANK[before.tablebase]


def review_game(first_side, moves, evals, start_fen=None, chess960=False):
    """GameReview of a game's moves (UCI), the first played by first_side ("white" or "black"), from the
    PositionEval (or None) of each of its positions. start_fen (and chess960): the game's start, for the
    marked moves' reasons; None: no reasons."""
    if len(evals) != len(moves) + 1:
        raise ValueError(f"{len(moves)} moves need {len(moves) + 1} position analyses, got {len(evals)}")
    graph = [e.win_percent_white() if e is not None else None for e in evals]
    # Lichess drops a mated position's analysis: the move that mates is not judged, nor counted
    mated = evals[-1] is not None and evals[-1].terminal == "checkmate"
    counted = len(moves) - 1 if mated and moves else len(moves)
    white = graph[:counted + 1]
    cps = [e.white_cp() if e is not None else None for e in evals[:counted + 1]]
    reviewed = []
    for ply, move in enumerate(moves):
        ev = evals[ply]
        side = first_side if ply % 2 == 0 else _other(first_side)
        best = ev.pv[0] if ev is not None and ev.pv else None
        before = after = drop = cp_loss = accuracy = name = mate = None
        if ply < counted and white[ply] is not None and white[ply + 1] is not None:
            w0, w1 = white[ply], white[ply + 1]
            # lila computes from White's side: for Black, "before" is the next position's White win%
            accuracy = move_accuracy(w0, w1) if side == "white" else move_accuracy(w1, w0)
            before, after = (w0, w1) if side == "white" else (100 - w0, 100 - w1)
            drop = max(0.0, (w0 - w1) if side == "white" else (w1 - w0))
            cp_loss = max(0, (cps[ply] - cps[ply + 1]) * (1 if side == "white" else -1))
            thrown = table_verdict(ev, evals[ply + 1])
            if thrown is not None:  # the tables know both sides of the move: their result decides
                name = "blunder" if thrown else None
            elif best is not None and move != best:
                name, mate = advice(side, ev, evals[ply + 1])
        reviewed.append(MoveReview(ply=ply, side=side, move=move, best=best, before=before, after=after,
                                   drop=drop, cp_loss=cp_loss, accuracy=accuracy, judgement=name, mate=mate))
    if start_fen is not None and any(m.judgement for m in reviewed):
        reviewed = _with_reasons(reviewed, moves, evals, start_fen, chess960)
    weights = _volatility_weights(white, counted)
    sides = {side: _side(side, reviewed, weights) for side in ("white", "black")}
    return GameReview(moves=tuple(reviewed), sides=sides, win_chances=tuple(graph))


def _with_reasons(reviewed, moves, evals, start_fen, chess960):
    """The reviewed moves with a reason on each marked one, from the best line before it and the reply's
    line after it."""
    from engine.board import Board
    from engine.coach import explain_move

    board = Board(start_fen, capacity=len(moves) + 64, chess960=chess960)
    out = []
    for m, move in zip(reviewed, moves, strict=True):
        if m.judgement:
            before, after = evals[m.ply], evals[m.ply + 1]
            m = dataclasses.replace(m, reason=explain_move(board, move, (before.score, before.pv),
                                                           (after.score, after.pv)))
        out.append(m)
        board.push_uci(move)
    return out


def _other(side):
    return "black" if side == "white" else "white"


def _filled(values):
    """Unknown values (None) replaced by the last known one before them (the first known one at the start;
    50 when none is known)."""
    known = next((v for v in values if v is not None), 50.0)
    out = []
    for v in values:
        known = v if v is not None else known
        out.append(known)
    return out


def _volatility_weights(white, n_moves):
    """lila's weight of each move: the (population) standard deviation of White's win% in a window of
    positions around it (a tenth of the game, 2..8 positions; the first windows repeat the opening one),
    clamped to 0.5..12. Unknown positions hold the last known value."""
    size = max(2, min(8, n_moves // 10))
    series = _filled(white)
    windows = [series[:size]] * max(0, min(size, len(series)) - 2)
    windows += [series[i:i + size] for i in range(max(1, len(series) - size + 1))]
    return [max(0.5, min(12.0, statistics.pstdev(w) if len(w) > 1 else 0.0)) for w in windows[:n_moves]]


def _side(side, reviewed, weights):
    mine = [(m, weights[m.ply]) for m in reviewed if m.side == side and m.accuracy is not None]
    counts = {name: sum(1 for m in reviewed if m.side == side and m.judgement == name) for name in GLYPHS}
    if not mine:
        return SideReview(accuracy=None, acpl=None, counts=counts)
    weighted = sum(m.accuracy * w for m, w in mine) / sum(w for _, w in mine)
    harmonic = len(mine) / sum(1 / max(1.0, m.accuracy) for m, _ in mine)
    acpl = math.floor(sum(m.cp_loss for m, _ in mine) / len(mine) + 0.5)  # Java's Math.round
    return SideReview(accuracy=round((weighted + harmonic) / 2, 1), acpl=acpl, counts=counts)
