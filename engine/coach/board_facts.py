"""What stands where and what attacks what, read from an engine.board.Board's mailbox in plain Python:
attacks of a piece, attackers of a square, static exchange on a square, pieces behind a slider's
target. The coach asks these few questions of a handful of positions per line; speed is not the point.
"""

from engine.layout import BISHOP, EMPTY, KING, KNIGHT, PAWN, QUEEN, ROOK

NAMES = {PAWN: "pawn", KNIGHT: "knight", BISHOP: "bishop", ROOK: "rook", QUEEN: "queen", KING: "king"}
VALUE = {PAWN: 1, KNIGHT: 3, BISHOP: 3, ROOK: 5, QUEEN: 9, KING: 100}  # pawns; the king outweighs all
SIDES = ("white", "black")

_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def kind(piece):
    return piece & 7


def colour(piece):
    return piece >> 3


def _step(sq, df, dr):
    f, r = (sq & 7) + df, (sq >> 3) + dr
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None


def rays(piece):
    k = kind(piece)
    return (_ORTHO if k == ROOK else _DIAG if k == BISHOP else _ORTHO + _DIAG if k == QUEEN else ())


def attacks(mailbox, sq):
    """The squares the piece on sq attacks (pawns: their captures), sliders stopping at the first piece."""
    piece = mailbox[sq]
    k = kind(piece)
    if k == PAWN:
        dr = 1 if colour(piece) == 0 else -1
        return [s for s in (_step(sq, -1, dr), _step(sq, 1, dr)) if s is not None]
    if k in (KNIGHT, KING):
        return [s for s in (_step(sq, df, dr) for df, dr in (_KNIGHT if k == KNIGHT else _KING)) if s is not None]
    out = []
    for df, dr in rays(piece):
        s = _step(sq, df, dr)
        while s is not None:
            out.append(s)
            if mailbox[s] != EMPTY:
                break
            s = _step(s, df, dr)
    return out


def attackers(mailbox, sq, side):
    """Squares of side's pieces that attack sq."""
    return [s for s in range(64) if mailbox[s] != EMPTY and colour(mailbox[s]) == side and sq in attacks(mailbox, s)]


def behind(mailbox, slider_sq, target_sq):
    """The square of the first piece beyond target_sq on the slider's ray through it, or None."""
    df = (target_sq & 7) - (slider_sq & 7)
    dr = (target_sq >> 3) - (slider_sq >> 3)
    n = max(abs(df), abs(dr))
    df, dr = (df // n if n else 0), (dr // n if n else 0)
    if (df, dr) not in rays(mailbox[slider_sq]) or n == 0 or abs((target_sq & 7) - (slider_sq & 7)) not in (0, n) \
            or abs((target_sq >> 3) - (slider_sq >> 3)) not in (0, n):
        return None
    s = _step(target_sq, df, dr)
    while s is not None:
        if mailbox[s] != EMPTY:
            return s
        s = _step(s, df, dr)
    return None


def see(mailbox, sq, side):
    """What side wins, in pawns (VALUE), by starting the exchange on sq with its least valuable attacker
    and both sides recapturing with theirs while it pays (0 if side has no attacker or the piece on sq is
    its own or absent). Pins are not seen; x-rays are, since attacks are read again after each capture."""
    board = list(mailbox)
    if board[sq] == EMPTY or colour(board[sq]) == side:
        return 0
    gains = []
    mover = side
    target_value = VALUE[kind(board[sq])]
    while True:
        found = attackers(board, sq, mover)
        if not found:
            break
        frm = min(found, key=lambda s: VALUE[kind(board[s])])
        gains.append(target_value)
        target_value = VALUE[kind(board[frm])]
        board[sq], board[frm] = board[frm], EMPTY
        mover ^= 1
        if kind(board[sq]) == KING and attackers(board, sq, mover):
            gains.pop()  # a king may not take into an attack: that capture never happens
            break
    # fold back: each side may stop instead of recapturing
    value = 0
    for g in reversed(gains):
        value = max(0, g - value)
    return value if gains else 0


def material(mailbox, side):
    """Material of side minus the other's, in pawns (kings left out)."""
    total = 0
    for piece in mailbox:
        if piece != EMPTY and kind(piece) != KING:
            total += VALUE[kind(piece)] * (1 if colour(piece) == side else -1)
    return total


def defended(mailbox, sq):
    """Whether a piece of sq's own side attacks sq (pins not seen)."""
    return bool(attackers(mailbox, sq, colour(mailbox[sq])))
