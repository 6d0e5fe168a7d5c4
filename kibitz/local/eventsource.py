"""The Lambda SQS event source mapping, played on this machine: pollers that receive batches from a
queue, invoke a function's handler with the SQS event, and delete what the function did not report.

    mapping = SqsEventSource(function, queue_url, queue_arn, env, pollers=2).start()
    ...
    mapping.stop()

What it does as Lambda does:
- each poller is a process of its own, one warm "execution environment" of the function (imported
  once, one batch at a time); `pollers` plays MaximumConcurrency;
- ReceiveMessage with up to BatchSize messages (at most 10), all attributes, long polling; the
  queue's own visibility timeout applies (SQS, here moto, redrives a message to the dead-letter
  queue once it has been received maxReceiveCount times);
- the event has the shape Lambda sends (`Records` of messageId, receiptHandle, body, attributes,
  messageAttributes, md5OfBody, eventSource, eventSourceARN, awsRegion);
- with ReportBatchItemFailures, the records in `batchItemFailures` stay in the queue and the rest
  are deleted; an answer that names a record not in the batch, or is not such an object, fails the
  whole batch; an invocation that raises fails the whole batch (nothing deleted). Without it, only
  success deletes;
- an invocation that outlives the function's timeout is killed, and so is its process; a poller
  that dies (killed, crashed) is replaced by a fresh one, as Lambda starts a new environment.
Messages that come back become visible again only when their visibility timeout ends, as on AWS.
Stopping is graceful: a poller told to stop (SIGTERM, or Ctrl-C) finishes the invocation in hand, and
makes visible at once any message its last long poll received after the stop, instead of leaving it
in flight for a whole visibility timeout.

Protocol: a poller writes one JSON line per event on its stdout (`ready` once the function is
imported, then `invoke`, `done` or `error` per batch); the function's own output (logs, metrics) goes
to the poller's stderr.
"""

import ctypes
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback

from kibitz.local import template
from kibitz.local.runtime import FunctionRuntime

POLLER = "kibitz.local.eventsource"  # the module a poller process runs (`python -m`), from the working directory
RECEIVE_WAIT_S = 2  # long polling, short enough to notice a dead parent or a stop soon
KILL_GRACE_S = 2
STOP_WAIT_S = 30


class SqsEventSource:
    def __init__(self, function, queue_url, queue_arn, env, pollers=1, batch_size=None, template_path=None,
                 log=None, quiet=False):
        """function: template.Function with an SQS event; env: the variables the pollers get (the function's
        resolved environment and the AWS endpoint); log: a file for the pollers' stderr (default: ours)."""
        event = function.sqs_events[0] if function.sqs_events else None
        self.function = function
        self.queue_url, self.queue_arn = queue_url, queue_arn
        self.env = dict(env)
        self.pollers = pollers
        self.batch_size = batch_size or (event.batch_size if event else 10)
        self.report_failures = event.report_batch_item_failures if event else True
        self.template_path = str(template_path or template.TEMPLATE)
        self.log = log
        self.poller = POLLER  # a checkout of before kibitz/local/ (benchmarks/s3_batch.py --compare) names its own
        self.quiet = quiet
        self._procs = {}  # slot -> Popen
        self._busy = {}  # slot -> (started, records) of the invocation in progress
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ready = set()  # pids of pollers whose function is imported (its init done)
        self.stats = {"invocations": 0, "records": 0, "failures": 0, "errors": 0, "timeouts": 0, "restarts": 0,
                      "deleted": 0, "ms": 0.0}  # ms: the invocations' durations, as Lambda would bill them
        self._supervisor = None

    # --- lifecycle ---------------------------------------------------------------------------------

    def start(self):
        for slot in range(self.pollers):
            self._spawn(slot)
        self._supervisor = threading.Thread(target=self._supervise, name="eventsource-supervisor", daemon=True)
        self._supervisor.start()
        return self

    def stop(self, timeout=STOP_WAIT_S):
        """Ask every poller to stop after its invocation in hand; kill those still busy after `timeout` s."""
        self._stopping.set()
        with self._lock:
            procs = list(self._procs.values())
        for p in procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + timeout
        for p in procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def pids(self):
        with self._lock:
            return {slot: p.pid for slot, p in self._procs.items() if p.poll() is None}

    def kill(self, slot=0):
        """Kill a poller's process now, as a crash would (tests and demos). It is replaced."""
        with self._lock:
            proc = self._procs.get(slot)
        if proc is not None and proc.poll() is None:
            proc.kill()

    def wait_ready(self, timeout=120):
        """Wait until every poller has imported the function (cold starts done). False on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if set(self.pids().values()) <= self._ready and len(self.pids()) == self.pollers:
                return True
            time.sleep(0.05)
        return False

    def busy(self):
        with self._lock:
            return dict(self._busy)

    # --- pollers -----------------------------------------------------------------------------------

    def _spawn(self, slot):
        args = {"function": self.function.name, "template": self.template_path, "queue_url": self.queue_url,
                "queue_arn": self.queue_arn, "batch_size": self.batch_size, "report_failures": self.report_failures,
                "parent": os.getpid(), "slot": slot, "timeout_s": self.function.timeout_s}
        stderr = open(self.log, "a") if self.log else None  # noqa: SIM115 (handed to the child)
        proc = subprocess.Popen([sys.executable, "-m", self.poller, json.dumps(args)],
                                env={**os.environ, **self.env}, stdout=subprocess.PIPE, stderr=stderr,
                                stdin=subprocess.DEVNULL, text=True, bufsize=1)
        if stderr is not None:
            stderr.close()
        with self._lock:
            self._procs[slot] = proc
            self._busy.pop(slot, None)
        threading.Thread(target=self._read, args=(slot, proc), name=f"eventsource-{slot}", daemon=True).start()

    def _read(self, slot, proc):
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                if msg["event"] == "ready":
                    self._ready.add(proc.pid)
                elif msg["event"] == "invoke":
                    self._busy[slot] = (time.monotonic(), msg["records"])
                elif msg["event"] in ("done", "error"):
                    self._busy.pop(slot, None)
                    self.stats["invocations"] += 1
                    self.stats["records"] += msg["records"]
                    self.stats["failures"] += msg.get("failures", 0)
                    self.stats["deleted"] += msg.get("deleted", 0)
                    self.stats["ms"] += msg.get("ms", 0.0)
                    if msg["event"] == "error":
                        self.stats["errors"] += 1
            if msg["event"] == "error" and not self.quiet:
                print(f"kibitz: {self.function.name} failed a batch of {msg['records']}: {msg.get('error')}",
                      file=sys.stderr)

    def _supervise(self):
        timeout = self.function.timeout_s + KILL_GRACE_S
        while not self._stopping.wait(0.2):
            with self._lock:
                procs = dict(self._procs)
                busy = dict(self._busy)
            for slot, proc in procs.items():
                started = busy.get(slot)
                if proc.poll() is None and started and time.monotonic() - started[0] > timeout:
                    if not self.quiet:
                        print(f"kibitz: {self.function.name} timed out after {self.function.timeout_s} s "
                              f"({started[1]} records); its environment is replaced", file=sys.stderr)
                    proc.kill()
                    proc.wait()
                    with self._lock:
                        self.stats["timeouts"] += 1
                if proc.poll() is not None and not self._stopping.is_set():
                    with self._lock:
                        self.stats["restarts"] += 1
                    if not self.quiet:
                        print(f"kibitz: a {self.function.name} poller exited ({proc.returncode}); starting another",
                              file=sys.stderr)
                    self._spawn(slot)


# --- the poller process ---------------------------------------------------------------------------


def sqs_event(messages, queue_arn, region):
    """Lambda's SQS event for messages as ReceiveMessage returned them."""
    records = []
    for m in messages:
        attributes = {}
        for name, a in (m.get("MessageAttributes") or {}).items():
            attributes[name] = {"stringValue": a.get("StringValue"), "binaryValue": a.get("BinaryValue"),
                                "stringListValues": a.get("StringListValues", []),
                                "binaryListValues": a.get("BinaryListValues", []), "dataType": a["DataType"]}
            attributes[name] = {k: v for k, v in attributes[name].items() if v is not None}
        records.append({"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                        "attributes": dict(m.get("Attributes") or {}), "messageAttributes": attributes,
                        "md5OfBody": m.get("MD5OfBody"), "eventSource": "aws:sqs", "eventSourceARN": queue_arn,
                        "awsRegion": region})
    return {"Records": records}


def failed_ids(response, message_ids, report_failures):
    """The message ids that stay in the queue, from the handler's answer, as Lambda reads it."""
    if not report_failures:
        return set()
    if response is None:
        return set()
    if not isinstance(response, dict):
        return set(message_ids)
    failures = response.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, list):
        return set(message_ids)
    ids = set()
    for f in failures:
        ident = f.get("itemIdentifier") if isinstance(f, dict) else None
        if not ident or ident not in message_ids:
            return set(message_ids)  # Lambda: an invalid or unknown identifier fails the whole batch
        ids.add(ident)
    return ids


def _poll(args):
    import boto3

    status = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the function's prints (logs, EMF metrics) go to stderr
    sys.stdout = sys.stderr

    def say(**msg):
        status.write(json.dumps(msg) + "\n")

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    function = template.load(args["template"])[args["function"]]
    function = dataclasses.replace(function, timeout_s=args.get("timeout_s", function.timeout_s))
    runtime = FunctionRuntime(function)
    runtime.load()
    say(event="ready", init_ms=round(runtime.init_ms, 1))
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    sqs = boto3.client("sqs", region_name=region)
    while os.getppid() == args["parent"] and not stopping:
        try:
            got = sqs.receive_message(QueueUrl=args["queue_url"], MaxNumberOfMessages=min(args["batch_size"], 10),
                                      WaitTimeSeconds=RECEIVE_WAIT_S, AttributeNames=["All"],
                                      MessageAttributeNames=["All"])
        except Exception as e:  # the queue is gone or not answering: wait and try again, as Lambda does
            if stopping:
                break
            print(f"kibitz poller: receive failed: {e}", file=sys.stderr)
            time.sleep(1)
            continue
        messages = got.get("Messages") or []
        if messages and stopping:  # received while stopping: hand them back now
            sqs.change_message_visibility_batch(QueueUrl=args["queue_url"], Entries=[
                {"Id": str(k), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
                for k, m in enumerate(messages)])
            break
        if not messages:
            continue
        ids = [m["MessageId"] for m in messages]
        say(event="invoke", records=len(messages))
        t0 = time.perf_counter()
        try:
            response = runtime.invoke(sqs_event(messages, args["queue_arn"], region))
        except Exception as e:  # a function error: the whole batch comes back after its visibility timeout
            traceback.print_exc()
            say(event="error", records=len(messages), failures=len(messages), error=f"{type(e).__name__}: {e}")
            continue
        stay = failed_ids(response, set(ids), args["report_failures"])
        done = [m for m in messages if m["MessageId"] not in stay]
        deleted = 0
        for i in range(0, len(done), 10):
            chunk = done[i:i + 10]
            answer = sqs.delete_message_batch(QueueUrl=args["queue_url"], Entries=[
                {"Id": str(k), "ReceiptHandle": m["ReceiptHandle"]} for k, m in enumerate(chunk)])
            deleted += len(answer.get("Successful", []))
        say(event="done", records=len(messages), failures=len(stay), deleted=deleted,
            ms=round((time.perf_counter() - t0) * 1000, 1))


def _die_with_parent():
    """Ask Linux to end this process when its parent dies (best effort; the loop also checks)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


if __name__ == "__main__":
    _die_with_parent()
    arguments = json.loads(sys.argv[1])
    if os.getppid() != arguments["parent"]:
        sys.exit(0)
    try:
        _poll(arguments)
    except KeyboardInterrupt:
        pass
