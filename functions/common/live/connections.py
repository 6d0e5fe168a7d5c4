"""The live stream's connections table (DynamoDB, LiveConnectionsTable): how the invocation that searches
learns that its client asked it to stop, or left.

On AWS each WebSocket message is its own Lambda invocation, most likely in another container, so a
`stop` (or `$disconnect`) cannot reach the search through memory. It writes this table instead, and a
watcher thread in the searching invocation reads the connection's item every POLL_S (a strongly
consistent GetItem) and sets the search's StopSignal.

    connection_id (S, partition key)
    connected_at (N)      epoch ms ($connect)
    expires_at (N)        TTL: a day after the last write (API Gateway closes a connection after 2 h)
    search (S)            the request id of the newest analyze message on the connection
    search_at (N)         its API Gateway requestTimeEpoch (ms)
    stop_at (N)           the requestTimeEpoch of the newest stop message
    gone (BOOL)           $disconnect came

A search of request time T stops when stop_at >= T (a stop sent after its analyze, whichever
invocation ran first), when a newer analyze took the connection (search_at > T), or when the
connection is gone. Writes go through boto3's DynamoDB client; the watcher's reads, ten a second of
search, through functions/common/aws/dynamodb_lite.py (a kept-alive connection of its own, a fraction of
boto3's CPU per call: the search shares the function's vCPU with them). Both read this process's
environment (AWS_ENDPOINT_URL: moto). KIBITZ_LIVE_POLL_MS: the watcher's interval (default 100).
"""

import os
import threading
import time

from functions.common import settings
from functions.common.aws.dynamodb_lite import DynamoDB

POLL_S = settings.integer("KIBITZ_LIVE_POLL_MS", 100) / 1000  # a stop is seen within ~100 ms + a read
TTL_S = 24 * 3600
_clients = {}
_clients_lock = threading.Lock()


def dynamodb():
    """One boto3 DynamoDB client per process and endpoint (clients are thread-safe; making one costs ~50 ms)."""
    where = (os.environ.get("AWS_ENDPOINT_URL"), os.environ.get("AWS_REGION"))
    with _clients_lock:
        if where not in _clients:
            import boto3
            from botocore.config import Config

            _clients[where] = boto3.client("dynamodb", config=Config(
                connect_timeout=1, read_timeout=1, retries={"max_attempts": 2, "mode": "standard"}))
        return _clients[where]


class Connections:
    def __init__(self, table=None, client=None):
        self.table = table or settings.required("KIBITZ_LIVE_TABLE", "the live connections table's name")
        self._client = client

    @property
    def client(self):
        return self._client or dynamodb()

    def _update(self, cid, expression, values, names=None, condition=None):
        params = {"TableName": self.table, "Key": {"connection_id": {"S": cid}}, "UpdateExpression": expression,
                  "ExpressionAttributeValues": {":exp": {"N": str(int(time.time()) + TTL_S)}, **values}}
        if names:
            params["ExpressionAttributeNames"] = names
        if condition:
            params["ConditionExpression"] = condition
        return self.client.update_item(**params)

    def connect(self, cid, at_ms):
        self._update(cid, "SET connected_at = :at, expires_at = :exp", {":at": {"N": str(at_ms)}})

    def disconnect(self, cid):
        self._update(cid, "SET gone = :t, expires_at = :exp", {":t": {"BOOL": True}})

    def stop(self, cid, at_ms):
        """A stop message received at at_ms: any search asked at or before it stops."""
        self._update(cid, "SET stop_at = :at, expires_at = :exp", {":at": {"N": str(at_ms)}},
                     condition="attribute_not_exists(stop_at) OR stop_at < :at")

    def begin(self, cid, request_id, at_ms):
        """Claim the connection for the search asked at at_ms. False when a newer analyze has it already."""
        try:
            self._update(cid, "SET #s = :rid, search_at = :at, expires_at = :exp",
                         {":rid": {"S": request_id}, ":at": {"N": str(at_ms)}}, names={"#s": "search"},
                         condition="attribute_not_exists(search_at) OR search_at <= :at")
        except self.client.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def read(self, cid, lite=None):
        """The connection's item, strongly consistent; lite: a dynamodb_lite.DynamoDB to read it with."""
        params = {"TableName": self.table, "Key": {"connection_id": {"S": cid}}, "ConsistentRead": True}
        answer = lite.call("GetItem", params) if lite is not None else self.client.get_item(**params)
        item = answer.get("Item") or {}
        return {k: (int(v["N"]) if "N" in v else v.get("S", v.get("BOOL"))) for k, v in item.items()}


def why_stop(item, request_id, at_ms):
    """Why the search (request_id, asked at at_ms) must stop, from its connection's item; None: go on."""
    if item.get("gone"):
        return "disconnected"
    if item.get("stop_at", -1) >= at_ms:
        return "stop"
    if item.get("search_at", at_ms) > at_ms or item.get("search", request_id) != request_id:
        return "superseded"
    return None


class Watcher:
    """A thread that claims the connection for its search (Connections.begin: off the search's path, so the
    first info does not wait for DynamoDB), then reads the connection's item every POLL_S until closed,
    calling stop(reason) once."""

    def __init__(self, connections, cid, request_id, at_ms, stop, interval_s=POLL_S):
        self.connections, self.cid, self.request_id, self.at_ms = connections, cid, request_id, at_ms
        self.stop, self.interval_s = stop, interval_s
        self.reason = None
        self.reads = 0
        self.errors = 0
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"live-watch-{cid}", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def _run(self):
        try:
            claimed = self.connections.begin(self.cid, self.request_id, self.at_ms)
        except Exception:  # the table failed: the search goes on; a stop may then go unseen until it answers
            self.errors += 1
            claimed = True
        if not claimed:  # a newer analyze on this connection has it already
            self.reason = "superseded"
            self.stop(self.reason)
            return
        lite = DynamoDB(timeout_s=0.5)
        try:
            self._poll(lite)
        finally:
            lite.close()

    def _poll(self, lite):
        while not self._closed.wait(self.interval_s):
            try:
                item = self.connections.read(self.cid, lite)
                self.reads += 1
            except Exception:  # a failed read is retried at the next tick; the search's own deadline holds
                self.errors += 1
                continue
            reason = why_stop(item, self.request_id, self.at_ms)
            if reason is not None:
                self.reason = reason
                self.stop(reason)
                return

    def close(self):
        self._closed.set()
        self._thread.join()
