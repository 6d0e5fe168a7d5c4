"""benchmarks/spsa.py: fishtest's gain schedule, a run that finds a better value, and a journal that resumes
exactly where a killed run stopped."""

import json

import pytest

from benchmarks.spsa import Param, Run, gains


def test_the_gains_end_at_c_end_and_r_end():
    p = Param("RfpMargin", 100, 0, 300, 8, 0.002)
    c_last, r_last = gains(p, 1000, 1000)
    assert c_last == pytest.approx(8) and r_last == pytest.approx(0.002)
    c_first, r_first = gains(p, 1, 1000)
    assert c_first > c_last and r_first < r_last * 10  # wider steps first, a learning rate that decays gently


def toward(target):
    """A stand-in for the games: the side whose RfpMargin is nearer `target` wins the pair 2-0."""
    def play_pair(up, down, opening):
        a, b = abs(up["RfpMargin"] - target), abs(down["RfpMargin"] - target)
        return 2 if a < b else -2 if a > b else 0
    return play_pair


def params():
    return [Param("RfpMargin", 100, 0, 300, 8, 0.05)]  # a learning rate that moves in a few hundred pairs


def test_a_run_moves_the_value_toward_what_wins(tmp_path):
    run = Run(tmp_path / "j.jsonl", params(), 300, "test", 1, toward(160)).run()
    assert run.done == 300 and 145 <= run.theta["RfpMargin"] <= 175


def test_a_killed_run_resumes_exactly_where_it_stopped(tmp_path):
    whole = Run(tmp_path / "whole.jsonl", params(), 60, "test", 3, toward(200)).run()

    journal = tmp_path / "part.jsonl"
    calls = []
    first = Run(journal, params(), 60, "test", 3, None)

    def stop_after_25(up, down, opening):
        calls.append(opening)
        if len(calls) == 25:
            first.stop.set()
        return toward(200)(up, down, opening)

    first.play_pair = stop_after_25
    first.run()
    assert first.done == 25
    with open(journal, "a") as f:
        f.write('{"k": 26, "flips": [1], "theta": ')  # torn by the kill
    again = Run(journal, params(), 60, "test", 3, toward(200))
    assert again.done == 25 and again.theta == first.theta
    again.run()
    assert again.done == 60 and again.theta == pytest.approx(whole.theta)
    assert [json.loads(line)["k"] for line in journal.read_text().splitlines()[1:] if line.endswith("}")] == \
        list(range(1, 26)) + list(range(26, 61))


def test_other_settings_are_refused_naming_them(tmp_path):
    journal = tmp_path / "j.jsonl"
    Run(journal, params(), 10, "test", 1, toward(100))
    with pytest.raises(SystemExit, match=r"\(iterations differ\)"):
        Run(journal, params(), 20, "test", 1, toward(100))
    with pytest.raises(SystemExit, match="not a parameter"):
        Param("NoSuchThing", 1, 0, 2, 1, 0.002)
    with pytest.raises(SystemExit, match="NAME,START,MIN,MAX,C_END,R_END"):
        Param.parse("RfpMargin,100")


def test_adjudicate_is_part_of_the_runs_settings(tmp_path):
    from benchmarks.spsa import main

    journal = tmp_path / "adj.jsonl"
    main(["--journal", str(journal), "--adjudicate", "--show", "--iterations", "10", "--nodes", "2000"])
    assert json.loads(journal.read_text().splitlines()[0])["settings"]["limits"] == "2000 nodes, adjudicated"
    with pytest.raises(SystemExit, match="limits"):  # the same journal without it: other settings
        main(["--journal", str(journal), "--show", "--iterations", "10", "--nodes", "2000"])
