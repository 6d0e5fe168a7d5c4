"""Won endings that are draws: Kibitz's searches of the ladder's drawn endings, replayed as a UCI game runs them.

    .venv/bin/python benchmarks/endgame_claims.py [--nodes 1000000] [--b-dir OTHER_BUILT_CHECKOUT]

Ladder games (benchmarks/journals) that were drawn although Kibitz, at some move, scored them won by 15 pawns
or more. Each is replayed from its own moves: Kibitz's search of each of its moves, from 8 moves before that
claim to 4 after, with the table and histories kept from move to move (engine/game_memory.py), a fixed node
count a move so that a run is the same on any machine. Every one of these games was drawn: a search scoring
10 pawns or more either way is a false claim, but for netn1's pair 87 (queen against rook, mate in 37 by
Stockfish 15.1), the one real win among them, left out of the count. The engine is the checkout this runs
from; --b-dir runs the same replays in another checkout (a worktree of the commit before) and prints both.
"""

import argparse
import io
import pathlib
import subprocess
import sys

import chess.pgn

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path.cwd()))
from benchmarks.common import read_journal  # noqa: E402 (the checkout in the working directory)
from engine import deepening  # noqa: E402
from engine.game_memory import GameMemory  # noqa: E402

JOURNALS = pathlib.Path(__file__).resolve().parent / "journals"
CLAIM_CP = 1000
# (journal run, pair, game of the pair, Kibitz's move of the claim); the ending each is named in the comment
CASES = [
    ("pf1", 24, 0, 66),  # dark bishop and a-pawn against the king on a8
    ("pf1", 87, 1, 57),  # light bishop and a-pawn against king and pawn, the king reaches a1
    ("pf1", 96, 0, 93),  # dark bishop and a-pawn against king and light bishop
    ("x6", 6, 1, 120),  # dark bishop and h-pawn against king and pawns
    ("x6", 37, 1, 280),  # rook and pawn against rook
    ("x6", 53, 0, 76),  # rook against rook and a-pawn
    ("x6", 92, 1, 114),  # light bishop and a-pawn against king and pawn
    ("ts", 39, 1, 129),  # rook against knight
    ("ts", 41, 0, 262),  # light bishop and h-pawn against king and pawn
    ("ts", 53, 0, 79),  # light bishop and h-pawn against the king on h8
    ("w256", 13, 1, 61),  # dark bishop and h-pawn against king and pawn
    ("w256", 43, 0, 91),  # bishop, knight and pawn against rook
    ("w256", 87, 0, 70),  # rook and pawn against rook and pawn
    ("s1", 0, 1, 218),  # dark bishop and h-pawn
    ("s1", 18, 1, 69),  # bishop and a-pawns against pawn
    ("s1", 26, 0, 142),  # light bishop and pawns against knight and pawn
    ("s1", 32, 1, 70),  # rook against rook and pawn
    ("s1", 67, 1, 233),  # bishop against bishop and pawns
    ("s1", 93, 0, 296),  # light bishop and h-pawn against bishop and pawn
    ("netn1", 87, 1, 189),  # queen against rook: won (not converted), the one real claim
    ("netn1", 99, 0, 74),  # light bishop and h-pawn against pawn
    ("r2", 61, 0, 106),  # rook and h-pawn against rook
    ("r2", 65, 1, 71),  # rook against rook and pawn
    ("se", 28, 1, 76),  # bishop and pawn against bishop and pawn
]
REAL_WINS = {("netn1", 87, 1)}


def game_of(run, pair, index):
    for entry in read_journal(JOURNALS / f"m-sf2600-{run}.jsonl")[1]:
        if entry["pair"] == pair:
            return chess.pgn.read_game(io.StringIO(entry["pgn"][index]))
    raise SystemExit(f"pair {pair} not in {run}'s journal")


def replay(game, move, nodes):
    """Kibitz's scores (cp, mates as +-30000) for its moves from move - 8 to move + 4."""
    start = game.headers["FEN"]
    moves = [n.move.uci() for n in game.mainline()]
    first = 0 if game.headers["White"] == "A" else 1
    memory = GameMemory()
    scores = []
    try:
        for ply in range(max(2 * (move - 9) + first, first), min(2 * (move + 4), len(moves)), 2):
            r = deepening.run(start, moves[:ply], nodes=nodes, game=memory)
            scores.append(r.score.cp if r.score.cp is not None else (30000 if r.score.mate > 0 else -30000))
    finally:
        memory.close()
    return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--b-dir", help="another built checkout to count the same way, side by side")
    args = parser.parse_args()
    searches = false_claims = 0
    print("| game | Kibitz's scores, move by move (cp) | false claims |")
    print("|---|---|---|")
    for run, pair, index, move in CASES:
        scores = replay(game_of(run, pair, index), move, args.nodes)
        claims = 0 if (run, pair, index) in REAL_WINS else sum(abs(s) >= CLAIM_CP for s in scores)
        searches += len(scores)
        false_claims += claims
        print(f"| {run} pair {pair} game {index}, move {move} | {' '.join(map(str, scores))} | {claims} |", flush=True)
    print(f"\n{false_claims} false claims of >= {CLAIM_CP // 100} pawns in {searches} searches "
          f"({args.nodes} nodes a move, table kept).")
    if args.b_dir:
        other = subprocess.run([sys.executable, __file__, "--nodes", str(args.nodes)], cwd=args.b_dir,
                               capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        print(f"B ({args.b_dir}): {other}")


if __name__ == "__main__":
    main()
