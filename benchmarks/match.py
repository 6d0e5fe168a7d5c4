"""Matches: Kibitz against reference engines or against itself, with Elo intervals and an SPRT mode.

    .venv/bin/python -m benchmarks.match stockfish --elo 2400 --games 100 --tc 10+0.1 [--record]
    .venv/bin/python -m benchmarks.match fairymax --games 100 --tc 10+0.1
    .venv/bin/python -m benchmarks.match self --a-opt RfpMargin=100 --b-opt RfpMargin=75 --sprt 0 10 \
        --games 2000 --nodes 10000 --strength "RFP margin 100"     (an A/B of parameters of one build)
    .venv/bin/python -m benchmarks.match self --b-dir /work/wt/base --sprt 0 5 --nodes 20000 ...
                                                                 (this checkout against another one)

Each opening of the 2-move book (training/data/openings_noob_2moves.epd, shuffled with --seed) is
played twice, colours swapped; pairs give the pentanomial statistics of benchmarks/sprt.py. With
--sprt ELO0 ELO1 the match stops as soon as the log-likelihood ratio leaves its bounds (alpha = beta
= 0.05), or at --games. Limits: a clock (--tc base+inc, seconds; a side whose clock runs out loses)
or a fixed --nodes per move. Illegal moves, crashes and time losses are reported as problems.
--adjudicate ends a game once both engines' scores agree it is decided, by fishtest's rules
(benchmarks/adjudication.py), and the limit reads "..., adjudicated".

--record adds a row to docs/benchmarks.md ("Matches"); --strength NAME adds one to docs/strength.md
("Changes decided by SPRT").

--journal FILE makes a long match resumable: every finished pair is appended to FILE (JSON lines,
the games' PGN included), and a match started again with the same FILE plays only the pairs not in
it yet, counting the ones that are. The first line holds the match's settings; a restart with other
settings (engines, options, limits, book seed, a checkout's bench) is refused, naming what differs.
A 400-game match at 10+0.1 (two and a half hours of both cores) can so span several sessions.
"""

import argparse
import datetime
import gzip
import io
import json
import pathlib
import queue
import random
import re
import shlex
import signal
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn

from benchmarks.adjudication import Adjudicator
from benchmarks.common import ROOT, find_engine
from benchmarks.report import record, record_row, recorded_part
from benchmarks.sprt import Pentanomial, sprt_state
from training.journals import read_lines

BOOK = ROOT / "training" / "data" / "openings_noob_2moves.epd"  # training/gen.py's
# A backstop only: the fifty-move rule and repetition end real games. At 400 (until 2026-11-27) 49 of 800
# ladder games were cut short and scored drawn, 2 of them where Stockfish's own score gave Kibitz a mate.
MAX_PLIES = 1000


def kibitz_command(checkout):
    """The UCI command of the engine in a checkout (its own compiled module), tuning options on."""
    checkout = pathlib.Path(checkout).resolve()
    return f"env KIBITZ_TUNING=1 PYTHONPATH={checkout} {ROOT / '.venv' / 'bin' / 'python'} -m engine.uci", checkout


class Player:
    def __init__(self, name, command, options=None, cwd=None, protocol="uci"):
        self.name, self.command, self.options, self.cwd, self.protocol = name, command, options or {}, cwd, protocol

    def open(self):
        args = shlex.split(self.command)
        if self.protocol == "uci":
            engine = chess.engine.SimpleEngine.popen_uci(args, cwd=self.cwd, timeout=120)
        else:
            engine = chess.engine.SimpleEngine.popen_xboard(args, cwd=self.cwd, timeout=120)
        if self.options:
            engine.configure(self.options)
        return engine


def parse_options(pairs):
    out = {}
    for kv in pairs:
        k, v = kv.split("=", 1)
        out[k] = int(v) if v.lstrip("-").isdigit() else (v == "true" if v in ("true", "false") else v)
    return out


def truncate_torn_tail(journal):
    """Cut a journal's last line, torn by a kill while it was written, so that the next line starts afresh."""
    if journal.suffix == ".gz":  # written again whole: the kept journals are small
        lines = read_lines(journal)[:-1]
        with gzip.open(journal, "wt") as f:
            f.write("".join(line + "\n" for line in lines))
        return
    text = journal.read_bytes()
    journal.write_bytes(text[:text.rstrip(b"\n").rfind(b"\n") + 1])


def append_line(journal, line):
    """One line at the end of a journal; a gzipped one (a kept journal resumed) gets a gzip member more."""
    with (gzip.open(journal, "at") if journal.suffix == ".gz" else open(journal, "a")) as f:
        f.write(line + "\n")


def openings(seed, chess960=False):
    if chess960:  # the 960 start positions themselves (Scharnagl numbers), in X-FEN
        lines = [chess.Board.from_chess960_pos(n).fen() for n in range(960)]
    else:
        lines = [" ".join(line.split()[:4]) + " 0 1" for line in BOOK.read_text().splitlines() if line.strip()]
    random.Random(seed).shuffle(lines)
    return lines


class Limits:
    def __init__(self, tc=None, nodes=None, adjudicate=False, chess960=False):
        self.nodes, self.adjudicate, self.chess960 = nodes, adjudicate, chess960
        self.base = self.inc = None
        if tc:
            base, inc = tc.split("+")
            self.base, self.inc = float(base), float(inc)

    def text(self):
        text = f"{self.nodes} nodes" if self.nodes else f"{self.base:g}+{self.inc:g}"
        text += ", Chess960" if self.chess960 else ""
        return text + ", adjudicated" if self.adjudicate else text


def play_game(engines, fen, a_white, limits, problems):
    """One game; returns (A's score, the game as PGN). engines: {"a": engine, "b": engine}."""
    board = chess.Board(fen, chess960=limits.chess960)  # python-chess sets UCI_Chess960 on both engines
    white, black = (engines["a"], engines["b"]) if a_white else (engines["b"], engines["a"])
    clocks = {chess.WHITE: limits.base, chess.BLACK: limits.base}
    game = chess.pgn.Game.from_board(board)
    node = game
    result = None
    judge = Adjudicator() if limits.adjudicate else None
    info = chess.engine.INFO_SCORE  # each move's score goes into the PGN: data for the WDL model's fit
    for e in (white, black):
        if isinstance(e.protocol, chess.engine.UciProtocol):
            e.protocol.send_line("ucinewgame")
    while result is None:
        if board.is_game_over(claim_draw=True):
            result = board.result(claim_draw=True)
            break
        if board.ply() >= MAX_PLIES:
            result = "1/2-1/2"
            break
        turn = board.turn
        mover = white if turn == chess.WHITE else black
        who = "A" if (turn == chess.WHITE) == a_white else "B"
        if limits.nodes:
            limit = chess.engine.Limit(nodes=limits.nodes)
        else:
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=limits.inc, black_inc=limits.inc)
        t = time.perf_counter()
        try:
            played = mover.play(board, limit, game=game, info=info)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as ex:
            problems.append(f"{who} crashed: {ex!r} at {board.fen()}")
            result = "0-1" if turn == chess.WHITE else "1-0"
            break
        spent = time.perf_counter() - t
        if not limits.nodes:
            clocks[turn] -= spent
            if clocks[turn] < 0:
                problems.append(f"{who} lost on time ({-clocks[turn] * 1000:.0f} ms over) at {board.fen()}")
                result = "0-1" if turn == chess.WHITE else "1-0"
                break
            clocks[turn] += limits.inc
        move = played.move
        if move is None or move not in board.legal_moves:
            problems.append(f"illegal move {move} by {who} in {board.fen()}")
            result = "0-1" if turn == chess.WHITE else "1-0"
            break
        board.push(move)
        node = node.add_variation(move)
        if not limits.nodes:
            node.set_clock(clocks[turn])  # [%clk]: how each side spends its time, read back from the PGN
        score = played.info.get("score")
        if score is not None:
            node.set_eval(score)  # [%eval]: the mover's search score of the move, from White's side
        if judge:
            result = judge.after_move(turn, score.relative if score else None, board)
            if result:
                game.headers["Termination"] = "adjudication"
    game.headers["Result"] = result
    game.headers["White"], game.headers["Black"] = ("A", "B") if a_white else ("B", "A")
    if result == "1/2-1/2":
        return 0.5, game
    return (1.0 if (result == "1-0") == a_white else 0.0), game


class Match:
    """Game pairs on `concurrency` threads, each with its own two engine processes."""

    def __init__(self, a, b, limits, max_games, concurrency=2, sprt=None, seed=7, log=print, journal=None):
        self.a, self.b, self.limits, self.sprt = a, b, limits, sprt
        self.max_pairs = max(1, max_games // 2)
        self.concurrency, self.log = concurrency, log
        self.penta = Pentanomial()
        self.scores, self.games, self.problems = [], [], []
        self.verdict = None
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.jobs = queue.Queue()
        self.journal = pathlib.Path(journal) if journal else None
        self.resumed = 0
        done = self.resume(seed) if self.journal else set()
        book = openings(seed, limits.chess960)
        for i in range(self.max_pairs):
            if i not in done:
                self.jobs.put((i, book[i % len(book)]))
        self.started = time.monotonic()

    def settings(self, seed):
        """What must not change between the runs of one journal."""
        def side(p):
            bench = bench_signature(p.cwd) if p.cwd else None
            return {"name": p.name, "command": p.command, "options": p.options, "bench": bench}
        return {"a": side(self.a), "b": side(self.b), "limits": self.limits.text(), "seed": seed,
                "sprt": list(self.sprt) if self.sprt else None}

    def resume(self, seed):
        """Count the pairs already in the journal; start it if there is none. Returns their indices."""
        settings = self.settings(seed)
        if not self.journal.exists() or self.journal.stat().st_size == 0:
            self.journal.parent.mkdir(parents=True, exist_ok=True)
            self.journal.unlink(missing_ok=True)
            append_line(self.journal, json.dumps({"settings": settings}))
            return set()
        lines = read_lines(self.journal)
        first = json.loads(lines[0]).get("settings")
        if first != settings:
            diff = sorted(k for k in settings if first is None or first.get(k) != settings.get(k))
            raise SystemExit(f"match: {self.journal} was started with other settings ({', '.join(diff)} differ): "
                             "give another --journal, or the same settings")
        done = set()
        for n, line in enumerate(lines[1:], 2):
            try:
                pair = json.loads(line)
            except json.JSONDecodeError:
                if n == len(lines):  # a pair torn by a kill while it was written: cut it, and play it again
                    truncate_torn_tail(self.journal)
                    break
                raise SystemExit(f"match: {self.journal} line {n} is not JSON") from None
            if pair["pair"] in done or pair["pair"] >= self.max_pairs:
                continue
            done.add(pair["pair"])
            games = [chess.pgn.read_game(io.StringIO(g)) for g in pair["pgn"]]
            self.record_pair(*pair["scores"], *games, pair["problems"])
        self.resumed = len(done)
        return done

    def worker(self):
        engines = {}
        try:
            engines = {"a": self.a.open(), "b": self.b.open()}
            while not self.stop.is_set():
                try:
                    index, fen = self.jobs.get_nowait()
                except queue.Empty:
                    return
                problems = []
                first, g1 = play_game(engines, fen, True, self.limits, problems)
                second, g2 = play_game(engines, fen, False, self.limits, problems)
                self.add_pair(first, second, g1, g2, problems, index)
        finally:
            for e in engines.values():
                try:
                    e.quit()
                except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
                    pass

    def record_pair(self, first, second, g1, g2, problems):
        """Count a pair; returns the SPRT's line and stops the match at a verdict."""
        self.penta.add(first, second)
        self.scores += [first, second]
        self.games += [g1, g2]
        self.problems += problems
        line = ""
        if self.sprt:
            llr, lo, hi, verdict = sprt_state(self.penta, *self.sprt)
            line = f"  LLR {llr:+.2f} [{lo:.2f}, {hi:.2f}]"
            if verdict and not self.verdict:
                self.verdict = verdict
                self.stop.set()
        return line

    def add_pair(self, first, second, g1, g2, problems, index):
        """A finished pair: into the journal (pair `index` of the book), then counted."""
        with self.lock:
            if self.journal:
                entry = {"pair": index, "scores": [first, second], "problems": problems, "pgn": [str(g1), str(g2)]}
                append_line(self.journal, json.dumps(entry))
            line = self.record_pair(first, second, g1, g2, problems)
            self.log(self.status() + line)

    def wdl(self):
        return self.scores.count(1.0), self.scores.count(0.5), self.scores.count(0.0)

    def status(self):
        w, d, lost = self.wdl()
        e, lo, hi = self.penta.elo_interval()
        minutes = (time.monotonic() - self.started) / 60
        return (f"games {len(self.scores)}: A +{w} ={d} -{lost}  elo {e:+.1f} [{lo:+.1f}, {hi:+.1f}]  "
                f"penta {self.penta.counts}  problems {len(self.problems)}  {minutes:.0f} min"
                + (f" (this run; {self.resumed} pairs from the journal)" if self.resumed else ""))

    def run(self):
        if self.verdict:  # the journal's pairs already decide it
            return self
        threads = [threading.Thread(target=self.worker, daemon=True) for _ in range(self.concurrency)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except KeyboardInterrupt:
            self.stop.set()
            self.log("interrupted: finishing the pairs under way")
            for t in threads:
                t.join()
        return self

    def summary(self):
        w, d, lost = self.wdl()
        e, lo, hi = self.penta.elo_interval()
        text = f"A vs B: +{w} ={d} -{lost}  score {sum(self.scores) / max(len(self.scores), 1):.3f}  " \
               f"elo {e:+.1f} [{lo:+.1f}, {hi:+.1f}]  pairs {self.penta.counts}  problems {len(self.problems)}"
        if self.limits.adjudicate:
            text += f"  adjudicated {sum(g.headers.get('Termination') == 'adjudication' for g in self.games)}"
        if self.sprt:
            llr, lo_b, hi_b, _ = sprt_state(self.penta, *self.sprt)
            text += f"  SPRT [{self.sprt[0]:g}, {self.sprt[1]:g}]: LLR {llr:+.2f}, " + \
                    {"H1": "H1 accepted (A gains)", "H0": "H0 accepted (no gain)", None: "undecided"}[self.verdict]
        return text


def players(args):
    """(A, B, B's label) from the command line."""
    a_cmd, a_dir = kibitz_command(args.a_dir or ROOT)
    a = Player("Kibitz", a_cmd, parse_options(args.a_opt + (["Hash=16"] if args.opponent != "self" else [])),
               cwd=a_dir)
    b_opts = parse_options(args.b_opt)
    if args.opponent == "fairymax":
        return a, Player("Fairy-Max 5.0b", find_engine("fairymax"), b_opts, protocol="xboard"), "Fairy-Max 5.0b"
    if args.opponent == "stockfish":
        # Move Overhead 30 (Stockfish's default is 10): this harness's clock includes the pipe and the
        # process wake-ups, and at 10 ms Stockfish lost 3 of 400 ladder games on time by them.
        b_opts = {"Move Overhead": 30, **b_opts}
        b_opts.update({"UCI_LimitStrength": True, "UCI_Elo": args.elo, "Threads": 1, "Hash": 16})
        label = f"Stockfish 15.1, UCI_Elo {args.elo}"
        return a, Player(label, find_engine("stockfish"), b_opts), label
    b_cmd, b_dir = kibitz_command(args.b_dir or ROOT)
    label = "Kibitz (B: " + ", ".join([str(args.b_dir)] * bool(args.b_dir) + args.b_opt or ["defaults"]) + ")"
    return a, Player(label, b_cmd, b_opts, cwd=b_dir), label


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("opponent", choices=["fairymax", "stockfish", "self"])
    ap.add_argument("--games", type=int, default=100, help="at most this many games (pairs x 2)")
    ap.add_argument("--tc", default="10+0.1", help="base+increment, seconds")
    ap.add_argument("--nodes", type=int, default=None, help="a fixed node count per move instead of a clock")
    ap.add_argument("--elo", type=int, default=2200, help="Stockfish's UCI_Elo")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), default=None)
    ap.add_argument("--seed", type=int, default=7, help="shuffles the book")
    ap.add_argument("--a-opt", action="append", default=[], help="Name=Value UCI option for Kibitz (A)")
    ap.add_argument("--b-opt", action="append", default=[], help="Name=Value UCI option for B")
    ap.add_argument("--a-dir", default=None, help="A's checkout (default: this one)")
    ap.add_argument("--b-dir", default=None, help="B's checkout in self-play (default: this one)")
    ap.add_argument("--variant", choices=["standard", "chess960"], default="standard",
                    help="chess960: each pair starts from a random one of the 960 start positions")
    ap.add_argument("--adjudicate", action="store_true",
                    help="end games early by fishtest's resign and draw rules (benchmarks/adjudication.py)")
    ap.add_argument("--pgn", default=None)
    ap.add_argument("--journal", default=None, help="append each pair here; a restart resumes from it")
    ap.add_argument("--record", action="store_true", help="add a row to docs/benchmarks.md (Matches)")
    ap.add_argument("--strength", default=None, help="a change's name: add its row to docs/strength.md")
    args = ap.parse_args(argv)
    # A shell starts a background job (`cmd &`) with SIGINT ignored, and Python then keeps it ignored:
    # restore it, so that `kill -INT` finishes the pairs under way instead of doing nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    a, b, label = players(args)
    limits = Limits(None if args.nodes else args.tc, args.nodes, args.adjudicate, args.variant == "chess960")
    match = Match(a, b, limits, args.games, args.concurrency, args.sprt, args.seed,
                  log=lambda s: print(s, file=sys.stderr, flush=True), journal=args.journal).run()
    for p in match.problems:
        print("PROBLEM:", p)
    print(match.summary())
    if args.pgn:
        with open(args.pgn, "w") as f:
            for g in match.games:
                print(g, file=f, end="\n\n")
    command = " ".join(["python -m benchmarks.match"] + (argv if argv is not None else sys.argv[1:]))
    if args.record:
        record_match(match, label, limits, command, args.a_opt)
    if args.strength:
        record_strength(match, args.strength, limits, command)


def bench_signature(checkout):
    text = (pathlib.Path(checkout) / "engine" / "bench.py").read_text()
    return re.search(r"^SIGNATURE = (\d+)", text, re.M).group(1)


def record_match(match, label, limits, command, a_opts=()):
    """Append a row to the Matches table in docs/benchmarks.md (keeping earlier rows). The row names A's
    options (--a-opt), so that two runs of one build are told apart without reading their commands."""
    w, d, lost = match.wdl()
    e, lo, hi = match.penta.elo_interval()
    n = len(match.scores)
    a_label = ", ".join([f"bench {bench_signature(match.a.cwd)}", *a_opts])
    row = (f"| Kibitz ({a_label}) vs {label} | {limits.text()} | {n} | +{w} ={d} -{lost} | "
           f"{100 * sum(match.scores) / n:.1f}% | {e:+.0f} [{lo:+.0f}, {hi:+.0f}] | {len(match.problems)} |")
    header = ("| match | time control | games | W/D/L (Kibitz) | score | Elo difference [95%] | problems |\n"
              "|---|---|---|---|---|---|---|")
    # The recorded part only: the paragraphs below record()'s mark (what each row means) stay where they are.
    lines = recorded_part("Matches").splitlines()
    rows = [line for line in lines if line.startswith("| Kibitz")]
    rows.append(row + f" <!-- {command} -->")
    # The footnote is written once; notes added to it by hand since (a row's time loss) are kept.
    footnote = next((line for line in lines if line.startswith("Openings:")), (
        "Openings: the 2-move book, each played with both colours. Each row's command says how many games ran "
        "at once (--concurrency, default 2: one per core). Problems: illegal moves, crashes and time losses by "
        "either engine. Intervals from game pairs (pentanomial)."))
    record("Matches", header + "\n" + "\n".join(rows) + "\n\n" + footnote, "python -m benchmarks.match ... --record")


def record_strength(match, name, limits, command):
    """Add (or replace) the change's row in docs/strength.md's SPRT table."""
    doc = ROOT / "docs" / "strength.md"
    marker = "<!-- sprt -->"
    header = ["change", "A", "B", "limit", "SPRT", "games", "W/D/L (A)", "pairs (0 .. 2)", "Elo A - B [95%]",
              "LLR", "result", "date"]
    w, d, lost = match.wdl()
    e, lo, hi = match.penta.elo_interval()
    llr = ""
    sprt = ""
    if match.sprt:
        llr = f"{sprt_state(match.penta, *match.sprt)[0]:+.2f}"
        sprt = f"[{match.sprt[0]:g}, {match.sprt[1]:g}]"
    verdict = {"H1": "H1: gains", "H0": "H0: no gain", None: "fixed match" if not match.sprt else "undecided"}
    a_text = ", ".join(f"{k}={v}" for k, v in match.a.options.items()) or "defaults"
    b_text = ", ".join(f"{k}={v}" for k, v in match.b.options.items()) or "defaults"
    if match.b.cwd and match.b.cwd != match.a.cwd:
        b_text = f"{b_text} @ bench {bench_signature(match.b.cwd)}"
    a_text = f"{a_text} @ bench {bench_signature(match.a.cwd)}"
    row = [name, a_text, b_text, limits.text(), sprt, str(len(match.scores)), f"+{w} ={d} -{lost}",
           " ".join(map(str, match.penta.counts)), f"{e:+.1f} [{lo:+.1f}, {hi:+.1f}]", llr,
           verdict[match.verdict], datetime.date.today().isoformat()]
    heading = ("## Changes decided by SPRT\n\n`python -m benchmarks.match self ... --sprt ELO0 ELO1 --strength NAME`: "
               "A is the change, B the engine without it, game pairs from the 2-move book.")
    record_row(doc, marker, header, row, command, heading)


if __name__ == "__main__":
    main()
