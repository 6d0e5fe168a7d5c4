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


class Iteration:
    """A completed iteration, copied out of the arrays the next one overwrites: its lines as the search encodes
    them, its counts and the table's fill at that moment, and its best move and score (what the deepening loop
    decides on). analysis() reads it out as an Analysis (every line's UCI moves, the FEN) once, when asked:
    after every iteration for a caller that shows each one (on_info: UCI `info` lines, the live stream), only
    for the last one otherwise, which is the answer. The same Analysis either way."""

    __slots__ = ("board", "side", "depth", "lines", "ms", "nodes", "hashfull", "tbhits", "best_move", "score",
                 "_analysis")

    def __init__(self, board, S, ctl, tt, depth, started, side):
        self.board, self.side, self.depth = board, side, depth
        self.lines = []  # (encoded moves, score, seldepth), best first
        for k in range(int(ctl[C_LINES])):
            start = S_LINE_PV + k * PLY_ROWS
            self.lines.append((S[start:start + int(S[S_LINE_LEN + k])].tolist(), int(S[S_LINE_SCORE + k]),
                               int(S[S_LINE_SELDEPTH + k])))
        self.ms = ms_since(started)
        self.nodes = int(ctl[C_NODES])
        self.hashfull = int(native.core.hashfull(tt, int(ctl[C_TT_EPOCH])))
        self.tbhits = int(ctl[C_TBHITS])
        self.best_move = board.uci(self.lines[0][0][0])
        self.score = score(self.lines[0][1])
        self._analysis = None

    def analysis(self):
        """The iteration as an Analysis (built once)."""
        if self._analysis is None:
            board, depth = self.board, self.depth
            lines = tuple(Line(multipv=k + 1, score=score(value), pv=tuple(board.uci(m) for m in moves), depth=depth,
                               seldepth=seldepth) for k, (moves, value, seldepth) in enumerate(self.lines))
            best = lines[0]
            self._analysis = Analysis(
                fen=board.fen(), side_to_move=self.side, best_move=best.pv[0],
                ponder=best.pv[1] if len(best.pv) > 1 else None, score=best.score, depth=depth,
                seldepth=best.seldepth, nodes=self.nodes, time_ms=self.ms, nps=self.nodes * 1000 // max(self.ms, 1),
                hashfull=self.hashfull, pv=best.pv, lines=lines, backend=native.BACKEND, chess960=board.chess960,
                tbhits=self.tbhits)
        return self._analysis


def cut_short(S, ctl, depth, last, board=None):
    """The cut-short iteration's best move so far (an Analysis): fully searched at `depth`, so at least as sound
    as `last`, the Iteration before it. board: the root position, for how castling is written (Chess960)."""
    n = int(S[S_PV_LEN])
    uci = board.uci if board is not None else to_uci
    pv = tuple(uci(int(m)) for m in S[S_PV:S_PV + n])
    last = last.analysis()
    if pv[0] == last.best_move:
        return last  # same move: keep the complete line of the previous iteration
    value = score(int(S[S_ROOT_SCORE]))
    line = Line(multipv=1, score=value, pv=pv, depth=depth, seldepth=int(ctl[C_SELDEPTH]))
    return dataclasses.replace(last, best_move=pv[0], ponder=pv[1] if n > 1 else None, score=value, depth=depth,
                               seldepth=line.seldepth, pv=pv, lines=(line,))


def final(result, board, ctl, tt, started, nodes, tbhits=0):
    """The answer: `result` (an Analysis, or an Iteration read out now) with the totals brought up to date
    (`nodes`, `tbhits`: every thread's) and a ponder move if the PV lacks one."""
    ms = ms_since(started)
    result = result.analysis() if isinstance(result, Iteration) else result
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
