"""benchmarks/match.py --journal: a match killed part way resumes with the pairs it had, and only them."""

import signal
import subprocess
import sys
import time

import chess
import chess.pgn
import pytest

from benchmarks.common import ROOT
from benchmarks.match import Limits, Match, Player, openings


def players():
    a = Player("Kibitz", "python -m engine.uci", {"NullMove": 1}, cwd=ROOT)
    b = Player("Kibitz", "python -m engine.uci", {"NullMove": 0}, cwd=ROOT)
    return a, b


def game(result, moves=("e2e4", "e7e5")):
    g = chess.pgn.Game()
    node = g
    for m in moves:
        node = node.add_variation(chess.Move.from_uci(m))
    g.headers["Result"] = result
    return g


def pending(match):
    return sorted(i for i, _ in list(match.jobs.queue))


def test_a_restart_counts_the_journal_and_plays_only_the_rest(tmp_path):
    journal = tmp_path / "m.jsonl"
    first = Match(*players(), Limits("10+0.1"), 8, journal=journal)
    assert pending(first) == [0, 1, 2, 3]
    first.add_pair(1.0, 0.5, game("1-0"), game("1/2-1/2"), [], 2)
    first.add_pair(0.0, 0.0, game("0-1"), game("1-0"), ["B lost on time at x"], 0)

    again = Match(*players(), Limits("10+0.1"), 8, journal=journal)
    assert again.resumed == 2
    assert pending(again) == [1, 3]
    assert again.scores == [1.0, 0.5, 0.0, 0.0]
    assert again.problems == ["B lost on time at x"]
    assert again.penta.counts == [1, 0, 0, 1, 0]
    assert [g.headers["Result"] for g in again.games] == ["1-0", "1/2-1/2", "0-1", "1-0"]
    assert [m.uci() for m in again.games[0].mainline_moves()] == ["e2e4", "e7e5"]
    # The pairs keep their openings: pair i is the book's i-th line whatever ran before.
    book = openings(7)
    assert dict(again.jobs.queue) == {1: book[1], 3: book[3]}


def test_a_pair_torn_by_a_kill_is_played_again(tmp_path):
    journal = tmp_path / "m.jsonl"
    first = Match(*players(), Limits(nodes=1000), 6, journal=journal)
    first.add_pair(0.5, 0.5, game("1/2-1/2"), game("1/2-1/2"), [], 1)
    with open(journal, "a") as f:
        f.write('{"pair": 0, "scores": [1.0, ')
    again = Match(*players(), Limits(nodes=1000), 6, journal=journal)
    assert again.resumed == 1
    assert pending(again) == [0, 2]
    # The torn line is cut, so the pairs played after the restart are read back by the next one.
    again.add_pair(1.0, 0.0, game("1-0"), game("1-0"), [], 0)
    third = Match(*players(), Limits(nodes=1000), 6, journal=journal)
    assert third.resumed == 2 and pending(third) == [2]


def test_a_kept_gzipped_journal_is_read_by_every_tool_and_resumes(tmp_path):
    """benchmarks/journals/ holds its journals gzipped (issue 67): a match resumes one, appending gzip members, a
    torn member's line is played again, and the readers (pairs, clock use, the WDL fit) read it as they read a
    plain one."""
    import gzip

    from benchmarks import pairs
    from training.journals import read_journal

    plain, packed = tmp_path / "m.jsonl", tmp_path / "m.jsonl.gz"
    first = Match(*players(), Limits(nodes=1000), 6, journal=plain)
    first.add_pair(0.5, 0.5, game("1/2-1/2"), game("1/2-1/2"), [], 1)
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_journal(packed) == read_journal(plain) and pairs.load(packed) == pairs.load(plain)
    again = Match(*players(), Limits(nodes=1000), 6, journal=packed)
    assert again.resumed == 1 and pending(again) == [0, 2]
    again.add_pair(1.0, 0.0, game("1-0"), game("1-0"), [], 0)
    with gzip.open(packed, "at") as f:
        f.write('{"pair": 2, "scores": [1.0, ')
    third = Match(*players(), Limits(nodes=1000), 6, journal=packed)
    assert third.resumed == 2 and pending(third) == [2]
    assert [p["pair"] for p in read_journal(packed)[1]] == [1, 0]


def test_the_kept_journals_are_compressed():
    kept = sorted((ROOT / "benchmarks" / "journals").iterdir())
    assert kept and all(p.name.endswith(".jsonl.gz") for p in kept if p.name != "README.md")


def test_other_settings_are_refused_naming_what_differs(tmp_path):
    journal = tmp_path / "m.jsonl"
    Match(*players(), Limits("10+0.1"), 8, journal=journal)
    with pytest.raises(SystemExit, match=r"\(limits differ\)"):
        Match(*players(), Limits("5+0.05"), 8, journal=journal)
    a, b = players()
    b.options = {"NullMove": 1}
    with pytest.raises(SystemExit, match=r"\(b differ\)"):
        Match(a, b, Limits("10+0.1"), 8, journal=journal)


def test_a_journal_that_already_decides_the_sprt_plays_nothing(tmp_path):
    journal = tmp_path / "m.jsonl"
    first = Match(*players(), Limits(nodes=1000), 400, sprt=(0, 10), journal=journal)
    for i in range(60):
        first.add_pair(1.0, 1.0, game("1-0"), game("0-1"), [], i)
    assert first.verdict == "H1"
    again = Match(*players(), Limits(nodes=1000), 400, sprt=(0, 10), journal=journal)
    assert again.verdict == "H1"
    assert again.run() is again  # returns at once: no engine is started
    assert len(again.scores) == len(first.scores)


def test_chess960_matches_start_from_the_960_starts_and_say_so(tmp_path):
    starts = openings(7, chess960=True)
    assert len(set(starts)) == 960
    boards = [chess.Board(f, chess960=True) for f in starts[:20]]
    assert all(b.is_valid() and b.castling_rights for b in boards)
    assert any(b.king(chess.WHITE) != chess.E1 for b in boards)  # not the standard start dressed up
    assert Limits("10+0.1", chess960=True).text() == "10+0.1, Chess960"
    # a journal of standard games does not resume as a 960 match
    journal = tmp_path / "m.jsonl"
    Match(*players(), Limits("10+0.1"), 8, journal=journal)
    with pytest.raises(SystemExit, match="limits"):
        Match(*players(), Limits("10+0.1", chess960=True), 8, journal=journal)


def test_kill_int_stops_a_match_started_in_the_background(tmp_path):
    """A shell starts `match.py ... &` with SIGINT ignored; `kill -INT` must still finish the pairs under
    way and stop, leaving the journal whole (it once did nothing, and the match ran on)."""
    journal = tmp_path / "m.jsonl"
    cmd = [sys.executable, "-m", "benchmarks.match", "self", "--nodes", "300", "--games", "200",
           "--concurrency", "1", "--journal", str(journal)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and (not journal.exists() or len(journal.read_text().splitlines()) < 2):
            time.sleep(0.2)
        assert len(journal.read_text().splitlines()) >= 2, "no pair was played"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "interrupted: finishing the pairs under way" in err
    pairs = len(journal.read_text().splitlines()) - 1
    assert 1 <= pairs < 100
    assert f"games {2 * pairs}:" in err and "A vs B:" in out
