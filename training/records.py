"""The training positions' binary format: 32 bytes a position, little-endian.

    occ     u64      occupied squares (a1 = bit 0)
    pieces  u8[16]   piece codes (engine.layout: 1..6 white P..K, 9..14 black), one nibble each, for the
                     occupied squares in ascending order, low nibble first
    score   i16      the search's score, centipawns, from the side to move
    result  i8       the game's result for White: 0 loss, 1 draw, 2 win
    stm     u8       side to move: 0 white, 1 black
    game    u32      the game's number in its run (for resuming, and to hold back whole games)

A dataset is a folder of such files (`*.bin`), one per worker and seed, plus `meta.json` per run.
"""

import pathlib
import shutil

import numpy as np

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


def snapshot(src, dst):
    """Copy the dataset folder `src` to the new folder `dst` as whole games, while `gen` may still be writing it.

    A running gen appends a game's records at its end in one write, so a file read mid-write ends in a torn
    record or a game cut short: each file's copy leaves out its torn record and its last game (complete or not;
    one game in a few thousand). The runs' meta files come along. Returns {file name: (records, kept)}."""
    src, dst = pathlib.Path(src), pathlib.Path(dst)
    found = files(src)
    if not found:
        raise ValueError(f"{src}: no *.bin dataset files in it")
    if dst.exists():
        raise ValueError(f"{dst}: already exists (the copy goes into a new folder)")
    dst.mkdir(parents=True)
    counts = {}
    for path in found:
        recs = read(path)
        kept = recs[recs["game"] != recs["game"][-1]] if len(recs) else recs
        kept.tofile(dst / path.name)
        counts[path.name] = (len(recs), len(kept))
    for meta in src.glob("meta*.json"):
        shutil.copy(meta, dst / meta.name)
    return counts
