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
from engine.core.search import _insufficient_material, iterate
from engine.game_over import count_repetitions
from engine.layout import (
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
    MATE_BOUND,
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
from training.store import (
    END_CHECKMATE,
    END_DRAW_ADJUDICATED,
    END_FIFTY,
    END_MATERIAL,
    END_PLY_LIMIT,
    END_STALEMATE,
    END_THREEFOLD,
    END_WIN_ADJUDICATED,
)

# Adjudication, as Stormphrax's datagen does it (gen23 on; before: 1500 cp for 6 plies, 8 cp for 12 plies after
# ply 80): the plies of a decided game teach the net little and cost as much as any other.
WIN_CP = 1250  # ahead by this much for WIN_PLIES plies in a row wins
WIN_PLIES = 5
DRAW_CP = 10  # after DRAW_FROM_PLY plies, a score within this for DRAW_PLIES plies in a row is a draw
DRAW_PLIES = 10
DRAW_FROM_PLY = 70
MAX_PLIES = 400


# The draws by rule are the engine's: its search's dead material (no pawn, rook or queen, at most one minor) and
# engine/game_over.py's count of repetitions, compiled here.
_repetitions = njit(cache=True)(count_repetitions)


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
    no_tb = np.zeros(1, np.uint8)  # self-play searches without the endgame tables (engine/deepening.py's _NO_TABLES)
    no_tbi = np.zeros(1, np.int64)
    best = 0
    score = 0
    depth = 0
    for d in range(1, 100):
        ctl[C_DEPTH] = d
        lines = iterate(T, bb, board, st, keys, undo, tt, S, ctl, NET, acc, cont, no_tb, no_tbi)
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
         opening_max_cp, out_board, out_side, out_score, out_moves, out_scores, stats):
    """One game from the position in the arrays: `random_plies` random legal moves (seeded), then
    self-play at `soft` nodes a move (training/gen.py) until the rules or adjudication end it.

    Fills out_moves with every move (the random ones first) and out_scores with each searched move's
    score (side to move), as the game store keeps them (training/store.py); the move of a search that
    adjudicates the game is kept though not played. Fills out_board/out_side/out_score with the quiet
    positions (not in check, the best move neither a capture nor a promotion, no mate score). Returns
    (positions kept, White's result 0/1/2, why it ended (store.ENDS), moves in out_moves), or
    (-1, 0, 0, 0) if the opening was over or lopsided beyond opening_max_cp (try another seed).
    stats gains the nodes, the depths and the number of the searches.
    """
    np.random.seed(seed)
    for i in range(random_plies):
        n = generate(T, bb, st, moves, 0, GEN_ALL)
        if n == 0:
            return -1, 0, 0, 0
        out_moves[i] = moves[np.random.randint(0, n)]
        make_move(T, bb, board, st, keys, undo, out_moves[i])
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
        done = random_plies + plies  # moves in out_moves
        n = generate(T, bb, st, moves, 0, GEN_ALL)
        if n == 0:
            if checkers_of(T, bb, st) != 0:
                return kept, (0 if us == 0 else 2), END_CHECKMATE, done
            return kept, 1, END_STALEMATE, done
        if st[ST_HALFMOVE] >= 100:
            return kept, 1, END_FIFTY, done
        if _insufficient_material(bb):
            return kept, 1, END_MATERIAL, done
        if _repetitions(keys, st[ST_PLY], st[ST_HALFMOVE]) >= 3:
            return kept, 1, END_THREEFOLD, done
        m, score = search_move(T, NET, bb, board, st, keys, undo, tt, S, template, ctl, acc, cont, soft, hard,
                               plies % TT_EPOCHS + 1, min(plies, TT_EPOCHS - 1), stats)
        if plies == 0 and random_plies > 0 and abs(score) > opening_max_cp:
            return -1, 0, 0, 0
        out_moves[done] = m
        out_scores[plies] = score
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
            return kept, (2 if white > 0 else 0), END_WIN_ADJUDICATED, done + 1
        if plies >= DRAW_FROM_PLY and draw_run >= DRAW_PLIES:
            return kept, 1, END_DRAW_ADJUDICATED, done + 1
        if plies >= MAX_PLIES:
            return kept, 1, END_PLY_LIMIT, done + 1
        make_move(T, bb, board, st, keys, undo, m)
        plies += 1
