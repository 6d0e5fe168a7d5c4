"""Reading a search's results out of its arrays: the lines of an iteration, the best move of a cut-short
one, the totals at the end, as engine/result.py's Analysis.

The compiled search leaves its lines in the scratch array S (S_LINE_*, the PV table, S_ROOT_SCORE)
and its counts in the control array ctl (C_*); engine/layout.py says where.
"""

import dataclasses
import time

import numpy as np

from engine import native
from engine.layout import (
    C_LINES,
    C_NODES,
    C_SELDEPTH,
    C_TBHITS,
    C_TT_AGES,
    C_TT_EPOCH,
    C_TT_MASK,
    C_TT_SALT,
    MATE,
    MATE_BOUND,
    PLY_ROWS,
    S_LINE_LEN,
    S_LINE_PV,
    S_LINE_SCORE,
    S_LINE_SELDEPTH,
    S_PV,
    S_PV_LEN,
    S_ROOT_SCORE,
    TB_BOUND,
    TB_WIN,
)
from engine.moves import to_uci
from engine.result import Analysis, Line, Score


def score(v):
    """Engine score -> Score (cp, or moves to mate from the side to move).

    A win or loss by the endgame tables (TB_WIN - plies) is a mate too: the tables' distances are to mate, so
    the plies to the table's position plus the table's distance are the mate's."""
    if v >= MATE_BOUND:
        return Score(mate=(MATE - v + 1) // 2)
    if v <= -MATE_BOUND:
        return Score(mate=-((MATE + v) // 2))
    if v >= TB_BOUND:
        return Score(mate=(TB_WIN - v + 1) // 2)
    if v <= -TB_BOUND:
        return Score(mate=-((TB_WIN + v) // 2))
    return Score(cp=int(v))


def ms_since(started):
    return (time.monotonic_ns() - started) // 1_000_000


def game_over(board, side, reason, started):
    """The answer for a position whose game is over: no move, mated (mate 0) or a draw (cp 0)."""
    value = Score(mate=0) if reason == "checkmate" else Score(cp=0)
    return Analysis(fen=board.fen(), side_to_move=side, best_move=None, ponder=None, score=value, depth=0,
                    seldepth=0, nodes=0, time_ms=ms_since(started), nps=0, hashfull=0, pv=(), lines=(),
                    terminal=reason, backend=native.BACKEND, chess960=board.chess960)


def iteration(board, S, ctl, tt, depth, started, side):
    """The lines of the iteration just completed, best first."""
    lines = []
    for k in range(int(ctl[C_LINES])):
        n = int(S[S_LINE_LEN + k])
        pv = tuple(board.uci(int(m)) for m in S[S_LINE_PV + k * PLY_ROWS:S_LINE_PV + k * PLY_ROWS + n])
        lines.append(Line(multipv=k + 1, score=score(int(S[S_LINE_SCORE + k])), pv=pv, depth=depth,
                          seldepth=int(S[S_LINE_SELDEPTH + k])))
    best = lines[0]
    ms = ms_since(started)
    nodes = int(ctl[C_NODES])
    return Analysis(
        fen=board.fen(), side_to_move=side, best_move=best.pv[0], ponder=best.pv[1] if len(best.pv) > 1 else None,
        score=best.score, depth=depth, seldepth=best.seldepth, nodes=nodes, time_ms=ms,
        nps=nodes * 1000 // max(ms, 1), hashfull=int(native.core.hashfull(tt, int(ctl[C_TT_EPOCH]))), pv=best.pv,
        lines=tuple(lines),
        backend=native.BACKEND, chess960=board.chess960, tbhits=int(ctl[C_TBHITS]),
    )


def cut_short(S, ctl, depth, last, board=None):
    """The cut-short iteration's best move so far: fully searched at `depth`, so at least as sound as `last`.
    board: the root position, for how castling is written (Chess960)."""
    n = int(S[S_PV_LEN])
    uci = board.uci if board is not None else to_uci
    pv = tuple(uci(int(m)) for m in S[S_PV:S_PV + n])
    if pv[0] == last.best_move:
        return last  # same move: keep the complete line of the previous iteration
    value = score(int(S[S_ROOT_SCORE]))
    line = Line(multipv=1, score=value, pv=pv, depth=depth, seldepth=int(ctl[C_SELDEPTH]))
    return dataclasses.replace(last, best_move=pv[0], ponder=pv[1] if n > 1 else None, score=value, depth=depth,
                               seldepth=line.seldepth, pv=pv, lines=(line,))


def final(result, board, ctl, tt, started, nodes, tbhits=0):
    """The answer: `result` with the totals brought up to date (`nodes`, `tbhits`: every thread's) and a ponder
    move if the PV lacks one."""
    ms = ms_since(started)
    ponder = result.ponder or _ponder_from_tt(board, result.best_move, tt, ctl)
    return dataclasses.replace(result, nodes=nodes, time_ms=ms, nps=nodes * 1000 // max(ms, 1), ponder=ponder,
                               tbhits=tbhits)


def _ponder_from_tt(board, best_move, tt, ctl):
    b = board.copy()
    b.push_uci(best_move)
    data = int(native.core.tt_probe(tt, int(ctl[C_TT_MASK]), np.uint64(b.key), int(ctl[C_TT_EPOCH]),
                                    np.uint64(int(ctl[C_TT_SALT]) & 0xFFFFFFFFFFFFFFFF), int(ctl[C_TT_AGES])))
    m = data & 0xFFFF
    if data and m in b.legal_moves():
        return b.uci(m)
    return None
