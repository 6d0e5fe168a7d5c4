"""Load, faults and memory over time against `kibitz serve` on 127.0.0.1 (issue 15).

    .venv/bin/python -m benchmarks.load [--record] [--seconds 180] [--only plain,kill,faults]
                                        [--clients 3] [--pollers 2] [--movetime-ms 20]

Each scenario starts its own `kibitz serve` (embedded moto, two pollers, a 10 s visibility timeout) and,
for `--seconds`, drives it with concurrent clients:
  - `--clients` threads POSTing (and one in four GETting) /analyze at short budgets (movetime-ms, x2,
    x5; one in five asks multipv 2), on WAC positions;
  - one thread submitting a job of 30 positions every few seconds and polling each job until it is
    finished, then reading every page of its results.
At the end it waits for every job, checks each one's results: every index from 0 to total-1 exactly
once, each done with an analysis; and it reads the pollers' logs for how often each position was
analysed (a redelivered message after a crash analyses again; a result is still written once).

Scenarios: plain; kill (one poller SIGKILLed a moment after each of three job submissions: its batch
comes back after the visibility timeout); faults (benchmarks/faults.py --dynamodb 0.05: one DynamoDB call in
twenty fails, half before moto sees it and half with the answer lost); nodata (/analyze
alone with "cache": "off": moto, which lives in serve's process, then holds no more data as time goes,
so serve's memory is its own).

Memory: the resident size of serve and of its pollers, sampled every 2 s; growth is the last sample
against the first after warm-up (the first 30 s). Bounded: loopback only, a fixed time, at most
--max-requests requests.
"""

import argparse
import collections
import http.client
import json
import os
import pathlib
import random
import signal
import statistics
import sys
import threading
import time
import urllib.parse

from benchmarks.api import pct, positions
from benchmarks.common import cpu_times, record, steal_since, table
from benchmarks.served import Served

COMMAND = "python -m benchmarks.load --record"
WARMUP_S = 30
JOB_POSITIONS = 30
JOB_EVERY_S = 4
SCENARIOS = {"plain": {}, "kill": {"kill": 3}, "faults": {"dynamodb_faults": 0.05},
             # /analyze alone with the cache off: nothing accumulates in moto, so serve's own memory shows
             "nodata": {"cache": "off", "jobs": False}}


class Client:
    """One keep-alive HTTP connection to serve (one per thread)."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.conn = None

    def request(self, method, path, body=None):
        """(status, parsed JSON or text, ms)."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        data = json.dumps(body).encode() if body is not None else None
        t0 = time.perf_counter()
        for attempt in (1, 2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
                self.conn.request(method, path, data, headers)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (ConnectionError, http.client.HTTPException):
                self.conn = None  # a dropped keep-alive connection: once more on a new one
                if attempt == 2:
                    raise
        ms = (time.perf_counter() - t0) * 1000
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(raw) if kind.startswith("application/json") else raw.decode(), ms


class Load:
    def __init__(self, served, seconds, clients, movetime_ms, max_requests, kills=0, cache="on", jobs=True):
        self.served, self.seconds, self.clients = served, seconds, clients
        self.movetime_ms, self.max_requests, self.kills = movetime_ms, max_requests, kills
        self.cache, self.with_jobs = cache, jobs
        self.fens = positions(300)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.latencies, self.statuses, self.bad = [], collections.Counter(), []
        self.jobs, self.job_statuses = [], collections.Counter()
        self.memory, self.killed = [], []
        self.started = None

    def analyze_client(self, seed):
        rng, client = random.Random(seed), Client(self.served.url)
        while not self.stop.is_set():
            fen = rng.choice(self.fens)
            body = {"fen": fen, "movetime_ms": self.movetime_ms * rng.choice((1, 1, 2, 5)), "cache": self.cache}
            if rng.random() < 0.2:
                body["multipv"] = 2
            if rng.random() < 0.25:
                query = urllib.parse.urlencode({k: str(v) for k, v in body.items()})
                status, answer, ms = client.request("GET", "/analyze?" + query)
            else:
                status, answer, ms = client.request("POST", "/analyze", body)
            with self.lock:
                self.statuses[status] += 1
                if status == 200:
                    self.latencies.append(ms)
                else:
                    self.bad.append((status, str(answer)[:300]))
                if sum(self.statuses.values()) >= self.max_requests:
                    self.stop.set()

    def jobs_client(self):
        rng, client = random.Random(7), Client(self.served.url)
        next_kill = [self.seconds * (k + 1) / (self.kills + 1) for k in range(self.kills)]
        running = []
        while not self.stop.wait(0 if not self.jobs else JOB_EVERY_S):
            for job_id in list(running):  # poll the jobs not finished yet, as a client waiting for them would
                status, job, _ = client.request("GET", f"/jobs/{job_id}?limit=1")
                with self.lock:
                    self.job_statuses[status] += 1
                if status == 200 and job["status"].startswith("done"):
                    running.remove(job_id)
            fens = rng.sample(self.fens, JOB_POSITIONS)
            status, answer, _ = client.request("POST", "/jobs", {"positions": fens, "movetime_ms": self.movetime_ms})
            with self.lock:
                self.job_statuses[status] += 1
            if status != 202:
                self.bad.append((status, str(answer)[:300]))
                continue
            self.jobs.append(answer["job_id"])
            running.append(answer["job_id"])
            if next_kill and time.monotonic() - self.started >= next_kill[0]:
                next_kill.pop(0)
                time.sleep(0.3)  # the job's first batches are in the pollers' hands
                self.killed.append(self.served.kill_poller())

    def sampler(self):
        while not self.stop.wait(2):
            self.memory.append((time.monotonic() - self.started, self.served.rss_mb()))

    def run(self):
        self.started = time.monotonic()
        threads = [threading.Thread(target=self.analyze_client, args=(i,), daemon=True) for i in range(self.clients)]
        threads += [threading.Thread(target=self.sampler, daemon=True)]
        if self.with_jobs:
            threads.append(threading.Thread(target=self.jobs_client, daemon=True))
        for t in threads:
            t.start()
        self.stop.wait(self.seconds)
        self.stop.set()
        for t in threads:
            t.join(timeout=180)
        self.elapsed = time.monotonic() - self.started
        return self

    def check_jobs(self, timeout_s=300):
        """Wait for every job; then {job_id: problems} (empty lists when every result is there once)."""
        client, problems = Client(self.served.url), {}
        deadline = time.monotonic() + timeout_s
        for job_id in self.jobs:
            while True:
                status, job, _ = client.request("GET", f"/jobs/{job_id}?limit=1")
                if status == 200 and job["status"] in ("done", "done-with-failures"):
                    break
                if time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            results, after = [], -1
            while after is not None:
                status, page, _ = client.request("GET", f"/jobs/{job_id}?limit=200&after={after}")
                if status != 200:
                    problems.setdefault(job_id, []).append(f"GET answered {status}: {str(page)[:200]}")
                    break
                results += page["results"]
                after = page["next_after"]
            indices = collections.Counter(r["index"] for r in results)
            found = problems.setdefault(job_id, [])
            if job.get("status") != "done":
                found.append(f"status {job.get('status')} ({job.get('done')} done, {job.get('failed')} failed)")
            if sorted(indices) != list(range(JOB_POSITIONS)):
                found.append(f"indices {sorted(indices)}")
            found += [f"index {i} {n} times" for i, n in indices.items() if n > 1]
            found += [f"index {r['index']} {r['status']}: {r['error']}" for r in results
                      if r["status"] != "done" or r["analysis"] is None]
        return problems


def deliveries(log_text):
    """From the pollers' BatchFunction logs: {(job, index): {"analysed": n, "receives": {receive counts seen}}}."""
    seen = collections.defaultdict(lambda: {"analysed": 0, "receives": set()})
    for line in log_text.splitlines():
        if '"job_id"' not in line or '"index"' not in line:
            continue
        for entry in json_objects(line):
            if "job_id" in entry and "index" in entry:
                key = (entry["job_id"], entry["index"])
                seen[key]["receives"].add(int(entry.get("receive_count") or 1))
                seen[key]["analysed"] += entry.get("message") == "analysed"
    return seen


def json_objects(line):
    """The log entries in one line. serve and its pollers append to one file, and a write of one process can
    land in the middle of another's line: each entry is read from its own `{"level"` on."""
    decoder = json.JSONDecoder()
    start = line.find('{"level"')
    while start >= 0:
        try:
            entry, end = decoder.raw_decode(line, start)
        except ValueError:
            end = start + 1
        else:
            yield entry
        start = line.find('{"level"', end)


def growth(memory, key):
    """(first sample after warm-up, last, max) of a process's RSS in MB; pollers summed."""
    def value(sample):
        _, rss = sample
        if key == "serve":
            return rss.get("serve")
        pollers = [v for k, v in rss.items() if k.startswith("poller")]
        return sum(pollers) / len(pollers) if pollers else None

    samples = [(t, value(s)) for t, s in ((s[0], s) for s in memory) if value(s) is not None]
    after = [v for t, v in samples if t >= WARMUP_S] or [v for _, v in samples]
    return after[0], after[-1], max(v for _, v in samples)


def memory_series(memory, every_s=30):
    """'30 s: 151 / 104, 103; 60 s: ...' (a poller killed and replaced shows as a new pid)."""
    out, next_t = [], every_s
    for t, rss in memory:
        if t >= next_t:
            pollers = ", ".join(f"{v:.0f}" for k, v in rss.items() if k.startswith("poller"))
            out.append(f"{next_t} s: {rss.get('serve', 0):.0f} / {pollers}")
            next_t += every_s
    return "; ".join(out)


def scenario(name, args):
    spec = SCENARIOS[name]
    with Served(pollers=args.pollers, visibility_timeout=10, dynamodb_faults=spec.get("dynamodb_faults")) as served:
        load = Load(served, args.seconds, args.clients, args.movetime_ms, args.max_requests, spec.get("kill", 0),
                    spec.get("cache", "on"), spec.get("jobs", True))
        load.run()
        problems = load.check_jobs()
        served.stop()
        log = served.log_text()
    analysed = deliveries(log)
    fault_line = next((line for line in log.splitlines() if "DynamoDB calls failed" in line), "")
    return load, problems, analysed, fault_line, log


def report(name, load, problems, analysed, fault_line):
    lat = load.latencies
    total = sum(load.statuses.values())
    broken = {j: p for j, p in problems.items() if p}
    positions_total = len(load.jobs) * JOB_POSITIONS
    job_keys = {(j, i) for j in load.jobs for i in range(JOB_POSITIONS)}
    mine = {k: v for k, v in analysed.items() if k in job_keys}
    redelivered = sum(1 for v in mine.values() if max(v["receives"]) > 1)
    searched_again = sum(1 for v in mine.values() if v["analysed"] > 1)
    searched_once = sum(1 for v in mine.values() if v["analysed"] == 1)
    serve0, serve1, serve_max = growth(load.memory, "serve")
    poll0, poll1, poll_max = growth(load.memory, "pollers")
    statuses = ", ".join(f"{s}: {n}" for s, n in sorted(load.statuses.items()))
    job_statuses = ", ".join(f"{s}: {n}" for s, n in sorted(load.job_statuses.items()))
    rows = [
        ["/analyze requests", f"{total} in {load.elapsed:.0f} s ({total / load.elapsed:.1f}/s); {statuses}"],
        ["/analyze latency (200s), ms", f"median {statistics.median(lat):.0f}, p90 {pct(lat, 0.9):.0f}, "
                                         f"p99 {pct(lat, 0.99):.0f}, max {max(lat):.0f}" if lat else "none"],
        ["jobs", f"{len(load.jobs)} submitted (POST and polling GET: {job_statuses}), {positions_total} positions; "
                 f"{len(load.jobs) - len(broken)} complete, every index once"],
        ["results lost or doubled", f"{sum(len(p) for p in broken.values())} problems in {len(broken)} jobs"],
        ["positions delivered again", f"{redelivered} (a killed poller's batch, a DynamoDB failure); "
                                      f"{searched_once} of {positions_total} logged as searched and stored once, "
                                      f"{searched_again} twice, {positions_total - searched_once - searched_again} "
                                      f"with no line (a poller killed between storing and logging)"],
        ["status 500 answers", str(load.statuses.get(500, 0) + load.job_statuses.get(500, 0))],
        ["serve RSS, MB", f"{serve0:.0f} after warm-up, {serve1:.0f} at the end (max {serve_max:.0f})"],
        ["poller RSS (mean of the pollers), MB", f"{poll0:.0f} after warm-up, {poll1:.0f} at the end "
                                                 f"(max {poll_max:.0f})"],
    ]
    rows.append(["RSS over time, MB (serve / each poller)", memory_series(load.memory)])
    if load.killed:
        rows.append(["pollers killed (SIGKILL)", f"{len(load.killed)}: pids {', '.join(map(str, load.killed))}"])
    if fault_line:
        rows.append(["DynamoDB faults injected", fault_line.removeprefix("kibitz: ")])
    if broken:
        first = list(broken.items())[:3]
        rows.append(["the problems", "; ".join(f"job {j[:8]}: {', '.join(p[:3])}" for j, p in first)])
    if load.bad:
        rows.append(["first refusals", "; ".join(f"{s} {t[:120]}" for s, t in load.bad[:3])])
    return f"**{name}**\n\n" + table(["", name], rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the results into docs/benchmarks.md")
    ap.add_argument("--seconds", type=int, default=180)
    ap.add_argument("--only", default="plain,kill,faults,nodata")
    ap.add_argument("--clients", type=int, default=3)
    ap.add_argument("--pollers", type=int, default=2)
    ap.add_argument("--movetime-ms", type=int, default=20)
    ap.add_argument("--max-requests", type=int, default=20000)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `with Served` stops its serve
    started, load_before = cpu_times(), os.getloadavg()
    sections, failed = [], False
    for name in args.only.split(","):
        load, problems, analysed, fault_line, log = scenario(name, args)
        text = report(name, load, problems, analysed, fault_line)
        print(text + "\n", flush=True)
        sections.append(text)
        failed |= any(problems.values()) or load.statuses.get(500, 0) > 0
        if any(problems.values()):
            pathlib.Path(f"/tmp/kibitz-load-{name}.log").write_text(log)
    body = (f"`kibitz serve` on 127.0.0.1 with {args.pollers} pollers (10 s visibility timeout), driven for "
            f"{args.seconds} s per scenario by {args.clients} /analyze clients (movetime {args.movetime_ms} ms, "
            f"x2, x5; a quarter GET, a fifth multipv 2) and a jobs client ({JOB_POSITIONS} positions at "
            f"{args.movetime_ms} ms every {JOB_EVERY_S} s, each polled to the end and every result read). serve "
            f"runs one request at a time per function (a warm container), so the /analyze clients queue on it: "
            f"latency is mostly the queue. moto runs inside serve's process and keeps every job result and cache "
            f"entry in memory: serve's memory grows with that data; `nodata` (/analyze alone, cache off, no jobs) "
            f"shows serve without it.\n\n" + "\n\n".join(sections) +
            f"\n\nLoad average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores; a data "
            f"generation job and engine matches ran beside it); {steal_since(started)}.")
    if args.record:
        record("Load, faults and memory (local)", body, COMMAND)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
