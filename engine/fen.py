"""FEN parsing, strict validation and formatting. Plain Python: runs without numba (EPD: engine/epd.py).

Every rejection raises FenError naming the field at fault (board, side, castling, en_passant,
halfmove, fullmove, or position for whole-board rules) and why.
"""

from dataclasses import dataclass

from engine.layout import (
    BISHOP,
    BLACK,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_ROOK_DEFAULT,
    CASTLE_WK,
    CASTLE_WQ,
    EMPTY,
    KING,
    KNIGHT,
    PAWN,
    PIECE_CHARS,
    QUEEN,
    ROOK,
    WHITE,
)

STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
CHESS960_STANDARD = 518  # the Chess960 start position that is standard chess's

FIELDS = ("board", "side", "castling", "en_passant", "halfmove", "fullmove")
_PIECE_CODES = {c: i for i, c in enumerate(PIECE_CHARS) if c.strip()}
_CASTLE_BITS = {"K": CASTLE_WK, "Q": CASTLE_WQ, "k": CASTLE_BK, "q": CASTLE_BQ}
# right -> (colour, king square, rook square)
_CASTLE_SQUARES = {"K": (WHITE, 4, 7), "Q": (WHITE, 4, 0), "k": (BLACK, 60, 63), "q": (BLACK, 60, 56)}
_COLOR_NAMES = ("white", "black")


class FenError(ValueError):
    """A FEN that cannot be a position. `field` names the FEN field at fault."""

    def __init__(self, field, reason):
        self.field = field
        self.reason = reason
        super().__init__(f"invalid FEN {field.replace('_', '-')} field: {reason}")


@dataclass(frozen=True)
class ParsedFen:
    pieces: tuple  # 64 piece codes, a1 first
    side: int
    castling: int  # CASTLE_* bits
    ep: int  # en-passant target square as written (validated), or -1
    halfmove: int
    fullmove: int
    castle_rooks: tuple = CASTLE_ROOK_DEFAULT  # each right's rook square (engine.layout), by right bit

    @property
    def chess960(self):
        """Whether some castling right has its king or rook off standard chess's squares."""
        return is_chess960_castling(self.pieces, self.castling, self.castle_rooks)


def square_name(sq):
    return "abcdefgh"[sq & 7] + str((sq >> 3) + 1)


def parse_square(text):
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        return None
    return "abcdefgh".index(text[0]) + 8 * (int(text[1]) - 1)


def parse_fen(fen, chess960=False):
    """Parse and validate a FEN (6 fields, or the first 4 with clocks defaulting to 0 1).

    chess960: castling rights in X-FEN (KQkq: the outermost rook on that wing; a file letter for
    another one) or Shredder-FEN (the rooks' files, HAha), with king and rooks anywhere on the back
    rank. Without it only standard chess's KQkq, with king and rooks on their start squares."""
    if not isinstance(fen, str):
        raise FenError("board", f"expected a FEN string, got {type(fen).__name__}")
    parts = fen.split()
    if not parts:
        raise FenError("board", "the FEN is empty")
    if len(parts) < 4:
        raise FenError(FIELDS[len(parts)], f"missing: a FEN needs at least 4 fields, this one has {len(parts)}")
    if len(parts) == 5:
        raise FenError("fullmove", "missing: give both clocks (halfmove and fullmove) or neither")
    if len(parts) > 6:
        raise FenError("fullmove", f"unexpected text after the fullmove number: {' '.join(parts[6:])!r}")
    pieces = _parse_board(parts[0])
    side = _parse_side(parts[1])
    castling, rooks = _parse_castling_960(parts[2], pieces) if chess960 else (_parse_castling(parts[2], pieces),
                                                                             CASTLE_ROOK_DEFAULT)
    ep = _parse_ep(parts[3], pieces, side)
    halfmove = _parse_clock(parts[4], "halfmove", 0) if len(parts) == 6 else 0
    fullmove = _parse_clock(parts[5], "fullmove", 1) if len(parts) == 6 else 1
    them = side ^ 1
    if _attacked(pieces, pieces.index(KING | (them << 3)), side):
        raise FenError("side", f"{_COLOR_NAMES[them]} is in check but it is {_COLOR_NAMES[side]} to move")
    return ParsedFen(tuple(pieces), side, castling, ep, halfmove, fullmove, rooks)


def format_fen(pieces, side, castling, ep, halfmove, fullmove, castle_rooks=CASTLE_ROOK_DEFAULT, shredder=False):
    """FEN text for a position; ep is the square to print (or -1). Castling in X-FEN (KQkq, a rook's file
    letter where the right's rook is not the outermost one on its wing), or with shredder=True in
    Shredder-FEN (every right as its rook's file: HAha)."""
    ranks = []
    for r in range(7, -1, -1):
        row, gap = "", 0
        for f in range(8):
            p = pieces[r * 8 + f]
            if p == EMPTY:
                gap += 1
                continue
            if gap:
                row += str(gap)
                gap = 0
            row += PIECE_CHARS[p]
        ranks.append(row + (str(gap) if gap else ""))
    rights = format_castling(pieces, castling, castle_rooks, shredder)
    ep_text = square_name(ep) if ep >= 0 else "-"
    return f"{'/'.join(ranks)} {'wb'[side]} {rights} {ep_text} {halfmove} {fullmove}"


# Scharnagl's numbering: the knights' places among the five squares left after bishops and queen.
_KNIGHTS = ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


def chess960_fen(number=None):
    """The FEN of Chess960 start position `number` (0-959, Scharnagl's numbering: 518 is standard chess's
    start), or of a random one if number is None. Castling as X-FEN writes it: KQkq."""
    if number is None:
        import random

        number = random.randrange(960)
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < 960:
        raise ValueError(f"a Chess960 start position is numbered 0 to 959, not {number!r}")
    rank = [""] * 8
    n, light = divmod(number, 4)
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"
    n, queen = divmod(n, 6)
    rank[[f for f in range(8) if not rank[f]][queen]] = "Q"
    empty = [f for f in range(8) if not rank[f]]
    for i in _KNIGHTS[n]:
        rank[empty[i]] = "N"
    for f, piece in zip([f for f in range(8) if not rank[f]], "RKR", strict=True):
        rank[f] = piece
    white = "".join(rank)
    return f"{white.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1"


def _parse_board(text):
    ranks = text.split("/")
    if len(ranks) != 8:
        bad = sorted({c for c in text if c not in "pnbrqkPNBRQK12345678/"})
        if bad:
            raise FenError("board", f"bad character {bad[0]!r}; ranks are separated by '/'")
        raise FenError("board", f"expected 8 ranks separated by '/', found {len(ranks)}")
    pieces = [EMPTY] * 64
    for i, rank_text in enumerate(ranks):
        rank = 7 - i
        f = 0
        prev_digit = False
        for c in rank_text:
            if c.isdigit():
                if c not in "12345678":
                    raise FenError("board", f"rank {rank + 1} has the digit {c!r}; empty-square counts run 1-8")
                if prev_digit:
                    raise FenError("board", f"rank {rank + 1} has two digits in a row ({rank_text!r})")
                f += int(c)
                prev_digit = True
            elif c in _PIECE_CODES:
                if f < 8:
                    pieces[rank * 8 + f] = _PIECE_CODES[c]
                f += 1
                prev_digit = False
            else:
                raise FenError("board", f"bad character {c!r} in rank {rank + 1} ({rank_text!r})")
        if f != 8:
            raise FenError("board", f"rank {rank + 1} ({rank_text!r}) covers {f} squares, not 8")
    for color in (WHITE, BLACK):
        kings = pieces.count(KING | (color << 3))
        if kings != 1:
            raise FenError("board", f"{_COLOR_NAMES[color]} has {kings} kings; each side needs exactly one")
    for sq in list(range(8)) + list(range(56, 64)):
        if pieces[sq] & 7 == PAWN:
            raise FenError("board", f"pawn on {square_name(sq)}: pawns cannot stand on rank 1 or 8")
    return pieces


def _parse_side(text):
    if text not in ("w", "b"):
        raise FenError("side", f"{text!r} is not 'w' or 'b'")
    return WHITE if text == "w" else BLACK


def _parse_castling(text, pieces):
    if text == "-":
        return 0
    rights = 0
    for c in text:
        if c not in _CASTLE_BITS:
            hint = " (rook files: Chess960's X-FEN/Shredder-FEN, variant chess960)" if c in "ABCDEFGHabcdefgh" else ""
            raise FenError("castling", f"bad character {c!r} in {text!r}; use '-' or letters from KQkq{hint}")
        if rights & _CASTLE_BITS[c]:
            raise FenError("castling", f"{c!r} appears twice in {text!r}")
        color, ksq, rsq = _CASTLE_SQUARES[c]
        name = _COLOR_NAMES[color]
        wing = "king" if c in "Kk" else "queen"
        if pieces[ksq] != KING | (color << 3):
            raise FenError("castling", f"{c!r} needs the {name} king on {square_name(ksq)} (elsewhere: Chess960, "
                                       "variant chess960)")
        if pieces[rsq] != ROOK | (color << 3):
            raise FenError("castling", f"{c!r} needs a {name} rook on {square_name(rsq)} for {wing}-side castling "
                                       "(elsewhere: Chess960, variant chess960)")
        rights |= _CASTLE_BITS[c]
    return rights


def format_castling(pieces, castling, castle_rooks=CASTLE_ROOK_DEFAULT, shredder=False):
    """The castling field: X-FEN, or Shredder-FEN if asked (see format_fen)."""
    text = ""
    for right, c in enumerate("KQkq"):
        if not castling & (1 << right):
            continue
        rsq = castle_rooks[right]
        letter = "ABCDEFGH"[rsq & 7] if c.isupper() else "abcdefgh"[rsq & 7]
        if shredder or _outermost_rook(pieces, right) != rsq:
            text += letter
        else:
            text += c
    return text or "-"


def is_chess960_castling(pieces, castling, castle_rooks):
    """Whether a held right's king or rook is off standard chess's squares (e1/e8, a and h files)."""
    for right in range(4):
        if castling & (1 << right):
            king = KING | ((right >> 1) << 3)
            if castle_rooks[right] != CASTLE_ROOK_DEFAULT[right] or pieces[56 * (right >> 1) + 4] != king:
                return True
    return False


def _outermost_rook(pieces, right):
    """The square of the rook farthest from its king on the right's wing of the back rank, or None."""
    color = right >> 1
    back = 56 * color
    rook = ROOK | (color << 3)
    king = KING | (color << 3)
    files = range(7, -1, -1) if right & 1 == 0 else range(8)
    for f in files:
        if pieces[back + f] == king:
            return None
        if pieces[back + f] == rook:
            return back + f
    return None


def _parse_castling_960(text, pieces):
    """X-FEN or Shredder-FEN castling field -> (rights bits, each right's rook square)."""
    rooks = list(CASTLE_ROOK_DEFAULT)
    if text == "-":
        return 0, tuple(rooks)
    rights = 0
    for c in text:
        if c not in "KQkqABCDEFGHabcdefgh":
            raise FenError("castling", f"bad character {c!r} in {text!r}; use '-', letters from KQkq or rook files "
                                       "(A-H, a-h)")
        color = WHITE if c.isupper() else BLACK
        name = _COLOR_NAMES[color]
        back = 56 * color
        king = KING | (color << 3)
        kfiles = [f for f in range(8) if pieces[back + f] == king]
        if not kfiles:
            raise FenError("castling", f"{c!r} needs the {name} king on its back rank")
        kfile = kfiles[0]
        if c in "KQkq":
            wing = 0 if c in "Kk" else 1
            rsq = _outermost_rook(pieces, 2 * color + wing)
            if rsq is None:
                raise FenError("castling", f"{c!r} needs a {name} rook on the {('king', 'queen')[wing]} side of "
                                           f"its king on rank {color * 7 + 1}")
        else:
            rsq = back + "abcdefgh".index(c.lower())
            if pieces[rsq] != ROOK | (color << 3):
                raise FenError("castling", f"{c!r} needs a {name} rook on {square_name(rsq)}")
            wing = 0 if rsq & 7 > kfile else 1
        right = 2 * color + wing
        if rights & (1 << right):
            raise FenError("castling", f"{text!r} gives {name} two {('king', 'queen')[wing]}-side rights")
        rights |= 1 << right
        rooks[right] = rsq
    return rights, tuple(rooks)


def _parse_ep(text, pieces, side):
    if text == "-":
        return -1
    sq = parse_square(text)
    if sq is None:
        raise FenError("en_passant", f"{text!r} is not '-' or a square")
    rank = sq >> 3
    want = 5 if side == WHITE else 2  # rank 6 with white to move, rank 3 with black
    if rank != want:
        raise FenError(
            "en_passant", f"{text} is impossible with {_COLOR_NAMES[side]} to move (must be on rank {want + 1})"
        )
    them = side ^ 1
    pushed = sq - 8 if side == WHITE else sq + 8
    origin = sq + 8 if side == WHITE else sq - 8
    if pieces[pushed] != PAWN | (them << 3):
        raise FenError(
            "en_passant", f"{text} needs a {_COLOR_NAMES[them]} pawn on {square_name(pushed)} that just moved two"
        )
    if pieces[sq] != EMPTY or pieces[origin] != EMPTY:
        raise FenError("en_passant", f"{text} needs {text} and {square_name(origin)} to be empty")
    return sq


MAX_CLOCK = 1_000_000  # far beyond any real game; keeps the clocks in the engine's 32-bit fields


def _parse_clock(text, field, minimum):
    try:
        value = int(text)
    except ValueError:
        raise FenError(field, f"{text!r} is not a whole number") from None
    if not text.lstrip("+-").isdigit():
        raise FenError(field, f"{text!r} is not a whole number")
    if value < minimum:
        raise FenError(field, f"{value} is negative" if value < 0 else f"{value} is below {minimum}")
    if value > MAX_CLOCK:
        raise FenError(field, f"{value} is too large (at most {MAX_CLOCK:,})")
    return value


_KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING_STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))


def _attacked(pieces, sq, by):
    """Whether colour `by` attacks sq (plain Python; used once per parse)."""
    f0, r0 = sq & 7, sq >> 3

    def at(f, r):
        return pieces[r * 8 + f] if 0 <= f < 8 and 0 <= r < 8 else None

    def mine(p, *types):
        return p and p >> 3 == by and p & 7 in types

    pawn_rank = r0 - 1 if by == WHITE else r0 + 1
    if any(mine(at(f0 + df, pawn_rank), PAWN) for df in (-1, 1)):
        return True
    if any(mine(at(f0 + df, r0 + dr), KNIGHT) for df, dr in _KNIGHT_STEPS):
        return True
    if any(mine(at(f0 + df, r0 + dr), KING) for df, dr in _KING_STEPS):
        return True
    for df, dr in _KING_STEPS:
        sliders = (ROOK, QUEEN) if 0 in (df, dr) else (BISHOP, QUEEN)
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            p = pieces[r * 8 + f]
            if p:
                if mine(p, *sliders):
                    return True
                break
            f += df
            r += dr
    return False
