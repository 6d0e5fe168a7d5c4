"""Self-play training data: Kibitz against itself at a fixed node count per move.

    python -m training gen --out ~/kibitz-data/gen1 --nodes 5000 --seed 1 --workers 2 [--games N] [--net NET]
        [--hard-nodes N] [--chess960 SHARE]

Each game starts from a position of the 2-move book followed by a few random legal plies (1 to 6),
kept only if the first search scores it within 400 cp, so the data covers more than the book's lines.
With --chess960 SHARE, that share of the games starts instead from one of the 960 Chess960 start
positions (then the same random plies), so that the net also sees the structures 960 openings make.
Then both sides search `--nodes` soft nodes a move (no depth starts after them; `--hard-nodes`, by
default four times as many, ends a depth that runs away), with the game's table and histories kept from
move to move as in a UCI game (training/selfplay.py plays the whole game in compiled code; before
2026-11-25 each move had a hard limit of `--nodes` and a fresh table and histories). Positions are
recorded when the side to move is not in check, the search's best move is neither a capture nor a
promotion (a quiet position: the static evaluation can know its value), and the score is not a mate.
The game's result is written into each of its positions when it ends.

The evaluation is the shipped net, or with --net another net file (the next round's data from this
round's net). Games end by the rules (mate, stalemate, fifty moves, threefold, dead material) or by
adjudication (training/selfplay.py: WIN_CP for WIN_PLIES plies wins, a score within DRAW_CP for
DRAW_PLIES plies after DRAW_FROM_PLY is a draw, MAX_PLIES ends it drawn).

Every game's moves follow from (seed, game number) alone, and the search is deterministic at a
fixed node count, so a run is reproducible. Each worker appends to its own file; a run started again
with the same --out, --seed and --workers resumes after the last whole game of each file.
"""

import json
import multiprocessing
import os
import pathlib
import queue
import random
import signal
import subprocess
import sys
import time

import numpy as np

from training import records

RANDOM_PLIES = (1, 6)
OPENING_MAX_CP = 400
TT_BUCKETS = 1 << 16  # 2 MB: room for a game's searches of a few thousand nodes each
HARD_NODES = 4  # --hard-nodes, in soft nodes
# The search's parameters where gen's differ from the engine's defaults. The scores it records are the
# net's training targets, so they stay in the net's own units: EgScale (the search's scaling of ending
# scores, engine/params.py) would otherwise be learnt by the next net and then applied to it again.
PARAMS = {"EgScale": 64}
ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "training" / "data" / "openings_noob_2moves.epd"


def shard_path(out, seed, worker, workers):
    return pathlib.Path(out) / f"selfplay-s{seed}-w{worker}of{workers}.bin"


class Player:
    """One worker's compiled self-play: the engine's arrays, made once and reused for every game."""

    def __init__(self, nodes, hard_nodes=None, net=None):
        from engine import deepening, native, nnue
        from engine.layout import ACC_SIZE, CONT_SIZE, MAX_MOVES, N_CTL

        self.nodes = nodes
        self.hard_nodes = hard_nodes or HARD_NODES * nodes
        self.stats = np.zeros(3, np.int64)  # nodes, depths and number of the searches so far
        self.T = native.TABLES
        self.NET = nnue.load(net) if net else native.NET
        self.template = deepening.scratch(PARAMS)
        self.S = self.template.copy()
        self.tt = np.zeros(TT_BUCKETS * 4, np.uint64)
        self.ctl = np.zeros(N_CTL, np.int64)
        self.acc = np.zeros(ACC_SIZE, np.int16)
        self.cont = np.zeros(CONT_SIZE, np.int16)
        self.moves = np.zeros(MAX_MOVES, np.int32)
        n = 1024
        self.out_board = np.zeros((n, 64), np.int8)
        self.out_side = np.zeros(n, np.int32)
        self.out_score = np.zeros(n, np.int64)

    def game(self, seed, game, book, chess960=0.0):
        """(records of the game's quiet positions, plies) for game number `game` of the run `seed`."""
        from engine.board import Board
        from engine.fen import chess960_fen
        from training import selfplay

        rng = random.Random(f"{seed}:{game}")
        # A draw only when asked: with no share, a game's moves are what they were before the option.
        start960 = chess960 > 0 and rng.random() < chess960
        while True:
            if start960:
                board = Board(chess960_fen(rng.randrange(960)), capacity=1024, chess960=True)
            else:
                board = Board(" ".join(rng.choice(book).split()[:4]) + " 0 1", capacity=1024)
            kept, result, plies = selfplay.play(
                self.T, self.NET, *board.arrays, self.tt, self.S, self.template, self.ctl, self.acc, self.cont,
                self.moves, rng.getrandbits(31), self.nodes, self.hard_nodes, rng.randint(*RANDOM_PLIES),
                OPENING_MAX_CP, self.out_board, self.out_side, self.out_score, self.stats)
            if kept >= 0:
                break
        recs = np.zeros(kept, records.RECORD)
        occ, pieces = np.zeros(kept, np.uint64), np.zeros((kept, 16), np.uint8)
        side, score = np.zeros(kept, np.uint8), np.zeros(kept, np.int16)
        results, games = np.zeros(kept, np.int8), np.zeros(kept, np.uint32)
        selfplay.pack(self.out_board, self.out_side, self.out_score, kept, result, game, occ, pieces, side, score,
                      results, games)
        recs["occ"], recs["pieces"], recs["stm"], recs["score"] = occ, pieces, side, score
        recs["result"], recs["game"] = results, games
        return recs, plies


def worker(out, seed, index, workers, nodes, hard_nodes, games, net, progress, chess960=0.0):
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    book = [line for line in BOOK.read_text().splitlines() if line.strip()]
    path = shard_path(out, seed, index, workers)
    done = records.read(path) if path.exists() else np.zeros(0, records.RECORD)
    # Resume after the last whole game: cut a torn record, then start at the next game of this worker.
    with open(path, "ab") as f:
        f.truncate(len(done) * records.RECORD.itemsize)
    k = (int(done["game"][-1]) - index) // workers + 1 if len(done) else 0
    player = Player(nodes, hard_nodes, net)
    with open(path, "ab") as f:
        while games is None or index + workers * k < games:
            game = index + workers * k
            before = player.stats.copy()
            recs, plies = player.game(seed, game, book, chess960)
            f.write(recs.tobytes())
            f.flush()
            progress.put((len(recs), plies, *(player.stats - before).tolist()))
            k += 1
    progress.put(None)


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return "unknown"


def run(out, seed=1, workers=2, nodes=5000, games=None, net=None, hard_nodes=None, chess960=0.0):
    if not 0 <= chess960 <= 1:
        raise SystemExit(f"gen: --chess960 is a share of the games, 0 to 1, not {chess960}")
    out = pathlib.Path(out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    from engine.bench import SIGNATURE
    from training import selfplay

    meta_path = out / f"meta-s{seed}.json"
    meta = {"command": " ".join(["python -m training gen"] + sys.argv[2:]), "seed": seed, "workers": workers,
            "nodes": nodes, "hard_nodes": hard_nodes or HARD_NODES * nodes, "table_and_histories": "kept in a game",
            "commit": commit(), "bench": SIGNATURE, "book": BOOK.name, "net": net, "chess960_share": chess960,
            "random_plies": RANDOM_PLIES, "opening_max_cp": OPENING_MAX_CP, "params": PARAMS,
            "adjudication": {"win_cp": selfplay.WIN_CP, "win_plies": selfplay.WIN_PLIES,
                             "draw_cp": selfplay.DRAW_CP, "draw_plies": selfplay.DRAW_PLIES,
                             "draw_from_ply": selfplay.DRAW_FROM_PLY, "max_plies": selfplay.MAX_PLIES}}
    runs = json.loads(meta_path.read_text())["runs"] if meta_path.exists() else []
    meta["started"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    meta_path.write_text(json.dumps({"runs": runs + [meta]}, indent=2) + "\n")

    shards = max(workers, 1)  # in-process (workers=0): one file, as one worker would write
    before = sum(len(records.read(shard_path(out, seed, w, shards))) for w in range(shards)
                 if shard_path(out, seed, w, shards).exists())
    t0 = time.monotonic()
    positions = n_games = plies = 0
    searched = np.zeros(3, np.int64)  # nodes, depths, searches
    if workers == 0:  # in this process: no start-up of its own (the tests, a compiled search already here)
        progress = queue.SimpleQueue()
        worker(str(out), seed, 0, 1, nodes, hard_nodes, games, net, progress, chess960)
        for item in iter(progress.get, None):
            positions, n_games = positions + item[0], n_games + 1
        print(f"gen: done, {positions} positions from {n_games} games in {time.monotonic() - t0:.0f} s", flush=True)
        return

    def stop(signum, frame):
        raise KeyboardInterrupt  # SIGTERM stops the workers as Ctrl-C does (they are daemons of this process)

    previous = signal.signal(signal.SIGTERM, stop)
    ctx = multiprocessing.get_context("spawn")
    progress = ctx.Queue()
    procs = [ctx.Process(target=worker, daemon=True,
                         args=(str(out), seed, w, workers, nodes, hard_nodes, games, net, progress, chess960))
             for w in range(workers)]
    for p in procs:
        p.start()
    last = t0
    running = workers
    try:
        while running:
            try:
                item = progress.get(timeout=5)
            except queue.Empty:
                dead = [i for i, p in enumerate(procs) if p.exitcode not in (None, 0)]
                if dead:
                    raise RuntimeError(f"gen: worker {dead[0]} died (exit code {procs[dead[0]].exitcode})") from None
                continue
            if item is None:
                running -= 1
                continue
            positions += item[0]
            plies += item[1]
            searched += item[2:]
            n_games += 1
            now = time.monotonic()
            if now - last >= 10:
                last = now
                rate = positions / (now - t0)
                print(f"gen: {n_games} games, {positions} positions this run ({before + positions} in all), "
                      f"{rate:.0f} positions/s, {plies / max(n_games, 1):.0f} plies a game, "
                      f"{searched[0] / max(searched[2], 1):.0f} nodes and depth "
                      f"{searched[1] / max(searched[2], 1):.1f} a search", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        for p in procs:
            p.terminate()
        signal.signal(signal.SIGTERM, previous)
    print(f"gen: done, {positions} positions from {n_games} games in {time.monotonic() - t0:.0f} s", flush=True)
