"""The learned evaluation in the compiled core: accumulators kept move by move, and the output layer.

The format and the arithmetic are engine/nnue.py's. ACC holds two accumulators (White's view and
Black's) for every ply of the search, the root's at ply 0. Before a move is made, push_move() writes
the next ply's from this ply's, adding and subtracting only the weight rows of the pieces that move;
unmaking a move needs nothing, the previous ply's are still there. refresh() builds a ply's from
scratch (the root, once per iteration). Everything is int16 adds over NNUE_HIDDEN lanes, which LLVM
turns into AVX2 vector code; the output layer sums in int64 so that no net can overflow it.
"""

import numpy as np
from numba import njit

from engine.core.bitboard import ONE
from engine.core.intrinsics import lsb
from engine.core.position import castle_rook_squares
from engine.core.signatures import kernel
from engine.layout import (
    BB_ALL,
    F_CAPTURE,
    F_EP_CAPTURE,
    F_KING_CASTLE,
    F_PROMO,
    F_QUEEN_CASTLE,
    KNIGHT,
    NET_B1,
    NET_B2,
    NET_W1,
    NET_W2,
    NNUE_HIDDEN,
    NNUE_QA,
    NNUE_QB,
    NNUE_SCALE,
    PAWN,
    ROOK,
    WHITE,
)

H = NNUE_HIDDEN


@njit(inline="always")
def _row(piece, sq, persp):
    """Offset in NET of the weight row of `piece` on `sq`, seen from perspective `persp`."""
    return NET_W1 + ((((piece >> 3) ^ persp) * 384 + ((piece & 7) - 1) * 64 + (sq ^ (56 * persp))) * H)


@kernel
def refresh(NET, ACC, ply, bb, board):
    """Both accumulators of `ply` from scratch: the bias plus the row of every piece."""
    for persp in range(2):
        dst = (ply * 2 + persp) * H
        for i in range(H):
            ACC[dst + i] = NET[NET_B1 + i]
        occ = bb[BB_ALL]
        while occ:
            sq = lsb(occ)
            occ &= occ - ONE
            r = _row(np.int64(board[sq]), sq, persp)
            for i in range(H):
                ACC[dst + i] += NET[r + i]


@kernel
def push_move(NET, ACC, ply, board, m):
    """The accumulators of ply + 1 after move m, from those of ply. Call before make_move (reads board)."""
    frm = m & 63
    to = (m >> 6) & 63
    flag = (m >> 12) & 15
    p = np.int64(board[frm])
    us = p >> 3
    placed = ((KNIGHT + (flag & 3)) | (us << 3)) if flag & F_PROMO else p
    for persp in range(2):
        src = (ply * 2 + persp) * H
        dst = src + 2 * H
        sub = _row(p, frm, persp)
        add = _row(placed, to, persp)
        if flag & F_CAPTURE:
            if flag == F_EP_CAPTURE:
                sub2 = _row(PAWN | ((us ^ 1) << 3), to - 8 if us == WHITE else to + 8, persp)
            else:
                sub2 = _row(np.int64(board[to]), to, persp)
            for i in range(H):
                ACC[dst + i] = ACC[src + i] - NET[sub + i] + NET[add + i] - NET[sub2 + i]
        elif flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE:
            rf, rt = castle_rook_squares(to)
            sub2 = _row(ROOK | (us << 3), rf, persp)
            add2 = _row(ROOK | (us << 3), rt, persp)
            for i in range(H):
                ACC[dst + i] = ACC[src + i] - NET[sub + i] + NET[add + i] - NET[sub2 + i] + NET[add2 + i]
        else:
            for i in range(H):
                ACC[dst + i] = ACC[src + i] - NET[sub + i] + NET[add + i]


@kernel
def push_null(ACC, ply):
    """A passed move changes no piece: ply + 1 gets ply's accumulators."""
    src = ply * 2 * H
    for i in range(2 * H):
        ACC[src + 2 * H + i] = ACC[src + i]


@kernel
def evaluate(NET, ACC, ply, side):
    """Centipawns from the side to move's point of view (engine/nnue.py gives the formula)."""
    us = (ply * 2 + side) * H
    them = (ply * 2 + (side ^ 1)) * H
    total = np.int64(0)
    for i in range(H):
        x = np.int64(min(max(ACC[us + i], 0), NNUE_QA))
        y = np.int64(min(max(ACC[them + i], 0), NNUE_QA))
        total += x * x * NET[NET_W2 + i] + y * y * NET[NET_W2 + H + i]
    b2 = (np.int64(NET[NET_B2]) & 0xFFFF) | (np.int64(NET[NET_B2 + 1]) << 16)
    return (total // NNUE_QA + b2) * NNUE_SCALE // (NNUE_QA * NNUE_QB)
