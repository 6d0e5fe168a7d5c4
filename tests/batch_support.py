"""Helpers for the batch tests: the template's queues and table in moto on 127.0.0.1, the jobs and
batch functions in this process, the event source mapping's pollers as processes, and waiting."""

import contextlib
import io
import json
import time
import uuid

import pytest

from kibitz.local.apigateway import proxy_event
from kibitz.local.aws import LocalAWS
from kibitz.local.eventsource import SqsEventSource
from kibitz.local.runtime import FunctionRuntime


@contextlib.contextmanager
def moto_env(letter):
    """A fresh moto server on 127.0.0.1 with its names in os.environ for as long as the block runs; the
    names start with `letter` and a random tag, since moto keeps one state per process."""
    with pytest.MonkeyPatch.context() as mp:
        local = LocalAWS(prefix=f"{letter}{uuid.uuid4().hex[:8]}").start()
        for k, v in local.env.items():
            mp.setenv(k, v)
        try:
            yield local
        finally:
            local.stop()


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class Stack:
    """One embedded AWS (moto) with the template's resources, and the functions pointed at it."""

    def __init__(self, aws, tmp_path):
        from functions.common.jobs.store import Store

        self.aws = aws
        self.functions = aws.functions()
        self.store = Store(aws.resources["JobsTable"]["Ref"], aws.client("dynamodb"))
        self.sqs = aws.client("sqs")
        self.queue_url = aws.resources["JobsQueue"]["Ref"]
        self.queue_arn = aws.resources["JobsQueue"]["Arn"]
        self.dlq_url = aws.resources["JobsDeadLetterQueue"]["Ref"]
        self.jobs = FunctionRuntime(self.functions["JobsFunction"])
        self.batch = FunctionRuntime(self.functions["BatchFunction"])
        self.log = tmp_path / "pollers.log"

    # --- the API ---------------------------------------------------------------------------------

    def call(self, event, timeout_s=None):
        with contextlib.redirect_stdout(io.StringIO()):
            return self.jobs.invoke(event, timeout_s=timeout_s)

    def post(self, body):
        response = self.call(proxy_event("POST", "/jobs", headers={"Content-Type": "application/json"},
                                         body=body if isinstance(body, str) else json.dumps(body)))
        return response["statusCode"], json.loads(response["body"])

    def get(self, job_id, query=""):
        response = self.call(proxy_event("GET", f"/jobs/{job_id}", query, resource="/jobs/{job_id}",
                                         path_parameters={"job_id": job_id}))
        return response["statusCode"], json.loads(response["body"])

    def invoke_batch(self, event, timeout_s=None):
        with contextlib.redirect_stdout(io.StringIO()):
            return self.batch.invoke(event, timeout_s=timeout_s)

    # --- the queue and the table ------------------------------------------------------------------

    def source(self, pollers=1, env=None, batch_size=None):
        fn = self.functions["BatchFunction"]
        return SqsEventSource(fn, self.queue_url, self.queue_arn, {**fn.environment, **self.aws.env, **(env or {})},
                              pollers=pollers, batch_size=batch_size, log=self.log, quiet=True)

    def depth(self, url=None):
        """(visible, in flight) messages of a queue (default: the jobs queue)."""
        a = self.sqs.get_queue_attributes(QueueUrl=url or self.queue_url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])

    def items(self):
        """Every item of the table (a scan: tests only)."""
        pages = self.store.ddb.get_paginator("scan").paginate(TableName=self.store.table, ConsistentRead=True)
        return [item for page in pages for item in page["Items"]]

    def results(self, job_id):
        out, after = [], -1
        while True:
            page, after = self.store.results(job_id, after, 200)
            out += page
            if after is None:
                return out

    def wait(self, job_id, until, timeout=120, what="the job"):
        """Poll the job until until(job dict) holds; fail with the log's tail after `timeout` s."""
        deadline = time.monotonic() + timeout
        job = None
        while time.monotonic() < deadline:
            job = self.store.job(job_id)
            if until(job):
                return job
            time.sleep(0.2)
        tail = self.log.read_text()[-3000:] if self.log.exists() else ""
        pytest.fail(f"{what} did not get there in {timeout} s: {job}\n--- pollers' log ---\n{tail}")

    def wait_done(self, job_id, timeout=120):
        return self.wait(job_id, lambda j: j["status"] in ("done", "done-with-failures"), timeout)


@contextlib.contextmanager
def stack(tmp_path, **overrides):
    """A Stack whose boto3 (in this process) points at a fresh moto server; everything stops after."""
    with pytest.MonkeyPatch.context() as mp:
        # moto keeps one state per process, whichever server: names of their own keep the tests apart
        aws = LocalAWS(prefix=f"t{uuid.uuid4().hex[:8]}", **overrides).start()
        try:
            for key, value in aws.env.items():
                mp.setenv(key, value)
            s = Stack(aws, tmp_path)
            for key, value in s.functions["JobsFunction"].environment.items():
                mp.setenv(key, value)  # KIBITZ_JOBS_TABLE, KIBITZ_JOBS_QUEUE_URL: the functions read them per call
            # this stack's analysis cache: a name an earlier stack left in os.environ (moto keeps every table of
            # the process) would answer from that stack's entries
            mp.setenv("KIBITZ_CACHE_TABLE", s.functions["BatchFunction"].environment["KIBITZ_CACHE_TABLE"])
            yield s
        finally:
            aws.stop()


@contextlib.contextmanager
def s3_stack(tmp_path):
    """stack() with its S3 client and its InputBucket and OutputBucket names at hand (jobs read from S3)."""
    with stack(tmp_path) as st:
        st.s3 = st.aws.client("s3")
        st.input = st.aws.resources["InputBucket"]["Ref"]
        st.output = st.aws.resources["OutputBucket"]["Ref"]
        yield st


def wac(n, start=0):
    """The first n positions of wac.epd as FENs (4 fields + clocks)."""
    from tests.conftest import SUITES

    fens = []
    for line in (SUITES / "wac.epd").read_text().splitlines()[start:]:
        fields = line.split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:4]) + " 0 1")
        if len(fens) == n:
            return fens
    return fens
