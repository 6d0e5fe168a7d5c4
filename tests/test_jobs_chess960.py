"""Chess960 in batch jobs and reviews, through the jobs API in this process against moto: the request's
`variant` (a bad one a 422 naming it), a PGN's Variant tag against it, FENs only Chess960 allows refused
as standard chess, the queue message, castling king-to-rook in the answers (O-O in their SAN, as
python-chess writes it), and a review's annotated PGN keeping Variant, SetUp and FEN."""

import io
import re

import chess
import chess.pgn
import pytest

from functions.common.jobs.models import JobRequest
from functions.common.jobs.positions import read_positions
from tests.batch_support import START, stack
from tests.test_jobs_api import queued
from tests.test_review import get_pgn, run_queue

START_96 = "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"  # engine.fen.chess960_fen(96)
# White's only mate is queen-side castling, king b1 to rook a1: b1a1, O-O-O#.
CASTLE_MATE = "2rkr3/2p1p3/8/8/8/8/PPP5/RK6 w Q - 0 1"
GAME_960 = "1. Nfe3 Nfe6 2. O-O O-O 3. d4 d5 *"
TAGS_960 = f'[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{START_96}"]\n'
OPERA = "1. e4 e5 2. Nf3 d6 *"


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("c960")) as st:
        yield st


def test_a_pgns_variant_tag_wins_and_the_request_gives_the_rest():
    mixed = f'[Event "standard"]\n\n{OPERA}\n\n{TAGS_960}\n{GAME_960}\n'
    positions, errors = read_positions(JobRequest(pgn=mixed))
    assert errors == [] and [p.chess960 for p in positions] == [False] * 5 + [True] * 7
    assert positions[-1].moves == ("f1e3", "f8e6", "g1h1", "g8h8", "d2d4", "d7d5")  # castling king-to-rook
    untagged = f'[SetUp "1"]\n[FEN "{START_96}"]\n\n{GAME_960}'
    positions, errors = read_positions(JobRequest(pgn=untagged, variant="chess960"))
    assert errors == [] and all(p.chess960 for p in positions)
    # a game tagged standard stays standard in a chess960 request: its castling is e1g1
    positions, errors = read_positions(JobRequest(pgn='[Variant "Standard"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 '
                                                      "4. O-O *", variant="chess960"))
    assert errors == [] and not positions[-1].chess960 and positions[-1].moves[-1] == "e1g1"


@pytest.mark.parametrize("body, field", [
    ({"positions": [START], "variant": "atomic"}, "variant"),
    ({"positions": [START], "variant": "Chess960"}, "variant"),
    ({"pgn": OPERA, "variant": None}, "variant"),
])
def test_a_bad_variant_is_a_422_naming_it(s, body, field):
    status, answer = s.post(body)
    assert status == 422 and answer["errors"][0]["field"] == field, answer
    assert "'standard' or 'chess960'" in answer["errors"][0]["reason"]


@pytest.mark.parametrize("body, field", [
    ({"positions": [START, CASTLE_MATE]}, "positions[1]"),
    ({"positions": [{"fen": START_96, "moves": ["f1e3"]}]}, "positions[0].fen"),
    ({"positions": [{"fen": START_96.replace("KQkq", "HEhe")}], "variant": "standard"}, "positions[0].fen"),
    ({"epd": f"{START}\n{' '.join(CASTLE_MATE.split()[:4])} id \"x\";\n"}, "epd"),
    ({"pgn": f'[SetUp "1"]\n[FEN "{START_96}"]\n\n{GAME_960}'}, "pgn"),
    ({"pgn": f'[SetUp "1"]\n[FEN "{START_96}"]\n\n{GAME_960}', "review": True}, "pgn"),
])
def test_a_fen_only_chess960_allows_sent_as_standard_is_a_422_saying_so(s, body, field):
    queued(s)
    status, answer = s.post(body)
    assert status == 422 and answer["errors"][0]["field"] == field, answer
    assert "Chess960" in answer["errors"][0]["reason"] and "variant chess960" in answer["errors"][0]["reason"]
    assert s.depth() == (0, 0)


def test_chess960_positions_are_queued_with_the_variant_and_answered_king_to_rook(s):
    queued(s)
    status, body = s.post({"positions": [START_96], "variant": "chess960", "depth": 1})
    assert status == 202 and [m.variant for _, m in queued(s)] == ["chess960"]
    status, body = s.post({"positions": [START], "depth": 1})
    assert status == 202 and [m.variant for _, m in queued(s)] == ["standard"]
    status, body = s.post({"positions": [CASTLE_MATE, {"id": "castled", "fen": START_96,
                                                        "moves": ["f1e3", "f8e6", "g1h1"]}],
                           "variant": "chess960", "depth": 3, "multipv": 3, "cache": "off"})
    assert status == 202 and body["total"] == 2, body
    run_queue(s)
    mate, castled = s.results(body["job_id"])
    assert mate.status == castled.status == "done", (mate.error, castled.error)
    a = mate.analysis
    assert (a.variant, a.best_move, a.best_move_san, a.score.mate) == ("chess960", "b1a1", "O-O-O#", 1)
    assert castled.analysis.fen.startswith("bbqnr1kr/pppppppp/4n3/8/8/4N3/PPPPPPPP/BBQNRRK1 b kq")
    for result in (mate, castled):
        for line in result.analysis.lines:  # every line's SAN as python-chess writes it in Chess960
            board = chess.Board(result.analysis.fen, chess960=True)
            assert [board.san_and_push(chess.Move.from_uci(m)) for m in line.pv] == line.pv_san


@pytest.mark.parametrize("pgn, variant, castles", [
    (f'[White "Tagged"]\n{TAGS_960}\n{GAME_960}', "standard", ["g1h1", "g8h8"]),
    (f'[White "Untagged"]\n[SetUp "1"]\n[FEN "{START_96}"]\n\n{GAME_960}', "chess960", ["g1h1", "g8h8"]),
    ('[White "Standard start"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O *', "chess960", ["e1h1", "e8h8"]),
])
def test_a_chess960_review_keeps_variant_setup_and_fen_in_the_annotated_pgn(s, pgn, variant, castles):
    queued(s)
    status, body = s.post({"pgn": pgn, "review": True, "depth": 4, "variant": variant})
    assert status == 202, body
    run_queue(s)
    status, state = s.get(body["job_id"], "limit=200")
    assert status == 200 and state["status"] == "done" and state["games"][0]["judged"] == body["total"] - 1
    assert all(r["analysis"]["variant"] == "chess960" for r in state["results"])
    status, text, _ = get_pgn(s, body["job_id"])
    assert status == 200 and '[Variant "Chess960"]' in text and '[SetUp "1"]' in text, text
    assert re.search(r"\bO-O(?!-)[?!]{0,2}\s\{", text), text  # castling written O-O, its glyph (if judged), comment
    game = chess.pgn.read_game(io.StringIO(text))
    assert game.errors == [] and game.board().chess960
    assert game.board().chess960_pos() == (518 if "Standard" in pgn else 96)
    moves = [m.uci() for m in game.mainline_moves()]
    assert len(moves) == body["total"] - 1 and [m for m in moves if m in castles] == castles
