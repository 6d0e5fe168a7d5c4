"""`kibitz batch`: submit a file of positions as a job, and collect its results.

    kibitz batch submit FILE [--movetime-ms N] [--depth N] [--nodes N] [--multipv N] [--variant chess960]
                             [--url API | --queue-url Q --table T] [--wait] [--format F]
    kibitz batch results JOB_ID [--wait] [--format jsonl|csv|epd] [--output FILE] [--pgn FILE] [--url API | --table T]

A .gz or .zst file, or any with --s3, is uploaded (POST /jobs/uploads, then a PUT to the URL it gives) and
submitted as a job read from S3; its results are its output's JSONL (and with --pgn, the annotated games).

FILE: .epd (one position a line, `id` opcodes kept), .pgn (every position of every game), .txt (one
FEN a line, optionally followed by `moves` and UCI moves; blank lines and # comments skipped), or
.json (a list of FEN strings or {id, fen, moves} objects).

Through the API (--url, default $KIBITZ_URL or http://127.0.0.1:3000, where `kibitz serve` listens),
or straight to AWS (--queue-url and --table, or $KIBITZ_JOBS_QUEUE_URL and $KIBITZ_JOBS_TABLE): JobsFunction's
own handler run in this process on them, with your own credentials: its checks, job record, SendMessageBatch
calls and errors (kibitz/clients/jobs.py, the one client of the jobs API).
"""

import csv
import gzip
import io
import json
import os
import pathlib
import sys
import urllib.error
import urllib.request

from kibitz.clients.jobs import ClientError, all_results, explain, served, straight_to, wait
from kibitz.local import template

DEFAULT_URL = "http://127.0.0.1:3000"


# --- reading a file of positions ------------------------------------------------------------------


def read_file(path):
    """(request body without options, {position index: "line N"} for error messages)."""
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".pgn", ".epd", ".json", ".txt"):
        raise ClientError(f"{path}: expected a .epd, .pgn, .txt or .json file, not {suffix or 'no suffix'}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ClientError(f"{path}: {e}") from e
    if suffix == ".pgn":
        return {"pgn": text}, {}
    if suffix == ".epd":
        return {"epd": text}, {}
    if suffix == ".json":
        try:
            positions = json.loads(text)
        except ValueError as e:
            raise ClientError(f"{path}: not valid JSON: {e}") from e
        if not isinstance(positions, list):
            raise ClientError(f"{path}: expected a JSON list of FEN strings or {{id, fen, moves}} objects")
        return {"positions": positions}, {}
    positions, lines = [], {}  # .txt
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fen, _, moves = line.partition(" moves ")
        lines[len(positions)] = f"line {n}"
        item = {"id": f"line {n}", "fen": fen.strip()}
        if moves.strip():
            item["moves"] = moves.split()
        positions.append(item)
    if not positions:
        raise ClientError(f"{path}: no position (one FEN a line)")
    return {"positions": positions}, lines


def options(args):
    out = {}
    for key in ("movetime_ms", "depth", "nodes", "multipv", "variant"):
        value = getattr(args, key, None)
        if value is not None:
            out[key] = value
    return out


# --- where the jobs are: the API, or the table and queue themselves -------------------------------


def api_for(args, submitting=False):
    """The jobs API the arguments name (kibitz/clients/jobs.py): a served one (--url, $KIBITZ_URL, else
    `kibitz serve`'s), or JobsFunction run here on the caller's table and queue (--queue-url, --table)."""
    queue_url = getattr(args, "queue_url", None) or None
    table = getattr(args, "table", None) or None
    if getattr(args, "url", None) and (queue_url or table):
        raise ClientError("give --url, or --queue-url/--table, not both")
    if queue_url or table:
        table = table or os.environ.get("KIBITZ_JOBS_TABLE")
        if not table:
            raise ClientError("--queue-url needs the results table too: --table NAME (or $KIBITZ_JOBS_TABLE)")
        if submitting and not (queue_url or os.environ.get("KIBITZ_JOBS_QUEUE_URL")):
            raise ClientError("--table needs the jobs queue too to submit: --queue-url URL (or "
                              "$KIBITZ_JOBS_QUEUE_URL)")
        return straight_to(table, queue_url, getattr(args, "template", None) or template.TEMPLATE)
    return served(args.url or os.environ.get("KIBITZ_URL") or DEFAULT_URL)


# --- results --------------------------------------------------------------------------------------


def _score(s):
    return (s.get("cp"), s.get("mate")) if s else (None, None)


CSV_COLUMNS = ["index", "id", "status", "fen", "best_move", "best_move_san", "score_cp", "score_mate",
               "score_white_cp", "score_white_mate", "depth", "seldepth", "nodes", "time_ms", "pv_san", "game_over",
               "error"]


def to_csv(results):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in results:
        a = r.get("analysis") or {}
        cp, mate = _score(a.get("score"))
        wcp, wmate = _score(a.get("score_white"))
        w.writerow([r["index"], r["id"], r["status"], a.get("fen", r["fen"]), a.get("best_move"),
                    a.get("best_move_san"), cp, mate, wcp, wmate, a.get("depth"), a.get("seldepth"), a.get("nodes"),
                    a.get("time_ms"), " ".join(a.get("pv_san") or []), a.get("game_over"), r.get("error")])
    return out.getvalue()


def epd_line(r):
    """A result as an EPD record (engine/epd.py writes it): bm, ce (centipawns, side to move) or dm (moves
    to mate), acd, acn, acs, pv, id, and c0 for a finished game or a failure."""
    from engine.epd import format_epd

    a = r.get("analysis")
    if a is None:
        if len(r["fen"].split()) < 4:
            return f"# {r['index']} {r['id']}: failed: {r.get('error')}"
        return format_epd(r["fen"], [("id", r["id"]), ("c0", f"failed: {r.get('error')}")])
    ops = []
    if a["best_move_san"]:
        ops.append(("bm", a["best_move_san"]))
    score = a["score"]
    if "mate" in score and score["mate"] > 0:
        ops.append(("dm", score["mate"]))
    elif "cp" in score:
        ops.append(("ce", score["cp"]))
    ops += [("acd", a["depth"]), ("acn", a["nodes"]), ("acs", a["time_ms"] / 1000)]
    if a["pv_san"]:
        ops.append(("pv", a["pv_san"]))
    ops.append(("id", r["id"]))
    if a["game_over"]:
        ops.append(("c0", a["game_over"]))
    return format_epd(a["fen"], ops)


def render(results, fmt):
    if fmt == "csv":
        return to_csv(results)
    if fmt == "epd":
        return "".join(epd_line(r) + "\n" for r in results)
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in results)


def summary(state, shown):
    line = (f"job {state['job_id']}: {state['status']}, {state['done']} done, {state['failed']} failed, "
            f"{state['total']} in all")
    if state["status"] not in ("done", "done-with-failures"):
        line += f" ({shown} results so far; --wait waits for the rest)"
    return line


# --- the verbs ------------------------------------------------------------------------------------


S3_SUFFIXES = {".gz": "gzip", ".zst": "zstd"}


def s3_format(path, args):
    """The format of a file sent through S3 (--s3 or --puzzles, or compressed), from its name; else None."""
    path = pathlib.Path(path)
    compressed = path.suffix.lower() in S3_SUFFIXES
    if not (compressed or getattr(args, "s3", False) or getattr(args, "find_puzzles", False)):
        return None
    stem = pathlib.Path(path.stem).suffix.lower() if compressed else path.suffix.lower()
    fmt = {".pgn": "pgn", ".epd": "epd", ".jsonl": "jsonl"}.get(stem)
    if fmt is None:
        raise ClientError(f"{path}: through S3 a file is .pgn, .epd or .jsonl (plain, .gz or .zst)")
    return fmt


def file_bytes(path):
    """The file's bytes, decompressed if it is .gz or .zst (to count its positions)."""
    data = pathlib.Path(path).read_bytes()
    kind = S3_SUFFIXES.get(pathlib.Path(path).suffix.lower())
    try:
        if kind == "gzip":
            return data, gzip.decompress(data)
        if kind == "zstd":
            import zstandard

            return data, zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read()
    except Exception as e:  # bad compressed data: the API's check names it
        raise ClientError(f"{path}: does not decompress as {kind}: {e}") from e
    return data, data


def count_positions(text, fmt):
    """Positions of a PGN, EPD or JSONL text (bytes), as the S3 job's split counts them."""
    from functions.common.jobs.s3.chunking import scan

    return sum(r.positions for r in scan(text, fmt))


def upload(api, name, data, positions, opts):
    """POST /jobs/uploads (with the positions counted, so that a job over the search time is refused before
    the upload), then PUT the bytes to the URL it gives: the job's source."""
    request = {"filename": name, "positions": positions}
    limits = {k: v for k, v in opts.items() if k in ("movetime_ms", "depth", "nodes")}
    if limits:
        request["options"] = limits
    status, answer = api.upload(request)
    if status != 201:
        raise ClientError("\n".join(explain(status, answer)))
    if len(data) > answer["max_bytes"]:
        raise ClientError(f"{name}: {len(data)} bytes; this deployment takes at most {answer['max_bytes']}")
    req = urllib.request.Request(answer["upload_url"], data=data, method="PUT",
                                 headers={"Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(req, timeout=600):
            pass
    except (urllib.error.URLError, OSError) as e:
        raise ClientError(f"uploading {name}: {e}") from e
    return answer["source"]


def over_body_limits(body, opts):
    """Why a job of this body would be refused for its size (its positions, its bytes), or None."""
    from functions.common.jobs.limits import MAX_POSITIONS
    from functions.common.jobs.models import MAX_JOB_BODY_BYTES

    if "pgn" in body:
        positions = count_positions(body["pgn"].encode(), "pgn")
    elif "epd" in body:
        positions = count_positions(body["epd"].encode(), "epd")
    else:
        positions = len(body["positions"])
    if positions > MAX_POSITIONS:
        return f"{positions} positions, over the {MAX_POSITIONS} a job may send in its body"
    size = len(json.dumps({**body, **opts}).encode())
    if size > MAX_JOB_BODY_BYTES:
        return f"{size} bytes of request, over the {MAX_JOB_BODY_BYTES} a job may send"
    return None


def as_s3_file(path, body):
    """(name, format, bytes) of a file read for the body, to send through S3 instead: .pgn and .epd as they
    are, a list of positions (.txt, .json) as JSON lines."""
    name = pathlib.Path(path).name
    if "pgn" in body or "epd" in body:
        fmt = "pgn" if "pgn" in body else "epd"
        return name, fmt, pathlib.Path(path).read_bytes()
    text = "".join(json.dumps(item, separators=(",", ":")) + "\n" for item in body["positions"])
    return pathlib.Path(name).with_suffix(".jsonl").name, "jsonl", text.encode()


def submit_command(args):
    try:
        api = api_for(args, submitting=True)
        opts = options(args)
        fmt = s3_format(args.file, args)
        lines, name = {}, pathlib.Path(args.file).name
        if fmt is not None:
            data, text = file_bytes(args.file)
        else:
            body, lines = read_file(args.file)
            too_big = over_body_limits(body, opts)
            if too_big is not None:  # the way that has no such limit (issue 69.3)
                if not api.takes_uploads:
                    raise ClientError(f"{args.file}: {too_big}: such a file goes as a job read from S3, through "
                                      f"the API (--url, not --queue-url/--table)")
                name, fmt, data = as_s3_file(args.file, body)
                text = data
                print(f"kibitz: {args.file}: {too_big}: sent through S3 instead (as --s3 does)", file=sys.stderr)
        if fmt is not None:
            if not api.takes_uploads:
                raise ClientError("a file sent through S3 goes through the API (--url)")
            if getattr(args, "find_puzzles", False) and fmt != "pgn":
                raise ClientError(f"{args.file}: --puzzles: puzzles are found in games (a .pgn), not {fmt}")
            body, lines = {"source": upload(api, name, data, count_positions(text, fmt) or None, opts),
                           "format": fmt}, {}
            if getattr(args, "find_puzzles", False):
                body["puzzles"] = True
        body.update(opts)
        status, answer = api.submit(body)
        if status != 202:
            for line in explain(status, answer, lines):
                print(line, file=sys.stderr)
            print("kibitz: nothing was queued", file=sys.stderr)
            return 1
        job_id = answer["job_id"]
        note = f", {len(answer['not_queued'])} refused by the queue (recorded as failed)" if answer["not_queued"] \
            else ""
        print(f"kibitz: job {job_id}: {answer['queued']} of {answer['total']} positions queued{note}",
              file=sys.stderr)
        if not args.wait:
            print(job_id)
            print(f"kibitz: kibitz batch results {job_id} --wait", file=sys.stderr)
            return 0
        args.job_id = job_id
        return results_command(args)
    except ClientError as e:
        print(f"kibitz: {e}", file=sys.stderr)
        return 1


def results_command(args):
    try:
        api = api_for(args)
        if args.wait:
            wait(api, args.job_id, progress=not args.quiet)
        status, first = api.state(args.job_id, limit=1)
        if status == 200 and first.get("s3"):
            return s3_results(first, args)
        state, results = all_results(api, args.job_id)
        text = render(results, args.format)
        if args.output:
            pathlib.Path(args.output).write_text(text)
        else:
            sys.stdout.write(text)
        print(f"kibitz: {summary(state, len(results))}", file=sys.stderr)
        for r in results:
            if r["status"] == "failed" and not args.quiet:
                print(f"kibitz: position {r['index']} ({r['id']}) failed: {r['error']}", file=sys.stderr)
        return exit_code(state)
    except ClientError as e:
        print(f"kibitz: {e}", file=sys.stderr)
        return 1


def s3_results(state, args):
    """A job read from S3: download its output (JSONL; --pgn FILE the annotated games, --puzzles FILE their
    puzzles) once it is written."""
    out = state["s3"]["output"]
    if out is None:
        raise ClientError(f"{summary(state, 0)}: its output is written when every chunk is finished (--wait)")
    if args.format != "jsonl":
        raise ClientError("a job read from S3 gives its results as JSONL (and annotated PGN): --format jsonl")
    for name, target in (("jsonl", args.output), ("pgn", getattr(args, "pgn", None)),
                         ("puzzles", getattr(args, "puzzles", None))):
        if name not in out["urls"] or (target is None and name != "jsonl"):
            continue
        with urllib.request.urlopen(out["urls"][name], timeout=600) as r:
            data = r.read()
        if target:
            pathlib.Path(target).write_bytes(data)
        else:
            sys.stdout.buffer.write(data)
    print(f"kibitz: {summary(state, state['done'] + state['failed'])}", file=sys.stderr)
    for f in state["s3"]["failures"]:
        if state["s3"]["phase"] == "refused" and f["chunk"] < 0:
            print(f"kibitz: the job was refused: {f['error']}", file=sys.stderr)
        else:
            print(f"kibitz: chunk {f['chunk']} ({f['where']}, {f['positions']} positions) failed: {f['error']}",
                  file=sys.stderr)
    return exit_code(state)


def exit_code(state):
    """1 when the job has failed positions or was refused, else 0 (a job still running: 0, as it may yet)."""
    refused = bool(state.get("s3")) and state["s3"]["phase"] == "refused"
    return 1 if state["failed"] or refused else 0


def add_where(p, queue=True):
    p.add_argument("--url", help=f"the API (default $KIBITZ_URL or {DEFAULT_URL}, where `kibitz serve` listens)")
    if queue:
        p.add_argument("--queue-url", help="send to this SQS queue directly (with --table), not through the API")
    p.add_argument("--table", help="the results table (DynamoDB), to read or write it directly")


def add_output(p):
    p.add_argument("--format", choices=("jsonl", "csv", "epd"), default="jsonl", help="results format (jsonl)")
    p.add_argument("-o", "--output", help="write the results here (default: standard output)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no list of failures")


def add_batch(p):
    sub = p.add_subparsers(dest="batch_command", required=True)
    s = sub.add_parser("submit", help="submit a file of positions as a job; prints the job id",
                       description="Submit a file of positions (.epd, .pgn, .txt: one FEN a line, .json) as a job.")
    s.add_argument("file")
    s.add_argument("--movetime-ms", type=int, help="time per position (default 1000)")
    s.add_argument("--depth", type=int)
    s.add_argument("--nodes", type=int)
    s.add_argument("--multipv", type=int)
    s.add_argument("--variant", help="standard (the default) or chess960: the rules of every position, and of "
                                     "the games of a .pgn without a Variant tag")
    s.add_argument("--wait", action="store_true", help="then wait and print the results, as `batch results --wait`")
    s.add_argument("--s3", action="store_true", help="upload the file (.pgn, .epd, .jsonl; .gz and .zst always go "
                                                     "this way) and analyse it as a job read from S3: no size limit "
                                                     "but the search time's")
    s.add_argument("--puzzles", dest="find_puzzles", action="store_true",
                   help="a .pgn: find its games' puzzles too (sent through S3, as --s3; then `batch results JOB "
                        "--puzzles FILE` writes them): a small search per mistake or blunder, off unless asked")
    add_where(s)
    add_output(s)
    s.set_defaults(batch_run=submit_command)
    r = sub.add_parser("results", help="a job's results (so far, or --wait for all)",
                       description="Print a job's results; with --wait, wait for all of them with a progress bar.")
    r.add_argument("job_id")
    r.add_argument("--wait", action="store_true", help="wait until every position is done or failed")
    r.add_argument("--pgn", help="a job read from S3 from a PGN: write its annotated games here")
    r.add_argument("--puzzles", help="a job read from S3 from a PGN, submitted with --puzzles: write its games' "
                                     "puzzles here (JSON lines)")
    add_where(r, queue=False)
    add_output(r)
    r.set_defaults(batch_run=results_command)


def batch(args):
    return args.batch_run(args)
