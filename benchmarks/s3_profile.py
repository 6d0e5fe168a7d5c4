"""Where a chunk's time goes besides the searches (issue 69.1's rest): one poller's loop in this process, under
cProfile, on chunks of a real S3 job (benchmarks/s3_batch.py's collection(), moto's S3 + SQS + DynamoDB).

The job is submitted and split as usual; then this process does what a poller does (ReceiveMessage,
BatchFunction's handler, DeleteMessageBatch) for every chunk message, with the profiler on in the handler
only. Printed: the wall time a position, against the movetime; the searches' own time (the compiled search,
engine.native), and the rest by where it goes (S3 and DynamoDB calls, through botocore, split into the
client's side and the wait for moto's answer; JSON; the review and the annotated PGN; table allocation ...),
with the AWS requests a position counted at moto.

    .venv/bin/python -m benchmarks.s3_profile [--positions 1000] [--movetime-ms 20] [--format pgn|epd] [--top 40]

--cpu: no profiler (whose cost a call inflates Python several times over): the CPU time a position of the
poller's thread in each part, inclusive (time.thread_time around the functions named in CPU_PARTS), the
searches' wall time against the movetime, and moto's CPU (this process's, while the poller's ran). CPU time is
what a loaded machine does not stretch much, so this is the measure to trust when the machine is shared.
--puzzles: the job asks for its games' puzzles (POST /jobs "puzzles": true).
"""

import argparse
import contextlib
import cProfile
import io
import json
import os
import pathlib
import pstats
import subprocess
import sys
import time

from benchmarks.s3_batch import CallCounts, Run, calls_between, collection, epd_of

# (label, module, attribute): inclusive CPU time of the poller's thread in each, with --cpu
CPU_PARTS = [
    ("invocation: a chunk, all of it (analyse_chunk)", "functions.common.jobs.s3.worker", "analyse_chunk"),
    ("  chunk.run (read, analyse, review; cache batch)", "functions.common.jobs.s3.chunk", "run"),
    ("position: chunk.analyse (cache lookup, search, answer model)", "functions.common.jobs.s3.chunk", "analyse"),
    ("  the searches: engine.deepening.run", "engine.deepening", "run"),
    ("  the answer: AnalysisAnswer.of (SAN, WDL, opening)", "functions.common.api.models", "AnalysisAnswer.of"),
    ("chunk: line_of (the JSONL line)", "functions.common.jobs.s3.chunk", "line_of"),
    ("chunk: annotated (review + PGN + puzzles)", "functions.common.jobs.s3.chunk", "annotated"),
    ("  of which review_game (with reasons)", "functions.common.jobs.s3.chunk", "review_game"),
    ("  of which the puzzles", "functions.common.jobs.s3.chunk", "puzzles"),
    ("  of which write_game (the PGN text)", "functions.common.jobs.s3.chunk", "write_game"),
    ("chunk: positions_of (games read, boards)", "functions.common.jobs.s3.chunk", "positions_of"),
    ("chunk: read_chunk (S3 GET)", "functions.common.jobs.s3.chunk", "read_chunk"),
    ("cache: CacheBatch.read", "functions.common.analysis.cache_batch", "CacheBatch.read"),
    ("cache: CacheBatch.write", "functions.common.analysis.cache_batch", "CacheBatch.write"),
    ("part: put_part (S3 PUT)", "functions.common.jobs.s3.chunk", "put_part"),
    ("part: part_counts (S3 HEAD)", "functions.common.jobs.s3.chunk", "part_counts"),
    ("jobs table: count_chunk", "functions.common.jobs.s3.jobs", "S3Jobs.count_chunk"),
]


def cpu_wrappers():
    """Wrap CPU_PARTS' functions in place: {label: [thread CPU seconds, wall seconds, calls]}. A search inside
    the puzzles is counted with the puzzles, not with the positions' searches."""
    import importlib

    spent, inside = {}, {"puzzles": 0}
    for label, module_name, attr in CPU_PARTS:
        owner = importlib.import_module(module_name)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        raw = owner.__dict__[name]
        fn = raw.__func__ if isinstance(raw, classmethod) else raw
        acc = spent[label] = [0.0, 0.0, 0]

        def wrapped(*args, _fn=fn, _acc=acc, _label=label, **kwargs):
            puzzle = _label.endswith("the puzzles")
            if _label.endswith("engine.deepening.run") and inside["puzzles"]:
                return _fn(*args, **kwargs)
            inside["puzzles"] += puzzle
            c, w = time.thread_time(), time.perf_counter()
            try:
                return _fn(*args, **kwargs)
            finally:
                _acc[0] += time.thread_time() - c
                _acc[1] += time.perf_counter() - w
                _acc[2] += 1
                inside["puzzles"] -= puzzle

        setattr(owner, name, classmethod(wrapped) if isinstance(raw, classmethod) else wrapped)
    return spent


def child(spec):
    """The poller's loop: every message of the queue until the job's output is written; the chunk invocations
    profiled (or, with spec["cpu"], their parts' CPU time counted). Prints [seconds in chunk invocations,
    positions in them, CPU seconds of the process in them, {part: [CPU s, wall s, calls]}]."""
    import boto3

    from functions.common.jobs.store import Store
    from kibitz.local import template
    from kibitz.local.eventsource import sqs_event
    from kibitz.local.runtime import FunctionRuntime

    batch = FunctionRuntime(template.load(spec["template"])[spec["function"]])
    with contextlib.redirect_stdout(io.StringIO()):
        batch.load()
    spent = cpu_wrappers() if spec.get("cpu") else {}
    if spec.get("cpu"):  # the collector's own time (gc.callbacks), counted as a part of its own
        import gc

        collected, started = spent.setdefault("the garbage collector (gc.callbacks)", [0.0, 0.0, 0]), []

        def on_gc(phase, info):
            if phase == "start":
                started[:] = [time.thread_time(), time.perf_counter()]
            elif started:
                collected[0] += time.thread_time() - started[0]
                collected[1] += time.perf_counter() - started[1]
                collected[2] += 1

        gc.callbacks.append(on_gc)
    sqs = boto3.client("sqs", region_name="us-east-1")
    profile, invoke_s, positions, invoke_cpu = cProfile.Profile(), 0.0, 0, 0.0
    while True:
        got = sqs.receive_message(QueueUrl=spec["url"], MaxNumberOfMessages=spec["batch"], WaitTimeSeconds=1,
                                  AttributeNames=["All"], MessageAttributeNames=["All"]).get("Messages", [])
        if not got:
            if Store().state(spec["job"]).s3.output is not None:
                break
            continue
        chunks = [m for m in got if m["MessageAttributes"]["kind"]["StringValue"] == "chunk"]
        t0, c0 = time.perf_counter(), time.process_time()
        if len(chunks) == len(got) and not (spec["plain"] or spec.get("cpu")):
            profile.enable()
        with contextlib.redirect_stdout(io.StringIO()):
            batch.invoke(sqs_event(got, spec["arn"], "us-east-1"))
        profile.disable()
        if len(chunks) == len(got):
            invoke_s += time.perf_counter() - t0
            invoke_cpu += time.process_time() - c0
            positions += sum(json.loads(m["Body"])["positions"] for m in chunks)
        sqs.delete_message_batch(QueueUrl=spec["url"], Entries=[{"Id": str(k), "ReceiptHandle": m["ReceiptHandle"]}
                                                               for k, m in enumerate(got)])
    profile.dump_stats(spec["dump"])
    print(json.dumps([invoke_s, positions, invoke_cpu, spent]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=1000)
    p.add_argument("--movetime-ms", type=int, default=20)
    p.add_argument("--format", choices=("pgn", "epd"), default="pgn")
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--dump", help="write the pstats here too")
    p.add_argument("--plain", action="store_true", help="no profiler: the wall time a position only")
    p.add_argument("--cpu", action="store_true", help="no profiler: each part's CPU time a position")
    p.add_argument("--puzzles", action="store_true", help="the job asks for its games' puzzles")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(json.loads(args.child))
    pgn, _ = collection(args.positions)
    data = epd_of(pgn, args.positions) if args.format == "epd" else pgn
    run = Run(args.movetime_ms, visibility_s=900)
    wsgi = run.aws.server._server
    counter = wsgi.app = CallCounts(wsgi.app, run.res["AnalysisCacheTable"]["Ref"])
    fn = run.fns["BatchFunction"]
    url, arn = run.res["JobsQueue"]["Ref"], run.res["JobsQueue"]["Arn"]
    job = run.submit(f"profile.{args.format}", data.encode(), args.format,
                     **({"puzzles": True} if args.puzzles else {}))
    # The poller's loop in a process of its own: cProfile (sys.monitoring since 3.12) sees every thread of its
    # process, and moto's server runs in this one.
    spec = {"function": fn.name, "template": str(pathlib.Path(__file__).resolve().parents[1] / "template.yaml"),
             "url": url, "arn": arn, "batch": args.batch, "dump": args.dump or "/tmp/kibitz-s3-profile.prof",
             "job": job, "plain": args.plain, "cpu": args.cpu}
    env = {**os.environ, **fn.environment, **run.aws.env}
    before = counter.snapshot()
    t_start, moto_start = time.perf_counter(), time.process_time()
    done = subprocess.run([sys.executable, "-m", "benchmarks.s3_profile", "--child", json.dumps(spec)], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    invoke_s, positions, invoke_cpu, spent = json.loads(done.stdout.splitlines()[-1])
    wall, moto_cpu = time.perf_counter() - t_start, time.process_time() - moto_start
    calls = calls_between(before, counter.snapshot())
    run.aws.stop()
    if args.plain:
        print(f"{args.format.upper()}: {positions} positions in chunk invocations of {invoke_s:.1f} s "
              f"({invoke_s * 1000 / positions:.2f} ms a position, movetime {args.movetime_ms} ms: "
              f"{positions / invoke_s / (1000 / args.movetime_ms):.0%} of the ideal); load {os.getloadavg()[0]:.1f}")
        return
    if args.cpu:
        per_ms = lambda s: s * 1000 / positions
        print(f"{args.format.upper()}{' with puzzles' if args.puzzles else ''}: {positions} positions in chunk "
              f"invocations of {invoke_s:.1f} s ({per_ms(invoke_s):.2f} ms a position, movetime {args.movetime_ms} "
              f"ms: {positions / invoke_s / (1000 / args.movetime_ms):.0%} of the ideal); the poller's CPU "
              f"{per_ms(invoke_cpu):.2f} ms a position; moto's (this process, {wall:.0f} s) {per_ms(moto_cpu):.2f} "
              f"ms a position; load {os.getloadavg()[0]:.1f}")
        head = "a position, CPU of the poller thread (inclusive)"
        print(f"  {head:62s} {'CPU ms':>7s} {'wall ms':>8s} {'calls':>6s}")
        for label, (cpu, wall_s, calls) in spent.items():
            print(f"  {label:62s} {per_ms(cpu):7.2f} {per_ms(wall_s):8.2f} {calls:6d}")
        return
    stats = pstats.Stats(spec["dump"])
    per = lambda s: f"{s * 1000 / positions:.2f} ms"
    print(f"{args.format.upper()}: {positions} positions in chunk invocations of {invoke_s:.1f} s "
          f"({per(invoke_s)} a position against a movetime of {args.movetime_ms} ms; "
          f"{positions / invoke_s / (1000 / args.movetime_ms):.0%} of the ideal); {wall:.1f} s from the first "
          f"chunk to the output; load {os.getloadavg()[0]:.1f}")

    def cum(pred):
        return sum(v[3] for k, v in stats.stats.items() if pred(k))

    def own(pred):
        return sum(v[2] for k, v in stats.stats.items() if pred(k))

    def fn_(path, name):
        return lambda k: k[0].endswith(path) and k[2] == name

    parts = [("the compiled search (search_depth)", own(lambda k: k[2] == "<built-in method "
                                                       "engine._compiled.search_depth>")),
             ("engine.analyse: deepening.run, the movetime's own", cum(fn_("engine/deepening.py", "run"))),
             ("chunk: AnalysisAnswer.of (SAN, WDL, opening)", cum(fn_("api/models.py", "of"))),
             ("chunk: line_of (the JSONL line)", cum(fn_("s3/chunk.py", "line_of"))),
             ("chunk: annotated (review + PGN)", cum(fn_("s3/chunk.py", "annotated"))),
             ("chunk: positions_of (games read, boards)", cum(fn_("s3/chunk.py", "positions_of"))),
             ("chunk: scan + read_chunk (S3 GET)", cum(fn_("s3/chunking.py", "scan"))
              + cum(fn_("s3/chunk.py", "read_chunk"))),
             ("cache: CacheBatch.read", cum(fn_("analysis/cache_batch.py", "read"))),
             ("cache: CacheBatch.write", cum(fn_("analysis/cache_batch.py", "write"))),
             ("cache: read_entry / updated_entry", cum(fn_("analysis/cache.py", "read_entry"))
              + cum(fn_("analysis/cache.py", "updated_entry"))),
             ("part: put_part + part_counts (S3 PUT, HEAD)", cum(fn_("s3/chunk.py", "put_part"))
              + cum(fn_("s3/chunk.py", "part_counts"))),
             ("jobs table: count_chunk", cum(fn_("s3/jobs.py", "count_chunk"))),
             ("output: finalize (the join)", cum(fn_("s3/output.py", "finalize"))),
             ("game table: GameMemory.take_table", cum(fn_("engine/game_memory.py", "take_table"))),
             ("AWS calls: waiting on the socket", own(lambda k: "recv_into" in k[2] or "'poll'" in k[2])),
             ("AWS calls: botocore _make_api_call (all)", cum(lambda k: k[2] == "_make_api_call")),
             ("AWS calls: dynamodb_lite (the cache's)", cum(fn_("aws/dynamodb_lite.py", "call")))]
    print("a position:")
    for name, seconds in parts:
        print(f"  {name:52s} {per(seconds)}")
    print("AWS requests a position (counted at moto):")
    for k, v in sorted(calls.items()):
        print(f"  {k:40s} {v / positions:.4f}  ({v})")
    print()
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
