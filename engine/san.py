"""Standard Algebraic Notation for moves and lines (plain Python over the legal move generator)."""

from engine.board import Board
from engine.fen import square_name
from engine.layout import F_KING_CASTLE, F_QUEEN_CASTLE, PAWN, PIECE_CHARS
from engine.moves import move_flag, move_from, move_to, promotion_type


def san(board, move):
    """SAN of a legal move in `board` (e.g. Nbd7, exd6, O-O, e8=Q+, Qh7#)."""
    flag = move_flag(move)
    if flag == F_KING_CASTLE:
        text = "O-O"
    elif flag == F_QUEEN_CASTLE:
        text = "O-O-O"
    else:
        frm, to = move_from(move), move_to(move)
        piece = board.piece_at(frm) & 7
        capture = bool(flag & 4)
        if piece == PAWN:
            text = (square_name(frm)[0] + "x" if capture else "") + square_name(to)
            promo = promotion_type(move)
            if promo:
                text += "=" + PIECE_CHARS[promo]
        else:
            text = PIECE_CHARS[piece]
            rivals = [m for m in board.legal_moves()
                      if m != move and move_to(m) == to and board.piece_at(move_from(m)) & 7 == piece]
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
    board.push(move)
    try:
        if board.in_check():
            text += "#" if not board.legal_moves() else "+"
    finally:
        board.pop()
    return text


def line_san(fen_or_board, uci_moves):
    """SAN of each move of a line of UCI moves played from a position (a FEN or a Board, left unchanged)."""
    board = Board(fen_or_board) if isinstance(fen_or_board, str) else fen_or_board.copy()
    out = []
    for text in uci_moves:
        m = board.parse_uci(text)
        out.append(san(board, m))
        board.push(m)
    return out
