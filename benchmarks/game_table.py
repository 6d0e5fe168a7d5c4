"""A game's table kept from ply to ply against fresh tables, at equal budget, judged by Stockfish (issue 69.4).

An S3 job's chunk searches a game's positions in order with the game's transposition table and histories
kept (functions/common/jobs/s3/chunk.py, engine/game_memory.py); /analyze searches each position with a
fresh table. Both are run here on the same positions at the same movetime, as they run there:
engine.analyse() with the analysis profile, one thread, the table sized by functions/common/analysis/
budget.py, and for "kept" one GameMemory a game, its positions searched from the start to the end.

The games: a seeded sample of the distinct standard-chess games of the match journals against Stockfish
(benchmarks/answers.py's JOURNALS; positions the engine never trained on), every position of each
(the start and after each move), the positions with no legal move left out. A game is searched fresh,
then kept, before the next game, so that a busy spell of the machine falls on both alike.

Judged as benchmarks/answers.py judges an answer (its Judge: Stockfish at --depth, one thread, verdicts
kept in --cache): Stockfish's move and score, and the score of the answer's move; win% lost, accuracy,
mistakes and blunders (Lichess's measures, engine/review.py), and the difference position by position.

    .venv/bin/python -m benchmarks.game_table [--games 12] [--ms 20] [--depth 12] [--record]
"""

import argparse
import io
import math
import random
import sys
import time

import chess.pgn

from benchmarks.answers import JOURNALS, MATE_CP, Judge, verdict
from benchmarks.common import cpu_times, record, steal_since, table
from training.wdl import distinct_games


def games(n, seed):
    """[(start FEN, [UCI moves])] of n distinct standard games of the journals, a seeded sample."""
    texts = [text for _, text in distinct_games(tuple(JOURNALS)) if "Chess960" not in text]
    random.Random(seed).shuffle(texts)
    out = []
    for text in texts[:n]:
        game = chess.pgn.read_game(io.StringIO(text))
        out.append((game.board().fen(), [m.uci() for m in game.mainline_moves()]))
    return out


def answers(start, moves, ms, kept):
    """[(FEN, move, cp for the mover, depth, nodes)] of every position of the game with a legal move."""
    from engine import analyse
    from engine.board import Board
    from engine.game_memory import GameMemory
    from functions.common.analysis.budget import hash_size_mb

    board = Board(start, capacity=len(moves) + 64)
    memory = GameMemory() if kept else None
    out = []
    try:
        for ply in range(len(moves) + 1):
            if board.legal_moves():
                found = analyse(board=board, movetime_ms=ms, hash_mb=hash_size_mb(ms, 1), threads=1, game=memory,
                                profile="analysis")
                s = found.score
                cp = s.cp if s.cp is not None else (MATE_CP if s.mate > 0 else -MATE_CP)
                out.append((board.fen(), found.best_move, cp, found.depth, found.nodes))
            if ply < len(moves):
                board.push_uci(moves[ply])
    finally:
        if memory is not None:
            memory.close()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--ms", type=int, default=20, help="the movetime of every search, both ways")
    ap.add_argument("--depth", type=int, default=12, help="Stockfish's depth for the judgement")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default="/tmp/kibitz-game-table-judge.json", help="Stockfish's verdicts, kept")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args(argv)
    sample = games(args.games, args.seed)
    judge = Judge(args.depth, args.cache)
    rows = {"fresh": [], "kept": []}
    start, t0 = cpu_times(), time.monotonic()
    try:
        for i, (fen, moves) in enumerate(sample):
            searched = {way: answers(fen, moves, args.ms, way == "kept") for way in rows}
            for way, found in searched.items():
                for position, move, cp, depth, nodes in found:
                    best_move, best_cp = judge.best(position)
                    rows[way].append((*verdict(best_move, best_cp, move, judge.score_of(position, move), cp), depth,
                                      nodes))
            judge.save()
            print(f"game_table: {i + 1}/{len(sample)} games, {len(rows['kept'])} positions, "
                  f"{time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    finally:
        judge.close()
    n = len(rows["kept"])
    body = []
    for way, r in rows.items():
        mean = lambda k, r=r: sum(x[k] for x in r) / n  # noqa: E731
        body.append([way, n, f"{mean(6):.1f}", f"{mean(7):,.0f}", f"{100 * mean(0):.1f}", f"{mean(1):.2f}",
                     f"{mean(2):.1f}", f"{100 * mean(3):.1f}", f"{100 * mean(4):.1f}", f"{mean(5):.2f}"])
    diffs = [k[1] - f[1] for f, k in zip(rows["fresh"], rows["kept"], strict=True)]  # win% lost, kept - fresh
    mean_d = sum(diffs) / n
    sd = math.sqrt(sum((d - mean_d) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    better, worse = sum(d < 0 for d in diffs), sum(d > 0 for d in diffs)
    out = (table([f"{args.ms} ms, judged by Stockfish at depth {args.depth}", "positions", "depth", "nodes",
                  "Stockfish's move %", "win% lost", "accuracy", "mistakes %", "blunders %", "score error, win%"],
                 body)
           + f"\n\nPosition by position, kept against fresh: kept lost less win% in {better}, more in {worse}, the "
             f"same in {n - better - worse}; the mean difference in win% lost (kept - fresh) {mean_d:+.3f} "
             f"± {1.96 * sd / math.sqrt(n):.3f} (95%). {args.games} games of the journals (seed {args.seed}), every "
             f"position with a legal move; one thread, the table sized by budget.py, the analysis profile both "
             f"ways. {steal_since(start)}.")
    print(out)
    if args.record:
        record(f"A game's table kept against fresh tables, {args.ms} ms (issue 69)", out,
               f"python -m benchmarks.game_table --games {args.games} --ms {args.ms} --depth {args.depth}")


if __name__ == "__main__":
    main()
