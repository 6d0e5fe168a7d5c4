"""Legal move generation with check and pin masks.

One pass produces only legal moves: the enemy attack map (computed with our king lifted off the board)
fences the king; a single checker restricts every other piece to capturing it or blocking; pinned
pieces move along their pin line; en passant, the one move that can uncover the king along a rank,
is checked by recomputing slider attacks on the changed occupancy.
"""

from numba import njit

from engine.core.attacks import (
    between,
    bishop_attacks,
    king_attacks,
    knight_attacks,
    line,
    pawn_attacks,
    rook_attacks,
)
from engine.core.bitboard import (
    FULL,
    NOT_FILE_A,
    NOT_FILE_H,
    ONE,
    RANK_1,
    RANK_3,
    RANK_6,
    RANK_8,
    S7,
    S8,
    S9,
    U64,
    ZERO,
    pawn_attacks_set,
)
from engine.core.intrinsics import lsb, popcount
from engine.core.position import castle_rook_from, move_flag, move_from, move_to
from engine.core.signatures import kernel
from engine.layout import (
    BB_ALL,
    BB_COLOR,
    BISHOP,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    F_CAPTURE,
    F_DOUBLE_PUSH,
    F_EP_CAPTURE,
    F_KING_CASTLE,
    F_PROMO,
    F_QUEEN_CASTLE,
    F_QUIET,
    GEN_NOISY,
    KING,
    KNIGHT,
    NO_SQ,
    PAWN,
    QUEEN,
    ROOK,
    ST_CASTLE,
    ST_CASTLE_ROOK,
    ST_CHESS960,
    ST_EP,
    ST_SIDE,
    T_BISHOP_RAYS,
    T_ROOK_RAYS,
    WHITE,
)

# Squares that must be empty / not attacked for each castle.
W_OO_EMPTY = U64(0x60)
W_OOO_EMPTY = U64(0x0E)
W_OO_SAFE = U64(0x60)
W_OOO_SAFE = U64(0x0C)
B_OO_EMPTY = W_OO_EMPTY << U64(56)
B_OOO_EMPTY = W_OOO_EMPTY << U64(56)
B_OO_SAFE = W_OO_SAFE << U64(56)
B_OOO_SAFE = W_OOO_SAFE << U64(56)


@njit(inline="always")
def king_square(bb, color):
    return lsb(bb[KING] & bb[BB_COLOR + color])


@njit(inline="always")
def checkers_of(T, bb, st):
    """The enemy pieces that check the side to move (a king never can: only the other four kinds are looked at)."""
    us = st[ST_SIDE]
    ksq = king_square(bb, us)
    occ = bb[BB_ALL]
    return (
        (pawn_attacks(T, us, ksq) & bb[PAWN])
        | (knight_attacks(T, ksq) & bb[KNIGHT])
        | (rook_attacks(T, ksq, occ) & (bb[ROOK] | bb[QUEEN]))
        | (bishop_attacks(T, ksq, occ) & (bb[BISHOP] | bb[QUEEN]))
    ) & bb[BB_COLOR + (us ^ 1)]


@njit(inline="always")
def line_blockers(T, bb, ksq, sliders, pieces):
    """Pieces among `pieces` that stand alone between the king on ksq and a slider of `sliders` on a
    line it attacks along: pinned pieces (the enemy's sliders, our pieces) or discovered-check
    candidates (our sliders, our pieces, the enemy king)."""
    occ = bb[BB_ALL]
    found = ZERO
    snipers = (T[T_ROOK_RAYS + ksq] & (bb[ROOK] | bb[QUEEN])) | (T[T_BISHOP_RAYS + ksq] & (bb[BISHOP] | bb[QUEEN]))
    snipers &= sliders
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - ONE
        b = between(T, ksq, s) & occ
        if b and not (b & (b - ONE)) and (b & pieces):
            found |= b
    return found


@njit(inline="always")
def _emit(moves, n, frm, targets, opp):
    while targets:
        to = lsb(targets)
        targets &= targets - ONE
        flag = F_CAPTURE if (ONE << U64(to)) & opp else F_QUIET
        moves[n] = frm | (to << 6) | (flag << 12)
        n += 1
    return n


@njit(inline="always")
def _emit_pawns(moves, n, targets, delta, flag):
    """Pawn moves given by their destinations; the origin is destination - delta."""
    while targets:
        to = lsb(targets)
        targets &= targets - ONE
        moves[n] = (to - delta) | (to << 6) | (flag << 12)
        n += 1
    return n


@njit(inline="always")
def _emit_promos(moves, n, targets, delta, capture, queen_only):
    cap = F_CAPTURE if capture else 0
    while targets:
        to = lsb(targets)
        targets &= targets - ONE
        frm = to - delta
        moves[n] = frm | (to << 6) | ((F_PROMO | cap | 3) << 12)
        n += 1
        if not queen_only:
            for k in range(3):
                moves[n] = frm | (to << 6) | ((F_PROMO | cap | k) << 12)
                n += 1
    return n


@kernel
def generate(T, bb, st, moves, start, kind):
    """Write the legal moves (all, or noisy ones) into moves[start:]; return the index past the last."""
    us = st[ST_SIDE]
    them = us ^ 1
    occ = bb[BB_ALL]
    own = bb[BB_COLOR + us]
    opp = bb[BB_COLOR + them]
    ksq = lsb(bb[KING] & own)
    kbit = ONE << U64(ksq)
    n = start

    # Enemy attacks with our king lifted, so it cannot step back along a slider's ray.
    occ_nk = occ ^ kbit
    danger = pawn_attacks_set(bb[PAWN] & opp, them) | king_attacks(T, lsb(bb[KING] & opp))
    b = bb[KNIGHT] & opp
    while b:
        danger |= knight_attacks(T, lsb(b))
        b &= b - ONE
    b = (bb[BISHOP] | bb[QUEEN]) & opp
    while b:
        danger |= bishop_attacks(T, lsb(b), occ_nk)
        b &= b - ONE
    b = (bb[ROOK] | bb[QUEEN]) & opp
    while b:
        danger |= rook_attacks(T, lsb(b), occ_nk)
        b &= b - ONE

    checkers = (
        (knight_attacks(T, ksq) & bb[KNIGHT])
        | (pawn_attacks(T, us, ksq) & bb[PAWN])
        | (rook_attacks(T, ksq, occ) & (bb[ROOK] | bb[QUEEN]))
        | (bishop_attacks(T, ksq, occ) & (bb[BISHOP] | bb[QUEEN]))
    ) & opp
    n_checkers = popcount(checkers)
    noisy = kind == GEN_NOISY and n_checkers == 0

    ktargets = king_attacks(T, ksq) & ~own & ~danger
    if noisy:
        ktargets &= opp
    n = _emit(moves, n, ksq, ktargets, opp)
    if n_checkers > 1:
        return n

    # Where non-king pieces may go: anywhere, or onto the checker / between it and the king.
    if n_checkers == 1:
        csq = lsb(checkers)
        mask = checkers | between(T, ksq, csq)
    else:
        mask = FULL
    target = mask & ~own
    if noisy:
        target &= opp

    pinned = line_blockers(T, bb, ksq, opp, own)

    b = bb[KNIGHT] & own & ~pinned
    while b:
        sq = lsb(b)
        b &= b - ONE
        n = _emit(moves, n, sq, knight_attacks(T, sq) & target, opp)
    b = (bb[BISHOP] | bb[QUEEN]) & own
    while b:
        sq = lsb(b)
        b &= b - ONE
        t = bishop_attacks(T, sq, occ) & target
        if pinned & (ONE << U64(sq)):
            t &= line(T, ksq, sq)
        n = _emit(moves, n, sq, t, opp)
    b = (bb[ROOK] | bb[QUEEN]) & own
    while b:
        sq = lsb(b)
        b &= b - ONE
        t = rook_attacks(T, sq, occ) & target
        if pinned & (ONE << U64(sq)):
            t &= line(T, ksq, sq)
        n = _emit(moves, n, sq, t, opp)

    # Pawns: unpinned ones set-wise, pinned ones one at a time along their pin line.
    pawns = bb[PAWN] & own
    promo_rank = RANK_8 if us == WHITE else RANK_1
    third = RANK_3 if us == WHITE else RANK_6
    up = 8 if us == WHITE else -8
    free = pawns & ~pinned
    n = _pawn_moves(moves, n, free, us, occ, opp, mask, promo_rank, third, up, noisy)
    pinned_pawns = pawns & pinned
    while pinned_pawns:
        sq = lsb(pinned_pawns)
        pinned_pawns &= pinned_pawns - ONE
        n = _pawn_moves(moves, n, ONE << U64(sq), us, occ, opp, mask & line(T, ksq, sq), promo_rank, third, up, noisy)

    ep = st[ST_EP]
    if ep != NO_SQ:
        capsq = ep - up
        cbit = ONE << U64(capsq)
        # Legal only if it resolves any check (by taking the checker or blocking) ...
        if (mask & (cbit | (ONE << U64(ep)))) != ZERO:
            b = pawn_attacks(T, them, ep) & pawns
            while b:
                sq = lsb(b)
                b &= b - ONE
                # ... and leaves no slider attack on the king once both pawns have gone.
                occ2 = (occ ^ (ONE << U64(sq)) ^ cbit) | (ONE << U64(ep))
                sliders = (rook_attacks(T, ksq, occ2) & (bb[ROOK] | bb[QUEEN])) | (
                    bishop_attacks(T, ksq, occ2) & (bb[BISHOP] | bb[QUEEN])
                )
                if not (sliders & opp):
                    moves[n] = sq | (ep << 6) | (F_EP_CAPTURE << 12)
                    n += 1

    if n_checkers == 0 and not noisy:
        rights = st[ST_CASTLE]
        if rights and st[ST_CHESS960]:
            return _castles_960(T, bb, st, moves, n, us, ksq, occ, opp, danger)
        if us == WHITE:
            if rights & CASTLE_WK and not (occ & W_OO_EMPTY) and not (danger & W_OO_SAFE):
                moves[n] = 4 | (6 << 6) | (F_KING_CASTLE << 12)
                n += 1
            if rights & CASTLE_WQ and not (occ & W_OOO_EMPTY) and not (danger & W_OOO_SAFE):
                moves[n] = 4 | (2 << 6) | (F_QUEEN_CASTLE << 12)
                n += 1
        else:
            if rights & CASTLE_BK and not (occ & B_OO_EMPTY) and not (danger & B_OO_SAFE):
                moves[n] = 60 | (62 << 6) | (F_KING_CASTLE << 12)
                n += 1
            if rights & CASTLE_BQ and not (occ & B_OOO_EMPTY) and not (danger & B_OOO_SAFE):
                moves[n] = 60 | (58 << 6) | (F_QUEEN_CASTLE << 12)
                n += 1
    return n


@njit(inline="always")
def _castles_960(T, bb, st, moves, n, us, ksq, occ, opp, danger):
    """Chess960 castling (any king and rook start squares), for a side not in check. The king ends on
    the g or c file and the rook beside it on the f or d file; every square either crosses or lands on
    must be empty but for the two of them, and none the king crosses or lands on may be attacked."""
    rights = st[ST_CASTLE] >> (2 * us)
    back = 56 * us
    kbit = ONE << U64(ksq)
    for wing in range(2):  # 0: king side (g and f files), 1: queen side (c and d files)
        if not rights & (1 << wing):
            continue
        rsq = st[ST_CASTLE_ROOK + 2 * us + wing]
        kto = back + (2 if wing else 6)
        rto = back + (3 if wing else 5)
        rbit = ONE << U64(rsq)
        king_path = between(T, ksq, kto) | (ONE << U64(kto))
        path = (king_path | between(T, rsq, rto) | (ONE << U64(rto))) & ~(kbit | rbit)
        if occ & path or danger & king_path:
            continue
        # The rook itself may have screened the king's destination from a slider along the rank.
        if rook_attacks(T, kto, occ ^ kbit ^ rbit) & (bb[ROOK] | bb[QUEEN]) & opp:
            continue
        moves[n] = ksq | (kto << 6) | ((F_KING_CASTLE + wing) << 12)
        n += 1
    return n


@njit(inline="always")
def _pawn_moves(moves, n, pawns, us, occ, opp, mask, promo_rank, third, up, noisy):
    empty = ~occ
    if us == WHITE:
        single = (pawns << S8) & empty
        double = ((single & third) << S8) & empty
        left = ((pawns & NOT_FILE_A) << S7) & opp & mask
        right = ((pawns & NOT_FILE_H) << S9) & opp & mask
        dl, dr = 7, 9
    else:
        single = (pawns >> S8) & empty
        double = ((single & third) >> S8) & empty
        left = ((pawns & NOT_FILE_A) >> S9) & opp & mask
        right = ((pawns & NOT_FILE_H) >> S7) & opp & mask
        dl, dr = -9, -7
    single &= mask
    double &= mask
    n = _emit_promos(moves, n, single & promo_rank, up, False, noisy)
    n = _emit_promos(moves, n, left & promo_rank, dl, True, noisy)
    n = _emit_promos(moves, n, right & promo_rank, dr, True, noisy)
    n = _emit_pawns(moves, n, left & ~promo_rank, dl, F_CAPTURE)
    n = _emit_pawns(moves, n, right & ~promo_rank, dr, F_CAPTURE)
    if not noisy:
        n = _emit_pawns(moves, n, single & ~promo_rank, up, F_QUIET)
        n = _emit_pawns(moves, n, double, 2 * up, F_DOUBLE_PUSH)
    return n


@njit(inline="always")
def gives_check(T, bb, board, st, m):
    """Whether legal move m checks the opponent, without making it (direct, discovered, castling rook)."""
    us = st[ST_SIDE]
    own = bb[BB_COLOR + us]
    ksq = lsb(bb[KING] & bb[BB_COLOR + (us ^ 1)])
    kbit = ONE << U64(ksq)
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    fbit = ONE << U64(frm)
    tbit = ONE << U64(to)
    piece = board[frm] & 7
    if flag & F_PROMO:
        piece = KNIGHT + (flag & 3)
    occ = (bb[BB_ALL] ^ fbit) | tbit
    rq = (bb[ROOK] | bb[QUEEN]) & own & ~fbit
    bq = (bb[BISHOP] | bb[QUEEN]) & own & ~fbit
    if piece == ROOK or piece == QUEEN:
        rq |= tbit
    if piece == BISHOP or piece == QUEEN:
        bq |= tbit
    if flag == F_EP_CAPTURE:
        occ ^= ONE << U64(to - 8 if us == WHITE else to + 8)
    elif flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE:
        rf = castle_rook_from(st, us, flag)
        rt = to - 1 if flag == F_KING_CASTLE else to + 1
        occ = (bb[BB_ALL] & ~fbit & ~(ONE << U64(rf))) | tbit | (ONE << U64(rt))
        rq = (rq & ~(ONE << U64(rf))) | (ONE << U64(rt))
    if (rook_attacks(T, ksq, occ) & rq) or (bishop_attacks(T, ksq, occ) & bq):
        return True
    if piece == KNIGHT:
        return (knight_attacks(T, to) & kbit) != ZERO
    if piece == PAWN:
        return (pawn_attacks(T, us, to) & kbit) != ZERO
    return False


@njit(inline="always")
def check_squares(T, bb, st):
    """What makes a quiet move a check in this position, computed once for all moves.

    Returns (pawn, knight, bishop, rook) target squares that attack the enemy king, and our pieces
    whose move off the line would uncover a check by one of our sliders (discovered-check blockers).
    """
    us = st[ST_SIDE]
    own = bb[BB_COLOR + us]
    occ = bb[BB_ALL]
    ksq = lsb(bb[KING] & bb[BB_COLOR + (us ^ 1)])
    blockers = line_blockers(T, bb, ksq, own, own)
    return (pawn_attacks(T, us ^ 1, ksq), knight_attacks(T, ksq), bishop_attacks(T, ksq, occ),
            rook_attacks(T, ksq, occ), blockers, ksq)


@njit(inline="always")
def quiet_gives_check(T, board, info, m):
    """gives_check() for a quiet, non-castling move, from check_squares()."""
    cp, cn, cb, cr, blockers, ksq = info
    frm = move_from(m)
    to = move_to(m)
    tbit = ONE << U64(to)
    pt = board[frm] & 7
    if pt == PAWN:
        target = cp
    elif pt == KNIGHT:
        target = cn
    elif pt == BISHOP:
        target = cb
    elif pt == ROOK:
        target = cr
    elif pt == QUEEN:
        target = cb | cr
    else:
        target = ZERO
    if tbit & target:
        return True
    return (blockers & (ONE << U64(frm))) != ZERO and not (line(T, frm, ksq) & tbit)
