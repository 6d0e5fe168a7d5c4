"""The match statistics of benchmarks/sprt.py: pair counts, Elo intervals and the SPRT's decisions."""

import math
import random

import pytest

from benchmarks.sprt import Pentanomial, bounds, elo, expected_score, sprt_state


def test_pairs_are_counted_by_their_score():
    p = Pentanomial()
    p.add(1, 1)
    p.add(1, 0)
    p.add(0.5, 0.5)
    p.add(0.5, 0)
    p.add(0, 0)
    assert p.counts == [1, 1, 2, 0, 1]
    assert p.pairs == 5


def test_elo_and_expected_score_are_inverse():
    for e in (-300, -50, 0, 17, 200):
        assert elo(expected_score(e)) == pytest.approx(e)
    assert elo(0.5) == 0


def test_an_even_match_is_centred_on_zero():
    e, lo, hi = Pentanomial([5, 20, 50, 20, 5]).elo_interval()
    assert e == pytest.approx(0)
    assert lo == pytest.approx(-hi)
    assert lo < 0 < hi


def test_bounds_match_alpha_and_beta():
    lo, hi = bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95))
    assert hi == pytest.approx(math.log(0.95 / 0.05))


def simulate(true_elo, elo0, elo1, seed, max_pairs=20000):
    """Pairs drawn from a model with draws; returns the SPRT's verdict."""
    rng = random.Random(seed)
    s = expected_score(true_elo)
    draw = 0.4
    win = s - draw / 2
    p = Pentanomial()
    for _ in range(max_pairs):
        games = []
        for _ in range(2):
            x = rng.random()
            games.append(1.0 if x < win else 0.5 if x < win + draw else 0.0)
        p.add(*games)
        verdict = sprt_state(p, elo0, elo1)[3]
        if verdict:
            return verdict
    return None


def test_sprt_accepts_a_clear_gain_and_rejects_a_clear_loss():
    assert [simulate(40, 0, 10, seed) for seed in range(5)] == ["H1"] * 5
    assert [simulate(-30, 0, 10, seed) for seed in range(5)] == ["H0"] * 5


def test_sprt_error_rate_at_the_bounds_is_near_alpha():
    """At the null hypothesis (elo0) the test should accept H1 about alpha = 5% of the time."""
    verdicts = [simulate(0, 0, 20, seed, 4000) for seed in range(200)]
    false_gains = verdicts.count("H1") / len(verdicts)
    assert false_gains < 0.12
