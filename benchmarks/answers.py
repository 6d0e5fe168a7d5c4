"""How good are the API's answers? Positions are analysed as AnalyzeFunction analyses them, and each
answer is judged by Stockfish at a fixed depth (a reference for measuring only, never a teacher).

    python -m benchmarks.answers [--ms 1000] [--positions 600] [--depth 20] [--record]
    python -m benchmarks.answers --net new=/path/new.nnue --net shipped=engine/nets/kibitz.nnue   # side by side
    python -m benchmarks.answers --net on=engine/nets/kibitz.nnue --net off=engine/nets/kibitz.nnue,Singular=0

As the API: engine.analyse() with a fresh transposition table sized by functions/common/analysis/budget.py at
the default memory (1769 MB, one vCPU, one thread), a movetime, no analysis cache. The positions are
ones the engine never trained on: the first --positions of benchmarks/data/answers.fen, 600 positions
(the first 200 fixed on 2026-11-27, 400 more on 2026-12-01) so that every net is judged on the same ones,
round after round. They were drawn (with `--draw`, which samples afresh) from every tenth ply (from ply
12 to ten before the end) of the games against Stockfish in the journals as they stood (FIXED_FROM
below), seed 1; a sample of n is the first n of that seed's shuffle. With several --net, each position
is searched by each net in turn, so that a busy spell of the machine falls on all of them alike.

Judged by Stockfish at --depth, one thread: its best move and score, and the score of the answer's
move (searched alone, `searchmoves`). From the mover's win% (Lichess's formula, engine/review.py)
before (Stockfish's best) and after (the answer's move):
  best move   the answer is Stockfish's move
  win% lost   the mean of before - after
  accuracy    the mean of Lichess's move accuracy, as a game review scores a move
  mistakes    moves that lose 0.2 of Lichess's winning chances (-1..1) or more; blunders 0.3 or more
  score error the mean |win% of the answer's score - win% of Stockfish's|: how far the number the
              user reads is from the reference's
Stockfish's judgements are kept in --cache (outside the repository), so a second net costs only the
moves the first did not play. Timed: stop other work on the machine first.
"""

import argparse
import functools
import io
import json
import pathlib
import random
import re
import sys
import time

import chess
import chess.engine
import chess.pgn

from benchmarks.common import ROOT, cpu_times, find_engine, record, steal_since, table
from engine.review import judgement, move_accuracy, win_percent, winning_chances
from training.wdl import distinct_games

JOURNAL_DIR = ROOT / "benchmarks" / "journals"
JOURNALS = sorted(p for p in JOURNAL_DIR.glob("m-sf*.jsonl.gz") if "c960" not in p.name)
FIXED = ROOT / "benchmarks" / "data" / "answers.fen"
# The journals the fixed sample was drawn from: positions(FIXED_FROM, 600, 1) wrote answers.fen.
FIXED_FROM = tuple(JOURNAL_DIR / f"m-sf{name}.jsonl.gz" for name in (
    "2400-final", "2400-h2", "2600-egs", "2600-netl-host2", "2600-netl", "2600-netn1", "2600-r100", "2600-r2",
    "2600-s1-mtg16", "2600-s1", "2600-se"))
FIRST_PLY = 12
EVERY = 10
MATE_CP = 100_000  # a mate, as centipawns: win% and winning chances treat it as certain


def positions(journals=JOURNALS, n=200, seed=1):
    """FENs of a seeded sample of n positions of the journals' games (every EVERY-th ply from FIRST_PLY
    to EVERY before the end; standard chess only)."""
    fens = list(_candidates(tuple(journals)))
    random.Random(seed).shuffle(fens)
    return fens[:n]


@functools.cache
def _candidates(journals):
    """Every position a sample of these journals may draw, sorted (parsed once a process: it takes seconds)."""
    fens = set()
    for _, text in distinct_games(journals):
        if "Chess960" in text:
            continue
        game = chess.pgn.read_game(io.StringIO(text))
        board = game.board()
        moves = list(game.mainline_moves())
        for ply, move in enumerate(moves):
            if ply >= FIRST_PLY and ply % EVERY == 0 and ply <= len(moves) - EVERY:
                fens.add(board.fen())
            board.push(move)
    return tuple(sorted(fens))


def fixed_positions(n, path=FIXED):
    """The first n FENs of the fixed sample (a new journal does not change what the nets are judged on)."""
    fens = [line.strip() for line in pathlib.Path(path).read_text().splitlines() if line.strip()]
    if n > len(fens):
        raise SystemExit(f"answers: --positions {n}: {path.name} holds {len(fens)} positions; "
                         f"use --positions {len(fens)} or fewer, or --draw to sample the journals afresh")
    return fens[:n]


def cp_of(score):
    """Centipawns of a python-chess PovScore (mover's view), a mate as +-MATE_CP."""
    s = score.relative
    return s.score(mate_score=MATE_CP)


class Judge:
    """Stockfish at a fixed depth, its verdicts kept in a JSON file between runs."""

    def __init__(self, depth, cache_path):
        path = find_engine("stockfish")
        if path is None:
            raise SystemExit("answers: no stockfish (apt-get install stockfish)")
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": 64})
        self.depth = depth
        self.cache_path = pathlib.Path(cache_path)
        self.cache = json.loads(self.cache_path.read_text()) if self.cache_path.exists() else {}

    def _analyse(self, fen, move=None):
        key = f"{fen}|{move or ''}|{self.depth}"
        if key not in self.cache:
            board = chess.Board(fen)
            info = self.engine.analyse(board, chess.engine.Limit(depth=self.depth),
                                       root_moves=[chess.Move.from_uci(move)] if move else None)
            self.cache[key] = [info["pv"][0].uci(), cp_of(info["score"])]
        return self.cache[key]

    def best(self, fen):
        """(Stockfish's move, its score in cp for the mover)."""
        return tuple(self._analyse(fen))

    def score_of(self, fen, move):
        best_move, best_cp = self.best(fen)
        return best_cp if move == best_move else self._analyse(fen, move)[1]

    def save(self):
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.cache))
        tmp.replace(self.cache_path)

    def close(self):
        self.save()
        self.engine.quit()


def verdict(best_move, best_cp, move, move_cp, answer_cp):
    """One answer's figures: (best?, win% lost, accuracy, mistake?, blunder?, score error in win%)."""
    before, after = win_percent(best_cp), win_percent(move_cp)
    lost = max(0.0, before - after)
    chances = max(0.0, winning_chances(best_cp) - winning_chances(move_cp))
    mark = judgement(chances)
    return (move == best_move, lost, move_accuracy(before, after), mark in ("mistake", "blunder"),
            mark == "blunder", abs(win_percent(answer_cp) - before))


def net_spec(spec):
    """--net LABEL=PATH[,NAME=VALUE...] -> (label, path, {search parameter: value}) (engine/params.py)."""
    from engine.params import INDEX

    label, sep, rest = spec.partition("=")
    path, *settings = rest.split(",")
    if not sep or not label or not path:
        raise SystemExit(f"answers: --net {spec!r}: expected LABEL=PATH[,NAME=VALUE...]")
    params = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        if not sep or name not in INDEX or not value.lstrip("-").isdigit():
            raise SystemExit(f"answers: --net {spec!r}: {setting!r} is not NAME=INTEGER of a search parameter")
        params[name] = int(value)
    return label, path, params


def api_search(fen, movetime_ms, params=None, nodes=None):
    """The answer as AnalyzeFunction searches it: (move, score in cp for the mover, depth, nodes). nodes: a
    node limit instead of the movetime (the table still sized for the movetime): the same answer every run."""
    from engine import analyse
    from functions.common.analysis.budget import hash_size_mb

    limit = {"nodes": nodes} if nodes else {"movetime_ms": movetime_ms}
    result = analyse(fen=fen, hash_mb=hash_size_mb(movetime_ms, 1), threads=1, params=params or None, **limit)
    s = result.score  # the side to move's
    cp = s.cp if s.cp is not None else (MATE_CP if s.mate > 0 else -MATE_CP)
    return result.best_move, cp, result.depth, result.nodes


def head_to_head(a, b):
    """Two nets' answers to the same positions: (a lost less win% in, more in, the same in) positions."""
    better = sum(x[1] < y[1] for x, y in zip(a, b, strict=True))
    worse = sum(x[1] > y[1] for x, y in zip(a, b, strict=True))
    return better, worse, len(a) - better - worse


def mistakes(fens, rows, best_moves):
    """The lines naming each answer that is a mistake or a blunder: what a user would have been told."""
    return [f"- {fen}: {row[8]} ({'blunder' if row[4] else 'mistake'}, {row[1]:.1f} win% lost; Stockfish "
            f"{best})" for fen, row, best in zip(fens, rows, best_moves, strict=True) if row[3]]


def summary(rows):
    n = len(rows)
    mean = lambda k: sum(r[k] for r in rows) / n  # noqa: E731 - a one-line column mean
    return {"positions": n, "best": 100 * mean(0), "lost": mean(1), "accuracy": mean(2),
            "mistakes": 100 * mean(3), "blunders": 100 * mean(4), "score_error": mean(5),
            "depth": sum(r[6] for r in rows) / n, "nodes": sum(r[7] for r in rows) / n}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ms", type=int, default=1000, help="movetime of each answer (the API's default is 1000)")
    ap.add_argument("--positions", type=int, default=600)
    ap.add_argument("--depth", type=int, default=20, help="Stockfish's depth for the judgement")
    ap.add_argument("--net", action="append", default=[], metavar="LABEL=PATH[,NAME=VALUE...]",
                    help="answer with this net and these search parameters (repeat to compare; default: the "
                         "shipped net)")
    ap.add_argument("--draw", action="store_true",
                    help="sample the journals afresh (with --seed) instead of benchmarks/data/answers.fen")
    ap.add_argument("--seed", type=int, default=1, help="the sample's seed, with --draw")
    ap.add_argument("--cache", default="/tmp/kibitz-answers-judge.json", help="Stockfish's verdicts, kept")
    ap.add_argument("--record", action="store_true", help="write the table to docs/benchmarks.md")
    args = ap.parse_args(argv)

    from engine import native, nnue

    nets = []
    for spec in args.net or [f"shipped={nnue.DEFAULT_NET}"]:
        label, path, params = net_spec(spec)
        try:
            nets.append((label, nnue.load(path), path, params))
        except (OSError, nnue.NetError) as e:
            raise SystemExit(f"answers: --net {spec!r}: {e}") from None
    if args.positions < 1:
        raise SystemExit(f"answers: --positions {args.positions}: give 1 or more")
    fens = positions(n=args.positions, seed=args.seed) if args.draw else fixed_positions(args.positions)
    judge = Judge(args.depth, args.cache)
    rows = {label: [] for label, *_ in nets}
    best_moves = []
    start, t0 = cpu_times(), time.monotonic()
    try:
        for i, fen in enumerate(fens):
            best_move, best_cp = judge.best(fen)
            best_moves.append(best_move)
            for label, net, _, params in nets:
                native.NET = net
                move, cp, depth, nodes = api_search(fen, args.ms, params)
                rows[label].append((*verdict(best_move, best_cp, move, judge.score_of(fen, move), cp), depth, nodes,
                                    move))
            if (i + 1) % 20 == 0:
                judge.save()
                print(f"answers: {i + 1}/{len(fens)} positions, {time.monotonic() - t0:.0f} s", file=sys.stderr,
                      flush=True)
    finally:
        judge.close()
    stats = {label: summary(r) for label, r in rows.items()}
    head = [f"{args.ms} ms answers, judged by Stockfish 15.1 at depth {args.depth}", "positions", "depth",
            "nodes", "Stockfish's move %", "win% lost", "accuracy", "mistakes %", "blunders %", "score error, win%"]
    body = []
    for (label, _, path, params), s in zip(nets, stats.values(), strict=True):
        name = ", ".join([pathlib.Path(path).name] + [f"{k}={v}" for k, v in params.items()])
        body.append([f"{label} ({name})", s["positions"], f"{s['depth']:.1f}", f"{s['nodes']:,.0f}",
                     f"{s['best']:.1f}", f"{s['lost']:.2f}", f"{s['accuracy']:.1f}", f"{s['mistakes']:.1f}",
                     f"{s['blunders']:.1f}", f"{s['score_error']:.2f}"])
    out = table(head, body)
    first = nets[0][0]
    for label, *_ in nets[1:]:
        better, worse, same = head_to_head(rows[first], rows[label])
        out += (f"\n\nPosition by position, {first} against {label}: lost less win% in {better}, more in {worse}, "
                f"the same in {same}.")
    for label, *_ in nets:
        lines = mistakes(fens, rows[label], best_moves)
        out += f"\n\n{label}'s mistakes and blunders:" + ("\n\n" + "\n".join(lines) if lines else " none.")
    where = (f"{len(fens)} of the games in {', '.join(p.name for p in JOURNALS)} (seed {args.seed})" if args.draw
             else f"the first {len(fens)} of benchmarks/data/answers.fen (fixed)")
    out += (f"\n\nAs AnalyzeFunction: a fresh table sized by common/analysis/budget.py at 1769 MB, one thread. "
            f"Positions: {where}. {steal_since(start)}.")
    print(out)
    if args.record:
        command = "python -m benchmarks.answers " + " ".join(argv if argv is not None else sys.argv[1:])
        record("API answers judged by Stockfish", out, re.sub(r" ?--record", "", command))


if __name__ == "__main__":
    main()
