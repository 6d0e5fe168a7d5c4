"""Kibitz chess engine.

    from engine import analyse
    result = analyse("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", movetime_ms=500)
    result.best_move, result.score, result.pv

Importing `engine` alone loads nothing heavy; the compiled core is loaded (and its tables built) on
first use of analyse() or Board.
"""

NAME = "Kibitz"
__version__ = "0.1.0"  # the one place: pyproject.toml, UCI's `id name` and the API read it from here


def analyse(*args, **kwargs):
    """Analyse a position and return an engine.result.Analysis. The one entry point: the UCI program,
    the `kibitz` command and the Lambda functions all call it.

    fen, moves: the position, and UCI moves played from it (they are the history for repetitions).
    Limits, any combination (the first reached ends the search): movetime_ms, depth, nodes, the clock
    (wtime/btime/winc/binc/movestogo, milliseconds), or infinite=True with an
    engine.stop_signal.StopSignal `stop`.
    multipv: 1..5 best lines. hash_mb: transposition table size, fresh for this call, unless `game` (an
    engine.game_memory.GameMemory) keeps it, and the histories, for the moves of a game, as the UCI
    program does (params KeepTable, KeepHistory).
    threads: 1..8 searching threads (Lazy SMP) sharing the table; the answer is the deepest iteration any
    completed. At 1, a search to a fixed depth or node count is deterministic.
    on_info(Analysis): called after every completed iteration. claim_draws: a drawn-by-rule position
    (fifty moves, threefold, dead material) is reported as terminal instead of searched.
    params: {name: value} overrides of engine/params.py (tuning matches), on top of the profile's.
    profile: "analysis" or "game" (engine/profiles.py): the parameter set of an answer (a fresh table,
    one search judged on its own) or of a game's move. Default: "game" with `game`, else "analysis".
    board: an engine.board.Board to analyse instead of fen and moves (the UCI program has one already;
    it is left unchanged).
    chess960: the position is Chess960's: castling rights in X-FEN or Shredder-FEN for any king and rook
    squares, castling moves written king-to-rook (e1h1) in `moves` and the answer.
    tablebases: (default True) a position of up to four pieces is answered from the endgame tables
    (engine/tablebase.py) when they are present: the best move by the table, its mate distance, the
    `tablebase` field; a search from more pieces scores the nodes it reaches within them by the tables.
    False searches as if there were none (bench does, so its node count stays the search's).
    explain: every line (and `reason`, the best one's) carries the coach's reason (engine/coach): what the
    line does, in structure and in a sentence, from its own moves and static exchange.
    threats: `threat`, the opponent's best move if it were their turn (a search of the null-move position,
    with its reason), searched with a fifth of the movetime and of the nodes, taken out of the main
    search's so that both stay within the request; None when the side to move is in check. Only with
    movetime_ms, nodes or depth (engine/coached.py).
    started_ns: when the caller's clock started (time.monotonic_ns(); default: when this was called).
    The movetime and the clock count from it, so the first call's import of the compiled core comes
    out of the budget instead of overshooting it.
    Raises engine.fen.FenError / engine.board.IllegalMoveError / ValueError for bad input.

    The work is engine/deepening.py's; this wrapper only defers importing it to the first call.
    """
    import time

    kwargs.setdefault("started_ns", time.monotonic_ns())  # the first call's import counts against the budget
    explain, threats = kwargs.pop("explain", False), kwargs.pop("threats", False)
    from engine.deepening import run

    if not (explain or threats):
        return run(*args, **kwargs)
    import inspect

    from engine import coached

    named = inspect.signature(run).bind(*args, **kwargs).arguments  # the limits by name, however given
    return coached.run(explain, threats, **named)
