"""The analysis cache a chunk at a time (functions/common/analysis/cache_batch.py, issue 69.1), against moto
on 127.0.0.1: a chunk's entries read in BatchGetItem requests of 100 keys and written in BatchWriteItem
requests of 25; what DynamoDB leaves unprocessed, or throttles, is tried again; a table that keeps failing
costs the cache, never a position; another writer's entry is kept as a failed compare-and-swap keeps it."""


import json

import pytest

from engine.board import Board
from engine.cache_key import key as cache_key
from functions.common.analysis.cache import analyse_cached
from functions.common.analysis.cache_batch import CacheBatch
from functions.common.analysis.cache_store import BACKOFF_MS, CacheStore
from functions.common.api.models import SearchLimits
from functions.common.aws.dynamodb_lite import DynamoDB, DynamoDBError
from tests.batch_support import moto_env

DEPTH = SearchLimits(movetime_ms=10_000, depth=2)


@pytest.fixture(scope="module")
def aws():
    with moto_env("b") as local:
        yield local


@pytest.fixture(autouse=True)
def empty_table(aws):
    """Each test starts from an empty cache: the walks below share their first positions."""
    ddb = aws.client("dynamodb")
    for item in ddb.scan(TableName=table(aws), ProjectionExpression="#p",
                         ExpressionAttributeNames={"#p": "position"})["Items"]:
        ddb.delete_item(TableName=table(aws), Key={"position": item["position"]})


def boards(n, seed):
    """n distinct positions: a walk from the start, the move chosen by the seed, back to the start at 30 plies."""
    out, seen, board, i = [], set(), Board(), seed
    while len(out) < n:
        moves = board.legal_moves()
        if not moves or board.ply >= 30:
            board, i = Board(), i + 1
            continue
        board.push(moves[(i * 7 + board.ply * 13) % len(moves)])
        i += 1
        if cache_key(board) not in seen:
            seen.add(cache_key(board))
            out.append(board.copy())
    return out


class Counting:
    """A DynamoDB client that counts the calls of each operation and can answer as a loaded table does:
    throttle the first `throttle` calls of the batch operations, or send only half of a batch request's
    keys or items and hand the rest back as unprocessed (`unprocessed` times)."""

    def __init__(self, ddb, throttle=0, unprocessed=0, table=None):
        self.ddb, self.throttle, self.unprocessed, self.table = ddb, throttle, unprocessed, table
        self.calls = {}

    def call(self, operation, params):
        self.calls[operation] = self.calls.get(operation, 0) + 1
        if operation.startswith("Batch") and self.throttle:
            self.throttle -= 1
            raise DynamoDBError(400, "ThrottlingException", "Rate of requests exceeds the allowed throughput.")
        if operation.startswith("Batch") and self.unprocessed:
            self.unprocessed -= 1
            request = params["RequestItems"][self.table]
            if operation == "BatchGetItem":
                keys = request["Keys"]
                half, rest = keys[:len(keys) // 2], keys[len(keys) // 2:]
                answer = self.ddb.call(operation, {"RequestItems": {self.table: {**request, "Keys": half}}})
                answer["UnprocessedKeys"] = {self.table: {"Keys": rest}}
            else:
                half, rest = request[:len(request) // 2], request[len(request) // 2:]
                answer = self.ddb.call(operation, {"RequestItems": {self.table: half}})
                answer["UnprocessedItems"] = {self.table: rest}
            return answer
        return self.ddb.call(operation, params)


def table(aws):
    return aws.resources["AnalysisCacheTable"]["Ref"]


def store_of(aws, **faults):
    pauses = []
    store = CacheStore(table(aws), Counting(DynamoDB(2.0), table=table(aws), **faults), sleep=pauses.append)
    return store, pauses


def chunk(store, positions, limits=DEPTH):
    """Analyse positions as an S3 chunk does: read, search through the batch, write. [(found, outcome)], batch."""
    batch = CacheBatch(store)
    batch.read([cache_key(b) for b in positions])
    done = [analyse_cached(None, None, limits, limits.movetime_ms, 16, batch, board=b) for b in positions]
    batch.write()
    return done, batch


def test_a_chunk_reads_in_hundreds_and_writes_in_twenty_fives(aws):
    positions = boards(130, seed=1)
    store, _ = store_of(aws)
    done, batch = chunk(store, positions)
    assert all(found.depth == 2 and not o.cached and o.event == "stored" for found, o in done)
    # 130 keys: 2 BatchGetItem before; after, 2 more to check nothing changed meanwhile and 6 BatchWriteItem
    assert store.ddb.calls == {"BatchGetItem": 4, "BatchWriteItem": 6} and batch.writes == 130
    again, batch = chunk(store_of(aws)[0], positions)
    assert all(o.cached and o.event == "hit" for _, o in again)
    assert [a.best_move for a, _ in again] == [f.best_move for f, _ in done]
    assert batch.store.ddb.calls == {"BatchGetItem": 2}  # nothing new to write
    # the single-position path reads what the batch wrote, and the reverse
    found, o = analyse_cached(None, None, DEPTH, 10_000, 16, CacheStore(table(aws)), board=positions[0])
    assert o.event == "hit" and found.best_move == done[0][0].best_move


def test_what_dynamodb_leaves_unprocessed_or_throttles_is_sent_again(aws):
    positions = boards(60, seed=2)
    store, pauses = store_of(aws, throttle=1, unprocessed=2)
    done, batch = chunk(store, positions)
    assert all(o.event == "stored" for _, o in done)
    assert batch.writes == 60 and batch.given_up == 0 and pauses and set(pauses) <= {ms / 1000 for ms in BACKOFF_MS}
    again, _ = chunk(store_of(aws, unprocessed=1)[0], positions)
    assert all(o.event == "hit" for _, o in again)


def test_a_table_that_keeps_throttling_costs_the_cache_not_a_position(aws):
    positions = boards(30, seed=3)
    store, pauses = store_of(aws, throttle=10_000)
    done, batch = chunk(store, positions)
    assert all(found.depth == 2 and found.best_move and o.event == "unavailable" for found, o in done)
    assert pauses == [ms / 1000 for ms in BACKOFF_MS]  # the read tried 1 + 4 times, then searched without
    assert batch.writes == 0 and store.ddb.calls == {"BatchGetItem": 1 + len(BACKOFF_MS)}
    # keys left unprocessed after every retry: the same, those positions search without the cache
    store, _ = store_of(aws, unprocessed=10_000)
    done, batch = chunk(store, positions[:8])
    assert {o.event for _, o in done} == {"stored", "unavailable"}


def test_a_write_that_fails_loses_only_the_entries(aws):
    positions = boards(10, seed=4)
    store, _ = store_of(aws)
    batch = CacheBatch(store)
    batch.read([cache_key(b) for b in positions])
    done = [analyse_cached(None, None, DEPTH, 10_000, 16, batch, board=b) for b in positions]
    store.ddb.throttle = 10_000
    assert batch.write() == 0 and batch.given_up == 10 and all(f.best_move for f, _ in done)


def test_another_writer_during_the_chunk_keeps_its_entry_and_the_items_other_lines_stay(aws):
    positions = boards(3, seed=5)
    single = CacheStore(table(aws))
    analyse_cached(None, None, SearchLimits(movetime_ms=10_000, depth=2, multipv=2), 10_000, 16, single,
                   board=positions[0])  # positions[0] has an m2 entry before the chunk
    m2 = single.get(cache_key(positions[0]), 2)
    store, _ = store_of(aws)
    batch = CacheBatch(store)
    batch.read([cache_key(b) for b in positions])
    done = [analyse_cached(None, None, DEPTH, 10_000, 16, batch, board=b) for b in positions]
    # meanwhile another function wrote positions[1]'s entry (deeper): the chunk's is not written over it
    theirs, o = analyse_cached(None, None, SearchLimits(movetime_ms=10_000, depth=4), 10_000, 16, single,
                               board=positions[1])
    assert o.event == "stored"
    assert batch.write() == 2 and batch.raced == 1
    assert single.get(cache_key(positions[0]), 2) == m2  # the item's other line kept
    assert single.get(cache_key(positions[0]), 1) is not None
    found, o = analyse_cached(None, None, SearchLimits(movetime_ms=10_000, depth=4), 10_000, 16, single,
                              board=positions[1])
    assert o.event == "hit" and found.depth == 4 and [f.depth for f, _ in done] == [2, 2, 2]


def test_a_position_twice_in_a_chunk_is_searched_once_and_written_once(aws):
    position = boards(1, seed=6)[0]
    store, _ = store_of(aws)
    done, batch = chunk(store, [position, position.copy()])
    assert [o.event for _, o in done] == ["stored", "hit"] and batch.writes == 1 and batch.raced == 0


# --- a game's table kept from ply to ply (issue 69.2) --------------------------------------------------


GAME_DEPTH = SearchLimits(movetime_ms=10_000, depth=7, threads=1)  # one thread: fixed-depth searches repeat


def test_a_chunks_game_is_searched_in_order_with_its_table_kept_and_cached_under_its_own_keys(aws):
    """chunk.run on a PGN chunk: each position of the game after the first starts from the last one's table
    (fewer nodes to the same depth than a fresh table, summed over the game); the answers are cached under
    keys flagged GAME_TABLE, which a search of the position alone never reads, and a second run hits them."""
    from engine.cache_key import GAME_TABLE
    from functions.common.jobs.s3 import chunk as chunks
    from functions.common.jobs.s3.messages import ChunkMessage, Where
    from tests.test_review import FISCHER

    s3, bucket = aws.client("s3"), aws.resources["OutputBucket"]["Ref"]
    text = FISCHER.encode()
    etag = s3.put_object(Bucket=bucket, Key="game.pgn", Body=text)["ETag"]
    message = ChunkMessage(job_id="j", chunk=0, object=Where(bucket=bucket, key="game.pgn", etag=etag, format="pgn"),
                           start=0, end=len(text), positions=82, first_number=1, first_index=0, options=GAME_DEPTH)

    def run(store):
        jsonl, _, done, failed, _ = chunks.run(message, s3, bucket, store, 10**9)
        assert (done, failed) == (82, 0)
        return [json.loads(x)["analysis"] for x in jsonl.splitlines()]

    store, _ = store_of(aws)
    kept = run(store)
    assert not any(a["cached"] for a in kept)
    ddb = aws.client("dynamodb")
    keys = [i["position"]["S"] for i in ddb.scan(TableName=table(aws))["Items"]]
    assert len(keys) >= 70 and all(k.endswith(" " + GAME_TABLE) for k in keys)  # the mate is never stored
    fresh = run(None)  # the same chunk, no cache: still its table kept; below, each position alone
    assert [a["nodes"] for a in fresh] == [a["nodes"] for a in kept]  # one thread: the same searches
    alone = []
    for a in kept[:-1]:
        found, outcome = analyse_cached(a["fen"], [], GAME_DEPTH, 10_000, 16, CacheStore(table(aws)))
        assert not outcome.cached  # a kept table's entry never answers a search of the position alone
        alone.append(found.nodes)
    assert alone[0] == kept[0]["nodes"]  # the game's first search starts from an empty table too
    assert sum(a["nodes"] for a in kept[1:-1]) < 0.8 * sum(alone[1:])
    again = run(store_of(aws)[0])
    assert all(a["cached"] for a in again[:-1]) and [a["best_move"] for a in again] == [a["best_move"] for a in kept]


def test_a_chunk_finds_its_games_puzzles_only_when_the_job_asked(aws, monkeypatch):
    """chunk.run on a PGN chunk: without the job's `puzzles` no puzzle is searched (the finder is not called) and
    the part has no puzzle lines; with it, the Shilling game's Be2 / Qe2 puzzle (tests/test_s3_jobs.py)."""
    from functions.common.jobs.s3 import chunk as chunks
    from functions.common.jobs.s3.messages import ChunkMessage, Where
    from tests.test_review_reasons import SHILLING

    s3, bucket = aws.client("s3"), aws.resources["OutputBucket"]["Ref"]
    text = SHILLING.encode()
    etag = s3.put_object(Bucket=bucket, Key="shilling.pgn", Body=text)["ETag"]
    limits = SearchLimits(nodes=40_000, threads=1)

    def message(**asked):
        return ChunkMessage(job_id="j", chunk=0, start=0, end=len(text), positions=15, first_number=1, first_index=0,
                            object=Where(bucket=bucket, key="shilling.pgn", etag=etag, format="pgn"), options=limits,
                            **asked)

    found = chunks.puzzles
    calls = []
    monkeypatch.setattr(chunks, "puzzles", lambda *a: calls.append(a) or found(*a))
    jsonl, pgn, done, failed, lines = chunks.run(message(), s3, bucket, None, 10**9)
    assert (done, failed, lines, calls) == (15, 0, "", []) and "Nxf7" in pgn
    _, pgn_asked, _, _, lines = chunks.run(message(puzzles=True), s3, bucket, None, 10**9)
    (puzzle,) = [json.loads(x) for x in lines.splitlines()]
    assert len(calls) == 1 and (puzzle["game"], puzzle["played_san"], puzzle["solution"]) == (1, "Be2", ["d1e2"])
    assert pgn_asked == pgn  # the annotated games are the same either way


def test_entries_written_behind_the_searches_are_those_one_write_gives(aws):
    """write_behind() hands what is queued (25 at a time here, as chunk.run does) to the batch's writer while
    the next positions are searched: the table ends with every entry, each checked and written once (a re-read
    and a BatchWriteItem a handover), a position met again after its handover is answered by what the chunk
    wrote, and nothing is in flight once write() returns. A second chunk of the same positions hits them all."""
    positions = boards(60, seed=7)
    store, _ = store_of(aws)
    batch = CacheBatch(store)
    batch.read([cache_key(b) for b in positions])
    done = []
    for b in positions + positions[:1]:  # the first position again, after its entry was handed over
        done.append(analyse_cached(None, None, DEPTH, DEPTH.movetime_ms, 16, batch, board=b))
        if len(batch.queued) >= 25:
            batch.write_behind()
    assert batch.write() == 60 and batch.writes == 60 and batch.raced == 0 and not batch._pending
    assert [o.event for _, o in done] == ["stored"] * 60 + ["hit"]
    # one read of the chunk's keys, then per handover (25, 25) and for the rest (10) a re-read and a write
    assert store.ddb.calls == {"BatchGetItem": 4, "BatchWriteItem": 3}
    assert aws.client("dynamodb").scan(TableName=table(aws), Select="COUNT")["Count"] == 60
    again, _ = chunk(store_of(aws)[0], positions)
    assert all(o.cached for _, o in again) and [f.best_move for f, _ in again] == [f.best_move for f, _ in done[:60]]
