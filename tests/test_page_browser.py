"""The page in a real browser: Debian's chromium, driven by Playwright's Python package, against
`kibitz serve` on 127.0.0.1 — analyse, drag, bad FEN, PGN stepping, the buttons, and screenshots at
desktop and phone sizes (build/test-artifacts/).

Every test also checks that the console stayed clean (no error, no warning, no uncaught exception) and
that the page asked nothing of any origin but the local server.

`make test` installs chromium when it is missing. Without it these tests skip with the reason, except
under CI (CI=true), where they fail: skipping is not the path on the project's machines.
"""

import contextlib
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import urllib.error
import urllib.request

import chess
import pytest

from engine.fen import chess960_fen
from tests.conftest import ROOT

CHROMIUM = os.environ.get("KIBITZ_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "build" / "test-artifacts"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
GAME = """[Event "Wijk aan Zee"]
[White "Kasparov, Garry"]
[Black "Topalov, Veselin"]
[Result "1-0"]

1. e4 d6 2. d4 Nf6 3. Nc3 g6 4. Be3 Bg7 5. Qd2 c6 6. f3 b5 7. Nge2 Nbd7 8. Bh6 Bxh6
9. Qxh6 Bb7 10. a3 e5 11. O-O-O Qe7 12. Kb1 a6 13. Nc1 O-O-O 14. Nb3 exd4 1-0
"""
SLOW_MS = 60_000  # the first analysis starts AnalyzeFunction cold (the engine's tables) on a busy machine


def browser_problem():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as e:
        return f"Playwright's Python package is missing ({e}): pip install -e '.[dev]'"
    if not pathlib.Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium), as root"
    return None


@pytest.fixture(scope="module")
def playwright_browser(tmp_path_factory):
    problem = browser_problem()
    if problem:
        message = f"THE PAGE'S BROWSER TESTS CANNOT RUN: {problem}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # A profile of its own (never the user's), and Debian's chromium: never `playwright install`.
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport=DESKTOP)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def server():
    # KIBITZ_LIVE_URL empty: a page without the live stream, which analyses by POST /analyze (the stream's
    # tests are tests/test_page_live_browser.py)
    proc = subprocess.Popen([sys.executable, "-m", "kibitz.cli", "serve", "--port", "0", "--pollers", "0"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "KIBITZ_LIVE_URL": ""})
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert m, line
        # keep reading its stderr (one line per request), or a full pipe would block the server
        import threading

        threading.Thread(target=proc.stderr.read, daemon=True).start()
        yield f"http://127.0.0.1:{m.group(1)}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


BROWSER_HTTP_ERROR = re.compile(r"Failed to load resource: the server responded with a status of (\d+) .*")


class Watched:
    """A page, and what it said in the console and asked of the network.

    One console line is not the page's: Chromium itself logs every HTTP error answer as "Failed to load
    resource: ... status of 422", even one the page asked for and shows (a FEN the API refuses). Such a
    line is allowed once per error answer of the API the page received, from that URL; nothing else is.
    """

    def __init__(self, page, origin):
        self.page, self.origin = page, origin
        self.problems, self.elsewhere, self.refused = [], [], []
        page.on("console", self.console)
        page.on("pageerror", lambda e: self.problems.append(f"uncaught: {e}"))
        page.on("request", lambda r: self.elsewhere.append(r.url)
                if not r.url.startswith((origin + "/", "data:")) else None)
        page.on("response", lambda r: self.refused.append(r.status)
                if r.status >= 400 and r.url == origin + "/analyze" else None)
        self.browser_lines = []

    def console(self, message):
        if message.type not in ("error", "warning", "assert"):
            return
        m = BROWSER_HTTP_ERROR.fullmatch(message.text)
        if message.type == "error" and m and message.location.get("url") == self.origin + "/analyze":
            self.browser_lines.append(int(m.group(1)))
        else:
            self.problems.append(f"console.{message.type}: {message.text} ({message.location.get('url')})")

    def check(self):
        assert self.problems == [], "the console was not clean"
        assert sorted(self.browser_lines) == sorted(self.refused), "an HTTP error the page did not receive"
        assert self.elsewhere == [], "the page asked another origin"


@contextlib.contextmanager
def watched_pages(browser, default_origin):
    """open_(origin, path, viewport) -> a ready page of the served page, whose console and requests are Watched;
    when the test is over every page is closed, then checked."""
    opened = []

    def open_(origin=default_origin, path="/", viewport=DESKTOP):
        page = browser.new_page()
        page.set_viewport_size(viewport)
        page.set_default_timeout(SLOW_MS)
        opened.append(Watched(page, origin))
        page.goto(origin + path)
        page.wait_for_selector("html[data-ready=true]")
        return page

    yield open_
    for watched in opened:
        watched.page.close()
    for watched in opened:
        watched.check()


@pytest.fixture
def open_page(playwright_browser, server):
    with watched_pages(playwright_browser, server) as open_:
        yield open_


# --- helpers --------------------------------------------------------------------------------------


def score_text(score):
    """format.js's scoreText."""
    if "mate" in score:
        return "#" if score["mate"] == 0 else f"#{score['mate']}"
    return f"{'+' if score['cp'] > 0 else ''}{score['cp'] / 100:.2f}"


def set_fen(page, fen):
    page.fill("#fen", fen)
    page.click("#set-fen")
    page.wait_for_function("() => !document.querySelector('#set-fen').disabled")


def fen_shown(page):
    return page.input_value("#fen")


def analyse(page, think_index=2, multipv=3):
    """Sets think time (index into 100 ms .. 10 s) and lines, presses Analyse; the API's answer."""
    page.eval_on_selector("#movetime", "(el, i) => { el.value = i; el.dispatchEvent(new Event('input')) }",
                          think_index)
    page.click(f"#multipv label:has(input[value='{multipv}'])")
    with page.expect_response(lambda r: r.url.endswith("/analyze") and r.request.method == "POST") as info:
        page.click("#analyse")
    answer = info.value.json()
    page.wait_for_selector("#analyse:not([disabled])")
    return answer


def drag(page, from_square, to_square):
    def centre(square):
        box = page.locator(f"#board rect[data-square='{square}']").bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    # The board takes input again only once its last move is over (a frame after #fen shows it, later under
    # load): until then it drops a press. Its dragged piece is removed at that moment.
    page.wait_for_function("() => !document.querySelector('.cm-chessboard-draggable-piece')")
    page.mouse.move(*centre(from_square))
    page.mouse.down()
    page.mouse.move(*centre(to_square), steps=10)
    page.mouse.up()


def piece_on(page, square, expected):
    """True once the board shows `expected` ("wp", or None for empty) on the square (drawing may lag a frame)."""
    selector = f"#board .pieces g[data-square='{square}']"
    if expected is None:
        page.wait_for_selector(selector, state="detached", timeout=5000)
    else:
        page.wait_for_selector(f"{selector}[data-piece='{expected}']", timeout=5000)
    return True


def after(fen, *sans):
    board = chess.Board(fen)
    for san in sans:
        board.push_san(san)
    return board.fen()


# --- the tests ------------------------------------------------------------------------------------


def test_analyse_shows_the_arrow_the_eval_bar_and_the_lines(open_page):
    page = open_page()
    set_fen(page, ITALIAN)
    assert fen_shown(page) == ITALIAN and page.is_hidden("#fen-error")
    answer = analyse(page, think_index=2, multipv=3)
    assert answer["fen"] == ITALIAN and answer["budget_ms"] == 300 and len(answer["lines"]) == 3

    best = answer["best_move"]
    arrow = page.locator(f"#board [data-arrow='{best[:4]}']")
    assert arrow.count() == 1 and "arrow-best" in arrow.get_attribute("class")

    bar = page.locator("#evalbar")
    assert bar.get_attribute("data-score") == score_text(answer["score_white"])
    assert page.text_content("#score") == score_text(answer["score_white"])
    if "wdl" not in answer and "cp" in answer["score_white"]:  # the share is the logistic of the score
        expected = 100 / (1 + math.exp(-0.00368208 * answer["score_white"]["cp"]))
        height = page.eval_on_selector("#evalbar-white", "el => parseFloat(el.style.height)")
        assert abs(height - expected) < 0.2

    rows = page.locator("#lines li.line")
    assert rows.count() == 3
    for i, line in enumerate(answer["lines"]):
        row = rows.nth(i)
        assert row.locator(".line-score").text_content() == score_text(line["score_white"])
        assert [m.text_content() for m in row.locator(".line-move").all()] == line["pv_san"]
        assert row.locator(".line-depth").text_content() == f"d{line['depth']}"
    stats = page.text_content("#stats")
    assert f"depth {answer['depth']}/{answer['seldepth']}" in stats and "nodes" in stats and "nps" in stats
    assert answer["best_move_san"] in page.text_content("#best")

    # a click on a line's second move plays the line up to it
    line = answer["lines"][0]
    rows.nth(0).locator(".line-move").nth(1).click()
    expected = after(ITALIAN, *line["pv_san"][:2])
    page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=expected)
    assert page.locator("#movelist li[data-ply]").count() == 2
    assert page.locator("#board [data-arrow]").count() == 0  # the arrows were for the earlier position
    assert page.is_visible("#stale-note")


def test_drag_a_legal_move_and_an_illegal_one_is_refused(open_page):
    page = open_page()
    start = fen_shown(page)
    drag(page, "e2", "e4")
    page.wait_for_function("() => document.querySelector('#movelist li[data-ply]') !== null")
    assert fen_shown(page) == after(start, "e4")
    assert piece_on(page, "e4", "wp") and piece_on(page, "e2", None)
    assert page.text_content("#movelist li[data-ply].current") == "e4"

    drag(page, "d7", "d4")  # a pawn cannot go three squares
    page.wait_for_function("() => document.querySelector('#status').classList.contains('warning')")
    assert "not a legal move" in page.text_content("#status")
    assert fen_shown(page) == after(start, "e4") and piece_on(page, "d7", "bp") and piece_on(page, "d4", None)

    drag(page, "d2", "d4")  # White's piece, Black to move: no move starts
    assert fen_shown(page) == after(start, "e4") and piece_on(page, "d2", "wp")

    drag(page, "g8", "f6")
    page.wait_for_function("() => document.querySelectorAll('#movelist li[data-ply]').length === 2")
    assert fen_shown(page) == after(start, "e4", "Nf6") and piece_on(page, "f6", "bn")


def test_a_mate_and_a_finished_game(open_page):
    page = open_page()
    set_fen(page, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")  # Rd8 mates
    answer = analyse(page, think_index=1, multipv=1)
    assert answer["score"] == {"mate": 1} and answer["best_move"] == "d1d8"
    assert page.text_content("#score") == "#1" and page.locator("#evalbar").get_attribute("data-score") == "#1"
    assert page.eval_on_selector("#evalbar-white", "el => parseFloat(el.style.height)") == 100
    assert "mates in 1" in page.text_content("#best")
    page.locator("#lines li.line").first.click()  # plays Rd8#: the game is over
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Checkmate')")
    answer = analyse(page, think_index=0, multipv=1)
    assert answer["game_over"] == "checkmate" and answer["result"] == "1-0"
    assert page.text_content("#score") == "1-0" and page.text_content("#best") == "Checkmate"
    assert page.locator("#lines li.line").count() == 0 and page.locator("#board [data-arrow]").count() == 0


def test_an_endgame_within_the_tables_says_who_wins_and_the_mate(open_page):
    page = open_page()
    set_fen(page, "8/8/8/4k3/8/8/8/4K2Q b - - 0 1")  # Black to move, mated in 9 by the table
    answer = analyse(page, think_index=0, multipv=1)
    assert answer["tablebase"]["category"] == "loss" and answer["tablebase"]["dtm"] == -9
    assert page.text_content("#stats") == "Tablebase: White wins, mate in 9"
    set_fen(page, "8/8/4k3/8/3b4/8/8/4K2R w - - 0 1")  # rook against bishop
    analyse(page, think_index=0, multipv=1)
    assert page.text_content("#stats") == "Tablebase: draw"


def test_a_promotion_asks_for_the_piece(open_page):
    page = open_page()
    fen = "8/P6k/8/8/8/8/8/K7 w - - 0 1"
    set_fen(page, fen)
    drag(page, "a7", "a8")
    knight = page.locator("#board .promotion-dialog-button-group[data-piece='wn']")
    knight.wait_for()
    knight.click()
    page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=after(fen, "a8=N"))
    assert piece_on(page, "a8", "wn")


def test_a_bad_fen_shows_the_apis_reason_naming_the_field(open_page, server):
    page = open_page()
    start = fen_shown(page)
    bad = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"
    set_fen(page, bad)
    request = urllib.request.Request(server + "/analyze", json.dumps({"fen": bad}).encode(),
                                     {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    reason = json.loads(refused.value.read())["errors"][0]["reason"]
    assert "side" in reason
    box = page.locator("#fen-error")
    assert box.is_visible() and "fen: " + reason in box.text_content()
    assert fen_shown(page) == bad and piece_on(page, "e2", "wp")  # the board kept its position
    page.fill("#fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1")
    page.click("#set-fen")
    page.wait_for_function("() => document.querySelector('#fen-error').textContent.includes('rank')")
    set_fen(page, start)  # a good one clears the error
    assert page.is_hidden("#fen-error")


def test_step_through_a_pasted_pgn_with_the_keyboard(open_page):
    page = open_page()
    page.fill("#pgn", GAME)
    page.click("#load-pgn")
    page.wait_for_function("() => document.querySelectorAll('#movelist li[data-ply]').length === 28")
    sans = [m.text_content() for m in page.locator("#movelist li[data-ply]").all()]
    assert sans[:4] == ["e4", "d6", "d4", "Nf6"] and sans[-1] == "exd4"
    assert page.text_content("#game-title") == "Kasparov, Garry – Topalov, Veselin (1-0)"
    start = chess.STARTING_FEN
    assert fen_shown(page) == start

    page.locator("body").click(position={"x": 5, "y": 400})  # focus off the text area: keys are for the board
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert fen_shown(page) == after(start, *sans[:3])
    assert page.text_content("#movelist li[data-ply].current") == "d4"
    page.keyboard.press("ArrowLeft")
    assert fen_shown(page) == after(start, *sans[:2])
    page.keyboard.press("End")
    assert fen_shown(page) == after(start, *sans)
    page.keyboard.press("Home")
    assert fen_shown(page) == start
    page.locator("#movelist li[data-ply]", has_text="O-O-O").first.click()
    assert fen_shown(page) == after(start, *sans[:sans.index("O-O-O") + 1])

    page.fill("#pgn", "1. e4 e5 2. Nf9 *")
    page.click("#load-pgn")
    assert page.locator("#pgn-error").is_visible()
    assert page.locator("#movelist li[data-ply]").count() == 28  # the game loaded before is still there


def test_flip_undo_and_start(open_page):
    page = open_page()
    drag(page, "e2", "e4")
    page.wait_for_function("() => document.querySelector('#movelist li[data-ply]') !== null")
    page.click("#flip")
    page.wait_for_function("() => document.querySelector('#evalbar').classList.contains('flipped')")
    a1 = page.locator("#board rect[data-square='a1']").bounding_box()
    h8 = page.locator("#board rect[data-square='h8']").bounding_box()
    assert a1["y"] < h8["y"] and a1["x"] > h8["x"]  # Black at the bottom
    page.click("#undo")
    assert fen_shown(page) == chess.STARTING_FEN and page.locator("#movelist li[data-ply]").count() == 0
    assert page.is_disabled("#undo")
    drag(page, "d2", "d4")
    page.wait_for_function("() => document.querySelector('#movelist li[data-ply]') !== null")
    page.click("#reset")
    assert fen_shown(page) == chess.STARTING_FEN and piece_on(page, "d2", "wp")


def test_screenshots_at_desktop_and_phone_sizes(open_page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = open_page(viewport=viewport)
        page.fill("#pgn", GAME)
        page.click("#load-pgn")
        page.wait_for_function("() => document.querySelectorAll('#movelist li[data-ply]').length === 28")
        page.locator("#movelist li[data-ply]").nth(19).click()  # after 10... e5
        analyse(page, think_index=3, multipv=3)
        page.wait_for_timeout(600)  # the eval bar's transition
        # no sideways scrolling, and on a phone one column: the panels under the board
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        board = page.locator("#board").bounding_box()
        panel = page.locator("#analysis-card").bounding_box()
        if name == "phone":
            assert panel["y"] >= board["y"] + board["height"] and board["width"] >= 0.8 * viewport["width"]
        else:
            assert panel["x"] >= board["x"] + board["width"] and panel["y"] < board["y"] + board["height"]
        page.screenshot(path=str(ARTIFACTS / f"page-{name}.png"), full_page=(name == "phone"))
        assert (ARTIFACTS / f"page-{name}.png").stat().st_size > 10_000


# --- Chess960 -------------------------------------------------------------------------------------


def choose_start(page, number):
    page.select_option("#variant", "chess960")
    page.fill("#c960-number", str(number))
    page.press("#c960-number", "Tab")  # the change event
    page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=chess960_fen(number))


def test_chess960_pick_a_start_castle_king_to_rook_and_analyse(open_page):
    page = open_page()
    choose_start(page, 96)  # bbqnrnkr: the king on g1, its rooks on e1 and h1
    assert page.is_visible("#c960-random") and page.input_value("#variant") == "chess960"
    ref = chess.Board(chess960_fen(96), chess960=True)
    for from_square, to_square in (("f1", "e3"), ("f8", "e6"), ("g1", "h1")):  # the last: the king onto its rook
        drag(page, from_square, to_square)
        ref.push_uci(from_square + to_square)
        page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=ref.fen())
    assert piece_on(page, "g1", "wk") and piece_on(page, "f1", "wr") and piece_on(page, "h1", None)
    assert [m.text_content() for m in page.locator("#movelist li[data-ply]").all()] == ["Nfe3", "Nfe6", "O-O"]
    with page.expect_request(lambda r: r.url.endswith("/analyze") and r.method == "POST") as sent:
        answer = analyse(page, think_index=1, multipv=2)
    body = sent.value.post_data_json
    assert body["variant"] == "chess960" and body["fen"] == chess960_fen(96)
    assert body["moves"] == ["f1e3", "f8e6", "g1h1"]
    assert answer["variant"] == "chess960" and answer["fen"] == ref.fen()
    assert [m.text_content() for m in page.locator("#lines li.line").first.locator(".line-move").all()] == \
        answer["lines"][0]["pv_san"]

    # standard chess's start as Chess960 518: the king two squares over castles too, written e1h1
    choose_start(page, 518)
    ref = chess.Board(chess960_fen(518), chess960=True)
    for san in ("e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5"):
        move = ref.push_san(san)
        drag(page, chess.square_name(move.from_square), chess.square_name(move.to_square))
        page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=ref.fen())
    drag(page, "e1", "g1")
    ref.push_uci("e1h1")
    page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=ref.fen())
    with page.expect_request(lambda r: r.url.endswith("/analyze") and r.method == "POST") as sent:
        answer = analyse(page, think_index=0, multipv=1)
    assert sent.value.post_data_json["moves"][-1] == "e1h1" and answer["fen"] == ref.fen()

    page.click("#c960-random")  # another start, numbered in the field
    page.wait_for_function("() => document.querySelector('#fen').value.endsWith(' w KQkq - 0 1')")
    number = int(page.input_value("#c960-number"))
    assert 0 <= number < 960 and fen_shown(page) == chess960_fen(number)
    page.select_option("#variant", "standard")
    page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=chess.STARTING_FEN)
    assert page.is_hidden("#c960-number")


def test_chess960_fen_and_pgn_set_the_variant_and_a_960_fen_as_standard_is_refused(open_page):
    page = open_page()
    fen = "2rkr3/2p1p3/8/8/8/8/PPP5/RK6 w Q - 0 1"  # White mates by O-O-O: b1a1
    set_fen(page, fen)  # as standard chess: the API's 422 names the FEN and Chess960
    box = page.locator("#fen-error")
    assert box.is_visible() and "fen: " in box.text_content() and "Chess960" in box.text_content()
    page.select_option("#variant", "chess960")
    set_fen(page, fen)
    assert page.is_hidden("#fen-error") and fen_shown(page) == fen
    answer = analyse(page, think_index=1, multipv=1)
    assert (answer["best_move"], answer["best_move_san"]) == ("b1a1", "O-O-O#")
    assert page.locator("#board [data-arrow='b1a1']").count() == 1
    page.locator("#lines li.line").first.click()  # plays it: checkmate
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Checkmate')")
    assert piece_on(page, "c1", "wk") and piece_on(page, "d1", "wr")

    page.select_option("#variant", "standard")  # a PGN's Variant tag switches the board to Chess960
    page.fill("#pgn", f'[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{chess960_fen(96)}"]\n\n'
                      "1. Nfe3 Nfe6 2. O-O O-O 3. d4 d5 *")
    page.click("#load-pgn")
    page.wait_for_function("() => document.querySelectorAll('#movelist li[data-ply]').length === 6")
    assert page.input_value("#variant") == "chess960" and page.input_value("#c960-number") == "96"
    page.locator("#movelist li[data-ply]").nth(3).click()
    ref = chess.Board(chess960_fen(96), chess960=True)
    for uci in ("f1e3", "f8e6", "g1h1", "g8h8"):
        ref.push_uci(uci)
    assert fen_shown(page) == ref.fen()


# Positions with castling every way: Chess960 starts thinned out, a few pieces dropped in, random moves.
RULES_IN_THE_BROWSER = """async ([url, fens]) => {
  const {Chess960} = await import(new URL(url, document.baseURI).href)
  return fens.map((fen) => {
    const p = new Chess960(fen)
    return [p.fen(), p.moves().map((m) => [m.lan, m.san, m.after]).sort()]
  })
}"""


def test_the_pages_chess960_rules_agree_with_python_chess(open_page):
    import random

    rng = random.Random(960)
    fens = []
    while len(fens) < 150:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8):
            if board.piece_type_at(square) in (chess.KNIGHT, chess.BISHOP, chess.QUEEN) and rng.random() < 0.8:
                board.remove_piece_at(square)
        for _ in range(rng.randrange(3)):
            empty = [s for s in chess.SquareSet(chess.BB_RANK_3 | chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6)
                     if board.piece_at(s) is None]
            board.set_piece_at(rng.choice(empty), chess.Piece(rng.choice([2, 3, 4, 5]), rng.random() < 0.5))
        board.turn = rng.random() < 0.5
        for _ in range(rng.randrange(4)):
            if board.is_valid() and any(board.legal_moves):
                board.push(rng.choice(list(board.legal_moves)))
        if board.is_valid() and not board.is_game_over():
            fens.append(board.fen())
    page = open_page()
    url = page.get_attribute("link[rel=modulepreload][href$='app/chess960.js']", "href")
    got = page.evaluate(RULES_IN_THE_BROWSER, [url, fens])
    castles = 0
    for fen, (shown, moves) in zip(fens, got, strict=True):
        board = chess.Board(fen, chess960=True)
        expected = []
        for move in board.legal_moves:
            castles += board.is_castling(move)
            san = board.san(move)
            board.push(move)
            expected.append([move.uci(), san, board.fen()])
            board.pop()
        assert (shown, moves) == (fen, sorted(expected)), fen
    assert castles > 100  # castling every way was in it
