"""A review of a real game through the jobs API (issue 68's "done when"): a Lichess database game (CC0,
tests/data/SOURCES.md section 4), lasha-fero - german11, 2016, whose 20. Qb3? let 20. Nc6+ go (a fork of
king and queen). Submitted with POST /jobs, analysed by BatchFunction in this process, read with GET /jobs/{id}
and GET /jobs/{id}/pgn: the opening's ECO and name, a reason with a sentence on every flagged move, a puzzle
whose solution starts with the engine's best move, and the annotated PGN carrying [ECO], [Opening] and the
reasons as comments. Fixed nodes on one thread: the marks and the puzzle do not hang on timing (40 positions
at 40,000 nodes and one 200,000-node puzzle search: about 10 s on a loaded 2-core machine)."""

import io

import chess.pgn
import pytest

from tests.batch_support import stack
from tests.conftest import ROOT
from tests.test_review import get_pgn, run_queue

GAME = (ROOT / "tests" / "data" / "lichess_2016-05_glwLv95h.pgn").read_text()  # tests/data, whatever KIBITZ_DATA says
NODES = 40_000


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("lichess")) as s:
        status, body = s.post({"pgn": GAME, "review": True, "nodes": NODES, "threads": 1, "cache": "off"})
        assert status == 202 and body["total"] == 40, body
        run_queue(s)
        status, state = s.get(body["job_id"], "limit=100")
        assert status == 200 and state["status"] == "done", state
        status, pgn, _ = get_pgn(s, body["job_id"])
        assert status == 200, pgn
        yield state, pgn


def test_the_game_is_named_by_its_opening(reviewed):
    state, _ = reviewed
    (game,) = state["games"]
    assert (game["white"], game["black"], game["result"], game["plies"]) == ("lasha-fero", "german11", "1-0", 39)
    assert game["opening"] == {"eco": "B00", "name": "Owen Defense"}


def test_every_flagged_move_has_a_reason_with_a_sentence(reviewed):
    state, _ = reviewed
    flagged = state["games"][0]["flagged"]
    assert flagged and {f["move"][-2:].lstrip("0123456789. ") for f in flagged} <= {"?!", "?", "??"}
    assert any(f["ply"] == 38 and f["move"].startswith("20. Qb3") for f in flagged)
    for f in flagged:
        reason = f["reason"]
        assert reason is not None, f
        assert reason["side"] == ("white" if f["ply"] % 2 == 0 else "black"), f
        text = reason["text"]
        assert text[0].isupper() and text.endswith(".") and len(text.split()) >= 3, f


def test_the_missed_fork_is_a_puzzle_starting_with_the_engine_s_best_move(reviewed):
    state, _ = reviewed
    game = state["games"][0]
    best = {r["index"]: r["analysis"]["best_move"] for r in state["results"]}
    assert game["puzzles"]
    for p in game["puzzles"]:
        assert p["solution"][0] == best[p["ply"]], p  # the review's own search at that position
        assert p["played"] != p["solution"][0] and len(p["solution"]) % 2 == 1
    fork = next(p for p in game["puzzles"] if p["ply"] == 38)
    assert (fork["played_san"], fork["solution_san"][0]) == ("Qb3", "Nc6+")
    assert fork["solution"][0] == "b4c6" and "crushing" in fork["themes"]


def test_the_annotated_pgn_carries_the_opening_and_the_reasons(reviewed):
    state, pgn = reviewed
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert not read.errors
    assert read.headers["ECO"] == "B00" and read.headers["Opening"] == "Owen Defense"
    nodes = list(read.mainline())
    assert len(nodes) == 39
    for f in state["games"][0]["flagged"]:
        comment = " ".join(nodes[f["ply"]].comment.split())
        # the mark's word, Lichess's "X was best", then the reason (its "X was better: ..." said as "X was best:
        # ...": engine/annotated_pgn.py)
        sentence = " ".join(f["reason"]["text"].split()).replace(" was better: ", " was best: ", 1)
        assert comment.startswith("[%eval ") and f"] {f['comment']}. " in comment, (f, comment)
        assert comment.endswith(sentence), (f, comment)
