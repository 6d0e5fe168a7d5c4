"""Jobs read from S3, end to end on this machine (issue 35): moto's S3 + SQS + DynamoDB, JobsFunction in this
process, BatchFunction in 2 poller processes. A 10,000-position PGN (collection() below: games the
engine plays against itself at 64 nodes a move from the balanced openings, deterministic) and a gzip EPD;
one chunk poisoned (its message re-sent naming another ETag: it fails on every delivery) and a poller killed
mid-chunk. Checked: every position's result in results.jsonl once, the annotated PGN read back by python-chess
(test oracle), the poisoned chunk named in the job's failures and its message in the dead-letter queue.
Measured: positions per second per poller against the ideal 1000 / movetime, and the pollers' memory.

    .venv/bin/python -m benchmarks.s3_batch [--positions 10000] [--movetime-ms 20] [--record]

--compare OLD_TREE (issue 69): the same PGN and EPD jobs analysed by the BatchFunction of another checkout
(OLD_TREE: a commit's files with its engine built, e.g. the one before 69.1) and by this one's, one after the
other against one moto, the analysis cache emptied before each job; the AWS calls counted at moto per position
(the analysis cache's table and the rest of DynamoDB apart; S3 by method), the seconds from submission to
the output, and positions a second a poller against the ideal.

    .venv/bin/python -m benchmarks.s3_batch --compare /tmp/old --positions 3000 --movetime-ms 20 [--record]
"""

import argparse
import contextlib
import gzip
import io
import json
import os
import pathlib
import sys
import threading
import time
import uuid

from benchmarks.common import DATA, cpu_times, record, steal_since, table

COMMAND = "python -m benchmarks.s3_batch --record"
POLLERS = 2
BATCH = 2


def rss_mb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None


class Run:
    def __init__(self, movetime_ms, visibility_s=60, max_receives=3):
        import os

        from kibitz.local.aws import LocalAWS
        from kibitz.local.runtime import FunctionRuntime

        self.aws = LocalAWS(prefix=f"b{uuid.uuid4().hex[:6]}", visibility_timeout_s=visibility_s,
                            max_receive_count=max_receives).start()
        self.aws.apply_env()
        fns = self.aws.functions()
        os.environ.update(fns["JobsFunction"].environment)
        self.fns, self.movetime = fns, movetime_ms
        self.jobs = FunctionRuntime(fns["JobsFunction"])
        self.s3, self.sqs = self.aws.client("s3"), self.aws.client("sqs")
        self.res = self.aws.resources
        self.memory = {}  # pid -> [MB]

    def post(self, path, body):
        from kibitz.local.apigateway import proxy_event

        with contextlib.redirect_stdout(io.StringIO()):
            r = self.jobs.invoke(proxy_event("POST", path, headers={"Content-Type": "application/json"},
                                             body=json.dumps(body)))
        return r["statusCode"], json.loads(r["body"])

    def state(self, job_id):
        from functions.common.jobs.store import Store

        return json.loads(Store().state(job_id).model_dump_json())

    def submit(self, key, data, fmt, **fields):
        self.s3.put_object(Bucket=self.res["InputBucket"]["Ref"], Key=key, Body=data)
        status, body = self.post("/jobs", {"source": f"s3://{self.res['InputBucket']['Ref']}/{key}", "format": fmt,
                                           "movetime_ms": self.movetime, **fields})
        assert status == 202, body
        return body["job_id"]

    def poison_one_chunk(self, job_id):
        """Take one chunk message of the job off the queue and put it back naming an ETag no object has."""
        url = self.res["JobsQueue"]["Ref"]
        while True:
            for m in self.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1, MessageAttributeNames=["All"],
                                              WaitTimeSeconds=1).get("Messages", []):
                body = json.loads(m["Body"])
                if body.get("kind") == "chunk" and body["job_id"] == job_id:
                    body["object"]["etag"] = '"poisoned"'
                    self.sqs.send_message(QueueUrl=url, MessageBody=json.dumps(body),
                                          MessageAttributes={k: {"DataType": v["DataType"], "StringValue":
                                                                 v["StringValue"]}
                                                             for k, v in m["MessageAttributes"].items()})
                    self.sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
                    return body["chunk"], body["positions"]
                self.sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"],
                                                   VisibilityTimeout=0)

    def wait(self, job_id, source, kill_at=None, healthy=None, timeout=900):
        """(state, seconds to the output, positions done at the kill, seconds until `healthy` positions were done)"""
        t0, killed, healthy_s = time.monotonic(), None, None
        while time.monotonic() - t0 < timeout:
            for pid in source.pids().values():
                if (mb := rss_mb(pid)) is not None:
                    self.memory.setdefault(pid, []).append(mb)
            st = self.state(job_id)
            if healthy is not None and healthy_s is None and st["done"] >= healthy:
                healthy_s = time.monotonic() - t0
            if kill_at is not None and killed is None and st["done"] >= kill_at and source.busy().get(0):
                source.kill(0)
                killed = st["done"]
            if st["s3"]["output"] is not None:
                return st, time.monotonic() - t0, killed, healthy_s
            time.sleep(0.5)
        raise SystemExit(f"job {job_id} did not finish in {timeout} s: {self.state(job_id)}")

    def output(self, st):
        out = st["s3"]["output"]
        get = lambda k: self.s3.get_object(Bucket=out["bucket"], Key=k)["Body"].read()
        lines = [json.loads(x) for x in get(out["jsonl"]).splitlines()]
        return lines, get(out["pgn"]).decode() if out["pgn"] else None


# The game collection (issue 35's former benchmarks/s3_games.py): the engine's own moves, so every one is legal.
NODES = 64  # a move in ~1 ms: the games need to be legal and varied, not good
MAX_PLIES = 80


def openings():
    for line in (DATA / "openings_uho_6mvs.epd").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            yield " ".join(fields[:4]) + " 0 1"


def game(fen):
    """(moves, result) of a game the engine plays against itself from fen."""
    import engine

    moves = []
    while len(moves) < MAX_PLIES:
        found = engine.analyse(fen, moves, nodes=NODES)
        if found.best_move is None:  # checkmate, stalemate or a draw by rule
            side = fen.split()[1] if len(moves) % 2 == 0 else ("b" if fen.split()[1] == "w" else "w")
            result = ("0-1" if side == "w" else "1-0") if found.terminal == "checkmate" else "1/2-1/2"
            return moves, result
        moves.append(found.best_move)
    return moves, "*"


def collection(positions):
    """PGN text of whole games with at least `positions` positions (plies + 1 each) in all, and its count."""
    from engine.pgn import write_game

    texts, total = [], 0
    for n, fen in enumerate(openings(), 1):
        moves, result = game(fen)
        texts.append(write_game(fen, moves, {"Event": "Kibitz S3 benchmark", "Round": str(n), "White": "Kibitz",
                                             "Black": "Kibitz"}, result))
        total += len(moves) + 1
        if total >= positions:
            return "\n".join(texts), total
    raise SystemExit(f"the openings give only {total} positions")


def epd_of(pgn, limit):
    """EPD text of the first `limit` positions after each move of the PGN's games, an id each."""
    from engine.board import Board
    from engine.pgn import read_games

    fens = []
    for g in read_games(pgn):
        board = Board(g.start_fen)
        for move in g.moves:
            board.push_uci(move)
            fens.append(board.fen().rsplit(" ", 2)[0])
    return "".join(f'{fen} id "p{i}";\n' for i, fen in enumerate(fens[:limit]))


class CallCounts:
    """WSGI middleware around moto's application: the calls it answers, by service and operation, DynamoDB's by
    table too (the analysis cache apart from the jobs table), so that a figure says what AWS would bill."""

    def __init__(self, app, cache_table):
        self.app, self.cache_table = app, cache_table
        self.counts, self.lock = {}, threading.Lock()

    def __call__(self, environ, start_response):
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        scope = environ.get("HTTP_AUTHORIZATION", "") + environ.get("QUERY_STRING", "")
        if target.startswith("DynamoDB"):
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            environ["wsgi.input"] = io.BytesIO(body)
            where = "cache" if self.cache_table.encode() in body else "jobs"
            name = f"dynamodb {where} {target.split('.')[-1]}"
        elif target.startswith("AmazonSQS"):
            name = f"sqs {target.split('.')[-1]}"
        elif "/s3/aws4_request" in scope or "%2Fs3%2Faws4_request" in scope:
            name = f"s3 {environ['REQUEST_METHOD']}"
        else:
            name = "other"
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + 1
        return self.app(environ, start_response)

    def snapshot(self):
        with self.lock:
            return dict(self.counts)


def calls_between(before, after):
    return {k: after.get(k, 0) - before.get(k, 0) for k in after if after.get(k, 0) != before.get(k, 0)}


OLD_JOBS = """import contextlib, io, json, os, sys
if os.path.exists("kibitz/local/runtime.py"):
    from kibitz.local import template
    from kibitz.local.apigateway import proxy_event
    from kibitz.local.runtime import FunctionRuntime
else:  # a checkout from before kibitz/local/ (issue 67)
    from kibitz import template
    from kibitz.apigateway import proxy_event
    from kibitz.runtime import FunctionRuntime
runtime = FunctionRuntime(template.load("template.yaml")["JobsFunction"])
with contextlib.redirect_stdout(io.StringIO()):
    r = runtime.invoke(proxy_event("POST", "/jobs", headers={"Content-Type": "application/json"}, body=sys.argv[1]))
print(json.dumps(r))
"""


def submit_with(run, tree, key, data, fmt):
    """Put the object and POST /jobs: with this checkout's JobsFunction, or (tree) with another's, in a process of
    its own there, so that its messages are the ones its BatchFunction reads."""
    import subprocess

    if tree is None:
        return run.submit(key, data, fmt)
    bucket = run.res["InputBucket"]["Ref"]
    run.s3.put_object(Bucket=bucket, Key=key, Body=data)
    body = {"source": f"s3://{bucket}/{key}", "format": fmt, "movetime_ms": run.movetime}
    done = subprocess.run([sys.executable, "-c", OLD_JOBS, json.dumps(body)], cwd=tree, env=os.environ,
                          capture_output=True, text=True, check=True)
    response = json.loads(done.stdout.splitlines()[-1])
    assert response["statusCode"] == 202, response
    return json.loads(response["body"])["job_id"]


def compare(args):
    """Issue 69: another checkout's BatchFunction and this one's on the same jobs, one after the other."""
    from kibitz.local.eventsource import SqsEventSource

    old = pathlib.Path(args.compare).resolve()
    here = pathlib.Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(here))  # the pollers of the old tree run from its directory; this process stays here
    pgn, total = collection(args.positions)
    epd = epd_of(pgn, args.epd_positions)
    run = Run(args.movetime_ms, visibility_s=120)
    cache_table = run.res["AnalysisCacheTable"]["Ref"]
    wsgi = run.aws.server._server
    counter = wsgi.app = CallCounts(wsgi.app, cache_table)
    ddb = run.aws.client("dynamodb")
    fn = run.fns["BatchFunction"]
    env = {**fn.environment, **run.aws.env, "KIBITZ_MAX_RECEIVE_COUNT": "3"}
    rows, call_rows, load = [], [], [os.getloadavg()[0]]
    ideal = 1000 / args.movetime_ms
    def empty_cache():
        for page in ddb.get_paginator("scan").paginate(TableName=cache_table, ProjectionExpression="#p",
                                                        ExpressionAttributeNames={"#p": "position"}):
            for item in page["Items"]:
                ddb.delete_item(TableName=cache_table, Key={"position": item["position"]})
        assert ddb.scan(TableName=cache_table, Select="COUNT")["Count"] == 0

    for label, tree in (("before", old), ("after", here)):
        cwd = os.getcwd()
        os.chdir(tree)  # the pollers' `python -m kibitz.local.eventsource` imports from their working directory
        try:
            source = SqsEventSource(fn, run.res["JobsQueue"]["Ref"], run.res["JobsQueue"]["Arn"], env,
                                    pollers=POLLERS, batch_size=BATCH, template_path=tree / "template.yaml",
                                    log=f"/tmp/kibitz-s3-compare-{label}.log", quiet=True)
            if not (tree / "kibitz/local/eventsource.py").exists():  # a checkout from before kibitz/local/ (issue 67)
                source.poller = "kibitz.eventsource"
            source.start()
            try:
                source.wait_ready()
                for name, data, fmt, n in (("games.pgn", pgn.encode(), "pgn", total),
                                           ("positions.epd", epd.encode(), "epd", epd.count("\n"))):
                    empty_cache()  # the EPD's positions are the PGN's: each job starts from an empty cache
                    before, busy_ms = counter.snapshot(), source.stats["ms"]
                    job = submit_with(run, tree if tree != here else None, f"{label}/{name}", data, fmt)
                    st, seconds, _, _ = run.wait(job, source, timeout=3600)
                    calls = calls_between(before, counter.snapshot())
                    time.sleep(1)  # the pollers' last "done" (the finish message's invocation) is read
                    busy_s = (source.stats["ms"] - busy_ms) / 1000
                    lines, _ = run.output(st)
                    check_once(lines, n)
                    assert st["done"] == n, (st["done"], st["failed"], st["s3"]["failures"][:2])
                    rate = n / seconds / POLLERS
                    rows.append([label, f"{fmt.upper()}, {n} positions", f"{seconds:.0f}", f"{rate:.1f}",
                                 f"{rate / ideal:.0%}", f"{busy_s:.0f}", f"{busy_s * 1000 / n:.1f}",
                                 f"{n * args.movetime_ms / 1000 / busy_s:.0%}"])
                    cache = sum(v for k, v in calls.items() if k.startswith("dynamodb cache"))
                    jobs_ddb = sum(v for k, v in calls.items() if k.startswith("dynamodb jobs"))
                    s3 = sum(v for k, v in calls.items() if k.startswith("s3"))
                    detail = ", ".join(f"{k.split(' ', 2)[-1]} {v}" for k, v in sorted(calls.items())
                                       if k.startswith("dynamodb cache"))
                    call_rows.append([label, fmt.upper(), f"{cache / n:.3f}", detail, f"{jobs_ddb / n:.3f}",
                                      f"{s3 / n:.3f}"])
                    load.append(os.getloadavg()[0])
            finally:
                source.stop()
        finally:
            os.chdir(cwd)
    run.aws.stop()
    body = (f"{POLLERS} pollers, movetime {args.movetime_ms} ms, {BATCH} chunks a batch, the same {total}-position "
            f"PGN ({pgn.count('[Event ')} games of collection() above) and {args.epd_positions}-line EPD (its "
            f"positions) analysed first by the BatchFunction of {old.name} (before), then by this checkout's "
            f"(after), the analysis cache emptied before each job. Seconds from the submission to the output written; "
            f"positions a second a poller over that time (the split and the join included). The pollers' "
            f"invocations, summed (what Lambda bills: every split, chunk and finish invocation of the job), and "
            f"a poller's share of the ideal over them (positions x movetime / invoked seconds). Load average (1 min) "
            f"at the start and after each job: {', '.join(f'{x:.1f}' for x in load)} on {os.cpu_count()} cores.\n\n"
            + table(["code", "job", "s to output", "positions/s a poller", "of ideal", "invoked s",
                     "invoked ms a position", "poller of ideal"], rows)
            + "\n\nAWS calls per position, counted at moto from the submission to the output: the analysis "
              "cache's table (and by operation, for the whole job), the rest of DynamoDB (the jobs table: the job "
              "item, and this benchmark's reads of the job's state every 0.5 s), S3 (every method):\n\n"
            + table(["code", "job", "cache table a position", "cache calls in all", "jobs table a position",
                     "S3 a position"], call_rows))
    print(body)
    if args.record:
        record(f"Batch from S3, before and after issue 69, {args.movetime_ms} ms (local)", body,
               f"python -m benchmarks.s3_batch --compare OLD --positions {args.positions} --epd-positions "
               f"{args.epd_positions} --movetime-ms {args.movetime_ms} --record")


def check_once(lines, total):
    indices = [x["index"] for x in lines]
    assert indices == list(range(total)), f"{len(indices)} lines for {total} positions, or out of order"


def main():
    import chess.pgn

    from kibitz.local.eventsource import SqsEventSource

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=10_000)
    p.add_argument("--epd-positions", type=int, default=2_000)
    p.add_argument("--movetime-ms", type=int, default=20)
    p.add_argument("--record", action="store_true")
    p.add_argument("--compare", metavar="OLD_TREE", help="another checkout's BatchFunction first, then this one's")
    args = p.parse_args()
    if args.compare:
        return compare(args)
    pgn, total = collection(args.positions)
    print(f"PGN: {pgn.count('[Event ')} games, {total} positions, {len(pgn.encode())} bytes", file=sys.stderr)
    run = Run(args.movetime_ms)
    fn = run.fns["BatchFunction"]
    env = {**fn.environment, **run.aws.env, "KIBITZ_MAX_RECEIVE_COUNT": "3"}  # the queue's, as overridden
    source = SqsEventSource(fn, run.res["JobsQueue"]["Ref"], run.res["JobsQueue"]["Arn"], env, pollers=POLLERS,
                            batch_size=BATCH, log="/tmp/kibitz-s3-batch.log", quiet=True).start()
    load, steal = [os.getloadavg()[0]], cpu_times()
    try:
        source.wait_ready()
        job = run.submit("games.pgn", pgn.encode(), "pgn")
        poisoned, poisoned_positions = run.poison_one_chunk(job)
        st, seconds, killed, healthy_s = run.wait(job, source, kill_at=total // 3, healthy=total - poisoned_positions)
        load.append(os.getloadavg()[0])
        lines, annotated = run.output(st)
        check_once(lines, total)
        failures = st["s3"]["failures"]
        assert [f["chunk"] for f in failures] == [poisoned], (poisoned, st["s3"], st["done"], st["failed"])
        bad = failures[0]
        assert all(x["status"] == "failed" for x in lines[bad["first_index"]:bad["first_index"] + bad["positions"]])
        assert sum(x["status"] == "done" for x in lines) == total - bad["positions"]
        games, handle = 0, io.StringIO(annotated)
        while (g := chess.pgn.read_game(handle)) is not None:
            assert not g.errors and all(n.eval() is not None for n in g.mainline())
            games += 1
        # SQS moves the message at its next receive after the last failed one: after one more visibility timeout
        deadline, dlq = time.monotonic() + 90, 0
        while dlq == 0 and time.monotonic() < deadline:
            time.sleep(1)
            dlq = int(run.sqs.get_queue_attributes(QueueUrl=run.res["JobsDeadLetterQueue"]["Ref"], AttributeNames=[
                "ApproximateNumberOfMessages"])["Attributes"]["ApproximateNumberOfMessages"])
        assert dlq == 1, dlq
        analysed = total - bad["positions"]
        # a gzip EPD: the positions of the games' starts and some of their moves, one a line
        epd = "\n".join(x["fen"].rsplit(" ", 2)[0] + f' id "{x["id"]}";' for x in lines
                        if x["status"] == "done")
        epd = "\n".join(epd.splitlines()[:args.epd_positions]) + "\n"
        job2 = run.submit("positions.epd.gz", gzip.compress(epd.encode()), "epd")
        st2, seconds2, _, _ = run.wait(job2, source)
        load.append(os.getloadavg()[0])
        stats = dict(source.stats)
        lines2, _ = run.output(st2)
        check_once(lines2, args.epd_positions)
        assert st2["done"] == args.epd_positions
    finally:
        source.stop()
        run.aws.stop()
    per_poller = analysed / healthy_s / POLLERS
    per_poller2 = args.epd_positions / seconds2 / POLLERS
    ideal = 1000 / args.movetime_ms
    mem = [(pid, series) for pid, series in run.memory.items() if len(series) > 4]
    rows = [["PGN, 10,000-position target", f"{pgn.count('[Event ')} games, {total} positions",
             f"{healthy_s:.0f}", f"{seconds:.0f}", f"{per_poller:.1f}", f"{ideal:.0f}", f"{per_poller / ideal:.0%}"],
            ["EPD, gzip", f"{args.epd_positions} positions", f"{seconds2:.0f}", f"{seconds2:.0f}", f"{per_poller2:.1f}",
             f"{ideal:.0f}", f"{per_poller2 / ideal:.0%}"]]
    memory_rows = [[pid, f"{s[0]:.0f}", f"{s[len(s) // 2]:.0f}", f"{s[-1]:.0f}", f"{max(s):.0f}", len(s)]
                   for pid, s in mem]
    body = (f"{POLLERS} pollers, movetime {args.movetime_ms} ms, 100 positions a chunk, {BATCH} chunks a batch, "
            f"visibility timeout 60 s, maxReceiveCount 3 (short, so that the run ends in minutes; a batch of 10 "
            f"chunks, the template's, can outlast 60 s on a busy machine, and SQS would hand its chunks to the other "
            f"poller too). Seconds from the submission: until every position but the poisoned chunk's was done "
            f"(the rate's clock), and until the output was written (which waits for the poisoned chunk's 3 "
            f"deliveries, a visibility timeout apart). Load average (1 min) at the start, after the PGN, at the end: "
            f"{', '.join(f'{x:.1f}' for x in load)} on {os.cpu_count()} cores ({steal_since(steal)}): the machine "
            f"was shared, and the rate is a floor.\n\n"
            + table(["job", "size", "s to analysed", "s to output", "positions/s a poller", "ideal (1000/movetime)",
                     "of ideal"], rows)
            + f"\n\nChecked: every position's line in results.jsonl once, in order ({total} and "
            f"{args.epd_positions}); python-chess read the {games} annotated games, each move with its eval; chunk "
            f"{poisoned} (poisoned: its message re-sent naming another ETag) failed its 3 deliveries, is named in "
            f"the job's failures with its {bad['positions']} positions (failed lines in the JSONL) and its message "
            f"is in the dead-letter queue ({dlq}); poller 0 was killed mid-chunk at {killed} positions done: its "
            f"chunks came back after the visibility timeout, were analysed again and reported once. Deliveries (both "
            f"jobs): {stats['records']} records in {stats['invocations']} finished invocations, {stats['restarts']} "
            f"poller restart.\n\nPollers' memory (RSS, MB; sampled every 0.5 s from each poller's start to the end "
            f"of both jobs; a replaced poller is a new pid):\n\n"
            + table(["pid", "start", "middle", "end", "peak", "samples"], memory_rows))
    print(body)
    if args.record:
        record("Batch from S3 (local)", body, COMMAND)


if __name__ == "__main__":
    threading.current_thread().name = "s3-batch"
    main()
