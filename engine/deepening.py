"""Iterative deepening: what engine.analyse() runs once the engine is loaded.

One compiled call per depth (engine/core/search.py searches the tree); between iterations this loop
copies the lines out (engine/readout.py Iteration: read out as UCI moves and a FEN only for on_info and for
the answer), reports them, and decides whether to go deeper
(engine/time_manager.py says how long). Every call gets fresh history and a transposition table
that is fresh to it (engine/tt_pool.py), except that the moves of one game (UCI) may keep both
(engine/game_memory.py: KeepTable, KeepHistory).

Lazy SMP: with threads > 1, helper threads search the same position at the same time, each with its
own board, history, killers and accumulators, sharing only the transposition table (lock-free: a torn
entry reads as empty, engine/core/transposition.py). What they store steers the main thread to its
cut-offs sooner. Helpers start at staggered depths (odd ones a ply deeper) so that they do not all
walk the same tree in step; they are Python threads calling the compiled search, which releases the
GIL. The main thread decides when to stop (time, depth, nodes, `stop`) and stops them; the answer is
the deepest iteration any thread completed. At threads=1 nothing of this runs, and a search to a
fixed depth or node count is deterministic, with the endgame tables too (it sees only those its own earlier
iterations wanted, loaded before the next one: engine/tablebase.py Store.fixed_view and reveal).
"""

import threading
import time

import numpy as np

from engine import game_over, limits, native, profiles, readout, time_manager, tt_pool
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
    C_STOP,
    C_TABLEBASES,
    C_TBHITS,
    C_TT_AGES,
    C_TT_EPOCH,
    C_TT_MASK,
    C_TT_SALT,
    CONT_SIZE,
    N_CTL,
    S_LMR,
    S_PARAMS,
    S_SIZE,
)
from engine.params import DEFAULTS, INDEX


def run(fen=STARTPOS, moves=(), movetime_ms=None, depth=None, nodes=None, multipv=1,
        hash_mb=limits.DEFAULT_HASH_MB, *, wtime=None, btime=None, winc=0, binc=0, movestogo=None,
        infinite=False, stop=None, on_info=None, claim_draws=True, params=None, board=None, started_ns=None,
        threads=1, game=None, chess960=False, tablebases=True, profile=None):
    """engine.analyse(), which documents the arguments."""
    started = time.monotonic_ns() if started_ns is None else started_ns
    params = profiles.settings(profile or ("game" if game is not None else "analysis"), params)
    limits.check(movetime_ms, depth, nodes, multipv, hash_mb, wtime, btime, winc, binc, movestogo, infinite, stop,
                 threads)
    board = board.copy() if board is not None else Board.from_moves(fen, moves, chess960=chess960)
    side = "white" if board.side == 0 else "black"
    reason = game_over.reason(board, claim_draws)
    if reason is not None:
        return readout.game_over(board, side, reason, started)
    tables = None
    if tablebases:  # within the endgame tables: their answer, exact, without a search
        from engine import tablebase

        tables = tablebase.default()
        known = tablebase.answer(board, side, started, multipv, native.BACKEND, tables)
        if known is not None:
            if on_info is not None:
                on_info(known)
            while infinite and stop is not None and not stop.is_set():  # UCI: wait for `stop`
                time.sleep(0.001)
            return known

    budget = time_manager.budget(board.side, movetime_ms, wtime, btime, winc, binc, movestogo,
                                 _param(params, "TimeIncShare") / 100, _param(params, "TimeMovesToGo"))
    buckets = tt_pool.buckets(hash_mb)
    keep_table = game is not None and _param(params, "KeepTable")
    keep_history = game is not None and _param(params, "KeepHistory")
    if keep_table:  # the game's own table, kept for its next move
        table, epoch, salt, ages = game.take_table(buckets)
    else:
        table, used, epoch, salt = tt_pool.acquire(buckets)
        ages = 0
    try:
        tt = table[:buckets * 4]
        table_ctl = (buckets, epoch, salt, ages)
        # A search to a fixed depth or node count sees the tables through its own view (engine/tablebase.py
        # Store.fixed_view): only those its own earlier iterations wanted, loaded before the next iteration, so
        # that its answer does not depend on what earlier searches of the process loaded. A timed search
        # probes whatever is loaded and never waits.
        fixed = (tables is not None and (depth is not None or nodes is not None) and movetime_ms is None
                 and wtime is None and btime is None and not infinite)
        view = tables.store.fixed_view() if fixed else None
        main = Searcher(board, params, control(board, *table_ctl, nodes, multipv, budget, started, tables),
                        game.take_arrays() if keep_history else None, tables, view)
        helpers = [Searcher(board.copy(), params, control(board, *table_ctl, None, 1, budget, started, tables),
                            tables=tables, tbi=view)
                   for _ in range(threads - 1)]
        if stop is not None:
            for s in [main] + helpers:
                stop.attach(s.ctl)
        try:
            return _deepen(main, helpers, side, started, budget, tt, depth, nodes, infinite, stop, on_info, tables,
                           view)
        finally:
            if keep_history:
                game.arrays = (main.S, main.acc, main.cont)
            _recycle(helpers if keep_history else [main] + helpers)
    finally:
        if not keep_table:
            tt_pool.release(table, used)


def _param(params, name):
    """A parameter's value in this call: its override, or its default (engine/params.py)."""
    return (params or {}).get(name, DEFAULTS[INDEX[name]])


class Searcher:
    """One thread's search: its own board copy, scratch array S, control array ctl and accumulators."""

    def __init__(self, board, params, ctl, arrays=None, tables=None, tbi=None):
        self.board, self.ctl = board, ctl
        # the endgame tables' bytes and index (engine/tablebase.py Store; tbi: a fixed-limit search's own view of
        # the index), or stand-ins never read (tables off)
        self.tb, self.tbi = (tables.store.values, tables.store.tbi if tbi is None else tbi) if tables is not None \
            else _NO_TABLES
        # S: histories, killers, move lists, PV, parameters; acc: the net's accumulators, a row pair per ply;
        # cont: continuation history. Fresh, or a game's kept from its last move (engine/game_memory.py).
        self.S, self.acc, self.cont = arrays or _arrays()
        scratch(params, self.S)
        self.best = None  # its deepest completed iteration (helpers; a readout.Iteration)

    def iterate(self, depth, tt):
        """Search one depth; True when it completed (not cut short by time, nodes or stop)."""
        self.ctl[C_DEPTH] = depth
        native.core.search_depth(native.TABLES, *self.board.arrays, tt, self.S, self.ctl, native.NET, self.acc,
                                 self.cont, self.tb, self.tbi)
        return not (self.ctl[C_ABORTED] or self.ctl[C_LINES] == 0)

    def help(self, first_depth, max_depth, tt, started, side):
        """A helper's iterative deepening, until it runs out of depth or the main thread stops it."""
        for d in range(first_depth, max_depth + 1):
            if not self.iterate(d, tt):
                return
            self.best = readout.Iteration(self.board, self.S, self.ctl, tt, d, started, side)


_NO_TABLES = (np.zeros(1, np.uint8), np.zeros(1, np.int64))

_spares = []  # (S, acc, cont) arrays of finished searches, zeroed again for the next one
_spares_lock = threading.Lock()


def _arrays():
    """A searcher's scratch, accumulator and continuation-history arrays, all zero. Kept from search to
    search, as the table is: a first touch of fresh memory costs ~2.6 ms a MB here, and these hold
    ~2 MB; zeroing warm memory costs a tenth of that."""
    with _spares_lock:
        spare = _spares.pop() if _spares else None
    if spare is None:
        return np.zeros(S_SIZE, np.int32), np.zeros(ACC_SIZE, np.int16), np.zeros(CONT_SIZE, np.int16)
    for a in spare:
        a.fill(0)
    return spare


def _recycle(searchers):
    with _spares_lock:
        _spares.extend((s.S, s.acc, s.cont) for s in searchers)
        del _spares[8:]


def scratch(params=None, S=None):
    """The search's scratch array S (zeroed, or a new one), with the parameters (defaults, then
    `params`) and the late-move reduction table made from them."""
    if S is None:
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


def control(board, buckets, epoch, salt, ages, nodes, multipv, budget, started, tables=None):
    """The search's control array ctl: the table, the limits, the deadline, the endgame tables (engine.layout
    C_*)."""
    ctl = np.zeros(N_CTL, np.int64)
    ctl[C_TABLEBASES] = 1 if tables is not None else 0
    ctl[C_TT_MASK] = buckets - 1
    ctl[C_TT_EPOCH] = epoch
    ctl[C_TT_SALT] = salt
    ctl[C_TT_AGES] = ages
    ctl[C_NODE_LIMIT] = nodes or 0
    ctl[C_ROOT_PLY] = board.ply
    ctl[C_MULTIPV] = min(multipv, len(board.legal_moves()))
    if budget.hard_ms is not None:
        ctl[C_DEADLINE] = started + int(budget.hard_ms * 1e6)
    return ctl


def _deepen(main, helpers, side, started, budget, tt, depth, nodes, infinite, stop, on_info, tables=None, view=None):
    max_depth = min(depth or limits.MAX_DEPTH, limits.MAX_DEPTH)
    workers = [threading.Thread(target=h.help, args=(1 + (i + 1) % 2, max_depth, tt, started, side), daemon=True)
               for i, h in enumerate(helpers)]
    for w in workers:
        w.start()
    result = None
    ctl = main.ctl
    soft_ms = budget.soft_ms
    scaled = soft_ms is not None and main.S[S_PARAMS + INDEX["TimeStability"]]
    held = 0  # iterations in a row that ended with the same best move
    try:
        for d in range(1, max_depth + 1):
            if not main.iterate(d, tt):
                if ctl[C_ABORTED] and ctl[C_PARTIAL] and ctl[C_MULTIPV] == 1:
                    result = readout.cut_short(main.S, ctl, d, result, main.board)
                break
            if view is not None:
                tables.store.reveal(view)  # the tables this iteration reached, loaded now, for the next ones
            elif tables is not None:
                tables.store.load_wanted()  # the tables this iteration reached, in the background, for later ones
            previous = result
            # copied out, not read out: the UCI lines and the FEN only for on_info, or for the answer at the end
            result = readout.Iteration(main.board, main.S, ctl, tt, d, started, side)
            if scaled and previous is not None:
                held = held + 1 if result.best_move == previous.best_move else 0
                fall = (previous.score.cp - result.score.cp
                        if previous.score.cp is not None and result.score.cp is not None else 0)
                soft_ms = min(budget.soft_ms * time_manager.soft_scale(held, fall), budget.stretch_ms)
            if on_info is not None:
                on_info(result.analysis())
            elapsed_ms = (time.monotonic_ns() - started) / 1e6
            if stop is not None and stop.is_set():
                break
            if soft_ms is not None and elapsed_ms >= soft_ms:
                break
            if not infinite and budget.hard_ms is not None and _mate_settled(result, d):
                break
            if nodes and ctl[C_NODES] >= nodes:
                break
        # An infinite search that ran out of depth still waits for `stop`, as UCI requires.
        if infinite and stop is not None:
            while not stop.is_set():
                time.sleep(0.001)
    finally:
        for h in helpers:
            h.ctl[C_STOP] = 1
        for w in workers:
            w.join()
    total = int(ctl[C_NODES]) + sum(int(h.ctl[C_NODES]) for h in helpers)
    tbhits = int(ctl[C_TBHITS]) + sum(int(h.ctl[C_TBHITS]) for h in helpers)
    if ctl[C_MULTIPV] == 1:
        # The deepest completed iteration of any thread; the main thread's when depths tie.
        for h in helpers:
            if h.best is not None and h.best.depth > result.depth:
                result = h.best
    return readout.final(result, main.board, ctl, tt, started, total, tbhits)


def _mate_settled(result, depth):
    """A mate found this deep will not change: no point searching on against the clock."""
    m = result.score.mate
    return m is not None and depth >= 2 * abs(m) + 4
