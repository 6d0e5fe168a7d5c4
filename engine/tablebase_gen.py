"""Makes the endgame tables: retrograde analysis (engine/core/tablebase.py) table by table, smallest first.

    python -m engine.tablebase_gen [--out DIR] [--pieces 3|4] [--check] [--only KQvKR ...]

Writes DIR/<name>.tb.xz (one byte a position and side to move, LZMA-compressed) and prints each table's
time, size, longest mate and share of wins. --check recomputes every position from its children.
"""

import argparse
import lzma
import pathlib
import sys
import time

import numpy as np

from engine import tablebase as tb
from engine.core import tablebase as core
from engine.core.attacks import build_tables
from engine.layout import T_SIZE


class Generator:
    """All the catalogue's tables in one flat byte array, as the compiled generator reads them."""

    def __init__(self, max_pieces=tb.MAX_PIECES):
        self.materials = tb.catalogue(max_pieces)
        self.T = np.zeros(T_SIZE, np.uint64)
        build_tables(self.T)
        sizes = [2 * m.nside for m in self.materials]
        self.off = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.V = np.full(sum(sizes), core.UNKNOWN, np.uint8)
        self.nside = np.array([m.nside for m in self.materials], np.int64)
        self.pawnful = np.array([m.pawnful for m in self.materials], np.bool_)
        self.order = np.zeros((len(self.materials), 4), np.int64)
        for i, m in enumerate(self.materials):
            self.order[i, : m.pieces] = m.order
        self.npieces = np.array([m.pieces for m in self.materials], np.int64)
        self.key2tid, self.key2flip = tb.key_maps(self.materials)
        self.tid = {m.name: i for i, m in enumerate(self.materials)}
        self.counts = {}  # name -> (positions, wins, draws, losses) for the side to move, both sides

    def args(self):
        return self.T, self.V, self.off, self.nside, self.pawnful, self.order, self.key2tid, self.key2flip

    def table(self, name):
        i = self.tid[name]
        return self.V[self.off[i] : self.off[i] + 2 * self.nside[i]]

    def generate(self, name):
        counts = np.zeros(4, np.int64)
        plies = core.generate(*self.args(), self.tid[name], self.npieces, counts)
        self.counts[name] = tuple(int(c) for c in counts)
        return plies

    def check(self, name):
        return core.check(*self.args(), self.tid[name], self.npieces)

    def load(self, name, directory):
        self.table(name)[:] = np.frombuffer(lzma.decompress((directory / (name + tb.SUFFIX)).read_bytes()), np.uint8)


def longest_mate(data):
    """The longest mate in the table, in moves."""
    won = data[(data != tb.DRAW) & (data % 2 == 1)]
    return int(won.max() + 1) // 2 if won.size else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=pathlib.Path, default=tb.DEFAULT_DIR)
    ap.add_argument("--pieces", type=int, default=tb.MAX_PIECES, choices=(3, 4))
    ap.add_argument("--check", action="store_true", help="recompute every position from its children")
    ap.add_argument("--only", nargs="*", help="tables to make (those they reach are read from --out or made)")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    gen = Generator(a.pieces)
    t_all = time.perf_counter()
    total_bytes = 0
    for m in gen.materials:
        path = a.out / (m.name + tb.SUFFIX)
        t0 = time.perf_counter()
        wanted = not a.only or m.name in a.only
        if path.exists() and not wanted:
            gen.load(m.name, a.out)
            continue
        plies = gen.generate(m.name)
        gen_s = time.perf_counter() - t0
        data = gen.table(m.name)
        blob = lzma.compress(data.tobytes(), preset=6)
        path.write_bytes(blob)
        total_bytes += len(blob)
        n, wins, draws, losses = gen.counts[m.name]
        line = (
            f"{m.name:8s} {gen_s:7.1f} s  {plies:3d} plies  {len(blob) / 1e6:6.2f} MB  "
            f"longest mate {longest_mate(data):3d}  positions {n}  side to move wins {wins / n:6.1%} "
            f"draws {draws / n:6.1%} loses {losses / n:6.1%}"
        )
        if a.check:
            checked, bad = gen.check(m.name)
            line += f"  checked {checked} bad {bad}"
        print(line, flush=True)
    print(f"all {time.perf_counter() - t_all:.1f} s, {total_bytes / 1e6:.1f} MB written to {a.out}")


if __name__ == "__main__":
    sys.exit(main())
