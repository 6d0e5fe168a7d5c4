"""Iterative deepening: what engine.analyse() runs once the engine is loaded.

One compiled call per depth (engine/core/search.py searches the tree); between iterations this loop
reads the lines (engine/readout.py), reports them, and decides whether to go deeper
(engine/time_manager.py says how long). Every call gets fresh history and a transposition table
that is fresh to it (engine/tt_pool.py).
"""

import time

import numpy as np

from engine import game_over, limits, native, readout, time_manager, tt_pool
from engine.board import Board
from engine.fen import STARTPOS
from engine.layout import (
    ACC_SIZE,
    C_ABORTED,
    C_DEADLINE,
    C_DEPTH,
    C_LINES,
    C_MULTIPV,
    C_NODE_LIMIT,
    C_NODES,
    C_PARTIAL,
    C_ROOT_PLY,
    C_TT_EPOCH,
    C_TT_MASK,
    C_TT_SALT,
    N_CTL,
    S_LMR,
    S_PARAMS,
    S_SIZE,
)
from engine.params import DEFAULTS, INDEX


def run(fen=STARTPOS, moves=(), movetime_ms=None, depth=None, nodes=None, multipv=1,
        hash_mb=limits.DEFAULT_HASH_MB, *, wtime=None, btime=None, winc=0, binc=0, movestogo=None,
        infinite=False, stop=None, on_info=None, claim_draws=True, params=None, board=None, started_ns=None):
    """engine.analyse(), which documents the arguments."""
    started = time.monotonic_ns() if started_ns is None else started_ns
    limits.check(movetime_ms, depth, nodes, multipv, hash_mb, wtime, btime, winc, binc, movestogo, infinite, stop)
    board = board.copy() if board is not None else Board.from_moves(fen, moves)
    side = "white" if board.side == 0 else "black"
    reason = game_over.reason(board, claim_draws)
    if reason is not None:
        return readout.game_over(board, side, reason, started)

    budget = time_manager.budget(board.side, movetime_ms, wtime, btime, winc, binc, movestogo)
    buckets = tt_pool.buckets(hash_mb)
    table, used, epoch, salt = tt_pool.acquire(buckets)
    try:
        ctl = control(board, buckets, epoch, salt, nodes, multipv, budget, started)
        if stop is not None:
            stop.attach(ctl)
        return _deepen(board, side, started, budget, table[:buckets * 4], scratch(params), ctl, depth, nodes,
                       infinite, stop, on_info)
    finally:
        tt_pool.release(table, used)


def scratch(params=None):
    """The search's scratch array S: zeroed, with the parameters (defaults, then `params`) and the
    late-move reduction table made from them."""
    S = np.zeros(S_SIZE, np.int32)
    S[S_PARAMS:S_PARAMS + len(DEFAULTS)] = DEFAULTS
    for name, value in (params or {}).items():
        S[S_PARAMS + INDEX[name]] = value
    S[S_LMR:S_LMR + 64 * 64] = lmr_table(S[S_PARAMS + INDEX["LmrBase"]], S[S_PARAMS + INDEX["LmrDivisor"]]).ravel()
    return S


def lmr_table(base, divisor):
    """Late-move reductions by [depth][move number]: (base + 100 ln d ln m / (divisor / 100)) / 100 plies."""
    d = np.log(np.maximum(np.arange(64), 1))
    table = (base + 100 * np.outer(d, d) * 100 / divisor) / 100
    return table.astype(np.int32)


def control(board, buckets, epoch, salt, nodes, multipv, budget, started):
    """The search's control array ctl: the table, the limits, the deadline (engine.layout C_*)."""
    ctl = np.zeros(N_CTL, np.int64)
    ctl[C_TT_MASK] = buckets - 1
    ctl[C_TT_EPOCH] = epoch
    ctl[C_TT_SALT] = salt
    ctl[C_NODE_LIMIT] = nodes or 0
    ctl[C_ROOT_PLY] = board.ply
    ctl[C_MULTIPV] = min(multipv, len(board.legal_moves()))
    if budget.hard_ms is not None:
        ctl[C_DEADLINE] = started + int(budget.hard_ms * 1e6)
    return ctl


def _deepen(board, side, started, budget, tt, S, ctl, depth, nodes, infinite, stop, on_info):
    max_depth = min(depth or limits.MAX_DEPTH, limits.MAX_DEPTH)
    result = None
    core, T, arrays = native.core, native.TABLES, board.arrays
    acc = np.zeros(ACC_SIZE, np.int16)  # the net's accumulators, a row pair per ply
    for d in range(1, max_depth + 1):
        ctl[C_DEPTH] = d
        core.search_depth(T, *arrays, tt, S, ctl, native.NET, acc)
        if ctl[C_ABORTED] or ctl[C_LINES] == 0:
            if ctl[C_ABORTED] and ctl[C_PARTIAL] and ctl[C_MULTIPV] == 1:
                result = readout.cut_short(S, ctl, d, result)
            break
        result = readout.iteration(board, S, ctl, tt, d, started, side)
        if on_info is not None:
            on_info(result)
        elapsed_ms = (time.monotonic_ns() - started) / 1e6
        if stop is not None and stop.is_set():
            break
        if budget.soft_ms is not None and elapsed_ms >= budget.soft_ms:
            break
        if not infinite and budget.hard_ms is not None and _mate_settled(result, d):
            break
        if nodes and ctl[C_NODES] >= nodes:
            break
    # An infinite search that ran out of depth still waits for `stop`, as UCI requires.
    if infinite and stop is not None:
        while not stop.is_set():
            time.sleep(0.001)
    return readout.final(result, board, ctl, tt, started)


def _mate_settled(result, depth):
    """A mate found this deep will not change: no point searching on against the clock."""
    m = result.score.mate
    return m is not None and depth >= 2 * abs(m) + 4
