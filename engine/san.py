"""Standard Algebraic Notation: writing moves and lines (san, line_san) and reading them (parse_san),
in plain Python over the legal move generator."""

import re

from engine.board import Board
from engine.fen import parse_square, square_name
from engine.layout import F_CAPTURE, F_KING_CASTLE, F_QUEEN_CASTLE, PAWN, PIECE_CHARS
from engine.moves import is_castling, move_flag, move_from, move_to, promotion_type

_SAN = re.compile(r"^(?P<piece>[NBRQK])?(?P<file>[a-h])?(?P<rank>[1-8])?(?P<capture>x)?(?P<to>[a-h][1-8])"
                  r"(?:=?(?P<promo>[NBRQ]))?(?P<check>[+#])?$")
_CASTLE = re.compile(r"^(?P<side>O-O-O|O-O|0-0-0|0-0)(?P<check>[+#])?$")


class SanError(ValueError):
    """SAN text that names no legal move of the position, or more than one."""


def san(board, move, legal=None, keep=False):
    """SAN of a legal move in `board` (e.g. Nbd7, exd6, O-O, e8=Q+, Qh7#). legal: board.legal_moves(), if the
    caller has it. keep: leave the move played on the board (line_san's next ply) instead of taking it back."""
    text = _text(board, move, legal)
    board.push(move)
    try:
        if board.in_check():
            text += "#" if not board.legal_moves() else "+"
    finally:
        if not keep:
            board.pop()
    return text


def _text(board, move, legal):
    """SAN of move without its check sign."""
    flag = move_flag(move)
    if flag == F_KING_CASTLE:
        text = "O-O"
    elif flag == F_QUEEN_CASTLE:
        text = "O-O-O"
    else:
        frm, to = move_from(move), move_to(move)
        piece = board.piece_at(frm) & 7
        capture = bool(flag & F_CAPTURE)
        if piece == PAWN:
            text = (square_name(frm)[0] + "x" if capture else "") + square_name(to)
            promo = promotion_type(move)
            if promo:
                text += "=" + PIECE_CHARS[promo]
        else:
            text = PIECE_CHARS[piece]
            rivals = [m for m in (legal if legal is not None else board.legal_moves())
                      if m != move and move_to(m) == to and board.piece_at(move_from(m)) & 7 == piece
                      and not is_castling(m)]  # Chess960: castling may share the king's destination
            if rivals:
                same_file = any(move_from(m) & 7 == frm & 7 for m in rivals)
                same_rank = any(move_from(m) >> 3 == frm >> 3 for m in rivals)
                if not same_file:
                    text += square_name(frm)[0]
                elif not same_rank:
                    text += square_name(frm)[1]
                else:
                    text += square_name(frm)
            text += ("x" if capture else "") + square_name(to)
    return text


def line_san(fen_or_board, uci_moves, chess960=False):
    """SAN of each move of a line of UCI moves played from a position (a FEN or a Board, left unchanged).
    chess960: the FEN is Chess960's (engine.board.Board)."""
    board = Board(fen_or_board, chess960=chess960) if isinstance(fen_or_board, str) else fen_or_board.copy()
    out = []
    for text in uci_moves:  # one move generation a ply: parse_uci's list serves san()'s rivals too
        legal = board.legal_moves()
        m = board.parse_uci(text, legal)
        out.append(san(board, m, legal, keep=True))
    return out


def parse_san(board, text):
    """The legal move of `board` that SAN `text` names (annotations like `!?` and check signs allowed,
    castling as O-O or 0-0). Raises SanError: not SAN, a null move, not legal, or ambiguous."""
    text = text.rstrip("!?")
    if text == "--":
        raise SanError("null moves are not supported")
    legal = board.legal_moves()
    castle = _CASTLE.match(text)
    if castle:
        flag = F_QUEEN_CASTLE if castle.group("side") in ("O-O-O", "0-0-0") else F_KING_CASTLE
        found = [m for m in legal if move_flag(m) == flag]
    else:
        parts = _SAN.match(text)
        if not parts:
            raise SanError("not a move in SAN (like e4, Nf3, exd5, O-O, e8=Q)")
        piece = "PNBRQK".index(parts.group("piece") or "P") + PAWN
        to = parse_square(parts.group("to"))
        promo = parts.group("promo")
        found = []
        for m in legal:
            frm = move_from(m)
            if move_to(m) != to or board.piece_at(frm) & 7 != piece:
                continue
            if move_flag(m) in (F_KING_CASTLE, F_QUEEN_CASTLE):
                continue
            if parts.group("file") and "abcdefgh"[frm & 7] != parts.group("file"):
                continue
            if parts.group("rank") and str((frm >> 3) + 1) != parts.group("rank"):
                continue
            p = promotion_type(m)
            if (PIECE_CHARS[p] if p else None) != promo:
                continue
            found.append(m)
    if not found:
        raise SanError(f"not legal in {board.fen()}")
    if len(found) > 1:
        raise SanError(f"ambiguous in {board.fen()} (" + ", ".join(board.uci(m) for m in found) + ")")
    return found[0]
