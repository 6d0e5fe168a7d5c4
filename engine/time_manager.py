"""How long to think: turns UCI-style limits into a soft and a hard time limit.

The hard limit is the deadline the compiled search enforces inside the tree. The soft limit is
checked between iterations: past it no new iteration starts, since it would rarely finish.
"""

from dataclasses import dataclass

MOVE_OVERHEAD_MS = 30  # what a GUI and the pipe lose per move; never spend the last of it
DEFAULT_MOVES_TO_GO = 30
MOVETIME_MARGIN_MS = 1  # the Python work after the search stops (reading lines, building the result)
MOVETIME_SOFT_SHARE = 0.55  # with a fixed movetime, an iteration started later than this rarely completes


@dataclass(frozen=True)
class Budget:
    soft_ms: float | None  # do not start another iteration after this
    hard_ms: float | None  # the search stops here


def for_movetime(movetime_ms):
    return Budget(soft_ms=movetime_ms * MOVETIME_SOFT_SHARE, hard_ms=max(movetime_ms - MOVETIME_MARGIN_MS, 0.5))


def for_clock(time_left_ms, inc_ms=0, moves_to_go=None):
    """Budget for one move of a game on the clock."""
    available = max(time_left_ms - MOVE_OVERHEAD_MS, 1.0)
    mtg = moves_to_go if moves_to_go else DEFAULT_MOVES_TO_GO
    base = available / mtg + 0.75 * inc_ms
    soft = min(base, 0.4 * available)
    hard = min(4.0 * base, 0.5 * available) if mtg > 1 else 0.9 * available
    return Budget(soft_ms=max(soft, 1.0), hard_ms=max(hard, 1.0))
