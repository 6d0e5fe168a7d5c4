"""Property tests (Hypothesis) of the notation readers and the board: FEN round trips, every string a
FEN or a FenError naming its field, the PGN and EPD readers raising only their own errors on random
bytes and mutated real games, and SAN and UCI agreeing with python-chess on random legal positions.

Examples per test are bounded for `make test` (EXAMPLES); KIBITZ_HYPOTHESIS_EXAMPLES=N asks for N a
test instead (benchmarks/fuzz.py --properties runs them long and records the figures).
"""

import os

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.epd import parse_epd, records
from engine.fen import FIELDS, STARTPOS, FenError, format_fen, parse_fen
from engine.moves import to_uci
from engine.pgn import PgnError, read_games
from engine.san import SanError, line_san, parse_san, san
from tests.conftest import SUITES
from tests.test_jobs_positions import ANNOTATED

EXAMPLES = int(os.environ.get("KIBITZ_HYPOTHESIS_EXAMPLES", 0)) or None


def examples(default):
    """settings() for a test: `default` examples, or KIBITZ_HYPOTHESIS_EXAMPLES; no deadline (a busy host)."""
    return settings(max_examples=EXAMPLES or default, deadline=None, derandomize=EXAMPLES is None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- positions -----------------------------------------------------------------------------------

@st.composite
def played_boards(draw, max_plies=120):
    """A python-chess Board after random legal moves from the start (the moves drawn by Hypothesis)."""
    board = chess.Board()
    for _ in range(draw(st.integers(0, max_plies))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


PIECES = "PNBRQKpnbrqk"


@st.composite
def placed_fens(draw):
    """A FEN of pieces put at random (kings always, the rest drawn), side, castling and en-passant fields
    drawn from what could stand there; python-chess decides below whether it is a valid position."""
    squares = draw(st.lists(st.integers(0, 63), min_size=2, max_size=20, unique=True))
    board = chess.Board(None)
    board.set_piece_at(squares[0], chess.Piece.from_symbol("K"))
    board.set_piece_at(squares[1], chess.Piece.from_symbol("k"))
    for sq in squares[2:]:
        board.set_piece_at(sq, chess.Piece.from_symbol(draw(st.sampled_from(PIECES[:5] + PIECES[6:11]))))
    board.turn = draw(st.booleans())
    board.castling_rights = draw(st.sampled_from([0, chess.BB_H1, chess.BB_A1 | chess.BB_H8, chess.BB_CORNERS]))
    board.ep_square = draw(st.sampled_from([None, *chess.SquareSet(chess.BB_RANK_3 | chess.BB_RANK_6)]))
    board.halfmove_clock = draw(st.integers(0, 150))
    board.fullmove_number = draw(st.integers(1, 500))
    return board.fen(en_passant="fen")


@examples(150)
@given(played_boards())
def test_fen_of_a_played_game_round_trips(board):
    fen = board.fen()
    parsed = parse_fen(fen)
    assert format_fen(*(parsed.pieces, parsed.side, parsed.castling, parsed.ep, parsed.halfmove,
                        parsed.fullmove)) == fen
    assert Board(fen).fen() == fen  # the engine's board prints what it read (ep only when capturable)


@examples(300)
@given(placed_fens())
def test_every_valid_position_is_read_and_printed_back(fen):
    """What python-chess calls a valid position, the engine reads, and prints back the same (the en-passant
    square only when a capture there is legal, as python-chess prints it)."""
    board = chess.Board(fen)
    assume(board.is_valid())
    parsed = parse_fen(fen)
    assert format_fen(parsed.pieces, parsed.side, parsed.castling, parsed.ep, parsed.halfmove,
                      parsed.fullmove) == fen
    assert Board(fen).fen() == board.fen()


def assert_fen_or_field_error(text):
    try:
        parse_fen(text)
    except FenError as e:
        assert e.field in FIELDS, e.field
        assert f"invalid FEN {e.field.replace('_', '-')} field: " in str(e) and e.reason, str(e)


@examples(500)
@given(st.text(max_size=120))
def test_any_text_is_a_fen_or_a_fen_error_naming_a_field(text):
    assert_fen_or_field_error(text)


FEN_ALPHABET = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789+-x"


@examples(500)
@given(st.sampled_from([STARTPOS, "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", "8/8/8/8/8/8/8/K1k5 b - - 99 80"]),
       st.lists(st.tuples(st.integers(0, 80), st.sampled_from(["drop", "insert", "replace"]),
                          st.sampled_from(FEN_ALPHABET)), min_size=1, max_size=6))
def test_mutated_fens_parse_or_name_a_field(fen, edits):
    text = list(fen)
    for at, how, char in edits:
        at = at % (len(text) + 1)
        if how == "insert":
            text.insert(at, char)
        elif text and how == "drop":
            del text[at % len(text)]
        elif text:
            text[at % len(text)] = char
    assert_fen_or_field_error("".join(text))


# --- PGN and EPD readers ---------------------------------------------------------------------------

def read_pgn(text):
    """Every game of the text, or the reader's own PgnError; any other exception fails the test."""
    try:
        return list(read_games(text))
    except PgnError as e:
        assert e.game >= 1 and str(e).startswith(f"game {e.game}: ")
        return None


def real_games():
    """Real-looking PGN: the annotated games of the jobs tests and a python-chess export of a WAC line."""
    return ANNOTATED


@examples(300)
@given(st.binary(max_size=400))
def test_pgn_reader_on_random_bytes(data):
    read_pgn(data.decode("utf-8", "replace"))
    read_pgn(data.decode("latin-1"))


PGN_PIECES = ["[", "]", "{", "}", "(", ")", ";", "%", "$1", "!?", "1.", "...", " ", "\n", '"', "\\", "O-O", "e4",
              "Nf3", "=Q", "x", "+", "#", "1-0", "*", "--", '[FEN "8/8/8/8/8/8/8/K1k5 w - - 0 1"]', '[SetUp "1"]',
              '[Variant "chess960"]', "0-0-0", "e8=N", "Kxe2"]


@examples(300)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(["drop", "insert", "replace", "cut"]),
                          st.sampled_from(PGN_PIECES)), min_size=1, max_size=8))
def test_pgn_reader_on_mutated_real_games(edits):
    text = real_games()
    for at, how, piece in edits:
        at = at % (len(text) + 1)
        if how == "insert":
            text = text[:at] + piece + text[at:]
        elif how == "drop":
            text = text[:at] + text[at + len(piece):]
        elif how == "replace":
            text = text[:at] + piece + text[at + len(piece):]
        else:
            text = text[:at]
    read_pgn(text)


def read_epd(line):
    try:
        fen, ops = parse_epd(line)
    except FenError as e:
        assert e.field in FIELDS, e.field
        return None
    assert isinstance(ops, dict)
    parse_fen(fen)
    return fen


@examples(300)
@given(st.text(max_size=200))
def test_epd_reader_on_random_text(text):
    for _, line in records(text):
        read_epd(line)


@examples(200)
@given(st.sampled_from((SUITES / "wac.epd").read_text().splitlines()[:100]),
       st.lists(st.tuples(st.integers(0, 200), st.sampled_from(FEN_ALPHABET + ';"')), min_size=1, max_size=5))
def test_epd_reader_on_mutated_suite_lines(line, edits):
    for at, char in edits:
        at = at % (len(line) + 1)
        line = line[:at] + char + line[at + 1:]
    read_epd(line)


# --- SAN and UCI against python-chess ----------------------------------------------------------------

@examples(60)
@given(played_boards(max_plies=160))
def test_san_and_uci_agree_with_python_chess(board):
    ours = Board(board.fen())
    theirs = {m.uci(): board.san(m) for m in board.legal_moves}
    ours_moves = {to_uci(m): m for m in ours.legal_moves()}
    assert set(ours_moves) == set(theirs)
    for uci, move in ours_moves.items():
        text = san(ours, move)
        assert text == theirs[uci], (board.fen(), uci)
        assert to_uci(parse_san(ours, text)) == uci  # and SAN reads back to the same move
    assert ours.fen() == board.fen()  # san() and parse_san() left the board as it was


@examples(60)
@given(played_boards(max_plies=60), st.integers(1, 12), st.randoms(use_true_random=False))
def test_lines_in_san_agree_with_python_chess(board, length, rng):
    line, replay = [], board.copy()
    for _ in range(length):
        moves = list(replay.legal_moves)
        if not moves:
            break
        line.append(rng.choice(moves))
        replay.push(line[-1])
    assert line_san(board.fen(), [m.uci() for m in line]) == [s for s in _sans(board, line)]


def _sans(board, line):
    board = board.copy()
    for move in line:
        yield board.san(move)
        board.push(move)


@examples(200)
@given(played_boards(max_plies=40), st.text(alphabet="NBRQKabcdefgh12345678xO0-=+#!?", max_size=8))
def test_any_san_text_is_a_move_or_a_san_error(board, text):
    ours = Board(board.fen())
    try:
        move = parse_san(ours, text)
    except SanError:
        return
    assert chess.Move.from_uci(to_uci(move)) in board.legal_moves


@pytest.mark.parametrize("text", ["", "\x00", "[", "{", "(", "1.", "*"])
def test_the_readers_corner_cases(text):
    read_pgn(text)
    assert_fen_or_field_error(text)


# --- Chess960 (issue 34) -----------------------------------------------------------------------------

@st.composite
def played_960_boards(draw, max_plies=80):
    """A python-chess Chess960 Board after random legal moves from a random start, castling often."""
    board = chess.Board.from_chess960_pos(draw(st.integers(0, 959)))
    for _ in range(draw(st.integers(0, max_plies))):
        moves = list(board.legal_moves)
        if not moves:
            break
        castles = [m for m in moves if board.is_castling(m)]
        if castles and draw(st.booleans()):
            moves = castles
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


@examples(100)
@given(played_960_boards(), st.booleans())
def test_960_xfen_and_shredder_fen_round_trip(board, shredder):
    text = board.fen(shredder=shredder)
    ours = Board(text, chess960=True)
    assert ours.fen(shredder=shredder) == text
    assert ours.fen(shredder=not shredder) == board.fen(shredder=not shredder)
    assert Board(ours.fen(shredder=not shredder), chess960=True).key == ours.key


@examples(60)
@given(played_960_boards())
def test_960_san_and_uci_both_castling_notations_agree_with_python_chess(board):
    ours = Board(board.fen(), chess960=True)
    theirs = {m.uci(): board.san(m) for m in board.legal_moves}  # king-to-rook castling (Chess960)
    ours_moves = {ours.uci(m): m for m in ours.legal_moves()}
    assert set(ours_moves) == set(theirs)
    for uci, move in ours_moves.items():
        text = san(ours, move)
        assert text == theirs[uci], (board.fen(), uci)
        assert parse_san(ours, text) == move
    # Standard notation (the king's two squares, e1g1) where python-chess writes it for a standard castle.
    standard = Board(board.fen(), chess960=True)
    standard.chess960 = False
    for m in board.legal_moves:
        assert standard.parse_uci(board.uci(m, chess960=False)) == ours.parse_uci(m.uci())
        if not board.is_castling(m) or board.uci(m, chess960=False) == m.uci():
            continue
        assert standard.uci(ours.parse_uci(m.uci())) == board.uci(m, chess960=False)


@examples(30)
@given(st.integers(0, 959), st.randoms(use_true_random=False))
def test_every_move_is_legal_in_random_960_games(number, rng):
    ref = chess.Board.from_chess960_pos(number)
    ours = Board(ref.fen(), chess960=True)
    while not ref.is_game_over(claim_draw=True) and ref.ply() < 200:
        legal = {ours.uci(m): m for m in ours.legal_moves()}
        assert set(legal) == {m.uci() for m in ref.legal_moves}, ref.fen()
        move = rng.choice(sorted(legal))
        ours.push(legal[move])
        ref.push_uci(move)
        assert ours.fen() == ref.fen()
