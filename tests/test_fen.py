"""FEN parsing: fen_destructive.epd line by line, plus each rejection rule naming its field."""

import pytest

from engine.board import Board
from engine.epd import parse_epd
from engine.fen import FenError, parse_fen
from tests.conftest import data_file

# fen_destructive.epd, by line number (1-based). Lines 1-16 are "OK" or "overridable" and 91-106
# "epd should be OK"; everything else must be culled. Three of the first 16 claim castling rights the
# pieces cannot support (line 8: a knight on a8; 11 and 15: no black rook on a8/h8; the file allows
# "overridable" or "cull" for them): the engine rejects those with a castling error rather than
# silently dropping rights the caller asked for.
ACCEPT = set(range(1, 17)) - {8, 11, 15} | set(range(91, 107))
EXPECTED_FIELD = {
    8: "castling",
    11: "castling",
    15: "castling",
    17: "board",
    18: "board",
    19: "side",
    20: "castling",
    21: "board",
    22: "board",
    23: "board",
    24: "board",
    25: "board",
    26: "board",
    27: "board",
    28: "board",
    29: "board",
    30: "board",
    **{n: "side" for n in range(31, 91)},  # the side not to move is in check
}


def destructive_lines():
    lines = data_file("fen_destructive.epd").read_text().splitlines()
    assert len(lines) == 106
    return [(i + 1, line.split(";")[0]) for i, line in enumerate(lines)]


@pytest.mark.parametrize("lineno,text", destructive_lines())
def test_fen_destructive(lineno, text):
    if lineno in ACCEPT:
        fen, _ = parse_epd(text)
        Board(fen)  # builds without complaint
        return
    with pytest.raises(FenError) as err:
        parse_epd(text)
    assert err.value.field == EXPECTED_FIELD[lineno], str(err.value)
    assert err.value.field.replace("_", "-") in str(err.value)


REJECT = [
    ("", "board", "empty"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "board", "0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "fullmove", "both clocks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "en_passant", "missing"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fullmove", "unexpected text"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "board", "bad character 'X'"),
    ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "board", "two digits"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "board", "digit '9'"),
    ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "board", "covers 7 squares"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "board", "8 ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w - - 0 1", "board", "pawn on h1"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "board", "pawn on a1"),
    ("4k2p/8/8/8/8/8/8/4K3 w - - 0 1", "board", "pawn on h8"),
    ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "board", "white has 2 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side", "'x'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling", "bad character 'x'"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkq - 0 1", "castling", "twice"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling", "rook on h1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "board", "0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1KNR w KQ - 0 1", "castling", "king on e1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "en_passant", "rank 6"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en_passant", "black pawn on e5"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1", "en_passant", "not '-' or a square"),
    ("rnbqkbnr/pppp1ppp/4p3/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en_passant", "to be empty"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove", "negative"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3", "fullmove", "negative"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove", "below 1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove", "whole number"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1.5 1", "halfmove", "whole number"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999 1", "halfmove", "too large"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1000001", "fullmove", "too large"),
    ("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", "side", None),  # fine: black in check, black to move
    ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "side", "black is in check but it is white to move"),
]


@pytest.mark.parametrize("fen,field,words", REJECT)
def test_rejections_name_field_and_reason(fen, field, words):
    if words is None:
        parse_fen(fen)
        return
    with pytest.raises(FenError) as err:
        parse_fen(fen)
    assert err.value.field == field, str(err.value)
    assert words in str(err.value)


def test_not_a_string():
    with pytest.raises(FenError, match="expected a FEN string"):
        parse_fen(None)


def test_four_field_fen_defaults_clocks():
    p = parse_fen("4k3/8/8/8/8/8/8/4K3 b - -")
    assert (p.halfmove, p.fullmove, p.side) == (0, 1, 1)


def test_epd_operations():
    fen, ops = parse_epd('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";')
    assert fen.endswith(" w - - 0 1")
    assert ops == {"bm": "Qg6", "id": "WAC.001"}


def test_en_passant_square_kept_only_when_capturable():
    # A legal e.p. capture exists: the square is in the FEN out and in the key.
    b = Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    assert b.fen().split()[3] == "f6"
    # No pawn can take: the FEN drops the square and the key equals the one without it.
    c = Board("rnbqkbnr/ppppp1pp/8/5p2/8/8/PPPPPPPP/RNBQKBNR w KQkq f6 0 2")
    d = Board("rnbqkbnr/ppppp1pp/8/5p2/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2")
    assert c.fen() == d.fen() and c.key == d.key
