"""Endgame tables: indexing, lookup and the retrograde generator (numba).

A table holds one material balance of up to four pieces (kings included), one byte a position for
each side to move: the distance to mate in plies (even: the side to move is mated in that many plies,
0 = mated now; odd: it mates in (d + 1) / 2 moves) or DRAW. Distance to mate, not to a zeroing move:
no position of these tables takes more than fifty moves to mate (the generator's test checks the
longest), so a mate by the table never runs into the fifty-move rule from a fresh count.

Index: the pieces in the table's order (white king, black king, white pieces, black pieces, each
side's by type, strongest first), 6 bits a square, the white king first. Without pawns the board's
8 symmetries put the white king in the a1-d1-d4 triangle (10 squares; on the diagonal the smaller of
the two indices); with pawns only the left-right mirror (white king on files a-d, 32 squares).
Positions with en passant rights are not in the index: the probe plays the capture itself
(engine/tablebase.py), and the generator scores a double push that allows one as the better of the two.

Called with the tables of every smaller balance already in the one flat byte array V (OFF/NSIDE give
each table's place and size, ORDER its piece codes, KEY2TID/KEY2FLIP map a material key to the table
and whether the colours must be swapped), generate() fills one table in place.
"""

import numpy as np
from numba import njit

from engine.core.attacks import bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks
from engine.core.bitboard import ONE, U64, ZERO

DRAW = 254
INVALID = 253  # during generation only: no position (pieces overlap, a pawn on its last rank, the side
#                 not to move in check, or not the canonical index of its position); DRAW on disk
UNKNOWN = 255
INF = 1000

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6

TRI_SQ = np.array([0, 1, 2, 3, 9, 10, 11, 18, 19, 27], dtype=np.int64)  # a1-d1-d4: file <= 3, rank <= file
TRI = np.full(64, -1, dtype=np.int64)
TRI[TRI_SQ] = np.arange(10)


@njit(inline="always")
def xform(sq, m):
    f = sq & 7
    r = sq >> 3
    if m & 1:
        f = 7 - f
    if m & 2:
        r = 7 - r
    if m & 4:
        f, r = r, f
    return r * 8 + f


@njit(inline="always")
def _pack(sqs, n, m, pawnful):
    k = xform(sqs[0], m)
    idx = (k >> 3) * 4 + (k & 7) if pawnful else TRI[k]
    for i in range(1, n):
        idx = idx * 64 + xform(sqs[i], m)
    return idx


@njit(cache=True)
def canon_index(sqs, n, pawnful):
    """The index of the position whose pieces (in the table's order) stand on sqs[:n]."""
    wk = sqs[0]
    f = wk & 7
    r = wk >> 3
    if pawnful:
        return _pack(sqs, n, 1 if f > 3 else 0, True)
    m = 0
    if f > 3:
        m |= 1
        f = 7 - f
    if r > 3:
        m |= 2
        r = 7 - r
    if r > f:
        m |= 4
    idx = _pack(sqs, n, m, False)
    if r == f:
        other = _pack(sqs, n, m ^ 4, False)
        if other < idx:
            idx = other
    return idx


@njit(cache=True)
def decode(idx, n, pawnful, sqs):
    for i in range(n - 1, 0, -1):
        sqs[i] = idx & 63
        idx >>= 6
    sqs[0] = (idx >> 2) * 8 + (idx & 3) if pawnful else TRI_SQ[idx]


@njit(inline="always")
def _attacks(T, code, sq, occ):
    t = code & 7
    if t == PAWN:
        return pawn_attacks(T, code >> 3, sq)
    if t == KNIGHT:
        return knight_attacks(T, sq)
    if t == BISHOP:
        return bishop_attacks(T, sq, occ)
    if t == ROOK:
        return rook_attacks(T, sq, occ)
    if t == QUEEN:
        return queen_attacks(T, sq, occ)
    return king_attacks(T, sq)


@njit(inline="always")
def _occupancy(sqs, n):
    occ = ZERO
    for i in range(n):
        occ |= ONE << U64(sqs[i])
    return occ


@njit(cache=True)
def attacked(T, codes, sqs, n, sq, by, occ):
    """Whether a piece of colour `by` attacks sq."""
    target = ONE << U64(sq)
    for i in range(n):
        if (codes[i] >> 3) == by and sqs[i] != sq and (_attacks(T, codes[i], sqs[i], occ) & target) != ZERO:
            return True
    return False


@njit(inline="always")
def _king_square(codes, sqs, n, color):
    for i in range(n):
        if codes[i] == (KING | (color << 3)):
            return sqs[i]
    return -1


@njit(cache=True)
def material_key(codes, n):
    """Piece counts in base 3 (pawn .. queen), white's plus 243 times black's; and the key swapped."""
    w = 0
    b = 0
    for i in range(n):
        t = codes[i] & 7
        if t == KING:
            continue
        d = 3 ** (t - 1)
        if codes[i] >> 3:
            b += d
        else:
            w += d
    return w + 243 * b


@njit(cache=True)
def lookup(V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, codes, sqs, n, stm, sc, ss, used):
    """The table's byte for the side to move `stm` (the pieces codes/sqs[:n] in any order); sc/ss/used
    are scratch arrays of 4."""
    if n == 2:
        return DRAW
    key = material_key(codes, n)
    tid = KEY2TID[key]
    flip = KEY2FLIP[key]
    for i in range(n):
        used[i] = 0
    for j in range(n):
        want = ORDER[tid, j]
        for i in range(n):
            c = codes[i] ^ (flip << 3)
            if used[i] == 0 and c == want:
                used[i] = 1
                ss[j] = sqs[i] ^ (56 * flip)
                break
    idx = canon_index(ss, n, PAWNFUL[tid])
    return V[OFF[tid] + (stm ^ flip) * NSIDE[tid] + idx]


@njit(inline="always")
def _better(a, b):
    """The better of two values for the side to move (UNKNOWN if either is)."""
    if a == UNKNOWN or b == UNKNOWN:
        return UNKNOWN
    if a == DRAW:
        return b if (b != DRAW and b % 2 == 1) else a
    if b == DRAW:
        return a if a % 2 == 1 else b
    if a % 2 == 1 and b % 2 == 1:
        return min(a, b)
    if a % 2 == 1:
        return a
    if b % 2 == 1:
        return b
    return max(a, b)


@njit(inline="always")
def _flip_value(g):
    """A grandchild's value seen by its parent."""
    if g == DRAW or g == UNKNOWN:
        return g
    return g + 1


@njit(cache=True)
def evaluate(T, V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, codes, sqs, n, stm, ply, cc, cs, sc, ss, used, out):
    """The position's value from its children's (UNKNOWN while that cannot be told at this ply).

    out[0] gets the best win through a child already known (INF if none), out[1] 1 when a double
    push allows an en passant capture. cc/cs hold a child, sc/ss/used are lookup's scratch."""
    occ = _occupancy(sqs, n)
    own = ZERO
    for i in range(n):
        if (codes[i] >> 3) == stm:
            own |= ONE << U64(sqs[i])
    best_win = INF
    max_loss = -1
    has_draw = False
    all_known = True
    legal = 0
    ep_push = 0
    them = stm ^ 1
    for i in range(n):
        code = codes[i]
        if (code >> 3) != stm:
            continue
        sq = sqs[i]
        t = code & 7
        if t == PAWN:
            fwd = 8 if stm == 0 else -8
            targets = pawn_attacks(T, stm, sq) & occ & ~own
            one = sq + fwd
            if (occ & (ONE << U64(one))) == ZERO:
                targets |= ONE << U64(one)
                start = (sq >> 3) == (1 if stm == 0 else 6)
                if start and (occ & (ONE << U64(one + fwd))) == ZERO:
                    targets |= ONE << U64(one + fwd)
        else:
            targets = _attacks(T, code, sq, occ) & ~own
        while targets != ZERO:
            to = 0
            b = targets
            while (b & ONE) == ZERO:
                b >>= U64(1)
                to += 1
            targets &= targets - ONE
            # the child: the piece on `to` is taken out
            m = 0
            for j in range(n):
                if sqs[j] != to:
                    cc[m] = codes[j]
                    cs[m] = sqs[j] if j != i else to
                    m += 1
            mover = 0
            for j in range(m):
                if cs[j] == to:
                    mover = j
            promo = t == PAWN and ((to >> 3) == 7 or (to >> 3) == 0)
            kings = _king_square(cc, cs, m, stm)
            cocc = _occupancy(cs, m)
            if attacked(T, cc, cs, m, kings, them, cocc):
                continue
            for p in range(4 if promo else 1):
                if promo:
                    cc[mover] = (QUEEN - p) | (stm << 3)
                legal += 1
                v = lookup(V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, cc, cs, m, them, sc, ss, used)
                if t == PAWN and abs(to - sq) == 16:
                    # en passant: the better for the opponent of the position and of its captures
                    for side in (-1, 1):
                        e = to + side
                        if (e >> 3) != (to >> 3) or e < 0 or e > 63:
                            continue
                        taker = -1
                        for j in range(m):
                            if cs[j] == e and cc[j] == (PAWN | (them << 3)):
                                taker = j
                        if taker < 0:
                            continue
                        # the capture: the taker goes to the square passed, the pushed pawn leaves
                        k = 0
                        for j in range(m):
                            if j != mover:
                                sc[k] = cc[j]
                                ss[k] = cs[j] if j != taker else (sq + to) // 2
                                k += 1
                        for j in range(k):
                            cc[j] = sc[j]
                            cs[j] = ss[j]
                        kt = _king_square(cc, cs, k, them)
                        if not attacked(T, cc, cs, k, kt, stm, _occupancy(cs, k)):
                            ep_push = 1
                            g = lookup(V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, cc, cs, k, stm, sc, ss, used)
                            e_val = _flip_value(g)
                            if v == UNKNOWN:
                                # an unknown position's own value is at least `ply` plies away, so
                                # only a shorter win by the capture is known to be its best
                                if e_val != DRAW and e_val % 2 == 1 and e_val < ply:
                                    v = e_val
                            else:
                                v = _better(v, e_val)
                        # the child back as it was
                        m = 0
                        for j in range(n):
                            if sqs[j] != to:
                                cc[m] = codes[j]
                                cs[m] = sqs[j] if j != i else to
                                m += 1
                if v == UNKNOWN:
                    all_known = False
                elif v == DRAW:
                    has_draw = True
                elif v % 2 == 0:
                    if v + 1 < best_win:
                        best_win = v + 1
                elif v + 1 > max_loss:
                    max_loss = v + 1
    out[0] = best_win
    out[1] = ep_push
    if legal == 0:
        k = _king_square(codes, sqs, n, stm)
        return 0 if attacked(T, codes, sqs, n, k, them, occ) else DRAW
    if best_win < INF and (best_win <= ply or all_known):
        return best_win
    if all_known and best_win == INF:
        return max_loss if not has_draw else DRAW
    return UNKNOWN


@njit(cache=True)
def valid(T, codes, sqs, n, stm, idx, pawnful):
    """Whether idx (decoded into sqs) is a position of its own: no two pieces on a square, no pawn on
    the first or last rank, the side not to move not in check, and idx its canonical index."""
    occ = _occupancy(sqs, n)
    for i in range(n):
        for j in range(i):
            if sqs[i] == sqs[j]:
                return False
        if (codes[i] & 7) == PAWN and ((sqs[i] >> 3) == 0 or (sqs[i] >> 3) == 7):
            return False
    if canon_index(sqs, n, pawnful) != idx:
        return False
    k = _king_square(codes, sqs, n, stm ^ 1)
    return not attacked(T, codes, sqs, n, k, stm, occ)


@njit(cache=True)
def _mark_predecessors(T, codes, sqs, n, stm, pawnful, nside, cand, ps):
    """Marks in cand every position of the table that reaches this one (stm to move) by a move that
    takes nothing and promotes nothing: the other side's piece goes back."""
    mover = stm ^ 1
    occ = _occupancy(sqs, n)
    for i in range(n):
        code = codes[i]
        if (code >> 3) != mover:
            continue
        sq = sqs[i]
        t = code & 7
        froms = ZERO
        if t == PAWN:
            back = -8 if mover == 0 else 8
            rank = sq >> 3
            rel = rank if mover == 0 else 7 - rank
            if rel >= 2 and (occ & (ONE << U64(sq + back))) == ZERO:
                froms |= ONE << U64(sq + back)
                if rel == 3 and (occ & (ONE << U64(sq + 2 * back))) == ZERO:
                    froms |= ONE << U64(sq + 2 * back)
        else:
            froms = _attacks(T, code, sq, occ) & ~occ
        while froms != ZERO:
            f = 0
            b = froms
            while (b & ONE) == ZERO:
                b >>= U64(1)
                f += 1
            froms &= froms - ONE
            for j in range(n):
                ps[j] = sqs[j]
            ps[i] = f
            pocc = (occ & ~(ONE << U64(sq))) | (ONE << U64(f))
            k = _king_square(codes, ps, n, stm)
            if attacked(T, codes, ps, n, k, mover, pocc):
                continue
            cand[mover * nside + canon_index(ps, n, pawnful)] = 1


@njit(cache=True)
def generate(T, V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, tid, npieces, counts):
    """Fills table tid of V (every table it reaches already filled). Returns the number of plies run;
    counts gets the positions (both sides to move), the side to move's wins, draws and losses."""
    n = npieces[tid]
    nside = NSIDE[tid]
    pawnful = PAWNFUL[tid]
    base = OFF[tid]
    codes = ORDER[tid, :n].copy()
    sqs = np.zeros(4, dtype=np.int64)
    cc = np.zeros(4, dtype=np.int64)
    cs = np.zeros(4, dtype=np.int64)
    sc = np.zeros(4, dtype=np.int64)
    ss = np.zeros(4, dtype=np.int64)
    ps = np.zeros(4, dtype=np.int64)
    used = np.zeros(4, dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    exit_win = np.full(2 * nside, 255, dtype=np.uint8)
    always = np.zeros(2 * nside, dtype=np.uint8)
    cand = np.zeros(2 * nside, dtype=np.uint8)
    top = 0  # the longest distance given so far
    for s in range(2):
        for idx in range(nside):
            decode(idx, n, pawnful, sqs)
            if not valid(T, codes, sqs, n, s, idx, pawnful):
                V[base + s * nside + idx] = INVALID
                continue
            V[base + s * nside + idx] = UNKNOWN
    for s in range(2):
        for idx in range(nside):
            if V[base + s * nside + idx] != UNKNOWN:
                continue
            decode(idx, n, pawnful, sqs)
            v = evaluate(
                T, V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, codes, sqs, n, s, 0, cc, cs, sc, ss, used, out
            )
            if out[0] < 255:
                exit_win[s * nside + idx] = out[0]
            always[s * nside + idx] = out[1]
            V[base + s * nside + idx] = v
            if v < DRAW and v > top:
                top = v
            if out[0] < INF and out[0] > top:
                top = out[0]
    last = 0
    for pos in range(2 * nside):
        if always[pos]:
            last = DRAW - 1  # a capture's win may wait for any ply
            break
    ply = 1
    while ply <= max(top + 2, last):
        cand[:] = always
        for s in range(2):
            for idx in range(nside):
                pos = s * nside + idx
                if V[base + pos] == ply - 1:
                    decode(idx, n, pawnful, sqs)
                    _mark_predecessors(T, codes, sqs, n, s, pawnful, nside, cand, ps)
                if exit_win[pos] == ply:
                    cand[pos] = 1
        for s in range(2):
            for idx in range(nside):
                pos = s * nside + idx
                if cand[pos] == 0 or V[base + pos] != UNKNOWN:
                    continue
                decode(idx, n, pawnful, sqs)
                v = evaluate(
                    T,
                    V,
                    OFF,
                    NSIDE,
                    PAWNFUL,
                    ORDER,
                    KEY2TID,
                    KEY2FLIP,
                    codes,
                    sqs,
                    n,
                    s,
                    ply,
                    cc,
                    cs,
                    sc,
                    ss,
                    used,
                    out,
                )
                if v != UNKNOWN:
                    V[base + pos] = v
                    if v < DRAW and v > top:
                        top = v
        ply += 1
    counts[:] = 0
    for pos in range(2 * nside):
        v = V[base + pos]
        if v == INVALID:
            V[base + pos] = DRAW
            continue
        counts[0] += 1
        if v == UNKNOWN or v == DRAW:
            V[base + pos] = DRAW
            counts[2] += 1
        elif v % 2 == 1:
            counts[1] += 1
        else:
            counts[3] += 1
    return ply


@njit(cache=True)
def check(T, V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, tid, npieces):
    """Self-consistency: every position's value recomputed from its children's. Returns
    (positions checked, positions that disagree)."""
    n = npieces[tid]
    nside = NSIDE[tid]
    pawnful = PAWNFUL[tid]
    base = OFF[tid]
    codes = ORDER[tid, :n].copy()
    sqs = np.zeros(4, dtype=np.int64)
    cc = np.zeros(4, dtype=np.int64)
    cs = np.zeros(4, dtype=np.int64)
    sc = np.zeros(4, dtype=np.int64)
    ss = np.zeros(4, dtype=np.int64)
    used = np.zeros(4, dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    checked = 0
    bad = 0
    for s in range(2):
        for idx in range(nside):
            decode(idx, n, pawnful, sqs)
            if not valid(T, codes, sqs, n, s, idx, pawnful):
                continue
            checked += 1
            # every child known now: the value follows from them exactly
            v = evaluate(
                T, V, OFF, NSIDE, PAWNFUL, ORDER, KEY2TID, KEY2FLIP, codes, sqs, n, s, INF, cc, cs, sc, ss, used, out
            )
            if v != V[base + s * nside + idx]:
                bad += 1
    return checked, bad
