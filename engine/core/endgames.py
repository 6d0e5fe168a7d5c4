"""Endings the net misjudges: mating a lone king, and material that cannot win.

The net scores king and rook (or queen, or bishop and knight) against a bare king as won, but almost
the same wherever the kings stand, and its small differences from one placement to the next are as
large as any progress, so the search has nothing to follow toward a mate that can lie 30 moves away
(bishop and knight). These endings are scored by rule instead: a known win plus the material, the weak
king pushed to the edge (to a corner of the bishop's colour with bishop and knight, the only corners it
can be mated in) and the strong king brought close. Only without pawns: with them the net's own plan
(promote) is the better one.

The net also scores some endings as won that no play can win: two knights against a bare king, a lone
minor more, a rook against a minor, a bishop and rook pawns whose queening corner is not the bishop's colour with the
defending king in it. drawish_scale() shrinks its score there toward a draw, with the factors of
Stockfish's classical evaluation (in 64ths), so that the search keeps the pawns it needs when ahead and
the analysis does not show +2 in a dead draw.
"""

from numba import njit

from engine.core.bitboard import NOT_FILE_A, NOT_FILE_H, U64
from engine.core.intrinsics import lsb, popcount
from engine.layout import BB_ALL, BB_COLOR, BISHOP, BLACK, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE

KNOWN_WIN_CP = 1000  # above what the net gives any of these endings, far below the mate scores
PIECE_CP = (0, 0, 300, 300, 500, 900)  # by piece type: more material mates sooner and is not given away
EDGE_CP = 20  # per step of the weak king's Manhattan distance from the centre (0..6)
CORNER_CP = 40  # bishop and knight: per step the weak king is nearer a mating corner (Manhattan, 0..14)
CLOSE_CP = 10  # per step the kings are closer than 7 (Chebyshev)
LONE_KING_MAX_MEN = 5  # at most this many men on the board: the test stays off the middlegame's path
NOT_KNOWN = 1 << 20  # lone_king()'s answer for every other position
# drawish_scale(): when the side ahead has no pawns and at most a minor piece more (PIECE_CP, bishop = knight)
SCALE_NO_MATING_MATERIAL = 0  # less than a rook in all: it cannot mate
SCALE_MINOR_DEFENDS = 4  # the defender has at most a minor (rook v minor, two knights v king), of 64
SCALE_PIECES_DEFEND = 14  # the defender has more (rook and bishop v rook, queen v two minors), of 64
SCALE_WRONG_BISHOP = 0  # bishop and rook pawns, queening square not the bishop's colour, defending king on it
DARK_SQUARES = U64(0xAA55AA55AA55AA55)  # the squares _dark() names, as a set


@njit(inline="always")
def _chebyshev(a, b):
    return max(abs((a >> 3) - (b >> 3)), abs((a & 7) - (b & 7)))


@njit(inline="always")
def _manhattan(a, b):
    return abs((a >> 3) - (b >> 3)) + abs((a & 7) - (b & 7))


@njit(inline="always")
def _dark(sq):
    """a1, c1, ...: rank + file even."""
    return ((sq >> 3) + (sq & 7)) % 2 == 0


@njit(inline="always")
def _non_pawn_cp(bb, colour):
    mine = bb[BB_COLOR + colour]
    cp = 0
    for piece in range(KNIGHT, QUEEN + 1):
        cp += PIECE_CP[piece] * popcount(bb[piece] & mine)
    return cp


@njit(inline="always")
def _centre_distance(sq):
    """Manhattan distance to the nearest of d4, e4, d5, e5: 0 in the centre, 6 in a corner."""
    r = sq >> 3
    f = sq & 7
    return max(3 - r, r - 4) + max(3 - f, f - 4)


@njit(inline="always")
def lone_king(bb, side):
    """The score for the side to move when one side has only its king and the other, without pawns, has
    mating material; NOT_KNOWN otherwise."""
    if popcount(bb[BB_ALL]) > LONE_KING_MAX_MEN or bb[PAWN] != 0:
        return NOT_KNOWN
    white_alone = popcount(bb[BB_COLOR + WHITE]) == 1
    black_alone = popcount(bb[BB_COLOR + BLACK]) == 1
    if white_alone == black_alone:
        return NOT_KNOWN
    strong = BLACK if white_alone else WHITE
    mine = bb[BB_COLOR + strong]
    heavy = (bb[ROOK] | bb[QUEEN]) != 0
    n_bishops = popcount(bb[BISHOP] & mine)
    n_knights = popcount(bb[KNIGHT] & mine)
    if not heavy and not (n_bishops >= 1 and n_knights >= 1) and n_bishops < 2:
        return NOT_KNOWN  # two knights, or a lone minor: no forced mate
    weak_king = lsb(bb[KING] & bb[BB_COLOR + 1 - strong])
    strong_king = lsb(bb[KING] & mine)
    score = KNOWN_WIN_CP + CLOSE_CP * (7 - _chebyshev(weak_king, strong_king)) + _non_pawn_cp(bb, strong)
    if not heavy and n_bishops == 1 and n_knights == 1:
        b = lsb(bb[BISHOP] & mine)
        if _dark(b):  # a dark-squared bishop mates on a1 or h8
            corner = min(_manhattan(weak_king, 0), _manhattan(weak_king, 63))
        else:
            corner = min(_manhattan(weak_king, 7), _manhattan(weak_king, 56))
        score += CORNER_CP * (14 - corner)
    else:
        score += EDGE_CP * _centre_distance(weak_king)
    return score if side == strong else -score


@njit(inline="always")
def _wrong_bishop_draw(bb, strong):
    """Bishop and pawns all on one rook file against a bare king that stands on or next to the queening
    square, which is not the bishop's colour: a draw, however many pawns."""
    weak = 1 - strong
    mine = bb[BB_COLOR + strong]
    pawns = bb[PAWN] & mine
    if popcount(bb[BB_COLOR + weak]) != 1 or mine & (bb[KNIGHT] | bb[ROOK] | bb[QUEEN]) != 0:
        return False
    bishops = bb[BISHOP] & mine
    if bishops == 0 or pawns == 0:
        return False
    if pawns & NOT_FILE_A == 0:
        file = 0
    elif pawns & NOT_FILE_H == 0:
        file = 7
    else:
        return False
    queening = file + (56 if strong == WHITE else 0)
    if _dark(queening):
        if bishops & DARK_SQUARES != 0:
            return False
    elif bishops & ~DARK_SQUARES != 0:
        return False
    return _chebyshev(lsb(bb[KING] & bb[BB_COLOR + weak]), queening) <= 1


@njit(inline="always")
def wrong_bishop_fortress(bb):
    """A draw by rule whoever is to move: a bare king on or next to the corner of its opponent's rook pawns,
    which the bishop does not cover (_wrong_bishop_draw). There it is never in check, and always has the
    corner to go back to (stalemate is a draw too). The search returns a draw at such nodes before the
    table: the net's scores there are small, but a deep search with a kept table turned lines that leave
    the corner into +19 for the side with the pawns (issue 32, docs/strength.md)."""
    if bb[KNIGHT] | bb[ROOK] | bb[QUEEN] != 0 or bb[BISHOP] == 0 or bb[PAWN] == 0:
        return False
    if popcount(bb[BB_COLOR + WHITE]) == 1:
        return _wrong_bishop_draw(bb, BLACK)
    if popcount(bb[BB_COLOR + BLACK]) == 1:
        return _wrong_bishop_draw(bb, WHITE)
    return False


@njit(inline="always")
def _scaled(score, factor):
    """score * factor / 64, rounded toward 0 so that both sides' scores stay mirror images."""
    return score * factor // 64 if score >= 0 else -((-score * factor) // 64)


@njit(inline="always")
def material_scale(bb, score, eg_scale):
    """The net's score x eg_scale/64 with 30 or less of material (P=1, N=B=3, R=5, Q=9, both sides), rising
    linearly to x1 at 60 (EgScale, engine/params.py): the net's ending scores need ~1.6x its middlegame's
    to win as often. engine/wdl.py eg_factor() is the same formula in plain Python."""
    m = popcount(bb[PAWN]) + 3 * popcount(bb[KNIGHT] | bb[BISHOP]) + 5 * popcount(bb[ROOK]) + 9 * popcount(bb[QUEEN])
    return _scaled(score, eg_scale + (64 - eg_scale) * min(max(m - 30, 0), 30) // 30)


@njit(inline="always")
def drawish_scale(bb, side, score):
    """The net's score for the side to move, scaled toward 0 where the side ahead cannot win by its
    material: no pawns and at most a minor piece more, two knights against a bare king, or the wrong
    bishop's rook pawns."""
    strong = side if score > 0 else 1 - side
    if bb[PAWN] & bb[BB_COLOR + strong] != 0:
        if _wrong_bishop_draw(bb, strong):
            return _scaled(score, SCALE_WRONG_BISHOP)
        return score
    strong_cp = _non_pawn_cp(bb, strong)
    weak_cp = _non_pawn_cp(bb, 1 - strong)
    if bb[BB_ALL] == bb[KING] | (bb[KNIGHT] & bb[BB_COLOR + strong]) and strong_cp <= 2 * PIECE_CP[KNIGHT]:
        return _scaled(score, SCALE_NO_MATING_MATERIAL)  # two knights (or one) against a bare king
    if strong_cp - weak_cp > PIECE_CP[BISHOP]:
        return score
    if strong_cp < PIECE_CP[ROOK]:
        return _scaled(score, SCALE_NO_MATING_MATERIAL)
    if weak_cp <= PIECE_CP[BISHOP]:
        return _scaled(score, SCALE_MINOR_DEFENDS)
    return _scaled(score, SCALE_PIECES_DEFEND)
