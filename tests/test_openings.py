"""Opening names by position (engine/openings.py, engine/openings.tsv.gz from lichess-org/chess-openings):
a position's name, a transposition found, a game named by its last named position, the table's maker
on a sample of the data set's own lines, and the name in /analyze's answer."""

import gzip

import engine
from engine import openings, openings_gen
from engine.board import Board
from engine.fen import STARTPOS
from functions.common.api.models import AnalysisAnswer

NAJDORF = "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6".split()
NAJDORF_BY_NF3 = "g1f3 c7c5 e2e4 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6".split()  # 1. Nf3 c5 2. e4: the same position


def test_a_position_and_its_transposition_have_one_name():
    for moves in (NAJDORF, NAJDORF_BY_NF3):
        found = openings.named(Board.from_moves(moves=moves))
        assert (found.eco, found.name) == ("B90", "Sicilian Defense: Najdorf Variation")


def test_the_start_and_an_unnamed_position():
    assert openings.named(Board()) is None  # the data set names moves, not the start
    assert openings.named(Board("8/8/8/4k3/8/8/8/4K2R w K - 0 1")) is None


def test_a_game_is_named_by_the_last_named_position_it_passed_through():
    moves = NAJDORF_BY_NF3 + ["c1e3", "e7e5", "d4b3", "c8e6", "f2f3", "h7h6", "a2a4"]
    found = openings.of_game(STARTPOS, moves)
    assert found.eco == "B90" and found.name.startswith("Sicilian Defense: Najdorf Variation")
    assert found.ply is not None and 10 <= found.ply <= len(moves)
    assert openings.of_game(STARTPOS, []) is None


def test_the_en_passant_square_counts_only_when_a_capture_is_legal():
    # 1. e4 c5: no black pawn can take on e3, so the key has no en-passant square, as the data set writes it
    board = Board.from_moves(moves=["e2e4", "c7c5"])
    assert openings.key(board).endswith(" w KQkq -") and openings.named(board).eco == "B20"


def test_chess960_has_no_names():
    assert openings.of_game(STARTPOS, NAJDORF, chess960=True) is None


def test_every_entry_is_a_legal_position_with_an_eco_code():
    table = openings.table()
    assert len(table) > 3000
    for i, (key, (eco, name)) in enumerate(sorted(table.items())):
        assert len(eco) == 3 and eco[0] in "ABCDE" and eco[1:].isdigit() and name, (key, eco, name)
        if i % 97 == 0:  # a sample: every key reads as a position whose own key it is
            assert openings.key(Board(key + " 0 1")) == key


def test_the_maker_keeps_the_shortest_lines_name(tmp_path):
    rows = ["eco\tname\tpgn",
            "B20\tSicilian Defense\t1. e4 c5",
            "A04\tZukertort Opening: Sicilian Invitation\t1. Nf3 c5",
            "B27\tSicilian Defense: Katalimov Variation, by transposition\t1. Nf3 c5 2. e4 b6"]
    (tmp_path / "a.tsv").write_text("\n".join(rows) + "\n")
    for letter in "bcde":
        (tmp_path / f"{letter}.tsv").write_text("eco\tname\tpgn\nB27\tSicilian Defense: Katalimov Variation\t"
                                                "1. e4 c5 2. Nf3 b6\n")
    found = openings_gen.table(tmp_path)
    # 1. Nf3 c5 2. e4 b6 and 1. e4 c5 2. Nf3 b6 meet: the shorter-or-first line's name stays
    key = openings.key(Board.from_moves(moves=["e2e4", "c7c5", "g1f3", "b7b6"]))
    assert found[key] == ("B27", "Sicilian Defense: Katalimov Variation, by transposition")
    out = tmp_path / "openings.tsv.gz"
    openings_gen.write(found, out)
    first = out.read_bytes()
    openings_gen.write(found, out)
    assert out.read_bytes() == first  # no timestamp: the same input, the same bytes
    assert gzip.decompress(first).decode().count("\n") == len(found) == 3


def test_the_answer_names_a_book_position():
    found = engine.analyse(moves=NAJDORF, depth=3)
    answer = AnalysisAnswer.of(found, 1000, 16)
    assert (answer.opening.eco, answer.opening.name) == ("B90", "Sicilian Defense: Najdorf Variation")
    out_of_book = AnalysisAnswer.of(engine.analyse("8/8/8/4k3/8/8/8/4K2R w K - 0 1", depth=3), 1000, 16)
    assert out_of_book.opening is None
