"""The page's live analysis and game review in a real browser (issue 33): Debian's chromium, driven by
Playwright, against `kibitz serve` with its WebSocket route and a poller — the eval bar, the lines and the
figures change as the search deepens, Stop answers at once, a refused request shows the API's error, the
page's own JavaScript example runs, a known game's review shows its graph and its marked moves, a Chess960
game's analysis and review send the variant, and the console stays clean (tests/test_page_browser.py's
checks). Screenshots go to build/test-artifacts/."""

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

from engine.fen import chess960_fen
from tests.conftest import ROOT
from tests.test_page_browser import (
    ARTIFACTS,
    ITALIAN,
    SLOW_MS,
    choose_start,
    drag,
    playwright_browser,
    set_fen,
    watched_pages,
)

__all__ = ["playwright_browser"]  # the fixture, shared


def serve(*extra):
    """`kibitz serve` with its WebSocket route: ((http origin, ws url), the process)."""
    env = {k: v for k, v in os.environ.items() if k != "KIBITZ_LIVE_URL"}
    proc = subprocess.Popen([sys.executable, "-m", "kibitz.cli", "serve", "--port", "0", *extra],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    while not any(line.lstrip().startswith("WS ") for line in lines):
        line = proc.stderr.readline()
        if not line:
            proc.wait(10)
            raise AssertionError("".join(lines))
        lines.append(line)
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    http = re.search(r"http://127\.0\.0\.1:\d+", lines[0]).group(0)
    ws = re.search(r"ws://127\.0\.0\.1:\d+/live", "".join(lines)).group(0)
    return (http, ws), proc


@pytest.fixture(scope="module")
def live_server():
    addresses, proc = serve("--pollers", "1")  # one poller: the review panel's jobs run on BatchFunction
    try:
        yield addresses
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def open_live(playwright_browser, live_server):
    with watched_pages(playwright_browser, live_server[0]) as open_:
        yield open_


RECORD = """() => {
  window.seen = []
  const note = () => {
    const state = [document.querySelector('#evalbar').dataset.score || '', document.querySelector('#stats').textContent,
                   document.querySelector('#lines').textContent].join('|')
    if (window.seen[window.seen.length - 1] !== state) window.seen.push(state)
  }
  new MutationObserver(note).observe(document.querySelector('#analysis-card'), {subtree: true, childList: true,
                                                                               characterData: true, attributes: true})
  new MutationObserver(note).observe(document.querySelector('#evalbar'), {attributes: true})
}"""


def start(page, think_index, multipv=3):
    page.eval_on_selector("#movetime", "(el, i) => { el.value = i; el.dispatchEvent(new Event('input')) }",
                          think_index)
    page.click(f"#multipv label:has(input[value='{multipv}'])")
    page.click("#analyse")


def test_the_page_names_the_stream(open_live, live_server):
    page = open_live()
    assert page.get_attribute("meta[name=kibitz-live]", "content") == live_server[1]


def test_a_live_analysis_redraws_the_bar_and_the_lines_as_it_deepens(open_live):
    page = open_live()
    set_fen(page, ITALIAN)
    # a warm-up, so that the 2 s analysis below is not the container's cold start
    start(page, 0, 1)
    page.wait_for_selector("#analyse:not([disabled])")
    page.evaluate(RECORD)
    t0 = time.monotonic()
    start(page, 5, 3)  # 2 s
    page.wait_for_selector("#stop:not([hidden])")
    page.wait_for_function("() => /depth \\d+/.test(document.querySelector('#stats').textContent)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "page-live-thinking.png"))  # mid-search: Stop, the figures so far
    page.wait_for_selector("#analyse:not([disabled])", timeout=SLOW_MS)
    took = time.monotonic() - t0
    states = page.evaluate("window.seen")
    during = [s for s in states if s.split("|")[1]]  # with figures shown: an info or the result
    assert len(set(during)) >= 4, states  # at least three changes while it thought, then the result
    assert 1.5 < took < 10
    assert page.is_hidden("#stop")
    assert page.locator("#lines li.line").count() == 3
    assert re.search(r"depth \d+/\d+ · .* nodes · .* nps", page.text_content("#stats"))
    assert page.locator("#board [data-arrow]").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "page-live.png"))


def test_stop_answers_at_once_with_the_best_line_so_far(open_live):
    page = open_live()
    set_fen(page, ITALIAN)
    start(page, 8, 2)  # 10 s
    page.wait_for_selector("#stop:not([hidden])")
    page.wait_for_function("() => /depth \\d+/.test(document.querySelector('#stats').textContent)")
    time.sleep(0.5)
    t0 = time.monotonic()
    page.click("#stop")
    page.wait_for_selector("#analyse:not([disabled])", timeout=5000)
    assert time.monotonic() - t0 < 2
    stats = page.text_content("#stats")
    seconds = re.search(r"· ([\d.]+) (m?s)$", stats)
    assert seconds and (seconds.group(2) == "ms" or float(seconds.group(1)) < 5), stats
    assert page.locator("#lines li.line").count() == 2 and page.is_hidden("#analysis-error")


def test_a_refused_request_shows_the_apis_error(open_live):
    page = open_live()
    # a FEN the board would not accept cannot be analysed from the page: ask through the page's own module
    message = page.evaluate("""async () => {
      const {Live} = await import(document.querySelector('script[type=module]').src.replace('main.js', 'live.js'))
      const live = Live.fromPage()
      await live.open()
      return await live.analyse({fen: 'x', movetime_ms: 100})
    }""")
    assert message["ok"] is False and message["status"] == 422 and message["errors"][0]["field"] == "fen"


def test_the_pages_own_javascript_example_runs(open_live):
    page = open_live()
    logs = []
    page.on("console", lambda m: logs.append(m.text) if m.type == "log" else None)
    page.click("#live-example summary")
    code = page.text_content("#live-example pre code")
    assert "new WebSocket" in code and '"analyze"' in code
    page.evaluate(f"() => {{\n{code}\n}}")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(not re.match(r"\d+ ", line) for line in logs):
        page.wait_for_timeout(100)
    infos = [line for line in logs if re.match(r"\d+ ", line)]
    assert infos and len(logs) > len(infos), logs  # infos ("depth score line"), then the result


TRAP = """[Event "Blackburne Shilling Gambit"]
[White "Greed"]
[Black "Trap"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1
"""


def test_a_review_shows_the_graph_the_accuracy_and_the_marked_moves(open_live):
    page = open_live()
    page.fill("#pgn", TRAP)
    page.click("#load-pgn")
    page.wait_for_selector("#review-start:not([disabled])")
    page.click("#review-start")
    page.wait_for_selector("#review-result:not([hidden])", timeout=120_000)
    assert page.locator("#review-graph rect.graph-hit").count() == 15  # the start and 14 plies
    assert "accuracy" in page.text_content("#review-sides")
    flags = [page.locator("#review-flagged li .flag-head").nth(i).text_content()  # the mark, without its reason
             for i in range(page.locator("#review-flagged li").count())]
    blunder = next((f for f in flags if f.startswith("5. Nxf7??")), None)
    assert blunder and blunder.endswith(" was best") and "???" not in blunder, flags
    best_san = blunder.split()[-3]  # "5. Nxf7?? Bxf7+ was best": the search's move (Bxf7+ when this was written)
    assert page.locator("#review-graph circle.graph-flag.blunder").count() >= 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#review-slot").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "page-review.png"), full_page=True)

    page.locator("#review-flagged li", has_text="5. Nxf7??").click()  # the position before it, the better move
    page.wait_for_function("() => document.querySelector('#fen').value.startsWith("
                           "'r1b1kbnr/pppp1ppp/8/4N1q1/2BnP3/8/PPPP1PPP/RNBQK2R w')")
    before = chess.Board("r1b1kbnr/pppp1ppp/8/4N1q1/2BnP3/8/PPPP1PPP/RNBQK2R w KQkq - 2 5")
    best = before.parse_san(best_san).uci()
    assert page.locator(f"#board [data-arrow='{best[:4]}']").count() == 1
    page.locator("#review-graph rect.graph-hit[data-ply='3']").click()  # a click on the graph: that position
    page.wait_for_function("() => document.querySelector('#fen').value.startsWith("
                           "'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b')")
    with page.expect_download() as download:
        page.click("#review-download")
    annotated = pathlib.Path(download.value.path()).read_text()
    assert "Nxf7??" in annotated and "[%eval" in annotated and '[Annotator "Kibitz' in annotated


def test_chess960_live_analysis_and_review_send_the_variant(open_live):
    page = open_live()
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    choose_start(page, 96)
    ref = chess.Board(chess960_fen(96), chess960=True)
    for uci in ("f1e3", "f8e6", "g1h1", "g8h8"):  # both kings onto their rooks: O-O, O-O
        drag(page, uci[:2], uci[2:])
        ref.push_uci(uci)
        page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=ref.fen())
    start(page, 1, 2)
    page.wait_for_selector("#analyse:not([disabled])")
    asked = [json.loads(f) for f in sent if '"analyze"' in f]
    assert asked and asked[-1]["variant"] == "chess960" and asked[-1]["moves"] == ["f1e3", "f8e6", "g1h1", "g8h8"]
    assert page.locator("#lines li.line").count() == 2 and page.is_hidden("#analysis-error")

    page.select_option("#review-movetime", "100")
    with page.expect_request(lambda r: r.url.endswith("/jobs") and r.method == "POST") as submitted:
        page.click("#review-start")
    body = submitted.value.post_data_json
    assert body["variant"] == "chess960" and '[Variant "Chess960"]' in body["pgn"] and "2. O-O O-O" in body["pgn"]
    page.wait_for_selector("#review-result:not([hidden])", timeout=120_000)
    assert page.locator("#review-graph rect.graph-hit").count() == 5  # the start and 4 plies
    with page.expect_download() as download:
        page.click("#review-download")
    annotated = chess.pgn.read_game(io.StringIO(pathlib.Path(download.value.path()).read_text()))
    assert annotated.headers["Variant"] == "Chess960" and annotated.headers["FEN"] == chess960_fen(96)
    assert [m.uci() for m in annotated.mainline_moves()] == ["f1e3", "f8e6", "g1h1", "g8h8"]


def test_where_a_key_is_required_the_page_passes_its_own_on(open_live):
    """A browser cannot set headers on a WebSocket: the page's ?key= goes into the stream's query string,
    where $connect's authorizer checks it (`kibitz serve --live-key`, as ApiKeyRequired=true on AWS)."""
    (origin, ws), proc = serve("--pollers", "0", "--live-key", "s3cret")
    try:
        page = open_live(origin, "/?key=s3cret")
        assert page.get_attribute("meta[name=kibitz-live]", "content") == ws
        set_fen(page, ITALIAN)
        start(page, 1, 1)
        page.wait_for_selector("#stop:not([hidden])")  # the stream opened: the key was accepted
        page.wait_for_selector("#analyse:not([disabled])")
        assert page.is_hidden("#analysis-error") and page.locator("#lines li.line").count() == 1
    finally:
        proc.terminate()
        proc.wait(timeout=10)
