"""Readers for the perft suites in tests/data."""

import random

from tests.conftest import data_file

NODE_LIMIT = 2_000_000


def read_perft_file(name):
    """[(fen, {depth: nodes})] for files of `FEN ;D1 n ;D2 n` or `FEN; D4 n` lines."""
    out = []
    for line in data_file(name).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *fields = line.split(";")
        counts = {}
        for f in fields:
            f = f.strip()
            if f.startswith("D"):
                d, n = f[1:].split()
                counts[int(d)] = int(n)
        out.append((" ".join(fen.split()), counts))
    return out


def deepest_within(counts, limit=NODE_LIMIT):
    """The deepest (depth, nodes) with at most `limit` nodes, or None."""
    ok = [(d, n) for d, n in counts.items() if n <= limit]
    return max(ok) if ok else None


def cases(name, sample=None, seed=20261121):
    """pytest params (fen, depth, nodes): every position, or a seeded sample of them."""
    rows = read_perft_file(name)
    if sample is not None and sample < len(rows):
        rows = random.Random(seed).sample(rows, sample)
    out = []
    for fen, counts in rows:
        pick = deepest_within(counts)
        if pick is None:  # only deep counts given: still check the shallowest
            pick = min(counts.items())
            if pick[1] > 20 * NODE_LIMIT:
                continue
        out.append((fen, *pick))
    return out
