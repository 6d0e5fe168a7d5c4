"""The template's queues and tables for `kibitz serve` / `kibitz invoke`: embedded, or AWS.

Embedded (the default): moto's server on 127.0.0.1 with the template's queues and tables
(kibitz/local/aws.py), this process's boto3 pointed at it, and the SQS event source mappings
played by local pollers (kibitz/local/eventsource.py) invoking the same handlers.

AWS (or any endpoint): when KIBITZ_JOBS_TABLE and KIBITZ_JOBS_QUEUE_URL are set (say, to the stack's
JobsTableName and JobsQueueUrl outputs), nothing is embedded: the functions use them with the usual
boto3 credentials, region and AWS_ENDPOINT_URL, and the pollers (unless --pollers 0) poll that queue.
"""

import os
import sys

from kibitz.local import template
from kibitz.local.aws import LocalAWS
from kibitz.local.eventsource import SqsEventSource

EXTERNAL = ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL")


def uses_resources(path=template.TEMPLATE):
    """True when the template has queues or tables (so functions need them)."""
    return bool(template.queues(path) or template.tables(path) or template.buckets(path))


class Services:
    def __init__(self, template_path=template.TEMPLATE, pollers=None, visibility_timeout_s=None,
                 max_receive_count=None, log=None, quiet=False):
        self.template_path = template_path
        self.pollers = pollers
        self.visibility_timeout_s = visibility_timeout_s
        self.max_receive_count = max_receive_count
        self.log = log
        self.quiet = quiet
        self.aws = None
        self.mappings = []
        self.functions = template.load(template_path)
        self.mode = "none"

    def start(self, pollers=True):
        """The queues and tables; then, unless pollers=False, the event sources (start_pollers())."""
        if not uses_resources(self.template_path):
            return self
        if all(os.environ.get(name) for name in EXTERNAL):
            self.mode = "external"
            queue_url = os.environ["KIBITZ_JOBS_QUEUE_URL"]
            queues = {"JobsQueue": {"Ref": queue_url, "QueueUrl": queue_url}}
            env_of = lambda fn: {}  # the functions read this process's environment
        else:
            self.mode = "embedded"
            self.aws = LocalAWS(self.template_path, visibility_timeout_s=self.visibility_timeout_s,
                                max_receive_count=self.max_receive_count).start()
            self.aws.apply_env()
            self.functions = self.aws.functions()
            queues = self.aws.resources
            # the queue's maxReceiveCount as overridden: BatchFunction's last delivery writes a chunk's failure
            count = {"KIBITZ_MAX_RECEIVE_COUNT": str(self.max_receive_count)} if self.max_receive_count else {}
            env_of = lambda fn: {**fn.environment, **self.aws.env, **count}
        self._queues, self._env_of = queues, env_of
        if pollers:
            self.start_pollers()
        return self

    def start_pollers(self):
        """An SqsEventSource for each SQS event of each function (none in mode "none", or with pollers=0)."""
        if self.mode == "none" or self.mappings:
            return self
        queues, env_of = self._queues, self._env_of
        for fn in self.functions.values():
            for event in fn.sqs_events:
                queue = queues.get(event.queue)
                if queue is None:
                    continue
                arn = queue.get("Arn") or self._queue_arn(queue["Ref"])
                pollers = self.pollers if self.pollers is not None else \
                    min(event.max_concurrency or 1, os.cpu_count() or 1)
                if pollers <= 0:
                    continue
                self.mappings.append(SqsEventSource(fn, queue["Ref"], arn, env_of(fn), pollers=pollers,
                                                    template_path=self.template_path, log=self.log,
                                                    quiet=self.quiet).start())
        return self

    def _queue_arn(self, url):
        import boto3

        return boto3.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])[
            "Attributes"]["QueueArn"]

    def describe(self):
        """Lines for people: where the queues and tables are, and who polls."""
        lines = []
        if self.mode == "embedded":
            lines.append(f"  SQS + DynamoDB + S3: moto on {self.aws.endpoint} (in memory; gone when this stops)")
            for name, res in self.aws.resources.items():
                lines.append(f"    {name:22} {res['Ref']}")
            lines += [f"  {w.describe()}" for w in self.aws.wrappers if hasattr(w, "describe")]
        elif self.mode == "external":
            lines.append(f"  SQS + DynamoDB: {os.environ.get('AWS_ENDPOINT_URL') or 'AWS'} "
                         f"(table {os.environ['KIBITZ_JOBS_TABLE']}, queue {os.environ['KIBITZ_JOBS_QUEUE_URL']})")
        for m in self.mappings:
            lines.append(f"  {m.function.name}: {m.pollers} poller(s), batch size {m.batch_size}, "
                         f"{'partial batch responses' if m.report_failures else 'whole batches'}")
        return lines

    def stop(self):
        for m in self.mappings:
            m.stop()
        self.mappings = []
        if self.aws is not None:
            for w in self.aws.wrappers if not self.quiet else ():
                if hasattr(w, "summary"):
                    print(f"kibitz: {w.summary()}", file=sys.stderr)
            self.aws.stop()
            self.aws = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
