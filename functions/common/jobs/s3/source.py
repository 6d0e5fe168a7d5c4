"""A job's source in S3, checked at POST /jobs: a bucket this deployment reads, an object that is there,
not too large, and whose first bytes are the format it is said to be (plain, gzip or zstd).

    info = check_source(request.source, request.format)      # SourceObject, or InputError naming `source`
    upload(request)                                           # UploadAccepted: a presigned PUT into InputBucket

A job's search time (jobs/limits.py) is checked as early as what is known allows: at the upload when the
client counted its positions, at POST /jobs on the positions the object's first bytes already hold (a
lower bound; all of them when the object is that short), and as it is split (jobs/s3/split.py).

Configuration (template.yaml): KIBITZ_INPUT_BUCKET (the stack's InputBucket), KIBITZ_EXTRA_INPUT_BUCKET (another
bucket the template grants, or empty), KIBITZ_MAX_SOURCE_BYTES.
"""

import uuid
import zlib

from botocore.exceptions import ClientError

from functions.common import settings
from functions.common.api.http import InputError
from functions.common.api.models import SearchLimits
from functions.common.aws.clients import client
from functions.common.jobs.limits import over_search_time
from functions.common.jobs.s3.chunking import Scanner, check_head
from functions.common.jobs.s3.models import SourceObject, UploadAccepted

DEFAULT_MAX_SOURCE_BYTES = 1024**3  # compressed input is read by one invocation (docs/batch.md, "Limits")
HEAD_BYTES = 64 * 1024
UPLOAD_PREFIX = "uploads/"
UPLOAD_EXPIRES_S = 3600
GZIP, ZSTD = b"\x1f\x8b", b"\x28\xb5\x2f\xfd"


def max_source_bytes():
    return settings.integer("KIBITZ_MAX_SOURCE_BYTES", DEFAULT_MAX_SOURCE_BYTES)


def granted_buckets():
    return [b for b in (settings.text("KIBITZ_INPUT_BUCKET"), settings.text("KIBITZ_EXTRA_INPUT_BUCKET")) if b]


def parse_url(source):
    bucket, _, key = source[len("s3://"):].partition("/")
    return bucket, key


def compression_of(head):
    return "gzip" if head.startswith(GZIP) else "zstd" if head.startswith(ZSTD) else "none"


def decompress_head(head, compression):
    """As much text as the first compressed bytes give (a stream cut short is expected here)."""
    if compression == "gzip":
        return zlib.decompressobj(wbits=47).decompress(head, 4 * HEAD_BYTES)
    if compression == "zstd":
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(head, read_across_frames=True)
        out = b""
        try:
            while len(out) < HEAD_BYTES and (piece := reader.read(HEAD_BYTES)):
                out += piece
        except zstandard.ZstdError:
            if not out:
                raise
        return out
    return head


def check_source(source, fmt, s3=None, chess960=False, limits=None):
    """SourceObject for a job's source, or InputError (422, 413) naming `source` or `format`. chess960: the
    job's variant (its first EPD line is read by it). limits: the job's SearchLimits, checked against the
    positions of the object's first bytes."""
    if fmt is None:
        raise InputError(422, "format", "a source needs its format: pgn, epd or jsonl")
    bucket, key = parse_url(source)
    granted = granted_buckets()
    if bucket not in granted:
        raise InputError(422, "source", f"bucket {bucket} is not one this deployment reads: put the object in "
                                        f"{' or '.join(granted) or 'the stack InputBucket'} (POST /jobs/uploads)")
    s3 = s3 or client("s3")
    try:
        head = s3.head_object(Bucket=bucket, Key=key)
    except ClientError as e:
        code = e.response.get("Error", {}).get("Code")
        if code in ("404", "NoSuchKey", "NotFound"):
            raise InputError(422, "source", f"no object {source}: upload it first") from None
        if code in ("403", "AccessDenied"):
            raise InputError(422, "source", f"{source} cannot be read by this deployment (access denied)") from None
        raise
    size, etag = head["ContentLength"], head["ETag"]
    if size > max_source_bytes():
        raise InputError(413, "source", f"{source} is {size} bytes; this deployment takes at most "
                                        f"{max_source_bytes()} bytes a source (KIBITZ_MAX_SOURCE_BYTES)")
    if size == 0:
        raise InputError(422, "source", f"{source} is empty")
    first = s3.get_object(Bucket=bucket, Key=key, IfMatch=etag, Range=f"bytes=0-{HEAD_BYTES - 1}")["Body"].read()
    compression = compression_of(first)
    try:
        text = decompress_head(first, compression).decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(e.object) - 4:  # not just a character cut at the end of the head
            raise InputError(422, "source", f"{source} is not UTF-8 text (byte {e.start}"
                                            f"{' once decompressed' if compression != 'none' else ''})") from None
        text = e.object[:e.start].decode("utf-8")
    except Exception as e:  # zlib.error, zstandard.ZstdError: bad compressed data
        raise InputError(422, "source", f"{source} starts as {compression} but does not decompress: {e}") from None
    reason = check_head(text.lstrip("\ufeff"), fmt, chess960)
    if reason:
        raise InputError(422, "format", f"{source}: {reason}")
    if limits is not None:
        whole = compression == "none" and size <= HEAD_BYTES
        scanner = Scanner(fmt)
        records = scanner.feed(text.encode()) + (scanner.finish() if whole else [])
        over = over_search_time(sum(r.positions for r in records), limits, more=not whole)
        if over is not None:
            read = f"{len(text.encode())} bytes" + (" decompressed" if compression != "none" else "")
            seen = "it holds" if whole else f"its first {read} hold"
            raise InputError(422, "source", f"{source}: {seen} {over}")
    return SourceObject(bucket=bucket, key=key, etag=etag, size=size, format=fmt, compression=compression)


def upload(request, s3=None):
    """A presigned PUT URL for a new key under InputBucket/uploads/ (an UploadRequest); InputError 422 naming
    `positions` when the positions it says the file holds are over the search time a job may ask."""
    filename = request.filename
    if request.positions is not None:
        over = over_search_time(request.positions, request.options or SearchLimits())
        if over is not None:
            raise InputError(422, "positions", f"{over}; nothing was uploaded")
    bucket = settings.required("KIBITZ_INPUT_BUCKET", "the stack's InputBucket")
    key = f"{UPLOAD_PREFIX}{uuid.uuid4()}/{filename}"
    url = (s3 or client("s3")).generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": key},
                                                       ExpiresIn=UPLOAD_EXPIRES_S)
    return UploadAccepted(source=f"s3://{bucket}/{key}", upload_url=url, expires_in_s=UPLOAD_EXPIRES_S,
                          max_bytes=max_source_bytes())
