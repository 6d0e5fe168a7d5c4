"""The committed tables (engine/tablebases): every value follows from its children's over every index of
every table, the longest mates are the published ones, and the files are what the generator makes."""

import pytest

from engine import tablebase as tb

pytest.importorskip("numba")

from engine.tablebase_gen import Generator, longest_mate  # noqa: E402

MATERIALS = tb.catalogue()

# Longest mates in moves, as every published DTM table gives them (Gaviota's, Nalimov's; Wikipedia's
# "Endgame tablebase" list): KQvKR 35, KBNvK 33, ...
PUBLISHED = {
    "KQvK": 10, "KRvK": 16, "KPvK": 28, "KBBvK": 19, "KBNvK": 33, "KQvKR": 35, "KQvKB": 17, "KQvKN": 21,
    "KQvKQ": 13, "KRvKB": 29, "KRvKN": 40, "KRvKR": 19, "KRRvK": 7, "KQQvK": 4, "KQRvK": 6,
}


@pytest.fixture(scope="module")
def committed():
    if not all(tb.default().available(m) for m in MATERIALS):
        pytest.skip("engine/tablebases is missing its files")
    gen = Generator()
    for m in MATERIALS:
        gen.load(m.name, tb.DEFAULT_DIR)
    return gen


def test_there_are_35_tables():
    assert len(MATERIALS) == 35
    assert len([m for m in MATERIALS if m.pieces == 4]) == 30


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_longest_mates_are_the_published_ones(committed, name):
    assert longest_mate(committed.table(name)) == PUBLISHED[name]


@pytest.mark.parametrize("name", [m.name for m in MATERIALS if m.pieces == 4])
def test_every_value_follows_from_its_children(committed, name):
    checked, bad = committed.check(name)
    assert checked > 1_000_000 and bad == 0


@pytest.mark.parametrize("name", ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KRvKB"])
def test_the_files_are_what_the_generator_makes(committed, name):
    """Made again from the committed smaller tables, byte for byte."""
    import numpy as np

    saved = committed.table(name).copy()
    try:
        committed.generate(name)
        assert np.array_equal(committed.table(name), saved)
    finally:
        committed.table(name)[:] = saved
