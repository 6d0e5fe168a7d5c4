"""Attack tables: leapers, between/line, and fancy magic bitboards for rooks and bishops.

All of it lives in the one uint64 array T (offsets in engine.layout). build_tables() fills T in a
couple of milliseconds; the magic numbers are fixed (found once by find_magics below, seed 1), so
nothing is searched at start-up.
"""

import numpy as np
from numba import njit

from engine.core.bitboard import ONE, U64, ZERO
from engine.core.intrinsics import popcount
from engine.core.zobrist import fill_zobrist
from engine.layout import (
    ROOK_TABLE_SIZE,
    T_BETWEEN,
    T_BISHOP_BASE,
    T_BISHOP_MAGIC,
    T_BISHOP_MASK,
    T_BISHOP_RAYS,
    T_BISHOP_SHIFT,
    T_KING,
    T_KNIGHT,
    T_LINE,
    T_PAWN,
    T_ROOK_BASE,
    T_ROOK_MAGIC,
    T_ROOK_MASK,
    T_ROOK_RAYS,
    T_ROOK_SHIFT,
    T_SLIDER,
)

ROOK_DIRS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=np.int64)  # (file step, rank step)
BISHOP_DIRS = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=np.int64)
KNIGHT_STEPS = np.array([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]], dtype=np.int64)
KING_STEPS = np.array([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]], dtype=np.int64)

# fmt: off
ROOK_MAGICS = np.array([
    0x0080001020400080, 0x0040001000200040, 0x0080081000200080, 0x0080040800100080,
    0x0080020400080080, 0x0080010200040080, 0x0080008001000200, 0x0080002040800100,
    0x0000800020400080, 0x0000400020005000, 0x0000801000200080, 0x0000800800100080,
    0x0000800400080080, 0x0000800200040080, 0x0000800100020080, 0x0000800040800100,
    0x0000208000400080, 0x0000404000201000, 0x0000808010002000, 0x0000808008001000,
    0x0000808004000800, 0x0000808002000400, 0x0000010100020004, 0x0000020000408104,
    0x0000208080004000, 0x0000200040005000, 0x0000100080200080, 0x0000080080100080,
    0x0000040080080080, 0x0000020080040080, 0x0000010080800200, 0x0000800080004100,
    0x0000204000800080, 0x0000200040401000, 0x0000100080802000, 0x0000080080801000,
    0x0000040080800800, 0x0000020080800400, 0x0000020001010004, 0x0000800040800100,
    0x0000204000808000, 0x0000200040008080, 0x0000100020008080, 0x0000080010008080,
    0x0000040008008080, 0x0000020004008080, 0x0000010002008080, 0x0000004081020004,
    0x0000204000800080, 0x0000200040008080, 0x0000100020008080, 0x0000080010008080,
    0x0000040008008080, 0x0000020004008080, 0x0000800100020080, 0x0000800041000080,
    0x00FFFCDDFCED714A, 0x007FFCDDFCED714A, 0x003FFFCDFFD88096, 0x0000040810002101,
    0x0001000204080011, 0x0001000204000801, 0x0001000082000401, 0x0001FFFAABFAD1A2,
], dtype=np.uint64)
BISHOP_MAGICS = np.array([
    0x0002020202020200, 0x0002020202020000, 0x0004010202000000, 0x0004040080000000,
    0x0001104000000000, 0x0000821040000000, 0x0000410410400000, 0x0000104104104000,
    0x0000040404040400, 0x0000020202020200, 0x0000040102020000, 0x0000040400800000,
    0x0000011040000000, 0x0000008210400000, 0x0000004104104000, 0x0000002082082000,
    0x0004000808080800, 0x0002000404040400, 0x0001000202020200, 0x0000800802004000,
    0x0000800400A00000, 0x0000200100884000, 0x0000400082082000, 0x0000200041041000,
    0x0002080010101000, 0x0001040008080800, 0x0000208004010400, 0x0000404004010200,
    0x0000840000802000, 0x0000404002011000, 0x0000808001041000, 0x0000404000820800,
    0x0001041000202000, 0x0000820800101000, 0x0000104400080800, 0x0000020080080080,
    0x0000404040040100, 0x0000808100020100, 0x0001010100020800, 0x0000808080010400,
    0x0000820820004000, 0x0000410410002000, 0x0000082088001000, 0x0000002011000800,
    0x0000080100400400, 0x0001010101000200, 0x0002020202000400, 0x0001010101000200,
    0x0000410410400000, 0x0000208208200000, 0x0000002084100000, 0x0000000020880000,
    0x0000001002020000, 0x0000040408020000, 0x0004040404040000, 0x0002020202020000,
    0x0000104104104000, 0x0000002082082000, 0x0000000020841000, 0x0000000000208800,
    0x0000000010020200, 0x0000000404080200, 0x0000040404040400, 0x0002020202020200,
], dtype=np.uint64)
# fmt: on


@njit(cache=True)
def _on_board(f, r):
    return 0 <= f < 8 and 0 <= r < 8


@njit(cache=True)
def _ray_attacks(sq, occ, dirs):
    """Slider attacks by walking rays; used only to build the tables."""
    att = ZERO
    f0, r0 = sq & 7, sq >> 3
    for d in range(4):
        f, r = f0 + dirs[d, 0], r0 + dirs[d, 1]
        while _on_board(f, r):
            b = ONE << U64(r * 8 + f)
            att |= b
            if occ & b:
                break
            f += dirs[d, 0]
            r += dirs[d, 1]
    return att


@njit(cache=True)
def _relevant_mask(sq, dirs):
    """Squares whose occupancy matters to a slider on sq: its rays without the board edge."""
    mask = ZERO
    f0, r0 = sq & 7, sq >> 3
    for d in range(4):
        f, r = f0 + dirs[d, 0], r0 + dirs[d, 1]
        while _on_board(f + dirs[d, 0], r + dirs[d, 1]):
            mask |= ONE << U64(r * 8 + f)
            f += dirs[d, 0]
            r += dirs[d, 1]
    return mask


@njit(cache=True)
def _leaper(sq, steps):
    att = ZERO
    f0, r0 = sq & 7, sq >> 3
    for i in range(steps.shape[0]):
        f, r = f0 + steps[i, 0], r0 + steps[i, 1]
        if _on_board(f, r):
            att |= ONE << U64(r * 8 + f)
    return att


@njit(cache=True)
def _fill_magic(T, sq, dirs, magic, mask_at, magic_at, shift_at, base_at, rays_at, base):
    """Fill one square's slice of a slider table; returns the next free offset."""
    mask = _relevant_mask(sq, dirs)
    bits = popcount(mask)
    T[mask_at + sq] = mask
    T[magic_at + sq] = magic
    T[shift_at + sq] = U64(64 - bits)
    T[base_at + sq] = U64(base)
    T[rays_at + sq] = _ray_attacks(sq, ZERO, dirs)
    # Carry-rippler: visit every subset of the mask.
    sub = ZERO
    while True:
        idx = np.int64((sub * magic) >> U64(64 - bits))
        T[base + idx] = _ray_attacks(sq, sub, dirs)
        sub = (sub - mask) & mask
        if sub == ZERO:
            break
    return base + (1 << bits)


@njit(cache=True)
def build_tables(T):
    """Fill every table in T. Returns T's used length (a sanity check for the caller)."""
    for sq in range(64):
        T[T_KNIGHT + sq] = _leaper(sq, KNIGHT_STEPS)
        T[T_KING + sq] = _leaper(sq, KING_STEPS)
        f, r = sq & 7, sq >> 3
        w = ZERO
        b = ZERO
        for df in (-1, 1):
            if _on_board(f + df, r + 1):
                w |= ONE << U64((r + 1) * 8 + f + df)
            if _on_board(f + df, r - 1):
                b |= ONE << U64((r - 1) * 8 + f + df)
        T[T_PAWN + sq] = w
        T[T_PAWN + 64 + sq] = b
    base = T_SLIDER
    for sq in range(64):
        base = _fill_magic(T, sq, ROOK_DIRS, ROOK_MAGICS[sq], T_ROOK_MASK, T_ROOK_MAGIC, T_ROOK_SHIFT,
                           T_ROOK_BASE, T_ROOK_RAYS, base)
    for sq in range(64):
        base = _fill_magic(T, sq, BISHOP_DIRS, BISHOP_MAGICS[sq], T_BISHOP_MASK, T_BISHOP_MAGIC,
                           T_BISHOP_SHIFT, T_BISHOP_BASE, T_BISHOP_RAYS, base)
    for a in range(64):
        for b in range(64):
            T[T_BETWEEN + a * 64 + b] = ZERO
            T[T_LINE + a * 64 + b] = ZERO
            if a == b:
                continue
            abit = ONE << U64(a)
            bbit = ONE << U64(b)
            for dirs in (ROOK_DIRS, BISHOP_DIRS):
                if _ray_attacks(a, ZERO, dirs) & bbit:
                    T[T_BETWEEN + a * 64 + b] = _ray_attacks(a, bbit, dirs) & _ray_attacks(b, abit, dirs)
                    T[T_LINE + a * 64 + b] = (_ray_attacks(a, ZERO, dirs) & _ray_attacks(b, ZERO, dirs)) | abit | bbit
    fill_zobrist(T)
    return base + 32  # the slider tables end where the Chess960 rook-file keys (4 x 8) begin


# --- lookups used by move generation, search and evaluation ---------------------------------------


@njit(inline="always")
def rook_attacks(T, sq, occ):
    idx = ((occ & T[T_ROOK_MASK + sq]) * T[T_ROOK_MAGIC + sq]) >> T[T_ROOK_SHIFT + sq]
    return T[np.int64(T[T_ROOK_BASE + sq]) + np.int64(idx)]


@njit(inline="always")
def bishop_attacks(T, sq, occ):
    idx = ((occ & T[T_BISHOP_MASK + sq]) * T[T_BISHOP_MAGIC + sq]) >> T[T_BISHOP_SHIFT + sq]
    return T[np.int64(T[T_BISHOP_BASE + sq]) + np.int64(idx)]


@njit(inline="always")
def queen_attacks(T, sq, occ):
    return rook_attacks(T, sq, occ) | bishop_attacks(T, sq, occ)


@njit(inline="always")
def knight_attacks(T, sq):
    return T[T_KNIGHT + sq]


@njit(inline="always")
def king_attacks(T, sq):
    return T[T_KING + sq]


@njit(inline="always")
def pawn_attacks(T, color, sq):
    return T[T_PAWN + color * 64 + sq]


@njit(inline="always")
def between(T, a, b):
    return T[T_BETWEEN + a * 64 + b]


@njit(inline="always")
def line(T, a, b):
    return T[T_LINE + a * 64 + b]


# --- magic search (developer tool; the constants above came from find_magics(1)) --------------------


@njit(cache=True)
def _find_magic(sq, dirs, seed):
    mask = _relevant_mask(sq, dirs)
    bits = popcount(mask)
    n = 1 << bits
    occs = np.empty(n, np.uint64)
    atts = np.empty(n, np.uint64)
    used = np.empty(n, np.uint64)
    sub = ZERO
    for i in range(n):
        occs[i] = sub
        atts[i] = _ray_attacks(sq, sub, dirs)
        sub = (sub - mask) & mask
    s = U64(seed)
    while True:
        # xorshift64*, three draws ANDed together for a sparse candidate
        cand = FULL_MASK
        for _ in range(3):
            s ^= s >> U64(12)
            s ^= s << U64(25)
            s ^= s >> U64(27)
            cand &= s * U64(2685821657736338717)
        if popcount((mask * cand) >> U64(56)) < 6:
            continue
        used[:] = ZERO
        ok = True
        for i in range(n):
            idx = np.int64((occs[i] * cand) >> U64(64 - bits))
            if used[idx] == ZERO:
                used[idx] = atts[i] | (ONE << U64(63)) if atts[i] == ZERO else atts[i]
            elif used[idx] != atts[i]:
                ok = False
                break
        if ok:
            return cand, s


FULL_MASK = U64(0xFFFFFFFFFFFFFFFF)


def find_magics(seed=1):
    """Print fresh magic numbers (seconds of work; run by hand, never at start-up)."""
    s = seed
    for dirs in (ROOK_DIRS, BISHOP_DIRS):
        out = []
        for sq in range(64):
            m, s = _find_magic(sq, dirs, s)
            out.append(f"0x{int(m):016X}")
        print(out)


assert ROOK_TABLE_SIZE == 102400
