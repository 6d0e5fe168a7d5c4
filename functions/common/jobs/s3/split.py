"""Cutting a job's S3 source into chunks (a `split` message, in BatchFunction): read the object in order,
find its games or lines (functions/common/jobs/s3/chunking.py), group them into chunks of about KIBITZ_CHUNK_POSITIONS
positions, send one `chunk` message each, and record how many there are.

Plain objects are read with ranged GETs of BLOCK bytes, and an invocation whose time runs short stops at
a chunk's end and queues a `split` message that goes on from there: no invocation reads more than it can
in its time, whatever the size. Compressed objects (gzip, zstd) cannot be read from the middle, so one
invocation reads the whole stream once, decompresses it, and writes the text to the output bucket
(<job_id>/input.<format>), whose byte ranges the chunks then name: the chunks read it as they read a plain
source. That invocation's timeout bounds a compressed source (docs/batch.md, "Limits").

The job's search time is checked as positions are found: past KIBITZ_MAX_JOB_SEARCH_S (MaxJobSearchSeconds)
the job is refused, and no chunk of the link that found it is sent.
"""

import zlib

from functions.common import settings
from functions.common.jobs.limits import over_search_time, position_cost_ms
from functions.common.jobs.s3.chunking import Chunker, Scanner
from functions.common.jobs.s3.jobs import S3Jobs, counts, source_of
from functions.common.jobs.s3.messages import ChunkMessage, SplitMessage, Where, send
from functions.common.jobs.table import UnknownJob

BLOCK = 8 * 1024 * 1024  # bytes a ranged GET; and a staged part (S3's multipart parts are 5 MiB at least)
DEFAULT_CHUNK_POSITIONS = 100
DEFAULT_CHUNK_SEARCH_S = 25  # a chunk's positions x their cost (jobs/limits.py): BatchSize (10) chunks fit 300 s
SPLIT_RESERVE_MS = 30_000  # stop splitting when less than this is left of the invocation
MAX_CHUNKS = 40_000  # the job item's sets of chunk numbers stay well inside DynamoDB's 400 KB


def chunk_target(cost_ms):
    """Positions a chunk: cost_ms is what one position may spend (jobs/limits.py position_cost_ms)."""
    positions = settings.integer("KIBITZ_CHUNK_POSITIONS", DEFAULT_CHUNK_POSITIONS)
    seconds = settings.number("KIBITZ_CHUNK_SEARCH_S", DEFAULT_CHUNK_SEARCH_S)
    return max(1, min(positions, int(seconds * 1000 // cost_ms)))


def output_bucket():
    return settings.required("KIBITZ_OUTPUT_BUCKET", "the stack's OutputBucket")


def plain_blocks(s3, where, offset, size):
    block = settings.integer("KIBITZ_SPLIT_BLOCK_BYTES", BLOCK)
    while offset < size:
        end = min(size, offset + block) - 1
        data = s3.get_object(Bucket=where.bucket, Key=where.key, IfMatch=where.etag,
                             Range=f"bytes={offset}-{end}")["Body"].read()
        yield data
        offset += len(data)


def decompressed_blocks(s3, where):
    body = s3.get_object(Bucket=where.bucket, Key=where.key, IfMatch=where.etag)["Body"]
    if where.compression == "zstd":
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True)
        while piece := reader.read(BLOCK):
            yield piece
        return
    d = zlib.decompressobj(wbits=47)
    for raw in iter(lambda: body.read(BLOCK), b""):
        while raw:
            yield d.decompress(raw)
            raw = b""
            if d.eof:  # a gzip file may hold several members, one after another
                raw, d = d.unused_data, zlib.decompressobj(wbits=47)
    yield d.flush()


class Staged:
    """The decompressed text written to the output bucket as it comes (a multipart upload, BLOCK a part)."""

    def __init__(self, s3, bucket, key):
        self.s3, self.bucket, self.key = s3, bucket, key
        self.buffer, self.parts, self.upload = b"", [], None

    def write(self, data):
        self.buffer += data
        if len(self.buffer) >= BLOCK:
            self._part(self.buffer)
            self.buffer = b""

    def _part(self, data):
        if self.upload is None:
            self.upload = self.s3.create_multipart_upload(Bucket=self.bucket, Key=self.key)["UploadId"]
        n = len(self.parts) + 1
        etag = self.s3.upload_part(Bucket=self.bucket, Key=self.key, UploadId=self.upload, PartNumber=n,
                                   Body=data)["ETag"]
        self.parts.append({"ETag": etag, "PartNumber": n})

    def close(self):
        """The staged object's ETag."""
        if self.upload is None:
            return self.s3.put_object(Bucket=self.bucket, Key=self.key, Body=self.buffer)["ETag"]
        if self.buffer:
            self._part(self.buffer)
        return self.s3.complete_multipart_upload(Bucket=self.bucket, Key=self.key, UploadId=self.upload,
                                                 MultipartUpload={"Parts": self.parts})["ETag"]

    def abort(self):
        if self.upload is not None:
            self.s3.abort_multipart_upload(Bucket=self.bucket, Key=self.key, UploadId=self.upload)


def split(message, s3, sqs, queue_url, remaining_ms, jobs=None):
    """Do one split link. Returns (chunks sent, positions found, the job item after it or None if the link
    was recorded before)."""
    jobs = jobs or S3Jobs()
    job = jobs.item(message.job_id)
    if job is None:
        raise UnknownJob(message.job_id)
    found_before = int(job["total"]["N"])
    size = source_of(job).size
    where = message.source
    cost_ms = position_cost_ms(message.options)
    scanner = Scanner(where.format, message.offset, message.number, message.line)
    chunker = Chunker(chunk_target(cost_ms), message.chunk, message.index)
    chunks, stop_at = [], None
    staged = None
    if where.compression != "none":
        staged = Staged(s3, output_bucket(), f"{message.job_id}/input.{where.format}")
        blocks = decompressed_blocks(s3, where)
    else:
        blocks = plain_blocks(s3, where, message.offset, size)
    reserve_ms = settings.integer("KIBITZ_SPLIT_RESERVE_MS", SPLIT_RESERVE_MS)
    try:
        for block in blocks:
            if staged is not None:
                staged.write(block)
            for record in scanner.feed(block):
                if (c := chunker.add(record)) is not None:
                    chunks.append(c)
            if staged is None and chunks and remaining_ms() < reserve_ms:
                stop_at = chunks[-1]  # a continuation goes on from its end; what follows it here is read again
                break
        else:
            for record in scanner.finish():
                if (c := chunker.add(record)) is not None:
                    chunks.append(c)
            if (c := chunker.finish()) is not None:
                chunks.append(c)
        target = where
        if staged is not None:
            target = Where(bucket=staged.bucket, key=staged.key, etag=staged.close(), format=where.format)
    except BaseException:
        if staged is not None:
            staged.abort()
        raise
    positions = sum(c.positions for c in chunks)
    refused = None
    total = found_before + positions
    if (over := over_search_time(total, message.options, more=stop_at is not None)) is not None:
        refused = f"{over}; nothing more is analysed"
    elif chunks and chunks[-1].number >= MAX_CHUNKS:
        refused = f"more than {MAX_CHUNKS} chunks in one job; nothing more is analysed"
    elif total == 0 and stop_at is None:
        refused = f"no position in s3://{where.bucket}/{where.key} (format {where.format})"
    if refused is None:
        send(sqs, queue_url, [ChunkMessage(job_id=message.job_id, chunk=c.number, object=target, start=c.start,
                                           end=c.end, positions=c.positions, first_number=c.first_number,
                                           first_index=c.first_index, options=message.options,
                                           variant=message.variant, puzzles=message.puzzles) for c in chunks])
        if stop_at is not None:
            send(sqs, queue_url, [SplitMessage(job_id=message.job_id, source=where, offset=stop_at.end,
                                               chunk=stop_at.number + 1, index=stop_at.first_index + stop_at.positions,
                                               number=stop_at.last_number, line=stop_at.last_number,
                                               options=message.options, variant=message.variant,
                                               puzzles=message.puzzles)])
    after = jobs.record_split(message.job_id, message.offset, 0 if refused else len(chunks), positions,
                              done=stop_at is None or refused is not None, refused=refused)
    return (0 if refused else len(chunks)), positions, after


def complete(item):
    return item is not None and counts(item)[4]
