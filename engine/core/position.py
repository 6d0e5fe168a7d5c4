"""Make and unmake moves on the position arrays.

A position is five arrays (see engine.layout):
  bb    uint64[N_BB]        piece-type bitboards bb[PAWN..KING], colours bb[BB_COLOR + c], bb[BB_ALL]
  board int8[64]            mailbox of piece codes
  st    int32[N_ST]         side, castling (rights, their rooks' squares), en passant, clocks, ply index
  keys  uint64[H]           keys[ply] = Zobrist key of the position at that ply (the repetition history)
  undo  int32[H, N_UNDO]    what make_move must restore, per ply
The Zobrist key is updated incrementally; unmaking just steps back to keys[ply - 1].
"""

import numpy as np
from numba import njit

from engine.core.bitboard import ONE, U64
from engine.core.signatures import kernel
from engine.core.zobrist import castle_file_keys
from engine.layout import (
    BB_ALL,
    BB_COLOR,
    BLACK,
    EMPTY,
    F_CAPTURE,
    F_DOUBLE_PUSH,
    F_EP_CAPTURE,
    F_KING_CASTLE,
    F_PROMO,
    F_QUEEN_CASTLE,
    KNIGHT,
    MOVE_NONE,
    NO_SQ,
    PAWN,
    ROOK,
    ST_CASTLE,
    ST_CASTLE_KEEP,
    ST_CASTLE_ROOK,
    ST_CHESS960,
    ST_EP,
    ST_FULLMOVE,
    ST_HALFMOVE,
    ST_PLY,
    ST_SIDE,
    T_PAWN,
    T_ZOBRIST_CASTLE,
    T_ZOBRIST_EP,
    T_ZOBRIST_PSQ,
    T_ZOBRIST_SIDE,
    U_CAPTURED,
    U_CASTLE,
    U_EP,
    U_HALFMOVE,
    U_MOVE,
    WHITE,
)


@njit(inline="always")
def move_from(m):
    return m & 63


@njit(inline="always")
def move_to(m):
    return (m >> 6) & 63


@njit(inline="always")
def move_flag(m):
    return (m >> 12) & 15


@njit(inline="always")
def toggle(bb, p, sq):
    """Put p on an empty sq or lift it off; board[] is the caller's job."""
    b = ONE << U64(sq)
    bb[p & 7] ^= b
    bb[BB_COLOR + (p >> 3)] ^= b
    bb[BB_ALL] ^= b


@njit(inline="always")
def castle_rook_squares(board, frm, to):
    """(rook from, rook to) of a legal castling move from frm to the king's destination `to`, read off
    the board before the move: the rook is the first piece beside the king on that wing (whatever stood
    between them would block the castling), and it goes to the square on the king's inner side."""
    step = 1 if (to & 7) == 6 else -1
    rf = frm + step
    while board[rf] == EMPTY:
        rf += step
    return rf, to - step


@njit(inline="always")
def castle_rook_from(st, us, flag):
    """The castling rook's start square for a castling move of `us` (F_KING_CASTLE or F_QUEEN_CASTLE)."""
    return st[ST_CASTLE_ROOK + 2 * us + flag - F_KING_CASTLE]


@njit(inline="always")
def key_after(T, board, st, keys, m):
    """The key after m but for castling's rook, lost castling rights and a new en-passant square, from the
    position before it: make_move starts from it and adds those three, and the search prefetches the child's
    table bucket with it before the accumulator update (so that the load overlaps the update). For the few
    moves that change those three the wrong bucket is prefetched, and the child's probe waits on memory."""
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    p = np.int64(board[frm])
    placed = ((KNIGHT + (flag & 3)) | (p & 8)) if flag & F_PROMO else p
    key = keys[st[ST_PLY]] ^ T[T_ZOBRIST_SIDE] ^ T[T_ZOBRIST_PSQ + p * 64 + frm] ^ T[T_ZOBRIST_PSQ + placed * 64 + to]
    if flag == F_EP_CAPTURE:
        capsq = to - 8 if p < 8 else to + 8
        key ^= T[T_ZOBRIST_PSQ + np.int64(board[capsq]) * 64 + capsq]
    elif flag & F_CAPTURE:
        key ^= T[T_ZOBRIST_PSQ + np.int64(board[to]) * 64 + to]
    if st[ST_EP] != NO_SQ:
        key ^= T[T_ZOBRIST_EP + (st[ST_EP] & 7)]
    return key


@kernel
def make_move(T, bb, board, st, keys, undo, m):
    us = st[ST_SIDE]
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    p = np.int64(board[frm])
    n = st[ST_PLY]
    undo[n, U_MOVE] = m
    undo[n, U_CASTLE] = st[ST_CASTLE]
    undo[n, U_EP] = st[ST_EP]
    undo[n, U_HALFMOVE] = st[ST_HALFMOVE]
    key = key_after(T, board, st, keys, m)  # before the board changes: it reads the squares the move empties
    st[ST_EP] = NO_SQ

    captured = EMPTY
    if flag == F_EP_CAPTURE:
        capsq = to - 8 if us == WHITE else to + 8
        captured = np.int64(board[capsq])
        toggle(bb, captured, capsq)
        board[capsq] = EMPTY
    elif flag & F_CAPTURE:
        captured = np.int64(board[to])
        toggle(bb, captured, to)
    undo[n, U_CAPTURED] = captured

    toggle(bb, p, frm)
    board[frm] = EMPTY
    placed = p
    if flag & F_PROMO:
        placed = (KNIGHT + (flag & 3)) | (us << 3)
    toggle(bb, placed, to)
    board[to] = placed

    if flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE:
        rf = castle_rook_from(st, us, flag)
        rt = to - 1 if flag == F_KING_CASTLE else to + 1
        rook = ROOK | (us << 3)
        toggle(bb, rook, rf)
        toggle(bb, rook, rt)
        # Chess960: the rook may stand on the king's destination or go to its start square.
        board[rf] = EMPTY
        board[rt] = rook
        board[to] = placed
        key ^= T[T_ZOBRIST_PSQ + rook * 64 + rf] ^ T[T_ZOBRIST_PSQ + rook * 64 + rt]

    old_rights = st[ST_CASTLE]
    rights = old_rights & st[ST_CASTLE_KEEP + frm] & st[ST_CASTLE_KEEP + to]
    if rights != old_rights:
        key ^= T[T_ZOBRIST_CASTLE + old_rights] ^ T[T_ZOBRIST_CASTLE + rights]
        if st[ST_CHESS960]:
            key ^= castle_file_keys(T, st, old_rights ^ rights)
        st[ST_CASTLE] = rights

    if (p & 7) == PAWN or captured != EMPTY:
        st[ST_HALFMOVE] = 0
    else:
        st[ST_HALFMOVE] += 1

    if flag == F_DOUBLE_PUSH:
        ep = (frm + to) >> 1
        # Record the square only when an enemy pawn could capture there, so equal positions share a key.
        if T[T_PAWN + us * 64 + ep] & bb[PAWN] & bb[BB_COLOR + (us ^ 1)]:
            st[ST_EP] = ep
            key ^= T[T_ZOBRIST_EP + (ep & 7)]

    if us == BLACK:
        st[ST_FULLMOVE] += 1
    st[ST_SIDE] = us ^ 1
    keys[n + 1] = key
    st[ST_PLY] = n + 1


@kernel
def unmake_move(T, bb, board, st, keys, undo, m):
    n = st[ST_PLY] - 1
    st[ST_PLY] = n
    them = st[ST_SIDE]
    us = them ^ 1
    st[ST_SIDE] = us
    if us == BLACK:
        st[ST_FULLMOVE] -= 1
    st[ST_CASTLE] = undo[n, U_CASTLE]
    st[ST_EP] = undo[n, U_EP]
    st[ST_HALFMOVE] = undo[n, U_HALFMOVE]
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)

    placed = np.int64(board[to])
    toggle(bb, placed, to)
    board[to] = EMPTY
    p = (PAWN | (us << 3)) if flag & F_PROMO else placed
    toggle(bb, p, frm)
    board[frm] = p

    captured = np.int64(undo[n, U_CAPTURED])
    if flag == F_EP_CAPTURE:
        capsq = to - 8 if us == WHITE else to + 8
        toggle(bb, captured, capsq)
        board[capsq] = captured
    elif captured != EMPTY:
        toggle(bb, captured, to)
        board[to] = captured

    if flag == F_KING_CASTLE or flag == F_QUEEN_CASTLE:
        rf = castle_rook_from(st, us, flag)
        rt = to - 1 if flag == F_KING_CASTLE else to + 1
        rook = ROOK | (us << 3)
        toggle(bb, rook, rt)
        toggle(bb, rook, rf)
        board[rt] = EMPTY
        board[rf] = rook
        board[frm] = p  # Chess960: the rook may have stood on the king's start square


@kernel
def make_null(T, bb, board, st, keys, undo):
    """Pass the move (null-move pruning). The side flips, en passant lapses, nothing else moves."""
    n = st[ST_PLY]
    undo[n, U_MOVE] = MOVE_NONE
    undo[n, U_CASTLE] = st[ST_CASTLE]
    undo[n, U_EP] = st[ST_EP]
    undo[n, U_HALFMOVE] = st[ST_HALFMOVE]
    undo[n, U_CAPTURED] = EMPTY
    key = keys[n] ^ T[T_ZOBRIST_SIDE]
    if st[ST_EP] != NO_SQ:
        key ^= T[T_ZOBRIST_EP + (st[ST_EP] & 7)]
        st[ST_EP] = NO_SQ
    st[ST_HALFMOVE] += 1
    st[ST_SIDE] ^= 1
    keys[n + 1] = key
    st[ST_PLY] = n + 1


@kernel
def unmake_null(T, bb, board, st, keys, undo):
    n = st[ST_PLY] - 1
    st[ST_PLY] = n
    st[ST_SIDE] ^= 1
    st[ST_EP] = undo[n, U_EP]
    st[ST_HALFMOVE] = undo[n, U_HALFMOVE]
