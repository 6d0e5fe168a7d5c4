"""Differential tests against python-chess (the oracle) over a few hundred random games."""

import random

import chess
import numpy as np
import pytest

from engine import native
from engine.board import Board
from engine.moves import to_uci

GAMES = 300
MAX_PLIES = 200
FULL_UNDO_CHECK_EVERY = 5  # every 5th ply, push and pop each legal move and compare all arrays


def snapshot(board):
    bb, mb, st, keys, undo = board.arrays
    ply = board.ply
    return bb.copy(), mb.copy(), st.copy(), keys[: ply + 1].copy(), undo[:ply].copy()


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def play_random_game(seed):
    rng = random.Random(seed)
    oracle = chess.Board()
    ours = Board()
    problems = []
    for ply in range(MAX_PLIES):
        where = f"game {seed} ply {ply} {oracle.fen()}"
        legal = sorted(m.uci() for m in oracle.legal_moves)
        mine = sorted(to_uci(m) for m in ours.legal_moves())
        if legal != mine:
            problems.append(f"{where}: moves differ: missing {set(legal) - set(mine)}, extra {set(mine) - set(legal)}")
            break
        if ours.fen() != oracle.fen():
            problems.append(f"{where}: fen {ours.fen()}")
        if Board(oracle.fen()).fen() != oracle.fen():
            problems.append(f"{where}: round trip gives {Board(oracle.fen()).fen()}")
        if ours.in_check() != oracle.is_check():
            problems.append(f"{where}: in_check {ours.in_check()}")
        if (not mine and ours.in_check()) != oracle.is_checkmate():
            problems.append(f"{where}: checkmate status differs")
        if (not mine and not ours.in_check()) != oracle.is_stalemate():
            problems.append(f"{where}: stalemate status differs")
        if native.core.key_from_scratch(native.TABLES, *ours.arrays) != ours.keys[ours.ply]:
            problems.append(f"{where}: incremental key differs from the key computed from scratch")
        if ply % FULL_UNDO_CHECK_EVERY == 0:
            before = snapshot(ours)
            for m in ours.legal_moves():
                ours.push(m)
                ours.pop()
                if not same(before, snapshot(ours)):
                    problems.append(f"{where}: make/unmake of {to_uci(m)} did not restore the position")
                    break
        if not legal or oracle.is_insufficient_material() or oracle.halfmove_clock >= 100:
            break
        move = rng.choice(legal)
        oracle.push_uci(move)
        ours.push_uci(move)
    return problems


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_match_python_chess(chunk):
    problems = []
    for seed in range(chunk * GAMES // 10, (chunk + 1) * GAMES // 10):
        problems += play_random_game(seed)
    assert not problems, "\n".join(problems[:20])


def test_keys_equal_for_transpositions():
    a, b = Board(), Board()
    for m in ("g1f3", "g8f6", "b1c3", "b8c6"):
        a.push_uci(m)
    for m in ("b1c3", "b8c6", "g1f3", "g8f6"):
        b.push_uci(m)
    assert a.key == b.key and a.fen() == b.fen()
    a.push_uci("e2e4")
    assert a.key != b.key


def test_pop_returns_to_start_key():
    b = Board()
    start = b.key
    for m in ("e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8d7", "c6b7", "e8d8", "b7a8q"):
        b.push_uci(m)
    while b.ply:
        b.pop()
    assert b.key == start and b.fen() == chess.STARTING_FEN


def test_check_detection_before_the_move_matches_python_chess():
    """gives_check() and the check-squares shortcut for quiet moves agree with python-chess."""
    from numba import njit

    from engine.core.movegen import check_squares, gives_check, quiet_gives_check

    @njit
    def both(T, bb, board, st, m):
        return gives_check(T, bb, board, st, m), quiet_gives_check(T, board, check_squares(T, bb, st), m)

    rng = random.Random(99)
    bad = []
    for _ in range(60):
        oracle, ours = chess.Board(), Board()
        for _ply in range(120):
            legal = list(oracle.legal_moves)
            if not legal:
                break
            for m in ours.legal_moves():
                want = oracle.gives_check(chess.Move.from_uci(to_uci(m)))
                full, quick = both(native.TABLES, ours.bb, ours.board, ours.st, m)
                quiet = not (m >> 12) & 0b1100 and (m >> 12) not in (2, 3)
                if full != want or (quiet and quick != want):
                    bad.append(f"{oracle.fen()} {to_uci(m)}: want {want}, got {full}/{quick}")
            move = rng.choice(legal)
            oracle.push(move)
            ours.push_uci(move.uci())
    assert not bad, bad[:10]


def test_the_early_table_key_is_the_key_after_the_move_except_where_it_says():
    """key_after() (make_move's key before castling's rook, lost castling rights and a new en-passant square;
    the search prefetches the child's table bucket with it before the accumulator update) is the whole key
    after every move but those; Chess960 games too."""
    from engine.core.position import key_after
    from engine.layout import F_KING_CASTLE, F_QUEEN_CASTLE, NO_SQ, ST_CASTLE, ST_EP

    rng = random.Random(7)
    checked, left_out, bad = 0, 0, []
    for game in range(40):
        chess960 = game % 4 == 3
        oracle = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        ours = Board(oracle.fen(), chess960=chess960)
        for _ply in range(160):
            legal = list(oracle.legal_moves)
            if not legal:
                break
            for m in ours.legal_moves():
                want_key = key_after(native.TABLES, ours.board, ours.st, ours.keys, m)
                child = ours.copy()
                child.push(m)
                by_design = ((m >> 12) in (F_KING_CASTLE, F_QUEEN_CASTLE) or child.st[ST_EP] != NO_SQ
                             or child.st[ST_CASTLE] != ours.st[ST_CASTLE])
                left_out += by_design
                checked += not by_design
                if not by_design and want_key != child.key:
                    bad.append(f"{oracle.fen()} {to_uci(m)}")
            move = rng.choice(legal)
            oracle.push(move)
            ours.push_uci(move.uci())  # python-chess writes Chess960 castling king-to-rook, which parse_uci takes
    assert not bad, bad[:10]
    assert checked > 20 * left_out  # the early key is the exact one for nearly every move (41x here)
