"""Jobs read from S3 (issue 35), against moto's S3, SQS and DynamoDB: bad sources refused with a 4xx naming
them; a PGN (plain, gzip, zstd), an EPD and a JSONL split into chunks, analysed, and written back as JSONL and
annotated PGN that python-chess reads, every position once; a chunk whose retries run out named in the job's
failures while the rest completes."""

import gzip
import io
import json
import time
import types

import chess
import chess.pgn
import pytest
import zstandard

from kibitz.local.apigateway import proxy_event
from tests.batch_support import s3_stack
from tests.test_review import FISCHER

SHORT = '[Event "short"]\n[White "A"]\n[Black "B"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n'
MATE = '[Event "mate"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
GAMES = (FISCHER + "\n" + SHORT + "\n" + MATE).replace("\n", "\r\n")  # 82 + 7 + 5 positions
EPD = "# two positions\n" + "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - id \"italian\";\n\n" + \
      "8/8/8/8/8/5k2/8/4K2R w K - id \"rook\";\n"
MOVETIME = 5


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with s3_stack(tmp_path_factory.mktemp("s3jobs")) as st:
        yield st


def put(s, key, data):
    s.s3.put_object(Bucket=s.input, Key=key, Body=data if isinstance(data, bytes) else data.encode())
    return f"s3://{s.input}/{key}"


def submit(s, source, fmt, **options):
    return s.post({"source": source, "format": fmt, "movetime_ms": MOVETIME, **options})


def run_pollers(s, job_id, pollers=1, env=None, timeout=180):
    env = {"KIBITZ_CHUNK_POSITIONS": "20", **(env or {})}
    with s.source(pollers=pollers, env=env):
        job = s.wait(job_id, lambda j: j["s3"].output is not None, timeout=timeout, what="the S3 job")
    return job


def output(s, job_id):
    status, state = s.get(job_id)
    assert status == 200, state
    out = state["s3"]["output"]
    lines = [json.loads(x) for x in s.s3.get_object(Bucket=out["bucket"], Key=out["jsonl"])["Body"].read().splitlines()]
    pgn = s.s3.get_object(Bucket=out["bucket"], Key=out["pgn"])["Body"].read().decode() if out["pgn"] else None
    return state, lines, pgn


# --- bad sources ------------------------------------------------------------------------------------


def test_a_bucket_not_granted_is_refused(s):
    status, body = submit(s, "s3://someone-elses-bucket/games.pgn", "pgn")
    assert status == 422 and body["errors"][0]["field"] == "source"
    assert "someone-elses-bucket is not one this deployment reads" in body["errors"][0]["reason"]


def test_a_missing_object_is_refused(s):
    status, body = submit(s, f"s3://{s.input}/nothing/here.pgn", "pgn")
    assert (status, body["errors"][0]["field"]) == (422, "source")
    assert "no object" in body["errors"][0]["reason"]


@pytest.mark.parametrize("data,fmt,says", [
    (EPD, "pgn", "format epd?"),
    (GAMES, "epd", "not EPD"),
    ('{"fen": "x"}\n', "pgn", "format jsonl?"),
    (GAMES, "jsonl", "not JSON"),
    (b"\x00\xff\xfe\x01garbage" * 10, "pgn", "not UTF-8"),
    (b"\x1f\x8b\x08\x00garbage-not-deflate" * 3, "pgn", "does not decompress"),
])
def test_a_wrong_format_is_refused(s, data, fmt, says):
    status, body = submit(s, put(s, f"wrong/{fmt}-{says}", data), fmt)
    assert status == 422 and body["errors"][0]["field"] in ("format", "source"), body
    assert says in body["errors"][0]["reason"]


def test_a_source_over_the_cap_is_refused(s, monkeypatch):
    monkeypatch.setenv("KIBITZ_MAX_SOURCE_BYTES", "100")
    status, body = submit(s, put(s, "big.pgn", GAMES), "pgn")
    assert status == 413 and body["errors"][0]["field"] == "source"
    assert "at most 100 bytes" in body["errors"][0]["reason"]


@pytest.mark.parametrize("body,field", [
    ({"source": "s3://b-bucket/x.pgn"}, "format"),
    ({"source": "s3://b-bucket/x.pgn", "format": "csv"}, "format"),
    ({"source": "http://example.com/x.pgn", "format": "pgn"}, "source"),
    ({"source": "s3://b-bucket/x.pgn", "format": "pgn", "pgn": "1. e4 *"}, "body"),
    ({"source": "s3://b-bucket/x.pgn", "format": "pgn", "puzzles": "yes"}, "puzzles"),
])
def test_bad_fields_name_themselves(s, body, field):
    status, answer = s.post(body)
    assert status == 422 and answer["errors"][0]["field"].endswith(field), answer


def test_puzzles_are_asked_only_of_games(s):
    """`puzzles` goes with a PGN read from S3 (or a review, which always has them); elsewhere a 422 names it."""
    for body, says in (({"source": put(s, "puzzles-of.epd", EPD), "format": "epd"}, "format pgn, not epd"),
                       ({"pgn": SHORT}, "puzzles come with a review")):
        status, answer = s.post({**body, "puzzles": True})
        assert status == 422 and answer["errors"][0]["field"] == "puzzles", answer
        assert says in answer["errors"][0]["reason"], answer


def test_a_job_over_the_search_time_is_refused_at_submission_when_its_first_bytes_say_so(s, monkeypatch):
    monkeypatch.setenv("KIBITZ_MAX_JOB_SEARCH_S", "1")  # JobsFunction's
    status, body = submit(s, put(s, "cap-early.pgn", GAMES), "pgn", movetime_ms=50)
    assert status == 422 and body["errors"][0]["field"] == "source", body
    assert "it holds 94 positions x 50 ms is 4.7 s of search" in body["errors"][0]["reason"]


def test_a_job_over_the_search_time_is_refused_when_split(s):
    status, body = submit(s, put(s, "cap.pgn", GAMES), "pgn", movetime_ms=50)
    assert status == 202  # JobsFunction allows it; the pollers, given a lower bound, refuse it as they split
    job = run_pollers(s, body["job_id"], env={"KIBITZ_MAX_JOB_SEARCH_S": "1"})
    assert job["status"] == "done-with-failures" and job["failed"] == job["total"] == 94
    state, lines, _ = output(s, body["job_id"])
    assert state["s3"]["phase"] == "refused" and lines == []
    assert "MaxJobSearchSeconds" in state["s3"]["failures"][0]["error"]


# --- whole jobs ---------------------------------------------------------------------------------------


def check_pgn_output(lines, pgn, text):
    """Every position once, in order, each the position python-chess reaches; the annotated games read back."""
    assert [x["index"] for x in lines] == list(range(len(lines)))
    games = []
    handle = io.StringIO(text.replace("\r", ""))
    while (g := chess.pgn.read_game(handle)) is not None:
        games.append(g)
    expected = []
    for n, g in enumerate(games, 1):
        board = g.board()
        expected.append((n, 0, board.fen()))
        for ply, move in enumerate(g.mainline_moves(), 1):
            board.push(move)
            expected.append((n, ply, board.fen()))
    got = [(x["game"], x["ply"], x["fen"]) for x in lines]
    assert [(g, p) for g, p, _ in got] == [(g, p) for g, p, _ in expected]
    assert [chess.Board(f).epd() for _, _, f in got] == [chess.Board(f).epd() for _, _, f in expected]
    assert all(x["status"] == "done" and x["analysis"]["best_move"] or x["analysis"]["game_over"] for x in lines)
    annotated = io.StringIO(pgn)
    read = []
    while (g := chess.pgn.read_game(annotated)) is not None:
        assert not g.errors
        read.append(g)
    assert [[m.uci() for m in g.mainline_moves()] for g in read] == \
        [[m.uci() for m in g.mainline_moves()] for g in games]
    assert all(node.eval() is not None for g in read for node in g.mainline())


@pytest.mark.parametrize("compression", ["none", "gzip", "zstd"])
def test_a_pgn_is_analysed_once_a_position_into_jsonl_and_annotated_pgn(s, compression):
    data = GAMES.encode()
    data = gzip.compress(data) if compression == "gzip" else \
        zstandard.ZstdCompressor().compress(data) if compression == "zstd" else data
    status, body = submit(s, put(s, f"games-{compression}.pgn", data), "pgn")
    assert status == 202, body
    job = run_pollers(s, body["job_id"])
    assert (job["status"], job["total"], job["done"], job["failed"]) == ("done", 94, 94, 0)
    state, lines, pgn = output(s, body["job_id"])
    assert state["s3"]["source"]["compression"] == compression
    assert state["s3"]["chunks"]["total"] == 2  # 20 positions a chunk, cut at games: Fischer (82), then 7 + 5
    check_pgn_output(lines, pgn, GAMES)
    assert set(state["s3"]["output"]["urls"]) == {"jsonl", "pgn"}  # no puzzles unless asked
    assert state["s3"]["output"]["puzzles"] is None


def test_a_pgn_s_puzzles_are_written_once_with_its_results(s):
    """A big PGN through S3 with `puzzles` gets the puzzles a review in the body gets (tests/test_puzzles.py): found
    with each chunk's games, joined into puzzles.jsonl; fixed nodes, so the review's marks do not hang on timing."""
    import urllib.request

    from tests.test_review_reasons import SHILLING

    status, body = s.post({"source": put(s, "puzzles.pgn", SHORT + "\n" + SHILLING), "format": "pgn",
                           "nodes": 40_000, "cache": "off", "puzzles": True})
    assert status == 202, body
    run_pollers(s, body["job_id"])
    state, _, _ = output(s, body["job_id"])
    out = state["s3"]["output"]
    text = s.s3.get_object(Bucket=out["bucket"], Key=out["puzzles"])["Body"].read()
    found = [json.loads(x) for x in text.splitlines()]
    assert [(p["game"], p["ply"], p["played_san"], p["solution_san"]) for p in found] == [(2, 12, "Be2", ["Qe2"])]
    assert found[0]["fen"] == "r1b1kbnr/pppp1Npp/8/8/2Bnq3/8/PPPP1P1P/RNBQKR2 w Qkq - 0 7"
    assert "defensiveMove" in found[0]["themes"] and found[0]["before_move"] == "g2e4"
    with urllib.request.urlopen(out["urls"]["puzzles"], timeout=60) as r:  # the presigned URL gives the same
        assert [json.loads(x) for x in r.read().splitlines()] == found

def test_a_gzip_epd_and_jsonl(s):
    status, body = submit(s, put(s, "pos.epd.gz", gzip.compress(EPD.encode())), "epd")
    assert status == 202
    run_pollers(s, body["job_id"])
    _, lines, pgn = output(s, body["job_id"])
    assert pgn is None and [(x["id"], x["line"], x["status"]) for x in lines] == [("italian", 2, "done"),
                                                                                  ("rook", 4, "done")]
    jsonl = '"8/8/8/8/8/5k2/8/4K2R w K - 0 1"\n{"id": "e4", "fen": "startpos", "moves": ["e2e4"]}\n' \
            '{"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}\n'
    status, body = submit(s, put(s, "pos.jsonl", jsonl), "jsonl")
    assert status == 202
    job = run_pollers(s, body["job_id"])
    assert (job["done"], job["failed"]) == (1, 2) or (job["done"], job["failed"]) == (2, 1)
    _, lines, _ = output(s, body["job_id"])
    assert [x["index"] for x in lines] == [0, 1, 2] and lines[2]["status"] == "failed" and "line 3" in lines[2]["error"]


def test_a_split_that_stops_short_goes_on_in_another_invocation(s):
    """KIBITZ_SPLIT_RESERVE_MS larger than any invocation: every link stops after its first block."""
    status, body = submit(s, put(s, "long.pgn", GAMES * 3), "pgn")
    env = {"KIBITZ_SPLIT_BLOCK_BYTES": "700", "KIBITZ_SPLIT_RESERVE_MS": "100000000"}
    job = run_pollers(s, body["job_id"], env=env)
    assert (job["total"], job["done"]) == (282, 282)
    _, lines, pgn = output(s, body["job_id"])
    check_pgn_output(lines, pgn, GAMES * 3)


def test_a_chunk_whose_retries_run_out_is_named_and_the_rest_completes(s):
    """The BatchFunction invoked by hand: the split, then each chunk, one of them poisoned (its object is not the
    one that was split: If-Match fails every time) and on its last delivery."""
    status, body = submit(s, put(s, "poison.pgn", GAMES), "pgn")
    job_id = body["job_id"]
    from tests.test_batch import receive_all

    def invoke(messages, receives="1"):
        for m in messages:
            m["Attributes"]["ApproximateReceiveCount"] = receives
        from kibitz.local.eventsource import sqs_event

        return s.invoke_batch(sqs_event(messages, s.queue_arn, "us-east-1"))

    split = receive_all(s, 1)
    assert invoke(split) == {"batchItemFailures": []}
    chunks = receive_all(s, 1)  # 100 positions a chunk by default: one chunk
    poisoned = json.loads(chunks[0]["Body"])
    poisoned["object"]["etag"] = '"not-the-etag"'
    chunks[0]["Body"] = json.dumps(poisoned)
    answer = invoke(chunks, receives="5")
    assert answer == {"batchItemFailures": [{"itemIdentifier": chunks[0]["MessageId"]}]}
    status, state = s.get(job_id)
    assert state["status"] == "done-with-failures" and state["failed"] == 94
    failure = state["s3"]["failures"][0]
    assert (failure["chunk"], failure["first_index"], failure["positions"]) == (0, 0, 94)
    assert "failed 5 times" in failure["error"] and "games from 1" in failure["where"]
    _, lines, _ = output(s, job_id)
    assert len(lines) == 94 and all(x["status"] == "failed" and "chunk 0" in x["error"] for x in lines)


def test_an_upload_url_takes_a_file(s):
    response = s.call(proxy_event("POST", "/jobs/uploads", headers={"Content-Type": "application/json"},
                                  body=json.dumps({"filename": "games.pgn"})))
    assert response["statusCode"] == 201
    answer = json.loads(response["body"])
    import urllib.request

    req = urllib.request.Request(answer["upload_url"], data=SHORT.encode(), method="PUT",
                                 headers={"Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200
    status, body = submit(s, answer["source"], "pgn")
    assert status == 202, body


def test_two_deliveries_of_a_chunk_leave_the_lines_and_games_of_one(s):
    """The part is one object, written only if absent: the second delivery's lines and games are both dropped."""
    from functions.common.jobs.s3.chunk import put_part, read_part

    key = "concurrent/parts/000000.part"
    assert put_part(s.s3, s.output, key, '{"index":0,"eval":"first"}\n', '[Event "first"]\n', 1, 0)
    assert not put_part(s.s3, s.output, key, '{"index":0,"eval":"second"}\n', '[Event "second"]\n', 1, 0)
    assert read_part(s.s3, s.output, key) == (b'{"index":0,"eval":"first"}\n', b'[Event "first"]\n', b"")


def one_chunk_on_its_last_delivery(s, name):
    """A job of one chunk, split by hand; (job id, the chunk's message received for the 5th and last time)."""
    from kibitz.local.eventsource import sqs_event
    from tests.test_batch import receive_all

    while got := s.sqs.receive_message(QueueUrl=s.queue_url, MaxNumberOfMessages=10).get("Messages"):
        for m in got:  # what earlier tests left (the upload test's job)
            s.sqs.delete_message(QueueUrl=s.queue_url, ReceiptHandle=m["ReceiptHandle"])
    status, body = submit(s, put(s, name, GAMES), "pgn")
    split = receive_all(s, 1)
    split[0]["Attributes"]["ApproximateReceiveCount"] = "1"
    assert s.invoke_batch(sqs_event(split, s.queue_arn, "us-east-1")) == {"batchItemFailures": []}
    chunk = receive_all(s, 1)
    chunk[0]["Attributes"]["ApproximateReceiveCount"] = "5"
    return body["job_id"], sqs_event(chunk, s.queue_arn, "us-east-1")


def test_a_chunk_deferred_on_its_last_delivery_is_named(s, monkeypatch):
    monkeypatch.setenv("KIBITZ_RECORD_MARGIN_MS", str(10**9))  # no invocation has the time
    job_id, event = one_chunk_on_its_last_delivery(s, "deferred.pgn")
    assert len(s.invoke_batch(event)["batchItemFailures"]) == 1  # raised: SQS moves it to the dead-letter queue
    state, lines, _ = output(s, job_id)
    assert state["status"] == "done-with-failures" and state["s3"]["failures"][0]["chunk"] == 0
    assert "deferred 5 times" in state["s3"]["failures"][0]["error"]
    assert len(lines) == 94 and all(x["status"] == "failed" for x in lines)


def test_a_chunk_whose_last_delivery_died_is_named_at_the_next_read(s, monkeypatch):
    """The invocation dies mid-chunk (SystemExit stands for a timeout or a crash: nothing after it runs); once its
    time is past, GET /jobs/{id} counts the chunk's failure and queues a finish message for the output."""
    from functions.common.jobs.s3 import state as s3_state
    from functions.common.jobs.s3 import worker as s3_worker
    from kibitz.local.eventsource import sqs_event
    from tests.test_batch import receive_all

    def dies(*args, **kwargs):
        raise SystemExit("killed")

    job_id, event = one_chunk_on_its_last_delivery(s, "died.pgn")
    monkeypatch.setattr(s3_worker, "analyse_chunk", dies)
    monkeypatch.setattr(s3_worker, "LAST_DELIVERY_SLACK_S", 0)
    # 5 s of invocation time: room for the read below to come before it is up, even on a slow machine (a
    # 1 s window failed once in CI)
    with pytest.raises(SystemExit):
        s.invoke_batch(event, timeout_s=5)
    status, state = s.get(job_id)
    assert state["status"] == "running" and state["s3"]["failures"] == []  # its time is not up yet
    later = time.time() + 6  # the reader's clock past the invocation's end, without waiting for it
    monkeypatch.setattr(s3_state, "time", types.SimpleNamespace(time=lambda: later))
    status, state = s.get(job_id)
    assert state["failed"] == 94 and state["s3"]["phase"] == "writing"
    assert "did not finish" in state["s3"]["failures"][0]["error"]
    finish = receive_all(s, 1)
    assert json.loads(finish[0]["Body"])["kind"] == "finish"
    assert s.invoke_batch(sqs_event(finish, s.queue_arn, "us-east-1")) == {"batchItemFailures": []}
    state, lines, _ = output(s, job_id)
    assert state["status"] == "done-with-failures" and len(lines) == 94


def test_a_job_whose_output_writer_died_is_finished_at_a_later_read(s, monkeypatch):
    """The invocation that counted the last chunk dies before writing the output: once FINISH_AFTER_S has passed
    since that count, GET /jobs/{id} queues a finish message."""
    from functions.common.jobs.s3 import state as s3_state
    from functions.common.jobs.s3 import worker as s3_worker
    from kibitz.local.eventsource import sqs_event
    from tests.test_batch import receive_all

    def dies(*args, **kwargs):
        raise SystemExit("killed")

    job_id, event = one_chunk_on_its_last_delivery(s, "writer-died.pgn")
    event["Records"][0]["attributes"]["ApproximateReceiveCount"] = "1"
    monkeypatch.setattr(s3_worker, "finalize", dies)
    with pytest.raises(SystemExit):
        s.invoke_batch(event)
    monkeypatch.undo()
    status, state = s.get(job_id)
    assert (state["done"], state["s3"]["phase"]) == (94, "writing")
    assert s.depth()[0] == 0  # no finish message yet: the count is too recent
    monkeypatch.setattr(s3_state, "FINISH_AFTER_S", 0)
    s.get(job_id)
    finish = receive_all(s, 1)
    assert s.invoke_batch(sqs_event(finish, s.queue_arn, "us-east-1")) == {"batchItemFailures": []}
    state, lines, pgn = output(s, job_id)
    assert state["status"] == "done" and len(lines) == 94
    check_pgn_output(lines, pgn, GAMES)


def test_the_join_reads_the_parts_in_parallel_and_in_order(s, monkeypatch):
    from functions.common.jobs.s3 import output as s3_output
    from functions.common.jobs.s3.chunk import part_key, put_part

    monkeypatch.setattr(s3_output, "READ_WINDOW", 7)  # windows cut mid-way
    for c in range(20):
        put_part(s.s3, s.output, part_key("joined", c), f'{{"index":{c}}}\n', f"[Round \"{c}\"]\n", 1, 0)
    parts = list(s3_output.read_parts(s.s3, s.output, "joined", [c for c in range(20) if c != 5]))
    assert [lines for lines, _, _ in parts] == [f'{{"index":{c}}}\n'.encode() for c in range(20) if c != 5]
    assert [games for _, games, _ in parts] == [f"[Round \"{c}\"]\n".encode() for c in range(20) if c != 5]
