"""The endgame tables on by default in every answer (issue 70.4): engine.analyse(), the API's answer through
the one analyse_request, the cache key and its bypass, the review judging table positions by the table,
and UCI's Tablebases option."""

import chess.gaviota

import engine
from engine import cache_key, tablebase
from engine.board import Board
from engine.result import Score
from engine.review import PositionEval, review_game
from functions.common.analysis.cache import analyse_cached
from functions.common.analysis.request import analyse_request
from functions.common.api.models import AnalysisAnswer, SearchLimits
from functions.common.jobs.review_report import position_eval
from tests.conftest import data_file
from tests.test_uci_search import Engine

KRVKB_DRAW = "8/8/4k3/8/3b4/8/8/4K2R w - - 0 1"  # rook against bishop, nothing hangs: a draw
KQVK = "8/8/8/4k3/8/8/8/4K2Q w - - 0 1"
KQVK_MATE_IN_ONE = "k7/8/1K1Q4/8/8/8/8/8 w - - 0 1"  # Qd8#, Qf8#; Qc7 stalemates


def test_a_drawn_rook_against_bishop_is_answered_as_a_draw_at_once():
    found = engine.analyse(KRVKB_DRAW, movetime_ms=5000)
    assert found.tablebase["category"] == "draw" and "dtm" not in found.tablebase
    assert found.score == Score(cp=0) and found.nodes == 0 and found.tbhits > 0 and found.time_ms < 5000
    assert found.best_move in found.tablebase["best"]
    answer = analyse_request(KRVKB_DRAW, [], SearchLimits(movetime_ms=5000), 5000, None).answer
    assert answer.tablebase.category == "draw" and answer.tablebase.dtm is None and answer.score.cp == 0
    assert answer.wdl.draw == 1000 and answer.tbhits > 0
    assert len(answer.tablebase.best_san) == len(answer.tablebase.best) and "Rh6+" in answer.tablebase.best_san


def test_a_queen_wins_with_the_tables_mate_distance():
    board = Board(KQVK)
    value = tablebase.default().probe(board)
    gaviota = chess.gaviota.open_tablebase(str(data_file("gaviota")))  # test oracle only
    plies = gaviota.probe_dtm(chess.Board(KQVK))
    assert value == plies and tablebase.dtm_moves(value) == (plies + 1) // 2 == 7
    answer = analyse_request(KQVK, [], SearchLimits(), 1000, None).answer
    assert answer.tablebase.category == "win" and answer.tablebase.dtm == 7 and answer.score.mate == 7
    assert answer.best_move in answer.tablebase.best and answer.best_move_san in answer.tablebase.best_san
    assert answer.pv[0] == answer.best_move and len(answer.pv) == 13  # the table's line, to the mate
    # black to move in the same position is the loss, mated in the table's moves
    lost = engine.analyse(KQVK.replace(" w ", " b "), movetime_ms=1000)
    assert lost.tablebase["category"] == "loss" and lost.tablebase["dtm"] == lost.score.mate < 0


def test_tables_off_answer_by_a_search_without_the_field():
    answer = analyse_request(KQVK, [], SearchLimits(depth=6, tablebases=False), 10_000, None).answer
    assert answer.tablebase is None and answer.tbhits == 0 and answer.nodes > 0
    assert "tablebase" in answer.model_dump() and answer.model_dump()["tablebase"] is None


def test_a_mate_the_fifty_move_rule_cuts_is_a_cursed_win():
    found = engine.analyse(KQVK.replace("0 1", "95 80"), depth=4)  # mate in 7 = 13 plies, 5 left on the clock
    # KQvK: only the mate resets the count, so the judgement is exact; the rule's draw is the score
    assert found.tablebase["category"] == "cursed-win" and found.tablebase["exact"] and found.tablebase["dtz"] == 13
    assert found.score == Score(cp=0) and found.nodes == 0


def test_a_repetition_within_reach_is_searched_not_answered_by_the_tables():
    # Black is lost by the table, but Kh8 would repeat the game's position for the third time: a draw
    history = ["h1g1", "h8g8", "g1h1", "g8h8", "h1g1", "h8g8", "g1h1"]
    found = engine.analyse("7k/8/8/8/8/8/8/3Q3K w - - 0 1", moves=history, depth=6)
    assert found.tablebase is None and found.best_move == "g8h8" and found.score.cp == 0
    assert engine.analyse("6k1/8/8/8/8/8/8/3Q3K b - - 0 1", depth=6).tablebase["category"] == "loss"


def test_five_pieces_have_no_table_field():
    found = engine.analyse("4k3/8/8/8/8/8/8/RR2K2R w - - 0 1", depth=3)
    assert found.tablebase is None


def test_the_cache_key_differs_with_the_tables_on_and_off():
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    on, off = cache_key.key(board), cache_key.key(board, tablebases=False)
    assert on != off and on == cache_key.key(board, tablebases=True)
    assert on.split()[0] == off.split()[0] + ".tb" and on.split()[1:] == off.split()[1:]


class CountingStore:
    def __init__(self):
        self.gets = self.puts = 0

    def get(self, key, multipv):
        self.gets += 1

    def put(self, key, multipv, text, old):
        self.puts += 1
        return True


def test_a_table_position_bypasses_the_cache_which_would_lose_the_field():
    store = CountingStore()
    found, outcome = analyse_cached(KQVK, [], SearchLimits(), 1000, 16, store)
    assert outcome.event == "tablebase" and not outcome.cached and found.tablebase["dtm"] == 7
    assert store.gets == store.puts == 0
    found, outcome = analyse_cached(KQVK, [], SearchLimits(depth=3, tablebases=False), 1000, 16, store)
    assert found.tablebase is None and outcome.event == "stored" and store.gets == store.puts == 1


def reviewed(fen, moves):
    """The review of a line from fen, every position analysed as the API answers it (a job's path)."""
    answers = [analyse_request(fen, moves[:ply], SearchLimits(movetime_ms=200), 200, None).answer
               for ply in range(len(moves) + 1)]
    evals = [position_eval(AnalysisAnswer.model_validate_json(a.model_dump_json())) for a in answers]
    return review_game("white", moves, evals), evals


def test_the_review_marks_a_thrown_win_and_never_a_slow_one_that_keeps_it():
    # 1. Qd7 (the mate in one let go, still a win) Kb8 (forced) 2. Qc6 stalemate: the win thrown away
    review, evals = reviewed(KQVK_MATE_IN_ONE, ["d6d7", "a8b8", "d7c6"])
    assert [e.tablebase for e in evals[:3]] == ["win", "loss", "win"] and evals[3].terminal == "stalemate"
    slow, forced, stalemate = review.moves
    assert slow.best in ("d6d8", "d6f8") and slow.judgement is None  # either mates at once
    assert forced.judgement is None
    assert stalemate.judgement == "blunder" and stalemate.comment == "Blunder"


def test_the_table_decides_whatever_the_scores_say():
    ev = lambda side, cp, table: PositionEval(side=side, score=Score(cp=cp), pv=("a1a2",), tablebase=table)  # noqa: E731
    # the scores fall by eight pawns, yet the table says the win is kept: unmarked
    kept = review_game("white", ["b1b2"], [ev("white", 900, "win"), ev("black", -100, "loss")])
    assert kept.moves[0].judgement is None and kept.moves[0].drop > 30
    # the scores barely move, yet the win became a draw: a blunder
    thrown = review_game("white", ["b1b2"], [ev("white", 300, "win"), ev("black", -290, "draw")])
    assert thrown.moves[0].judgement == "blunder"
    # a draw given away to a loss, by Black
    lost = review_game("black", ["b1b2"], [ev("black", 0, "draw"), ev("white", 10, "win")])
    assert lost.moves[0].judgement == "blunder"
    # no table after the move (a clock too high, or more pieces): the scores judge as before
    plain = review_game("white", ["b1b2"], [ev("white", 900, "win"), ev("black", -100, None)])
    assert plain.moves[0].judgement == "blunder"


def test_uci_tables_are_on_by_default_and_the_option_turns_them_off():
    e = Engine()
    e.send("uci")
    options = e.until("uciok")
    assert "option name Tablebases type check default true" in options
    e.send(f"position fen {KQVK}")
    e.send("go depth 4")
    on = [line for line in e.until("bestmove") if line.startswith("info depth")][-1].split()
    e.send("setoption name Tablebases value false")
    e.send("go depth 4")
    off = [line for line in e.until("bestmove") if line.startswith("info depth")][-1].split()
    e.close()
    assert on[on.index("score") + 1:on.index("score") + 3] == ["mate", "7"] and int(on[on.index("tbhits") + 1]) > 0
    assert off[off.index("tbhits") + 1] == "0" and int(off[off.index("nodes") + 1]) > 0


# The fifty-move rule at the root (engine/tablebase.py fifty()): the tables hold distances to mate; a halfmove clock
# that leaves fewer plies than the mate needs is judged by the first zeroing move of the table's line.
def test_a_mate_within_the_count_is_an_exact_win_whatever_the_clock():
    found = engine.analyse("8/8/8/4k3/8/8/3QK3/8 w - - 80 120", movetime_ms=1000)  # mate in 7: 13 plies, 20 left
    assert found.tablebase["category"] == "win" and found.tablebase["exact"] and "dtz" not in found.tablebase
    assert found.score.mate == 7 and found.nodes == 0


def test_kbnvk_beyond_the_count_is_an_exact_cursed_win():
    # One of KBNvK's longest, mate in 33 (65 plies): only the mate resets the count (a king's capture draws), so
    # with 36 plies on the clock the rule comes first, whatever is played.
    found = engine.analyse("7N/8/8/8/8/8/8/K1k1B3 w - - 36 100", movetime_ms=1000)
    table = found.tablebase
    assert table["category"] == "cursed-win" and table["exact"] and table["dtm"] == 33 and table["dtz"] == 65
    assert found.score == Score(cp=0) and found.nodes == 0 and found.best_move in table["best"]
    fresh = engine.analyse("7N/8/8/8/8/8/8/K1k1B3 w - - 35 100", movetime_ms=1000)  # 35 + 65 = 100: in time
    assert fresh.tablebase["category"] == "win" and fresh.tablebase["exact"] and fresh.score.mate == 33


def test_the_losing_side_of_a_cursed_win_has_a_blessed_loss():
    found = engine.analyse("7N/8/8/8/8/8/8/K1k1B3 w - - 36 100", moves=["a1a2"], movetime_ms=1000)
    assert found.tablebase["category"] == "blessed-loss" and found.tablebase["exact"] and found.score == Score(cp=0)


def test_a_zeroing_move_in_time_keeps_the_win_and_is_chosen():
    # KQvKR, 90 plies on the clock, mate in more than 10 moves: Qxh8+ takes the rook now (a fresh count), the move
    # whose line zeroes first; judged along the table's line, so not exact.
    found = engine.analyse("3k3r/8/8/8/8/8/8/K6Q w - - 90 100", movetime_ms=1000)
    table = found.tablebase
    assert table["category"] == "win" and table["dtz"] == 1 and not table["exact"]
    assert found.best_move == "h1h8" and table["best"] == ["h1h8"] and found.score.mate is not None


def test_a_long_queen_against_rook_win_late_in_the_count_is_a_cursed_win_by_its_line():
    found = engine.analyse("8/8/8/8/5kr1/7Q/K7/8 w - - 80 100", movetime_ms=1000)  # mate in 30, its line zeroes at 45
    table = found.tablebase
    assert table["category"] == "cursed-win" and not table["exact"] and table["dtz"] == 45
    assert found.score == Score(cp=0)
    late = engine.analyse("8/8/8/8/5kr1/7Q/K7/8 w - - 97 100", movetime_ms=1000)  # 3 plies left: every line searched
    assert late.tablebase["category"] == "cursed-win" and late.tablebase["exact"]


def test_the_review_marks_no_move_by_the_fifty_move_judgement():
    before = PositionEval(side="white", score=Score(mate=33), pv=(), terminal=None, depth=0, tablebase="win")
    after = PositionEval(side="black", score=Score(cp=0), pv=(), terminal=None, depth=0, tablebase="blessed-loss")
    from engine.review import table_verdict

    assert after.mover_result() == "cursed-win" and table_verdict(before, after) is False  # kept, not thrown away


def test_the_text_client_says_a_cursed_win_is_a_draw_by_the_rule():
    from kibitz.clients.text import tablebase_text

    cursed = {"side_to_move": "white", "tablebase": {"category": "cursed-win", "dtm": 33}}
    blessed = {"side_to_move": "black", "tablebase": {"category": "blessed-loss", "dtm": -33}}
    said = "draw by the fifty-move rule (White mates in 33, too late)"
    assert tablebase_text(cursed) == tablebase_text(blessed) == said
    lost = {"side_to_move": "black", "tablebase": {"category": "loss", "dtm": -9}}
    assert tablebase_text(lost) == "White wins, mate in 9"
