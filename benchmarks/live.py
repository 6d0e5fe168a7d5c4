"""The live analysis stream, locally (issue 33): `kibitz serve` as a process of its own on 127.0.0.1, its
WebSocket route driven by kibitz/clients/live.py.

    .venv/bin/python -m benchmarks.live [--record] [--only first,nps,own,load] [--analyses 200] [--at-once 50]

first  the first `info` message's latency, from sending `analyze` to receiving it, on a warm function
       (one connection, 100 positions of wac.epd, 300 ms each, cache off). Goal: p99 <= 100 ms.
nps    nodes per second of the same searches with the stream (the analyze route, an info per iteration
       posted through the Management API stand-in) and without (POST /analyze), interleaved one for one,
       1 s each, one thread, cache off. Goal: with / without >= 0.97.
own    the function's own share, in this process: engine.analyse for 1 s with the stream's threads (the
       poster, building each info and posting it by boto3; the watcher, claiming the connection and reading
       it by dynamodb_lite every 100 ms) against a trivial local HTTP sink, and without them, interleaved.
       What LiveFunction's vCPU pays on AWS, without the stand-ins' and moto's CPU that `nps` includes.
load   `--analyses` live analyses, `--at-once` connections at a time (serve allows as many containers), each
       checked in full: its result, its infos in order, every info the function says it posted (its log's
       `infos`) received; serve's memory after each round. Goals: nothing lost, memory flat.

Everything talks to 127.0.0.1 only, and stops by itself (bounded in analyses and time).
"""

import argparse
import json
import pathlib
import re
import statistics
import sys
import threading
import time
import urllib.request

from benchmarks.api import pct, positions, stats
from benchmarks.common import cpu_times, record, steal_since, table
from benchmarks.served import BANNER_S, Served, children

COMMAND = "python -m benchmarks.live --record"
STARTED = cpu_times()


class LiveServed(Served):
    """Served, with the WebSocket route's address and as many live containers as asked."""

    def __init__(self, concurrency, **kwargs):
        super().__init__(**kwargs)
        self.concurrency = concurrency
        self.ws = None

    def start(self):
        import subprocess

        args = [sys.executable, "-m", "kibitz.cli", "serve", "--port", "0", "--pollers", "0",
                "--live-concurrency", str(self.concurrency)]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(args, cwd=self.ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + BANNER_S
        while time.monotonic() < deadline:
            text = self.log_text()
            http = re.search(r"serving \S+ on (http://127\.0\.0\.1:\d+)", text)
            ws = re.search(r"(ws://127\.0\.0\.1:\d+/live)", text)
            if http and ws and "LiveConnectionsTable" in text:
                self.url, self.ws = http.group(1), ws.group(1)
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"kibitz serve exited ({self.proc.returncode}):\n{text[-3000:]}")
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("kibitz serve did not start")

    ROOT = pathlib.Path(__file__).resolve().parents[1]


def analyse_on(client, request):
    """(result, infos, the first info's latency in ms) of one analysis on a connection."""
    infos, first = [], {}

    def on_info(info):
        if not infos:
            first["ms"] = (time.perf_counter() - t0) * 1000
        infos.append(info)

    t0 = time.perf_counter()
    result = client.analyse(request, on_info=on_info, timeout_s=request.get("movetime_ms", 1000) / 1000 + 60)
    return result, infos, first.get("ms")


def post_analyse(url, request):
    req = urllib.request.Request(url + "/analyze", data=json.dumps(request).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as answer:
        return json.loads(answer.read())


def first_info(served, n=100, movetime_ms=300):
    from kibitz.clients.live import LiveClient

    fens = positions(n + 3)
    latencies = []
    with LiveClient(served.ws) as client:
        for fen in fens[:3]:  # warm: the container's imports, its first table
            analyse_on(client, {"fen": fen, "movetime_ms": movetime_ms, "cache": "off"})
        for fen in fens[3:]:
            _, infos, ms = analyse_on(client, {"fen": fen, "movetime_ms": movetime_ms, "cache": "off"})
            if ms is not None:
                latencies.append(ms)
    rows = [["first info after analyze, ms", *stats(latencies)]]
    verdict = f"p99 {pct(latencies, 0.99):.1f} ms (goal: <= 100 ms)"
    return (table(["live stream (one warm connection)", "median", "p90", "p99", "max"], rows) +
            f"\n\n{len(latencies)} analyses of {movetime_ms} ms (wac.epd 4-{n + 3}), cache off; {verdict}.")


def nodes_per_second(served, n=20, movetime_ms=1000):
    """Σ nodes / Σ time of the searches that ran their whole budget both ways (a mate found in a few ms has no
    meaningful nps), with the stream and without."""
    from kibitz.clients.live import LiveClient

    fens = positions(n)
    pairs = []
    with LiveClient(served.ws) as client:
        analyse_on(client, {"fen": fens[0], "movetime_ms": 200, "cache": "off"})  # warm both
        post_analyse(served.url, {"fen": fens[0], "movetime_ms": 200, "cache": "off"})
        for i, fen in enumerate(fens):
            request = {"fen": fen, "movetime_ms": movetime_ms, "threads": 1, "cache": "off"}
            got = {}
            for kind in (("live", "post") if i % 2 == 0 else ("post", "live")):
                if kind == "live":
                    result, infos, _ = analyse_on(client, request)
                    got["live"] = (result["nodes"], result["time_ms"], len(infos))
                else:
                    answer = post_analyse(served.url, request)
                    got["post"] = (answer["nodes"], answer["time_ms"], 0)
            if min(got["live"][1], got["post"][1]) >= 0.9 * movetime_ms:
                pairs.append((got["live"], got["post"]))
    rate = lambda rows: sum(r[0] for r in rows) / sum(r[1] for r in rows) * 1000  # noqa: E731
    live, post = [p[0] for p in pairs], [p[1] for p in pairs]
    ratio = rate(live) / rate(post)
    per_position = sorted((a[0] / a[1]) / (b[0] / b[1]) for a, b in pairs)
    rows = [["with the stream (analyze route)", f"{rate(live):,.0f}", f"{statistics.mean(r[2] for r in live):.1f}"],
            ["without (POST /analyze)", f"{rate(post):,.0f}", "-"]]
    return (table([f"nodes/s, {len(pairs)} searches of 1 s each way", "nps", "infos a search"], rows) +
            f"\n\nwith / without: {ratio:.3f} (goal: >= 0.97); per position, median "
            f"{statistics.median(per_position):.3f}, min {per_position[0]:.3f}, max {per_position[-1]:.3f}. "
            f"Positions: wac.epd 1-{n}, those searched for their whole second both ways (the others found a mate "
            "in milliseconds); one thread, cache off, interleaved one for one (alternating which goes first), in the "
            "same serve process. There the stream's other ends share the process and the machine's two cores with "
            "the search: moto answering the watcher's reads (Python, some 10 ms of CPU a read, ten reads a second), "
            "the Management API stand-in and the WebSocket server; on AWS they are other machines, and what the "
            "function itself pays is the in-process figure above.")


class Sink:
    """A local HTTP server answering any POST as DynamoDB (GetItem: an item, else {}) and the Management API would."""

    def __enter__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                target = self.headers.get("X-Amz-Target", "")
                body = b'{"Item": {"connection_id": {"S": "c"}}}' if target.endswith("GetItem") else b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/x-amz-json-1.0")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def own_share(n=12, movetime_ms=1000, multipv=3):
    import os
    from unittest import mock

    import engine
    from engine.stop_signal import StopSignal

    fens = positions(n)
    with Sink() as sink, mock.patch.dict(os.environ):  # the sink's environment, for this part only
        os.environ.update(AWS_ENDPOINT_URL=sink.url, AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x",
                          AWS_REGION="us-east-1", AWS_DEFAULT_REGION="us-east-1", KIBITZ_LIVE_TABLE="t")
        from functions.common.live.connections import Connections, Watcher
        from functions.common.live.stream import Poster, Stream
        from functions.live.app import SWITCH_INTERVAL_S  # and LiveFunction's switch interval, which importing sets

        poster = Poster(sink.url + "/live")

        def streamed(fen):
            stop = StopSignal()
            stream = Stream(poster, "c").start()
            watcher = Watcher(Connections(), "c", "r", 0, lambda reason: stop.set()).start()
            try:
                found = engine.analyse(fen, movetime_ms=movetime_ms, multipv=multipv, hash_mb=4, on_info=stream.info,
                                       stop=stop)
            finally:
                watcher.close()
                stream.close()
            return found, stream.infos, watcher.reads

        plain = lambda fen: (engine.analyse(fen, movetime_ms=movetime_ms, multipv=multipv, hash_mb=4), 0, 0)  # noqa: E731
        streamed(fens[0])
        pairs = []
        for i, fen in enumerate(fens):
            got = {}
            for kind in (("s", "p") if i % 2 == 0 else ("p", "s")):
                got[kind] = (streamed if kind == "s" else plain)(fen)
            if min(got["s"][0].time_ms, got["p"][0].time_ms) >= 0.9 * movetime_ms:
                pairs.append((got["s"], got["p"]))
    rate = lambda rows: sum(r[0].nodes for r in rows) / sum(r[0].time_ms for r in rows) * 1000  # noqa: E731
    streamed_rows, plain_rows = [p[0] for p in pairs], [p[1] for p in pairs]
    ratio = rate(streamed_rows) / rate(plain_rows)
    infos, reads = (statistics.mean(r[k] for r in streamed_rows) for k in (1, 2))
    rows = [["with the poster and the watcher", f"{rate(streamed_rows):,.0f}", f"{infos:.1f}", f"{reads:.1f}"],
            ["engine.analyse alone", f"{rate(plain_rows):,.0f}", "-", "-"]]
    return (table([f"in-process, {len(pairs)} searches of 1 s each way, multipv {multipv}", "nps", "infos",
                   "watcher reads"], rows) +
            f"\n\nwith / without: {ratio:.3f} (goal: >= 0.97). The function's own threads against a trivial HTTP "
            "sink on 127.0.0.1 (in this process: its CPU counts against the stream), interleaved one for one, with "
            f"LiveFunction's switch interval ({SWITCH_INTERVAL_S * 1000:g} ms; at CPython's default 5 ms the same "
            "run measured 0.88: the search waited for the GIL at every iteration while the poster built a message).")


def load(served, analyses=200, at_once=50, movetime_ms=200):
    from kibitz.clients.live import LiveClient

    fens = positions(at_once)
    rounds = -(-analyses // at_once)
    problems, received, memory, took = [], 0, [], []
    log_before = served.log_text()
    for r in range(rounds):
        count = min(at_once, analyses - r * at_once)
        outcomes = [None] * count

        def run(i, outcomes=outcomes):
            try:
                with LiveClient(served.ws) as client:
                    outcomes[i] = analyse_on(client, {"fen": fens[i], "movetime_ms": movetime_ms, "cache": "off"})
            except Exception as e:  # counted below
                outcomes[i] = e

        t0 = time.monotonic()
        threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        took.append(time.monotonic() - t0)
        for i, outcome in enumerate(outcomes):
            if not isinstance(outcome, tuple):
                problems.append(f"round {r + 1}, analysis {i}: {outcome!r}")
                continue
            result, infos, _ = outcome
            received += len(infos)
            depths = [info["depth"] for info in infos]
            if not result.get("best_move") or depths != sorted(depths) or (infos and result["depth"] < depths[-1]):
                problems.append(f"round {r + 1}, analysis {i}: result {result.get('depth')}, infos {depths}")
        time.sleep(1)
        memory.append(served.rss_mb()["serve"])
    posted = sum(json.loads(line).get("infos", 0) for line in served.log_text()[len(log_before):].splitlines()
                 if line.startswith("{") and '"message":"analysed"' in line)
    rows = [[f"round {i + 1}", at_once if (i + 1) * at_once <= analyses else analyses - i * at_once,
             f"{took[i]:.1f}", f"{memory[i]:.0f}"] for i in range(rounds)]
    verdict = ("every analysis answered in full" if not problems else f"{len(problems)} PROBLEMS: {problems[:5]}")
    return (table(["live analyses", "at once", "seconds", "serve RSS after, MB"], rows) +
            f"\n\n{analyses} analyses of {movetime_ms} ms, {at_once} connections at a time (serve "
            f"--live-concurrency {at_once}), cache off: {verdict}; infos posted (the functions' logs) {posted}, "
            f"received {received}{' (nothing lost)' if posted == received else ' (LOST SOME)'}; serve's memory "
            f"{memory[0]:.0f} MB after the first round, {memory[-1]:.0f} MB after the last.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the results into docs/benchmarks.md")
    ap.add_argument("--only", default="first,nps,own,load")
    ap.add_argument("--analyses", type=int, default=200)
    ap.add_argument("--at-once", type=int, default=50)
    args = ap.parse_args()
    parts = []
    if "own" in args.only.split(","):
        text = own_share(n=24)
        print(f"## the function's own share\n\n{text}\n", flush=True)
        parts.append(text)
    with LiveServed(max(args.at_once, 1), env={"POWERTOOLS_LOG_LEVEL": "INFO", "POWERTOOLS_METRICS_DISABLED": "true",
                                               "PYTHONUNBUFFERED": "1",  # the functions' log lines, counted as they go
                                               "KIBITZ_HASH_MB": "4"}) as served:
        for name, title, fn in [("first", "first info", lambda: first_info(served)),
                                ("nps", "nodes/s with and without the stream", lambda: nodes_per_second(served)),
                                ("load", f"{args.analyses} at {args.at_once} at a time",
                                 lambda: load(served, args.analyses, args.at_once))]:
            if name in args.only.split(","):
                text = fn()
                print(f"## {title}\n\n{text}\n", flush=True)
                parts.append(text)
        assert children(served.proc.pid) == [], "pollers ran"
    body = "\n\n".join(parts) + ("\n\nKIBITZ_HASH_MB=4 for every search (50 at once would otherwise take 8 MB "
                                 "each). " + steal_since(STARTED) + ".")
    print(steal_since(STARTED))
    if args.record:
        command = COMMAND + ("" if args.analyses == 200 else f" --analyses {args.analyses}")
        record("Live analysis stream (local)", body, command)


if __name__ == "__main__":
    main()
