"""Game review and the shared analysis cache, locally (issue 13).

    .venv/bin/python -m benchmarks.review [--record] [--only again,opening,hit] [--movetime-ms 300]

again    a 40-move game (Fischer-Spassky 1972, game 6: 82 positions) reviewed twice through the jobs path
         in this process (kibitz review's: moto on 127.0.0.1, two pollers running BatchFunction,
         JobsFunction in-process): the second answers from the cache.
opening  10 games that share their first 10 plies, then go their own ways (random legal moves, seeded):
         one review job with the cache, and the same job with cache "off".
hit      AnalyzeFunction in this process with the cache's table in moto: the handler's overhead on a warm
         miss (handler time minus engine.analyse(), cache off and cache on: a read and a write), against
         a cache hit's whole handler time (no search). Goal: a hit adds <= 10 ms at p99 over a miss's
         overhead.

Everything runs on 127.0.0.1 and stops by itself; load is two pollers, one search each.
"""

import argparse
import contextlib
import io
import json
import pathlib
import random
import sys
import time

from benchmarks.api import pct, positions, stats
from benchmarks.common import cpu_times, record, steal_since, table
from kibitz.local import template
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import FunctionRuntime

COMMAND = "python -m benchmarks.review --record"
STARTED = cpu_times()
OPENING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7"]


def fischer():
    return (pathlib.Path(__file__).resolve().parent / "data" / "fischer_spassky_1972_game6.pgn").read_text()


def shared_opening_games(n=10, plies=10, seed=13):
    """PGN of n games: OPENING, then `plies` random legal moves each (seeded), stopping at a game's end."""
    from engine.board import Board
    from engine.fen import STARTPOS
    from engine.game_over import reason
    from engine.moves import to_uci
    from engine.pgn import movetext
    from engine.san import line_san

    rng = random.Random(seed)
    games = []
    for g in range(n):
        board = Board.from_moves(STARTPOS, OPENING)
        moves = list(OPENING)
        for _ in range(plies):
            if reason(board) is not None:
                break
            move = rng.choice(board.legal_moves())
            moves.append(to_uci(move))
            board.push(move)
        games.append(f'[Event "Shared opening {g + 1}"]\n[White "W{g + 1}"]\n[Black "B{g + 1}"]\n[Result "*"]\n\n'
                     f"{movetext(STARTPOS, line_san(STARTPOS, moves))} *\n")
    return "\n".join(games)


def review(api, pgn, movetime_ms, cache="on"):
    """(seconds from submit to the annotated PGN, positions, positions answered from the cache)."""
    from kibitz.clients.jobs import all_results, wait

    t0 = time.monotonic()
    status, accepted = api.submit({"pgn": pgn, "review": True, "movetime_ms": movetime_ms, "cache": cache})
    assert status == 202, accepted
    wait(api, accepted["job_id"], progress=False)
    status, text = api.pgn(accepted["job_id"])
    assert status == 200, text
    seconds = time.monotonic() - t0
    _, results = all_results(api, accepted["job_id"])
    cached = sum(1 for r in results if r["analysis"] and r["analysis"]["cached"])
    return seconds, len(results), cached


def bench_reviews(only, movetime_ms):
    from kibitz.clients.jobs import LocalStack

    rows = []
    with LocalStack(template.TEMPLATE, pollers=2) as api:
        if "again" in only:
            pgn = fischer()
            for label in ("first review (empty cache)", "second review (same game)"):
                seconds, n, cached = review(api, pgn, movetime_ms)
                rows.append([f"40-move game: {label}", n, cached, f"{seconds:.1f}"])
            rows.append(["", "", "", f"second / first: {float(rows[-1][3]) / float(rows[-2][3]):.2f}"])
        if "opening" in only:
            pgn = shared_opening_games()
            for label, cache in (("10 games sharing 10 plies, cache off", "off"),
                                 ("the same 10 games, cache on (no entry yet)", "on")):
                seconds, n, cached = review(api, pgn, movetime_ms, cache)  # off neither reads nor writes
                rows.append([label, n, cached, f"{seconds:.1f}"])
    return table(["review job (2 pollers, " + f"{movetime_ms} ms a position)", "positions", "from the cache",
                  "seconds"], rows)


@contextlib.contextmanager
def moto_process():
    """LocalAWS with moto's server in a process of its own (on 127.0.0.1), so that its thread does not take
    the interpreter from the handler being timed; stopped at the end."""
    import socket
    import subprocess

    from kibitz.local.aws import LocalAWS

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = ("import logging, time; logging.getLogger('werkzeug').setLevel(logging.WARNING); "
            "from moto.server import ThreadedMotoServer; "
            f"ThreadedMotoServer(ip_address='127.0.0.1', port={port}, verbose=False).start(); time.sleep(3600)")
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        aws = LocalAWS(prefix="bench-hit")
        aws.endpoint = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                aws.create_resources()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield aws
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def bench_hit(requests):
    """AnalyzeFunction in this process, its cache in moto (in a process of its own)."""
    from functions.common.analysis import cache as analysis_cache

    with moto_process() as aws:
        aws.apply_env()
        fn = aws.functions()["AnalyzeFunction"]
        runtime = FunctionRuntime(fn)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            module = sys.modules[runtime.load().__module__]
        module.logger.registered_handler.setStream(out)
        inner = analysis_cache.analyse
        timing = {"search_ms": 0.0}

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                timing["search_ms"] = (time.perf_counter() - t0) * 1000

        analysis_cache.analyse = timed
        read = module.cache.get

        def timed_get(*args, **kwargs):  # the GetItem's round trip: moto's time, not the handler's
            t0 = time.perf_counter()
            try:
                return read(*args, **kwargs)
            finally:
                timing["get_ms"] = (time.perf_counter() - t0) * 1000

        module.cache.get = timed_get
        try:
            fens = positions(requests)

            def call(fen, cache):
                timing["search_ms"] = timing["get_ms"] = 0.0
                out.seek(0)
                out.truncate()
                body = json.dumps({"fen": fen, "movetime_ms": 10, "cache": cache})
                with contextlib.redirect_stdout(out):
                    t0 = time.perf_counter()
                    response = runtime.invoke(proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                                                          body))
                    ms = (time.perf_counter() - t0) * 1000
                answer = json.loads(response["body"])
                assert response["statusCode"] == 200, answer
                return ms, timing["search_ms"], answer["cached"], timing["get_ms"]

            for fen in fens[:10]:  # warm the handler and the connection
                call(fen, "off")
            off = [call(fen, "off") for fen in fens]
            miss = [call(fen, "on") for fen in fens]
            hit = [call(fen, "on") for fen in fens]
        finally:
            analysis_cache.analyse = inner
    assert not any(r[2] for r in miss) and all(r[2] for r in hit)
    off_overhead = [ms - s for ms, s, _, _ in off]
    miss_overhead = [ms - s for ms, s, _, _ in miss]
    hit_ms = [ms for ms, _, _, _ in hit]
    rows = [[f"warm miss, cache off: handler minus search ({len(off)})", *stats(off_overhead)],
            [f"warm miss, cache on (a read, a write): handler minus search ({len(miss)})", *stats(miss_overhead)],
            [f"cache hit: the whole handler, no search ({len(hit)})", *stats(hit_ms)],
            ["  of which the GetItem's round trip to moto", *stats([g for _, _, _, g in hit])],
            ["  the rest: key, checking the entry's lines, the answer", *stats([ms - g for ms, _, _, g in hit])]]
    added = pct(hit_ms, 0.99) - pct(miss_overhead, 0.99)
    added_off = pct(hit_ms, 0.99) - pct(off_overhead, 0.99)
    note = (f"A hit's p99 is {added:+.1f} ms over a cache-on miss's overhead at p99, {added_off:+.1f} ms over a "
            f"cache-off miss's (goal: <= 10 ms).")
    return table(["/analyze in this process, ms", "median", "p90", "p99", "max"], rows), note


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the tables to docs/benchmarks.md")
    ap.add_argument("--only", default="again,opening,hit")
    ap.add_argument("--movetime-ms", type=int, default=300)
    ap.add_argument("--requests", type=int, default=200, help="/analyze requests per kind (hit)")
    args = ap.parse_args()
    only = set(args.only.split(","))
    sections = []
    if only & {"again", "opening"}:
        sections.append(("Review and the analysis cache (local)", bench_reviews(only, args.movetime_ms),
                         "Each row is one `POST /jobs {pgn, review: true}` through the jobs path in this process "
                         "(kibitz/clients/jobs.py's LocalStack: moto on 127.0.0.1, two pollers), timed from "
                         "the submission to the annotated PGN. The cache is moto's table, in memory, for the "
                         "whole run. The 10 games share their first 10 plies (a Ruy Lopez), then play 10 seeded "
                         "random moves each; with the cache off nothing is read or written, so the cache-on run "
                         "starts from no entry for them: its hits are the positions the games of one job share."))
    if "hit" in only:
        body, note = bench_hit(args.requests)
        sections.append(("Analysis cache hit on /analyze (local, moto)", body,
                         f"{note} Positions: the first {args.requests} of wac.epd at movetime 10 ms; the same "
                         "positions three times: cache off, then on (all misses), then on (all hits). The table is "
                         "moto's (its server in a process of its own on 127.0.0.1), reached through "
                         "functions/common/aws/dynamodb_lite.py on a kept-alive connection: moto's GetItem takes "
                         "~8-14 ms here, most of a hit; DynamoDB answers one in a few ms within a region. The "
                         "miss with the cache on pays a read and a write; a hit pays the read, checks the "
                         "entry's lines and builds the answer."))
    for title, body, note in sections:
        note = f"{note}\n\n{steal_since(STARTED)}."
        print(f"\n## {title}\n\n{body}\n\n{note}")
        if args.record:
            record(title, f"{body}\n\n{note}", COMMAND)


if __name__ == "__main__":
    main()
