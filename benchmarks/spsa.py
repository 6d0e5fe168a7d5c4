"""SPSA: tune the search's numbers (engine/params.py) by self-play game pairs, as fishtest tunes Stockfish's.

    .venv/bin/python -m benchmarks.spsa --journal /work/data/spsa-1.jsonl --iterations 3000 --nodes 10000
    .venv/bin/python -m benchmarks.spsa --journal ... --tc 5+0.05 --param RfpMargin,100,0,300,10,0.002 ...
    .venv/bin/python -m benchmarks.spsa --journal ... --adjudicate   # games end by fishtest's rules: cheaper
    .venv/bin/python -m benchmarks.spsa --journal ... --show        # where a run stands, without playing

Each iteration draws a random sign for every parameter, plays one game pair (an opening of the 2-move
book, colours swapped) between the values moved up and down by c_k along those signs, and moves every
value by R_k * c_k * (the pair's wins minus losses for the up side) * its sign. The gains follow fishtest's
schedule from each parameter's c_end and r_end (perturbation and learning rate at the last iteration):

    c_k = c_end * (N / k) ** 0.101        a_k = r_end * c_end**2 * ((A + N) / (A + k)) ** 0.602,  A = N / 10
    R_k = a_k / c_k**2

--param NAME,START,MIN,MAX,C_END,R_END (repeatable) chooses what is tuned; by default the margins and
reductions below. Values are kept as floats and rounded for the engine. `--concurrency` pairs are played at
once, each with the values of its start (asynchronous, as fishtest's workers).

The journal (JSON lines, outside the repository) holds the settings and every finished iteration, with the
values after it, so a run killed at any point goes on from its last line when started again with the same
settings (other settings are refused, naming what differs). `--record` writes the run's start and current
values into docs/strength.md ("SPSA runs"). Tuned values are adopted only after a match at 10+0.1 against
the old ones (python -m benchmarks.match self --a-opt ... --b-opt ...).
"""

import argparse
import json
import pathlib
import random
import sys
import threading
import time

from benchmarks.common import ROOT
from benchmarks.match import Limits, Player, openings, play_game, truncate_torn_tail
from benchmarks.report import write_block
from engine.params import PARAMS

ALPHA = 0.602
GAMMA = 0.101
# name: (c_end, r_end): c_end about a twentieth of the range, r_end = 0.002 as fishtest's default
DEFAULT_TUNE = {
    "LmrBase": (10, 0.002),
    "LmrDivisor": (15, 0.002),
    "LmrHistory": (500, 0.002),
    "RfpMargin": (8, 0.002),
    "RazorBase": (20, 0.002),
    "RazorPerPly": (20, 0.002),
    "FutilityBase": (10, 0.002),
    "FutilityPerPly": (8, 0.002),
    "SeeQuietMargin": (8, 0.002),
    "SeeCaptureMargin": (8, 0.002),
    "DeltaMargin": (15, 0.002),
}
STRENGTH = ROOT / "docs" / "strength.md"


class Param:
    def __init__(self, name, start, lo, hi, c_end, r_end):
        if name not in {p[0] for p in PARAMS}:
            raise SystemExit(f"spsa: --param {name}: not a parameter of engine/params.py")
        if not lo <= start <= hi or c_end <= 0 or r_end <= 0:
            raise SystemExit(f"spsa: --param {name}: needs MIN <= START <= MAX and C_END, R_END > 0")
        self.name, self.start, self.lo, self.hi, self.c_end, self.r_end = name, start, lo, hi, c_end, r_end

    @classmethod
    def parse(cls, text):
        parts = text.split(",")
        if len(parts) != 6:
            raise SystemExit(f"spsa: --param {text!r}: expected NAME,START,MIN,MAX,C_END,R_END")
        try:
            return cls(parts[0], *(float(p) for p in parts[1:]))
        except ValueError:
            raise SystemExit(f"spsa: --param {text!r}: START, MIN, MAX, C_END and R_END must be numbers") from None

    def spec(self):
        return [self.name, self.start, self.lo, self.hi, self.c_end, self.r_end]

    def clamp(self, v):
        return min(max(v, self.lo), self.hi)


def default_params():
    bounds = {name: (default, lo, hi) for name, default, lo, hi in PARAMS}
    return [Param(name, *bounds[name], c, r) for name, (c, r) in DEFAULT_TUNE.items()]


def gains(param, k, iterations):
    """(c_k, R_k) of iteration k (1-based) of a run of `iterations`."""
    a_big = iterations / 10
    c_k = param.c_end * (iterations / k) ** GAMMA
    a_k = param.r_end * param.c_end ** 2 * ((a_big + iterations) / (a_big + k)) ** ALPHA
    return c_k, a_k / c_k ** 2


def step(params, theta, k, iterations, flips, result):
    """The values after iteration k, whose up side scored `result` (wins - losses over the pair)."""
    out = {}
    for p, flip in zip(params, flips, strict=True):
        c_k, r_k = gains(p, k, iterations)
        out[p.name] = p.clamp(theta[p.name] + r_k * c_k * result * flip)
    return out


def perturbed(params, theta, k, iterations, flips):
    """The (up, down) engine options of iteration k: the values moved by c_k along the signs, rounded."""
    up, down = {}, {}
    for p, flip in zip(params, flips, strict=True):
        c_k, _ = gains(p, k, iterations)
        up[p.name] = round(p.clamp(theta[p.name] + c_k * flip))
        down[p.name] = round(p.clamp(theta[p.name] - c_k * flip))
    return up, down


class Run:
    """An SPSA run kept in its journal; play_pair(up, down, opening) -> wins - losses of the up side."""

    def __init__(self, journal, params, iterations, limits_text, seed, play_pair, concurrency=1, log=print):
        self.journal, self.params, self.iterations = pathlib.Path(journal), params, iterations
        self.play_pair, self.concurrency, self.log = play_pair, concurrency, log
        self.settings = {"params": [p.spec() for p in params], "iterations": iterations, "limits": limits_text,
                         "seed": seed}
        self.theta = {p.name: p.start for p in params}
        self.done = 0  # iterations finished (journal lines)
        self.started = 0  # iterations handed out
        self.results = []
        self.lock = threading.Lock()
        self.stop = threading.Event()  # no iteration starts once set; the ones under way finish
        self.rng = random.Random(seed)
        self.book = openings(seed)
        self._resume()

    def _resume(self):
        if not self.journal.exists() or self.journal.stat().st_size == 0:
            self.journal.parent.mkdir(parents=True, exist_ok=True)
            self.journal.write_text(json.dumps({"settings": self.settings}) + "\n")
            return
        lines = self.journal.read_text().splitlines()
        first = json.loads(lines[0]).get("settings")
        if first != self.settings:
            diff = sorted(k for k in self.settings if first is None or first.get(k) != self.settings[k])
            raise SystemExit(f"spsa: {self.journal} was started with other settings ({', '.join(diff)} differ): "
                             "give another --journal, or the same settings")
        for n, line in enumerate(lines[1:], 2):
            try:
                it = json.loads(line)
            except json.JSONDecodeError:
                if n == len(lines):  # torn by a kill while it was written: cut, and that iteration played again
                    truncate_torn_tail(self.journal)
                    break
                raise SystemExit(f"spsa: {self.journal} line {n} is not JSON") from None
            self.theta = it["theta"]
            self.results.append(it["result"])
            self.done += 1
        self.started = self.done
        for _ in range(self.done):  # the same signs and openings as an unbroken run would draw next
            self._draw()

    def _draw(self):
        flips = [self.rng.choice((-1, 1)) for _ in self.params]
        return flips, self.book[self.rng.randrange(len(self.book))]

    def _next(self):
        with self.lock:
            if self.started >= self.iterations or self.stop.is_set():
                return None
            self.started += 1
            flips, opening = self._draw()
            return self.started, flips, opening, dict(self.theta)

    def _finish(self, k, flips, result, up, down):
        with self.lock:
            self.theta = step(self.params, self.theta, k, self.iterations, flips, result)
            self.done += 1
            self.results.append(result)
            with open(self.journal, "a") as f:
                f.write(json.dumps({"k": k, "flips": flips, "up": up, "down": down, "result": result,
                                    "theta": self.theta}) + "\n")
            if self.done % 10 == 0 or self.done == self.iterations:
                self.log(self.status())

    def worker(self):
        while (job := self._next()) is not None:
            k, flips, opening, theta = job
            up, down = perturbed(self.params, theta, k, self.iterations, flips)
            self._finish(k, flips, self.play_pair(up, down, opening), up, down)

    def run(self):
        threads = [threading.Thread(target=self.worker, daemon=True) for _ in range(self.concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return self

    def status(self):
        score = sum(self.results)
        values = ", ".join(f"{p.name} {self.theta[p.name]:.1f}" for p in self.params)
        return f"spsa: {self.done}/{self.iterations} iterations, up side {score:+d} over the pairs; {values}"


class EnginePairs:
    """play_pair for real games: Kibitz against itself, each thread with its own two engine processes."""

    def __init__(self, limits):
        self.limits = limits
        self.command = f"env KIBITZ_TUNING=1 {ROOT / '.venv' / 'bin' / 'python'} -m engine.uci"
        self.local = threading.local()
        self.opened = []
        self.lock = threading.Lock()

    def __call__(self, up, down, opening):
        if not hasattr(self.local, "engines"):
            self.local.engines = {"a": Player("up", self.command, cwd=ROOT).open(),
                                  "b": Player("down", self.command, cwd=ROOT).open()}
            with self.lock:
                self.opened += self.local.engines.values()
        self.local.engines["a"].configure(up)
        self.local.engines["b"].configure(down)
        problems = []
        first, _ = play_game(self.local.engines, opening, True, self.limits, problems)
        second, _ = play_game(self.local.engines, opening, False, self.limits, problems)
        if problems:
            print(f"spsa: {'; '.join(problems)}", file=sys.stderr, flush=True)
        return round(2 * (first + second) - 2)  # wins - losses of the up side over the pair

    def close(self):
        for engine in self.opened:
            try:
                engine.quit()
            except Exception:  # noqa: BLE001 - an engine that already died has nothing left to close
                pass


def record(run, command):
    rows = [f"| {p.name} | {p.start:g} | {run.theta[p.name]:.1f} | {round(run.theta[p.name])} |" for p in run.params]
    body = "\n".join([f"**{run.journal.stem}** ({time.strftime('%Y-%m-%d')}, {run.done}/{run.iterations} iterations,"
                      f" {2 * run.done} games at {run.settings['limits']}; `{command}`):", "",
                      "| parameter | start | now | rounded |", "|---|---|---|---|", *rows])
    write_block(STRENGTH, f"<!-- spsa {run.journal.name} -->", f"<!-- /spsa {run.journal.name} -->", body,
                "## SPSA runs\n\nEach run's start and current values (benchmarks/spsa.py). Values are adopted only "
                "after a match at 10+0.1 against the old ones.")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--journal", required=True, help="the run's journal (JSON lines, outside the repository)")
    ap.add_argument("--iterations", type=int, default=3000, help="game pairs in the whole run")
    ap.add_argument("--param", action="append", default=[], help="NAME,START,MIN,MAX,C_END,R_END (repeatable)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--nodes", type=int, help="nodes a move (default 10000)")
    g.add_argument("--tc", help="a clock, base+inc in seconds, e.g. 5+0.05")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--adjudicate", action="store_true",
                    help="end games early by fishtest's resign and draw rules (benchmarks/adjudication.py)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", action="store_true", help="print where the run stands and stop")
    ap.add_argument("--record", action="store_true", help="write the values into docs/strength.md")
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.concurrency < 1:
        raise SystemExit("spsa: --iterations and --concurrency must be at least 1")
    params = [Param.parse(p) for p in args.param] if args.param else default_params()
    limits = Limits(tc=args.tc, nodes=None if args.tc else (args.nodes or 10000), adjudicate=args.adjudicate)
    pairs = EnginePairs(limits)
    run = Run(args.journal, params, args.iterations, limits.text(), args.seed, pairs, concurrency=args.concurrency)
    print(run.status(), flush=True)
    if not args.show:
        try:
            run.run()
        except KeyboardInterrupt:
            print("spsa: stopped; start the same command again to go on", flush=True)
        finally:
            pairs.close()
    if args.record:
        record(run, "python -m benchmarks.spsa " + " ".join(argv if argv is not None else sys.argv[1:]))
    print(run.status(), flush=True)


if __name__ == "__main__":
    main()
