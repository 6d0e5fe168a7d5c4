"""Static exchange evaluation: does a capture sequence on one square gain at least `threshold`?

The swap algorithm with x-rays: each side recaptures with its least valuable attacker, sliders
behind the pieces that leave are uncovered as the occupancy shrinks.
"""

import numpy as np
from numba import njit

from engine.core.attacks import bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks
from engine.core.bitboard import ONE, U64
from engine.core.position import move_flag, move_from, move_to
from engine.core.signatures import kernel
from engine.layout import (
    BB_ALL,
    BB_COLOR,
    BISHOP,
    F_EP_CAPTURE,
    F_KING_CASTLE,
    F_PROMO,
    F_QUEEN_CASTLE,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
)

SEE_VALUE = np.array([0, 100, 320, 330, 500, 950, 20000, 0], dtype=np.int32)


@njit(inline="always")
def _attackers(T, bb, sq, occ):
    return (
        (pawn_attacks(T, 0, sq) & bb[PAWN] & bb[BB_COLOR + 1])
        | (pawn_attacks(T, 1, sq) & bb[PAWN] & bb[BB_COLOR])
        | (knight_attacks(T, sq) & bb[KNIGHT])
        | (king_attacks(T, sq) & bb[KING])
        | (rook_attacks(T, sq, occ) & (bb[ROOK] | bb[QUEEN]))
        | (bishop_attacks(T, sq, occ) & (bb[BISHOP] | bb[QUEEN]))
    )


@kernel
def see_ge(T, bb, board, m, threshold):
    """True if the static exchange started by move m wins at least `threshold` centipawns."""
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    if flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE or flag & F_PROMO:
        return 0 >= threshold
    captured = PAWN if flag == F_EP_CAPTURE else board[to] & 7
    swap = SEE_VALUE[captured] - threshold
    if swap < 0:
        return False
    mover = board[frm] & 7
    swap = SEE_VALUE[mover] - swap
    if swap <= 0:
        return True
    occ = bb[BB_ALL] ^ (ONE << U64(frm)) ^ (ONE << U64(to))
    if flag == F_EP_CAPTURE:
        occ ^= ONE << U64(to - 8 if (board[frm] >> 3) == 0 else to + 8)
    stm = board[frm] >> 3
    attackers = _attackers(T, bb, to, occ) & occ
    diag = bb[BISHOP] | bb[QUEEN]
    ortho = bb[ROOK] | bb[QUEEN]
    res = 1
    while True:
        stm ^= 1
        attackers &= occ
        mine = attackers & bb[BB_COLOR + stm]
        if not mine:
            break
        res ^= 1
        b = mine & bb[PAWN]
        if b:
            swap = SEE_VALUE[PAWN] - swap
            if swap < res:
                break
            occ ^= b & (~b + ONE)
            attackers |= bishop_attacks(T, to, occ) & diag
            continue
        b = mine & bb[KNIGHT]
        if b:
            swap = SEE_VALUE[KNIGHT] - swap
            if swap < res:
                break
            occ ^= b & (~b + ONE)
            continue
        b = mine & bb[BISHOP]
        if b:
            swap = SEE_VALUE[BISHOP] - swap
            if swap < res:
                break
            occ ^= b & (~b + ONE)
            attackers |= bishop_attacks(T, to, occ) & diag
            continue
        b = mine & bb[ROOK]
        if b:
            swap = SEE_VALUE[ROOK] - swap
            if swap < res:
                break
            occ ^= b & (~b + ONE)
            attackers |= rook_attacks(T, to, occ) & ortho
            continue
        b = mine & bb[QUEEN]
        if b:
            swap = SEE_VALUE[QUEEN] - swap
            if swap < res:
                break
            occ ^= b & (~b + ONE)
            attackers |= (bishop_attacks(T, to, occ) & diag) | (rook_attacks(T, to, occ) & ortho)
            continue
        # Only the king is left: it may take only if the other side has no attacker left.
        if attackers & ~bb[BB_COLOR + stm]:
            res ^= 1
        break
    return res == 1

