"""How long to think: turns UCI-style limits into a soft and a hard time limit.

The hard limit is the deadline the compiled search enforces inside the tree. The soft limit is
checked between iterations: past it no new iteration starts, since it would rarely finish.
"""

from dataclasses import dataclass

from engine.params import DEFAULTS, INDEX

MOVE_OVERHEAD_MS = 50  # what a GUI, the pipe and a busy machine lose per move; never spend the last of it
DEFAULT_MOVES_TO_GO = DEFAULTS[INDEX["TimeMovesToGo"]]  # without movestogo, the clock is shared over this many
INC_SHARE = DEFAULTS[INDEX["TimeIncShare"]] / 100  # of the increment in each move's base time
MOVETIME_MARGIN_MS = 1  # the Python work after the search stops (reading lines, building the result)
# With a fixed movetime the search runs to its deadline: a cut-short iteration still yields its best
# root move so far (engine/readout.py), so starting one late costs nothing.

# Clock games with TimeStability=1: after each iteration the soft limit is scaled (soft_scale()). Never
# below the plain limit: at 10+0.1 Kibitz ended its games against Stockfish with a quarter of its clock
# unused (median 2.5 s of 10, docs/benchmarks.md "Clock use"), so the extra goes to the moves whose search
# has not settled.
STABILITY_SCALE = (2.0, 1.5, 1.2, 1.05, 1.0)  # by how many iterations in a row the best move has held
SCORE_FALL_CP = 100  # a fall this large (or more) since the last iteration scales the soft limit by 1.5
# With a short clock the scaled soft limit stays under the increment: under ~1 s the hard limit is more than
# the increment, and scaling up to it drained A's clock 45 ms a move until a stall lost on time (issue 32,
# docs/strength.md). Short = under SHORT_INCREMENTS increments, or SHORT_MS without an increment.
SHORT_INCREMENTS = 20
SHORT_MS = 2000
SHORT_INC_SHARE = 0.8  # of the increment, the scaled soft limit's ceiling on a short clock


@dataclass(frozen=True)
class Budget:
    soft_ms: float | None  # do not start another iteration after this
    hard_ms: float | None  # the search stops here
    stretch_ms: float | None = None  # the most TimeStability may scale the soft limit to (<= hard_ms)


def budget(side, movetime_ms=None, wtime=None, btime=None, winc=0, binc=0, movestogo=None, inc_share=INC_SHARE,
           default_mtg=DEFAULT_MOVES_TO_GO):
    """The Budget for the side to move (0 white, 1 black): the tighter of a fixed movetime and its clock."""
    budgets = []
    if movetime_ms is not None:
        budgets.append(for_movetime(movetime_ms))
    clock = wtime if side == 0 else btime
    if clock is not None:
        budgets.append(for_clock(clock, (winc if side == 0 else binc) or 0, movestogo, inc_share, default_mtg))
    if not budgets:
        return Budget(None, None)
    softs = [b.soft_ms for b in budgets if b.soft_ms is not None]
    return Budget(min(softs) if softs else None, min(b.hard_ms for b in budgets),
                  min(b.stretch_ms for b in budgets))


def for_movetime(movetime_ms):
    hard = max(movetime_ms - MOVETIME_MARGIN_MS, 0.5)
    return Budget(soft_ms=None, hard_ms=hard, stretch_ms=hard)


def for_clock(time_left_ms, inc_ms=0, moves_to_go=None, inc_share=INC_SHARE, default_mtg=DEFAULT_MOVES_TO_GO):
    """Budget for one move of a game on the clock.

    A share of what is left (1/movestogo, else 1/default_mtg) plus inc_share of the increment, never more
    than a fifth of the clock (a tenth when short of time), so that a slow move or a busy machine cannot
    flag. The clock settles where a move spends the increment: about 0.66 x (left / mtg + inc_share x
    increment) = increment (the soft limit is 0.6 x base, and the iteration running at it ends ~1.1x past
    it), so the larger inc_share or the smaller mtg, the less is left unused at the end of a game (at 10+0.1:
    2.3 s with 30 and 0.75, 0.85 s with 30 and 1.25, 0.8 s with 15 and 1.0); a smaller mtg also spends
    more of the clock in the opening and middlegame.
    """
    available = max(time_left_ms - MOVE_OVERHEAD_MS, 1.0)
    mtg = moves_to_go if moves_to_go else default_mtg
    base = available / mtg + inc_share * min(inc_ms, available)
    cap = (0.2 if available > 1000 else 0.1) * available + (0.5 * inc_ms if available > 2 * inc_ms else 0.0)
    if mtg == 1:
        cap = 0.8 * available
    soft = max(min(0.6 * base, cap), 1.0)
    hard = max(min(3.0 * base, cap), 1.0)
    stretch = hard
    if available < max(SHORT_INCREMENTS * inc_ms, SHORT_MS):
        stretch = max(soft, min(hard, SHORT_INC_SHARE * inc_ms))
    return Budget(soft_ms=soft, hard_ms=hard, stretch_ms=stretch)


def soft_scale(held, fall_cp):
    """How much of the soft limit to use on a clock: more when the best move just changed (the search
    has not settled) or the score fell since the last iteration (trouble found); the plain limit once the
    same move has come back four iterations in a row (another iteration would rarely change it)."""
    fall = min(max(fall_cp, 0), SCORE_FALL_CP) / SCORE_FALL_CP
    return STABILITY_SCALE[min(held, len(STABILITY_SCALE) - 1)] * (1 + fall / 2)
