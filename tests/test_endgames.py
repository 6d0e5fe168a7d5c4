"""A bare king is mated: engine/core/endgames.py gives the search the way to the edge and the right corner.

Each game is Kibitz against itself at a small fixed node count, every move a fresh search (as the API
runs them), with the game's moves as history. Before the rule, bishop and knight ended in a 50-move draw
from these positions, and rook and queen took up to 31 moves.
"""

import chess
import pytest

from engine import analyse

NODES = 20000


def self_play(fen, max_moves):
    """Plays from fen; returns the final python-chess board."""
    b = chess.Board(fen)
    moves = []
    while not b.is_game_over(claim_draw=True) and b.fullmove_number < max_moves + 1:
        r = analyse(fen, moves=list(moves), nodes=NODES)
        moves.append(r.best_move)
        b.push_uci(r.best_move)
    return b


@pytest.mark.parametrize("fen,max_moves", [
    ("8/8/8/4k3/8/8/8/KBN5 w - - 0 1", 40),  # light bishop: mate on h1 or a8
    # Not mated inside the fifty-move rule while reverse futility pruned these positions (bench 2836256).
    ("8/8/8/3k4/8/8/8/K1NB4 w - - 0 1", 40),
    ("7k/8/8/8/8/8/8/KBN5 w - - 0 1", 45),  # the defender starts in the wrong corner
    ("8/8/8/4K3/8/8/8/knb5 b - - 0 1", 40),  # Black's, dark bishop: mate on a1 or h8
    ("8/8/8/4k3/8/8/8/KR6 w - - 0 1", 25),
    ("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", 15),
    ("8/8/8/3k4/8/8/8/KBB5 w - - 0 1", 25),
])
def test_the_bare_king_is_mated(fen, max_moves):
    b = self_play(fen, max_moves)
    assert b.is_checkmate(), f"no mate after {b.fullmove_number} moves: {b.fen()}"


@pytest.mark.parametrize("fen", [
    "8/8/8/4k3/8/8/8/KNN5 w - - 0 1",  # two knights cannot force mate
    "8/8/8/4k3/8/8/8/KB6 w - - 0 1",  # a lone bishop: dead
])
def test_no_mating_material_is_no_known_win(fen):
    r = analyse(fen, depth=10)
    assert r.score.cp is not None and abs(r.score.cp) < 1000
