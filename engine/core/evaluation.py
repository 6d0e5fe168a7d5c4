"""Static evaluation, from the side to move, in centipawns.

Tapered: every term has a middlegame and an endgame value, blended by the game phase (24 with all
minor and major pieces on the board, 0 with none). The base is PeSTO's piece-square tables (Ronald
Friederich's Texel-tuned values, published on the chessprogramming wiki), material folded in; on top
come bishop pair, pawn structure, mobility and king safety, each weighted by a parameter in S
(engine/params.py) so that matches can measure it.
"""

import numpy as np
from numba import njit

from engine.core.attacks import bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks
from engine.core.bitboard import (
    FILE_A,
    NOT_FILE_A,
    NOT_FILE_H,
    ONE,
    S8,
    U64,
    ZERO,
    pawn_attacks_set,
)
from engine.core.intrinsics import lsb, popcount
from engine.core.signatures import kernel
from engine.layout import BB_ALL, BB_COLOR, BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK, S_PARAMS, ST_SIDE
from engine.params import (
    P_BISHOP_PAIR_EG,
    P_BISHOP_PAIR_MG,
    P_CONNECTED_EG,
    P_CONNECTED_MG,
    P_DOUBLED_EG,
    P_DOUBLED_MG,
    P_ISOLATED_EG,
    P_ISOLATED_MG,
    P_KING_SAFETY,
    P_MOBILITY_EG,
    P_MOBILITY_MG,
    P_PASSED_EG,
    P_PASSED_MG,
    P_PAWN_SHIELD,
    P_TEMPO,
)

# fmt: off
# PeSTO tables as printed (a8 first, reading like a diagram from White's side): index = sq ^ 56 for
# White, sq for Black.
_MG_VALUE = (0, 82, 337, 365, 477, 1025, 0)
_EG_VALUE = (0, 94, 281, 297, 512, 936, 0)
_PESTO_MG = {
    PAWN: [
          0,   0,   0,   0,   0,   0,   0,   0,  98, 134,  61,  95,  68, 126,  34, -11,
         -6,   7,  26,  31,  65,  56,  25, -20, -14,  13,   6,  21,  23,  12,  17, -23,
        -27,  -2,  -5,  12,  17,   6,  10, -25, -26,  -4,  -4, -10,   3,   3,  33, -12,
        -35,  -1, -20, -23, -15,  24,  38, -22,   0,   0,   0,   0,   0,   0,   0,   0],
    KNIGHT: [
        -167, -89, -34, -49,  61, -97, -15, -107, -73, -41,  72,  36,  23,  62,   7,  -17,
         -47,  60,  37,  65,  84, 129,  73,   44,  -9,  17,  19,  53,  37,  69,  18,   22,
         -13,   4,  16,  13,  28,  19,  21,   -8, -23,  -9,  12,  10,  19,  17,  25,  -16,
         -29, -53, -12,  -3,  -1,  18, -14,  -19, -105, -21, -58, -33, -17, -28, -19,  -23],
    BISHOP: [
        -29,   4, -82, -37, -25, -42,   7,  -8, -26,  16, -18, -13,  30,  59,  18, -47,
        -16,  37,  43,  40,  35,  50,  37,  -2,  -4,   5,  19,  50,  37,  37,   7,  -2,
         -6,  13,  13,  26,  34,  12,  10,   4,   0,  15,  15,  15,  14,  27,  18,  10,
          4,  15,  16,   0,   7,  21,  33,   1, -33,  -3, -14, -21, -13, -12, -39, -21],
    ROOK: [
         32,  42,  32,  51,  63,   9,  31,  43,  27,  32,  58,  62,  80,  67,  26,  44,
         -5,  19,  26,  36,  17,  45,  61,  16, -24, -11,   7,  26,  24,  35,  -8, -20,
        -36, -26, -12,  -1,   9,  -7,   6, -23, -45, -25, -16, -17,   3,   0,  -5, -33,
        -44, -16, -20,  -9,  -1,  11,  -6, -71, -19, -13,   1,  17,  16,   7, -37, -26],
    QUEEN: [
        -28,   0,  29,  12,  59,  44,  43,  45, -24, -39,  -5,   1, -16,  57,  28,  54,
        -13, -17,   7,   8,  29,  56,  47,  57, -27, -27, -16, -16,  -1,  17,  -2,   1,
         -9, -26,  -9, -10,  -2,  -4,   3,  -3, -14,   2, -11,  -2,  -5,   2,  14,   5,
        -35,  -8,  11,   2,   8,  15,  -3,   1,  -1, -18,  -9,  10, -15, -25, -31, -50],
    KING: [
        -65,  23,  16, -15, -56, -34,   2,  13,  29,  -1, -20,  -7,  -8,  -4, -38, -29,
         -9,  24,   2, -16, -20,   6,  22, -22, -17, -20, -12, -27, -30, -25, -14, -36,
        -49,  -1, -27, -39, -46, -44, -33, -51, -14, -14, -22, -46, -44, -30, -15, -27,
          1,   7,  -8, -64, -43, -16,   9,   8, -15,  36,  12, -54,   8, -28,  24,  14],
}
_PESTO_EG = {
    PAWN: [
          0,   0,   0,   0,   0,   0,   0,   0, 178, 173, 158, 134, 147, 132, 165, 187,
         94, 100,  85,  67,  56,  53,  82,  84,  32,  24,  13,   5,  -2,   4,  17,  17,
         13,   9,  -3,  -7,  -7,  -8,   3,  -1,   4,   7,  -6,   1,   0,  -5,  -1,  -8,
         13,   8,   8,  10,  13,   0,   2,  -7,   0,   0,   0,   0,   0,   0,   0,   0],
    KNIGHT: [
        -58, -38, -13, -28, -31, -27, -63, -99, -25,  -8, -25,  -2,  -9, -25, -24, -52,
        -24, -20,  10,   9,  -1,  -9, -19, -41, -17,   3,  22,  22,  22,  11,   8, -18,
        -18,  -6,  16,  25,  16,  17,   4, -18, -23,  -3,  -1,  15,  10,  -3, -20, -22,
        -42, -20, -10,  -5,  -2, -20, -23, -44, -29, -51, -23, -15, -22, -18, -50, -64],
    BISHOP: [
        -14, -21, -11,  -8,  -7,  -9, -17, -24,  -8,  -4,   7, -12,  -3, -13,  -4, -14,
          2,  -8,   0,  -1,  -2,   6,   0,   4,  -3,   9,  12,   9,  14,  10,   3,   2,
         -6,   3,  13,  19,   7,  10,  -3,  -9, -12,  -3,   8,  10,  13,   3,  -7, -15,
        -14, -18,  -7,  -1,   4,  -9, -15, -27, -23,  -9, -23,  -5,  -9, -16,  -5, -17],
    ROOK: [
         13,  10,  18,  15,  12,  12,   8,   5,  11,  13,  13,  11,  -3,   3,   8,   3,
          7,   7,   7,   5,   4,  -3,  -5,  -3,   4,   3,  13,   1,   2,   1,  -1,   2,
          3,   5,   8,   4,  -5,  -6,  -8, -11,  -4,   0,  -5,  -1,  -7, -12,  -8, -16,
         -6,  -6,   0,   2,  -9,  -9, -11,  -3,  -9,   2,   3,  -1,  -5, -13,   4, -20],
    QUEEN: [
         -9,  22,  22,  27,  27,  19,  10,  20, -17,  20,  32,  41,  58,  25,  30,   0,
        -20,   6,   9,  49,  47,  35,  19,   9,   3,  22,  24,  45,  57,  40,  57,  36,
        -18,  28,  19,  47,  31,  34,  39,  23, -16, -27,  15,   6,   9,  17,  10,   5,
        -22, -23, -30, -16, -16, -23, -36, -32, -33, -28, -22, -43,  -5, -32, -20, -41],
    KING: [
        -74, -35, -18, -18, -11,  15,   4, -17, -12,  17,  14,  17,  17,  38,  23,  11,
         10,  17,  23,  15,  20,  45,  44,  13,  -8,  22,  24,  27,  26,  33,  26,   3,
        -18,  -4,  21,  24,  27,  23,   9, -11, -19,  -3,  11,  21,  23,  16,   7,  -9,
        -27, -11,   4,  13,  14,   4,  -5, -17, -53, -34, -21, -11, -28, -14, -24, -43],
}
# Passed and connected pawn bonuses by relative rank (rank 1..8 -> 0..7), before percent scaling.
PASSED_MG = np.array([0, 0, 5, 10, 25, 45, 70, 0], dtype=np.int32)
PASSED_EG = np.array([0, 5, 10, 20, 40, 70, 110, 0], dtype=np.int32)
CONNECTED_MG = np.array([0, 3, 6, 9, 15, 25, 40, 0], dtype=np.int32)
CONNECTED_EG = np.array([0, 2, 4, 6, 10, 18, 30, 0], dtype=np.int32)
# Mobility: bonus by number of safe target squares, per piece type.
MOBILITY_MG = np.zeros((7, 28), dtype=np.int32)
MOBILITY_EG = np.zeros((7, 28), dtype=np.int32)
for _n in range(28):
    MOBILITY_MG[KNIGHT, _n] = 4 * (min(_n, 8) - 4)
    MOBILITY_EG[KNIGHT, _n] = 4 * (min(_n, 8) - 4)
    MOBILITY_MG[BISHOP, _n] = 5 * (min(_n, 13) - 6)
    MOBILITY_EG[BISHOP, _n] = 5 * (min(_n, 13) - 6)
    MOBILITY_MG[ROOK, _n] = 2 * (min(_n, 14) - 7)
    MOBILITY_EG[ROOK, _n] = 4 * (min(_n, 14) - 7)
    MOBILITY_MG[QUEEN, _n] = 1 * (_n - 14)
    MOBILITY_EG[QUEEN, _n] = 2 * (_n - 14)
# King attack (the chessprogramming-wiki scheme): each attacked square of the enemy king zone is worth
# ATTACK_VALUE of its attacker; the sum is scaled by ATTACK_WEIGHT[number of attackers] percent, so a
# lone attacker counts for nothing and a swarm for almost all of it.
ATTACK_VALUE = np.array([0, 0, 20, 20, 40, 80, 0], dtype=np.int32)
ATTACK_WEIGHT = np.array([0, 0, 50, 75, 88, 94, 97, 99], dtype=np.int32)
PHASE_INC = np.array([0, 0, 1, 1, 2, 4, 0], dtype=np.int32)
# fmt: on


def _psq_tables():
    mg = np.zeros((16, 64), dtype=np.int32)
    eg = np.zeros((16, 64), dtype=np.int32)
    for pt in range(PAWN, KING + 1):
        for sq in range(64):
            # White (code pt) reads the diagram flipped; Black (code pt|8) reads it as printed.
            mg[pt, sq] = _MG_VALUE[pt] + _PESTO_MG[pt][sq ^ 56]
            eg[pt, sq] = _EG_VALUE[pt] + _PESTO_EG[pt][sq ^ 56]
            mg[pt | 8, sq] = -(_MG_VALUE[pt] + _PESTO_MG[pt][sq])
            eg[pt | 8, sq] = -(_EG_VALUE[pt] + _PESTO_EG[pt][sq])
    return mg, eg


PSQ_MG, PSQ_EG = _psq_tables()  # [piece code][square], signed for White


@njit(inline="always")
def _north_fill(b):
    b |= b << U64(8)
    b |= b << U64(16)
    b |= b << U64(32)
    return b


@njit(inline="always")
def _south_fill(b):
    b |= b >> U64(8)
    b |= b >> U64(16)
    b |= b >> U64(32)
    return b


@njit(inline="always")
def _sideways(b):
    return ((b & NOT_FILE_H) << ONE) | ((b & NOT_FILE_A) >> ONE)


@njit(inline="always")
def _pawn_structure(S, own, opp, color):
    """(mg, eg) for one side's pawns: passed, doubled, isolated, connected."""
    mg = 0
    eg = 0
    if color == 0:
        ahead_own = _north_fill(own << S8)  # squares in front of our pawns
        their_front = _south_fill(opp >> S8)  # squares in front of their pawns (from their side)
        behind = _south_fill(own >> S8)
    else:
        ahead_own = _south_fill(own >> S8)
        their_front = _north_fill(opp << S8)
        behind = _north_fill(own << S8)
    blocked_by_own = own & behind  # a pawn with a friendly pawn in front of it... (rear of a doubled pair)
    stoppers = their_front | _sideways(their_front)
    passed = own & ~stoppers & ~blocked_by_own
    files = _north_fill(_south_fill(own))
    isolated = own & ~_sideways(files)
    doubled = own & ahead_own
    supported = own & pawn_attacks_set(own, color)
    phalanx = own & _sideways(own)
    connected = supported | phalanx

    mg -= popcount(doubled) * S[S_PARAMS + P_DOUBLED_MG]
    eg -= popcount(doubled) * S[S_PARAMS + P_DOUBLED_EG]
    mg -= popcount(isolated) * S[S_PARAMS + P_ISOLATED_MG]
    eg -= popcount(isolated) * S[S_PARAMS + P_ISOLATED_EG]
    pmg = 0
    peg = 0
    b = passed
    while b:
        sq = lsb(b)
        b &= b - ONE
        r = (sq >> 3) if color == 0 else 7 - (sq >> 3)
        pmg += PASSED_MG[r]
        peg += PASSED_EG[r]
    cmg = 0
    ceg = 0
    b = connected
    while b:
        sq = lsb(b)
        b &= b - ONE
        r = (sq >> 3) if color == 0 else 7 - (sq >> 3)
        cmg += CONNECTED_MG[r]
        ceg += CONNECTED_EG[r]
    mg += (pmg * S[S_PARAMS + P_PASSED_MG] + cmg * S[S_PARAMS + P_CONNECTED_MG]) // 100
    eg += (peg * S[S_PARAMS + P_PASSED_EG] + ceg * S[S_PARAMS + P_CONNECTED_EG]) // 100
    return mg, eg


@njit(inline="always")
def _pieces(T, bb, S, color):
    """(mg, eg) for one side's pieces: mobility, king attack, bishop pair, pawn shield."""
    own = bb[BB_COLOR + color]
    opp = bb[BB_COLOR + (color ^ 1)]
    occ = bb[BB_ALL]
    own_pawns = bb[PAWN] & own
    opp_pawns = bb[PAWN] & opp
    safe = ~own & ~pawn_attacks_set(opp_pawns, color ^ 1)
    their_king = lsb(bb[KING] & opp)
    zone = king_attacks(T, their_king) | (ONE << U64(their_king))
    mob_mg = 0
    mob_eg = 0
    units = 0
    attackers = 0
    mg = 0
    eg = 0

    b = bb[KNIGHT] & own
    while b:
        sq = lsb(b)
        b &= b - ONE
        a = knight_attacks(T, sq)
        n = popcount(a & safe)
        mob_mg += MOBILITY_MG[KNIGHT, n]
        mob_eg += MOBILITY_EG[KNIGHT, n]
        if a & zone:
            attackers += 1
            units += ATTACK_VALUE[KNIGHT] * popcount(a & zone)
    b = bb[BISHOP] & own
    while b:
        sq = lsb(b)
        b &= b - ONE
        a = bishop_attacks(T, sq, occ ^ (bb[QUEEN] & own))  # see through our own queen
        n = popcount(a & safe)
        mob_mg += MOBILITY_MG[BISHOP, n]
        mob_eg += MOBILITY_EG[BISHOP, n]
        if a & zone:
            attackers += 1
            units += ATTACK_VALUE[BISHOP] * popcount(a & zone)
    b = bb[ROOK] & own
    while b:
        sq = lsb(b)
        b &= b - ONE
        a = rook_attacks(T, sq, occ ^ ((bb[QUEEN] | bb[ROOK]) & own))  # x-ray our own heavy pieces
        n = popcount(a & safe)
        mob_mg += MOBILITY_MG[ROOK, n]
        mob_eg += MOBILITY_EG[ROOK, n]
        if a & zone:
            attackers += 1
            units += ATTACK_VALUE[ROOK] * popcount(a & zone)
    b = bb[QUEEN] & own
    while b:
        sq = lsb(b)
        b &= b - ONE
        a = queen_attacks(T, sq, occ)
        n = popcount(a & safe)
        mob_mg += MOBILITY_MG[QUEEN, n]
        mob_eg += MOBILITY_EG[QUEEN, n]
        if a & zone:
            attackers += 1
            units += ATTACK_VALUE[QUEEN] * popcount(a & zone)

    mg += mob_mg * S[S_PARAMS + P_MOBILITY_MG] // 100
    eg += mob_eg * S[S_PARAMS + P_MOBILITY_EG] // 100
    # Without a queen an attack rarely mates; scale by the attacker count and the KingSafety weight.
    if attackers >= 2 and (bb[QUEEN] & own):
        mg += units * ATTACK_WEIGHT[min(attackers, 7)] * S[S_PARAMS + P_KING_SAFETY] // 10000
    if popcount(bb[BISHOP] & own) >= 2:
        mg += S[S_PARAMS + P_BISHOP_PAIR_MG]
        eg += S[S_PARAMS + P_BISHOP_PAIR_EG]
    # Pawn shield: our pawns on the king's file and its neighbours, one or two ranks ahead.
    ksq = lsb(bb[KING] & own)
    kf = ksq & 7
    if kf <= 2 or kf >= 5:
        files = FILE_A << U64(kf)
        files |= _sideways(files)
        if color == 0:
            ranks = U64(0xFFFF) << U64(((ksq >> 3) + 1) * 8) if (ksq >> 3) < 6 else ZERO
        else:
            ranks = U64(0xFFFF) << U64(((ksq >> 3) - 2) * 8) if (ksq >> 3) > 1 else ZERO
        mg += popcount(files & ranks & own_pawns) * S[S_PARAMS + P_PAWN_SHIELD]
    return mg, eg


@kernel
def evaluate(T, bb, board, st, S):
    """Static evaluation from the side to move's point of view."""
    mg = 0
    eg = 0
    phase = 0
    occ = bb[BB_ALL]
    while occ:
        sq = lsb(occ)
        occ &= occ - ONE
        p = board[sq]
        mg += PSQ_MG[p, sq]
        eg += PSQ_EG[p, sq]
        phase += PHASE_INC[p & 7]

    white = bb[BB_COLOR]
    black = bb[BB_COLOR + 1]
    wp = bb[PAWN] & white
    bp = bb[PAWN] & black
    wmg, weg = _pawn_structure(S, wp, bp, 0)
    bmg, beg = _pawn_structure(S, bp, wp, 1)
    mg += wmg - bmg
    eg += weg - beg
    wmg, weg = _pieces(T, bb, S, 0)
    bmg, beg = _pieces(T, bb, S, 1)
    # A side's king-danger term is the pressure its pieces put on the enemy king: already signed for it.
    mg += wmg - bmg
    eg += weg - beg

    phase = min(phase, 24)
    eg = _div(eg * _endgame_scale(bb, eg), 64)
    score = _div(mg * phase + eg * (24 - phase), 24)
    if st[ST_SIDE] == 1:
        score = -score
    return score + S[S_PARAMS + P_TEMPO]


@njit(inline="always")
def _div(a, b):
    """a / b rounded toward zero, so that White's and Black's scores mirror exactly."""
    return a // b if a >= 0 else -((-a) // b)


@njit(inline="always")
def _endgame_scale(bb, eg):
    """Out of 64: how much of the endgame score the stronger side can convert."""
    strong = 0 if eg > 0 else 1
    s = bb[BB_COLOR + strong]
    w = bb[BB_COLOR + (strong ^ 1)]
    if bb[PAWN] & s:
        return 64
    npm_strong = (3 * popcount(bb[KNIGHT] & s) + 3 * popcount(bb[BISHOP] & s) + 5 * popcount(bb[ROOK] & s)
                  + 9 * popcount(bb[QUEEN] & s))
    npm_weak = (3 * popcount(bb[KNIGHT] & w) + 3 * popcount(bb[BISHOP] & w) + 5 * popcount(bb[ROOK] & w)
                + 9 * popcount(bb[QUEEN] & w))
    # Without pawns, a lead of a minor piece or less rarely wins (KR v KB, KN v K, KBN v KR ...).
    if npm_strong - npm_weak <= 3:
        return 4 if npm_strong <= 3 else 16
    return 64
