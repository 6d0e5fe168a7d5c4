"""engine.analyse(explain=True, threats=True): the coach's reasons (engine/coach) attached to an
analysis, and the threat: the opponent's best move if it were their turn.

    found = explained(found)                          # every line with its reason, from its own moves
    board = null_board(board)                         # the same position, the other side to move (or None)
    main, threat = split_nodes(nodes), ...            # the threat search's share of the budget
    threat = threat_of(null, search)                  # engine.result.Threat of a null-move search

The threat is a search of the null-move position: the same pieces, the other side to move, no en-passant
square (a pawn that just moved two squares cannot be taken after a pass), no history. It is refused (None)
when the side to move is in check, since passing would leave its king to be taken, and when the game is
over. It takes THREAT_SHARE of the budget: 1/THREAT_SHARE of the movetime and of the nodes, out of the main
search's, so that both together stay within what the request asked for; a depth limit applies to both.

The reasons are a function of the position and the lines alone, so an answer from the analysis cache
gets the same reasons as the search that made it (functions/common/analysis/request.py relies on that).
"""

import dataclasses

from engine.board import Board
from engine.coach import explain_line, explain_threat
from engine.result import Threat

THREAT_SHARE = 5  # the threat search gets a fifth of the budget


def split_ms(movetime_ms):
    """(main, threat) milliseconds of a movetime: the threat's 1/THREAT_SHARE, at least 1 ms each."""
    threat = max(1, movetime_ms // THREAT_SHARE)
    return max(1, movetime_ms - threat), threat


def split_nodes(nodes):
    """(main, threat) of a node limit (None: no limit for either)."""
    if not nodes:
        return nodes, nodes
    threat = max(1, nodes // THREAT_SHARE)
    return max(1, nodes - threat), threat


def null_board(board):
    """The null-move position of an engine.board.Board: the other side to move, no en-passant square, no
    history; None when the side to move is in check (or has no move: the game is over)."""
    if board.in_check() or not board.legal_moves():
        return None
    fields = board.fen(shredder=board.chess960).split()
    fields[1] = "b" if fields[1] == "w" else "w"
    fields[3] = "-"
    null = Board(" ".join(fields), chess960=board.chess960)
    return null if null.legal_moves() else None


def explained(found):
    """engine.result.Analysis `found` with a reason on every line (the best line's also as `reason`)."""
    if not found.lines:
        return found
    board = Board(found.fen, chess960=found.chess960)
    best = found.lines[0]
    lines = tuple(dataclasses.replace(line, reason=explain_line(
        board, line.score, line.pv, best=None if line.multipv == 1 else (best.score, best.pv))) for line in found.lines)
    return dataclasses.replace(found, lines=lines, reason=lines[0].reason)


def threat_of(null, searched):
    """engine.result.Threat of `searched`, the Analysis of a search of the null-move position `null`."""
    from engine.san import line_san

    if searched.best_move is None:
        return None
    san = line_san(null, searched.pv)
    return Threat(move=searched.best_move, san=san[0], score=searched.score, pv=searched.pv, pv_san=tuple(san),
                  depth=searched.depth, nodes=searched.nodes, time_ms=searched.time_ms,
                  reason=explain_threat(null, searched.score, searched.pv))


def run(explain, threats, **kwargs):
    """engine.analyse() with its explain and threats (kwargs: engine/deepening.py run()'s, by name)."""
    import time

    from engine.deepening import run as search

    if not threats:
        found = search(**kwargs)
        return explained(found) if explain else found
    if kwargs.get("infinite") or any(kwargs.get(k) is not None for k in ("wtime", "btime")):
        raise ValueError("threats: only with movetime_ms, nodes or depth (not the clock or infinite)")
    movetime_ms, nodes = kwargs.get("movetime_ms"), kwargs.get("nodes")
    if movetime_ms is None and not nodes and kwargs.get("depth") is None:
        raise ValueError("threats: give a movetime_ms, nodes or depth to share with the threat search")
    started = kwargs.get("started_ns") or time.monotonic_ns()
    main_ms, threat_ms = split_ms(movetime_ms) if movetime_ms is not None else (None, None)
    main_nodes, threat_nodes = split_nodes(nodes)
    found = search(**{**kwargs, "movetime_ms": main_ms, "nodes": main_nodes, "started_ns": started})
    if explain:
        found = explained(found)
    board = Board(found.fen, chess960=found.chess960)
    null = null_board(board) if found.terminal is None else None
    stop = kwargs.get("stop")
    if null is None or (stop is not None and stop.is_set()):  # stopped: answer now, without the threat
        return found
    if threat_ms is not None:  # what is left of the request's time, at most its share
        threat_ms = max(1, min(threat_ms, movetime_ms - (time.monotonic_ns() - started) // 1_000_000))
    rest = {k: v for k, v in kwargs.items() if k not in ("fen", "moves", "board", "game", "on_info", "stop")}
    searched = search(**{**rest, "board": null, "movetime_ms": threat_ms, "nodes": threat_nodes, "multipv": 1,
                         "started_ns": time.monotonic_ns()})
    return dataclasses.replace(found, threat=threat_of(null, searched))
