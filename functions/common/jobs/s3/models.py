"""The jobs API's models for jobs read from S3 (issue 35): the request's `source` and `format`, the
upload an S3 job may start with, and what GET /jobs/{job_id} adds for such a job (`s3`).

functions/common/jobs/models.py's JobSource and JobState carry these as optional fields; the work is in
jobs/s3/source.py (checking a source), jobs/s3/split.py (cutting it into chunks), jobs/s3/chunk.py (analysing one) and
jobs/s3/output.py (the output objects).
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from functions.common.api.models import SearchLimits
from functions.common.jobs.s3.chunking import FORMATS

SOURCE_PATTERN = r"^s3://[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]/.+$"
Format = Literal[FORMATS]
Phase = Literal["splitting", "analysing", "writing", "done", "refused"]


class SourceFields(BaseModel):
    """POST /jobs fields naming an object in S3 instead of giving the positions in the body."""

    source: str | None = Field(None, max_length=1100, pattern=SOURCE_PATTERN,
                               description="s3://bucket/key of a PGN, EPD or JSONL object (plain, gzip or zstd): the "
                                           "stack's InputBucket, or a bucket the deployment grants "
                                           "(POST /jobs/uploads gives a URL to put a file there)",
                               examples=["s3://kibitz-input-123/uploads/games.pgn.gz"])
    format: Format | None = Field(None, description="with source: pgn (every position of every game), epd (one "
                                                    "position a line), jsonl (a FEN string or {id, fen, moves} a "
                                                    "line)")


class SourceObject(BaseModel):
    bucket: str
    key: str
    etag: str = Field(description="the object as it was checked: a chunk read from another version fails")
    size: int = Field(description="bytes, as stored")
    format: Format
    compression: Literal["none", "gzip", "zstd"]


class ChunkCounts(BaseModel):
    total: int = Field(description="chunks found so far (all of them once split is done)")
    done: int
    failed: int


class ChunkFailure(BaseModel):
    chunk: int
    first_index: int = Field(description="its positions are first_index .. first_index + positions - 1")
    positions: int
    where: str = Field(description="the games or lines it holds, and its byte range")
    error: str


class JobOutput(BaseModel):
    bucket: str
    jsonl: str = Field(description="key of the results: one line a position, in index order")
    pgn: str | None = Field(description="key of the annotated games (PGN input), else null")
    puzzles: str | None = Field(None, description="key of the games' puzzles (PGN input, with `puzzles` asked), "
                                                  "one JSON line each: {game, ply, fen, solution, ...} as a review's "
                                                  "summary has them; else null")
    urls: dict[str, str] = Field(description="presigned GET URLs of the keys above")
    urls_expire_in_s: int


class S3Progress(BaseModel):
    """What GET /jobs/{job_id} answers, besides the counts, for a job read from S3."""

    source: SourceObject
    phase: Phase
    chunks: ChunkCounts
    failures: list[ChunkFailure] = Field(description="chunks that could not be analysed (their retries ran out: "
                                                     "the message is in the dead-letter queue), or why the job was "
                                                     "refused; at most 100")
    output: JobOutput | None = Field(description="once every chunk is finished")


class UploadRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    filename: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._-]+$",
                          description="the file's name, kept in the key (its suffix says nothing to the job: "
                                      "format does)", examples=["games.pgn.gz"])
    positions: int | None = Field(None, ge=1, description="the positions the file holds, if the client counted "
                                                          "them, with the job's `options`: a job over the search "
                                                          "time a job may ask is refused now (422), before the "
                                                          "upload, not once it is split")
    options: SearchLimits | None = Field(None, description="with positions: the job's limits (movetime_ms, depth, "
                                                           "nodes), as POST /jobs will give them",
                                         examples=[{"nodes": 2000}])


class UploadAccepted(BaseModel):
    source: str = Field(description="give this as the job's source once the file is uploaded")
    upload_url: str = Field(description="PUT the file's bytes here (a presigned URL)")
    expires_in_s: int
    max_bytes: int = Field(description="a larger object is refused by POST /jobs")
