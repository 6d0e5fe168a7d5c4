"""Board: a position held in the compiled core's arrays, with a Python face.

Used by the UCI program, the analysis API, SAN rendering and the tests. All chess rules run in the
compiled core; this class only parses, formats and keeps the arrays.
"""

import numpy as np

from engine import native
from engine.fen import STARTPOS, format_fen, parse_fen
from engine.layout import (
    BB_ALL,
    EMPTY,
    GEN_ALL,
    HISTORY_SLACK,
    MAX_MOVES,
    N_BB,
    N_ST,
    N_UNDO,
    NO_SQ,
    PIECE_CHARS,
    ST_CASTLE,
    ST_CASTLE_KEEP,
    ST_CASTLE_ROOK,
    ST_CHESS960,
    ST_EP,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
    U_MOVE,
)
from engine.moves import (
    PROMO_CHARS,
    castle_rook,
    is_castling,
    is_en_passant,
    move_from,
    move_to,
    parse_uci_shape,
    promotion_type,
    to_uci,
)

_core = native.core
_T = native.TABLES


class IllegalMoveError(ValueError):
    """A move that is malformed or not legal in the position it was played in. `index`: its place in
    the moves given to Board.from_moves (None elsewhere)."""

    index = None


class Board:
    """A chess position with its game history (for repetition).

    The arrays follow engine.layout: bb, board (mailbox), st (scalars), keys and undo (per ply).
    chess960: the FEN may give castling rights in X-FEN or Shredder-FEN for any king and rook squares,
    and castling is written king-to-rook in UCI (e1h1; standard chess writes e1g1).
    """

    def __init__(self, fen=STARTPOS, capacity=512, chess960=False):
        p = parse_fen(fen, chess960=chess960)
        self.chess960 = chess960
        self.bb = np.zeros(N_BB, np.uint64)
        self.board = np.zeros(64, np.int8)
        self.st = np.zeros(N_ST, np.int32)
        self.keys = np.zeros(capacity + HISTORY_SLACK, np.uint64)
        self.undo = np.zeros((capacity + HISTORY_SLACK, N_UNDO), np.int32)
        for sq, piece in enumerate(p.pieces):
            if piece != EMPTY:
                self.board[sq] = piece
                bit = np.uint64(1) << np.uint64(sq)
                self.bb[piece & 7] |= bit
                self.bb[8 + (piece >> 3)] |= bit
                self.bb[BB_ALL] |= bit
        self.st[ST_SIDE] = p.side
        self.st[ST_CASTLE] = p.castling
        self._set_castling(p)
        self.st[ST_HALFMOVE] = p.halfmove
        self.st[ST_FULLMOVE] = p.fullmove
        # Keep the en-passant square only if a pawn could take there, as make_move does, so keys agree.
        self.st[ST_EP] = p.ep if p.ep >= 0 and self._pawn_attacks_ep(p.ep) else NO_SQ
        self.keys[0] = _core.key_from_scratch(_T, *self.arrays)

    @classmethod
    def from_moves(cls, fen=STARTPOS, moves=(), chess960=False):
        """The position after UCI `moves` played from `fen`, with them as its history (for repetitions).
        Raises FenError, or IllegalMoveError with the bad move's index."""
        board = cls(fen, capacity=max(512, len(moves) + 64), chess960=chess960)
        for i, text in enumerate(moves):
            try:
                board.push_uci(text)
            except IllegalMoveError as e:
                e.index = i
                raise
        return board

    # --- the arrays, as the compiled core takes them ------------------------------------------
    @property
    def arrays(self):
        return self.bb, self.board, self.st, self.keys, self.undo

    def copy(self):
        other = Board.__new__(Board)
        other.chess960 = self.chess960
        other.bb, other.board, other.st = self.bb.copy(), self.board.copy(), self.st.copy()
        other.keys, other.undo = self.keys.copy(), self.undo.copy()
        return other

    # --- state -------------------------------------------------------------------------------
    @property
    def side(self):
        return int(self.st[ST_SIDE])

    @property
    def ply(self):
        """Moves pushed since this Board was set up."""
        return int(self.st[ST_PLY])

    @property
    def key(self):
        return int(self.keys[self.ply])

    @property
    def halfmove_clock(self):
        return int(self.st[ST_HALFMOVE])

    @property
    def fullmove_number(self):
        return int(self.st[ST_FULLMOVE])

    def piece_at(self, sq):
        return int(self.board[sq])

    def checkers(self):
        return int(_core.checkers(_T, *self.arrays))

    def in_check(self):
        return self.checkers() != 0

    def legal_moves(self, kind=GEN_ALL):
        buf = np.empty(MAX_MOVES, np.int32)
        n = _core.generate(_T, *self.arrays, buf, 0, kind)
        return [int(m) for m in buf[:n]]

    @property
    def castle_rooks(self):
        """Each castling right's rook square, by right bit (engine.layout.CASTLE_ROOK_DEFAULT in standard chess)."""
        return tuple(int(x) for x in self.st[ST_CASTLE_ROOK:ST_CASTLE_ROOK + 4])

    def fen(self, shredder=False):
        """FEN, with the en-passant square only when a legal en-passant capture exists (as python-chess).
        Castling in X-FEN (standard chess's KQkq in standard positions), or Shredder-FEN (HAha) if asked."""
        ep = int(self.st[ST_EP])
        if ep != NO_SQ and not any(is_en_passant(m) for m in self.legal_moves()):
            ep = -1
        return format_fen(
            [int(x) for x in self.board], self.side, int(self.st[ST_CASTLE]), ep if ep != NO_SQ else -1,
            self.halfmove_clock, self.fullmove_number, self.castle_rooks, shredder,
        )

    def uci(self, move):
        """UCI text of an encoded move. Castling is king-to-rook (e1h1) in Chess960 mode, and for a castling
        whose king or rook stands off standard chess's squares (python-chess does the same); else the king's
        two-square move (e1g1)."""
        if is_castling(move) and (self.chess960 or self.st[ST_CHESS960]):
            rooks = self.castle_rooks
            if self.chess960 or move_from(move) not in (4, 60) or castle_rook(move, rooks) & 7 not in (0, 7):
                return to_uci(move, rooks)
        return to_uci(move)

    # --- moves -------------------------------------------------------------------------------
    def push(self, move):
        """Play an encoded move (legality is the caller's promise; push_uci checks)."""
        if self.ply + HISTORY_SLACK >= len(self.keys):
            self._grow()
        _core.make_move(_T, *self.arrays, move)

    def pop(self):
        """Take back the last pushed move and return it."""
        if self.ply == 0:
            raise IndexError("no move to take back")
        move = int(self.undo[self.ply - 1, U_MOVE])
        _core.unmake_move(_T, *self.arrays, move)
        return move

    def parse_uci(self, text, legal=None):
        """The legal move written `text` in UCI (e2e4, e7e8q, e1g1), or IllegalMoveError. legal: the
        position's legal_moves(), if the caller has them."""
        shape = parse_uci_shape(text)
        if shape is None:
            raise IllegalMoveError(f"{text!r} is not a UCI move (like e2e4 or e7e8q)")
        frm, to, promo = shape
        rooks = self.castle_rooks
        for m in (legal if legal is not None else self.legal_moves()):
            if is_castling(m):
                # king-to-rook (e1h1) always; the king's two-square move (e1g1) where that is how it is written
                if not promo and frm == move_from(m) and (to == castle_rook(m, rooks) or text == self.uci(m)):
                    return m
            elif move_from(m) == frm and move_to(m) == to:
                p = promotion_type(m)
                if (PROMO_CHARS[p - 2] if p else "") == promo:
                    return m
        raise IllegalMoveError(f"{text} is not legal in {self.fen()}")

    def push_uci(self, text):
        m = self.parse_uci(text)
        self.push(m)
        return m

    # --- display -----------------------------------------------------------------------------
    def diagram(self):
        rows = []
        for r in range(7, -1, -1):
            cells = " | ".join(PIECE_CHARS[int(self.board[r * 8 + f])] for f in range(8))
            rows.append(" +---+---+---+---+---+---+---+---+")
            rows.append(f" | {cells} | {r + 1}")
        rows.append(" +---+---+---+---+---+---+---+---+")
        rows.append("   a   b   c   d   e   f   g   h")
        return "\n".join(rows)

    def __repr__(self):
        return f"Board({self.fen()!r})"

    # --- internals ---------------------------------------------------------------------------
    def _grow(self):
        n = len(self.keys) * 2
        keys = np.zeros(n, np.uint64)
        keys[: len(self.keys)] = self.keys
        undo = np.zeros((n, N_UNDO), np.int32)
        undo[: len(self.undo)] = self.undo
        self.keys, self.undo = keys, undo

    def _set_castling(self, p):
        """Each right's rook square, the rights a move from or onto each square keeps, and whether
        castling needs the general Chess960 path (engine.layout, ST_CASTLE_*)."""
        self.st[ST_CASTLE_ROOK:ST_CASTLE_ROOK + 4] = p.castle_rooks
        keep = self.st[ST_CASTLE_KEEP:ST_CASTLE_KEEP + 64]
        keep[:] = 15
        for right, rsq in enumerate(p.castle_rooks):
            keep[rsq] &= ~(1 << right)
        for color in (0, 1):
            king = p.pieces.index(6 | (color << 3))
            ksq = king if p.castling & (3 << 2 * color) else 56 * color + 4
            keep[ksq] &= ~(3 << 2 * color)
        self.st[ST_CHESS960] = p.chess960

    def _pawn_attacks_ep(self, ep):
        us = self.side
        pawn = 1 | (us << 3)
        f = ep & 7
        behind = ep - 8 if us == 0 else ep + 8
        return any(0 <= f + df < 8 and self.board[behind + df] == pawn for df in (-1, 1))
