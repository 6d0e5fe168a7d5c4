"""The coach on the page (issue 68) in a real browser: Debian's chromium, driven by Playwright, against
`kibitz serve` with a poller (the review's jobs run on BatchFunction) and POST /analyze.

A real game reviewed through the local stack (Anderssen-Dufresne, Berlin 1852, "the Evergreen game"):
every marked move shows its reason beside its mark, as the API wrote it; a click on the move or on the
reason draws the better move, the move played (when the reason's line is the opponent's reply) and the
reason's line, the arrows the API's moves give; the opening's ECO code and name stand above the moves.
"Solve your mistakes": the Evergreen's puzzle solved right (drag and click, the reply played after each
right move, to the end of the solution), and the Blackburne Shilling gambit's answered wrong (the board
waits, Retry takes the move back, Show the solution plays it out). The analysis panel asks for reasons and
the threat: the threat is a second arrow (red) with its sentence, each line its reason, and a book
position's answer names its opening. Every test checks the console stayed clean and nothing was asked of
another origin (tests/test_page_browser.py's checks). Screenshots go to build/test-artifacts/, and with
KIBITZ_DOCS_IMG=1 to docs/img/ too (docs/review.md and docs/page.md show them).
"""

import json
import os
import re
import subprocess
import sys
import threading

import chess
import pytest

from tests.conftest import ROOT
from tests.test_page_browser import ARTIFACTS, SLOW_MS, drag, playwright_browser, set_fen, watched_pages

__all__ = ["playwright_browser"]  # the fixture, shared

DOCS_IMG = ROOT / "docs" / "img"
REVIEW_MS = 300_000  # a 47-ply game at 1 s a position on one poller, on a busy machine
# The Evergreen is reviewed at 1 s a position: at 0.3 s on a loaded machine the review's search once saw
# 19... Qxf3 as no mistake (and then no puzzle comes from it); the second review of it is the cache's.
EVERGREEN_MS = "1000"
EVERGREEN = """[Event "Berlin casual game"]
[Site "Berlin"]
[Date "1852.??.??"]
[White "Anderssen, Adolf"]
[Black "Dufresne, Jean"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. b4 Bxb4 5. c3 Ba5 6. d4 exd4 7. O-O d3 8. Qb3 Qf6 9. e5 Qg6 10. Re1 Nge7
11. Ba3 b5 12. Qxb5 Rb8 13. Qa4 Bb6 14. Nbd2 Bb7 15. Ne4 Qf5 16. Bxd3 Qh5 17. Nf6+ gxf6 18. exf6 Rg8
19. Rad1 Qxf3 20. Rxe7+ Nxe7 21. Qxd7+ Kxd7 22. Bf5+ Ke8 23. Bd7+ Kf8 24. Bxe7# 1-0
"""
SHILLING = """[Event "Blackburne Shilling Gambit"]
[White "Greed"]
[Black "Trap"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1
"""
REASON_ARROWS = 4  # review.js: a longer line is drawn as its first three moves and its last
WAC_060 = "rn1qr1k1/1p2np2/2p3p1/8/1pPb4/7Q/PB1P1PP1/2KR1B1R w - - 0 1"  # docs/api.md's explain/threats example
ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"


@pytest.fixture(scope="module")
def coach_server():
    # POST /analyze (no live stream) and one poller for the review's jobs
    proc = subprocess.Popen([sys.executable, "-m", "kibitz.cli", "serve", "--port", "0", "--pollers", "1"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "KIBITZ_LIVE_URL": ""})
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert m, line
        threading.Thread(target=proc.stderr.read, daemon=True).start()  # a full pipe would block the server
        yield f"http://127.0.0.1:{m.group(1)}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def open_page(playwright_browser, coach_server):
    with watched_pages(playwright_browser, coach_server) as open_:
        yield open_


def shot(page, name, **kwargs):
    """The screenshot in build/test-artifacts/ and, with KIBITZ_DOCS_IMG=1, docs/img/ (the documentation's
    copies are refreshed by hand that way, so that a test run leaves the checkout as it was)."""
    folders = [ARTIFACTS] + ([DOCS_IMG] if os.environ.get("KIBITZ_DOCS_IMG") == "1" else [])
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / name), **kwargs)
        assert (folder / name).stat().st_size > 10_000


def review(page, pgn, movetime="300"):
    """Loads the game, reviews it at `movetime` ms a position; the game's summary the page was given (GET jobs/{id})."""
    answers = []
    page.on("response", lambda r: answers.append(r) if re.search(r"/jobs/[^/]+$", r.url) and r.ok else None)
    page.fill("#pgn", pgn)
    page.click("#load-pgn")
    page.select_option("#review-movetime", movetime)
    page.wait_for_selector("#review-start:not([disabled])")
    page.click("#review-start")
    page.wait_for_selector("#review-result:not([hidden])", timeout=REVIEW_MS)
    done = [body for body in (r.json() for r in answers) if body.get("games")]
    assert done, "the page showed a review it was not given"
    summary = done[-1]["games"][0]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # what the page was given, to read when a test fails
    name = summary["white"].split(",")[0].lower()
    (ARTIFACTS / f"coach-review-{name}.json").write_text(json.dumps(summary, indent=1))
    return summary


def arrows(page):
    """{squares: kind} of the arrows on the board (kind: best, other, threat, played, reason)."""
    out = {}
    for arrow in page.locator("#board [data-arrow]").all():
        kind = re.search(r"arrow-(best|other|threat|played|reason)", arrow.get_attribute("class")).group(1)
        out[arrow.get_attribute("data-arrow")] = kind
    return out


def expected_arrows(game_moves, flag):
    """The arrows review.js draws for a flagged move, from the API's answer and python-chess: the better
    move; the reason's line from the position before the move, or after it (then the move played too)."""
    board = chess.Board()
    for uci in game_moves[:flag["ply"]]:
        board.push_uci(uci)
    before = board.copy()
    played = game_moves[flag["ply"]]
    board.push_uci(played)

    def legal_from(position, line):
        position = position.copy()
        for uci in line:
            if chess.Move.from_uci(uci) not in position.legal_moves:
                return False
            position.push_uci(uci)
        return True

    out = []
    if flag["best"]:
        out.append((before.parse_san(flag["best"]).uci()[:4], "best"))
    line = flag["reason"]["moves"]
    if legal_from(board, line):
        out.append((played[:4], "played"))
    else:
        assert legal_from(before, line), f"the reason's line of {flag['move']} is legal from neither position"
    if len(line) > REASON_ARROWS:
        line = line[:REASON_ARROWS - 1] + line[-1:]
    out += [(uci[:4], "reason") for uci in line]
    kept = {}
    for squares, kind in out:
        kept.setdefault(squares, kind)  # one arrow a pair of squares: the first
    return kept


def game_ucis(pgn):
    import io

    import chess.pgn

    return [m.uci() for m in chess.pgn.read_game(io.StringIO(pgn)).mainline_moves()]


WHITE_AT_THE_BOTTOM = """() => {
  const y = (s) => document.querySelector(`#board rect[data-square='${s}']`).getBoundingClientRect().y
  return y('a1') > y('a8')
}"""


def square_centre(page, square):
    box = page.locator(f"#board rect[data-square='{square}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def click_move(page, uci):
    """The board's other way in: a click on the piece, then one on the square it goes to."""
    page.wait_for_function("() => !document.querySelector('.cm-chessboard-draggable-piece')")
    page.mouse.click(*square_centre(page, uci[:2]))
    page.mouse.click(*square_centre(page, uci[2:4]))


def wait_fen(page, fen):
    page.wait_for_function("fen => document.querySelector('#fen').value === fen", arg=fen)


def feedback(page):
    return page.text_content("#puzzle-feedback")


# --- the review panel -----------------------------------------------------------------------------


def test_a_review_shows_each_marks_reason_and_draws_its_line_on_a_click_under_the_opening(open_page):
    page = open_page()
    summary = review(page, EVERGREEN, EVERGREEN_MS)
    moves = game_ucis(EVERGREEN)
    flagged = summary["flagged"]
    assert flagged and all(f["reason"] and f["reason"]["text"] for f in flagged), flagged  # a reason on every mark

    items = page.locator("#review-flagged li")
    assert items.count() == len(flagged)
    for i, flag in enumerate(flagged):
        item = items.nth(i)
        assert item.locator(".flag-move").text_content().startswith(flag["move"].rstrip("?!"))
        assert item.locator(".flag-best").text_content() == f" {flag['best']} was best"
        assert item.locator(".flag-reason").text_content() == flag["reason"]["text"]

    # the opening, by position (lichess-org/chess-openings), above the moves
    assert summary["opening"] == {"eco": "C52", "name": "Italian Game: Evans Gambit, Dufresne Defense"}
    assert page.text_content("#opening .eco") == "C52"
    assert page.text_content("#opening .opening-name") == "Italian Game: Evans Gambit, Dufresne Defense"
    opening_box = page.locator("#opening").bounding_box()
    assert opening_box["y"] < page.locator("#movelist").bounding_box()["y"]

    # a click on each mark (on the move, then on its reason) draws the arrows its answer gives
    for i, flag in enumerate(flagged):
        target = items.nth(i).locator(".flag-move" if i % 2 == 0 else ".flag-reason")
        target.click()
        board = chess.Board()
        for uci in moves[:flag["ply"]]:
            board.push_uci(uci)
        wait_fen(page, board.fen())
        expected = expected_arrows(moves, flag)
        page.wait_for_function("n => document.querySelectorAll('#board [data-arrow]').length === n", arg=len(expected))
        assert arrows(page) == expected, flag["move"]
        assert flag["reason"]["text"] in page.text_content("#status")
        assert "active" in items.nth(i).get_attribute("class")

    # the screenshot: the famous 19... Qxf3?? (else the mark whose reason's line is the longest)
    with_line = [i for i, f in enumerate(flagged) if "reason" in expected_arrows(moves, f).values()]
    assert with_line, "no mark's reason has a line beyond the better move"
    shown = next((i for i in with_line if "Qxf3" in flagged[i]["move"]),
                 max(with_line, key=lambda i: len(flagged[i]["reason"]["moves"])))
    items.nth(shown).click()
    page.wait_for_function("() => document.querySelectorAll('#board .arrow-reason').length > 0")
    shot(page, "review-reasons.png", full_page=True)  # the board, and the review panel under the others

    # the opening stays with the reviewed game, not with another one loaded after it
    page.fill("#pgn", "1. d4 d5 2. c4 *")
    page.click("#load-pgn")
    page.wait_for_selector("#opening", state="hidden")


# --- puzzles --------------------------------------------------------------------------------------


def test_a_puzzle_from_the_review_solved_right_plays_the_replies_to_the_end(open_page):
    page = open_page()
    summary = review(page, EVERGREEN, EVERGREEN_MS)
    puzzles = summary["puzzles"]
    assert puzzles, ("the Evergreen game gives a puzzle (19... Qxf3?? let the win go: 19... Qh3)", summary["flagged"])
    assert page.text_content("#review-puzzles") == f"Solve your mistakes ({len(puzzles)})"
    index = max(range(len(puzzles)), key=lambda i: len(puzzles[i]["solution"]))
    puzzle = puzzles[index]
    assert len(puzzle["solution"]) >= 3, puzzle  # the solver's move, the reply, the solver's again

    page.click("#review-puzzles")
    page.wait_for_selector("#puzzle:not([hidden])")
    for _ in range(index):
        page.click("#puzzle-solution")
        page.wait_for_selector("#puzzle-next:not([hidden])")
        page.click("#puzzle-next")
    wait_fen(page, puzzle["fen"])
    solver = "Black" if puzzle["fen"].split()[1] == "b" else "White"
    assert page.text_content("#puzzle-prompt").startswith(f"{solver} to move")
    # the board is turned to the solver: their first rank at the bottom
    a1, a8 = (page.locator(f"#board rect[data-square='{s}']").bounding_box()["y"] for s in ("a1", "a8"))
    assert (a1 < a8) == (solver == "Black")
    shot(page, "puzzle.png")

    solution = puzzle["solution"]
    for i in range(0, len(solution), 2):
        move = solution[i]
        if i == 2:
            click_move(page, move)  # a click on the piece, then on its square
        else:
            drag(page, move[:2], move[2:4])
        if i + 1 < len(solution):  # right: the reply comes on its own, then the board waits again
            wait_fen(page, after_uci(puzzle["fen"], solution[:i + 2]))
            assert feedback(page).startswith("Right")
            page.wait_for_selector("#puzzle[data-state=waiting]")
        else:
            wait_fen(page, after_uci(puzzle["fen"], solution))
            page.wait_for_function("() => document.querySelector('#puzzle-feedback').textContent.includes('Solved')")
    assert page.get_attribute("#puzzle", "data-state") == "solved"
    assert page.is_hidden("#puzzle-retry") and page.is_hidden("#puzzle-solution")
    assert puzzle["played_san"] in feedback(page)

    page.click("#puzzle-exit")  # back to the game, at the puzzle's move, the board turned back
    page.wait_for_selector("#puzzle", state="hidden")
    wait_fen(page, puzzle["fen"])
    assert page.locator("#movelist li[data-ply]").count() == len(game_ucis(EVERGREEN))
    page.wait_for_function(WHITE_AT_THE_BOTTOM)


def test_a_wrong_answer_says_so_and_waits_for_a_retry_or_shows_the_solution(open_page):
    page = open_page()
    summary = review(page, SHILLING)
    (puzzle,) = summary["puzzles"]  # 7. Be2?? walked into Nf3#; 7. Qe2 was the one defence
    fen, solution = puzzle["fen"], puzzle["solution"]
    page.click("#review-puzzles")
    wait_fen(page, fen)

    board = chess.Board(fen)
    wrong = chess.Move.from_uci(puzzle["played"])  # the game's own move: wrong, by definition
    assert wrong in board.legal_moves and wrong.uci() != solution[0]
    drag(page, chess.square_name(wrong.from_square), chess.square_name(wrong.to_square))
    wait_fen(page, after_uci(fen, [wrong.uci()]))
    page.wait_for_function("() => document.querySelector('#puzzle-feedback').textContent.startsWith('Wrong')")
    assert board.san(wrong) in feedback(page)
    assert page.get_attribute("#puzzle", "data-state") == "wrong"
    assert page.is_visible("#puzzle-retry") and page.is_visible("#puzzle-solution")
    shot(page, "puzzle-wrong.png")
    # the board waits: no move starts until Retry (Black's reply is not played for the solver either)
    blacks = after_uci(fen, [wrong.uci()])
    reply = next(iter(chess.Board(blacks).legal_moves)).uci()
    drag(page, reply[:2], reply[2:4])
    page.wait_for_timeout(300)  # a move would be on the board by now (the drag's own handlers play it)
    assert page.input_value("#fen") == blacks and page.locator("#board .marker-dot").count() == 0

    page.click("#puzzle-retry")  # the wrong move is taken back
    wait_fen(page, fen)
    assert page.get_attribute("#puzzle", "data-state") == "waiting"
    drag(page, chess.square_name(wrong.from_square), chess.square_name(wrong.to_square))  # wrong again (in check:
    # Be2 and Qe2 are White's only moves)
    page.wait_for_function("() => document.querySelector('#puzzle-feedback').textContent.startsWith('Wrong')")

    page.click("#puzzle-solution")  # takes the wrong move back and plays the solution out
    wait_fen(page, after_uci(fen, solution))
    assert page.get_attribute("#puzzle", "data-state") == "shown"
    assert feedback(page).startswith("The solution: " + " ".join(puzzle["solution_san"]))


def after_uci(fen, ucis):
    board = chess.Board(fen)
    for uci in ucis:
        board.push_uci(uci)
    return board.fen()


# --- analysis: reasons, the threat, the opening -----------------------------------------------------


def test_the_analysis_shows_the_threat_as_a_second_arrow_and_each_lines_reason(open_page):
    page = open_page()
    set_fen(page, WAC_060)
    page.check("#threats")
    page.eval_on_selector("#movetime", "el => { el.value = 4; el.dispatchEvent(new Event('input')) }")  # 1 s
    page.click("#multipv label:has(input[value='2'])")
    with page.expect_response(lambda r: r.url.endswith("/analyze") and r.request.method == "POST") as info:
        page.click("#analyse")
    sent = info.value.request.post_data_json
    assert sent["explain"] is True and sent["threats"] is True
    answer = info.value.json()
    page.wait_for_selector("#analyse:not([disabled])", timeout=SLOW_MS)
    threat = answer["threat"]
    assert threat and threat["move"] and threat["reason"]["text"], answer

    drawn = arrows(page)
    assert drawn[answer["best_move"][:4]] == "best" and drawn[threat["move"][:4]] == "threat"
    assert page.is_visible("#threat")
    assert page.text_content("#threat .threat-move") == threat["san"]
    assert page.text_content("#threat .threat-reason") == threat["reason"]["text"]
    rows = page.locator("#lines li.line")
    assert rows.count() == len(answer["lines"]) == 2
    for i, line in enumerate(answer["lines"]):
        assert rows.nth(i).locator(".line-reason").text_content() == line["reason"]["text"]
    assert page.is_hidden("#analysis-opening")  # not a book position
    shot(page, "threat.png")

    page.uncheck("#threats")  # without: no threat asked, none drawn
    with page.expect_request(lambda r: r.url.endswith("/analyze") and r.method == "POST") as asked:
        page.click("#analyse")
    assert "threats" not in asked.value.post_data_json
    page.wait_for_selector("#analyse:not([disabled])", timeout=SLOW_MS)
    assert "threat" not in arrows(page).values() and page.is_hidden("#threat")


def test_an_analysis_of_a_book_position_names_its_opening(open_page):
    page = open_page()
    set_fen(page, ITALIAN)
    with page.expect_response(lambda r: r.url.endswith("/analyze") and r.request.method == "POST") as info:
        page.click("#analyse")
    answer = info.value.json()
    page.wait_for_selector("#analyse:not([disabled])", timeout=SLOW_MS)
    opening = answer["opening"]
    assert opening and opening["eco"].startswith("C5"), answer  # the Italian Game
    assert page.text_content("#analysis-opening .eco") == opening["eco"]
    assert page.text_content("#analysis-opening .opening-name") == opening["name"]
