"""Endgame tables of up to four pieces: the catalogue, the files and the probe (plain Python + numpy).

The tables are made here (engine/tablebase_gen.py, numba's retrograde analysis in engine/core/tablebase.py)
and read lazily: a table's file is decompressed on the first probe that needs it and kept for the process.
A value is the distance to mate in plies for the side to move (even: it is mated in that many plies,
odd: it mates in (d + 1) / 2 moves) or DRAW; see engine/core/tablebase.py for the index.

    probe(board)       -> the side to move's value, or None when the position is not in the tables
    result(board)      -> the answer's `tablebase` field: category, dtm (moves), the best moves by the table
"""

import itertools
import lzma
import os
import pathlib
import queue
import sys
import threading

import numpy as np

from engine.layout import (
    BISHOP,
    BLACK,
    EMPTY,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    ST_CASTLE,
    ST_EP,
    ST_SIDE,
    TB_LOADED,
    TB_NSIDE,
    TB_OFF,
    TB_ORDER,
    TB_PAWNFUL,
    TB_PIECES,
    TB_WANT,
    TBI_KEYS,
    TBI_ROW,
    TBI_ROWS,
    TBI_SIZE,
)

DRAW = 254
MAX_PIECES = 4
TYPES = "PNBRQ"  # piece type - 1
STRONGEST_FIRST = (QUEEN, ROOK, BISHOP, KNIGHT, PAWN)
DEFAULT_DIR = pathlib.Path(__file__).resolve().parent / "tablebases"
SUFFIX = ".tb.xz"

TRI_SQ = (0, 1, 2, 3, 9, 10, 11, 18, 19, 27)
TRI = {sq: i for i, sq in enumerate(TRI_SQ)}


class Material:
    """One table: its name (KQvKR), its pieces in the index's order, its size."""

    def __init__(self, white, black):
        self.white = tuple(sorted(white, reverse=True))
        self.black = tuple(sorted(black, reverse=True))
        self.name = "K" + "".join(TYPES[t - 1] for t in self.white) + "vK" + "".join(TYPES[t - 1] for t in self.black)
        self.order = (KING, KING | 8) + self.white + tuple(t | 8 for t in self.black)
        self.pieces = len(self.order)
        self.pawnful = PAWN in self.white or PAWN in self.black
        self.nside = (32 if self.pawnful else 10) * 64 ** (self.pieces - 1)

    def __repr__(self):
        return self.name


def material_key(codes):
    w = b = 0
    for c in codes:
        t = c & 7
        if t != KING:
            if c >> 3:
                b += 3 ** (t - 1)
            else:
                w += 3 ** (t - 1)
    return w + 243 * b


def _stronger_or_equal(a, b):
    rank = {t: i for i, t in enumerate(reversed(STRONGEST_FIRST))}
    return (len(a), sorted((rank[t] for t in a), reverse=True)) >= (len(b), sorted((rank[t] for t in b), reverse=True))


def catalogue(max_pieces=MAX_PIECES):
    """Every balance of 3 to max_pieces pieces with white the stronger side, in an order where each
    table comes after those its captures and promotions reach (fewer pieces first, then fewer pawns)."""
    found = {}
    for extra in range(1, max_pieces - 1):
        for split in range(extra + 1):
            for w in itertools.combinations_with_replacement(STRONGEST_FIRST, extra - split):
                for b in itertools.combinations_with_replacement(STRONGEST_FIRST, split):
                    if _stronger_or_equal(w, b):
                        m = Material(w, b)
                        found[m.name] = m
    return sorted(found.values(), key=lambda m: (m.pieces, (m.white + m.black).count(PAWN), m.name))


def key_maps(materials):
    """KEY2TID/KEY2FLIP: a material key's table and whether the position's colours must be swapped."""
    key2tid = np.full(243 * 243, -1, np.int64)
    key2flip = np.zeros(243 * 243, np.int64)
    for tid, m in enumerate(materials):
        key = material_key(m.order)
        swapped = material_key(tuple(c ^ 8 for c in m.order))
        key2tid[swapped] = tid
        key2flip[swapped] = 1
        key2tid[key] = tid
        key2flip[key] = 0
    return key2tid, key2flip


def _xform(sq, m):
    f, r = sq & 7, sq >> 3
    if m & 1:
        f = 7 - f
    if m & 2:
        r = 7 - r
    if m & 4:
        f, r = r, f
    return r * 8 + f


def _pack(sqs, m, pawnful):
    k = _xform(sqs[0], m)
    idx = (k >> 3) * 4 + (k & 7) if pawnful else TRI[k]
    for sq in sqs[1:]:
        idx = idx * 64 + _xform(sq, m)
    return idx


def canon_index(sqs, pawnful):
    """As engine.core.tablebase.canon_index (tests check they agree)."""
    f, r = sqs[0] & 7, sqs[0] >> 3
    if pawnful:
        return _pack(sqs, 1 if f > 3 else 0, True)
    m = 0
    if f > 3:
        m, f = m | 1, 7 - f
    if r > 3:
        m, r = m | 2, 7 - r
    if r > f:
        m |= 4
    idx = _pack(sqs, m, False)
    return min(idx, _pack(sqs, m ^ 4, False)) if r == f else idx


class Store:
    """Every table's bytes in one flat uint8 array, and the index TBI that tells the compiled search where each
    table lies and whether it is loaded (engine/layout.py TB_*, engine/core/tbprobe.py).

    The flat array is allocated at its full size (~280 MB) but zeroed by the kernel page by page as it is
    written: memory is only spent on tables that were loaded. A table is loaded once per process (in Lambda
    once per warm container) and then reused by every search: on a probe from Python (load()), or in the
    background once a search marked it wanted (load_wanted(), between iterations)."""

    def __init__(self, directory, materials):
        self.directory = directory
        self.materials = materials
        self.tbi = np.zeros(TBI_SIZE, np.int64)
        self.tbi[TBI_KEYS:] = -1
        offset = 0
        for tid, m in enumerate(materials):
            row = TBI_ROWS + tid * TBI_ROW
            self.tbi[row + TB_OFF] = offset
            self.tbi[row + TB_NSIDE] = m.nside
            self.tbi[row + TB_PAWNFUL] = int(m.pawnful)
            self.tbi[row + TB_PIECES] = m.pieces
            self.tbi[row + TB_ORDER] = sum(code << (4 * j) for j, code in enumerate(m.order))
            self.tbi[TBI_KEYS + material_key(tuple(c ^ 8 for c in m.order))] = tid * 2 + 1
            self.tbi[TBI_KEYS + material_key(m.order)] = tid * 2
            offset += 2 * m.nside
        self.values = np.zeros(offset, np.uint8)
        self.missing = set()  # tids whose file is not there
        self._rows = TBI_ROWS + np.arange(len(materials)) * TBI_ROW  # each table's row of TBI (read every iteration)
        self._lock = threading.Lock()  # one load at a time
        self._queue = None  # the background loader's, started on first need
        self._queued = set()

    def _row(self, tid):
        return TBI_ROWS + tid * TBI_ROW

    def loaded(self, tid):
        return bool(self.tbi[self._row(tid) + TB_LOADED])

    def view(self, tid):
        """Table tid's bytes (both sides to move) in the flat array."""
        row = self._row(tid)
        offset, size = int(self.tbi[row + TB_OFF]), 2 * int(self.tbi[row + TB_NSIDE])
        return self.values[offset:offset + size]

    def load(self, tid):
        """Decompresses table tid into its place (once); False when its file is missing."""
        if self.loaded(tid):
            return True
        with self._lock:
            if self.loaded(tid):
                return True
            path = self.directory / (self.materials[tid].name + SUFFIX)
            if not path.exists():
                self.missing.add(tid)
                return False
            data = np.frombuffer(lzma.decompress(path.read_bytes()), np.uint8)
            view = self.view(tid)
            if data.size != view.size:
                name = self.materials[tid].name
                raise ValueError(f"{path}: {data.size} bytes, not the {view.size} of a {name} table")
            view[:] = data
            self.tbi[self._row(tid) + TB_LOADED] = 1  # last: a search reads the bytes only once it sees this
            return True

    def wanted(self):
        """The tables searches marked wanted that are neither loaded, nor queued, nor missing."""
        rows = self._rows
        want = np.flatnonzero((self.tbi[rows + TB_WANT] != 0) & (self.tbi[rows + TB_LOADED] == 0))
        return [int(t) for t in want if t not in self._queued and t not in self.missing]

    def load_wanted(self):
        """Loads the wanted tables in a background thread (lzma releases the GIL while it decompresses), so that
        the search goes on meanwhile and finds them on a later iteration."""
        for tid in self.wanted():
            if self._queue is None:
                self._queue = queue.Queue()
                threading.Thread(target=self._loader, name="kibitz-tablebases", daemon=True).start()
            self._queued.add(tid)
            self._queue.put(tid)

    def _loader(self):
        while True:
            tid = self._queue.get()
            try:
                self.load(tid)
            except Exception as exc:  # a damaged file: say so, and never try it again
                self.missing.add(tid)
                print(f"kibitz: endgame table {self.materials[tid].name} not loaded: {exc}", file=sys.stderr)
            finally:
                self._queue.task_done()

    def fixed_view(self):
        """A search's own copy of the index TBI with no table loaded in it, for a search to a fixed depth or node
        count (engine/deepening.py): its probes see only the tables it has itself wanted in earlier iterations
        (reveal()), not whichever ones earlier searches of the process happened to load, so its answer is the
        same in a fresh process and a warm one. ~0.5 MB, copied per search."""
        view = self.tbi.copy()
        rows = self._rows
        view[rows + TB_LOADED] = 0
        view[rows + TB_WANT] = 0
        return view

    def reveal(self, view):
        """Between two iterations of a fixed-limit search: loads the tables its view marked wanted, now (waiting
        for them), and marks them loaded in the view, so that the next iteration probes them. Returns how many."""
        rows = self._rows
        shown = 0
        for tid in np.flatnonzero((view[rows + TB_WANT] != 0) & (view[rows + TB_LOADED] == 0)):
            tid = int(tid)
            if tid in self.missing:
                continue
            try:
                ok = self.load(tid)
            except Exception as exc:  # a damaged file: as the background loader does
                self.missing.add(tid)
                print(f"kibitz: endgame table {self.materials[tid].name} not loaded: {exc}", file=sys.stderr)
                ok = False
            if ok:
                view[self._row(tid) + TB_LOADED] = 1
                shown += 1
        return shown

    def wait(self):
        """Until every queued table is loaded (tests, benchmarks)."""
        if self._queue is not None:
            self._queue.join()


class Tables:
    """The tables in one directory, each read on first use."""

    def __init__(self, directory=None, max_pieces=MAX_PIECES):
        self.directory = pathlib.Path(directory or os.environ.get("KIBITZ_TABLEBASES") or DEFAULT_DIR)
        self.materials = catalogue(max_pieces)
        self.by_key = {}
        self.tid = {}
        for tid, m in enumerate(self.materials):
            self.tid[m.name] = tid
            self.by_key[material_key(m.order)] = (m, 0)
            self.by_key[material_key(tuple(c ^ 8 for c in m.order))] = (m, 1)
        self.store = Store(self.directory, self.materials)
        self.hits = 0

    def available(self, material):
        return (self.directory / (material.name + SUFFIX)).exists()

    def data(self, material):
        """The table's bytes (both sides to move), or None when its file is missing."""
        tid = self.tid[material.name]
        return self.store.view(tid) if self.store.load(tid) else None

    def preload(self, names):
        """Loads the named tables (KRvKP, ...) now."""
        for name in names:
            self.store.load(self.tid[name])

    def lookup(self, pieces, side):
        """The value for `side` to move with pieces [(code, square)], no en passant or castling; None when
        no table holds it."""
        if len(pieces) == 2:
            return DRAW
        found = self.by_key.get(material_key([c for c, _ in pieces]))
        if found is None:
            return None
        m, flip = found
        data = self.data(m)
        if data is None:
            return None
        rest = sorted(((c ^ (8 * flip), sq ^ (56 * flip)) for c, sq in pieces), key=lambda p: m.order.index(p[0]))
        self.hits += 1
        return int(data[(side ^ flip) * m.nside + canon_index([sq for _, sq in rest], m.pawnful)])

    def probe(self, board):
        """The side to move's value in board (an engine.board.Board), or None when it is outside the tables
        (more than four pieces, castling rights, a table missing)."""
        pieces = [(int(c), sq) for sq, c in enumerate(board.board) if c != EMPTY]
        if len(pieces) > MAX_PIECES or board.st[ST_CASTLE] != 0:
            return None
        if board.st[ST_EP] != 64:
            return self._best_child(board)[0]
        return self.lookup(pieces, int(board.st[ST_SIDE]))

    def _best_child(self, board):
        """(value, [(move, value after it)]) by the children, as a position with en passant rights needs."""
        best, children = None, []
        for mv in board.legal_moves():
            board.push(mv)
            child = self.probe(board)
            board.pop()
            if child is None:
                return None, []
            v = parent_value(child)
            children.append((mv, v))
            best = v if best is None else better(best, v)
        if best is None:
            best = 0 if board.in_check() else DRAW
        return best, children

    def result(self, board):
        """The `tablebase` field (field()) of board, or None outside the tables."""
        value = self.probe(board)
        if value is None:
            return None
        children = self._best_child(board)[1]
        return field(board, value, children, fifty(self, board, value, children))


def field(board, value, children, clock=None):
    """The `tablebase` field of a position of value `value` whose legal moves lead to `children` [(move, value
    after it, from board's side)]: {"category": "win" | "cursed-win" | "draw" | "blessed-loss" | "loss", "dtm":
    moves to mate (signed: negative when the side to move is mated; absent for a draw), "best": the UCI moves
    that keep the value, "best_san", "exact": whether the category is certain under the fifty-move rule}, and
    "dtz" (plies to the first zeroing move of the table's line) when the halfmove clock leaves too few plies for
    the mate (clock: fifty()'s Fifty, None when it does not matter)."""
    from engine.san import san

    keep = [mv for mv, v in children if v == value] if clock is None else clock.best
    out = {"category": category(value) if clock is None else clock.category, "best": [board.uci(mv) for mv in keep],
           "best_san": [san(board, mv) for mv in keep], "exact": True if clock is None else clock.exact}
    if value != DRAW:
        out["dtm"] = dtm_moves(value)
    if clock is not None:
        out["dtz"] = clock.dtz
    return out


class Fifty:
    """The fifty-move rule's judgement of a table win or loss whose mate comes after the halfmove count runs out
    (fifty()): the category, the plies to the first zeroing move (a capture, a pawn move, or the mate) of the line
    the answer plays, whether the category is certain, the best moves by it and the root's moves in order."""

    def __init__(self, category, dtz, exact, best, order):
        self.category, self.dtz, self.exact, self.best, self.order = category, dtz, exact, best, order


EXACT_PLIES = 3  # up to this many plies left on the count, fifty() decides by searching every line: exact


def fifty(tables, board, value, children):
    """None when the fifty-move rule cannot change the table's result (a draw, or a mate within the plies the
    halfmove clock leaves: exact); else a Fifty.

    The tables hold distances to mate, not to the next zeroing move (DTZ), so a longer mate is judged along the
    table's line: after each of the root's moves, both sides play the table's best moves (the shortest mate, the
    longest defence) until a capture, a pawn move or the mate resets the count; the winning side picks the root
    move whose line zeroes first, the losing side the one whose line zeroes last. A win is "cursed-win" when even
    that zeroing comes after the count runs out (clock + dtz > 100), a loss "blessed-loss" likewise. That is a
    judgement along one line, not a proof (the defence may delay the zeroing, the attack may find an earlier
    one): `exact` False. It is exact (True) when only the mate can reset the count (_only_the_mate_resets: KBNvK,
    KQvK, ...: dtz is then the mate's distance), and with EXACT_PLIES or fewer plies left, where every line is
    searched."""
    left = 100 - board.halfmove_clock
    if value == DRAW or value <= left or not children:
        return None
    winning = value % 2 == 1
    keeps = [(mv, v) for mv, v in children if v != DRAW and v % 2 == value % 2]
    zs = {mv: _zeroing_line(tables, board, mv) for mv, _ in keeps}
    if winning:
        dtz = min(zs.values())
        order = sorted(keeps, key=lambda c: (zs[c[0]], -rank(c[1])))
    else:
        dtz = max(zs.values())
        order = sorted(keeps, key=lambda c: (-zs[c[0]], -rank(c[1])))
    best = [mv for mv, _ in order if zs[mv] == dtz]
    in_time = dtz <= left
    if left <= EXACT_PLIES:
        in_time, exact = _forced_in(tables, board, left, winning), True
    else:
        exact = _only_the_mate_resets(board, winning)  # then dtz is the mate's distance, and the category exact
    rest = sorted((c for c in children if c not in keeps), key=lambda c: -rank(c[1]))
    if winning:
        name = "win" if in_time else "cursed-win"
    else:
        name = "loss" if in_time else "blessed-loss"
    return Fifty(name, dtz, exact, best, order + rest)


def _only_the_mate_resets(board, winning):
    """Whether the only way the winning side can reset the count is the mate itself: it has no pawn, the other
    side a bare king, and a capture by that king leaves no win (one piece, or two minor pieces: KBNvK, KBBvK,
    KNNvK, KQvK, KRvK). Then a mate beyond the count cannot be forced in time: the table's DTM is the shortest."""
    attacker = board.side if winning else 1 - board.side
    mine, theirs = [], []
    for c in board.board:
        if c != EMPTY and c & 7 != KING:
            (mine if c >> 3 == attacker else theirs).append(c & 7)
    return not theirs and PAWN not in mine and (len(mine) == 1 or all(t in (BISHOP, KNIGHT) for t in mine))


def _zeroes(board):
    """Whether the move just played reset the halfmove clock (a capture or a pawn move)."""
    return board.halfmove_clock == 0


def _zeroing_line(tables, board, first, limit=200):
    """Plies from board to the first zeroing move (or the mate) of the line that starts with `first` and goes on
    by the table's best moves."""
    played = 0
    mv = first
    try:
        while played < limit:
            board.push(mv)
            played += 1
            if _zeroes(board):
                return played
            _, children = tables._best_child(board)
            if not children:  # the mate
                return played
            mv = max(children, key=lambda c: rank(c[1]))[0]
        return played
    finally:
        for _ in range(played):
            board.pop()


def _forced_in(tables, board, plies, attacker):
    """Whether the side winning by the table forces, within `plies`, the mate or a zeroing move that keeps its win
    (after which a fresh count is enough for every four-piece mate: the longest is 40 moves), `attacker` whether
    it is to move. Every line is searched: exact, for a few plies."""
    if plies <= 0:
        return False
    for mv in board.legal_moves():
        board.push(mv)
        try:
            child = tables.probe(board)
            keeps = child is not None and child != DRAW and child % 2 == 0  # the side to move now loses
            if attacker:
                if not keeps:
                    continue
                if _zeroes(board) or child == 0 or _forced_in(tables, board, plies - 1, False):
                    return True
            else:
                if child is not None and child != DRAW and child % 2 == 1:  # the attack still wins
                    if _zeroes(board) or _forced_in(tables, board, plies - 1, True):
                        continue
                return False  # the defence escapes: a draw, or a line the attack cannot finish in time
        finally:
            board.pop()
    return not attacker  # the attack found nothing; every defence lost in time (mated positions have no children)


def within_fifty(board, value):
    """Whether a table win or loss mates before the fifty-move rule can end the game: DTM cannot tell whether a
    zeroing move on the way would save it, so only a mate within the halfmove count left is taken (a draw always)."""
    return value == DRAW or board.halfmove_clock + value <= 100


def returns_to_history(board):
    """Whether a legal move of board returns to a position of its game since the last capture or pawn move: the
    search scores such a return as a draw (a repetition the tables know nothing of), so it answers instead."""
    if min(board.halfmove_clock, board.ply) < 3:  # a return takes at least four plies
        return False
    for mv in board.legal_moves():
        board.push(mv)
        try:
            back = min(board.halfmove_clock, board.ply)
            repeated = back >= 4 and board.key in {int(k) for k in board.keys[board.ply - back:board.ply]}
        finally:
            board.pop()
        if repeated:
            return True
    return False


def in_reach(board):
    """Whether board could be in the tables (up to four pieces, no castling rights), without reading one."""
    return int((board.board != EMPTY).sum()) <= MAX_PIECES and board.st[ST_CASTLE] == 0


def parent_value(child):
    """A child's value seen from the position before the move."""
    return DRAW if child == DRAW else child + 1


def better(a, b):
    """The better value for the side to move: the shorter win, the draw, the longer loss."""
    return a if rank(a) >= rank(b) else b


def rank(v):
    if v == DRAW:
        return 0
    return 1000 - v if v % 2 else v - 1000


def category(v):
    if v == DRAW:
        return "draw"
    return "win" if v % 2 else "loss"


def dtm_moves(v):
    """Moves to mate, signed: mate in 3 is 3, mated in 3 is -3 (0: mated now)."""
    return (v + 1) // 2 if v % 2 else -(v // 2)


def answer(board, side, started, multipv=1, backend="", tables=None):
    """engine.analyse()'s answer from the tables (an engine.result.Analysis), or None outside them.

    The best move keeps the best value: the shortest mate, a draw, the longest defence; its line follows
    the table's best moves to the mate (a draw's: a few moves). The score is the mate in moves (or cp 0
    for a draw), from the side to move."""
    import time

    from engine.result import Analysis, Line, Score

    tables = tables or default()
    hits = tables.hits
    value = tables.probe(board)
    if value is None or returns_to_history(board):
        return None  # outside the tables, or a repetition within reach: searched
    _, children = tables._best_child(board)
    if not children:
        return None  # mated or stalemated: engine.game_over answers those
    clock = fifty(tables, board, value, children)  # the fifty-move rule, when the halfmove clock makes it matter
    if clock is None:
        children.sort(key=lambda c: -rank(c[1]))
    else:
        children = clock.order
    drawn_by_rule = clock is not None and clock.category in ("cursed-win", "blessed-loss")
    lines = []
    for k, (mv, v) in enumerate(children[: max(1, multipv)]):
        pv = [board.uci(mv)] + _line(tables, board, mv, v)
        if v == DRAW or (drawn_by_rule and v % 2 == value % 2):
            score = Score(cp=0)  # a draw, or the fifty-move rule's draw before the table's mate (as searched)
        else:
            score = Score(mate=dtm_moves(v))
        lines.append(Line(multipv=k + 1, score=score, pv=tuple(pv), depth=len(pv), seldepth=len(pv)))
    best = lines[0]
    ms = (time.monotonic_ns() - started) // 1_000_000
    return Analysis(
        fen=board.fen(), side_to_move=side, best_move=best.pv[0], ponder=best.pv[1] if len(best.pv) > 1 else None,
        score=best.score, depth=best.depth, seldepth=best.seldepth, nodes=0, time_ms=ms, nps=0, hashfull=0,
        pv=best.pv, lines=tuple(lines), backend=backend, chess960=board.chess960,
        tablebase=field(board, value, children, clock),
        tbhits=tables.hits - hits,
    )


def _line(tables, board, first, value, draw_plies=8):
    """The table's best line after `first` (played from board, whose value it keeps), to the mate."""
    played = [first]
    board.push(first)
    line = []
    plies = value if value != DRAW else draw_plies
    try:
        for _ in range(plies - 1):
            _, children = tables._best_child(board)
            if not children:
                break
            mv, _ = max(children, key=lambda c: rank(c[1]))
            line.append(board.uci(mv))
            board.push(mv)
            played.append(mv)
    finally:
        for _ in played:
            board.pop()
    return line


_DEFAULT = None


def default():
    """The process's tables (engine/tablebases, or $KIBITZ_TABLEBASES)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Tables()
    return _DEFAULT


__all__ = ["DRAW", "BLACK", "Fifty", "Material", "Tables", "answer", "catalogue", "category", "default", "dtm_moves",
           "field", "fifty", "in_reach", "key_maps", "returns_to_history", "within_fifty"]
