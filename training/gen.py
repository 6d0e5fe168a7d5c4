"""Self-play training games: Kibitz against itself at a fixed node count per move, into the game store.

    python -m training gen --run gen23 --nodes 5000 --seed 23 --workers 2 [--games N] [--net NET]
        [--hard-nodes N] [--chess960 SHARE] [--store training/games]

Each game starts from a position of the 2-move book followed by a few random legal plies (1 to 6),
kept only if the first search scores it within 400 cp, so the data covers more than the book's lines.
With --chess960 SHARE, that share of the games starts instead from one of the 960 Chess960 start
positions (then the same random plies), so that the net also sees the structures 960 openings make.
Then both sides search `--nodes` soft nodes a move (no depth starts after them; `--hard-nodes`, by
default four times as many, ends a depth that runs away), with the game's table and histories kept from
move to move as in a UCI game (training/selfplay.py plays the whole game in compiled code).

Every game goes into the store (training/store.py): its start, every move, every search's score, the
result and why it ended. Each worker appends its games to a journal (training/games/RUN/journal/, not
committed) and every CHUNK_GAMES games (or every hour) seals them into a chunk, training/games/RUN/*.kgs, after checking
that the chunk reads back as exactly the games and the training positions it recorded (not in check, a
quiet best move, no mate score). `python -m training store commit` commits the sealed chunks.

The evaluation is the shipped net, or with --net another net file (the next round's data from this
round's net). Games end by the rules (mate, stalemate, fifty moves, threefold, dead material) or by
adjudication (training/selfplay.py: WIN_CP for WIN_PLIES plies wins, a score within DRAW_CP for
DRAW_PLIES plies after DRAW_FROM_PLY is a draw, MAX_PLIES ends it drawn).

Every game's moves follow from (seed, game number) alone, and the search is deterministic at a
fixed node count, so a run is reproducible. A run started again with the same --run, --seed and
--workers resumes after the last whole game in each worker's chunks and journal.
"""

import multiprocessing
import os
import pathlib
import queue
import random
import signal
import sys
import time

import numpy as np

from training import records, store

RANDOM_PLIES = (1, 6)
OPENING_MAX_CP = 400
TT_BUCKETS = 1 << 16  # 2 MB: room for a game's searches of a few thousand nodes each
HARD_NODES = 4  # --hard-nodes, in soft nodes
SEAL_MINUTES = 60  # a worker seals its journal into a chunk at least this often
# The search's parameters where gen's differ from the engine's defaults. The scores it records are the
# net's training targets, so they stay in the net's own units: EgScale (the search's scaling of ending
# scores, engine/params.py) would otherwise be learnt by the next net and then applied to it again.
PARAMS = {"EgScale": 64}
ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "training" / "data" / "openings_noob_2moves.epd"


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
        self.out_moves = np.zeros(n, np.int32)
        self.out_scores = np.zeros(n, np.int32)

    def game(self, seed, game, book, chess960=0.0):
        """(the game as the store keeps it, the records of its quiet positions, plies searched) for game
        number `game` of the run `seed`."""
        from engine.board import Board
        from engine.fen import chess960_fen
        from training import selfplay

        rng = random.Random(f"{seed}:{game}")
        # A draw only when asked: with no share, a game's moves are what they were before the option.
        start960 = chess960 > 0 and rng.random() < chess960
        while True:
            if start960:
                fen = chess960_fen(rng.randrange(960))
            else:
                fen = " ".join(rng.choice(book).split()[:4]) + " 0 1"
            board = Board(fen, capacity=1024, chess960=start960)
            random_plies = rng.randint(*RANDOM_PLIES)
            kept, result, end, n_moves = selfplay.play(
                self.T, self.NET, *board.arrays, self.tt, self.S, self.template, self.ctl, self.acc, self.cont,
                self.moves, rng.getrandbits(31), self.nodes, self.hard_nodes, random_plies,
                OPENING_MAX_CP, self.out_board, self.out_side, self.out_score, self.out_moves, self.out_scores,
                self.stats)
            if kept >= 0:
                break
        recs = records.from_boards(self.out_board[:kept], self.out_side[:kept], self.out_score[:kept],
                                   np.full(kept, result), np.full(kept, game))
        searched = n_moves - random_plies
        played = store.Game(game, fen, start960, random_plies, self.out_moves[:n_moves].copy(),
                            self.out_scores[:searched].copy(), result, end)
        return played, recs, searched


def worker(folder, run, seed, index, workers, nodes, hard_nodes, games, net, progress, provenance, chess960=0.0,
           chunk_games=store.CHUNK_GAMES, seal_minutes=SEAL_MINUTES):
    """Plays this worker's games (index, index + workers, ...), appending each to its journal, and seals a
    chunk into the store every `chunk_games` games, or sooner once its games have taken `seal_minutes` (on a
    busy machine a chunk's games would otherwise sit uncommitted for hours)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    book = [line for line in BOOK.read_text().splitlines() if line.strip()]
    folder = pathlib.Path(folder)
    journal = store.Journal(journal_path(folder, run, index, workers))
    sealed = store.sealed_games(folder / run, run, index, workers)
    # A kill after a seal and before the journal was emptied leaves games of the chunk in it: drop them.
    if sealed is not None and journal.games and journal.games[0].game <= sealed:
        keep = [i for i, g in enumerate(journal.games) if g.game > sealed]
        games_kept, recs_kept = [journal.games[i] for i in keep], [journal.recs[i] for i in keep]
        journal.clear()
        for g, r in zip(games_kept, recs_kept, strict=True):
            journal.append(g, r)
    last = journal.games[-1].game if journal.games else sealed
    k = (last - index) // workers + 1 if last is not None else 0
    player = Player(nodes, hard_nodes, net)
    settings = {**provenance, "worker": index, "workers": workers}

    started = time.monotonic()

    def seal():
        nonlocal started
        first = journal.games[0].game
        store.seal(journal, folder / run, store.chunk_name(run, index, workers, first), settings)
        started = time.monotonic()

    while games is None or index + workers * k < games:
        game = index + workers * k
        before = player.stats.copy()
        played, recs, plies = player.game(seed, game, book, chess960)
        journal.append(played, recs)
        if len(journal.games) >= chunk_games or time.monotonic() - started >= 60 * seal_minutes:
            seal()
        progress.put((len(recs), plies, *(player.stats - before).tolist()))
        k += 1
    if journal.games:  # a run of a fixed number of games ends with its last chunk sealed, however short
        seal()
    progress.put(None)


def journal_path(folder, run, worker, workers):
    """Where a worker keeps its games until they fill a chunk (outside git: training/games/.gitignore)."""
    return pathlib.Path(folder) / run / "journal" / f"w{worker}of{workers}.bin"


def provenance(run, seed, nodes, hard_nodes, net, chess960):
    """What every chunk of this run carries: enough to say what played its games and to play them again."""
    from engine.bench import SIGNATURE
    from engine.nnue import DEFAULT_NET
    from training import selfplay

    return {"run": run, "command": " ".join(["python -m training gen"] + sys.argv[2:]), **store.code_version(),
            "seed": seed, "nodes": nodes, "hard_nodes": hard_nodes or HARD_NODES * nodes,
            "table_and_histories": "kept in a game", "bench": SIGNATURE,
            "net": str(net) if net else "engine/nets/kibitz.nnue", "net_sha256": store.sha256_file(net or DEFAULT_NET),
            "book": BOOK.name, "book_sha256": store.sha256_file(BOOK), "chess960_share": chess960,
            "random_plies": RANDOM_PLIES, "opening_max_cp": OPENING_MAX_CP, "params": PARAMS,
            "adjudication": {"win_cp": selfplay.WIN_CP, "win_plies": selfplay.WIN_PLIES,
                             "draw_cp": selfplay.DRAW_CP, "draw_plies": selfplay.DRAW_PLIES,
                             "draw_from_ply": selfplay.DRAW_FROM_PLY, "max_plies": selfplay.MAX_PLIES}}


def run(run, store_dir=store.STORE, seed=1, workers=2, nodes=5000, games=None, net=None, hard_nodes=None,
        chess960=0.0, chunk_games=store.CHUNK_GAMES, seal_minutes=SEAL_MINUTES):
    if not 0 <= chess960 <= 1:
        raise SystemExit(f"gen: --chess960 is a share of the games, 0 to 1, not {chess960}")
    if not run or "/" in run or run.startswith("."):
        raise SystemExit(f"gen: --run is a folder name in the store, such as gen23, not {run!r}")
    folder = pathlib.Path(store_dir).expanduser()
    (folder / run).mkdir(parents=True, exist_ok=True)
    settings = provenance(run, seed, nodes, hard_nodes, net, chess960)
    before = sum(store.read_header(c)["positions"] for c in store.chunks(folder / run))
    t0 = time.monotonic()
    positions = n_games = plies = 0
    searched = np.zeros(3, np.int64)  # nodes, depths, searches
    shards = max(workers, 1)
    if workers == 0:  # in this process: no start-up of its own (the tests, a compiled search already here)
        progress = queue.SimpleQueue()
        worker(str(folder), run, seed, 0, 1, nodes, hard_nodes, games, net, progress, settings, chess960, chunk_games,
               seal_minutes)
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
                         args=(str(folder), run, seed, w, shards, nodes, hard_nodes, games, net, progress, settings,
                               chess960, chunk_games, seal_minutes))
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
            if now - last >= 60:
                last = now
                rate = positions / (now - t0)
                print(f"gen: {n_games} games, {positions} positions this run ({before + positions} in the run's "
                      f"chunks and journals), {rate:.0f} positions/s, {plies / max(n_games, 1):.0f} plies a game, "
                      f"{searched[0] / max(searched[2], 1):.0f} nodes and depth "
                      f"{searched[1] / max(searched[2], 1):.1f} a search", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        for p in procs:
            p.terminate()
        signal.signal(signal.SIGTERM, previous)
    print(f"gen: done, {positions} positions from {n_games} games in {time.monotonic() - t0:.0f} s", flush=True)
