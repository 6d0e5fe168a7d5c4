"""The shared analysis cache's table (DynamoDB): one item per position key (engine/cache_key.py).

    position (S, partition key)   the key
    m1 .. m5 (S)                  per multipv: the deepest analysis and the depths budgets reached
                                  (JSON, functions/common/analysis/cache.py reads and writes it)
    expires_at (N)                TTL: KIBITZ_CACHE_TTL_DAYS (30) after the last write

Reads are eventually consistent (a cache). Writes are compare-and-swap on the multipv's attribute
(written only if it still holds what was read), so two writers never lose the deeper analysis to a
shallower one. The cache is an optimisation: every call here may raise CacheUnavailable (throttled,
unavailable, timed out), and after a failure the store says it is unavailable for COOLDOWN_S without
calling AWS, so a failing table costs one short timeout per container per cooldown, not one per request.

Many positions at once (an S3 job's chunk: functions/common/analysis/cache_batch.py): read_items reads whole
items with BatchGetItem (BATCH_GET keys a request), write_items writes them with BatchWriteItem (BATCH_WRITE
a request). What either leaves unprocessed, or a whole call throttled, is tried again after BACKOFF_MS
(AWS's advice for batch calls); what is still left after the last is given up (a miss; an entry not
written). BatchWriteItem takes no condition: cache_batch.py says what that changes.

The client (functions/common/aws/dynamodb_lite.py: no boto3, which would double AnalyzeFunction's cold
start) has short timeouts and does not retry (a throttled read is a miss): a failing cache must not
eat a search's budget. Configuration: KIBITZ_CACHE_TABLE (unset: no cache),
KIBITZ_CACHE_TTL_DAYS, KIBITZ_CACHE_TIMEOUT_MS (connect and read, each; default 500).
"""

import http.client
import time

from functions.common import settings
from functions.common.aws.dynamodb_lite import DynamoDB, DynamoDBError

DEFAULT_TTL_DAYS = 30
DEFAULT_TIMEOUT_MS = 500
COOLDOWN_S = 30
MULTIPV_ATTRIBUTES = ("m1", "m2", "m3", "m4", "m5")
BATCH_GET = 100  # DynamoDB's limits a request
BATCH_WRITE = 25
BACKOFF_MS = (50, 100, 200, 400)  # before each retry of what a batch call left: at most 0.75 s a batch
THROTTLED = ("ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded")


class CacheUnavailable(Exception):
    """The table did not answer (or did not in time): analyse without it."""


class CacheStore:
    def __init__(self, table, ddb=None, sleep=time.sleep):
        self.table = table
        self.sleep = sleep  # between a batch call's retries
        self.calls = 0  # requests sent to DynamoDB (benchmarks/s3_batch.py counts them per position)
        timeout_s = settings.integer("KIBITZ_CACHE_TIMEOUT_MS", DEFAULT_TIMEOUT_MS) / 1000
        self.ddb = ddb or DynamoDB(timeout_s)
        self.ttl_days = settings.number("KIBITZ_CACHE_TTL_DAYS", DEFAULT_TTL_DAYS)
        self.down_until = 0.0

    @classmethod
    def from_env(cls):
        """The store named by KIBITZ_CACHE_TABLE, or None when it is not set (no cache: `kibitz analyze`)."""
        table = settings.text("KIBITZ_CACHE_TABLE")
        return cls(table) if table else None

    def _call(self, operation, params, table_name=True):
        if time.monotonic() < self.down_until:
            raise CacheUnavailable(f"skipped: the cache failed less than {COOLDOWN_S} s ago")
        try:
            self.calls += 1
            return self.ddb.call(operation, {"TableName": self.table, **params} if table_name else params)
        except DynamoDBError as e:
            if e.code == "ConditionalCheckFailedException":
                raise
            self.down_until = time.monotonic() + COOLDOWN_S
            raise CacheUnavailable(f"{operation}: {e}") from e
        except (OSError, http.client.HTTPException) as e:  # refused, reset, timed out
            self.down_until = time.monotonic() + COOLDOWN_S
            raise CacheUnavailable(f"{operation}: {type(e).__name__}: {e}") from e

    def get(self, key, multipv):
        """The stored text for (key, multipv), or None."""
        attribute = MULTIPV_ATTRIBUTES[multipv - 1]
        item = self._call("GetItem", {"Key": {"position": {"S": key}}, "ProjectionExpression": "#m",
                                      "ExpressionAttributeNames": {"#m": attribute}}).get("Item") or {}
        return item.get(attribute, {}).get("S")

    def put(self, key, multipv, text, old):
        """Store text for (key, multipv) if it still holds `old` (None: nothing). False when another
        writer got there first (the cache keeps theirs)."""
        attribute = MULTIPV_ATTRIBUTES[multipv - 1]
        values = {":new": {"S": text}, ":exp": {"N": str(int(time.time() + self.ttl_days * 86400))}}
        if old is None:
            condition = "attribute_not_exists(#m)"
        else:
            condition = "#m = :old"
            values[":old"] = {"S": old}
        try:
            self._call("UpdateItem", {"Key": {"position": {"S": key}},
                                      "UpdateExpression": "SET #m = :new, expires_at = :exp",
                                      "ConditionExpression": condition, "ExpressionAttributeNames": {"#m": attribute},
                                      "ExpressionAttributeValues": values})
        except DynamoDBError:  # ConditionalCheckFailedException: _call lets no other through
            return False
        return True


    def _batch(self, operation, pending, size, left_of):
        """Send `pending` in requests of `size` (RequestItems: {table: what the request holds}); what an
        answer leaves (left_of(answer)), or a throttled call's whole request, goes again after the next
        BACKOFF_MS. Returns what is left after the last retry (given up). CacheUnavailable on another fault."""
        retries = iter(BACKOFF_MS)
        while pending:
            request, rest = pending[:size], pending[size:]
            body = {"Keys": request} if operation == "BatchGetItem" else request
            try:
                left = left_of(self._call(operation, {"RequestItems": {self.table: body}}, table_name=False))
            except CacheUnavailable as e:
                if not (isinstance(e.__cause__, DynamoDBError) and e.__cause__.code in THROTTLED):
                    raise
                self.down_until = 0.0  # throttled: a batch waits and tries again rather than cooling down
                left = request
            if left:
                pause = next(retries, None)
                if pause is None:
                    return left + rest
                self.sleep(pause / 1000)
            pending = left + rest
        return []

    def read_items(self, keys):
        """({key: item} of those of `keys` the table has (whole items, the low-level JSON), {keys not read:
        still unprocessed or throttled after the retries}). CacheUnavailable on another fault."""
        found = {}

        def left_of(answer):
            for item in answer.get("Responses", {}).get(self.table, []):
                found[item["position"]["S"]] = item
            return answer.get("UnprocessedKeys", {}).get(self.table, {}).get("Keys", [])

        left = self._batch("BatchGetItem", [{"position": {"S": k}} for k in sorted(set(keys))], BATCH_GET, left_of)
        return found, {k["position"]["S"] for k in left}

    def write_items(self, items):
        """Write whole items (the low-level JSON, each with its "position"; the TTL is set here) with
        BatchWriteItem, unconditionally. Returns the keys of those given up. CacheUnavailable on a fault."""
        expires = {"N": str(int(time.time() + self.ttl_days * 86400))}
        puts = [{"PutRequest": {"Item": {**item, "expires_at": expires}}} for item in items]
        left = self._batch("BatchWriteItem", puts, BATCH_WRITE,
                           lambda answer: answer.get("UnprocessedItems", {}).get(self.table, []))
        return [p["PutRequest"]["Item"]["position"]["S"] for p in left]
