"""Mating a lone king: what the net does not know.

The net scores king and rook (or queen, or bishop and knight) against a bare king as won, but almost
the same wherever the kings stand, and its small differences from one placement to the next are as
large as any progress, so the search has nothing to follow toward a mate that can lie 30 moves away
(bishop and knight). These endings are scored by rule instead: a known win plus the material, the weak
king pushed to the edge (to a corner of the bishop's colour with bishop and knight, the only corners it
can be mated in) and the strong king brought close. Only without pawns: with them the net's own plan
(promote) is the better one.
"""

from numba import njit

from engine.core.intrinsics import lsb, popcount
from engine.layout import BB_ALL, BB_COLOR, BISHOP, BLACK, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE

KNOWN_WIN_CP = 1000  # above what the net gives any of these endings, far below the mate scores
PIECE_CP = (0, 0, 300, 300, 500, 900)  # by piece type: more material mates sooner and is not given away
EDGE_CP = 20  # per step of the weak king's Manhattan distance from the centre (0..6)
CORNER_CP = 40  # bishop and knight: per step the weak king is nearer a mating corner (Manhattan, 0..14)
CLOSE_CP = 10  # per step the kings are closer than 7 (Chebyshev)
LONE_KING_MAX_MEN = 5  # at most this many men on the board: the test stays off the middlegame's path
NOT_KNOWN = 1 << 20  # lone_king()'s answer for every other position


@njit(inline="always")
def _chebyshev(a, b):
    return max(abs((a >> 3) - (b >> 3)), abs((a & 7) - (b & 7)))


@njit(inline="always")
def _manhattan(a, b):
    return abs((a >> 3) - (b >> 3)) + abs((a & 7) - (b & 7))


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
    score = KNOWN_WIN_CP + CLOSE_CP * (7 - _chebyshev(weak_king, strong_king))
    for piece in range(KNIGHT, QUEEN + 1):
        score += PIECE_CP[piece] * popcount(bb[piece] & mine)
    if not heavy and n_bishops == 1 and n_knights == 1:
        b = lsb(bb[BISHOP] & mine)
        if ((b >> 3) + (b & 7)) % 2 == 0:  # a dark-squared bishop mates on a1 or h8
            corner = min(_manhattan(weak_king, 0), _manhattan(weak_king, 63))
        else:
            corner = min(_manhattan(weak_king, 7), _manhattan(weak_king, 56))
        score += CORNER_CP * (14 - corner)
    else:
        score += EDGE_CP * _centre_distance(weak_king)
    return score if side == strong else -score
