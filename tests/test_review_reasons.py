"""A review's marked moves carry the coach's reason (engine/review.py with start_fen), made from the two
lines the review has: the best line before the move and the opponent's line after it; the annotated PGN
writes the sentence in the move's comment (read back by python-chess). Real games, searched at fixed
nodes on one thread (deterministic)."""

import io
import json

import chess.pgn
import pytest

import engine
from engine import wdl
from engine.annotated_pgn import write_game
from engine.board import Board
from engine.coach import explain_move
from engine.pgn import read_games
from engine.review import PositionEval, review_game
from tests import jobs_cases
from tests.conftest import ROOT, SUITES

SHILLING = json.loads(jobs_cases.load_event("jobs-post-review.json")["body"])["pgn"]  # 5. Nxf7?? is the blunder
FISCHER = (ROOT / "benchmarks" / "data" / "fischer_spassky_1972_game6.pgn").read_text()
NODES = 40_000


def evals_of(game):
    board = Board(game.start_fen, capacity=len(game.moves) + 64)
    out = []
    for ply in range(len(game.moves) + 1):
        found = engine.analyse(board=board, nodes=NODES)
        out.append(PositionEval(side=found.side_to_move, score=found.score, pv=found.pv, terminal=found.terminal,
                                depth=found.depth, material=wdl.material(found.fen)))
        if ply < len(game.moves):
            board.push_uci(game.moves[ply])
    return out


def contradicted(r):
    """A reason whose own numbers say the other way: a move said to lose material or let a mate in whose
    line does not, or a missed gain the best line does not win."""
    if r.kind == "allows_mate":
        return not (r.mate and r.mate < 0)
    if r.kind == "misses_mate":
        return not (r.mate and r.mate > 0)
    if r.kind in ("hangs", "threat_not_parried", "loses_exchange") or r.kind.startswith("allows_"):
        return not (r.material is not None and r.material < 0)
    if r.kind.startswith("misses_"):
        return not (r.material is not None and r.material > 0)
    return False


@pytest.fixture(scope="module", params=["shilling", "fischer"])
def reviewed(request):
    (game,) = read_games(SHILLING if request.param == "shilling" else FISCHER)
    evals = evals_of(game)
    first = "white" if game.start_fen.split()[1] == "w" else "black"
    return request.param, game, evals, review_game(first, game.moves, evals, start_fen=game.start_fen)


def test_every_marked_move_has_a_reason_its_lines_show(reviewed):
    _, game, evals, review = reviewed
    marked = [m for m in review.moves if m.judgement]
    assert marked
    for m in marked:
        r = m.reason
        assert r is not None and r.side == m.side and r.sentence().endswith("."), m
        shown = [list(evals[m.ply + 1].pv), list(evals[m.ply].pv)]  # the reply's line, the best line
        assert any(list(r.moves) == line[:len(r.moves)] for line in shown), (m, r)
        assert not contradicted(r), (m, r)
    assert all(m.reason is None for m in review.moves if not m.judgement)


def test_without_the_start_there_are_no_reasons(reviewed):
    _, game, evals, _ = reviewed
    first = "white" if game.start_fen.split()[1] == "w" else "black"
    assert all(m.reason is None for m in review_game(first, game.moves, evals).moves)


def test_the_shilling_game_s_marks_and_their_reasons(reviewed):
    name, game, evals, review = reviewed
    if name != "shilling":
        pytest.skip("the Blackburne Shilling gambit")
    marked = {m.ply: m for m in review.moves if m.judgement}
    assert (marked[8].move, marked[8].judgement) == ("e5f7", "blunder")  # 5. Nxf7??
    be2 = marked[12]  # 7. Be2?? lets Nf3 mate at once
    assert (be2.move, be2.reason.kind, be2.reason.squares, be2.reason.mate) == ("c4e2", "allows_mate", ("f3",), -1)
    assert be2.reason.sentence() == "Allows mate in 1: Nf3#."


def test_the_annotated_pgn_carries_the_sentence(reviewed):
    _, game, evals, review = reviewed
    text = write_game(game, evals, review)
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None and not read.errors
    name, _, _, _ = reviewed
    assert (read.headers["ECO"], read.headers["Opening"]) == {  # by position, lichess-org/chess-openings
        "shilling": ("C50", "Italian Game: Blackburne-Kostić Gambit"),
        "fischer": ("D59", "Queen's Gambit Declined: Tartakower Defense")}[name]
    nodes = list(read.mainline())
    for m in review.moves:
        if m.judgement:
            comment = nodes[m.ply].comment
            sentence = m.reason.sentence()
            if m.reason.kind == "loses":  # "Bxf7+ was better: the score goes ..." as "Bxf7+ was best: ..."
                sentence = sentence.replace(" was better: ", " was best: ")
            assert sentence in comment and "was best" in comment, comment


def test_no_move_reason_contradicts_its_lines_on_win_at_chess():
    """The second and third best moves of 25 Win At Chess positions, judged as played: each reason quotes
    the reply's or the best line's own moves, and its numbers agree with what it says."""
    kinds = set()
    for row in (SUITES / "wac.epd").read_text().splitlines()[:25]:
        fen = " ".join(row.split()[:4]) + " 0 1"
        found = engine.analyse(fen, nodes=10_000, multipv=3)
        board = Board(fen)
        for line in found.lines[1:]:
            after = engine.analyse(fen, moves=[line.pv[0]], nodes=10_000)
            if after.terminal:
                continue
            r = explain_move(board, line.pv[0], (found.score, found.pv), (after.score, after.pv))
            kinds.add(r.kind)
            assert any(list(r.moves) == list(pv[:len(r.moves)]) for pv in (after.pv, found.pv)), r
            assert not contradicted(r), r
    assert len(kinds) >= 4  # mates, material, tactics and the fallback among them
