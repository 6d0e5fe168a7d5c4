"""benchmarks/clock_use.py: each side's seconds a move, read from a match journal's [%clk]s."""

import json

import pytest

from benchmarks import clock_use


def journal(tmp_path, limits, pgns):
    path = tmp_path / "m.jsonl"
    lines = [json.dumps({"settings": {"limits": limits}})]
    lines += [json.dumps({"pair": 0, "scores": [0.5, 0.5], "problems": [], "pgn": pgns}), "{torn"]
    path.write_text("\n".join(lines) + "\n")
    return path


def cells(text, row):
    """The cells of the table row that starts with `row`."""
    line = next(line for line in text.splitlines() if line.startswith(f"| {row}"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_a_move_takes_the_clock_before_it_plus_the_increment_minus_the_clock_after(tmp_path):
    # A is White: 10 s + 0.1; A's moves take 0.6 and 0.3 s, B's 1.1 and 0.1 s
    pgn = ('[White "A"]\n[Black "B"]\n[Result "*"]\n\n1. e4 { [%clk 0:00:09.5] } 1... e5 { [%clk 0:00:09] } '
           '2. Nf3 { [%clk 0:00:09.3] } 2... Nc6 { [%clk 0:00:09] } *')
    base, inc, played = clock_use.games(journal(tmp_path, "10+0.1", [pgn]))
    assert (base, inc) == (10.0, 0.1) and played == [(True, [9.5, 9.0, 9.3, 9.0])]
    assert clock_use.spent(base, inc, [9.5, 9.3]) == pytest.approx([0.6, 0.3])
    text, n = clock_use.report([journal(tmp_path, "10+0.1", [pgn, pgn.replace('"A"', '"X"').replace('"B"', '"A"')])])
    # as Black in the second game, A's moves are the ones that took 1.1 and 0.1 s
    assert n == 2 and "| moves 1-10 " in text and "0.525" in text  # (0.6 + 0.3 + 1.1 + 0.1) / 4
    assert cells(text, "clock left after move 30")[1:] == ["-", "-", "0"]  # no game reached move 30


def test_the_clock_after_move_30_is_read_from_the_games_that_reach_it(tmp_path):
    # A is White and loses 0.2 s a move net of the increment: 10 - 0.2 * 30 = 4.0 s after move 30
    moves = " ".join(f"{i}. a {{ [%clk 0:00:{10 - 0.2 * i:06.3f}] }} {i}... b {{ [%clk 0:00:09.9] }}"
                     for i in range(1, 41))
    pgn = f'[White "A"]\n[Black "B"]\n[Result "*"]\n\n{moves} *'
    text, n = clock_use.report([journal(tmp_path, "10+0.1", [pgn])])
    assert cells(text, "clock left after move 30")[1:] == ["4.00", "9.90", "1"]


def test_a_journal_without_a_clock_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="not on a clock"):
        clock_use.games(journal(tmp_path, "10000 nodes", []))


def test_an_adjudicated_clock_journal_is_read_at_its_clock(tmp_path):
    base, inc, played = clock_use.games(journal(tmp_path, "10+0.1, adjudicated", []))
    assert (base, inc, played) == (10.0, 0.1, [])
    with pytest.raises(SystemExit, match="not on a clock"):
        clock_use.games(journal(tmp_path, "10000 nodes, adjudicated", []))
