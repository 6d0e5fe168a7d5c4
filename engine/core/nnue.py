"""The learned evaluation in the compiled core: accumulators kept move by move, and the output layer.

The format and the arithmetic are engine/nnue.py's. ACC holds two accumulators (White's view and
Black's) for every ply of the search, the root's at ply 0. Before a move is made, push_move() writes
the next ply's from this ply's, adding and subtracting only the weight rows of the pieces that move;
unmaking a move needs nothing, the previous ply's are still there. refresh() builds a ply's from
scratch (the root, once per iteration). evaluate() takes the output layer of the position's bucket
(by its piece count). The arithmetic over the NNUE_HIDDEN lanes is engine/core/simd.py's vector code:
int16 adds for the accumulators, int32 products for the output layer.
"""

import numpy as np
from numba import njit

from engine.core.bitboard import ONE
from engine.core.intrinsics import lsb, popcount
from engine.core.position import castle_rook_squares
from engine.core.signatures import kernel
from engine.core.simd import output_sum, row_add, row_capture, row_castle, row_copy, row_move
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
    NET_BUCKET_OF,
    NET_W1,
    NET_W2,
    NNUE_HIDDEN,
    NNUE_OUT_DIV,
    NNUE_QA,
    NNUE_SCALE,
    PAWN,
    ROOK,
    WHITE,
)

H = NNUE_HIDDEN


@njit(inline="always")
def _row(piece, sq, persp):
    """Offset in NET of the weight row of `piece` on `sq`, seen from perspective `persp`."""
    return np.int64(NET_W1 + ((((piece >> 3) ^ persp) * 384 + ((piece & 7) - 1) * 64 + (sq ^ (56 * persp))) * H))


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
            row_add(ACC, NET, dst, dst, _row(np.int64(board[sq]), sq, persp))


@kernel
def push_move(NET, ACC, ply, board, m):
    """The accumulators of ply + 1 after move m, from those of ply. Call before make_move (reads board)."""
    frm = np.int64(m & 63)
    to = np.int64((m >> 6) & 63)
    flag = (m >> 12) & 15
    p = np.int64(board[frm])
    us = p >> 3
    placed = ((KNIGHT + (flag & 3)) | (us << 3)) if flag & F_PROMO else p
    for persp in range(2):
        src = np.int64((ply * 2 + persp) * H)
        dst = src + 2 * H
        sub = _row(p, frm, persp)
        add = _row(placed, to, persp)
        if flag & F_CAPTURE:
            if flag == F_EP_CAPTURE:
                sub2 = _row(PAWN | ((us ^ 1) << 3), to - 8 if us == WHITE else to + 8, persp)
            else:
                sub2 = _row(np.int64(board[to]), to, persp)
            row_capture(ACC, NET, dst, src, sub, sub2, add)
        elif flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE:
            rf, rt = castle_rook_squares(board, frm, to)
            rook = ROOK | (us << 3)
            row_castle(ACC, NET, dst, src, sub, _row(rook, np.int64(rf), persp), add, _row(rook, np.int64(rt), persp))
        else:
            row_move(ACC, NET, dst, src, sub, add)


@kernel
def push_null(NET, ACC, ply):
    """A passed move changes no piece: ply + 1 gets ply's accumulators."""
    src = np.int64(ply * 2 * H)
    row_copy(ACC, NET, src + 2 * H, src)
    row_copy(ACC, NET, src + 3 * H, src + H)


@kernel
def evaluate(NET, ACC, ply, side, occ):
    """Centipawns from the side to move's point of view (engine/nnue.py gives the formula), through the
    output bucket of the number of pieces in `occ` (the occupancy)."""
    us = np.int64((ply * 2 + side) * H)
    them = np.int64((ply * 2 + (side ^ 1)) * H)
    bucket = np.int64(NET[NET_BUCKET_OF + popcount(occ)])
    total = output_sum(ACC, NET, us, them, NET_W2 + bucket * (2 * H), np.int64(NNUE_QA))
    b2 = NET_B2 + 2 * bucket
    bias = (np.int64(NET[b2]) & 0xFFFF) | (np.int64(NET[b2 + 1]) << 16)
    return (total + bias) * NNUE_SCALE // NNUE_OUT_DIV
