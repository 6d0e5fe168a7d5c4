"""SQS, DynamoDB and S3 on this machine: moto's ThreadedMotoServer on 127.0.0.1, with the template's
queues (visibility timeout, retention, redrive to the dead-letter queue), tables (keys, TTL) and buckets.

    aws = LocalAWS().start()          # a free port on 127.0.0.1
    aws.env                           # AWS_ENDPOINT_URL=http://127.0.0.1:PORT, fake credentials, region
    aws.resources                     # {logical id: {"Ref": ..., "Arn": ..., ...}} for template.load()
    aws.stop()

The functions do not know: boto3 reads AWS_ENDPOINT_URL, so the same code talks to AWS when it is
not set. Moto keeps everything in memory, one state per process whichever server answers: two
LocalAWS in one process need different prefixes (resource names). DynamoDB calls are answered one at a
time (SerialDynamoDB): moto's own are not atomic, and the job counts rely on DynamoDB's being so.

MIDDLEWARE (or LocalAWS(middleware=...)) wraps moto's WSGI application once the resources exist: that is
how a benchmark makes DynamoDB misbehave on purpose (benchmarks/faults.py); nothing here does by itself.
"""

import json
import logging
import os
import threading

from kibitz.local import template

REGION = "us-east-1"
ACCOUNT = "123456789012"  # moto's default account
DYNAMODB_TARGET = "DynamoDB_20120810."  # the X-Amz-Target prefix of every DynamoDB call
# Callables app -> app run over moto's WSGI application by every LocalAWS of this process that is not given its
# own (benchmarks/faults.py adds one for `kibitz serve` with failing DynamoDB calls). A wrapper with describe()
# and summary() is named in serve's banner and in its last line (kibitz/local/services.py).
MIDDLEWARE = []


def is_dynamodb_call(environ):
    """Whether a WSGI request to the embedded moto is a DynamoDB call (its X-Amz-Target names the service)."""
    return environ.get("HTTP_X_AMZ_TARGET", "").startswith(DYNAMODB_TARGET)


class LocalAWS:
    def __init__(self, template_path=template.TEMPLATE, prefix="kibitz-local", visibility_timeout_s=None,
                 max_receive_count=None, middleware=None):
        """visibility_timeout_s / max_receive_count: override the template's, for tests and demos; middleware:
        wrappers of moto's application (default MIDDLEWARE)."""
        self.template_path = template_path
        self.prefix = prefix
        self.visibility_timeout_s = visibility_timeout_s
        self.max_receive_count = max_receive_count
        self.server = None
        self.endpoint = None
        self.resources = {}
        self.middleware = list(MIDDLEWARE if middleware is None else middleware)
        self.wrappers = []  # what the middleware made of moto's application, outermost last, once started
        self.serial = None  # SerialDynamoDB, once started

    @property
    def env(self):
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_SESSION_TOKEN": "testing", "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION}

    def start(self, port=0):
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's server logs every request otherwise
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"
        wsgi = self.server._server  # werkzeug's server, which reads .app per request
        self.serial = wsgi.app = SerialDynamoDB(wsgi.app)
        self.create_resources()
        for wrap in self.middleware:  # after the tables exist: an injected fault in create_table would stop the start
            wsgi.app = wrap(wsgi.app)
            self.wrappers.append(wsgi.app)
        return self

    def stop(self):
        if self.server is not None:
            self.server.stop()
            self.server = None

    def __enter__(self):
        return self.start() if self.server is None else self

    def __exit__(self, *exc):
        self.stop()

    def client(self, service):
        import boto3

        env = self.env
        return boto3.client(service, endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
                            aws_session_token=env["AWS_SESSION_TOKEN"])

    def physical_name(self, logical_id):
        return f"{self.prefix}-{logical_id}"

    def create_resources(self):
        """Every queue, table and bucket of the template; dead-letter queues before the queues that redrive to them."""
        sqs, ddb = self.client("sqs"), self.client("dynamodb")
        queues = template.queues(self.template_path)
        order = sorted(queues.values(), key=lambda q: q.dead_letter_queue is not None)
        for q in order:
            attributes = {"VisibilityTimeout": str(self.visibility_timeout_s if self.visibility_timeout_s is not None
                                                   else q.visibility_timeout_s),
                          "MessageRetentionPeriod": str(q.retention_s)}
            if q.dead_letter_queue:
                count = self.max_receive_count if self.max_receive_count is not None else q.max_receive_count
                target = self.resources[q.dead_letter_queue]["Arn"]
                attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": target, "maxReceiveCount": str(count)})
            url = sqs.create_queue(QueueName=self.physical_name(q.name), Attributes=attributes)["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            self.resources[q.name] = {"Ref": url, "Arn": arn, "QueueName": self.physical_name(q.name), "QueueUrl": url}
        for t in template.tables(self.template_path).values():
            name = self.physical_name(t.name)
            ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                             AttributeDefinitions=[{"AttributeName": a, "AttributeType": ty} for a, ty, _ in t.keys],
                             KeySchema=[{"AttributeName": a, "KeyType": k} for a, _, k in t.keys])
            if t.ttl_attribute:
                ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={"AttributeName": t.ttl_attribute,
                                                                                 "Enabled": True})
            arn = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            self.resources[t.name] = {"Ref": name, "Arn": arn}
        s3 = self.client("s3")
        for logical_id in template.buckets(self.template_path):
            name = self.physical_name(logical_id).lower()  # bucket names are lower case
            s3.create_bucket(Bucket=name)
            self.resources[logical_id] = {"Ref": name, "Arn": f"arn:aws:s3:::{name}"}
        return self.resources

    def functions(self):
        """template.load() with the table and queue variables pointing here."""
        return template.load(self.template_path, self.resources)

    def apply_env(self, environ=os.environ):
        """Point boto3 in this process at the local server (the caller's own variables are replaced)."""
        environ.update(self.env)


class SerialDynamoDB:
    """WSGI middleware around moto's application: one DynamoDB call at a time, as each of DynamoDB's writes is
    atomic. Moto's server answers each request in a thread of its own and its UpdateItem is not atomic: two ADDs
    to a set the item does not have yet each make a new set, and the last one written wins, so one index was lost
    from a job's done_idx (the job then stayed at 5 of 6 positions done). Other services pass straight through
    (an SQS long poll must not hold up the table)."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        if not is_dynamodb_call(environ):
            return self.app(environ, start_response)
        with self.lock:
            return list(self.app(environ, start_response))  # the whole answer made inside the lock
