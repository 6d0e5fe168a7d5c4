"""functions/common/jobs/s3/chunking.py: where a game collection is cut for an S3 job. Every cut starts at a game
(PGN) or a line (EPD, JSONL), the chunks tile the text, and each chunk read back alone gives the same games and
positions as the whole text read at once (python-chess counts them too, as the oracle)."""

import io

import chess.pgn
import pytest

from engine.pgn import read_games
from functions.common.jobs.positions import from_pgn
from functions.common.jobs.s3 import chunking
from tests.test_review import FISCHER as FISCHER_PGN

TRICKY = (
    b"% an escape line [Event \"no\"]\n"
    b"; a line comment [Event \"no\"]\n"
    + FISCHER_PGN.encode() +
    b"\n\n{ a comment over lines\n[Event \"not a game\"]\n1. e4 }\n"
    b"[Event \"two\"]\n[White \"A [bracket] \\\"quoted\\\"\"]\n\n"
    b"1. e4 {[%clk 0:01:00]} e5 (1... c5 2. Nf3 {x} (2. c3)) 2. Nf3 $1 Nc6!? 1/2-1/2\n"
    b"1. d4 d5 * 1. c4 *\n"
    b"[Event \"set up\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/5k2/8/4K2R w K - 0 1\"]\n\n1. Rh3+ Kg2 2. Rh2+ *\n"
    b"[Event \"no result\"]\n\n1. e4\n[Event \"tags only\"]\n"
)


def games_of(text):
    return [(g.start_fen, g.moves) for g in read_games(text)]


def python_chess_positions(text):
    handle, total = io.StringIO(text), 0
    while (game := chess.pgn.read_game(handle)) is not None:
        total += len(list(game.mainline_moves())) + 1
    return total


@pytest.mark.parametrize("variant", ["lf", "crlf", "bom", "bom+crlf"])
def test_pgn_records_match_the_reader(variant):
    data = TRICKY.replace(b"\n", b"\r\n") if "crlf" in variant else TRICKY
    data = chunking.BOM + data if "bom" in variant else data
    records = chunking.scan(data, "pgn")
    text = chunking.text_of(data, 0)
    positions, errors = from_pgn(text, 10_000)
    assert not errors
    assert sum(r.positions for r in records) == len(positions)
    assert [r.number for r in records] == list(range(1, len(records) + 1))
    assert len(records) == len(games_of(text)) == 7
    # the records tile the text: each starts where the one before ended, the first at 0, the last at the end
    assert records[0].start == 0 and records[-1].end == len(data)
    assert all(a.end == b.start for a, b in zip(records, records[1:], strict=False))
    # each record read alone is its game
    alone = [games_of(chunking.text_of(data[r.start:r.end], r.start)) for r in records]
    assert [g for gs in alone for g in gs] == games_of(text)


def test_positions_as_python_chess_counts_them():
    data = (FISCHER_PGN + "\n" + TRICKY.decode().split("1. d4 d5")[0].split("1. e4 }")[1] + "\n" + FISCHER_PGN).encode()
    records = chunking.scan(data.replace(b"\n", b"\r\n"), "pgn")
    assert sum(r.positions for r in records) == python_chess_positions(data.decode()) == 82 * 2 + 5


@pytest.mark.parametrize("block", [1, 2, 7, 64, 1000])
def test_blocks_cut_anywhere_give_the_same_records(block):
    """A game split across blocks (ranged GETs, a decompressor's output) is still one record."""
    data = TRICKY.replace(b"\n", b"\r\n")
    scanner = chunking.Scanner("pgn")
    records = []
    for i in range(0, len(data), block):
        records += scanner.feed(data[i:i + block])
    records += scanner.finish()
    assert records == chunking.scan(data, "pgn")


@pytest.mark.parametrize("target", [1, 30, 100, 10_000])
def test_chunks_tile_the_text_and_read_back_alone(target):
    data = chunking.BOM + TRICKY * 3
    chunks = chunking.chunks(data, "pgn", target)
    assert chunks[0].start == 0 and chunks[-1].end == len(data)
    assert all(a.end == b.start for a, b in zip(chunks, chunks[1:], strict=False))
    assert [c.number for c in chunks] == list(range(len(chunks)))
    index = 0
    all_games = []
    for c in chunks:
        assert c.first_index == index
        piece = data[c.start:c.end]  # what a ranged GET bytes=start-(end-1) returns
        again = chunking.scan(piece, "pgn", offset=c.start, number=c.first_number - 1)
        assert sum(r.positions for r in again) == c.positions
        assert again[0].number == c.first_number
        assert c.positions >= target or c is chunks[-1] or len(again) == 1 or target == 1
        all_games += games_of(chunking.text_of(piece, c.start))
        index += c.positions
    assert all_games == games_of(chunking.text_of(data, 0))


def test_a_continuation_scans_on_from_a_boundary():
    """The splitter may stop at a chunk's end and another invocation go on from there."""
    data = TRICKY * 2
    whole = chunking.scan(data, "pgn")
    cut = whole[3].start
    rest = chunking.scan(data[cut:], "pgn", offset=cut, number=3)
    assert whole[3:] == rest


def test_a_tag_inside_a_comment_is_no_game():
    data = b'[Event "a"]\n\n1. e4 { see\n[Event "b"]\n} e5 *\n'
    assert [r.positions for r in chunking.scan(data, "pgn")] == [3]


EPD = (b"# a comment\n\n"
       b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"one\";\r\n"
       b"   \n"
       b"8/8/8/8/8/5k2/8/4K2R w K - bm Rh3+;\n"
       b"# another\n"
       b"4k3/8/8/8/8/8/8/4K2R w K -")  # no newline at the end


def test_epd_lines_are_records_with_their_line_numbers():
    records = chunking.scan(chunking.BOM + EPD, "epd")
    assert [(r.number, r.positions) for r in records] == [(3, 1), (5, 1), (7, 1)]
    assert records[-1].end == len(chunking.BOM + EPD)
    line = (chunking.BOM + EPD)[records[0].start:records[0].end]
    assert line.startswith(b"rnbqkbnr") and line.endswith(b"\r\n")


def test_epd_chunks_continue_the_line_numbers():
    data = EPD * 5
    chunks = chunking.chunks(data, "epd", 4)
    assert sum(c.positions for c in chunks) == 15
    for c in chunks:
        again = chunking.scan(data[c.start:c.end], "epd", offset=c.start, line=c.first_number - 1)
        assert again[0].number == c.first_number and len(again) == c.positions


def test_jsonl_lines():
    data = b'"8/8/8/8/8/5k2/8/4K2R w K - 0 1"\n\n{"id": "x", "fen": "8/8/8/8/8/5k2/8/4K2R w K - 0 1"}\r\n'
    assert [r.number for r in chunking.scan(data, "jsonl")] == [1, 3]


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="format 'csv'"):
        chunking.Scanner("csv")
