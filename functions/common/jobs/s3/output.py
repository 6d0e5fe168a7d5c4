"""A finished S3 job's output: its result parts joined, in chunk order, into

    <job_id>/results.jsonl    one line a position, every position once, in index order (a chunk whose
                              retries ran out gives a failed line for each of its positions)
    <job_id>/annotated.pgn    PGN input: every game read, annotated
    <job_id>/puzzles.jsonl    PGN input with `puzzles` asked: the games' puzzles, one line each ({game, ply, fen,
                              solution, ...}, as a review's GET /jobs/{job_id} gives them), found once, with each
                              chunk's results

and presigned GET URLs for GET /jobs/{job_id}. The invocation that counts a job's last chunk (or its last
split link) writes them; writing them again (a redelivery) writes the same bytes.
"""

import json
from concurrent.futures import ThreadPoolExecutor

from functions.common import settings
from functions.common.jobs.s3.chunk import part_key, read_part
from functions.common.jobs.s3.jobs import S3Jobs, counts, source_of
from functions.common.jobs.s3.models import JobOutput
from functions.common.jobs.s3.split import Staged, output_bucket

URL_EXPIRES_S = 3600
READ_THREADS = 16
READ_WINDOW = 128


def finalize(job_id, item, s3, jobs=None):
    """Write the output objects of a job whose chunks are all finished, and record their keys."""
    jobs = jobs or S3Jobs()
    bucket = output_bucket()
    total = counts(item)[0]
    done = {int(n) for n in item.get("chunk_done", {}).get("NS", [])}
    failures = {f.chunk: f for f in jobs.failures(job_id, limit=total + 1)} if total > len(done) else {}
    pgn_input = source_of(item).format == "pgn"
    jsonl = Staged(s3, bucket, f"{job_id}/results.jsonl")
    pgn = Staged(s3, bucket, f"{job_id}/annotated.pgn") if pgn_input else None
    asked = pgn_input and item.get("find_puzzles", {}).get("BOOL", False)
    puzzles = Staged(s3, bucket, f"{job_id}/puzzles.jsonl") if asked else None
    try:
        parts = read_parts(s3, bucket, job_id, sorted(done))
        for chunk in range(total):
            if chunk in done:
                lines, games, found = next(parts)
                jsonl.write(lines)
                if pgn is not None:
                    pgn.write(games + (b"\n" if games else b""))
                if puzzles is not None:
                    puzzles.write(found)
            elif chunk in failures:
                f = failures[chunk]
                jsonl.write("".join(json.dumps({"index": f.first_index + k, "id": None, "game": None, "ply": None,
                                                "line": None, "status": "failed", "fen": None, "analysis": None,
                                                "error": f"chunk {chunk} ({f.where}): {f.error}"},
                                               separators=(",", ":")) + "\n"
                                    for k in range(f.positions)).encode())
        jsonl.close()
        for staged in (pgn, puzzles):
            if staged is not None:
                staged.close()
    except BaseException:
        jsonl.abort()
        for staged in (pgn, puzzles):
            if staged is not None:
                staged.abort()
        raise
    output = JobOutput(bucket=bucket, jsonl=jsonl.key, pgn=pgn.key if pgn else None,
                       puzzles=puzzles.key if puzzles else None, urls={}, urls_expire_in_s=URL_EXPIRES_S)
    jobs.set_output(job_id, output)
    return output


def read_parts(s3, bucket, job_id, chunks):
    """(lines, games, puzzles) of each chunk's part, in order. READ_THREADS GETs at once: one after another, the
    parts of a large job (tens of thousands) would not be read in one invocation's 300 s."""
    with ThreadPoolExecutor(READ_THREADS) as pool:
        for i in range(0, len(chunks), READ_WINDOW):  # a window at a time: memory holds no more than it
            yield from pool.map(lambda c: read_part(s3, bucket, part_key(job_id, c)), chunks[i:i + READ_WINDOW])


def presigned(s3):
    """A function giving a JobOutput's URLs (for s3_jobs.progress)."""
    expires = settings.integer("KIBITZ_OUTPUT_URL_EXPIRES_S", URL_EXPIRES_S)

    def urls(output):
        keys = {"jsonl": output.jsonl, **({"pgn": output.pgn} if output.pgn else {}),
                **({"puzzles": output.puzzles} if output.puzzles else {})}
        return {"urls": {name: s3.generate_presigned_url("get_object", Params={"Bucket": output.bucket, "Key": key},
                                                         ExpiresIn=expires) for name, key in keys.items()},
                "urls_expire_in_s": expires}

    return urls
