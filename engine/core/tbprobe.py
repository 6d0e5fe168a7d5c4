"""The endgame tables inside the search tree: a position of up to four pieces looked up in the tables
loaded so far (engine/tablebase.py loads them, engine/layout.py TB_* / TBI_* says how they are laid out).

Compiled into the search: no allocation, no Python object, nothing that can raise. A table the search
reaches but that is not loaded yet is marked wanted (TBI[... + TB_WANT]); the loader reads the marks
between iterations and loads those tables in the background, and later probes find them.
"""

from numba import njit

from engine.core.bitboard import ONE, U64
from engine.core.intrinsics import lsb, popcount
from engine.core.tablebase import TRI, xform
from engine.layout import (
    BB_ALL,
    BB_COLOR,
    KING,
    NO_SQ,
    ST_CASTLE,
    ST_EP,
    ST_HALFMOVE,
    ST_SIDE,
    TB_DRAW,
    TB_LOADED,
    TB_NSIDE,
    TB_OFF,
    TB_ORDER,
    TB_PAWNFUL,
    TB_WANT,
    TB_WIN,
    TBI_KEYS,
    TBI_ROW,
    TBI_ROWS,
)

NOT_FOUND = -1


@njit(inline="always")
def _pow3(t):
    """3 ** (t - 1) for a piece type 1..5: the material key's digit."""
    if t == 1:
        return 1
    if t == 2:
        return 3
    if t == 3:
        return 9
    if t == 4:
        return 27
    return 81


@njit(inline="always")
def _pack(s0, s1, s2, s3, n, m, pawnful):
    """engine/core/tablebase.py _pack for up to four squares held in scalars."""
    k = xform(s0, m)
    idx = (k >> 3) * 4 + (k & 7) if pawnful else TRI[k]
    idx = idx * 64 + xform(s1, m)
    if n > 2:
        idx = idx * 64 + xform(s2, m)
    if n > 3:
        idx = idx * 64 + xform(s3, m)
    return idx


@njit(inline="always")
def _canon_index(s0, s1, s2, s3, n, pawnful):
    """engine/core/tablebase.py canon_index for up to four squares held in scalars."""
    f = s0 & 7
    r = s0 >> 3
    if pawnful:
        return _pack(s0, s1, s2, s3, n, 1 if f > 3 else 0, True)
    m = 0
    if f > 3:
        m |= 1
        f = 7 - f
    if r > 3:
        m |= 2
        r = 7 - r
    if r > f:
        m |= 4
    idx = _pack(s0, s1, s2, s3, n, m, False)
    if r == f:
        other = _pack(s0, s1, s2, s3, n, m ^ 4, False)
        if other < idx:
            idx = other
    return idx


@njit(inline="always")
def probe(bb, board, st, TB, TBI):
    """The table's byte for the side to move (distance to mate in plies, or TB_DRAW), or NOT_FOUND: more than
    four pieces, castling or en passant rights, no such table, or its table not loaded yet (then marked
    wanted)."""
    occ = bb[BB_ALL]
    n = popcount(occ)
    if n > 4 or st[ST_CASTLE] != 0 or st[ST_EP] != NO_SQ:
        return NOT_FOUND
    if n == 2:
        return TB_DRAW
    key = 0
    b = occ
    while b != U64(0):
        sq = lsb(b)
        b &= b - ONE
        p = board[sq]
        t = p & 7
        if t != KING:
            key += _pow3(t) * (243 if (p >> 3) != 0 else 1)
    e = TBI[TBI_KEYS + key]
    if e < 0:
        return NOT_FOUND
    tid = e >> 1
    flip = e & 1
    row = TBI_ROWS + tid * TBI_ROW
    if TBI[row + TB_LOADED] == 0:
        TBI[row + TB_WANT] = 1
        return NOT_FOUND
    codes = TBI[row + TB_ORDER]
    used = U64(0)
    s0 = s1 = s2 = s3 = 0
    for j in range(n):
        want = (codes >> (4 * j)) & 15  # the table's piece; on the board its colour is swapped when flip is
        color = (want >> 3) ^ flip
        cand = bb[want & 7] & bb[BB_COLOR + color] & ~used
        sq = lsb(cand)
        used |= ONE << U64(sq)
        s = sq ^ (56 * flip)
        if j == 0:
            s0 = s
        elif j == 1:
            s1 = s
        elif j == 2:
            s2 = s
        else:
            s3 = s
    idx = _canon_index(s0, s1, s2, s3, n, TBI[row + TB_PAWNFUL] != 0)
    side = (st[ST_SIDE] ^ flip) & 1
    return int(TB[TBI[row + TB_OFF] + side * TBI[row + TB_NSIDE] + idx])


@njit(inline="always")
def score(value, ply):
    """The search's score of a table's byte found at ply: a draw, or a win or loss by its distance."""
    if value == TB_DRAW:
        return 0
    if value & 1:
        return TB_WIN - ply - value
    return -(TB_WIN - ply - value)


@njit(inline="always")
def trusted(value, st):
    """The table's value holds under the fifty-move rule: a draw always; a win or loss when the mate comes
    before the fifty-move count runs out even if no move on the way resets it (distance to mate cannot
    tell more: a longer mate may be cut short by the rule or not, so the search decides those)."""
    return value == TB_DRAW or st[ST_HALFMOVE] + value <= 100
