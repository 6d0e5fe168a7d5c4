"""Analysing one chunk of a job read from S3 (a `chunk` message, in BatchFunction): a ranged GET of its
bytes, its games or lines read again (functions/common/jobs/s3/chunking.py), every position analysed through
the analysis cache, and its result part written to the output bucket. The positions of a game are searched
in order, from its start, with the game's transposition table and histories kept from one to the next
(engine/game_memory.py, as a UCI game keeps them), so each search starts from what the last one found (issue
69.2; forward rather than backward: even with it at 20 ms, better at 100 ms, docs/batch.md). Their answers are
cached under keys of their own (engine/cache_key.py GAME_TABLE; docs/cache.md says why):

    <job_id>/parts/<chunk>.part    one line a position: {index, id, game, ply, line, status, fen, analysis, error};
                                   then, for PGN input, its games annotated as a review annotates them, then,
                                   when the job asked for them (`puzzles`), their puzzles, one line each: {game,
                                   ply, fen, solution, ...} (engine/puzzles.py, found once here, as a review's
                                   are when it completes: review_report.py)
                                   (metadata: done, failed, jsonl-bytes and pgn-bytes, where the lines and the
                                   games end)

A part is written only if it is not there (If-None-Match), and the chunk is counted once (jobs/s3/jobs.py), so a
message delivered twice, or a poller killed mid-chunk, reports each position once. One object, so the lines
and the games come from the same delivery even when two analyse the chunk at once (their searches differ).
A chunk already counted is not analysed again. A game or line that cannot be read (an illegal move, a bad
FEN) fails its positions, in the part, with the reason; the rest of the chunk goes on.
"""

import json

from botocore.exceptions import ClientError

from engine import cache_key
from engine.annotated_pgn import write_game
from engine.board import Board, IllegalMoveError
from engine.epd import parse_epd
from engine.fen import FenError
from engine.game_memory import GameMemory
from engine.pgn import PgnError, read_games
from engine.puzzles import SEARCH_NODES
from engine.review import review_game
from functions.common import settings
from functions.common.analysis.cache_batch import CacheBatch
from functions.common.analysis.request import analyse_request
from functions.common.jobs.limits import position_cost_ms
from functions.common.jobs.models import PositionIn
from functions.common.jobs.review_report import position_eval, puzzles
from functions.common.jobs.s3.chunking import scan, text_of
from functions.common.jobs.s3.jobs import S3Jobs

DEFAULT_RECORD_MARGIN_MS = 5000
WRITE_BEHIND = 25  # cache entries a handover to the batch's writer (one BatchWriteItem), while the next are searched
PUZZLE_FACTOR = 5  # a game's puzzle search (per mistake or blunder): at most this many times its mean position's


class ChunkDeferred(Exception):
    """Not enough of the invocation left for the chunk's positions: SQS delivers it again."""


def part_key(job_id, chunk):
    return f"{job_id}/parts/{chunk:06d}.part"


def read_part(s3, bucket, key):
    """(jsonl bytes, annotated pgn bytes, puzzle lines' bytes) of a part (a part written before puzzles: none)."""
    o = s3.get_object(Bucket=bucket, Key=key)
    body, cut = o["Body"].read(), int(o["Metadata"]["jsonl-bytes"])
    end = cut + int(o["Metadata"].get("pgn-bytes", len(body) - cut))
    return body[:cut], body[cut:end], body[end:]


def positions_of(fmt, text, record, chess960=False):
    """[(id, game, ply, line, fen, moves, board)] of one record's text, and its game (PGN) or None; or None
    and a reason it cannot be read. chess960: the job's variant (a PGN game's own Variant tag wins, as in
    jobs sent in the body). board: the position's engine.board.Board, its moves as its history."""
    if fmt == "pgn":
        try:
            games = list(read_games(text, chess960=chess960))
        except PgnError as e:
            return None, f"game {record.number}: {e.reason}"
        if len(games) != 1 or len(games[0].moves) + 1 != record.positions:
            return None, f"game {record.number}: its moves could not be read as one game"
        g = games[0]
        try:
            board = Board(g.start_fen, capacity=len(g.moves) + 64, chess960=g.chess960)
            boards = [board.copy()]
            for move in g.moves:  # one board a ply, each from the last: not a game replayed for every ply
                board.push_uci(move)
                boards.append(board.copy())
        except (FenError, IllegalMoveError) as e:
            return None, f"game {record.number}: {e}"
        return [(f"{record.number}.{p}", record.number, p, None, g.start_fen, tuple(g.moves[:p]), boards[p])
                for p in range(len(g.moves) + 1)], g
    line = text.strip()
    try:
        if fmt == "epd":
            fen, ops = parse_epd(line, chess960)
            pid, moves = ops.get("id") or f"line {record.number}", ()
        else:
            item = PositionIn.model_validate(json.loads(line))
            fen, moves = item.fen, tuple(item.moves)
            pid = item.id if item.id is not None else f"line {record.number}"
        board = Board.from_moves(fen, moves, chess960=chess960)
    except (FenError, IllegalMoveError) as e:
        return None, f"line {record.number}: {e}"
    except ValueError as e:  # not JSON, or not a position object
        return None, f"line {record.number}: {str(e).splitlines()[0]}"
    return [(pid, None, None, record.number, fen, moves, board)], None


def analyse(fen, moves, options, cache, board=None, game=None):
    """(AnalysisAnswer, None) or (None, reason): "fen: ...", "moves: ..." as a job's position in the body.
    cache: a CacheBatch (the chunk's entries, read at its start) or None. game: the GameMemory of the game
    whose earlier positions were searched just before (its table and histories kept), or None."""
    try:
        return analyse_request(fen, moves, options, options.movetime_ms, cache, threads=options.threads,
                               chess960=board.chess960 if board is not None else False, board=board,
                               game=game).answer, None
    except ValueError as e:
        return None, str(e)


def annotated(game, answers, number=None, find_puzzles=True):
    """A game's annotated PGN from its positions' answers (a failed one leaves its moves unjudged), and its
    puzzles' lines (JSON, with `number` as their game) as a review's GET /jobs/{job_id} gives them ("" without
    find_puzzles: none searched)."""
    evals = [position_eval(a) for a in answers]
    first_side = "white" if game.start_fen.split()[1] == "w" else "black"
    review = review_game(first_side, game.moves, evals, start_fen=game.start_fen, chess960=game.chess960)
    lines = "".join(json.dumps({"game": number, **p.model_dump()}, separators=(",", ":"), ensure_ascii=False) + "\n"
                    for p in puzzles(game, evals, review, puzzle_nodes(answers))) if find_puzzles else ""
    return write_game(game, evals, review), lines


def puzzle_nodes(answers):
    """The nodes of a game's puzzle searches: engine/puzzles.py's SEARCH_NODES, but at most PUZZLE_FACTOR times
    the mean search of its positions, so that a cheap job (a few thousand nodes a position) is not made several
    times slower by its puzzles (a fixed-node job stays deterministic: its answers' node counts are)."""
    searched = [a.nodes for a in answers if a is not None and a.nodes]
    return min(SEARCH_NODES, PUZZLE_FACTOR * sum(searched) // len(searched)) if searched else SEARCH_NODES


def line_of(index, pid, game, ply, line, fen, answer, error):
    return json.dumps({"index": index, "id": pid, "game": game, "ply": ply, "line": line,
                       "status": "done" if error is None else "failed",
                       "fen": answer.fen if answer is not None else fen,
                       "analysis": json.loads(answer.model_dump_json()) if answer is not None else None,
                       "error": error}, separators=(",", ":"))


def read_chunk(message, s3):
    """The chunk's bytes (its object must be the one that was split: If-Match its ETag)."""
    o = message.object
    return s3.get_object(Bucket=o.bucket, Key=o.key, IfMatch=o.etag,
                         Range=f"bytes={message.start}-{message.end - 1}")["Body"].read()


def run(message, s3, bucket, cache, remaining_ms):
    """Analyse the chunk: (jsonl text, pgn text or None, done, failed, puzzle lines: "" unless the job asked
    for them)."""
    margin = settings.record_margin_ms(DEFAULT_RECORD_MARGIN_MS)
    needed = message.positions * position_cost_ms(message.options)
    if remaining_ms - margin < needed:
        raise ChunkDeferred(f"{remaining_ms - margin} ms left, {needed} ms needed for {message.positions} positions")
    data = read_chunk(message, s3)
    fmt = message.object.format
    records = scan(data, fmt, offset=message.start, number=message.first_number - 1, line=message.first_number - 1)
    read = []  # (record, positions or None, the game or the reason it cannot be read)
    for record in records:
        text = text_of(data[record.start - message.start:record.end - message.start], record.start)
        read.append((record, *positions_of(fmt, text, record, message.variant == "chess960")))
    batch = CacheBatch(cache) if cache is not None else None
    if batch is not None:  # the chunk's entries in as few requests as DynamoDB takes (issue 69.1)
        tables = message.options.tablebases
        batch.read([cache_key.key(p[6], tables, game_table=fmt == "pgn") for _, positions, _ in read if positions
                    for p in positions])
    lines, games, puzzle_lines = [], [], []
    try:
        done, failed = _analyse_records(read, fmt, message, batch, lines, games, puzzle_lines, message.first_index)
    finally:
        if batch is not None:
            batch.wait_behind()  # nothing in flight once the chunk is done (or failed)
    if batch is not None:
        batch.write()
    return ("".join(x + "\n" for x in lines), ("\n".join(games) if fmt == "pgn" else None), done, failed,
            "".join(puzzle_lines))


def _analyse_records(read, fmt, message, batch, lines, games, puzzle_lines, index):
    """run()'s loop: every record's positions analysed, their lines, games and puzzle lines appended. (done,
    failed). The cache entries go to the batch's writer WRITE_BEHIND at a time while the next are searched."""
    done = failed = 0
    for record, positions, extra in read:
        if positions is None:
            for k in range(record.positions):
                lines.append(line_of(index + k, f"{record.number}.{k}" if fmt == "pgn" else f"line {record.number}",
                                     record.number if fmt == "pgn" else None, k if fmt == "pgn" else None,
                                     None if fmt == "pgn" else record.number, None, None, extra))
            index += record.positions
            failed += record.positions
            continue
        answers = []
        memory = GameMemory() if fmt == "pgn" else None  # a game's table, kept from ply to ply
        try:
            for pid, game, ply, line, fen, moves, board in positions:
                answer, error = analyse(fen, moves, message.options, batch, board, memory)
                if batch is not None and len(batch.queued) >= WRITE_BEHIND:
                    batch.write_behind()
                answers.append(answer)
                lines.append(line_of(index, pid, game, ply, line, fen, answer, error))
                index += 1
                done, failed = done + (error is None), failed + (error is not None)
        finally:
            if memory is not None:
                memory.close()  # the table goes back to the pool
        if fmt == "pgn":
            text, found = annotated(extra, answers, record.number, message.puzzles)
            games.append(text)
            puzzle_lines.append(found)
    return done, failed


def put_part(s3, bucket, key, jsonl, pgn, done, failed, puzzles=""):
    """Write a part unless it is there. False when another delivery wrote it first."""
    lines, games = jsonl.encode(), (pgn or "").encode()
    try:
        s3.put_object(Bucket=bucket, Key=key, Body=lines + games + puzzles.encode(), IfNoneMatch="*",
                      Metadata={"done": str(done), "failed": str(failed), "jsonl-bytes": str(len(lines)),
                                "pgn-bytes": str(len(games))})
        return True
    except ClientError as e:
        if e.response.get("Error", {}).get("Code") in ("PreconditionFailed", "412", "ConditionalRequestConflict"):
            return False
        raise


def part_counts(s3, bucket, key):
    """(done, failed) of a part that is there, or None."""
    try:
        meta = s3.head_object(Bucket=bucket, Key=key)["Metadata"]
    except ClientError as e:
        if e.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
            return None
        raise
    return int(meta["done"]), int(meta["failed"])


def analyse_chunk(message, s3, bucket, cache, remaining_ms, jobs=None):
    """Analyse, write and count a chunk. Returns (event, job item after the count or None if counted before)."""
    jobs = jobs or S3Jobs()
    job_id, chunk = message.job_id, message.chunk
    key = part_key(job_id, chunk)
    already = part_counts(s3, bucket, key)
    if already is not None:  # a redelivery, or a duplicate: the part stands, make sure it is counted
        return "redelivered", jobs.count_chunk(job_id, chunk, *already)
    jsonl, pgn, done, failed, found = run(message, s3, bucket, cache, remaining_ms)
    if not put_part(s3, bucket, key, jsonl, pgn, done, failed, found):
        done, failed = part_counts(s3, bucket, key)
        return "duplicate", jobs.count_chunk(job_id, chunk, done, failed)
    return "analysed", jobs.count_chunk(job_id, chunk, done, failed)
