"""Self-play games played wholly in compiled code: the engine's own search, move after move, with no
Python between the moves.

engine.analyse() costs about half a millisecond of Python around every search (boards, results,
tables). At the few thousand nodes a move that training data is searched at, that was half the time
of a game; here a whole game is one call, and the data comes two to four times as fast.

Each move is searched by engine/core/search.py's iterate(), depth after depth, as analyse() does, to a
soft node limit: no depth starts once it is spent, so no search is cut short inside a depth except at
the hard limit (a partly searched depth is work thrown away). The game's transposition table and
move-ordering histories are kept from move to move, as a UCI game keeps them (KeepTable and
KeepHistory: both won their SPRTs), so each search starts from what the last ones learnt. The best move
of the last completed depth is played. training/gen.py decides what is kept and writes it.
"""

import numpy as np
from numba import njit

from engine.core.movegen import checkers_of, generate
from engine.core.position import make_move
from engine.core.search import iterate
from engine.layout import (
    BISHOP,
    C_ABORTED,
    C_DEPTH,
    C_MULTIPV,
    C_NODE_LIMIT,
    C_NODES,
    C_ROOT_PLY,
    C_TT_AGES,
    C_TT_EPOCH,
    C_TT_MASK,
    F_CAPTURE,
    F_PROMO,
    GEN_ALL,
    KNIGHT,
    MATE_BOUND,
    PAWN,
    QUEEN,
    ROOK,
    S_HISTORY,
    S_LINE_PV,
    S_LINE_SCORE,
    S_MOVES,
    S_PARAMS,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
    TT_EPOCHS,
)
from engine.params import P_CONT_HISTORY

WIN_CP = 1500  # adjudication: ahead by this much for WIN_PLIES plies in a row wins
WIN_PLIES = 6
DRAW_CP = 8  # after DRAW_FROM_PLY plies, a score within this for DRAW_PLIES plies in a row is a draw
DRAW_PLIES = 12
DRAW_FROM_PLY = 80
MAX_PLIES = 400


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True)
def _dead_draw(bb):
    """Neither side can mate: no pawn, rook or queen, and at most one minor piece."""
    return not (bb[PAWN] | bb[ROOK] | bb[QUEEN]) and _popcount(bb[KNIGHT] | bb[BISHOP]) <= 1


@njit(cache=True)
def _threefold(st, keys):
    n = st[ST_PLY]
    seen = 1
    i = 4
    while i <= min(st[ST_HALFMOVE], n):
        if keys[n - i] == keys[n]:
            seen += 1
        i += 2
    return seen >= 3


@njit
def search_move(T, NET, bb, board, st, keys, undo, tt, S, template, ctl, acc, cont, soft, hard, epoch, ages, stats):
    """(best move, score from the side to move) of a search to about `soft` nodes: no iteration starts
    after `soft` nodes, and none runs past `hard`. The game's table and histories are kept from move to
    move (its searches are told apart by epoch and ages, as a UCI game's are: engine/game_memory.py)."""
    S[:S_HISTORY] = 0  # killers, by ply of the last tree
    S[S_MOVES:] = template[S_MOVES:]  # move lists, lines, parameters; the histories before S_MOVES stay
    ctl[:] = 0
    ctl[C_TT_MASK] = len(tt) // 4 - 1
    ctl[C_TT_EPOCH] = epoch
    ctl[C_TT_AGES] = ages
    ctl[C_NODE_LIMIT] = hard
    ctl[C_ROOT_PLY] = st[ST_PLY]
    ctl[C_MULTIPV] = 1
    best = 0
    score = 0
    depth = 0
    for d in range(1, 100):
        ctl[C_DEPTH] = d
        lines = iterate(T, bb, board, st, keys, undo, tt, S, ctl, NET, acc, cont)
        if ctl[C_ABORTED] or lines == 0:
            break
        best = S[S_LINE_PV]
        score = S[S_LINE_SCORE]
        depth = d
        if ctl[C_NODES] >= soft:
            break
    stats[0] += ctl[C_NODES]
    stats[1] += depth
    stats[2] += 1
    return best, score


@njit
def play(T, NET, bb, board, st, keys, undo, tt, S, template, ctl, acc, cont, moves, seed, soft, hard, random_plies,
         opening_max_cp, out_board, out_side, out_score, stats):
    """One game from the position in the arrays: `random_plies` random legal moves (seeded), then
    self-play at `soft` nodes a move (training/gen.py) until the rules or adjudication end it.

    Fills out_board/out_side/out_score with the quiet positions (not in check, the best move neither a
    capture nor a promotion, no mate score) and returns (positions kept, White's result 0/1/2, plies),
    or (-1, 0, 0) if the opening was over or lopsided beyond opening_max_cp (try another seed).
    stats gains the nodes, the depths and the number of the searches.
    """
    np.random.seed(seed)
    for _ in range(random_plies):
        n = generate(T, bb, st, moves, 0, GEN_ALL)
        if n == 0:
            return -1, 0, 0
        make_move(T, bb, board, st, keys, undo, moves[np.random.randint(0, n)])
    kept = 0
    win_run = 0
    draw_run = 0
    plies = 0
    tt[:] = 0  # a new game: no table entry or history of another
    S[S_HISTORY:S_MOVES] = 0
    if template[S_PARAMS + P_CONT_HISTORY]:
        cont[:] = 0
    while True:
        us = st[ST_SIDE]
        n = generate(T, bb, st, moves, 0, GEN_ALL)
        if n == 0:
            if checkers_of(T, bb, st) != 0:
                return kept, (0 if us == 0 else 2), plies
            return kept, 1, plies
        if st[ST_HALFMOVE] >= 100 or _dead_draw(bb) or _threefold(st, keys):
            return kept, 1, plies
        m, score = search_move(T, NET, bb, board, st, keys, undo, tt, S, template, ctl, acc, cont, soft, hard,
                               plies % TT_EPOCHS + 1, min(plies, TT_EPOCHS - 1), stats)
        if plies == 0 and random_plies > 0 and abs(score) > opening_max_cp:
            return -1, 0, 0
        mate = abs(score) >= MATE_BOUND
        white = score if us == 0 else -score
        if mate:
            white = 100000 if white > 0 else -100000
        elif checkers_of(T, bb, st) == 0 and not ((m >> 12) & (F_CAPTURE | F_PROMO)):
            out_board[kept, :] = board
            out_side[kept] = us
            out_score[kept] = score
            kept += 1
        win_run = win_run + 1 if abs(white) >= WIN_CP else 0
        draw_run = draw_run + 1 if abs(white) <= DRAW_CP else 0
        if win_run >= WIN_PLIES:
            return kept, (2 if white > 0 else 0), plies
        if plies >= DRAW_FROM_PLY and draw_run >= DRAW_PLIES:
            return kept, 1, plies
        if plies >= MAX_PLIES:
            return kept, 1, plies
        make_move(T, bb, board, st, keys, undo, m)
        plies += 1


@njit(cache=True)
def pack(out_board, out_side, out_score, n, result, game, occ, pieces, side, score, results, games):
    """Records (training/records.py's fields) of the first n kept positions."""
    for i in range(n):
        o = np.uint64(0)
        k = 0
        for j in range(16):
            pieces[i, j] = 0
        for sq in range(64):
            p = out_board[i, sq]
            if p != 0:
                o |= np.uint64(1) << np.uint64(sq)
                if k & 1:
                    pieces[i, k >> 1] |= np.uint8(p << 4)
                else:
                    pieces[i, k >> 1] |= np.uint8(p)
                k += 1
        occ[i] = o
        side[i] = out_side[i]
        score[i] = max(-32000, min(32000, out_score[i]))
        results[i] = result
        games[i] = game

