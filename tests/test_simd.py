"""The compiled core's hand-written vector code and its indexing rule, under the JIT: the move picker's scan
(first_max) against numpy, the output layer's generic fallback against its AVX2 form, and numba's
wraparound of negative indices switched off for engine.core only."""

import numpy as np
from numba import njit

import engine.core  # noqa: F401  (installs the indexing rule)
from engine.core import simd
from engine.layout import NNUE_HIDDEN, NNUE_QA, NNUE_SHIFT


@njit
def _first_max(a, start, stop):
    return simd.first_max(a, start, stop)


def test_first_max_is_the_first_of_the_largest():
    rng = np.random.default_rng(3)
    for _ in range(3000):
        n = int(rng.integers(1, 80))
        start = int(rng.integers(0, n))
        scale = int(rng.choice([1, 1000, 10_000_000]))
        a = (rng.integers(-4, 4, n + 7) * scale).astype(np.int32)  # few values: many ties
        a[n:] = rng.integers(-(2**31) + 1, 2**31 - 1, 7)  # read past stop, never chosen
        assert _first_max(a, start, n) == start + int(np.argmax(a[start:n]))


def test_the_output_layer_sums_alike_with_and_without_avx2(monkeypatch):
    """vpmaddwd where AVX2 is there, generic IR elsewhere: both equal numpy's sum on random rows."""
    rng = np.random.default_rng(7)
    acc = rng.integers(-300, 600, 2 * NNUE_HIDDEN).astype(np.int16)
    net = rng.integers(-4000, 4000, 2 * NNUE_HIDDEN).astype(np.int16)
    x = np.clip(acc.astype(np.int64), 0, NNUE_QA)
    expected = int(((x * x) >> NNUE_SHIFT) @ net.astype(np.int64))
    for avx2 in (True, False) if simd.AVX2 else (False,):  # the intrinsic only where the CPU has it
        monkeypatch.setattr(simd, "AVX2", avx2)

        @njit
        def total(acc, net):
            return simd.output_sum(acc, net, 0, NNUE_HIDDEN, 0, NNUE_QA)

        assert total(acc, net) == expected, f"AVX2={avx2}"


def test_negative_indices_wrap_around_outside_the_core_only():
    @njit
    def last(a):
        return a[-1]

    assert last(np.arange(5)) == 4
