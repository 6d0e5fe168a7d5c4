"""The training positions' binary format: 32 bytes a position, little-endian.

    occ     u64      occupied squares (a1 = bit 0)
    pieces  u8[16]   piece codes (engine.layout: 1..6 white P..K, 9..14 black), one nibble each, for the
                     occupied squares in ascending order, low nibble first
    score   i16      the search's score, centipawns, from the side to move
    result  i8       the game's result for White: 0 loss, 1 draw, 2 win
    stm     u8       side to move: 0 white, 1 black
    game    u32      the game's number in its run (for resuming, and to hold back whole games)

This is the trainer's form of a position, in memory. On disk the positions live in the game store
(training/store.py), as games, and are derived from them when read; a folder of such files (`*.bin`)
is read too (datasets of the rounds before the store: none survives).
"""

import pathlib

import numpy as np
from numba import njit

RECORD = np.dtype([("occ", "<u8"), ("pieces", "u1", 16), ("score", "<i2"), ("result", "i1"), ("stm", "u1"),
                   ("game", "<u4")])
assert RECORD.itemsize == 32


def pack(board_codes, side, score, result, game):
    """One record from a 64-square mailbox of piece codes (int8), the side to move, the score (side to move)
    and the result for White (0, 1, 2)."""
    rec = np.zeros((), RECORD)
    squares = np.flatnonzero(board_codes)
    occ = 0
    for sq in squares:
        occ |= 1 << int(sq)
    codes = np.zeros(32, np.uint8)
    codes[:len(squares)] = board_codes[squares]
    rec["occ"] = occ
    rec["pieces"] = codes[0::2] | (codes[1::2] << 4)
    rec["score"] = max(-32000, min(32000, int(score)))
    rec["result"] = result
    rec["stm"] = side
    rec["game"] = game
    return rec


def unpack_board(rec):
    """The 64-square mailbox of a record (int8 piece codes)."""
    nibbles = np.empty(32, np.uint8)
    nibbles[0::2] = rec["pieces"] & 15
    nibbles[1::2] = rec["pieces"] >> 4
    board = np.zeros(64, np.int8)
    occ = int(rec["occ"])
    i = 0
    for sq in range(64):
        if occ >> sq & 1:
            board[sq] = nibbles[i]
            i += 1
    return board


@njit(cache=True)
def _pack(boards, sides, scores, results, games, occ, pieces, stm, score, result, game):
    for i in range(len(boards)):
        o = np.uint64(0)
        k = 0
        for j in range(16):
            pieces[i, j] = 0
        for sq in range(64):
            p = boards[i, sq]
            if p != 0:
                o |= np.uint64(1) << np.uint64(sq)
                if k & 1:
                    pieces[i, k >> 1] |= np.uint8(p << 4)
                else:
                    pieces[i, k >> 1] |= np.uint8(p)
                k += 1
        occ[i] = o
        stm[i] = sides[i]
        score[i] = max(-32000, min(32000, scores[i]))
        result[i] = results[i]
        game[i] = games[i]


def from_boards(boards, sides, scores, results, games):
    """Records of n positions: boards [n, 64] (int8 mailboxes), sides to move, scores (side to move; clamped
    to +-32000), White's results (0, 1, 2) and game numbers."""
    n = len(boards)
    occ, pieces = np.zeros(n, np.uint64), np.zeros((n, 16), np.uint8)
    stm, score = np.zeros(n, np.uint8), np.zeros(n, np.int16)
    result, game = np.zeros(n, np.int8), np.zeros(n, np.uint32)
    _pack(np.ascontiguousarray(boards, np.int8), np.asarray(sides), np.asarray(scores, np.int64), np.asarray(results),
          np.asarray(games), occ, pieces, stm, score, result, game)
    recs = np.zeros(n, RECORD)
    recs["occ"], recs["pieces"], recs["stm"], recs["score"] = occ, pieces, stm, score
    recs["result"], recs["game"] = result, game
    return recs


def read(path):
    """Every whole record of one file (a torn last record, from a run cut short, is left out)."""
    data = np.fromfile(path, np.uint8)
    n = len(data) // RECORD.itemsize
    return data[:n * RECORD.itemsize].view(RECORD)


def files(folder):
    return sorted(pathlib.Path(folder).glob("*.bin"))


def load(folder):
    """Every record of a dataset folder, concatenated."""
    parts = [read(p) for p in files(folder)]
    return np.concatenate(parts) if parts else np.zeros(0, RECORD)
