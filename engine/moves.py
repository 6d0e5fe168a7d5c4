"""Move encoding helpers for Python code (the compiled core has its own in engine/core/position.py)."""

from engine.fen import parse_square, square_name
from engine.layout import F_EP_CAPTURE, F_KING_CASTLE, F_PROMO, F_QUEEN_CASTLE

PROMO_CHARS = "nbrq"


def move_from(m):
    return m & 63


def move_to(m):
    return (m >> 6) & 63


def move_flag(m):
    return (m >> 12) & 15


def is_en_passant(m):
    return move_flag(m) == F_EP_CAPTURE


def is_castling(m):
    return move_flag(m) in (F_KING_CASTLE, F_QUEEN_CASTLE)


def castle_rook(m, castle_rooks):
    """The rook square of castling move m, given the position's rook square for each right."""
    return castle_rooks[2 * (move_from(m) >= 56) + move_flag(m) - F_KING_CASTLE]


def promotion_type(m):
    """Piece type promoted to (KNIGHT..QUEEN), or 0."""
    f = move_flag(m)
    return 2 + (f & 3) if f & F_PROMO else 0


def to_uci(m, castle_rooks=None):
    """UCI text of an encoded move; castling is the king's two-square move (e1g1), or king-to-rook (e1h1,
    Chess960's way) if the position's rook square for each right is given (Board.castle_rooks)."""
    if m == 0:
        return "0000"
    to = move_to(m)
    if castle_rooks is not None and is_castling(m):
        to = castle_rook(m, castle_rooks)
    text = square_name(move_from(m)) + square_name(to)
    f = move_flag(m)
    if f & F_PROMO:
        text += PROMO_CHARS[f & 3]
    return text


def parse_uci_shape(text):
    """(from, to, promotion char or '') of a UCI move string, or None if it is not shaped like one."""
    if not isinstance(text, str) or len(text) not in (4, 5):
        return None
    frm, to = parse_square(text[:2]), parse_square(text[2:4])
    promo = text[4:]
    if frm is None or to is None or (promo and promo not in PROMO_CHARS):
        return None
    return frm, to, promo
