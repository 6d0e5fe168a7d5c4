"""Puzzles from a reviewed game (engine/puzzles.py, issue 68 item 3), on real games searched at fixed nodes
on one thread (deterministic): the Blackburne Shilling gambit's 7. Be2?? had one saving move, Qe2 (the only
other move walks into Nf3#); Fischer-Spassky 1972 game 6, a quiet game, gives none."""

import csv

import pytest

from engine.pgn import read_games
from engine.puzzles import find_puzzles
from engine.review import review_game
from kibitz.clients.review import _opening_tag, puzzle_lines, write_puzzles_csv
from tests.test_review_reasons import FISCHER, NODES, SHILLING, evals_of


def puzzles_of(text):
    (game,) = read_games(text)
    evals = evals_of(game)
    review = review_game("white", game.moves, evals, start_fen=game.start_fen)
    return find_puzzles(game.start_fen, game.moves, evals, review)


def test_the_shilling_game_gives_its_only_defence():
    (p,) = puzzles_of(SHILLING)
    assert (p.ply, p.played, p.played_san) == (12, "c4e2", "Be2")
    assert p.fen == "r1b1kbnr/pppp1Npp/8/8/2Bnq3/8/PPPP1P1P/RNBQKR2 w Qkq - 0 7"
    assert p.solution == ("d1e2",) and p.solution_san == ("Qe2",)
    assert "defensiveMove" in p.themes
    assert (p.before_move, p.before_fen.split()[1]) == ("g2e4", "b")  # 6... Qxe4+, Black to move before it


def test_a_quiet_game_gives_none():
    assert puzzles_of(FISCHER) == []


def test_the_csv_is_lichess_s_layout(tmp_path):
    (p,) = puzzles_of(SHILLING)
    game = {"game": 1, "opening": {"eco": "C50", "name": "Italian Game: Blackburne-Kostić Gambit"},
            "puzzles": [{"ply": p.ply, "fen": p.fen, "solution": list(p.solution), "themes": list(p.themes),
                         "before_fen": p.before_fen, "before_move": p.before_move, "played_san": p.played_san,
                         "solution_san": list(p.solution_san)}]}
    path = tmp_path / "puzzles.csv"
    write_puzzles_csv(path, [game])
    (row,) = list(csv.DictReader(path.open()))
    assert list(row) == ["PuzzleId", "FEN", "Moves", "Rating", "RatingDeviation", "Popularity", "NbPlays",
                         "Themes", "GameUrl", "OpeningTags"]
    assert row["FEN"] == p.before_fen and row["Moves"] == "g2e4 d1e2"
    assert row["Rating"] == row["NbPlays"] == row["GameUrl"] == ""
    assert row["OpeningTags"] == _opening_tag("Italian Game: Blackburne-Kostić Gambit") == \
        "Italian_Game Italian_Game_Blackburne_Kostić_Gambit"
    assert "solution Qe2" in "\n".join(puzzle_lines(game))


def test_kibitz_review_prints_and_writes_the_shilling_puzzle(tmp_path):
    """End to end, locally: the jobs path's GET /jobs summary carries the puzzle, the CLI prints and writes it."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    game, table = tmp_path / "shilling.pgn", tmp_path / "puzzles.csv"
    game.write_text(SHILLING)
    env = {k: v for k, v in os.environ.items() if k not in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL",
                                                              "KIBITZ_URL")}
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(game), "--nodes", "40000", "--cache",
                           "off", "-q", "-o", str(tmp_path / "out.pgn"), "--puzzles", "--puzzles-csv", str(table)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "game 1: 1 puzzle" in proc.stdout and "played Be2, solution Qe2" in proc.stdout, proc.stdout
    (row,) = list(csv.DictReader(table.open()))
    assert row["Moves"] == "g2e4 d1e2" and "defensiveMove" in row["Themes"]


# --- found once, when the review is complete (functions/common/jobs/review_report.finish_review) -------------


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    from tests.batch_support import stack

    with stack(tmp_path_factory.mktemp("puzzles")) as st:
        yield st


def test_a_review_s_puzzles_are_found_once_and_a_get_does_not_search(s, monkeypatch):
    """The record that completes the review stores its puzzles; GET /jobs/{id} serves those: with the puzzle
    finder made to raise after completion it still answers the same puzzle, the one found directly above."""
    from functions.common.jobs import review_report, worker
    from tests.test_review import run_queue

    finishes = []
    real_finish = worker.finish_review
    monkeypatch.setattr(worker, "finish_review", lambda *a: finishes.append(real_finish(*a)) or finishes[-1])
    status, body = s.post({"pgn": SHILLING, "review": True, "nodes": NODES, "cache": "off"})
    assert status == 202
    run_queue(s)
    assert [f for f in finishes if f] == ["stored"]  # one record of 15 completed the review, and stored them
    monkeypatch.setattr(review_report, "find_puzzles", lambda *a, **k: pytest.fail("a GET searched for puzzles"))
    status, state = s.get(body["job_id"])
    assert status == 200 and state["status"] == "done"
    (p,) = state["games"][0]["puzzles"]
    (direct,) = puzzles_of(SHILLING)  # what GET /jobs computed before: the same search on the same evals
    assert (p["ply"], p["fen"], p["solution"], p["themes"], p["played"], p["before_fen"], p["before_move"]) == \
        (direct.ply, direct.fen, list(direct.solution), list(direct.themes), direct.played, direct.before_fen,
         direct.before_move)
    assert s.get(body["job_id"])[1]["games"] == state["games"]  # read again, not found again


def test_a_complete_review_is_running_until_its_puzzles_are_stored(s, monkeypatch):
    from functions.common.jobs import review_report, worker
    from tests.test_review import run_queue

    monkeypatch.setattr(worker, "finish_review", lambda *a: None)  # the finishing record died before it
    status, body = s.post({"pgn": SHILLING, "review": True, "nodes": NODES, "cache": "off"})
    run_queue(s)
    job_id = body["job_id"]
    status, state = s.get(job_id)
    assert (state["status"], state["done"], state["total"], state["games"]) == ("running", 15, 15, None)
    item = s.store.count(job_id, 14, "done")  # its redelivery counts it again, and finishes the review
    assert review_report.finish_review(s.store, job_id, item) == "stored"
    assert review_report.finish_review(s.store, job_id, item) is None  # stored: nothing more to do
    assert s.store.put_puzzles(job_id, "[]") is False  # and never written twice
    state = s.get(job_id)[1]
    assert state["status"] == "done" and [p["played_san"] for p in state["games"][0]["puzzles"]] == ["Be2"]


def test_a_bug_in_the_puzzle_finder_leaves_a_done_review_without_puzzles(s, monkeypatch):
    from functions.common.jobs import review_report
    from tests.test_review import run_queue

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(review_report, "find_puzzles", broken)
    status, body = s.post({"pgn": SHILLING, "review": True, "nodes": NODES, "cache": "off"})
    run_queue(s)  # no record comes back for it: searching again would fail again
    status, state = s.get(body["job_id"])
    assert state["status"] == "done" and state["games"][0]["puzzles"] == [] and state["games"][0]["flagged"]
