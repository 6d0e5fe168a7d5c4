"""Win, draw and loss: how likely each outcome is, from the side to move's score and the material left.

    wdl(Score(cp=80), material("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"))
    # -> (win, draw, loss) in permille, from the side to move; they sum to 1000

The model is Stockfish's: with s the score in centipawns from the side to move and m the material
on the board (P=1, N=B=3, R=5, Q=9, both sides, clamped to MATERIAL_RANGE),

    win  = 1 / (1 + exp((a(m) - s) / b(m)))
    loss = 1 / (1 + exp((a(m) + s) / b(m)))
    draw = 1 - win - loss

a(m) is the score at which a win is as likely as not, b(m) how fast it gets likelier; both are cubic
polynomials of x = m / MATERIAL_NORM. Mate scores are certain: 1000/0/0 for the side that mates,
0/0/1000 for the side mated. Plain Python: no compiled core needed.

The constants are fitted by maximum likelihood to Kibitz's own self-play games (the search's score
of each recorded position against the game's result): `python -m training wdl --data DIR --write`
(training/wdl.py) rewrites the FITTED block below and reports the held-back log-loss. They belong to
the evaluation's score scale: when the evaluation changes, refit on games it played.
"""

import math

from engine.params import DEFAULTS, INDEX

MATERIAL_RANGE = (17, 78)  # below 17 or above 78 the fit has too few positions to say more
MATERIAL_NORM = 58
PIECE_VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}

# The constants now in force (issue 32, 2026-11-27 morning): Kibitz (net-n1 with EgScale 40, bench 5233284)
# against itself at 300 000 nodes a move (a 10+0.1 move's worth), 224 distinct games, B with a 32 MB table
# so a pair's games differ; judged by five-fold cross-validation over whole games (docs/benchmarks.md "WDL
# model" has the report, docs/wdl.md the commands). The constants before (net-n1's games without EgScale,
# carried over by eg_ratio) read these games' drawn share up to 6.8 points off in a score bin; the refit 4.4.
# Refit when a new net changes the score scale by more than 3% (python -m training scale), on games it played.
# BEGIN FITTED (python -m training wdl --write; do not edit by hand)
# Fitted on /work/data/wdl/selfplay-300k-egs.jsonl
# by python -m training wdl (--games | --data) ... --write. Coefficients of x^3, x^2, x, 1.
A = (-117.185, 407.406, -408.018, 207.533)
B = (71.506, -107.309, 59.256, 14.915)
FIT_EG_SCALE = 40
# END FITTED

# The search scales the net's score by material (EgScale, engine/core/search.py _static_eval), so a score
# means less in an ending than the same score did in the fitted games if they were played with another
# EgScale: a(m) and b(m) scale with it (eg_ratio) until the next refit on games of the build in force.
EG_SCALE = DEFAULTS[INDEX["EgScale"]]


def eg_factor(m, eg_scale):
    """The search's EgScale factor at material m: eg_scale/64 at 30 or less, rising to 1 at 60 (integer
    steps, as engine/core/endgames.py material_scale() computes it in the compiled search)."""
    return (eg_scale + (64 - eg_scale) * min(max(m - 30, 0), 30) // 30) / 64


def eg_ratio(m):
    """Scores of the build in force over the fitted games' scores for one position of material m."""
    return eg_factor(m, EG_SCALE) / eg_factor(m, FIT_EG_SCALE)


def material(fen):
    """P=1, N=B=3, R=5, Q=9 of both sides, counted from a FEN's board field."""
    return sum(PIECE_VALUES.get(c, 0) for c in fen.split(None, 1)[0].lower())


def params(m, a=A, b=B):
    """(a, b) of the model for material m (clamped to MATERIAL_RANGE), in the search's units (eg_ratio)."""
    x = min(max(m, MATERIAL_RANGE[0]), MATERIAL_RANGE[1]) / MATERIAL_NORM
    r = eg_ratio(m)
    return (((a[0] * x + a[1]) * x + a[2]) * x + a[3]) * r, (((b[0] * x + b[1]) * x + b[2]) * x + b[3]) * r


def _logistic(z):
    return 1 / (1 + math.exp(-z)) if z > -700 else 0.0


def probabilities(cp, m):
    """(win, draw, loss) as floats for a centipawn score from the side to move."""
    a, b = params(m)
    win = _logistic((cp - a) / b)
    loss = _logistic((-cp - a) / b)
    return win, max(0.0, 1 - win - loss), loss


def wdl(score, m):
    """(win, draw, loss) permille from the side to move, summing to 1000. score: engine.result.Score."""
    if score.mate is not None:
        return (1000, 0, 0) if score.mate > 0 else (0, 0, 1000)
    win, _, loss = probabilities(score.cp, m)
    w, lo = round(1000 * win), round(1000 * loss)
    return w, 1000 - w - lo, lo


def of_analysis(found):
    """(win, draw, loss) permille from the side to move for an engine.result.Analysis: a finished game is
    certain (checkmate: lost; the draws: drawn), and so is a position the endgame tables answered."""
    if found.terminal is not None:
        return (0, 0, 1000) if found.terminal == "checkmate" else (0, 1000, 0)
    if getattr(found, "tablebase", None) is not None:
        return exact(found.score)
    return wdl(found.score, material(found.fen))


def exact(score):
    """The certain (win, draw, loss) of a score the endgame tables gave: a mate won or lost, cp 0 a draw."""
    if score.mate is not None:
        return (1000, 0, 0) if score.mate > 0 else (0, 0, 1000)
    return (0, 1000, 0)


def expected(win, draw, loss):
    """The expected score in percent (a win 100, a draw 50) of a (win, draw, loss) in permille."""
    return (win + draw / 2) / 10


def win_chance_white(win, draw, loss, side_to_move):
    """White's expected score in percent, 0..100 (50: even), from a (win, draw, loss) of the side to move."""
    return expected(win, draw, loss) if side_to_move == "white" else expected(loss, draw, win)
