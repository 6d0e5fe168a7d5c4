"""benchmarks/pairs.py: two matches on the same openings compared pair by pair."""

import json
import math

import pytest

from benchmarks import pairs


def journal(tmp_path, name, entries):
    """A journal whose pair k starts from FENs[k] and scores `points` for side A."""
    path = tmp_path / name
    lines = [json.dumps({"settings": {"limits": "10+0.1"}})]
    for k, fen, points in entries:
        game = f'[White "A"]\n[Black "B"]\n[FEN "{fen}"]\n[SetUp "1"]\n\n1. e4 *'
        lines.append(json.dumps({"pair": k, "scores": [points / 2, points / 2], "problems": [], "pgn": [game, game]}))
    lines.append("{torn")
    path.write_text("\n".join(lines) + "\n")
    return path


FENS = [f"8/8/8/4k3/8/8/8/{file}K{7 - i} w - - 0 1" for i, file in enumerate(("", "1", "2", "3", "4"))]  # 5 openings


def test_pairs_are_compared_only_from_the_same_opening(tmp_path):
    new = journal(tmp_path, "new.jsonl", [(0, FENS[0], 2.0), (1, FENS[1], 1.0), (2, FENS[2], 1.5), (3, FENS[3], 0.0)])
    old = journal(tmp_path, "old.jsonl", [(0, FENS[0], 1.0), (1, FENS[1], 1.0), (2, FENS[2], 0.5), (3, FENS[4], 2.0)])
    c = pairs.compare(pairs.load(new), pairs.load(old))
    assert (c["pairs"], c["other_opening"]) == (3, 1)  # pair 3 started elsewhere in the old run
    assert (c["new_points"], c["old_points"]) == (4.5, 2.5)
    assert (c["better"], c["worse"], c["same"]) == (2, 0, 1)
    mean, lo, hi = c["score_diff"]
    assert mean == pytest.approx((1.0 + 0.0 + 1.0) / 3 / 2)  # two games a pair
    assert lo < mean < hi and hi - mean == pytest.approx(mean - lo)


def test_the_sign_test_is_two_sided_and_exact():
    assert pairs.sign_test(0, 0) == 1.0
    assert pairs.sign_test(5, 5) == 1.0
    assert pairs.sign_test(10, 0) == pytest.approx(2 / 2 ** 10)
    assert pairs.sign_test(2, 8) == pytest.approx(2 * sum(math.comb(10, i) for i in range(3)) / 2 ** 10)
    assert pairs.sign_test(8, 2) == pairs.sign_test(2, 8)
