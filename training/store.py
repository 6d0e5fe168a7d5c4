"""The game store: every self-play game, kept in the repository as compact chunks written once.

    training/games/RUN/RUN-wWofN-gFIRST.kgs      one gen worker's games FIRST, FIRST + N, ... (CHUNK_GAMES)

The store keeps games, not positions: each game's start position, every move, the search's score of every
searched move, the result and why the game ended. The reader replays the moves with the engine's own move
generator and derives the training positions (`positions()`) with today's filter (TODAY: not in check, a
quiet best move, no mate score) or any later one; a re-scoring reads the same games. A chunk is never
rewritten (gen seals it once, under a name no other chunk can take), so git stores each chunk once and the
store only grows.

A chunk file (little-endian):

    b"KIBITZGS"           magic
    u32                   length of the header
    header                UTF-8 JSON: "format" (1), "provenance" (the commit, the net's sha256, the command,
                          seed and worker, every setting of the run), the counts ("games", "moves", "scores",
                          "positions": training positions by TODAY), "columns" (name, numpy dtype or "text",
                          count, compressed bytes and the sha256 of the uncompressed bytes, in file order)
    columns               each compressed alone, raw LZMA2 (preset 9e), in the header's order:
      starts   text         the games' distinct start positions, a line each: FEN, tab, 1 if Chess960 else 0
      game     u32 [games]  the game's number in its run (worker + workers * k)
      start    u16 [games]  the game's line of "starts"
      random   u8  [games]  opening plies played at random, before the first search (they carry no score)
      moves    u16 [games]  moves in the game: random ones, then one per search
      result   u8  [games]  White's result: 0 loss, 1 draw, 2 win
      end      u8  [games]  why the game ended: ENDS[end]
      move     u8  [moves]  each move as its rank among the position's legal moves ordered by move_key()
      score    u16 [scores] each searched move's score (side to move, centipawns; mates as the engine
                            writes them), zigzag-coded after adding the previous searched move's score
                            (the other side's, so about its negation): mostly small numbers

A game whose last search adjudicated it (ENDS 5 and 6) keeps that search's move, as the others' are kept:
the position before it is a training position like any other, and the move is the search's choice.

A move's rank is independent of the move generator's order: move_key() orders moves by from-square,
to-square (a castling king's destination, as engine/layout.py encodes it) and kind (promotion piece, then
castling side). Decoding needs only a correct legal-move generator, which the perft suites pin down.
"""

import hashlib
import json
import lzma
import os
import pathlib
import struct
import subprocess
import time
import zlib

import numpy as np
from numba import njit

from engine.core.movegen import checkers_of, generate
from engine.core.position import make_move
from engine.layout import F_CAPTURE, F_KING_CASTLE, F_PROMO, F_QUEEN_CASTLE, GEN_ALL, MATE_BOUND, MAX_MOVES, ST_SIDE
from training import records

FORMAT = 1
MAGIC = b"KIBITZGS"
SUFFIX = ".kgs"
ROOT = pathlib.Path(__file__).resolve().parents[1]
STORE = ROOT / "training" / "games"
CHUNK_GAMES = 1000  # a worker's chunk: some 120k positions, ~20 minutes of one core at 5000 nodes a move
FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}]
COLUMNS = (("starts", "text"), ("game", "<u4"), ("start", "<u2"), ("random", "u1"), ("moves", "<u2"), ("result", "u1"),
           ("end", "u1"), ("move", "u1"), ("score", "<u2"))

# Why a game ended (the codes are the format's: never renumber, only append).
END_CHECKMATE, END_STALEMATE, END_FIFTY, END_THREEFOLD, END_MATERIAL = 0, 1, 2, 3, 4
END_WIN_ADJUDICATED, END_DRAW_ADJUDICATED, END_PLY_LIMIT = 5, 6, 7
ENDS = ("checkmate", "stalemate", "fifty-move rule", "threefold repetition", "insufficient material",
        "win adjudication", "draw adjudication", "ply limit")

# Which searched positions become training positions: (leave out positions in check, leave out those whose
# best move is a capture or a promotion, leave out mate scores).
TODAY = (True, True, True)
EVERY = (False, False, False)


class StoreError(ValueError):
    """A chunk that is not a chunk of this format, or whose contents do not read back as written."""


# --- moves as ranks ----------------------------------------------------------------------------------


@njit(inline="always")
def move_key(m):
    """The order ranks count in: from-square, to-square, then kind (0 plain, 1-4 promotion to N/B/R/Q,
    5 and 6 castling king- and queen-side, which in Chess960 can share both squares with a plain king move)."""
    flag = (m >> 12) & 15
    kind = 0
    if flag & F_PROMO:
        kind = (flag & 3) + 1
    elif flag == F_KING_CASTLE:
        kind = 5
    elif flag == F_QUEEN_CASTLE:
        kind = 6
    return ((m & 63) << 9) | (((m >> 6) & 63) << 3) | kind


@njit(cache=True)
def _encode(T, bb, board, st, keys, undo, game_moves, n, buf, out):
    """The ranks of a game's n moves, played from the position in the arrays (which they change); -1 if a
    move is not legal where it is played."""
    for i in range(n):
        m = game_moves[i]
        count = generate(T, bb, st, buf, 0, GEN_ALL)
        key = move_key(m)
        rank = 0
        legal = False
        for j in range(count):
            k = move_key(buf[j])
            if k < key:
                rank += 1
            elif buf[j] == m:
                legal = True
        if not legal:
            return -1
        out[i] = rank
        make_move(T, bb, board, st, keys, undo, m)
    return n


@njit(cache=True)
def _decode(T, bb, board, st, keys, undo, ranks, n, random_plies, scores, result, game, no_check, no_noisy,
            no_mate, buf, order, moves_out, boards, sides, out_scores, results, games, k):
    """Replays a game's n moves from the position in the arrays, writing each move into moves_out and each
    searched position that the filter keeps into boards/sides/out_scores/results/games from row k on.
    Returns the next free row, or -1 - i if move i's rank is past the legal moves (a corrupt chunk)."""
    for i in range(n):
        count = generate(T, bb, st, buf, 0, GEN_ALL)
        r = ranks[i]
        if r >= count:
            return -1 - i
        # The move of rank r: an insertion sort of the keys (some 35 moves), no allocation.
        for j in range(count):
            order[j] = move_key(buf[j])
            x = order[j]
            y = buf[j]
            p = j
            while p > 0 and order[p - 1] > x:
                order[p] = order[p - 1]
                buf[p] = buf[p - 1]
                p -= 1
            order[p] = x
            buf[p] = y
        m = buf[r]
        moves_out[i] = m
        if i >= random_plies:
            s = scores[i - random_plies]
            keep = True
            if no_mate and abs(s) >= MATE_BOUND:
                keep = False
            if keep and no_noisy and (m >> 12) & (F_CAPTURE | F_PROMO):
                keep = False
            if keep and no_check and checkers_of(T, bb, st) != 0:
                keep = False
            if keep:
                boards[k, :] = board
                sides[k] = st[ST_SIDE]
                out_scores[k] = s
                results[k] = result
                games[k] = game
                k += 1
        make_move(T, bb, board, st, keys, undo, m)
    return k


def zigzag(scores):
    """Searched moves' scores (int, side to move) -> the stored u16 residuals."""
    s = np.asarray(scores, np.int32)
    d = s + np.concatenate([[0], s[:-1]])
    return ((d << 1) ^ (d >> 31)).astype(np.uint16)


def unzigzag(codes, bounds):
    """The inverse of zigzag(), game by game: bounds[g]:bounds[g+1] are game g's scores."""
    c = codes.astype(np.int32)
    d = (c >> 1) ^ -(c & 1)
    s = np.empty_like(d)
    _unfold(d, bounds, s)
    return s


@njit(cache=True)
def _unfold(d, bounds, out):
    for g in range(len(bounds) - 1):
        prev = 0
        for i in range(bounds[g], bounds[g + 1]):
            prev = d[i] - prev
            out[i] = prev


# --- games in memory ------------------------------------------------------------------------------


class Game:
    """One self-play game: where it started, its moves (engine/layout.py's encoding), the searched moves'
    scores, White's result (0, 1, 2) and why it ended (ENDS)."""

    __slots__ = ("game", "fen", "chess960", "random", "moves", "scores", "result", "end")

    def __init__(self, game, fen, chess960, random, moves, scores, result, end):
        self.game, self.fen, self.chess960, self.random = int(game), fen, bool(chess960), int(random)
        self.moves = np.asarray(moves, np.int32)
        self.scores = np.asarray(scores, np.int32)
        self.result, self.end = int(result), int(end)
        if len(self.scores) != len(self.moves) - self.random:
            raise StoreError(f"game {self.game}: {len(self.moves)} moves, {self.random} random, "
                             f"but {len(self.scores)} scores")

    def __eq__(self, other):
        return (isinstance(other, Game) and (self.game, self.fen, self.chess960, self.random, self.result, self.end)
                == (other.game, other.fen, other.chess960, other.random, other.result, other.end)
                and np.array_equal(self.moves, other.moves) and np.array_equal(self.scores, other.scores))

    def __repr__(self):
        return f"Game({self.game}, {self.fen!r}, {len(self.moves)} moves, {ENDS[self.end]}, result {self.result})"


_boards = {}


def _start(fen, chess960):
    """The arrays of a start position (a fresh copy; the parsed Board is kept, starts repeat)."""
    from engine.board import Board

    key = (fen, chess960)
    if key not in _boards:
        _boards[key] = Board(fen, capacity=1024, chess960=chess960)
    return _boards[key].copy()


def _tables():
    from engine import native

    return native.TABLES


# --- chunks ------------------------------------------------------------------------------------------


def encode(games, provenance):
    """The bytes of a chunk holding `games` (a list of Game), with its provenance (a dict)."""
    if not games:
        raise StoreError("a chunk holds at least one game")
    T = _tables()
    buf = np.zeros(MAX_MOVES, np.int32)
    starts, start_of = [], {}
    cols = {name: [] for name, _ in COLUMNS}
    for g in games:
        key = (g.fen, g.chess960)
        if key not in start_of:
            start_of[key] = len(starts)
            starts.append([g.fen, g.chess960])
        if len(g.moves) > 65535 or g.random > 255:
            raise StoreError(f"game {g.game}: {len(g.moves)} moves, {g.random} random: past the format's fields")
        board = _start(g.fen, g.chess960)
        ranks = np.zeros(len(g.moves), np.uint8)
        if _encode(T, *board.arrays, g.moves, len(g.moves), buf, ranks) < 0:
            raise StoreError(f"game {g.game}: a move that is not legal where it is played")
        for name, value in (("game", g.game), ("start", start_of[key]), ("random", g.random),
                            ("moves", len(g.moves)), ("result", g.result), ("end", g.end)):
            cols[name].append(value)
        cols["move"].append(ranks)
        cols["score"].append(zigzag(g.scores))
    arrays = {"starts": starts}
    for name, dtype in COLUMNS[1:]:
        parts = cols[name]
        arrays[name] = (np.concatenate(parts) if name in ("move", "score") else np.array(parts)).astype(dtype)
    header = {"format": FORMAT, "provenance": provenance, "games": len(games), "moves": int(len(arrays["move"])),
              "scores": int(len(arrays["score"])), "first_game": games[0].game, "last_game": games[-1].game,
              "compression": "raw LZMA2, preset 9e", "columns": []}
    blobs = []
    for name, dtype in COLUMNS:
        if dtype == "text":
            raw = "".join(f"{fen}\t{int(c960)}\n" for fen, c960 in starts).encode()
        else:
            raw = arrays[name].tobytes()
        blob = lzma.compress(raw, format=lzma.FORMAT_RAW, filters=FILTERS)
        blobs.append(blob)
        header["columns"].append({"name": name, "dtype": dtype, "count": int(len(arrays[name])), "bytes": len(blob),
                                  "sha256": hashlib.sha256(raw).hexdigest()})
    header["positions"] = int(len(positions_of(header, arrays)))
    head = json.dumps(header, separators=(",", ":")).encode()
    return MAGIC + struct.pack("<I", len(head)) + head + b"".join(blobs)


def read_header(path):
    """A chunk's header (a dict), without decompressing its columns."""
    with open(path, "rb") as f:
        start = f.read(12)
        if len(start) < 12 or start[:8] != MAGIC:
            raise StoreError(f"{path}: not a game-store chunk (no {MAGIC!r} at its start)")
        (n,) = struct.unpack("<I", start[8:])
        head = f.read(n)
    if len(head) < n:
        raise StoreError(f"{path}: cut short inside its header")
    header = json.loads(head)
    if header.get("format") != FORMAT:
        raise StoreError(f"{path}: format {header.get('format')!r}, this reader knows {FORMAT}")
    return header


def decode(data, name="chunk"):
    """(header, columns as numpy arrays) of a chunk's bytes, every column checked against its sha256."""
    if data[:8] != MAGIC:
        raise StoreError(f"{name}: not a game-store chunk (no {MAGIC!r} at its start)")
    (n,) = struct.unpack("<I", data[8:12])
    header = json.loads(data[12:12 + n])
    if header.get("format") != FORMAT:
        raise StoreError(f"{name}: format {header.get('format')!r}, this reader knows {FORMAT}")
    at = 12 + n
    arrays = {}
    for col in header["columns"]:
        blob = data[at:at + col["bytes"]]
        at += col["bytes"]
        try:
            raw = lzma.decompress(blob, format=lzma.FORMAT_RAW, filters=FILTERS)
        except lzma.LZMAError as err:
            raise StoreError(f"{name}: column {col['name']} does not decompress ({err})") from None
        if hashlib.sha256(raw).hexdigest() != col["sha256"]:
            raise StoreError(f"{name}: column {col['name']} does not match its sha256")
        if col["dtype"] == "text":
            arrays[col["name"]] = [[fen, bool(int(c960))] for fen, c960 in
                                   (line.split("\t") for line in raw.decode().splitlines())]
        else:
            arrays[col["name"]] = np.frombuffer(raw, col["dtype"])
        if len(arrays[col["name"]]) != col["count"]:
            raise StoreError(f"{name}: column {col['name']} holds {len(arrays[col['name']])}, not {col['count']}")
    if at != len(data):
        raise StoreError(f"{name}: {len(data) - at} bytes past its last column")
    return header, arrays


def _replay(header, arrays, flt, want_moves=False):
    """Replays every game of a decoded chunk: (records of the positions `flt` keeps, the games' moves)."""
    T = _tables()
    n_games = header["games"]
    moves_per_game = arrays["moves"].astype(np.int64)
    move_at = np.concatenate([[0], np.cumsum(moves_per_game)])
    scored = moves_per_game - arrays["random"]
    score_at = np.concatenate([[0], np.cumsum(scored)])
    scores = unzigzag(arrays["score"], score_at)
    n = len(scores)
    boards = np.zeros((n, 64), np.int8)
    sides = np.zeros(n, np.int32)
    out_scores = np.zeros(n, np.int64)
    results = np.zeros(n, np.int8)
    games = np.zeros(n, np.uint32)
    buf = np.zeros(MAX_MOVES, np.int32)
    order = np.zeros(MAX_MOVES, np.int64)
    all_moves = np.zeros(len(arrays["move"]), np.int32)
    k = 0
    for g in range(n_games):
        fen, chess960 = arrays["starts"][arrays["start"][g]]
        board = _start(fen, chess960)
        a, b = move_at[g], move_at[g + 1]
        k2 = _decode(T, *board.arrays, arrays["move"][a:b], b - a, int(arrays["random"][g]),
                     scores[score_at[g]:score_at[g + 1]], int(arrays["result"][g]), int(arrays["game"][g]),
                     *flt, buf, order, all_moves[a:b], boards, sides, out_scores, results, games, k)
        if k2 < 0:
            raise StoreError(f"game {int(arrays['game'][g])}: move {-1 - k2} ranks past the position's legal moves")
        k = k2
    recs = records.from_boards(boards[:k], sides[:k], out_scores[:k], results[:k], games[:k])
    if not want_moves:
        return recs, None
    return recs, (all_moves, move_at, scores, score_at)


def positions_of(header, arrays, flt=TODAY):
    return _replay(header, arrays, flt)[0]


def read_chunk(path, flt=TODAY):
    """The training positions (training/records.py's records) of one chunk file, by the filter."""
    path = pathlib.Path(path)
    header, arrays = decode(path.read_bytes(), str(path))
    return positions_of(header, arrays, flt)


def read_games(path):
    """The games of one chunk file, as Game objects."""
    path = pathlib.Path(path)
    header, arrays = decode(path.read_bytes(), str(path))
    _, (moves, move_at, scores, score_at) = _replay(header, arrays, EVERY, want_moves=True)
    out = []
    for g in range(header["games"]):
        fen, chess960 = arrays["starts"][arrays["start"][g]]
        out.append(Game(arrays["game"][g], fen, chess960, arrays["random"][g], moves[move_at[g]:move_at[g + 1]],
                        scores[score_at[g]:score_at[g + 1]], arrays["result"][g], arrays["end"][g]))
    return out


def chunks(*paths):
    """Every chunk file under the given folders (or the files themselves), in name order."""
    found = []
    for p in paths:
        p = pathlib.Path(p)
        found += [p] if p.is_file() else sorted(p.rglob("*" + SUFFIX))
    return found


def is_store(path):
    return bool(chunks(path))


def load(*paths, flt=TODAY):
    """Every training position of the chunks under the given folders, concatenated."""
    parts = [read_chunk(c, flt) for c in chunks(*paths)]
    return np.concatenate(parts) if parts else np.zeros(0, records.RECORD)


def dataset(path, flt=TODAY):
    """(training positions, games) of a path: the store's chunks under it (a run's folder, or the whole
    store), else a folder of records (training/records.py's *.bin files, as gen wrote before the store)."""
    found = chunks(path)
    if found:
        return load(*found, flt=flt), sum(read_header(c)["games"] for c in found)
    if not records.files(path):
        raise SystemExit(f"{path}: no game-store chunks (*{SUFFIX}) and no *.bin records in it")
    recs = records.load(path)
    return recs, len(np.unique(recs["game"]))


# --- writing: a worker's journal and its sealed chunks -------------------------------------------------


def chunk_name(run, worker, workers, first_game):
    return f"{run}-w{worker}of{workers}-g{first_game:07d}{SUFFIX}"


_ENTRY = struct.Struct("<IIBBBBHHI")  # game, crc, chess960, random, result, end, moves, fen bytes, records


class Journal:
    """A worker's games since its last sealed chunk, appended one whole game at a time (a torn last entry,
    from a kill mid-write, is dropped on open), with the positions gen recorded for each: sealing checks
    that the chunk reads back as exactly those."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.games, self.recs = [], []
        good = 0
        data = self.path.read_bytes() if self.path.exists() else b""
        while good + _ENTRY.size <= len(data):
            game, crc, c960, rnd, result, end, n, nfen, nrec = _ENTRY.unpack_from(data, good)
            size = _ENTRY.size + nfen + 4 * n + 4 * (n - rnd) + records.RECORD.itemsize * nrec
            body = data[good + _ENTRY.size:good + size]
            if len(body) < size - _ENTRY.size or zlib.crc32(body) != crc:
                break
            fen = body[:nfen].decode()
            at = nfen
            moves = np.frombuffer(body[at:at + 4 * n], "<i4")
            at += 4 * n
            scores = np.frombuffer(body[at:at + 4 * (n - rnd)], "<i4")
            at += 4 * (n - rnd)
            self.games.append(Game(game, fen, c960, rnd, moves, scores, result, end))
            self.recs.append(np.frombuffer(body[at:], records.RECORD))
            good += size
        if good != len(data):
            with open(self.path, "r+b") as f:
                f.truncate(good)

    def append(self, game, recs):
        fen = game.fen.encode()
        body = (fen + game.moves.astype("<i4").tobytes() + game.scores.astype("<i4").tobytes()
                + np.ascontiguousarray(recs).tobytes())
        head = _ENTRY.pack(game.game, zlib.crc32(body), game.chess960, game.random, game.result, game.end,
                           len(game.moves), len(fen), len(recs))
        with open(self.path, "ab") as f:
            f.write(head + body)
            f.flush()
        self.games.append(game)
        self.recs.append(recs)

    def clear(self):
        with open(self.path, "wb"):
            pass
        self.games, self.recs = [], []


def seal(journal, folder, name, provenance):
    """Writes the journal's games as the chunk folder/name, checks that it reads back as exactly the games and
    the positions recorded, and empties the journal. Returns the chunk's path."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    if target.exists():
        raise StoreError(f"{target}: already sealed (a chunk is written once)")
    data = encode(journal.games, {**provenance, "sealed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    header, arrays = decode(data, name)
    recs, (moves, move_at, _, _) = _replay(header, arrays, TODAY, want_moves=True)
    want = np.concatenate(journal.recs) if journal.recs else np.zeros(0, records.RECORD)
    if not np.array_equal(recs, want) or not np.array_equal(moves, np.concatenate([g.moves for g in journal.games])):
        raise StoreError(f"{name}: the chunk does not read back as the games and positions gen recorded")
    tmp = target.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    tmp.rename(target)
    journal.clear()
    return target


def sealed_games(folder, run, worker, workers):
    """The last game number sealed by this worker of this run, or None."""
    last = None
    for path in sorted(pathlib.Path(folder).glob(f"{run}-w{worker}of{workers}-g*{SUFFIX}")):
        g = read_header(path)["last_game"]
        last = g if last is None else max(last, g)
    return last


# --- provenance and counting -----------------------------------------------------------------------------


def git(*args):
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def code_version():
    """The commit the code runs from, and whether engine/ or training/ differ from it."""
    return {"commit": git("rev-parse", "HEAD") or "unknown",
            "dirty": bool(git("status", "--porcelain", "--", "engine", "training", ":!training/games"))}


def sha256_file(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def count(paths, verify=True, log=print):
    """Counts of the store by run: {run: {chunks, games, moves, positions, bytes}}. verify: read every chunk
    (decompress, check, replay, count the positions) rather than trust the headers."""
    runs = {}
    for path in chunks(*paths):
        header = read_header(path)
        if verify:
            data = path.read_bytes()
            h, arrays = decode(data, str(path))
            n = len(positions_of(h, arrays))
            if n != header["positions"]:
                raise StoreError(f"{path}: {n} positions read back, its header says {header['positions']}")
        run = path.parent.name
        r = runs.setdefault(run, {"chunks": 0, "games": 0, "moves": 0, "positions": 0, "bytes": 0})
        r["chunks"] += 1
        r["games"] += header["games"]
        r["moves"] += header["moves"]
        r["positions"] += header["positions"]
        r["bytes"] += path.stat().st_size
    return runs
