"""Batch analysis throughput on this machine (issue 5): positions per second at a fixed movetime with
one and two local pollers, against the ideal, cores / movetime.

    .venv/bin/python -m benchmarks.batch [--record] [--positions 60] [--movetime-ms 200] [--runs 3]

Each run: moto on 127.0.0.1 (SQS + DynamoDB, kibitz/local/aws.py), a job submitted the way the
jobs API submits it (functions/common/job_submit.submit: checks, job record, SendMessageBatch), and the
SQS event source played by N poller processes (kibitz/local/eventsource.py), each running
BatchFunction's handler: receive up to 10 messages, analyse, write results, delete. The clock runs
from the submission to the last result; the pollers are started and warm (imported, tables built)
before it starts, so cold starts are not counted. Positions: the balanced openings of
openings_uho_6mvs.epd (few early mates, so the searches use their movetime).

Ideal: each poller analyses one position per movetime, and there are as many pollers as cores at
best: ideal(N) = min(N, cores) / movetime. What is lost: the queue and table round trips, SAN and
JSON for each result, the pollers' receive waits, and whatever else runs on the machine.
"""

import argparse
import os
import statistics
import sys
import time
import uuid

from benchmarks.common import DATA, record, table

COMMAND = "python -m benchmarks.batch --record"


def positions(n):
    fens = []
    for line in (DATA / "openings_uho_6mvs.epd").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:4]))
        if len(fens) == n:
            break
    return fens


def run(aws, store, source, fens, movetime_ms):
    """Seconds from submission to the last result, and the results' mean search time."""
    from functions.common.jobs.models import JobRequest
    from functions.common.jobs.submit import submit

    sqs = aws.client("sqs")
    t0 = time.perf_counter()
    accepted = submit(JobRequest(positions=fens, movetime_ms=movetime_ms), store=store, sqs=sqs,
                      queue_url=aws.resources["JobsQueue"]["Ref"])
    while True:
        job = store.job(accepted.job_id)
        if job["done"] + job["failed"] == job["total"]:
            break
        time.sleep(0.02)
    seconds = time.perf_counter() - t0
    results, after = [], -1
    while True:
        page, after = store.results(accepted.job_id, after, 200)
        results += page
        if after is None:
            break
    assert job["failed"] == 0 and len(results) == len(fens), job
    return seconds, statistics.mean(r.analysis.time_ms for r in results)


def round_trip_ms(store, n=50):
    """Mean time of a DynamoDB GetItem against moto here (what each table call costs the pollers)."""
    t0 = time.perf_counter()
    for i in range(n):
        store.finished("no-such-job", i)
    return (time.perf_counter() - t0) * 1000 / n


def busy_processes():
    """Other processes using the CPU when the benchmark starts (ps), as "N x command (CPU%)"."""
    import collections
    import subprocess

    try:
        out = subprocess.run(["ps", "-eo", "pcpu=,args="], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    seen = collections.Counter()
    for line in out.splitlines():
        cpu, _, command = line.strip().partition(" ")
        if float(cpu or 0) >= 10 and "benchmarks.batch" not in command:
            seen[" ".join(command.split()[:3])[:60]] += 1
    return ", ".join(f"{n} x {c}" for c, n in seen.most_common()) or "none"


def bench(n_positions, movetime_ms, runs, poller_counts):
    from functions.common.jobs.store import Store
    from kibitz.local.aws import LocalAWS
    from kibitz.local.eventsource import SqsEventSource

    fens = positions(n_positions)
    cores = os.cpu_count()
    rows = []
    aws = LocalAWS(prefix=f"bench{uuid.uuid4().hex[:6]}").start()
    aws.apply_env()
    try:
        functions = aws.functions()
        fn = functions["BatchFunction"]
        store = Store(aws.resources["JobsTable"]["Ref"], aws.client("dynamodb"))
        q = aws.resources["JobsQueue"]
        bench.round_trip_ms = round_trip_ms(store)
        for pollers in poller_counts:
            source = SqsEventSource(fn, q["Ref"], q["Arn"], {**fn.environment, **aws.env}, pollers=pollers,
                                    log=os.devnull, quiet=True).start()
            try:
                assert source.wait_ready(), "the pollers did not start"
                times, searches = [], []
                for _ in range(runs):
                    seconds, search_ms = run(aws, store, source, fens, movetime_ms)
                    times.append(seconds)
                    searches.append(search_ms)
                    print(f"  {pollers} poller(s): {len(fens)} positions in {seconds:.2f} s "
                          f"({len(fens) / seconds:.2f}/s), mean search {search_ms:.0f} ms", file=sys.stderr)
            finally:
                source.stop()
            best = min(times)
            median = statistics.median(times)
            ideal = min(pollers, cores) * 1000 / movetime_ms
            per_position = median * pollers / len(fens) * 1000
            rows.append([pollers, f"{len(fens) / median:.2f}", f"{len(fens) / best:.2f}", f"{ideal:.2f}",
                         f"{len(fens) / median / ideal * 100:.0f}%", f"{per_position:.0f}",
                         f"{statistics.mean(searches):.0f}"])
    finally:
        aws.stop()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--movetime-ms", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pollers", default="1,2")
    ap.add_argument("--record", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    load_before = os.getloadavg()
    others = busy_processes()
    rows = bench(args.positions, args.movetime_ms, args.runs, [int(p) for p in args.pollers.split(",")])
    load_after = os.getloadavg()
    headers = [f"pollers ({args.positions} positions, movetime {args.movetime_ms} ms, {args.runs} runs)",
               "positions/s (median)", "best", "ideal", "of ideal", "ms per position per poller",
               "mean search ms"]
    text = table(headers, rows)
    print(text)
    notes = (f"Ideal = min(pollers, {os.cpu_count()} cores) / movetime. \"ms per position per poller\" = wall time x "
             f"pollers / positions: the movetime plus what each position costs around its search (two DynamoDB "
             f"writes, the result and its count; a share of the batch's SQS receive and delete and of its job "
             f"update; SAN and JSON), the wait for the last batch, and time lost to other work on the machine. A "
             f"DynamoDB call to moto took {bench.round_trip_ms:.1f} ms here. Batches of up to 10 (the template's "
             f"BatchSize); moto, the submitting code and the pollers share the machine's cores.\n\n"
             f"Load average before {load_before[0]:.2f} (1 min), {load_before[1]:.2f} (5 min), after "
             f"{load_after[0]:.2f}, {load_after[1]:.2f}, on {os.cpu_count()} cores; other processes busy at the "
             f"start: {others}.")
    print(notes)
    if args.record:
        record("Batch throughput (local)", text + "\n\n" + notes, COMMAND)


if __name__ == "__main__":
    main()
