"""A line played out: each ply's mover, piece, capture and promotion, the board after it, and the
material it leaves, so that the reasons (engine/coach/explain.py) can point at the moves that show them.
"""

import dataclasses

from engine.coach import board_facts as bf
from engine.fen import square_name
from engine.layout import EMPTY, F_CAPTURE, PAWN
from engine.moves import is_en_passant, move_flag, move_from, move_to, promotion_type
from engine.san import san


@dataclasses.dataclass(frozen=True)
class Ply:
    index: int  # from 0, in the line
    side: int  # who plays it (0 white, 1 black)
    uci: str
    san: str
    frm: int
    to: int
    piece: int  # the piece code that moves
    captured: int  # the piece code taken, or EMPTY
    captured_sq: int | None  # where it stood (differs from `to` for en passant)
    promotion: int  # the piece type promoted to, or 0
    after: tuple  # the mailbox after the move (64 piece codes)
    check: bool
    mate: bool


@dataclasses.dataclass(frozen=True)
class Walk:
    start: tuple  # the mailbox before the line
    side: int  # who moves first
    plies: tuple  # Ply per move
    balance: tuple  # the first mover's material lead (pawns) before the line and after each ply
    pending: int  # what the side to move at the end wins at once by static exchange (pawns, >= 0)
    pending_sq: int | None = None  # where it wins it (None when it wins nothing)

    def final(self):
        """What the first mover gains in material along the line (pawns; negative: loses), the pending
        exchange at its end included."""
        last = self.balance[-1] - self.balance[0]
        end_side = (self.side + len(self.plies)) & 1
        return last + (self.pending if end_side == self.side else -self.pending)

    def sans(self, upto=None):
        return tuple(p.san for p in self.plies[:upto])

    def ucis(self, upto=None):
        return tuple(p.uci for p in self.plies[:upto])


def walk(board, pv):
    """Walk of the UCI moves pv from board (an engine.board.Board, left unchanged). Stops at the first
    move that is not legal (a line is the engine's own; that only guards a stale one)."""
    b = board.copy()
    start = tuple(int(x) for x in b.board)
    side = b.side
    plies, balance = [], [bf.material(start, side)]
    for i, text in enumerate(pv):
        try:
            m = b.parse_uci(text)
        except ValueError:
            break
        frm, to = move_from(m), move_to(m)
        piece = b.piece_at(frm)
        captured, captured_sq = EMPTY, None
        if move_flag(m) & F_CAPTURE:
            captured_sq = to if not is_en_passant(m) else (to - 8 if bf.colour(piece) == 0 else to + 8)
            captured = b.piece_at(captured_sq)
        text_san = san(b, m)
        b.push(m)
        after = tuple(int(x) for x in b.board)
        check = b.in_check()
        plies.append(Ply(index=i, side=bf.colour(piece), uci=text, san=text_san, frm=frm, to=to, piece=piece,
                         captured=captured, captured_sq=captured_sq, promotion=promotion_type(m), after=after,
                         check=check, mate=check and not b.legal_moves()))
        balance.append(bf.material(after, side))
    end = plies[-1].after if plies else start
    end_side = b.side
    pending, pending_sq = 0, None
    checkers = b.checkers()
    if not (plies and plies[-1].mate) and not checkers:
        pending, pending_sq = max(((bf.see(end, sq, end_side), sq) for sq in range(64)
                                   if end[sq] != EMPTY and bf.colour(end[sq]) != end_side), default=(0, None))
    elif plies and not plies[-1].mate and checkers == 1 << plies[-1].to:
        # in check from the piece that just moved, alone: taking it is the one capture the rules allow, so a
        # line that ends on a capture with check (Qxg7+) is counted with the recapture (Kxg7) it leaves
        pending, pending_sq = bf.see(end, plies[-1].to, end_side), plies[-1].to
    return Walk(start=start, side=side, plies=tuple(plies), balance=tuple(balance), pending=pending,
                pending_sq=pending_sq if pending > 0 else None)


def piece_name(piece):
    return bf.NAMES[bf.kind(piece)]


def on(piece, sq):
    """"the knight on c3"."""
    return f"the {piece_name(piece)} on {square_name(sq)}"


def is_pawn(piece):
    return bf.kind(piece) == PAWN
