"""The kibitz command: invoke, analyze and serve, run as a user would (subprocesses, loopback HTTP)."""

import json
import pathlib
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.conftest import ROOT

KIBITZ = [sys.executable, "-m", "kibitz.cli"]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def kibitz(*args, timeout=120):
    return subprocess.run([*KIBITZ, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_console_script_is_installed():
    proc = subprocess.run([str(pathlib.Path(sys.executable).parent / "kibitz"), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and all(verb in proc.stdout for verb in ("invoke", "serve", "analyze"))


def test_invoke_prints_the_response():
    proc = kibitz("invoke", "AnalyzeFunction", "-e", "events/analyze-post.json")
    assert proc.returncode == 0, proc.stderr
    response = json.loads(proc.stdout)  # only the response on stdout; the function's logs go to stderr
    assert response["statusCode"] == 200
    body = json.loads(response["body"])
    assert body["best_move"] and body["side_to_move"] == "black"
    assert '"message":"analysed"' in proc.stderr


def test_invoke_bad_event_and_unknown_function():
    proc = kibitz("invoke", "AnalyzeFunction", "-e", "events/analyze-post-bad-fen.json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["statusCode"] == 422
    proc = kibitz("invoke", "NoSuchFunction", "-e", "events/analyze-post.json")
    assert proc.returncode != 0 and "AnalyzeFunction" in proc.stderr


def test_analyze_prints_a_readable_analysis():
    proc = kibitz("analyze", START, "--movetime-ms", "200", "--multipv", "2")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"^Best move \S+ \([a-h][1-8][a-h][1-8]\)", out, re.M), out
    assert "from White's side" in out and re.search(r"^  1\. +\S+  1\. ", out, re.M) and "\n  2. " in out
    assert re.search(r"^Chances   \d+\.\d% win, \d+\.\d% draw, \d+\.\d% loss for white; White's expected score", out,
                     re.M), out
    proc = kibitz("analyze", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
    assert proc.returncode == 0 and "Game over: checkmate (1-0)" in proc.stdout
    proc = kibitz("analyze", "8/8/8/4k3/8/8/8/4K2Q b - - 0 1")  # within the endgame tables
    assert proc.returncode == 0 and re.search(r"^Tablebase White wins, mate in 9; keeping it: K", proc.stdout, re.M)
    proc = kibitz("analyze", "not a fen")
    assert proc.returncode == 1 and "error 422: fen: invalid FEN" in proc.stderr



def test_analyze_takes_the_variant():
    fen = "bbqnrnkr/pppppppp/4n3/8/8/4N3/PPPPPPPP/BBQNR1KR w KQkq - 2 2"  # Chess960 start 96, two moves in
    proc = kibitz("analyze", fen, "--variant", "chess960", "--moves", "g1h1", "--depth", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["variant"] == "chess960" and " b kq " in answer["fen"]
    proc = kibitz("analyze", fen, "--depth", "2")  # the same FEN as standard chess: its castling is refused
    assert proc.returncode == 1 and "error 422: fen:" in proc.stderr and "Chess960" in proc.stderr
    proc = kibitz("analyze", fen, "--variant", "atomic")
    assert proc.returncode == 1 and "error 422: variant:" in proc.stderr

@pytest.fixture(scope="module")
def server():
    proc = subprocess.Popen([*KIBITZ, "serve", "--port", "0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert m, line
        yield f"http://127.0.0.1:{m.group(1)}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def http(url, data=None, headers=None, method=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_serve_post_and_get(server):
    t0 = time.perf_counter()
    status, headers, body = http(server + "/analyze", json.dumps({"fen": START, "movetime_ms": 200}).encode(),
                                 {"Content-Type": "application/json"})
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["budget_ms"] == 200 and time.perf_counter() - t0 < 30
    status, _, body = http(server + "/analyze?fen=" + START.replace(" ", "_") + "&moves=e2e4+e7e5&depth=3")
    assert status == 200 and json.loads(body)["fen"].startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/")


def test_serve_errors(server):
    status, _, body = http(server + "/analyze", b"{oops", {"Content-Type": "application/json"})
    assert status == 400 and json.loads(body)["errors"][0]["field"] == "body"
    status, _, body = http(server + "/analyze", json.dumps({"fen": START, "moves": ["e2e4"] * 3000}).encode(),
                           {"Content-Type": "application/json"})
    assert status == 413
    status, _, body = http(server + "/analyze?fen=" + START.replace(" ", "_") + "&multipv=9")
    assert status == 422 and json.loads(body)["errors"][0]["field"] == "multipv"
    # Like API Gateway: no route, no function.
    status, _, body = http(server + "/nowhere")
    assert status == 403 and json.loads(body) == {"message": "Missing Authentication Token"}
    status, _, _ = http(server + "/analyze", method="DELETE")
    assert status == 403


def test_serve_swagger(server):
    status, headers, body = http(server + "/swagger")
    assert status == 200 and headers["Content-Type"].startswith("text/html") and b"SwaggerUIBundle" in body
    status, _, body = http(server + "/swagger?format=json")
    assert status == 200 and "/analyze" in json.loads(body)["paths"]
