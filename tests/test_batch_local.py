"""Batch jobs as a user meets them locally: `kibitz serve` (HTTP on 127.0.0.1, embedded moto, pollers)
and `kibitz batch submit` / `kibitz batch results`, and `kibitz invoke` for the batch functions."""

import csv
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import threading
import time

import chess
import chess.pgn
import pytest

from benchmarks.served import children
from tests.batch_support import wac
from tests.conftest import ROOT

KIBITZ = [sys.executable, "-m", "kibitz.cli"]

PGN = """[Event "Opera game"]
[White "Morphy"]
[Black "Duke of Brunswick and Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 {a pin} 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6
15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0
"""
OPERA_POSITIONS = 34  # 33 plies and the start


def kibitz(*args, timeout=180, env=None):
    return subprocess.run([*KIBITZ, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def server():
    env = {k: v for k, v in os.environ.items() if k not in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL")}
    proc = subprocess.Popen([*KIBITZ, "serve", "--port", "0", "--pollers", "2", "--visibility-timeout", "5"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert m, line
        banner = []
        while not banner or "BatchFunction:" not in banner[-1]:
            banner.append(proc.stderr.readline())
            assert banner[-1] and len(banner) < 30, banner
        log = []  # the rest (request lines, the pollers' logs), read so that the pipe never fills
        threading.Thread(target=lambda: log.extend(proc.stderr), daemon=True).start()
        yield {"url": f"http://127.0.0.1:{m.group(1)}", "proc": proc, "banner": banner, "log": log}
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)


def test_serve_lists_the_jobs_routes_the_local_aws_and_the_pollers(server):
    text = "".join(server["banner"])
    assert "POST   http" in text and "/jobs  -> JobsFunction" in text and "/jobs/{job_id}  -> JobsFunction" in text
    assert re.search(r"moto on http://127\.0\.0\.1:\d+", text) and "kibitz-local-JobsQueue" in text
    assert "BatchFunction: 2 poller(s), batch size 10, partial batch responses" in text
    assert len(children(server["proc"].pid)) == 2  # the pollers, one process each


def test_submit_a_pgn_and_wait_for_every_position(server, tmp_path):
    game = tmp_path / "opera.pgn"
    game.write_text(PGN)
    proc = kibitz("batch", "submit", str(game), "--depth", "3", "--url", server["url"], "--wait", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert len(rows) == OPERA_POSITIONS and [r["index"] for r in rows] == [str(i) for i in range(OPERA_POSITIONS)]
    assert rows[0]["id"] == "1.0" and rows[-1]["id"] == "1.33" and rows[-1]["game_over"] == "checkmate"
    board = chess.Board()
    for row, move in zip(rows, ["e2e4", "e7e5", "g1f3"], strict=False):
        assert row["fen"] == board.fen() and row["status"] == "done"
        assert chess.Move.from_uci(row["best_move"]) in board.legal_moves
        board.push_uci(move)
    assert re.search(r"job \S+: done, 34 done, 0 failed, 34 in all", proc.stderr)
    assert "34 of 34 positions queued" in proc.stderr


def test_submit_then_results_in_each_format(server, tmp_path):
    epd = tmp_path / "wac.epd"
    epd.write_text("".join(f"{' '.join(f.split()[:4])} bm x; id \"WAC.{i:03d}\";\n" for i, f in enumerate(wac(6), 1)))
    proc = kibitz("batch", "submit", str(epd), "--depth", "4", "--url", server["url"])
    assert proc.returncode == 0, proc.stderr
    job_id = proc.stdout.strip()
    assert re.fullmatch(r"[0-9a-f-]{36}", job_id) and f"kibitz batch results {job_id} --wait" in proc.stderr
    out = kibitz("batch", "results", job_id, "--wait", "--url", server["url"], "--format", "epd")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 6 and all(re.search(r" bm \S+; (ce -?\d+|dm \d+); acd 4; acn \d+; acs [\d.]+; pv .+; "
                                              r'id "WAC\.00\d";$', line) for line in lines), lines
    out = kibitz("batch", "results", job_id, "--url", server["url"])
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in records] == [f"WAC.00{i}" for i in range(1, 7)]
    assert all(r["status"] == "done" and r["analysis"]["depth"] == 4 for r in records)
    out = kibitz("batch", "results", job_id, "--url", server["url"], "--format", "csv", "-o", str(tmp_path / "r.csv"))
    assert out.returncode == 0 and out.stdout == "" and len((tmp_path / "r.csv").read_text().splitlines()) == 7


def test_bad_files_and_jobs_are_explained(server, tmp_path):
    txt = tmp_path / "fens.txt"
    txt.write_text(f"# three positions\n{wac(1)[0]}\n\n8/8/8/8/8/8/8/8 w - - 0 1\n"
                   f"{chess.STARTING_FEN} moves e2e4 e7e5 e1e2 e8e7 e2e4\n")
    proc = kibitz("batch", "submit", str(txt), "--url", server["url"])
    assert proc.returncode == 1 and "nothing was queued" in proc.stderr
    assert "error 422: line 4 (positions[1].fen): invalid FEN board field" in proc.stderr
    assert "error 422: line 5 (positions[2].moves[4]): e2e4 is not legal" in proc.stderr
    proc = kibitz("batch", "submit", str(tmp_path / "nothing.csv"), "--url", server["url"])
    assert proc.returncode == 1 and "expected a .epd, .pgn, .txt or .json file, not .csv" in proc.stderr
    proc = kibitz("batch", "submit", str(tmp_path / "missing.pgn"), "--url", server["url"])
    assert proc.returncode == 1 and "missing.pgn: [Errno 2] No such file or directory" in proc.stderr


def test_straight_to_the_table_and_queue_is_jobs_function_itself(server, tmp_path):
    """`--queue-url/--table`: JobsFunction's own handler in the client's process, on the served stack's table and
    queue (its moto): the same refusals as through the API, word for word, and a job its pollers analyse."""
    banner = "".join(server["banner"])
    env = {"AWS_ENDPOINT_URL": re.search(r"moto on (http://127\.0\.0\.1:\d+)", banner).group(1),
           "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
           "AWS_DEFAULT_REGION": "us-east-1", "KIBITZ_JOBS_TABLE": "", "KIBITZ_JOBS_QUEUE_URL": ""}
    table = re.search(r"JobsTable +(\S+)", banner).group(1)
    straight = ["--queue-url", re.search(r"JobsQueue +(\S+)", banner).group(1), "--table", table]
    bad = tmp_path / "fens.txt"
    bad.write_text(f"{wac(1)[0]}\n8/8/8/8/8/8/8/8 w - - 0 1\n{chess.STARTING_FEN} moves e2e4 e2e4\n")
    through_api = kibitz("batch", "submit", str(bad), "--url", server["url"])
    here = kibitz("batch", "submit", str(bad), *straight, env=env)
    assert here.returncode == through_api.returncode == 1 and "nothing was queued" in here.stderr
    assert here.stderr == through_api.stderr and "error 422: line 2 (positions[1].fen)" in here.stderr
    good = tmp_path / "wac.epd"
    good.write_text("".join(f"{' '.join(f.split()[:4])} id \"n{i}\";\n" for i, f in enumerate(wac(3))))
    proc = kibitz("batch", "submit", str(good), "--depth", "3", *straight, env=env)
    assert proc.returncode == 0, proc.stderr
    job_id = proc.stdout.strip()
    out = kibitz("batch", "results", job_id, "--wait", "-q", "--url", server["url"])
    assert out.returncode == 0, out.stderr
    assert [(r["id"], r["status"]) for r in map(json.loads, out.stdout.splitlines())] == \
        [("n0", "done"), ("n1", "done"), ("n2", "done")]
    here = kibitz("batch", "results", job_id, "--table", table, env=env)
    assert here.returncode == 0 and here.stdout == out.stdout
    gone = "0badf00d-0000-4000-8000-000000000404"
    here = kibitz("batch", "results", gone, "--table", table, env=env)
    through_api = kibitz("batch", "results", gone, "--url", server["url"])
    assert here.returncode == 1 and here.stderr == through_api.stderr and "error 404: job_id: no job" in here.stderr
    proc = kibitz("batch", "submit", str(good), "--table", table, env=env)
    assert proc.returncode == 1 and "--table needs the jobs queue too" in proc.stderr
    proc = kibitz("batch", "results", "0badf00d-0000-4000-8000-000000000404", "--url", server["url"])
    assert proc.returncode == 1 and "error 404: job_id: no job 0badf00d" in proc.stderr
    proc = kibitz("batch", "results", "x", "--url", "http://127.0.0.1:9")
    assert proc.returncode == 1 and "cannot reach http://127.0.0.1:9" in proc.stderr


FISCHER = (ROOT / "benchmarks" / "data" / "fischer_spassky_1972_game6.pgn").read_text()  # 82 positions
ARCHIVE_GAMES = 104  # Fischer's game 6 and the Opera game in turn: 52 x 82 + 52 x 34 = 6032 positions
ARCHIVE = "\n".join((FISCHER if g % 2 == 0 else PGN).replace('[Event "', f'[Round "{g + 1}"]\n[Event "', 1)
                     for g in range(ARCHIVE_GAMES))
ARCHIVE_POSITIONS = 52 * 82 + 52 * OPERA_POSITIONS


def test_a_pgn_over_the_job_limits_goes_through_s3_by_itself_costed_by_its_nodes(server, tmp_path):
    """Issue 69.3 as a user meets it: `batch submit games.pgn --nodes 2000 --wait`, no other flag, on an archive
    over the 1000 positions a body may carry (and over the search time its default movetime would ask):
    uploaded, split, analysed, every position once."""
    games = tmp_path / "games.pgn"
    games.write_text(ARCHIVE)
    total = ARCHIVE_POSITIONS
    proc = kibitz("batch", "submit", str(games), "--nodes", "2000", "--wait", "--url", server["url"], timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"{total} positions, over the 1000 a job may send in its body: sent through S3" in proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["index"] for x in lines] == list(range(total))
    assert len({x["id"] for x in lines}) == total and lines[0]["id"] == "1.0" and lines[81]["id"] == "1.81"
    assert all(x["status"] == "done" for x in lines), [x for x in lines if x["status"] != "done"][:3]
    assert lines[-1]["analysis"]["game_over"] == "checkmate"  # the Opera game's last position


def test_an_s3_pgn_s_puzzles_are_downloaded_with_its_results(server, tmp_path):
    """`batch submit --puzzles` asks for them (through S3, as --s3); `batch results JOB --puzzles FILE`: a PGN read
    from S3 writes its games' puzzles there (JSON lines)."""
    from tests.test_review_reasons import SHILLING

    game = tmp_path / "shilling.pgn"
    game.write_text(SHILLING)
    proc = kibitz("batch", "submit", str(game), "--puzzles", "--nodes", "40000", "--url", server["url"])
    assert proc.returncode == 0, proc.stderr
    job_id = proc.stdout.strip()
    out = kibitz("batch", "results", job_id, "--wait", "--url", server["url"], "-o", str(tmp_path / "r.jsonl"),
                 "--puzzles", str(tmp_path / "puzzles.jsonl"), timeout=600)
    assert out.returncode == 0, out.stderr
    (puzzle,) = [json.loads(x) for x in (tmp_path / "puzzles.jsonl").read_text().splitlines()]
    assert (puzzle["game"], puzzle["played_san"], puzzle["solution"]) == (1, "Be2", ["d1e2"])
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 15

def test_a_job_over_the_search_time_is_refused_before_the_upload_and_failures_exit_1(server, tmp_path):
    games = tmp_path / "games.pgn"
    games.write_text(ARCHIVE)  # 6032 positions x the default 1000 ms: over the 3600 s a job may ask
    proc = kibitz("batch", "submit", str(games), "--url", server["url"])
    assert proc.returncode == 1, proc.stderr
    assert "error 422: positions: 6032 positions x 1000 ms is 6032 s of search" in proc.stderr
    assert "nothing was uploaded" in proc.stderr
    bad = tmp_path / "bad.pgn"
    bad.write_text(PGN + "\n[Event \"illegal\"]\n\n1. e4 e5 2. Ke3 *\n")
    proc = kibitz("batch", "submit", str(bad), "--s3", "--depth", "2", "--wait", "--url", server["url"])
    assert proc.returncode == 1, proc.stderr  # the second game's positions failed
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["status"] for x in lines] == ["done"] * OPERA_POSITIONS + ["failed"] * 4


CASTLE_MATE = "2rkr3/2p1p3/8/8/8/8/PPP5/RK6 w Q - 0 1"  # Chess960: White mates by O-O-O, king b1 to rook a1


def test_submit_and_review_chess960_with_variant(server, tmp_path):
    fens = tmp_path / "c960.txt"
    fens.write_text(f"{CASTLE_MATE}\n")
    proc = kibitz("batch", "submit", str(fens), "--url", server["url"])  # standard chess: refused, saying why
    assert proc.returncode == 1 and "line 1 (positions[0].fen)" in proc.stderr and "Chess960" in proc.stderr
    proc = kibitz("batch", "submit", str(fens), "--variant", "chess960", "--depth", "3", "--url", server["url"],
                  "--wait", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    (row,) = csv.DictReader(io.StringIO(proc.stdout))
    assert (row["best_move"], row["best_move_san"], row["score_mate"]) == ("b1a1", "O-O-O#", "1")
    proc = kibitz("batch", "submit", str(fens), "--variant", "960", "--url", server["url"])
    assert proc.returncode == 1 and "variant" in proc.stderr and "'standard' or 'chess960'" in proc.stderr
    game = tmp_path / "c960.pgn"  # no Variant tag: --variant says it
    game.write_text('[White "A"]\n[Black "B"]\n[SetUp "1"]\n'
                    '[FEN "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"]\n\n'
                    "1. Nfe3 Nfe6 2. O-O O-O *\n")
    out = tmp_path / "annotated.pgn"
    proc = kibitz("review", str(game), "--variant", "chess960", "--depth", "3", "--url", server["url"], "-q",
                  "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "game 1: A - B (*), 4 plies" in proc.stdout
    read = chess.pgn.read_game(io.StringIO(out.read_text()))
    assert read.headers["Variant"] == "Chess960" and read.board().chess960_pos() == 96
    assert [m.uci() for m in read.mainline_moves()] == ["f1e3", "f8e6", "g1h1", "g8h8"]


def test_stopping_serve_stops_its_pollers(server):
    pollers = children(server["proc"].pid)
    assert pollers
    server["proc"].terminate()
    assert server["proc"].wait(timeout=60) == 0  # SIGTERM stops it as Ctrl-C does: cleanly
    deadline = time.monotonic() + 30
    while any(pathlib.Path(f"/proc/{pid}").exists() for pid in pollers) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [pid for pid in pollers if pathlib.Path(f"/proc/{pid}").exists()
             and "eventsource" in pathlib.Path(f"/proc/{pid}/cmdline").read_text()]
    assert alive == []


def test_invoke_runs_the_batch_functions_against_an_embedded_store():
    env = {"KIBITZ_JOBS_TABLE": "", "KIBITZ_JOBS_QUEUE_URL": ""}
    proc = kibitz("invoke", "JobsFunction", "-e", "events/jobs-post.json", env=env)
    assert proc.returncode == 0, proc.stderr
    response = json.loads(proc.stdout)
    assert response["statusCode"] == 202 and json.loads(response["body"])["total"] == 4
    assert "embedded (moto, empty" in proc.stderr
    proc = kibitz("invoke", "BatchFunction", "-e", "events/batch-sqs.json", env=env)
    assert proc.returncode == 0, proc.stderr
    response = json.loads(proc.stdout)  # the job the event names does not exist here: both records come back
    assert len(response["batchItemFailures"]) == 2 and "message for an unknown job" in proc.stderr


def test_the_clients_read_json_text_and_errors_that_are_not_json():
    """kibitz batch's and kibitz review's HTTP requests (kibitz/clients/jobs.py, over Http): the answer's JSON or
    text, an error's JSON body, and an error page that is not JSON as its first 500 characters."""
    import http.server

    from kibitz.clients.jobs import served

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            status, kind, body = {
                "/jobs/a%2Fb/pgn": (200, "application/x-chess-pgn", b"1. e4 *\n"),
                "/jobs/a%2Fb?limit=1&after=-1": (200, "application/json", b'{"status": "done"}'),
                "/jobs/gone?limit=1&after=-1": (404, "application/json", b'{"status": 404, "errors": []}'),
                "/jobs/gone/pgn": (502, "text/html", b"<html>" + b"x" * 1000),
            }[self.path]
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        api = served(f"http://127.0.0.1:{server.server_address[1]}/jobs")
        assert api.pgn("a/b") == (200, "1. e4 *\n")
        assert api.state("a/b", limit=1) == (200, {"status": "done"})
        assert api.state("gone", limit=1) == (404, {"status": 404, "errors": []})
        status, answer = api.pgn("gone")
        assert status == 502 and answer == {"message": "<html>" + "x" * 494}
    finally:
        server.shutdown()
        server.server_close()
