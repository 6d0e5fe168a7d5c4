"""engine.analyse(): the one entry point for the UCI program, the CLI and the Lambda functions.

Iterative deepening runs here, one compiled call per depth (engine/core/search.py does the tree);
between iterations this loop reads the lines, reports them, and decides whether to go deeper.
Every call gets fresh history and a transposition table that is fresh to it: the table's memory is
kept for the next call (no page faults, no clearing), but each call stamps its entries with its own
epoch and salt, and entries of other calls count as empty (engine/core/transposition.py).
"""

import dataclasses
import threading
import time

import numpy as np

from engine import native, time_manager
from engine.board import Board
from engine.fen import STARTPOS
from engine.layout import (
    ACC_SIZE,
    BISHOP,
    C_ABORTED,
    C_DEADLINE,
    C_DEPTH,
    C_LINES,
    C_MULTIPV,
    C_NODE_LIMIT,
    C_NODES,
    C_PARTIAL,
    C_ROOT_PLY,
    C_SELDEPTH,
    C_STOP,
    C_TT_EPOCH,
    C_TT_MASK,
    C_TT_SALT,
    KING,
    KNIGHT,
    MATE,
    MATE_BOUND,
    MAX_MULTIPV,
    MAX_PLY,
    N_CTL,
    PLY_ROWS,
    S_LINE_LEN,
    S_LINE_PV,
    S_LINE_SCORE,
    S_LINE_SELDEPTH,
    S_LMR,
    S_PARAMS,
    S_PV,
    S_PV_LEN,
    S_ROOT_SCORE,
    S_SIZE,
)
from engine.moves import to_uci
from engine.params import DEFAULTS, INDEX, PARAMS
from engine.result import Analysis, Line, Score

DEFAULT_HASH_MB = 16
MAX_HASH_MB = 65536
MAX_DEPTH = MAX_PLY - 8
TT_BUCKET_BYTES = 32  # two (key, data) entries of two uint64 words


_tt_lock = threading.Lock()
# The largest table so far and how many of its buckets searches have written since it was last cleared:
# (array, used). A search needing no more reuses the front of it. Fresh memory is dear (a first touch
# costs ~2.6 ms per MB on this Firecracker VM, and numpy backs big arrays with 2 MB huge pages that fault
# whole), so pages once faulted in are kept for every later search, whatever its size.
_tt_spare = None
_searches = 0  # searches started in this process; gives each its epoch and salt
EPOCHS = 63  # epoch values 1..63 fit the entry's six spare bits


def reserve_hash(hash_mb=DEFAULT_HASH_MB):
    """Allocate and touch the transposition table now (e.g. during Lambda's init phase, or at UCI's
    `isready`), not in a search. Does nothing when the spare table is big enough already."""
    buckets = tt_buckets(hash_mb)
    with _tt_lock:
        if _tt_spare is not None and len(_tt_spare[0]) >= buckets * 4:
            return
    table = np.zeros(buckets * 4, np.uint64)
    table.fill(0)  # fault every page in
    _release_tt(table, 0)


def _acquire_tt(buckets):
    """(table, used, epoch, salt) for a new search of `buckets` buckets: table is the spare when it is big
    enough, used how much of it has been written."""
    global _tt_spare, _searches
    with _tt_lock:
        n = _searches
        _searches += 1
        spare, _tt_spare = _tt_spare, None
    if spare is None or len(spare[0]) < buckets * 4:
        table, used = np.zeros(buckets * 4, np.uint64), 0
    else:
        table, used = spare
        if n % EPOCHS == 0:  # the epochs come round again: forget the oldest entries for good
            table[:used * 4].fill(0)
            used = 0
    salt = (n * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    return table, max(used, buckets), n % EPOCHS + 1, salt - (1 << 64) if salt >= 1 << 63 else salt


def _release_tt(table, used):
    """Keep the larger of this table and the spare (concurrent searches each had their own)."""
    global _tt_spare
    with _tt_lock:
        if _tt_spare is None or len(_tt_spare[0]) <= len(table):
            _tt_spare = (table, used)


class StopSignal:
    """Ends a running analyse() from another thread (UCI `stop`). Reusable after clear()."""

    def __init__(self):
        self._lock = threading.Lock()
        self._set = False
        self._ctls = []

    def set(self):
        with self._lock:
            self._set = True
            for ctl in self._ctls:
                ctl[C_STOP] = 1

    def clear(self):
        with self._lock:
            self._set = False
            self._ctls = []

    def is_set(self):
        return self._set

    def _attach(self, ctl):
        with self._lock:
            self._ctls.append(ctl)
            if self._set:
                ctl[C_STOP] = 1


def score_from_internal(v):
    """Engine score -> Score (cp, or moves to mate from the side to move)."""
    if v >= MATE_BOUND:
        return Score(mate=(MATE - v + 1) // 2)
    if v <= -MATE_BOUND:
        return Score(mate=-((MATE + v) // 2))
    return Score(cp=int(v))


def lmr_table(base, divisor):
    """Late-move reductions by [depth][move number]: (base + 100 ln d ln m / (divisor / 100)) / 100 plies."""
    d = np.log(np.maximum(np.arange(64), 1))
    table = (base + 100 * np.outer(d, d) * 100 / divisor) / 100
    return table.astype(np.int32)


def tt_buckets(hash_mb):
    """The largest power-of-two bucket count that fits in hash_mb megabytes."""
    n = max(1, hash_mb * 1024 * 1024 // TT_BUCKET_BYTES)
    return 1 << (n.bit_length() - 1)


def terminal_reason(board, claim_draws=True):
    """Why the game is over in this position, or None."""
    if not board.legal_moves():
        return "checkmate" if board.in_check() else "stalemate"
    if not claim_draws:
        return None
    if insufficient_material(board):
        return "insufficient material"
    if board.halfmove_clock >= 100:
        return "fifty-move rule"
    if repetitions(board) >= 3:
        return "threefold repetition"
    return None


def insufficient_material(board):
    """Neither side can ever mate: K v K, K+minor v K, or kings and bishops all on one square colour."""
    pieces = [(sq, p & 7) for sq in range(64) if (p := board.piece_at(sq)) and p & 7 != KING]
    if any(t not in (KNIGHT, BISHOP) for _, t in pieces):
        return False
    if len(pieces) <= 1:
        return True
    if all(t == BISHOP for _, t in pieces):
        colours = {((sq >> 3) + (sq & 7)) & 1 for sq, _ in pieces}
        return len(colours) == 1
    return False


def repetitions(board):
    """How many times the current position has occurred (itself included) since the last irreversible move."""
    n = board.ply
    key = board.keys[n]
    count = 1
    for i in range(4, min(board.halfmove_clock, n) + 1, 2):
        if board.keys[n - i] == key:
            count += 1
    return count


def analyse(
    fen=STARTPOS,
    moves=(),
    movetime_ms=None,
    depth=None,
    nodes=None,
    multipv=1,
    hash_mb=DEFAULT_HASH_MB,
    *,
    wtime=None,
    btime=None,
    winc=0,
    binc=0,
    movestogo=None,
    infinite=False,
    stop=None,
    on_info=None,
    claim_draws=True,
    params=None,
    board=None,
    started_ns=None,
):
    """Analyse a position and return an Analysis (engine/result.py).

    fen, moves: the position, and UCI moves played from it (they are the history for repetitions).
    Limits, any combination (the first reached ends the search): movetime_ms, depth, nodes, the clock
    (wtime/btime/winc/binc/movestogo, milliseconds), or infinite=True with a StopSignal `stop`.
    multipv: 1..5 best lines. hash_mb: transposition table size, fresh for this call.
    on_info(Analysis): called after every completed iteration. claim_draws: a drawn-by-rule position
    (fifty moves, threefold, dead material) is reported as terminal instead of searched.
    params: {name: value} overrides of engine/params.py (tuning matches).
    board: an engine.board.Board to analyse instead of fen and moves (the UCI program has one already;
    it is left unchanged).
    started_ns: when the caller's clock started (time.monotonic_ns(); default: now). The movetime and
    the clock count from it, so work done before the call (engine.analyse's first call loads the
    compiled core) comes out of the budget instead of overshooting it.
    Raises engine.fen.FenError / engine.board.IllegalMoveError / ValueError for bad input.
    """
    started = time.monotonic_ns() if started_ns is None else started_ns
    _check_limits(movetime_ms, depth, nodes, multipv, hash_mb, wtime, btime, winc, binc, movestogo, infinite, stop)
    if board is not None:
        board = board.copy()
    else:
        board = Board(fen, capacity=max(512, len(moves) + 64))
        for text in moves:
            board.push_uci(text)
    side = "white" if board.side == 0 else "black"
    reason = terminal_reason(board, claim_draws)
    if reason is not None:
        score = Score(mate=0) if reason == "checkmate" else Score(cp=0)
        return Analysis(fen=board.fen(), side_to_move=side, best_move=None, ponder=None, score=score, depth=0,
                        seldepth=0, nodes=0, time_ms=_ms_since(started), nps=0, hashfull=0, pv=(), lines=(),
                        terminal=reason, backend=native.BACKEND)

    budget = _budget(board.side, movetime_ms, wtime, btime, winc, binc, movestogo)
    buckets = tt_buckets(hash_mb)
    table, used, epoch, salt = _acquire_tt(buckets)
    try:
        return _search(board, side, started, budget, buckets, table[:buckets * 4], epoch, salt, depth, nodes,
                       multipv, infinite, stop, on_info, params)
    finally:
        _release_tt(table, used)


def _search(board, side, started, budget, buckets, tt, epoch, salt, depth, nodes, multipv, infinite, stop, on_info,
            params):
    S = np.zeros(S_SIZE, np.int32)
    S[S_PARAMS:S_PARAMS + len(DEFAULTS)] = DEFAULTS
    for name, value in (params or {}).items():
        S[S_PARAMS + INDEX[name]] = value
    S[S_LMR:S_LMR + 64 * 64] = lmr_table(S[S_PARAMS + INDEX["LmrBase"]], S[S_PARAMS + INDEX["LmrDivisor"]]).ravel()
    ctl = np.zeros(N_CTL, np.int64)
    ctl[C_TT_MASK] = buckets - 1
    ctl[C_TT_EPOCH] = epoch
    ctl[C_TT_SALT] = salt
    ctl[C_NODE_LIMIT] = nodes or 0
    ctl[C_ROOT_PLY] = board.ply
    n_legal = len(board.legal_moves())
    ctl[C_MULTIPV] = min(multipv, n_legal)
    if budget.hard_ms is not None:
        ctl[C_DEADLINE] = started + int(budget.hard_ms * 1e6)
    if stop is not None:
        stop._attach(ctl)

    max_depth = min(depth or MAX_DEPTH, MAX_DEPTH)
    result = None
    core, T, arrays = native.core, native.TABLES, board.arrays
    acc = np.zeros(ACC_SIZE, np.int16)
    for d in range(1, max_depth + 1):
        ctl[C_DEPTH] = d
        core.search_depth(T, *arrays, tt, S, ctl, native.NET, acc)
        if ctl[C_ABORTED] or ctl[C_LINES] == 0:
            if ctl[C_ABORTED] and ctl[C_PARTIAL] and ctl[C_MULTIPV] == 1:
                result = _partial(S, ctl, d, result)
            break
        result = _snapshot(board, S, ctl, tt, d, started, side)
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
    return _finish(result, board, ctl, tt, started)


def _check_limits(movetime_ms, depth, nodes, multipv, hash_mb, wtime, btime, winc, binc, movestogo, infinite, stop):
    def whole(name, value, low, high=None):
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
        if value < low or (high is not None and value > high):
            raise ValueError(f"{name} must be between {low} and {high}, got {value}" if high is not None
                             else f"{name} must be at least {low}, got {value}")

    whole("movetime_ms", movetime_ms, 1)
    whole("depth", depth, 1, MAX_DEPTH)
    whole("nodes", nodes, 1)
    whole("multipv", multipv, 1, MAX_MULTIPV)
    whole("hash_mb", hash_mb, 1, MAX_HASH_MB)
    for name, v in (("wtime", wtime), ("btime", btime), ("winc", winc), ("binc", binc)):
        whole(name, v, 0)
    whole("movestogo", movestogo, 1)
    if infinite and stop is None:
        raise ValueError("an infinite search needs a StopSignal to end it")
    if not infinite and movetime_ms is None and depth is None and nodes is None and wtime is None and btime is None:
        raise ValueError("give a limit: movetime_ms, depth, nodes, a clock (wtime/btime) or infinite with stop")


def _budget(side, movetime_ms, wtime, btime, winc, binc, movestogo):
    budgets = []
    if movetime_ms is not None:
        budgets.append(time_manager.for_movetime(movetime_ms))
    clock = wtime if side == 0 else btime
    if clock is not None:
        budgets.append(time_manager.for_clock(clock, (winc if side == 0 else binc) or 0, movestogo))
    if not budgets:
        return time_manager.Budget(None, None)
    softs = [b.soft_ms for b in budgets if b.soft_ms is not None]
    return time_manager.Budget(min(softs) if softs else None, min(b.hard_ms for b in budgets))


def _mate_settled(result, depth):
    """A mate found this deep will not change: no point searching on against the clock."""
    m = result.score.mate
    return m is not None and depth >= 2 * abs(m) + 4


def _snapshot(board, S, ctl, tt, depth, started, side):
    lines = []
    for k in range(int(ctl[C_LINES])):
        n = int(S[S_LINE_LEN + k])
        pv = tuple(to_uci(int(m)) for m in S[S_LINE_PV + k * PLY_ROWS:S_LINE_PV + k * PLY_ROWS + n])
        lines.append(Line(multipv=k + 1, score=score_from_internal(int(S[S_LINE_SCORE + k])), pv=pv, depth=depth,
                          seldepth=int(S[S_LINE_SELDEPTH + k])))
    best = lines[0]
    ms = _ms_since(started)
    nodes = int(ctl[C_NODES])
    return Analysis(
        fen=board.fen(), side_to_move=side, best_move=best.pv[0], ponder=best.pv[1] if len(best.pv) > 1 else None,
        score=best.score, depth=depth, seldepth=best.seldepth, nodes=nodes, time_ms=ms,
        nps=nodes * 1000 // max(ms, 1), hashfull=int(native.core.hashfull(tt, int(ctl[C_TT_EPOCH]))), pv=best.pv,
        lines=tuple(lines),
        backend=native.BACKEND,
    )


def _partial(S, ctl, depth, last):
    """The cut-short iteration's best move so far: fully searched at `depth`, so at least as sound as `last`."""
    n = int(S[S_PV_LEN])
    pv = tuple(to_uci(int(m)) for m in S[S_PV:S_PV + n])
    if pv[0] == last.best_move:
        return last  # same move: keep the complete line of the previous iteration
    score = score_from_internal(int(S[S_ROOT_SCORE]))
    line = Line(multipv=1, score=score, pv=pv, depth=depth, seldepth=int(ctl[C_SELDEPTH]))
    return dataclasses.replace(last, best_move=pv[0], ponder=pv[1] if n > 1 else None, score=score, depth=depth,
                               seldepth=line.seldepth, pv=pv, lines=(line,))


def _finish(result, board, ctl, tt, started):
    """The last completed iteration, with totals brought up to date and a ponder move if the PV lacks one."""
    ms = _ms_since(started)
    nodes = int(ctl[C_NODES])
    ponder = result.ponder or _ponder_from_tt(board, result.best_move, tt, ctl)
    return dataclasses.replace(result, nodes=nodes, time_ms=ms, nps=nodes * 1000 // max(ms, 1), ponder=ponder)


def _ponder_from_tt(board, best_move, tt, ctl):
    b = board.copy()
    b.push_uci(best_move)
    data = int(native.core.tt_probe(tt, int(ctl[C_TT_MASK]), np.uint64(b.key), int(ctl[C_TT_EPOCH]),
                                    np.uint64(int(ctl[C_TT_SALT]) & 0xFFFFFFFFFFFFFFFF)))
    m = data & 0xFFFF
    if data and m in b.legal_moves():
        return to_uci(m)
    return None


def _ms_since(started):
    return (time.monotonic_ns() - started) // 1_000_000


def param_names():
    return [name for name, *_ in PARAMS]

