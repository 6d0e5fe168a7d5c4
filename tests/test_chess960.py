"""Chess960: perft on published and independent counts (compiled module and JIT), castling rights and
their Zobrist keys, the start positions by number, X-FEN / Shredder-FEN, UCI and SAN castling, PGN.

Counts (tests/data/SOURCES.md): perft_chess960.epd, the 960 positions of the chessprogramming wiki's
"Chess960 Perft Results" (python-chess's chess960.perft); perft_chess960_starts.epd, the 960 start
positions counted by Stockfish 15.1; perft_chess960_xfen.epd, python-chess's X-FEN "tricky" cases;
perft_chess960_random.epd, positions from random Chess960 games counted by python-chess.
"""

import io
import random

import chess
import chess.pgn
import pytest

from engine.board import Board
from engine.fen import STARTPOS, FenError, chess960_fen, parse_fen
from engine.layout import ST_CHESS960
from engine.moves import is_castling
from engine.pgn import read_games, write_game
from engine.san import parse_san, san
from tests.perft_data import read_perft_file

PUBLISHED = read_perft_file("perft_chess960.epd")
STARTS = read_perft_file("perft_chess960_starts.epd")


def _mismatches(backend, tables, rows, depth):
    bad = []
    for fen, counts in rows:
        got = backend.perft(tables, *Board(fen, chess960=True).arrays, depth)
        if got != counts[depth]:
            bad.append(f"{fen} D{depth}: expected {counts[depth]}, got {got}")
    return bad


def test_published_counts_are_960_positions():
    assert len(PUBLISHED) == 960 and len(STARTS) == 960
    # Castling takes the general path unless king and rooks stand where standard chess has them.
    for fen, _ in STARTS:
        back = fen.split()[0].split("/")[-1]
        standard_castling = back[0] + back[4] + back[7] == "RKR"
        assert Board(fen, chess960=True).st[ST_CHESS960] == (not standard_castling), fen
    assert Board(STARTS[518][0], chess960=True).st[ST_CHESS960] == 0


@pytest.mark.parametrize("name", ["perft_chess960_xfen.epd", "perft_chess960_random.epd"])
def test_perft_xfen_and_random_positions(backend, tables, name):
    rows = read_perft_file(name)
    bad = [m for depth in (1, 2, 3) for m in _mismatches(backend, tables, rows, depth)]
    assert not bad, "\n".join(bad[:20])


def test_perft_published_all_depth_4(backend, tables):
    """All 960 positions of the published list at depth 4 (563 million leaves: about 6 s compiled)."""
    bad = _mismatches(backend, tables, PUBLISHED, 4)
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])


def test_perft_starts_all_depth_4(backend, tables):
    """All 960 start positions at depth 4 (181 million leaves: about 3 s compiled)."""
    bad = _mismatches(backend, tables, STARTS, 4)
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])


@pytest.mark.slow
def test_perft_deep_sample(backend, tables):
    """A seeded sample at depth 5 (20 published positions, 40 starts) and 6 (2 published positions)."""
    rng = random.Random(960)
    bad = _mismatches(backend, tables, rng.sample(PUBLISHED, 20), 5)
    bad += _mismatches(backend, tables, rng.sample(STARTS, 40), 5)
    bad += _mismatches(backend, tables, rng.sample(PUBLISHED, 2), 6)
    assert not bad, "\n".join(bad)


def test_perft_start_518_is_standard_chess(backend, tables):
    board = Board(chess960_fen(518), chess960=True)
    assert board.st[ST_CHESS960] == 0
    assert backend.perft(tables, *board.arrays, 4) == 197281


# --- the start positions by number --------------------------------------------------------------
def test_start_positions_by_number_match_python_chess():
    assert chess960_fen(518) == STARTPOS
    for n in range(960):
        assert chess960_fen(n).split()[0] == chess.Board.from_chess960_pos(n).board_fen(), n
    assert len({chess960_fen(n) for n in range(960)}) == 960


def test_random_start_position_and_bad_numbers():
    fen = chess960_fen()
    assert fen in {chess960_fen(n) for n in range(960)}
    for bad in (-1, 960, 1.5, "3", True):
        with pytest.raises(ValueError):
            chess960_fen(bad)


# --- FEN ----------------------------------------------------------------------------------------
def test_xfen_and_shredder_fen_agree_with_python_chess():
    for fen, _ in PUBLISHED[:200] + STARTS[:200] + read_perft_file("perft_chess960_random.epd"):
        ref = chess.Board(fen, chess960=True)
        board = Board(fen, chess960=True)
        assert board.fen() == ref.fen(), fen
        assert board.fen(shredder=True) == ref.fen(shredder=True), fen
        assert Board(ref.fen(shredder=True), chess960=True).key == Board(ref.fen(), chess960=True).key == board.key


def test_xfen_file_letter_for_an_inner_rook():
    # White may castle with the f1 rook only; the h1 rook is the outermost one on that wing.
    fen = "rk5r/8/8/8/8/8/8/1K3R1R w Fq - 0 1"
    board = Board(fen, chess960=True)
    assert board.fen() == chess.Board(fen, chess960=True).fen() == fen
    assert board.fen(shredder=True) == "rk5r/8/8/8/8/8/8/1K3R1R w Fa - 0 1"
    assert Board(board.fen(shredder=True), chess960=True).key == board.key
    assert "b1f1" in {board.uci(m) for m in board.legal_moves() if is_castling(m)}


def test_960_castling_is_refused_as_standard_chess():
    fen = chess960_fen(0)  # bbqnnrkr: king on g1
    with pytest.raises(FenError) as e:
        parse_fen(fen)
    assert e.value.field == "castling" and "Chess960" in str(e.value)
    with pytest.raises(FenError) as e:
        parse_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
    assert e.value.field == "castling" and "Chess960" in str(e.value)
    assert parse_fen(fen, chess960=True).chess960


@pytest.mark.parametrize("fen,why", [
    ("rk5r/8/8/8/8/8/8/1K3R1R w Ga - 0 1", "rook on g1"),
    ("rk5r/8/8/8/8/8/8/1K3R1R w FH - 0 1", "two king-side"),
    ("rk5r/8/8/8/8/8/8/1K5R w Q - 0 1", "queen side"),
    ("rk5r/8/8/8/8/8/1K5R/8 w K - 0 1", "back rank"),
    ("rk5r/8/8/8/8/8/8/1K5R w X - 0 1", "bad character"),
])
def test_bad_960_castling_fields(fen, why):
    with pytest.raises(FenError) as e:
        parse_fen(fen, chess960=True)
    assert e.value.field == "castling" and why in str(e.value)


# --- castling moves, rights and keys -------------------------------------------------------------
def _random_960_game(rng, plies):
    """A random Chess960 game as (python-chess board, our board), castling preferred when legal."""
    ref = chess.Board.from_chess960_pos(rng.randrange(960))
    board = Board(ref.fen(), chess960=True)
    for _ in range(plies):
        if ref.is_game_over():
            break
        ours = {board.uci(m): m for m in board.legal_moves()}
        theirs = {m.uci() for m in ref.legal_moves}
        assert set(ours) == theirs, ref.fen()
        castles = [m for m in ref.legal_moves if ref.is_castling(m)]
        move = rng.choice(castles) if castles and rng.random() < 0.7 else rng.choice(list(ref.legal_moves))
        board.push(ours[move.uci()])
        ref.push(move)
        assert board.fen() == ref.fen()
    return ref, board


def test_random_960_games_match_python_chess(backend, tables):
    rng = random.Random(34)
    for _ in range(30):
        ref, board = _random_960_game(rng, rng.randrange(10, 80))
        assert board.key == int(backend.key_from_scratch(tables, *board.arrays))
        while board.ply:
            board.pop()
            ref.pop()
            assert board.fen() == ref.fen()


def test_keys_of_transposed_positions_agree():
    """Rights are part of the key; so is the rook a right belongs to."""
    a = Board("rk5r/8/8/8/8/8/8/1K3R1R w Fq - 0 1", chess960=True)
    b = Board("rk5r/8/8/8/8/8/8/1K3R1R w Kq - 0 1", chess960=True)
    c = Board("rk5r/8/8/8/8/8/8/1K3R1R w a - 0 1", chess960=True)
    assert len({a.key, b.key, c.key}) == 3
    # Moving the f1 rook away and back loses its right: the position is c's.
    for text in ("f1f2", "a8a7", "f2f1", "a7a8"):
        a.push_uci(text)
    assert a.fen().split()[:3] == ["rk5r/8/8/8/8/8/8/1K3R1R", "w", "-"]
    standard = Board()
    assert Board(chess960_fen(518), chess960=True).key == standard.key


@pytest.mark.parametrize("fen,castle,after", [
    # king and rook swap squares (f1/g1)
    ("4k3/8/8/8/8/8/8/5KR1 w K - 0 1", "f1g1", "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"),
    # king already on its destination (g1), rook h1 -> f1
    ("4k3/8/8/8/8/8/8/6KR w K - 0 1", "g1h1", "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"),
    # rook already on its destination (d1), king f1 -> c1
    ("4k3/8/8/8/8/8/8/3R1K2 w Q - 0 1", "f1d1", "4k3/8/8/8/8/8/8/2KR4 b - - 1 1"),
    # queen side with the rook on the king's destination (c1)
    ("4k3/8/8/8/8/8/8/2R1K3 w Q - 0 1", "e1c1", "4k3/8/8/8/8/8/8/2KR4 b - - 1 1"),
    # black, king side with the rook on the king's start's other side: b8 king, c8 rook
    ("1kr5/8/8/8/8/8/8/4K3 b k - 0 1", "b8c8", "5rk1/8/8/8/8/8/8/4K3 w - - 1 2"),
])
def test_castling_with_king_or_rook_on_its_destination(fen, castle, after):
    board = Board(fen, chess960=True)
    ref = chess.Board(fen, chess960=True)
    assert {board.uci(m) for m in board.legal_moves()} == {m.uci() for m in ref.legal_moves}
    m = board.parse_uci(castle)
    assert is_castling(m)
    board.push(m)
    assert board.fen() == after
    board.pop()
    assert board.fen() == fen


def test_castling_rook_screening_the_destination_from_a_slider():
    # b1 rook castles queen side (king f1 -> c1, rook -> d1); the a1 queen would then attack c1.
    fen = "4k3/8/8/8/8/8/8/qR3K2 w B - 0 1"
    board = Board(fen, chess960=True)
    assert not any(is_castling(m) for m in board.legal_moves())
    assert not any(chess.Board(fen, chess960=True).is_castling(m) for m in chess.Board(fen, chess960=True).legal_moves)


# --- notation -------------------------------------------------------------------------------------
def test_uci_castling_notation_standard_and_960():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    standard = Board(fen)
    assert sorted(standard.uci(m) for m in standard.legal_moves() if is_castling(m)) == ["e1c1", "e1g1"]
    assert standard.parse_uci("e1h1") == standard.parse_uci("e1g1")  # king-to-rook is read too
    c960 = Board(fen, chess960=True)
    assert sorted(c960.uci(m) for m in c960.legal_moves() if is_castling(m)) == ["e1a1", "e1h1"]
    with pytest.raises(ValueError):
        c960.parse_uci("e1g1")  # a king step of two squares is no move in Chess960 notation


def test_san_and_uci_against_python_chess():
    rng = random.Random(960)
    for _ in range(25):
        ref = chess.Board.from_chess960_pos(rng.randrange(960))
        board = Board(ref.fen(), chess960=True)
        for _ in range(rng.randrange(10, 60)):
            if ref.is_game_over():
                break
            for move in ref.legal_moves:
                ours = board.parse_uci(move.uci())
                assert san(board, ours) == ref.san(move)
                assert parse_san(board, ref.san(move)) == ours
            castles = [m for m in ref.legal_moves if ref.is_castling(m)]
            move = rng.choice(castles) if castles and rng.random() < 0.7 else rng.choice(list(ref.legal_moves))
            board.push_uci(move.uci())
            ref.push(move)


def test_pgn_variant_chess960_read_and_written():
    fen = chess960_fen(96)  # bbqnrnkr: the f1 knight moves, then the king castles where it stands
    moves = ["f1e3", "f8e6", "g1h1", "g8h8"]
    text = write_game(fen, moves, tags={"White": "a", "Black": "b"}, chess960=True)
    assert '[Variant "Chess960"]' in text and '[SetUp "1"]' in text and f'[FEN "{fen}"]' in text
    assert "2. O-O O-O" in text
    ref = chess.pgn.read_game(io.StringIO(text))
    assert ref.board().chess960 and [m.uci() for m in ref.mainline_moves()] == moves
    (game,) = read_games(text)
    assert game.chess960 and game.moves == moves and game.start_fen == fen


def test_pgn_other_variants_still_refused():
    with pytest.raises(ValueError):
        list(read_games('[Variant "Atomic"]\n\n1. e4 *'))


def test_the_engine_plays_legal_960_games():
    """Self-play from random starts at a shallow depth: every move the search answers is legal for
    python-chess (castling among them, king-to-rook)."""
    from engine import analyse

    rng = random.Random(7)
    castled = 0
    for _ in range(4):
        ref = chess.Board.from_chess960_pos(rng.randrange(960))
        start, moves = ref.fen(), []
        while not ref.is_game_over(claim_draw=True) and len(moves) < 60:
            found = analyse(start, moves, depth=3, chess960=True)
            move = chess.Move.from_uci(found.best_move)
            assert move in ref.legal_moves, (ref.fen(), found.best_move)
            castled += ref.is_castling(move)
            ref.push(move)
            moves.append(found.best_move)
    assert castled >= 1
