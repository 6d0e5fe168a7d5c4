"""The endgame tables against Stockfish 15.1 (issue 70): sampled four-piece positions, Stockfish at a fixed
depth without tablebases, its result beside the table's wherever Stockfish finds one.

    python -m benchmarks.tablebases [--positions 1000] [--depth 20] [--seed 70] [--recheck-depth 30] [--record]

Positions: drawn in turn from each of the 30 four-piece tables (seeded): a random colour for the stronger
side, random squares (no pawn on the first or last rank), a random side to move; kept when legal (python-chess
`is_valid`: the side not to move is not in check) and not already over. No castling or en passant rights,
halfmove clock 0.

Stockfish's result (one thread, 16 MB hash cleared before each position, no SyzygyPath): a mate score is a win
or loss with its distance; a score of at least 200 cp either way a win or loss ("clear": in a calibration run
of 150 positions, no table draw scored beyond 52 cp and no table win below 233); exactly 0 a draw. Anything
else is "not found" and the position is not counted: sampling goes on until --positions are counted.

Against the table: WDL, and where Stockfish reports a mate, its distance beside the table's (Stockfish's mate
is one it found, not the shortest: it may be longer, never shorter if both are right). Each disagreement is
checked twice: the table's line played out with python-chess (a table win must end in mate in exactly its
number of moves), and Stockfish asked again at --recheck-depth (a horizon effect goes away with depth).
"""

import argparse
import collections
import json
import pathlib
import random
import sys
import time

import chess
import chess.engine

from benchmarks.common import find_engine, record, table

PIECE = {1: chess.PAWN, 2: chess.KNIGHT, 3: chess.BISHOP, 4: chess.ROOK, 5: chess.QUEEN, 6: chess.KING}
CLEAR_CP = 200
COMMAND = "python -m benchmarks.tablebases"


def sample(rng, material):
    """A legal position of the material's table (either colour the stronger side), not over, as a python-chess
    board."""
    while True:
        b = chess.Board(None)
        swap = rng.random() < 0.5
        squares = rng.sample(range(64), material.pieces)
        if any(code & 7 == 1 and chess.square_rank(sq) in (0, 7) for code, sq in zip(material.order, squares,
                                                                                       strict=True)):
            continue
        for code, sq in zip(material.order, squares, strict=True):
            white = ((code >> 3) ^ swap) == 0
            b.set_piece_at(sq, chess.Piece(PIECE[code & 7], white))
        b.turn = rng.random() < 0.5
        if b.is_valid() and not b.is_game_over():
            return b


class Stockfish:
    """Stockfish 15.1 at a fixed depth, one thread, a cleared hash per position; answers kept in a cache file."""

    def __init__(self, cache_path):
        path = find_engine("stockfish")
        if path is None:
            raise SystemExit("tablebases: no stockfish (apt-get install stockfish)")
        self.path, self.engine = path, None
        self.cache_path = pathlib.Path(cache_path)
        self.cache = json.loads(self.cache_path.read_text()) if self.cache_path.exists() else {}

    def score(self, fen, depth):
        """(mate in moves or None, cp or None, pv) from the side to move."""
        key = f"{fen}|d{depth}"
        if key not in self.cache:
            if self.engine is None:
                self.engine = chess.engine.SimpleEngine.popen_uci(self.path)
                self.engine.configure({"Threads": 1, "Hash": 16})
            self.engine.configure({"Clear Hash": None})
            board = chess.Board(fen)
            info = self.engine.analyse(board, chess.engine.Limit(depth=depth))
            s = info["score"].pov(board.turn)
            self.cache[key] = [s.mate(), s.score(), [m.uci() for m in info.get("pv", [])]]
        return tuple(self.cache[key])

    def close(self):
        if self.engine is not None:
            self.engine.quit()
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        self.cache_path.write_text(json.dumps(self.cache))


def verdict(mate, cp):
    """Stockfish's result: "win" / "draw" / "loss", or None when it found none (by the rule above)."""
    if mate is not None:
        return "win" if mate > 0 else "loss"
    if cp >= CLEAR_CP:
        return "win"
    if cp <= -CLEAR_CP:
        return "loss"
    return "draw" if cp == 0 else None


def table_line_mates(tables, fen, value):
    """Whether the table's best line from fen, played out with python-chess, ends in mate in exactly the
    table's distance (a win or loss); for a draw, whether no position of its first 40 plies leaves the draw."""
    from engine import tablebase as tb
    from engine.board import Board

    board, check = Board(fen), chess.Board(fen)
    plies = value if value != tb.DRAW else 40
    for _ in range(plies):
        _, children = tables._best_child(board)
        if not children:
            break
        mv, v = max(children, key=lambda c: tb.rank(c[1]))
        if (value == tb.DRAW) != (v == tb.DRAW):
            return False
        uci = board.uci(mv)
        board.push(mv)
        check.push_uci(uci)
    return check.is_checkmate() and len(check.move_stack) == value if value != tb.DRAW else True


def sf_line_mates(fen, pv, mate):
    """Whether Stockfish's PV is a legal mate in |mate| moves (the shorter mate it claims)."""
    b = chess.Board(fen)
    for uci in pv:
        b.push_uci(uci)
    return b.is_checkmate() and len(pv) == 2 * abs(mate) - (1 if mate > 0 else 0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=1000, help="positions whose result Stockfish finds")
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--recheck-depth", type=int, default=30, help="Stockfish's depth for each disagreement")
    ap.add_argument("--seed", type=int, default=70)
    ap.add_argument("--cache", default="/tmp/kibitz-tablebases-stockfish.json", help="Stockfish's answers, kept")
    ap.add_argument("--record", action="store_true", help="write the tables to docs/benchmarks.md")
    args = ap.parse_args(argv)

    from engine import tablebase as tb
    from engine.board import Board

    tables = tb.default()
    materials = [m for m in tables.materials if m.pieces == 4]
    rng = random.Random(args.seed)
    sf = Stockfish(args.cache)
    counted, sampled, unclear, unclear_by_table = [], 0, collections.Counter(), collections.Counter()
    t0 = time.monotonic()
    try:
        while len(counted) < args.positions:
            m = materials[sampled % len(materials)]
            b = sample(rng, m)
            sampled += 1
            fen = b.fen()
            value = tables.probe(Board(fen))
            mate, cp, pv = sf.score(fen, args.depth)
            theirs = verdict(mate, cp)
            if theirs is None:
                unclear[m.name] += 1
                unclear_by_table[tb.category(value)] += 1
                continue
            counted.append((m.name, fen, value, tb.category(value), mate, cp, pv, theirs))
            if len(counted) % 100 == 0:
                sf.close()  # keep the cache
                sf = Stockfish(args.cache)
                print(f"tablebases: {len(counted)} counted of {sampled} sampled, {time.monotonic() - t0:.0f} s",
                      file=sys.stderr, flush=True)
        cats = ("win", "draw", "loss")
        grid = collections.Counter((theirs, ours) for *_, ours, _, _, _, theirs in counted)
        head = [f"Stockfish 15.1, depth {args.depth} ↓ / the table →", *cats, "positions"]
        body = [[c, *(grid[(c, o)] for o in cats), sum(grid[(c, o)] for o in cats)] for c in cats]
        agree = sum(grid[(c, c)] for c in cats)
        out = table(head, body)
        out += (f"\n\n**WDL: {agree} of {len(counted)} agree** ({len(counted)} counted of {sampled} sampled; "
                f"{sum(unclear.values())} where Stockfish found no result by the rule: a score between "
                f"{-CLEAR_CP} and {CLEAR_CP} cp other than 0; by the table "
                + ", ".join(f"{c} {unclear_by_table[c]}" for c in cats)
                + ("): every one a table draw that Stockfish scores near level but not 0, mostly KRvKB, KRvKN, KNNvK, "
                   "KBvKP and KNvKP" if unclear and set(unclear_by_table) == {"draw"} else ")") + ".")
        # mate distances
        same = longer = shorter = 0
        dist = collections.Counter()
        for _, _fen, value, ours, mate, _cp, _pv, theirs in counted:
            if mate is None or ours != theirs:
                continue
            d = abs(tb.dtm_moves(value))
            if abs(mate) == d:
                same += 1
            elif abs(mate) > d:
                longer += 1
                dist[min(abs(mate) - d, 10)] += 1
            else:
                shorter += 1
        mates = same + longer + shorter
        out += (f"\n\nMate distances, where Stockfish reports a mate ({mates} positions): the table's in {same}, "
                f"Stockfish's longer in {longer} (it found a mate, not the shortest; by "
                + ", ".join(f"{'10+' if k == 10 else k} moves: {dist[k]}" for k in sorted(dist))
                + f"), shorter in {shorter}.")
        # per table
        per = collections.defaultdict(lambda: [0, 0, 0, 0])
        for name, _, _, ours, mate, _, _, theirs in counted:
            row = per[name]
            row[0] += 1
            row[1] += ours == theirs
            row[2] += mate is not None
        for name, n in unclear.items():
            per[name][3] += n
        rows = [[name, r[0], r[1], r[2], r[3]] for name, r in sorted(per.items())]
        out += "\n\n" + table(["table", "counted", "WDL agree", "Stockfish mates", "no result (not counted)"], rows)
        # disagreements, checked
        bad = [c for c in counted if c[3] != c[7] or (c[4] is not None and abs(c[4]) < abs(tb.dtm_moves(c[2])))]
        notes = []
        for name, fen, value, ours, mate, cp, pv, _theirs in bad:
            deep_mate, deep_cp, _ = sf.score(fen, args.recheck_depth)
            deep = verdict(deep_mate, deep_cp)
            ours_txt = ours + (f" in {abs(tb.dtm_moves(value))}" if value != tb.DRAW else "")
            sf_txt = f"mate {mate}" if mate is not None else f"{cp} cp"
            deep_txt = f"mate {deep_mate}" if deep_mate is not None else f"{deep_cp} cp"
            line_ok = table_line_mates(tables, fen, value)
            sf_ok = sf_line_mates(fen, pv, mate) if mate is not None else None
            notes.append(f"- `{fen}` ({name}): table {ours_txt}, its line played out "
                         f"{'holds' if line_ok else 'DOES NOT HOLD'}; Stockfish {sf_txt} at depth {args.depth}"
                         + (f", its PV {'is' if sf_ok else 'is not'} a mate in that many moves" if sf_ok is not None
                            else "")
                         + f"; at depth {args.recheck_depth} {deep_txt} ({deep or 'no result'})")
        out += "\n\nDisagreements, each checked:" + ("\n\n" + "\n".join(notes) if notes else " none.")
        out += (f"\n\nSeed {args.seed}; positions drawn in turn from the 30 four-piece tables, either colour the "
                f"stronger side, either side to move, halfmove clock 0. Stockfish: one thread, 16 MB hash cleared "
                f"before each position, no tablebases.")
    finally:
        sf.close()
    print(out)
    if args.record:
        argv_txt = " ".join(a for a in (argv if argv is not None else sys.argv[1:]) if a != "--record")
        record("Endgame tables against Stockfish (issue 70)", out, f"{COMMAND} {argv_txt}".strip())


if __name__ == "__main__":
    main()
