"""Jobs read from S3 in Chess960 (issues 34 and 35): the job's `variant` reaches every chunk, a PGN game's own
Variant tag wins, castling comes back king-to-rook, and a FEN legal only as 960 in a standard job fails by name."""

import io
import json

import chess
import chess.pgn
import pytest

from tests.batch_support import s3_stack
from tests.test_s3_jobs import output, put, run_pollers, submit

START_960 = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"  # a 960 start: king f1, rooks e1 g1
GAME_960 = ('[Event "960"]\n[Variant "Chess960"]\n[SetUp "1"]\n[FEN "' + START_960 + '"]\n\n'
            "1. O-O O-O 2. e4 e5 *\n")  # castling at once: king f1 to g1, rook g1 to f1


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with s3_stack(tmp_path_factory.mktemp("s3c960")) as st:
        yield st


def run(s, key, data, fmt, **options):
    status, body = submit(s, put(s, key, data), fmt, **options)
    assert status == 202, body
    run_pollers(s, body["job_id"])
    _, lines, pgn = output(s, body["job_id"])
    return lines, pgn


def test_a_tagged_960_game_in_a_standard_job_is_read_as_960_and_castles_king_to_rook(s):
    lines, pgn = run(s, "g960.pgn", GAME_960, "pgn")
    assert [x["status"] for x in lines] == ["done"] * 5
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game.headers["Variant"].lower().startswith("chess960") and game.board().chess960
    board = game.end().board()  # both sides castled: python-chess replays the annotated game as 960
    assert board.king(chess.WHITE) == chess.G1 and board.piece_at(chess.F1) == chess.Piece.from_symbol("R")
    for x in lines:
        b = chess.Board(x["fen"], chess960=True)
        assert chess.Move.from_uci(x["analysis"]["best_move"]) in b.legal_moves


def test_960_positions_need_the_variant(s):
    epd = f"{' '.join(START_960.split()[:4])} id \"start\";\n"
    status, body = submit(s, put(s, "p960.epd", epd), "epd")
    assert status == 422 and "variant chess960" in json.dumps(body)  # sent as standard: named at submission
    lines, _ = run(s, "p960b.epd", epd, "epd", variant="chess960")
    assert lines[0]["status"] == "done" and lines[0]["analysis"]["variant"] == "chess960"
    # a later line legal only as 960 in a standard job fails by name; the standard lines are analysed
    mixed = "4k3/8/8/8/8/8/8/4K3 w - - id \"bare\";\n" + epd
    lines, _ = run(s, "mixed.epd", mixed, "epd")
    assert [x["status"] for x in lines] == ["done", "failed"] and "chess960" in lines[1]["error"].lower()


def test_an_epd_job_in_the_body_reads_960_castling_with_the_variant():
    from functions.common.jobs.positions import from_epd

    epd = f"{' '.join(START_960.split()[:4])} id \"start\";\n"
    positions, errors = from_epd(epd, chess960=True)
    assert not errors and positions[0].chess960 and positions[0].id == "start"
    positions, errors = from_epd(epd)
    assert not positions and "chess960" in errors[0]["reason"].lower()
