"""Game review: engine/review.py's marks and accuracy against Lichess's method written again from its
sources (two known games on fixed evals), the annotated PGN read back by python-chess with every eval
and NAG, reviews through the jobs API (summaries, the PGN route, errors, a repeated
review answered from the cache), and `kibitz review` end to end on a 40-move game."""

import io
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import chess
import chess.pgn
import pytest

from engine.result import Score
from engine.review import JUDGEMENTS, PositionEval, judgement, move_accuracy, review_game, win_percent, winning_chances
from kibitz.local.apigateway import proxy_event
from kibitz.local.eventsource import sqs_event
from tests import jobs_cases
from tests.batch_support import stack
from tests.conftest import ROOT

FISCHER_FILE = ROOT / "benchmarks" / "data" / "fischer_spassky_1972_game6.pgn"  # 40 moves
FISCHER = FISCHER_FILE.read_text()

SHILLING = json.loads(jobs_cases.load_event("jobs-post-review.json")["body"])["pgn"]  # 5. Nxf7?? is the blunder
NAG_OF = {6: "inaccuracy", 2: "mistake", 4: "blunder"}


# --- Lichess's method, written again from its sources ---------------------------------------------
#
# Plain Python, separate from engine/review.py, shaped as the Scala it follows (docs/review-numbers.md
# names the files): fishnet's evaluations become lila's Infos (White's side, the mated position dropped,
# no line where the game's move was the engine's), then Advice, AccuracyPercent.gameAccuracy and
# AccuracyCP. lila puts +0.15 (Cp.initial) before the first move where Kibitz uses the start's own
# analysis: the test games' starts are analysed at +0.15, so the two agree.


def lila_winning_chances(cp):  # scalachess WinPercent.winningChances
    return min(1.0, max(-1.0, 2 / (1 + math.exp(-0.00368208 * cp)) - 1))


def lila_ceiled(cp):  # scalachess Eval.Cp.ceiled
    return 1000 if cp > 1000 else -1000 if cp < -1000 else cp


def lila_win_percent(cp):  # scalachess WinPercent.fromCentiPawns
    return 50 + 50 * lila_winning_chances(lila_ceiled(cp))


def lila_accuracy_percent(before, after):  # lila AccuracyPercent.fromWinPercents
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) + -3.166924740191411
    return min(100.0, max(0.0, raw + 1))


def lila_force_as_cp(cp, mate):  # lila tree Eval.forceAsCp
    if cp is not None:
        return cp
    return -2**31 - mate if mate < 0 else 2**31 - 1 - mate


def scala_sliding(xs, size):
    return [xs] if len(xs) <= size else [xs[i:i + size] for i in range(len(xs) - size + 1)]


def population_sd(xs):  # scalalib Maths.standardDeviation
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


def lila_game_accuracy(start_white, cps):  # lila AccuracyPercent.gameAccuracy; cps: White's, after each move
    all_win = [lila_win_percent(cp) for cp in [15] + cps]  # Cp.initial :: cps
    window = min(8, max(2, len(cps) // 10))
    windows = [all_win[:window]] * (min(window, len(all_win)) - 2) + scala_sliding(all_win, window)
    weights = [min(12.0, max(0.5, population_sd(xs))) for xs in windows]
    moves = {"white": [], "black": []}
    # Scala's zip stops at the shorter list, as strict=False does
    for i, ((prev, nxt), weight) in enumerate(zip(zip(all_win, all_win[1:], strict=False), weights, strict=False)):
        color = "white" if (i % 2 == 0) == start_white else "black"
        accuracy = lila_accuracy_percent(prev, nxt) if color == "white" else lila_accuracy_percent(nxt, prev)
        moves[color].append((accuracy, weight))
    out = {}
    for color, pairs in moves.items():
        weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
        harmonic = len(pairs) / sum(1 / max(1, a) for a, _ in pairs)
        out[color] = (weighted + harmonic) / 2
    return out, moves


def lila_infos(evaluations, moves):
    """lila fishnet AnalysisBuilder.makeInfos: evaluations are (cp, mate, pv) from the side to move, one per
    position; an Info per move (after it) is (ply, cp, mate, variation), White's side."""
    kept = [e for e in evaluations if e[1] != 0]  # filterNot(isCheckmate)
    infos = []
    for index, ((before, after), move) in enumerate(zip(zip(kept, kept[1:], strict=False), moves, strict=False)):
        variation = list(before[2]) if before[2] and before[2][0] != move else []
        ply = index + 1
        cp, mate = after[0], after[1]
        if ply % 2 == 1:  # Black to move after it: turned to White's side
            cp, mate = (None if cp is None else -cp), (None if mate is None else -mate)
        infos.append((ply, cp, mate, variation))
    return infos


def lila_advice(prev, info):
    """lila tree Advice(prev, info): the judgement name and, for a mate turned round, its sequence."""
    color = "white" if (info[0] - 1) % 2 == 0 else "black"  # Info.color: the turn before its ply
    if prev[1] is not None and info[1] is not None:  # CpAdvice
        delta = lila_winning_chances(info[1]) - lila_winning_chances(prev[1])
        delta = -delta if color == "white" else delta
        for threshold, name in ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy")):
            if threshold <= delta:
                return name, None
        return None
    sign = -1 if color == "black" else 1  # MateAdvice: invertIf(color.black)
    p_cp, p_mate = (None if prev[1] is None else sign * prev[1]), (None if prev[2] is None else sign * prev[2])
    n_cp, n_mate = (None if info[1] is None else sign * info[1]), (None if info[2] is None else sign * info[2])
    prev_cp_or_zero, cp_or_zero = p_cp or 0, n_cp or 0
    if p_cp is not None and n_mate is not None and n_mate < 0:
        return ("inaccuracy" if prev_cp_or_zero < -999 else "mistake" if prev_cp_or_zero < -700 else "blunder",
                "created")
    if p_mate is not None and p_mate > 0 and (n_cp is not None or n_mate < 0):
        return "inaccuracy" if cp_or_zero > 999 else "mistake" if cp_or_zero > 700 else "blunder", "lost"
    return None


def lila_review(evaluations, moves):
    """(accuracy per side, per-move accuracies per side, {ply: (judgement, mate sequence)}, ACPL per side)
    for a game White starts, by lila's code paths."""
    infos = lila_infos(evaluations, moves)
    start = (0, 15, None, [])  # Info.start: evals.initial
    advices = {}
    for prev, info in zip([start] + infos, infos, strict=False):
        if info[3]:  # hasVariation
            found = lila_advice(prev, info)
            if found:
                advices[info[0] - 1] = found
    cps = [lila_force_as_cp(cp, mate) for _, cp, mate, _ in infos]
    accuracy, per_move = lila_game_accuracy(True, cps)
    acpl = {}
    for color, evals in (("white", [start] + infos), ("black", infos)):  # AccuracyCP.diffsList
        diffs = [max(0, (lila_ceiled(lila_force_as_cp(e2[1], e2[2])) - lila_ceiled(lila_force_as_cp(e1[1], e1[2])))
                     * (-1 if color == "white" else 1))
                 for e1, e2 in (evals[i:i + 2] for i in range(0, len(evals) - 1, 2))]
        acpl[color] = math.floor(sum(diffs) / len(diffs) + 0.5)
    return accuracy, per_move, advices, acpl


def test_the_reference_agrees_with_lilas_own_tests():
    """lila's AccuracyPercentTest cases (modules/analyse/src/test), on the reference above."""
    def accuracy(cps):
        return lila_game_accuracy(True, cps)[0]
    for cps, white, black, tolerance in (([15, 15], 100, 100, 1), ([-900, -900], 10, 100, 5),
                                         ([15, 900], 100, 10, 5), ([15] * 20 + [-900], 50, 100, 5),
                                         ([-50, 15] * 50, 76, 76, 8), ([-135, 15] * 50, 54, 54, 8),
                                         ([-435, 15] * 50, 20, 20, 8)):
        got = accuracy(cps)
        assert abs(got["white"] - white) <= tolerance and abs(got["black"] - black) <= tolerance


# --- engine/review.py against it --------------------------------------------------------------------

# Fischer-Spassky, game 6: Kibitz's scores at 30000 nodes a position (from the side to move: cp, mate,
# the search's best move), fixed here so the test searches nothing; a few changed (marked) so that
# every rule has a move to judge.
FISCHER_EVALS = [
    (15, None, "e2e4"), (-3, None, "e7e5"), (27, None, "d2d4"), (-24, None, "c7c5"), (19, None, "d2d4"),
    (-25, None, "g8f6"), (21, None, "e2e3"), (-12, None, "f8b4"), (12, None, "e2e3"), (-13, None, "e8g8"),
    (19, None, "e2e3"), (-3, None, "c7c6"), (20, None, "g5f4"), (-28, None, "f6e4"),
    (110, None, "c4d5"),  # 35 at 30000 nodes: 7... b6 an inaccuracy
    (-7, None, "f6d5"), (7, None, "h4e7"), (8, None, "d5e7"), (21, None, "c3d5"), (-20, None, "e6d5"),
    (15, None, "f1e2"), (-32, None, "c8b7"), (22, None, "f1d3"), (57, None, "a7a5"), (-29, None, "a4a3"),
    (19, None, "b8d7"), (-13, None, "f1e2"), (37, None, "b8d7"), (-40, None, "e1g1"), (52, None, "b6c5"),
    (-10, None, "e1g1"), (22, None, "b8d7"), (25, None, "b5d3"), (9, None, "a7b7"), (-2, None, "f3d4"),
    (-44, None, "e7f6"), (72, None, "d4e6"),
    (150, None, "f7e6"),  # -74: 19. Nxe6, the search's own move, loses 2.2 pawns and is not marked
    (53, None, "a3c3"), (-74, None, "d5d4"), (91, None, "e2c4"), (-70, None, "f8e7"), (78, None, "a3g3"),
    (-72, None, "g8h8"), (61, None, "e2g4"), (-91, None, "g8h8"), (89, None, "c1e1"), (-33, None, "b8b2"),
    (112, None, "b2b3"), (-118, None, "e7c7"), (114, None, "f4f5"), (-120, None, "e7g5"), (212, None, "f1f5"),
    (-100, None, "a5a4"), (171, None, "e5e6"), (-162, None, "h7g5"), (204, None, "g1h1"), (-226, None, "a7e7"),
    (253, None, "h2h4"), (-261, None, "d4d3"), (212, None, "e5e6"), (-248, None, "b7c7"), (264, None, "g3g6"),
    (-211, None, "d4d3"), (264, None, "f1f4"), (-229, None, "e8g6"), (292, None, "f1f2"), (-254, None, "d4d3"),
    (252, None, "h4h5"), (-278, None, "e8g6"), (262, None, "h4h5"), (-257, None, "c7b7"),
    (None, 5, "f5f7"),  # 319: 36... Qe8 lets White mate
    (-850, None, "h7f6"),  # -276: 37. Qe4 lets the mate go, still +8.50
    (337, None, "f5f6"), (-330, None, "g7f6"), (334, None, "f3f6"), (-388, None, "h8g8"),
    (2000, None, "e4e5"),  # 383: above lila's ceiling, which its marks do not apply
    (-450, None, "g8g7"),  # -333: 40. Bc4 from +20 to +4.50, a blunder unclamped, a mistake clamped
    (1075, None, "e4f4"), (-1105, None, "h8g7"),
]
SHILLING_EVALS = [  # Kibitz's at 30000 nodes, unchanged: 7... Nf3# mates
    (15, None, "e2e4"), (-37, None, "e7e5"), (36, None, "g1f3"), (-38, None, "g8f6"), (26, None, "f1b5"),
    (-14, None, "g8f6"), (114, None, "f3d4"), (39, None, "d8g5"), (-50, None, "c4f7"), (295, None, "g5g2"),
    (-279, None, "d2d3"), (688, None, "g2e4"), (-551, None, "d1e2"), (None, 1, "d4f3"), (None, 0, None),
]


def game_moves(pgn):
    return [m.uci() for m in chess.pgn.read_game(io.StringIO(pgn)).mainline_moves()]


def position_evals(table):
    evals = []
    for ply, (cp, mate, best) in enumerate(table):
        side = "white" if ply % 2 == 0 else "black"
        score = Score(mate=mate) if mate is not None else Score(cp=cp)
        evals.append(PositionEval(side=side, score=score, pv=(best,) if best else (),
                                  terminal="checkmate" if mate == 0 else None))
    return evals


def reviewed_as_lila_would(pgn, table):
    """engine/review.py's review of a game on fixed evals, checked against the reference: each side's
    accuracy, ACPL and per-move accuracies, and every marked move's mark."""
    moves = game_moves(pgn)
    assert len(table) == len(moves) + 1 and table[0][0] == 15  # the start at lila's Cp.initial
    review = review_game("white", moves, position_evals(table))
    accuracy, per_move, advices, acpl = lila_review([(cp, mate, (best,) if best else ()) for cp, mate, best in table],
                                                    moves)
    for side in ("white", "black"):
        assert review.sides[side].accuracy == pytest.approx(accuracy[side], abs=0.05 + 1e-9), side
        assert review.sides[side].acpl == acpl[side], side
        mine = [m.accuracy for m in review.moves if m.side == side and m.accuracy is not None]
        assert mine == pytest.approx([a for a, _ in per_move[side]], abs=1e-9), side
        parity = 0 if side == "white" else 1
        assert review.sides[side].counts == {name: sum(1 for ply, (j, _) in advices.items()
                                                       if j == name and ply % 2 == parity)
                                             for name in ("inaccuracy", "mistake", "blunder")}
    marked = {m.ply: (m.judgement, m.mate) for m in review.moves if m.judgement}
    assert marked == advices
    return review


@pytest.mark.parametrize("pgn, table", [(FISCHER, FISCHER_EVALS), (SHILLING, SHILLING_EVALS)],
                         ids=["fischer", "shilling"])
def test_a_known_game_gets_lichesss_accuracy_and_marks(pgn, table):
    assert reviewed_as_lila_would(pgn, table).moves


def test_the_fischer_evals_reach_every_rule():
    review = reviewed_as_lila_would(FISCHER, FISCHER_EVALS)
    marks = {m.ply: (m.judgement, m.comment) for m in review.moves if m.judgement}
    assert marks[13] == ("inaccuracy", "Inaccuracy")  # 7... b6
    assert marks[71] == ("blunder", "Checkmate is now unavoidable")  # 36... Qe8
    assert marks[72] == ("mistake", "Lost forced checkmate sequence")  # 37. Qe4, still +8.50
    assert marks[78] == ("blunder", "Blunder")  # 40. Bc4: lila judges the score unclamped
    assert judgement(winning_chances(1000) - winning_chances(450)) == "mistake"  # clamped, it would be a mistake
    nxe6 = review.moves[36]
    assert nxe6.move == nxe6.best and nxe6.judgement is None and nxe6.accuracy < 50  # the best move: no mark
    assert len(review.win_chances) == 82 and review.win_chances[0] == pytest.approx(win_percent(15))


def test_the_move_that_mates_is_neither_marked_nor_counted():
    review = reviewed_as_lila_would(SHILLING, SHILLING_EVALS)
    mate = review.moves[-1]
    assert (mate.move, mate.accuracy, mate.cp_loss, mate.judgement) == ("d4f3", None, None, None)
    assert review.moves[8].judgement == "blunder" and review.moves[8].comment == "Blunder"  # 5. Nxf7??
    assert review.moves[12].comment == "Checkmate is now unavoidable"  # 7. Be2, from -5.51
    assert review.win_chances[-1] == review.win_chances[-2] == pytest.approx(win_percent(-1000))  # as Lichess draws


def ev(side, cp, best="a2a3"):
    return PositionEval(side=side, score=Score(cp=cp), pv=(best,))


def test_lichess_constants():
    assert [name for name, _ in JUDGEMENTS] == ["blunder", "mistake", "inaccuracy"]
    assert judgement(0.0999) is None and judgement(0.1) == "inaccuracy" and judgement(0.2) == "mistake"
    assert judgement(0.3) == "blunder" and judgement(2) == "blunder"
    assert win_percent(0) == 50 and win_percent(5000) == win_percent(1000) == pytest.approx(97.5, abs=0.05)
    assert winning_chances(100) == pytest.approx(0.1820, abs=1e-4)
    assert move_accuracy(60, 60) == 100 and move_accuracy(60, 70) == 100
    assert move_accuracy(60, 50) < move_accuracy(60, 55) < 100 and move_accuracy(100, 0) == 0
    assert move_accuracy(50, 49.999) == 100  # the +1 for the analysis' imprecision, clamped


def test_moves_next_to_a_missing_analysis_are_not_judged():
    evals = [ev("white", 30), None, ev("white", 500), ev("black", -500)]
    review = review_game("white", ["e2e4", "e7e5", "g1f3"], evals)
    assert [m.judgement for m in review.moves] == [None, None, None]
    assert [m.accuracy is None for m in review.moves] == [True, True, False]
    assert review.sides["black"].accuracy is None and review.win_chances[1] is None
    with pytest.raises(ValueError, match="3 moves need 4"):
        review_game("white", ["e2e4", "e7e5", "g1f3"], evals[:3])


def test_black_first_and_a_mate_delayed():
    # Black moves first (a game from a FEN); 1... Qh4 lets a mate in 2 become a mate in 4: not marked
    evals = [PositionEval(side="black", score=Score(mate=2), pv=("d8h4",)),
             PositionEval(side="white", score=Score(mate=-4), pv=("h2h3",)), ev("black", 300)]
    review = review_game("black", ["d8g5", "g2g3"], evals)
    first, second = review.moves
    assert first.side == "black" and first.judgement is None and first.cp_loss == 0
    assert second.side == "white" and second.judgement is None  # escaping the mate is no mistake
    assert review.win_chances[0] == pytest.approx(100 - win_percent(1000))


# --- the annotated PGN, read back by python-chess -------------------------------------------------


def lila_mark(before, after, mover):
    """Lichess's mark of a move from python-chess's evals before and after it (the reference above)."""
    def info(pov, ply):
        s = pov.white()
        return (ply, None, s.mate()) if s.is_mate() else (ply, s.score(), None)
    found = lila_advice(info(before, 0), info(after, 1 if mover == chess.WHITE else 2))
    return found[0] if found else None


def read_annotated(text, games=1):
    """python-chess's reading of the annotated PGN: every move has its eval, NAGs only ?!, ?, ??, and each
    NAG is the mark Lichess's rules give the evals in the PGN. Returns [(game, [(node, mark from the
    evals)])]."""
    handle = io.StringIO(text)
    out = []
    for _ in range(games):
        game = chess.pgn.read_game(handle)
        assert game is not None and not game.errors, game and game.errors
        assert game.eval() is not None  # the start position's, in the comment before the first move
        for tag in ("WhiteAccuracy", "BlackAccuracy", "WhiteACPL", "BlackACPL", "Annotator"):
            assert tag in game.headers
        board, previous, judged = game.board(), game.eval(), []
        for node in game.mainline():
            assert node.eval() is not None, f"no eval after {node.move}"
            mover = board.turn
            board.push(node.move)
            mark = None if board.is_checkmate() else lila_mark(previous, node.eval(), mover)
            assert node.nags <= set(NAG_OF), node.nags
            if node.nags:
                (nag,) = node.nags
                assert NAG_OF[nag] == mark, (node.move, nag, mark)
                assert node.parent.variations[1:] and "was best" in node.comment  # the better line, what it was
                assert not node.comment.strip().endswith("was best."), node.comment  # the reason follows
            judged.append((node, mark))
            previous = node.eval()
        out.append((game, judged))
    assert chess.pgn.read_game(handle) is None
    return out


# --- reviews through the jobs API ------------------------------------------------------------------


def run_queue(s):
    """BatchFunction in this process on every message of the queue (what the pollers would do)."""
    while True:
        got = s.sqs.receive_message(QueueUrl=s.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"],
                                    MessageAttributeNames=["All"]).get("Messages", [])
        if not got:
            return
        assert s.invoke_batch(sqs_event(got, s.queue_arn, "us-east-1")) == {"batchItemFailures": []}
        for m in got:
            s.sqs.delete_message(QueueUrl=s.queue_url, ReceiptHandle=m["ReceiptHandle"])


def get_pgn(s, job_id):
    response = s.call(proxy_event("GET", f"/jobs/{job_id}/pgn", "", resource="/jobs/{job_id}/pgn",
                                  path_parameters={"job_id": job_id}))
    body = response["body"]
    return response["statusCode"], (body if response["statusCode"] == 200 else json.loads(body)), response


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("review")) as st:
        yield st


def test_a_review_marks_the_known_blunder_and_reads_back_in_python_chess(s, monkeypatch):
    monkeypatch.setenv("KIBITZ_CACHE_TABLE", s.aws.resources["AnalysisCacheTable"]["Ref"])
    pgn = SHILLING + "\n" + SHILLING.replace("Greed", "Greed again")  # two games
    # Depth 12: shallower, 5. Nxf7 can read as a mistake (net-x6 at depth 8 with EgScale; net-v5 at depth 10,
    # Black's reply Qxg2 scored +2.59 there against +3.73 at depth 12).
    status, body = s.post({"pgn": pgn, "review": True, "depth": 12})
    assert status == 202 and body["total"] == 30
    job_id = body["job_id"]
    status, early, _ = get_pgn(s, job_id)
    assert status == 409 and "is queued" in early["errors"][0]["reason"]
    status, state = s.get(job_id)
    assert state["review"] is True and state["games"] is None  # not finished
    run_queue(s)
    status, state = s.get(job_id, "limit=200")
    assert status == 200 and state["status"] == "done" and len(state["games"]) == 2
    game = state["games"][0]
    assert (game["white"], game["black"], game["result"], game["plies"], game["judged"]) == \
        ("Greed", "Trap", "0-1", 14, 13)  # the move that mates is not judged, as on Lichess
    assert game["judgements"]["white"]["blunder"] >= 1
    at_ply_8 = [f for f in game["flagged"] if f["ply"] == 8]
    assert len(at_ply_8) == 1 and (at_ply_8[0]["move"], at_ply_8[0]["judgement"]) == ("5. Nxf7??", "blunder")
    assert all(f["reason"]["text"] and f["reason"]["side"] == ("white" if f["ply"] % 2 == 0 else "black")
               for f in game["flagged"])  # every marked move says why (engine/coach)
    assert game["opening"] == {"eco": "C50", "name": "Italian Game: Blackburne-Kostić Gambit"}  # by position
    assert game["accuracy"]["white"] < game["accuracy"]["black"] and game["acpl"]["white"] > game["acpl"]["black"]
    assert len(game["win_chances"]) == 15 and game["win_chances"][-1] == 2.5  # Black mated White: -10.00
    status, text, response = get_pgn(s, job_id)
    assert status == 200 and response["multiValueHeaders"]["Content-Type"][0].startswith("text/plain")
    (first, judged), (second, _) = read_annotated(text, games=2)
    assert first.headers["White"] == "Greed" and second.headers["White"] == "Greed again"
    assert first.headers["ECO"] == "C50" and first.headers["Opening"] == "Italian Game: Blackburne-Kostić Gambit"
    nxf7 = judged[8][0]
    assert nxf7.san() == "Nxf7" and nxf7.nags == {chess.pgn.NAG_BLUNDER}
    # Both ways: a move without a NAG whose evals give it a mark was the search's own move.
    best = {r["index"]: r["analysis"]["best_move"] for r in state["results"]}
    for node, from_evals in judged:
        if not node.nags and from_evals is not None:
            assert best[node.ply() - 1] == node.move.uci(), (node.move, from_evals)
    # A repeated review answers every position from the cache (but the final mate, which needs no search).
    status, again = s.post({"pgn": SHILLING, "review": True, "depth": 10})
    run_queue(s)
    results = s.results(again["job_id"])
    assert [r.analysis.cached for r in results] == [True] * 14 + [False]
    status, repeat, _ = get_pgn(s, again["job_id"])
    assert repeat == text.split("\n\n[Event")[0].rstrip("\n") + "\n"  # the same annotations


def test_review_errors(s):
    status, body = s.post({"pgn": "1. e4 e5 2. Nf3 Nc6 3. Bb5 Bb4 4. Kxe8 *", "review": True})
    assert status == 422 and body["errors"][0]["field"] == "pgn"
    assert "game 1: move 4. Kxe8" in body["errors"][0]["reason"]
    status, body = s.post({"epd": "8/8/8/8/8/5k2/8/4K2R w K - bm Rh3;", "review": True})
    assert status == 422 and body["errors"][0]["field"] == "review"
    status, body = s.post({"pgn": SHILLING, "review": "yes"})
    assert status == 422 and body["errors"][0]["field"] == "review"
    status, body, _ = get_pgn(s, "0badf00d-0000-4000-8000-000000000404")
    assert status == 404 and body["errors"][0]["field"] == "job_id"


# --- kibitz review ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_kibitz_review_of_a_40_move_game_at_300_ms(tmp_path):
    """The issue's test: a 40-move game at 300 ms a move, locally, read back by python-chess."""
    game = FISCHER_FILE
    out, graphs = tmp_path / "annotated.pgn", tmp_path / "graphs"
    env = {k: v for k, v in os.environ.items() if k not in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL",
                                                              "KIBITZ_URL")}
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(game), "--movetime-ms", "300", "-o",
                           str(out), "--graph", str(graphs)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"game 1: Fischer, Robert James - Spassky, Boris V \(1-0\), 81 plies", proc.stdout)
    assert re.search(r"White +\d+\.\d +\d+ ", proc.stdout) and re.search(r"Black +\d+\.\d +\d+ ", proc.stdout)
    assert "82/82" in proc.stderr  # the progress bar got to the end (81 plies, 82 positions)
    assert re.search(r"^    \d+\.(\.\.)? \S+(\?!|\?\?|\?) [A-Za-z].*\.$", proc.stdout, re.M)  # a marked move's reason
    ((read, judged),) = read_annotated(out.read_text())
    assert len(judged) == 81 and read.headers["Result"] == "1-0"
    svg = ET.parse(graphs / "game-1.svg").getroot()
    assert svg.tag.endswith("svg") and svg.find("{http://www.w3.org/2000/svg}polygon") is not None
    assert len([c for c in svg.iter("{http://www.w3.org/2000/svg}circle")]) >= 3  # the legend's, and any flags


def test_kibitz_review_explains_a_bad_pgn(tmp_path):
    bad = tmp_path / "bad.pgn"
    bad.write_text("1. e4 e5 2. Ke3 *\n")
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(bad), "--url", "http://127.0.0.1:9"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "cannot reach http://127.0.0.1:9" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "review", str(tmp_path / "x.txt")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "expected a .pgn file" in proc.stderr
    assert pathlib.Path(bad).exists()


def test_kibitz_review_prints_each_marked_moves_reason():
    from kibitz.clients.review import summary_lines

    reason = {"kind": "allows_mate", "side": "white", "text": "Allows mate in 1: Nf3#.", "pieces": ["knight"],
              "squares": ["f3"], "moves": ["d4f3"], "san": ["Nf3#"], "material": None, "mate": -1, "themes": []}
    game = {"game": 1, "white": "Greed", "black": "Trap", "result": "0-1", "plies": 14,
            "accuracy": {"white": 54.6, "black": 79.2}, "acpl": {"white": 177, "black": 39},
            "judgements": {side: {"inaccuracy": 0, "mistake": 0, "blunder": 1} for side in ("white", "black")},
            "flagged": [{"ply": 12, "move": "7. Be2??", "judgement": "blunder", "best": "Qe2",
                         "comment": "Checkmate is now unavoidable", "reason": reason}]}
    lines = summary_lines(game)
    assert "    7. Be2?? Allows mate in 1: Nf3#." in lines
