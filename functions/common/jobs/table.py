"""The results table (DynamoDB): a job and the result of each of its positions. It knows no job kinds:
store.py reads a job of either kind (a list of positions, or a source in S3: s3/jobs.py) from it.

One DynamoDB table (on-demand, TTL on `expires_at`) holds both the jobs and their results:

    job_id (S, partition key)   seq (N, sort key)
    <uuid>                      -1        the job: total, options, created_at, started_at,
                                          done_idx / failed_idx (number sets of finished indices);
                                          a review's games, and puzzles_due: its puzzles go in item -2, and
                                          the job is done once they are there (jobs/store.py)
    <uuid>                      -2        a review's puzzles (review_report.puzzles_record, JSON), written once
                                          when its last position is counted (jobs/worker.py finish_review);
                                          an item of its own, so the job item keeps its room for the games
    <uuid>                      0..n-1    one per finished position: status done|failed, id, fen,
                                          analysis (JSON) or error

Idempotence, so that a message delivered twice never doubles a result or a count:
  1. the result item is put on condition that it does not exist (key: job id + index);
  2. its index is then ADDed to the job's done_idx or failed_idx set. Adding to a set twice leaves
     one member, so the counts (the sets' sizes) are right even when step 2 runs again after a crash
     between 1 and 2 (the redelivered message finds the result, skips the analysis, and repeats 2).

The same code serves AWS and the local stand-in: boto3 finds moto's endpoint in AWS_ENDPOINT_URL.
Configuration: KIBITZ_JOBS_TABLE, KIBITZ_RESULTS_TTL_DAYS (default 7).
"""

import datetime
import time
import uuid

from functions.common import settings
from functions.common.api.models import AnalysisAnswer
from functions.common.aws.clients import client
from functions.common.jobs.models import DEFAULT_PAGE, JobResult

JOB_SEQ = -1  # the sort key of the job item; positions are 0..n-1
PUZZLES_SEQ = -2  # a review's puzzles (a job read from S3 keeps its chunks' failures from -2 down: s3/jobs.py)
DEFAULT_TTL_DAYS = 7


def new_job_id():
    return str(uuid.uuid4())


def now_iso():
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class UnknownJob(LookupError):
    """A message for a job the table does not have (never created, or expired)."""

    def __init__(self, job_id):
        super().__init__(f"no job {job_id} in the results table")
        self.job_id = job_id


class Table:
    """Jobs and results in the DynamoDB table `table` (low-level client: no float/Decimal surprises)."""

    def __init__(self, table=None, ddb=None):
        self.table = table or settings.required("KIBITZ_JOBS_TABLE", "the results table's name")
        self.ddb = ddb or client("dynamodb")
        self.ttl_days = settings.number("KIBITZ_RESULTS_TTL_DAYS", DEFAULT_TTL_DAYS)

    def key(self, job_id, seq):
        return {"job_id": {"S": job_id}, "seq": {"N": str(seq)}}

    def expires(self):
        return {"N": str(int(time.time() + self.ttl_days * 86400))}

    def create_job(self, job_id, total, limits, source, games=None):
        """games: a review's games (functions/common/review_report.games_record), or None."""
        item = {**self.key(job_id, JOB_SEQ), "total": {"N": str(total)}, "source": {"S": source},
                "options": {"S": limits.model_dump_json()}, "created_at": {"S": now_iso()},
                "expires_at": self.expires()}
        if games is not None:
            item["games"] = {"S": games}
            item["puzzles_due"] = {"BOOL": True}  # the job is done once its puzzles are stored too
        try:
            self.ddb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(job_id)",
                              ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except self.ddb.exceptions.ConditionalCheckFailedException as e:
            # boto3 retried a put whose answer was lost, and finds its own item: done. (Another job with this
            # new UUID is not a thing to expect; if it were so, it is refused.)
            if (e.response.get("Item") or {}).get("created_at") != item["created_at"]:
                raise

    def delete_job(self, job_id):
        self.ddb.delete_item(TableName=self.table, Key=self.key(job_id, JOB_SEQ))

    def mark_started(self, job_id):
        """Note that a worker has the job in hand (status running). False if there is no such job."""
        try:
            self.ddb.update_item(TableName=self.table, Key=self.key(job_id, JOB_SEQ),
                                 UpdateExpression="SET started_at = if_not_exists(started_at, :now)",
                                 ConditionExpression="attribute_exists(job_id)",
                                 ExpressionAttributeValues={":now": {"S": now_iso()}})
            return True
        except self.ddb.exceptions.ConditionalCheckFailedException:
            return False

    def finished(self, job_id, index):
        """"done" / "failed" if the position already has its result, else None (a strongly consistent read)."""
        item = self.ddb.get_item(TableName=self.table, Key=self.key(job_id, index), ConsistentRead=True,
                                 ProjectionExpression="#s", ExpressionAttributeNames={"#s": "status"}).get("Item")
        return item["status"]["S"] if item else None

    def record(self, job_id, index, pid, fen, analysis=None, error=None):
        """Store a position's result (analysis: AnalysisAnswer, or error: str) and count it, idempotently.

        Returns (outcome, the job item after the count): outcome "recorded", or "duplicate" when the position
        had its result already (the count is re-applied, which changes nothing if it was counted). AWS errors
        propagate: the caller retries.
        """
        status = "done" if error is None else "failed"
        item = {**self.key(job_id, index), "status": {"S": status}, "id": {"S": pid}, "fen": {"S": fen[:200]},
                "finished_at": {"S": now_iso()}, "expires_at": self.expires()}
        if analysis is not None:
            item["analysis"] = {"S": analysis.model_dump_json()}
        if error is not None:
            item["error"] = {"S": error[:2000]}
        outcome = "recorded"
        try:
            self.ddb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(seq)",
                              ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except self.ddb.exceptions.ConditionalCheckFailedException as e:
            outcome = "duplicate"
            old = e.response.get("Item") or {}
            status = old["status"]["S"] if "status" in old else self.finished(job_id, index)
        return outcome, self.count(job_id, index, status)

    def count(self, job_id, index, status):
        """Add the position to the job's done or failed set (idempotent: a set holds each index once). Returns
        the job item after it (jobs/worker.py's finish_review reads whether that made the job complete)."""
        counter = "done_idx" if status == "done" else "failed_idx"
        try:
            return self.ddb.update_item(TableName=self.table, Key=self.key(job_id, JOB_SEQ),
                                        UpdateExpression="ADD #c :i SET updated_at = :now",
                                        ConditionExpression="attribute_exists(job_id)",
                                        ExpressionAttributeNames={"#c": counter}, ReturnValues="ALL_NEW",
                                        ExpressionAttributeValues={":i": {"NS": [str(index)]},
                                                                   ":now": {"S": now_iso()}})["Attributes"]
        except self.ddb.exceptions.ConditionalCheckFailedException:
            raise UnknownJob(job_id) from None

    def put_puzzles(self, job_id, puzzles):
        """Store a review's puzzles (review_report.puzzles_record's text) unless they are there. False when
        another delivery stored them first (their searches are deterministic: the same puzzles)."""
        item = {**self.key(job_id, PUZZLES_SEQ), "puzzles": {"S": puzzles}, "finished_at": {"S": now_iso()},
                "expires_at": self.expires()}
        try:
            self.ddb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(seq)")
            return True
        except self.ddb.exceptions.ConditionalCheckFailedException:
            return False

    def puzzles(self, job_id):
        """A review's stored puzzles (JSON text), or None before they are stored."""
        item = self.ddb.get_item(TableName=self.table, Key=self.key(job_id, PUZZLES_SEQ),
                                 ConsistentRead=True).get("Item")
        return item["puzzles"]["S"] if item else None

    def count_key_job(self, api_key_id, day, limit):
        """Add a job to an API key's count for `day` (days since 1970, UTC) unless it has `limit` already.
        True if counted. The counter is an item of its own (job_id "key#<id>", seq = day), kept two days;
        a job id is a UUID, so no job reads it."""
        try:
            self.ddb.update_item(TableName=self.table, Key=self.key(f"key#{api_key_id}", day),
                                 UpdateExpression="ADD jobs :one SET expires_at = :expires",
                                 ConditionExpression="attribute_not_exists(jobs) OR jobs < :limit",
                                 ExpressionAttributeValues={":one": {"N": "1"}, ":limit": {"N": str(limit)},
                                                            ":expires": {"N": str((day + 2) * 86400)}})
            return True
        except self.ddb.exceptions.ConditionalCheckFailedException:
            return False

    def job_item(self, job_id):
        """The job's item (a strongly consistent read), or None."""
        return self.ddb.get_item(TableName=self.table, Key=self.key(job_id, JOB_SEQ), ConsistentRead=True).get("Item")

    def results(self, job_id, after=-1, limit=DEFAULT_PAGE):
        """([JobResult], next_after): finished positions with index > after, in index order."""
        page = self.ddb.query(TableName=self.table, ConsistentRead=True, Limit=limit,
                              KeyConditionExpression="job_id = :j AND seq > :after",
                              ExpressionAttributeValues={":j": {"S": job_id}, ":after": {"N": str(max(after, -1))}})
        results = []
        for item in page.get("Items", []):
            analysis = item.get("analysis", {}).get("S")
            results.append(JobResult(index=int(item["seq"]["N"]), id=item["id"]["S"], status=item["status"]["S"],
                                     fen=item["fen"]["S"], error=item.get("error", {}).get("S"),
                                     analysis=AnalysisAnswer.model_validate_json(analysis) if analysis else None))
        more = "LastEvaluatedKey" in page and results
        return results, (results[-1].index if more else None)

    def all_results(self, job_id):
        """Every finished position's JobResult, in index order."""
        out, after = [], -1
        while True:
            page, after = self.results(job_id, after, 1000)
            out += page
            if after is None:
                return out
