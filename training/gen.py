"""Self-play training data: Kibitz against itself at a fixed node count per move.

    python -m training gen --out ~/kibitz-data/gen1 --nodes 5000 --seed 1 --workers 2 [--games N]

Each game starts from a position of the 2-move book followed by a few random legal plies (1 to 6),
kept only if a quick search scores it within 400 cp, so the data covers more than the book's lines.
Then both sides search `--nodes` nodes a move (a fresh transposition table each, as every analysis
has). Positions are recorded when the side to move is not in check, the search's best move is
neither a capture nor a promotion (a quiet position: the static evaluation can know its value), and
the score is not a mate. The game's result is written into each of its positions when it ends.

Games end by the rules (mate, stalemate, fifty moves, threefold, dead material) or by adjudication:
a side ahead by `WIN_CP` or more for `WIN_PLIES` plies in a row wins, and after `DRAW_FROM_PLY`
plies a score within `DRAW_CP` for `DRAW_PLIES` plies is a draw; `MAX_PLIES` ends it drawn.

Every game's moves follow from (seed, game number) alone, and the search is deterministic at a
fixed node count, so a run is reproducible. Each worker appends to its own file; a run started again
with the same --out, --seed and --workers resumes after the last whole game of each file.
"""

import json
import multiprocessing
import os
import pathlib
import random
import subprocess
import sys
import time

import numpy as np

from training import records

WIN_CP = 1500
WIN_PLIES = 6
DRAW_CP = 8
DRAW_PLIES = 12
DRAW_FROM_PLY = 80
MAX_PLIES = 400
RANDOM_PLIES = (1, 6)
OPENING_MAX_CP = 400
ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "tests" / "data" / "openings_noob_2moves.epd"


def shard_path(out, seed, worker, workers):
    return pathlib.Path(out) / f"selfplay-s{seed}-w{worker}of{workers}.bin"


def opening(rng, book, nodes):
    """A book position plus a few random plies, scored within OPENING_MAX_CP by a quick search."""
    from engine import analyse
    from engine.board import Board

    while True:
        board = Board(" ".join(rng.choice(book).split()[:4]) + " 0 1")
        for _ in range(rng.randint(*RANDOM_PLIES)):
            legal = board.legal_moves()
            if not legal:
                break
            board.push(rng.choice(legal))
        r = analyse(board=board, nodes=nodes)
        if r.terminal is None and r.score.cp is not None and abs(r.score.cp) <= OPENING_MAX_CP:
            return board


def play_game(seed, game, book, nodes):
    """(records of the game's quiet positions, number of plies) for one self-play game."""
    from engine import analyse
    from engine.layout import F_CAPTURE, F_PROMO
    from engine.moves import move_flag

    rng = random.Random(f"{seed}:{game}")
    board = opening(rng, book, nodes)
    kept = []  # (mailbox, side, score)
    result = None  # White's: 0, 1, 2
    win_run = draw_run = 0
    plies = 0
    while result is None:
        r = analyse(board=board, nodes=nodes)
        if r.terminal is not None:
            result = 1 if r.terminal != "checkmate" else (0 if board.side == 0 else 2)
            break
        move = board.parse_uci(r.best_move)
        white_cp = None
        if r.score.mate is not None:
            white_cp = (1 if r.score.mate > 0 else -1) * 100_000 * (1 if board.side == 0 else -1)
        else:
            white_cp = r.score.cp if board.side == 0 else -r.score.cp
            if not board.in_check() and not move_flag(move) & (F_CAPTURE | F_PROMO):
                kept.append((board.board.copy(), board.side, r.score.cp))
        win_run = win_run + 1 if abs(white_cp) >= WIN_CP else 0
        draw_run = draw_run + 1 if abs(white_cp) <= DRAW_CP else 0
        if win_run >= WIN_PLIES:
            result = 2 if white_cp > 0 else 0
        elif plies >= DRAW_FROM_PLY and draw_run >= DRAW_PLIES:
            result = 1
        elif plies >= MAX_PLIES:
            result = 1
        board.push(move)
        plies += 1
    recs = np.zeros(len(kept), records.RECORD)
    for i, (mailbox, side, score) in enumerate(kept):
        recs[i] = records.pack(mailbox, side, score, result, game)
    return recs, plies


def worker(out, seed, index, workers, nodes, games, progress):
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    book = [line for line in BOOK.read_text().splitlines() if line.strip()]
    path = shard_path(out, seed, index, workers)
    done = records.read(path) if path.exists() else np.zeros(0, records.RECORD)
    # Resume after the last whole game: cut a torn record, then start at the next game of this worker.
    with open(path, "ab") as f:
        f.truncate(len(done) * records.RECORD.itemsize)
    k = (int(done["game"][-1]) - index) // workers + 1 if len(done) else 0
    with open(path, "ab") as f:
        while games is None or index + workers * k < games:
            game = index + workers * k
            recs, plies = play_game(seed, game, book, nodes)
            f.write(recs.tobytes())
            f.flush()
            progress.put((len(recs), plies))
            k += 1
    progress.put(None)


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return "unknown"


def run(out, seed=1, workers=2, nodes=5000, games=None):
    out = pathlib.Path(out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    from engine.bench import SIGNATURE

    meta_path = out / f"meta-s{seed}.json"
    meta = {"command": " ".join(["python -m training gen"] + sys.argv[2:]), "seed": seed, "workers": workers,
            "nodes": nodes, "commit": commit(), "bench": SIGNATURE, "book": BOOK.name,
            "random_plies": RANDOM_PLIES, "opening_max_cp": OPENING_MAX_CP,
            "adjudication": {"win_cp": WIN_CP, "win_plies": WIN_PLIES, "draw_cp": DRAW_CP,
                             "draw_plies": DRAW_PLIES, "draw_from_ply": DRAW_FROM_PLY, "max_plies": MAX_PLIES}}
    runs = json.loads(meta_path.read_text())["runs"] if meta_path.exists() else []
    meta["started"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    meta_path.write_text(json.dumps({"runs": runs + [meta]}, indent=2) + "\n")

    before = sum(len(records.read(shard_path(out, seed, w, workers))) for w in range(workers)
                 if shard_path(out, seed, w, workers).exists())
    ctx = multiprocessing.get_context("spawn")
    progress = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(str(out), seed, w, workers, nodes, games, progress), daemon=True)
             for w in range(workers)]
    for p in procs:
        p.start()
    t0 = time.monotonic()
    last = t0
    positions = n_games = plies = 0
    running = workers
    try:
        while running:
            item = progress.get()
            if item is None:
                running -= 1
                continue
            positions += item[0]
            plies += item[1]
            n_games += 1
            now = time.monotonic()
            if now - last >= 10:
                last = now
                rate = positions / (now - t0)
                print(f"gen: {n_games} games, {positions} positions this run ({before + positions} in all), "
                      f"{rate:.0f} positions/s, {plies / max(n_games, 1):.0f} plies a game", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        for p in procs:
            p.terminate()
    print(f"gen: done, {positions} positions from {n_games} games in {time.monotonic() - t0:.0f} s", flush=True)
