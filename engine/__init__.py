"""Kibitz chess engine.

    from engine import analyse
    result = analyse("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", movetime_ms=500)
    result.best_move, result.score, result.pv

Importing `engine` alone loads nothing heavy; the compiled core is loaded (and its tables built) on
first use of analyse() or Board.
"""

__version__ = "0.1.0"


def analyse(*args, **kwargs):
    import time

    kwargs.setdefault("started_ns", time.monotonic_ns())  # the first call's import counts against the budget
    from engine.analysis import analyse as _analyse

    return _analyse(*args, **kwargs)


analyse.__doc__ = "See engine.analysis.analyse."
