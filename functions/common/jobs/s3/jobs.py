"""A job read from S3, in the results table: its item counts chunks, not positions.

    job_id (S)  seq (N)
    <uuid>      -1        the job (jobs/table.py's attributes, with source "s3") and: s3 (the SourceObject, JSON),
                          links (NS: byte offsets the splitter has recorded), split_done, refused, chunks_total,
                          total (positions found), chunk_done / chunk_failed (NS of chunk numbers),
                          pos_done / pos_failed, output (JobOutput, JSON), find_puzzles (BOOL: the request's puzzles)
    <uuid>      -2 - c    chunk c's failure (its retries ran out): where, error, first_index, positions; with
                          pending_until (epoch s) while its last delivery runs: if the chunk is not counted by
                          then, that delivery died (timeout, crash), the message went to the dead-letter queue,
                          and the next read of the job's progress counts the failure (overdue())

Idempotence, as for positions: each split link and each chunk is added to the counts in one update
conditional on its number not being in the set yet, so a redelivered message changes nothing; the
result parts in S3 are written only if absent (jobs/s3/chunk.py).
"""


from functions.common.api.models import SearchLimits
from functions.common.jobs.models import job_status
from functions.common.jobs.s3.models import ChunkCounts, ChunkFailure, JobOutput, S3Progress, SourceObject
from functions.common.jobs.table import JOB_SEQ, Table, now_iso

MAX_FAILURES_SHOWN = 100
FAILURE_SEQ = -2  # chunk c's failure item is FAILURE_SEQ - c


class S3Jobs:
    def __init__(self, store=None):
        self.store = store or Table()
        self.ddb, self.table = self.store.ddb, self.store.table

    def _key(self, job_id, seq=JOB_SEQ):
        return self.store.key(job_id, seq)

    def create(self, job_id, limits, source, puzzles=False):
        item = {**self._key(job_id), "total": {"N": "0"}, "source": {"S": "s3"}, "s3": {"S": source.model_dump_json()},
                "options": {"S": limits.model_dump_json()}, "created_at": {"S": now_iso()},
                "chunks_total": {"N": "0"}, "pos_done": {"N": "0"}, "pos_failed": {"N": "0"},
                "expires_at": self.store.expires()}
        if puzzles:
            item["find_puzzles"] = {"BOOL": True}  # the output has puzzles.jsonl (jobs/s3/output.py)
        self.ddb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(job_id)")

    def item(self, job_id):
        return self.ddb.get_item(TableName=self.table, Key=self._key(job_id), ConsistentRead=True).get("Item")

    def record_split(self, job_id, offset, chunks, positions, done, refused=None):
        """Add one split link's chunks and positions (once per byte offset). Returns the job item after it, or
        None when this link was recorded before."""
        names = {"#t": "total"}
        values = {":o": {"NS": [str(offset)]}, ":c": {"N": str(chunks)}, ":p": {"N": str(positions)},
                  ":d": {"BOOL": done}, ":off": {"N": str(offset)}, ":now": {"S": now_iso()}}
        update = "ADD links :o, chunks_total :c, #t :p SET split_done = :d, updated_at = :now"
        if refused:
            update += ", refused = :r"
            update = update.replace("ADD links :o,", "ADD links :o, pos_failed :p,")
            values[":r"] = {"S": refused}
        try:
            return self.ddb.update_item(TableName=self.table, Key=self._key(job_id), UpdateExpression=update,
                                        ConditionExpression="attribute_exists(job_id) AND NOT contains(links, :off)",
                                        ExpressionAttributeNames=names, ExpressionAttributeValues=values,
                                        ReturnValues="ALL_NEW")["Attributes"]
        except self.ddb.exceptions.ConditionalCheckFailedException:
            return None

    def count_chunk(self, job_id, chunk, done, failed, failure=None):
        """Add a finished chunk (its positions done and failed) once; failure: a ChunkFailure, stored with it.
        Returns the job item after it, or None when the chunk was counted before."""
        if failure is not None:
            item = {**self._key(job_id, FAILURE_SEQ - chunk), "failure": {"S": failure.model_dump_json()},
                    "expires_at": self.store.expires()}
            self.ddb.put_item(TableName=self.table, Item=item)
        values = {":c": {"NS": [str(chunk)]}, ":n": {"N": str(chunk)}, ":d": {"N": str(done)},
                  ":f": {"N": str(failed)}, ":now": {"S": now_iso()}}
        counter = "chunk_failed" if failure is not None else "chunk_done"
        try:
            return self.ddb.update_item(
                TableName=self.table, Key=self._key(job_id),
                UpdateExpression=f"ADD {counter} :c, pos_done :d, pos_failed :f SET updated_at = :now",
                ConditionExpression="attribute_exists(job_id) AND NOT contains(chunk_done, :n) "
                                    "AND NOT contains(chunk_failed, :n)",
                ExpressionAttributeValues=values, ReturnValues="ALL_NEW")["Attributes"]
        except self.ddb.exceptions.ConditionalCheckFailedException:
            return None

    def expect_failure(self, job_id, failure, until_s):
        """Before a chunk's last delivery: its failure, counted by overdue() if the chunk is not counted by then."""
        item = {**self._key(job_id, FAILURE_SEQ - failure.chunk), "failure": {"S": failure.model_dump_json()},
                "pending_until": {"N": str(int(until_s))}, "expires_at": self.store.expires()}
        self.ddb.put_item(TableName=self.table, Item=item)

    def overdue(self, job_id, item, failure_items, now_s):
        """Count the failures whose last delivery died (pending past its time, the chunk not counted). The job
        item after them, or None when there were none."""
        counted = {int(n) for name in ("chunk_done", "chunk_failed") for n in item.get(name, {}).get("NS", [])}
        after = None
        for f in failure_items:
            if "pending_until" in f and int(f["pending_until"]["N"]) < now_s:
                failure = ChunkFailure.model_validate_json(f["failure"]["S"])
                if failure.chunk not in counted:
                    after = self.count_chunk(job_id, failure.chunk, 0, failure.positions, failure) or after
        return after

    def set_output(self, job_id, output):
        self.ddb.update_item(TableName=self.table, Key=self._key(job_id), UpdateExpression="SET #o = :o",
                             ExpressionAttributeNames={"#o": "output"},
                             ExpressionAttributeValues={":o": {"S": output.model_dump_json()}})

    def failure_items(self, job_id, limit=MAX_FAILURES_SHOWN):
        """Up to `limit` failure items, chunk 0 first (pages of 1 MB: the output's join asks for all of them)."""
        items, start = [], None
        while len(items) < limit:
            page = self.ddb.query(TableName=self.table, ConsistentRead=True, Limit=limit - len(items),
                                  ScanIndexForward=False, KeyConditionExpression="job_id = :j AND seq <= :s",
                                  ExpressionAttributeValues={":j": {"S": job_id}, ":s": {"N": str(FAILURE_SEQ)}},
                                  **({"ExclusiveStartKey": start} if start else {}))
            items += page.get("Items", [])
            if not (start := page.get("LastEvaluatedKey")):
                break
        return items

    def failures(self, job_id, limit=MAX_FAILURES_SHOWN, items=None):
        """The counted failures (not those still pending)."""
        items = self.failure_items(job_id, limit) if items is None else items
        return [ChunkFailure.model_validate_json(i["failure"]["S"]) for i in items if "pending_until" not in i]


def counts(item):
    """(chunks total, chunks done, chunks failed, split done, complete) of a job item."""
    total = int(item.get("chunks_total", {}).get("N", "0"))
    done = len(item.get("chunk_done", {}).get("NS", []))
    failed = len(item.get("chunk_failed", {}).get("NS", []))
    split = item.get("split_done", {}).get("BOOL", False)
    return total, done, failed, split, split and done + failed >= total


def progress(item, failures, output_urls=None):
    """(the job's counts and status for job_store.Store.job(), S3Progress) of an S3 job's item."""
    total_chunks, done_chunks, failed_chunks, split, complete = counts(item)
    total = int(item["total"]["N"])
    done, failed = int(item["pos_done"]["N"]), int(item["pos_failed"]["N"])
    refused = item.get("refused", {}).get("S")
    output = JobOutput.model_validate_json(item["output"]["S"]) if "output" in item else None
    if output is not None and output_urls is not None:
        output = output.model_copy(update=output_urls(output))
    if refused:
        failures = [ChunkFailure(chunk=-1, first_index=0, positions=total, where="the whole source", error=refused),
                    *failures]
    phase = ("refused" if refused else "done" if output else "writing" if complete else
             "analysing" if split else "splitting")
    started = item.get("started_at", {}).get("S")
    status = job_status(total, done, failed, started) if complete and output else \
        ("running" if started or done or failed else "queued")
    s3 = S3Progress(source=SourceObject.model_validate_json(item["s3"]["S"]), phase=phase,
                    chunks=ChunkCounts(total=total_chunks, done=done_chunks, failed=failed_chunks),
                    failures=failures, output=output)
    return {"status": status, "total": total, "done": done, "failed": failed}, s3


def source_of(item):
    return SourceObject.model_validate_json(item["s3"]["S"])


def job_dict(job_id, item):
    """Store.job()'s dict for an S3 job (its progress under "s3", without URLs)."""
    fields, s3 = progress(item, [])
    return {"job_id": job_id, **fields, "created_at": item["created_at"]["S"],
            "started_at": item.get("started_at", {}).get("S"), "updated_at": item.get("updated_at", {}).get("S"),
            "options": SearchLimits.model_validate_json(item["options"]["S"]), "source": "s3", "games": None,
            "s3": s3}
