"""Game review: engine/review.py's judgements and accuracy, the annotated PGN read back by python-chess
with every eval and NAG, reviews through the jobs API (summaries, the PGN route, errors, a repeated
review answered from the cache), and `kibitz review` end to end on a 40-move game."""

import io
import json
import os
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import chess
import chess.pgn
import pytest

from engine import wdl
from engine.result import Score
from engine.review import JUDGEMENTS, PositionEval, judgement, move_accuracy, review_game
from kibitz.apigateway import proxy_event
from kibitz.eventsource import sqs_event
from tests import jobs_cases
from tests.batch_support import stack
from tests.conftest import ROOT

FISCHER = ROOT / "benchmarks" / "data" / "fischer_spassky_1972_game6.pgn"  # 40 moves

SHILLING = json.loads(jobs_cases.load_event("jobs-post-review.json")["body"])["pgn"]  # 5. Nxf7?? is the blunder
NAG_OF = {6: "inaccuracy", 2: "mistake", 4: "blunder"}


# --- engine/review.py ------------------------------------------------------------------------------


def ev(side, cp, best="a2a3", material=40):
    return PositionEval(side=side, score=Score(cp=cp), pv=(best,), material=material)


def test_judgements_follow_lichess_thresholds_in_points_of_expected_score():
    assert [name for name, _ in JUDGEMENTS] == ["blunder", "mistake", "inaccuracy"]
    assert judgement(4.99) is None and judgement(5) == "inaccuracy" and judgement(10) == "mistake"
    assert judgement(15) == "blunder" and judgement(60) == "blunder"
    assert move_accuracy(60, 60) == 100 and move_accuracy(60, 70) == 100
    assert move_accuracy(60, 50) < move_accuracy(60, 55) < 100 and move_accuracy(100, 0) == 0


def test_review_game_judges_by_the_drop_and_never_marks_the_best_move():
    # White plays e2e4 (the best), Black d7d5 (not best: +0.3 -> +3.0 for White), White e4d5 (not best, small loss)
    evals = [ev("white", 30, "e2e4"), ev("black", -30, "e7e5"), ev("white", 300, "e4d5"), ev("black", -290)]
    review = review_game("white", ["e2e4", "d7d5", "e4d5"], evals)
    first, second, third = review.moves
    assert (first.judgement, first.drop, first.accuracy) == (None, 0.0, 100.0)
    assert second.side == "black" and second.judgement == judgement(second.drop) and second.drop >= 15
    assert second.cp_loss == 270 and second.judgement == "blunder"
    assert third.move == third.best and third.judgement is None  # the best move, whatever its evals say
    assert review.sides["black"].counts == {"inaccuracy": 0, "mistake": 0, "blunder": 1}
    assert review.sides["white"].accuracy == 100.0 and review.sides["white"].acpl == 0
    assert review.sides["black"].accuracy < 60 and review.sides["black"].acpl == 270
    assert len(review.win_chances) == 4 and review.win_chances[2] > review.win_chances[1]


def test_moves_next_to_a_missing_analysis_are_not_judged():
    evals = [ev("white", 30), None, ev("white", 500), ev("black", -500)]
    review = review_game("white", ["e2e4", "e7e5", "g1f3"], evals)
    assert [m.judgement for m in review.moves] == [None, None, None]
    assert [m.accuracy is None for m in review.moves] == [True, True, False]
    assert review.sides["black"].accuracy is None and review.win_chances[1] is None
    with pytest.raises(ValueError, match="3 moves need 4"):
        review_game("white", ["e2e4", "e7e5", "g1f3"], evals[:3])


# --- the annotated PGN, read back by python-chess -------------------------------------------------


def white_percent(pov, board):
    """White's expected score in percent from a python-chess eval, as engine/review.py computes it."""
    s = pov.white()
    if s.is_mate():
        return 100.0 if s > chess.engine.Cp(0) else 0.0
    return wdl.expected(*wdl.wdl(Score(cp=s.score()), wdl.material(board.fen())))


def read_annotated(text, games=1):
    """python-chess's reading of the annotated PGN: every move has its eval, NAGs only ?!, ?, ??, and each
    NAG is the judgement the evals in the PGN give. Returns [(game, [(node, judgement from the evals)])]."""
    handle = io.StringIO(text)
    out = []
    for _ in range(games):
        game = chess.pgn.read_game(handle)
        assert game is not None and not game.errors, game and game.errors
        assert game.eval() is not None  # the start position's, in the comment before the first move
        for tag in ("WhiteAccuracy", "BlackAccuracy", "WhiteACPL", "BlackACPL", "Annotator"):
            assert tag in game.headers
        board, previous, judged = game.board(), game.eval(), []
        for node in game.mainline():
            assert node.eval() is not None, f"no eval after {node.move}"
            before = white_percent(previous, board)
            mover = board.turn
            board.push(node.move)
            after = white_percent(node.eval(), board)
            drop = max(0.0, (before - after) if mover == chess.WHITE else (after - before))
            assert node.nags <= set(NAG_OF), node.nags
            if node.nags:
                (nag,) = node.nags
                assert NAG_OF[nag] == judgement(drop), (node.move, nag, drop)
                assert node.parent.variations[1:] and "was best" in node.comment  # the better line, what it was
            judged.append((node, judgement(drop)))
            previous = node.eval()
        out.append((game, judged))
    assert chess.pgn.read_game(handle) is None
    return out


# --- reviews through the jobs API ------------------------------------------------------------------


def run_queue(s):
    """BatchFunction in this process on every message of the queue (what the pollers would do)."""
    while True:
        got = s.sqs.receive_message(QueueUrl=s.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"],
                                    MessageAttributeNames=["All"]).get("Messages", [])
        if not got:
            return
        assert s.invoke_batch(sqs_event(got, s.queue_arn, "us-east-1")) == {"batchItemFailures": []}
        for m in got:
            s.sqs.delete_message(QueueUrl=s.queue_url, ReceiptHandle=m["ReceiptHandle"])


def get_pgn(s, job_id):
    response = s.call(proxy_event("GET", f"/jobs/{job_id}/pgn", "", resource="/jobs/{job_id}/pgn",
                                  path_parameters={"job_id": job_id}))
    body = response["body"]
    return response["statusCode"], (body if response["statusCode"] == 200 else json.loads(body)), response


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("review")) as st:
        yield st


def test_a_review_marks_the_known_blunder_and_reads_back_in_python_chess(s, monkeypatch):
    monkeypatch.setenv("KIBITZ_CACHE_TABLE", s.aws.resources["AnalysisCacheTable"]["Ref"])
    pgn = SHILLING + "\n" + SHILLING.replace("Greed", "Greed again")  # two games
    status, body = s.post({"pgn": pgn, "review": True, "depth": 8})
    assert status == 202 and body["total"] == 30
    job_id = body["job_id"]
    status, early, _ = get_pgn(s, job_id)
    assert status == 409 and "is queued" in early["errors"][0]["reason"]
    status, state = s.get(job_id)
    assert state["review"] is True and state["games"] is None  # not finished
    run_queue(s)
    status, state = s.get(job_id, "limit=200")
    assert status == 200 and state["status"] == "done" and len(state["games"]) == 2
    game = state["games"][0]
    assert (game["white"], game["black"], game["result"], game["plies"], game["judged"]) == \
        ("Greed", "Trap", "0-1", 14, 14)
    assert game["judgements"]["white"]["blunder"] >= 1
    at_ply_8 = [f for f in game["flagged"] if f["ply"] == 8]
    assert len(at_ply_8) == 1 and (at_ply_8[0]["move"], at_ply_8[0]["judgement"]) == ("5. Nxf7??", "blunder")
    assert game["accuracy"]["white"] < game["accuracy"]["black"] and game["acpl"]["white"] > game["acpl"]["black"]
    assert len(game["win_chances"]) == 15 and game["win_chances"][-1] == 0.0  # Black mated White
    status, text, response = get_pgn(s, job_id)
    assert status == 200 and response["multiValueHeaders"]["Content-Type"][0].startswith("text/plain")
    (first, judged), (second, _) = read_annotated(text, games=2)
    assert first.headers["White"] == "Greed" and second.headers["White"] == "Greed again"
    nxf7 = judged[8][0]
    assert nxf7.san() == "Nxf7" and nxf7.nags == {chess.pgn.NAG_BLUNDER}
    # Both ways: a move without a NAG whose evals say it lost 5 points or more was the search's own move.
    best = {r["index"]: r["analysis"]["best_move"] for r in state["results"]}
    for node, from_evals in judged:
        if not node.nags and from_evals is not None:
            assert best[node.ply() - 1] == node.move.uci(), (node.move, from_evals)
    # A repeated review answers every position from the cache (but the final mate, which needs no search).
    status, again = s.post({"pgn": SHILLING, "review": True, "depth": 8})
    run_queue(s)
    results = s.results(again["job_id"])
    assert [r.analysis.cached for r in results] == [True] * 14 + [False]
    status, repeat, _ = get_pgn(s, again["job_id"])
    assert repeat == text.split("\n\n[Event")[0].rstrip("\n") + "\n"  # the same annotations


def test_review_errors(s):
    status, body = s.post({"pgn": "1. e4 e5 2. Nf3 Nc6 3. Bb5 Bb4 4. Kxe8 *", "review": True})
    assert status == 422 and body["errors"][0]["field"] == "pgn"
    assert "game 1: move 4. Kxe8" in body["errors"][0]["reason"]
    status, body = s.post({"epd": "8/8/8/8/8/5k2/8/4K2R w K - bm Rh3;", "review": True})
    assert status == 422 and body["errors"][0]["field"] == "review"
    status, body = s.post({"pgn": SHILLING, "review": "yes"})
    assert status == 422 and body["errors"][0]["field"] == "review"
    status, body, _ = get_pgn(s, "0badf00d-0000-4000-8000-000000000404")
    assert status == 404 and body["errors"][0]["field"] == "job_id"


# --- kibitz review ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_kibitz_review_of_a_40_move_game_at_300_ms(tmp_path):
    """The issue's test: a 40-move game at 300 ms a move, locally, read back by python-chess."""
    game = FISCHER
    out, graphs = tmp_path / "annotated.pgn", tmp_path / "graphs"
    env = {k: v for k, v in os.environ.items() if k not in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL",
                                                              "KIBITZ_URL")}
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(game), "--movetime-ms", "300", "-o",
                           str(out), "--graph", str(graphs)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"game 1: Fischer, Robert James - Spassky, Boris V \(1-0\), 81 plies", proc.stdout)
    assert re.search(r"White +\d+\.\d +\d+ ", proc.stdout) and re.search(r"Black +\d+\.\d +\d+ ", proc.stdout)
    assert "82/82" in proc.stderr  # the progress bar got to the end (81 plies, 82 positions)
    ((read, judged),) = read_annotated(out.read_text())
    assert len(judged) == 81 and read.headers["Result"] == "1-0"
    svg = ET.parse(graphs / "game-1.svg").getroot()
    assert svg.tag.endswith("svg") and svg.find("{http://www.w3.org/2000/svg}polygon") is not None
    assert len([c for c in svg.iter("{http://www.w3.org/2000/svg}circle")]) >= 3  # the legend's, and any flags


def test_kibitz_review_explains_a_bad_pgn(tmp_path):
    bad = tmp_path / "bad.pgn"
    bad.write_text("1. e4 e5 2. Ke3 *\n")
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(bad), "--url", "http://127.0.0.1:9"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "cannot reach http://127.0.0.1:9" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(tmp_path / "x.txt")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "expected a .pgn file" in proc.stderr
    assert pathlib.Path(bad).exists()
