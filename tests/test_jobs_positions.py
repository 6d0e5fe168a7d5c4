"""A job's positions: the PGN reader (against python-chess, the oracle), EPD text, lists, and the
errors that name each bad position. No AWS here."""

import random

import chess
import chess.pgn
import pytest

from engine.pgn import PgnError, movetext, read_games
from functions.common.api.models import SearchLimits
from functions.common.jobs.limits import MAX_POSITIONS
from functions.common.jobs.models import JobRequest
from functions.common.jobs.positions import Position, read_positions
from functions.common.jobs.queue import PositionMessage, message_body, read_message
from tests.jobs_cases import JOB

START = chess.STARTING_FEN

ANNOTATED = r"""
% an escape line, ignored
[Event "F/S Return Match"]
[Site "Belgrade, Serbia JUG"]
[White "Fischer, Robert J."]
[Black "Spassky, Boris V."]
[Annotator "someone \"quoted\""]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 {This opening is called the Ruy Lopez.} 3... a6
4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7
11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5
Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6
23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 27. Qe3 Qg5 28. Qxg5
hxg5 29. b3 Ke6 30. a3 Kd6 31. axb4 cxb4 32. Ra5 Nd5 33. f3 Bc8 34. Kf2 Bf5
35. Ra7 g6 36. Ra6+ Kc5 37. Ke1 Nf4 38. g3 Nxh3 39. Kd2 Kb5 40. Rd6 Kc5 41. Ra6
Nf2 42. g4 Bd3 43. Re6 1/2-1/2

[Event "Variations, NAGs, promotions and disambiguation"]
[White "A"]
[Black "B"]
[FEN "4k3/1P6/8/8/8/8/1p6/R3K2R w KQ - 0 40"]
[SetUp "1"]

40. b8=Q+ $1 (40. Ra8+ {a check first} Kd7) 40... Kf7 41. O-O+ ; a comment to the end of the line
Kg7 42. Qb3 (42. Qb4 Kh7) 42... b1=N!? 43. Qc2 Nc3 44. Rae1 *
"""


def python_chess_games(text):
    import io

    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    return games


def test_annotated_pgn_reads_as_python_chess_reads_it():
    ours = list(read_games(ANNOTATED))
    theirs = python_chess_games(ANNOTATED)
    assert len(ours) == len(theirs) == 2
    for g, h in zip(ours, theirs, strict=True):
        assert g.start_fen == h.board().fen()
        assert g.moves == [m.uci() for m in h.mainline_moves()]
    assert ours[0].tags["White"] == "Fischer, Robert J." and ours[0].tags["Annotator"] == 'someone "quoted"'
    assert ours[0].result == "1/2-1/2" and ours[1].result == "*"
    assert ours[1].moves == ["b7b8q", "e8f7", "e1g1", "f7g7", "b8b3", "b2b1n", "b3c2", "b1c3", "a1e1"]


@pytest.mark.parametrize("seed", range(6))
def test_random_games_with_comments_and_variations_match_python_chess(seed):
    """Random legal games exported by python-chess (with comments, NAGs, variations) read back the same."""
    rng = random.Random(seed)
    text = []
    expected = []
    for _ in range(3):
        board = chess.Board()
        game = chess.pgn.Game()
        node = game
        while not board.is_game_over() and board.ply() < 160:
            moves = list(board.legal_moves)
            move = rng.choice(moves)
            if rng.random() < 0.15 and len(moves) > 1:
                node.add_variation(rng.choice([m for m in moves if m != move]), comment="a sideline")
            node = node.add_main_variation(move, comment="hmm" if rng.random() < 0.1 else "",
                                           nags={rng.choice([1, 2, 3, 4])} if rng.random() < 0.1 else set())
            board.push(move)
        game.headers["Result"] = board.result(claim_draw=False)
        expected.append([m.uci() for m in game.mainline_moves()])
        text.append(str(game))
    ours = list(read_games("\n\n".join(text)))
    assert [g.moves for g in ours] == expected


def test_san_reading_knows_disambiguation_and_castling():
    from engine.board import Board
    from engine.moves import to_uci
    from engine.san import SanError, parse_san

    def read(board, text):
        return to_uci(parse_san(board, text))

    board = Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert read(board, "O-O") == "e1g1" and read(board, "0-0-0+") == "e1c1"
    board = Board("4k3/8/8/8/8/8/4K3/R6R w - - 0 1")
    assert read(board, "Rad1") == "a1d1" and read(board, "Rhd1") == "h1d1"
    with pytest.raises(SanError, match="ambiguous"):
        parse_san(board, "Rd1")
    board = Board("4k3/8/8/R7/8/8/4K3/R7 w - - 0 1")
    assert read(board, "R1a3") == "a1a3" and read(board, "R5a3") == "a5a3"
    with pytest.raises(SanError, match="ambiguous"):
        parse_san(board, "Ra3")
    board = Board("7k/8/8/8/8/8/8/R6K w - - 0 1")
    with pytest.raises(SanError, match="not legal"):
        parse_san(board, "O-O")
    with pytest.raises(SanError, match="not a move in SAN"):
        parse_san(board, "Ra1-a8")


def test_movetext_numbers_the_moves_from_the_position():
    assert movetext("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["e4", "e5", "Nf3"]) == \
        "1. e4 e5 2. Nf3"
    assert movetext("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3", ["Nf6", "d3", "Be7"]) == \
        "3... Nf6 4. d3 Be7"


@pytest.mark.parametrize("text, words", [
    ("1. e4 e5 2. Nf3 Nf6 3. Bb5 Nf6 1-0", ("game 1", "3... Nf6", "not legal")),
    ('[Event "x"]\n1. e4 *\n\n[Event "y"]\n1. e4 e5 2. Ke3 *', ("game 2", "2. Ke3", "not legal")),
    ("1. e4 {never closed e5", ("comment", "not closed")),
    ("1. e4 (1. d4 d5 2. c4", ("variation", "not closed")),
    ('[Variant "Atomic"]\n1. e4 *', ("Atomic", "not supported")),
    ('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n[SetUp "1"]\n *', ("[FEN] tag", "kings")),
    ("1. e4 -- 2. d4 *", ("null moves",)),
    ("1. e4 e5 2. Kz3 *", ("2. Kz3", "not a move in SAN")),
])
def test_bad_pgn_names_the_game_and_the_move(text, words):
    with pytest.raises(PgnError) as e:
        list(read_games(text))
    for word in words:
        assert word in str(e.value)


def test_a_chess960_game_is_queued_as_chess960():  # more in tests/test_jobs_chess960.py
    from functions.common.jobs.positions import from_pgn

    text = ('[Variant "Chess960"]\n[SetUp "1"]\n[FEN "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"]\n'
            "1. Nfe3 *")
    assert list(read_games(text))[0].chess960
    positions, errors = from_pgn(text)
    assert errors == [] and [(p.moves, p.chess960) for p in positions] == [((), True), (("f1e3",), True)]


def test_every_position_of_every_game_in_order():
    request = JobRequest(pgn=ANNOTATED)
    positions, errors = read_positions(request)
    games = python_chess_games(ANNOTATED)
    assert errors == [] and len(positions) == sum(len(list(g.mainline_moves())) + 1 for g in games)
    assert [p.index for p in positions] == list(range(len(positions)))
    assert positions[0].id == "1.0" and positions[0].moves == () and positions[1].moves == ("e2e4",)
    second = [p for p in positions if p.id.startswith("2.")]
    assert second[0].fen == "4k3/1P6/8/8/8/8/1p6/R3K2R w KQ - 0 40" and second[-1].id == "2.9"
    board = games[1].board()
    for move in games[1].mainline_moves():
        board.push(move)
    assert list(second[-1].moves) == [m.uci() for m in board.move_stack]


def test_a_pgn_over_the_limit_is_refused():
    board, moves = chess.Board(), []
    for _ in range(8):  # a short cycle of knight moves, repeated: 8 plies a round
        for m in ("g1f3", "g8f6", "f3g1", "f6g8"):
            moves.append(board.san(chess.Move.from_uci(m)))
            board.push_uci(m)
    game = " ".join(moves) + " *\n"
    text = "\n".join(game for _ in range(MAX_POSITIONS // 32 + 1))
    positions, errors = read_positions(JobRequest(pgn=text))
    assert positions == [] and errors[0]["field"] == "pgn" and f"the limit is {MAX_POSITIONS}" in errors[0]["reason"]


def test_epd_lines_keep_their_ids_and_name_bad_lines():
    text = ("# wac\n"
            '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";\n'
            "\n"
            "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - -\n"
            "8/8/8/8/8/8/8/8 w - -\n"
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq\n")
    positions, errors = read_positions(JobRequest(epd=text))
    assert [e["field"] for e in errors] == ["epd", "epd"]
    assert errors[0]["reason"].startswith("line 5 (position 2): invalid FEN board field")
    assert errors[1]["reason"].startswith("line 6 (position 3): invalid FEN")
    good, _ = read_positions(JobRequest(epd="\n".join(text.splitlines()[:4])))
    assert [(p.index, p.id) for p in good] == [(0, "WAC.001"), (1, "line 4")]
    assert good[0].fen == "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"
    none, errors = read_positions(JobRequest(epd="# only a comment\n\n"))
    assert none == [] and errors[0]["reason"] == "no position in the text"


def test_list_items_are_named_by_index_and_field():
    request = JobRequest.model_validate({"positions": [
        START, {"id": "a", "fen": START, "moves": "e2e4 e7e5"}, {"fen": START, "moves": ["e2e4", "e2e4"]},
        "8/8/8/8/8/8/8/K6k w - - 99999999999 1", {"id": "x", "fen": "k7/8/8/8/8/8/8/7K w - - 0"}]})
    positions, errors = read_positions(request)
    assert [(p.index, p.id, p.moves) for p in positions] == [(0, "0", ()), (1, "a", ("e2e4", "e7e5"))]
    assert [e["field"] for e in errors] == ["positions[2].moves[1]", "positions[3]", "positions[4].fen"]
    assert "e2e4 is not legal" in errors[0]["reason"] and "too large" in errors[1]["reason"]
    assert "fullmove" in errors[2]["reason"]


def test_many_bad_positions_are_reported_then_counted():
    positions, errors = read_positions(JobRequest(positions=["not a fen"] * 80))
    assert positions == [] and len(errors) == 51 and errors[-1] == {"field": "body", "reason": "and 30 more bad "
                                                                                                "positions"}


def test_a_message_carries_a_position_and_reads_back():
    limits = SearchLimits(movetime_ms=250, depth=7)
    body = message_body(JOB, Position(3, "x", START, ("e2e4",)), limits)
    message = read_message(body)
    assert isinstance(message, PositionMessage) and message.index == 3 and message.moves == ["e2e4"]
    assert message.options == limits and message.job_id == JOB
    for bad, words in (("{", "not valid JSON"), ('{"job_id": "j", "index": -1}', "index"), ("[]", "message body")):
        with pytest.raises(ValueError) as e:
            read_message(bad)
        assert words in str(e.value)
