"""The win/draw/loss model (engine/wdl.py), its fit (python -m training wdl) and UCI_ShowWDL."""

import re

import numpy as np
import pytest

from engine import wdl
from engine.fen import STARTPOS
from engine.result import Score
from tests.test_uci import uci


def test_start_position_material_and_clamping():
    assert wdl.material(STARTPOS) == 2 * (8 + 3 * 2 + 3 * 2 + 5 * 2 + 9) == 78
    assert wdl.material("4k3/8/8/8/8/8/8/4K3 w - - 0 1") == 0
    assert wdl.params(0) == wdl.params(wdl.MATERIAL_RANGE[0])  # outside the fitted range: the range's edge
    assert wdl.params(200) == wdl.params(wdl.MATERIAL_RANGE[1])


@pytest.mark.parametrize("m", [17, 30, 45, 62, 78])
def test_probabilities_sum_to_1000_rise_with_the_score_and_mirror(m):
    a, b = wdl.params(m)
    assert a > 0 and b > 0  # a draw stays possible (draw = 1 - win - loss > 0) everywhere in the range
    previous = (-1, 0, 1001)
    for cp in range(-1500, 1501, 50):
        w, d, lose = wdl.wdl(Score(cp=cp), m)
        assert w + d + lose == 1000 and min(w, d, lose) >= 0
        assert w >= previous[0] and lose <= previous[2]
        assert (lose, d, w) == wdl.wdl(Score(cp=-cp), m)  # the other side's view of the same position
        previous = (w, d, lose)
    assert wdl.wdl(Score(cp=0), m)[0] == wdl.wdl(Score(cp=0), m)[2]


def test_a_and_b_follow_the_searchs_endgame_scale_when_the_fit_had_another(monkeypatch):
    monkeypatch.setattr(wdl, "FIT_EG_SCALE", 64)
    monkeypatch.setattr(wdl, "EG_SCALE", 64)  # the search as the fitted games had it
    raw = {m: wdl.params(m) for m in (17, 30, 45, 60, 78)}
    before = wdl.wdl(Score(cp=300), 20)
    monkeypatch.setattr(wdl, "EG_SCALE", 32)  # endgame scores half what the fit saw
    for m in (17, 30):  # 30 or less: the full EgScale factor
        assert wdl.params(m) == pytest.approx((raw[m][0] / 2, raw[m][1] / 2))
    a, b = wdl.params(45)  # half way to 60
    assert raw[45][0] / 2 < a < raw[45][0] and raw[45][1] / 2 < b < raw[45][1]
    for m in (60, 78):  # from 60 of material the search does not scale
        assert wdl.params(m) == raw[m]
    # the same position, its score halved by the search, keeps its win, draw and loss
    assert wdl.wdl(Score(cp=150), 20) == before


def test_the_fit_knows_the_games_endgame_scale_and_refuses_two(tmp_path):
    import json

    from engine.params import DEFAULTS, INDEX
    from training import wdl as fit

    def journal(name, a, b):
        path = tmp_path / name
        path.write_text(json.dumps({"settings": {"a": {"options": a}, "b": {"options": b}}}) + "\n")
        return path

    assert fit.games_eg_scale([journal("plain", {"Hash": 16}, {})]) == DEFAULTS[INDEX["EgScale"]]
    assert fit.games_eg_scale([journal("both", {"EgScale": 48}, {"EgScale": 48})]) == 48
    with pytest.raises(SystemExit, match="EgScale"):
        fit.games_eg_scale([journal("mixed", {"EgScale": 48}, {"EgScale": 64})])
    old = tmp_path / "old"  # a journal of a build before EgScale, whose settings cannot say it
    old.write_text(json.dumps({"settings": {"a": {"options": {}, "bench": "5060941"}, "b": {"bench": "5060941"}}}))
    with pytest.raises(SystemExit, match="--eg-scale"):
        fit.games_eg_scale([old])
    assert fit.games_eg_scale([old], stated=64) == 64
    assert fit.data_eg_scale([tmp_path], []) == 64  # gen's datasets: the net's own units
    with pytest.raises(SystemExit, match="fit them apart"):
        fit.data_eg_scale([tmp_path], [journal("both", {"EgScale": 48}, {"EgScale": 48})])
    scores = fit.to_units(np.array([100.0, 100.0, 100.0]), np.array([20, 45, 70]), 32, 64)
    assert scores.tolist() == pytest.approx([200.0, 100.0 * 64 / 48, 100.0])  # 32/64 at 20, 48/64 at 45, 1 at 60+


def test_mates_are_certain_and_win_chance_is_whites():
    assert wdl.wdl(Score(mate=3), 40) == (1000, 0, 0)
    assert wdl.wdl(Score(mate=-2), 40) == (0, 0, 1000)
    assert wdl.wdl(Score(mate=0), 40) == (0, 0, 1000)  # checkmated now
    assert wdl.win_chance_white(700, 200, 100, "white") == 80.0
    assert wdl.win_chance_white(700, 200, 100, "black") == 20.0


def test_the_same_score_means_different_chances_with_different_material():
    assert wdl.wdl(Score(cp=100), 20) != wdl.wdl(Score(cp=100), 78)


def synthetic_dataset(folder, n_games=400, seed=7):
    """Self-play-like records whose results follow a known model (a = 150, b = 120 at every material)."""
    from training import records

    rng = np.random.default_rng(seed)
    board = np.zeros(64, np.int8)
    board[[4, 60]] = [6, 14]  # kings
    board[8:16] = 1  # white pawns
    board[48:56] = 9  # black pawns
    board[[0, 7]] = 4  # white rooks
    board[[56, 63]] = 12  # black rooks
    out = []
    for game in range(n_games):
        for _ in range(10):
            score = int(rng.normal(0, 300))
            p_win, p_loss = 1 / (1 + np.exp((150 - score) / 120)), 1 / (1 + np.exp((150 + score) / 120))
            u = rng.random()
            outcome = 2 if u < p_win else 0 if u < p_win + p_loss else 1  # for the side to move (white here)
            out.append(records.pack(board, 0, score, outcome, game))
    np.concatenate([r.reshape(1) for r in out]).tofile(folder / "synthetic.bin")


def test_the_fit_finds_the_model_behind_the_data_and_beats_the_base_rates(tmp_path, monkeypatch):
    from benchmarks import report
    from training import wdl as fit

    synthetic_dataset(tmp_path)
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## WDL model\n\nthe section before\n\n## Other\n\nkept\n")
    monkeypatch.setattr(report, "DOC", doc)
    theta, model, constant = fit.run([tmp_path], record=report.record, report=lambda *a: None)
    text = doc.read_text()  # --record replaced its section, and only it
    assert f"`python -m benchmarks.wdl --data {tmp_path} --write`" in text and "the section before" not in text
    assert "| WDL model (score, material)" in text and text.endswith("## Other\n\nkept\n")
    x = fit.features(np.array([36]))  # the synthetic positions' material: 16 pawns and 4 rooks
    a, b = (x @ theta[:4]).item() * 100, (x @ theta[4:]).item() * 100
    assert abs(a - 150) < 30 and abs(b - 120) < 30, (a, b)
    assert model < constant - 0.1  # on held-back games


def test_write_rewrites_only_the_fitted_block(tmp_path):
    from training import wdl as fit

    copy = tmp_path / "wdl.py"
    copy.write_text(fit.WDL_FILE.read_text())
    fit.write_constants(np.array([0.1, 0.2, 0.3, 1.5, 0.4, 0.5, 0.6, 1.2]), ["data/x"], 40, copy)
    text = copy.read_text()
    assert "A = (10.0, 20.0, 30.0, 150.0)" in text and "B = (40.0, 50.0, 60.0, 120.0)" in text
    assert "FIT_EG_SCALE = 40\n# END FITTED" in text

    def outside(text):
        return re.sub(r"# BEGIN FITTED.*?# END FITTED", "", text, flags=re.S)

    assert outside(text) == outside(fit.WDL_FILE.read_text())


def test_uci_show_wdl():
    out = uci("uci", "setoption name UCI_ShowWDL value true", "position startpos moves e2e4", "go depth 5",
              "position startpos", "setoption name UCI_ShowWDL value maybe")
    assert "option name UCI_ShowWDL type check default false" in out
    infos = [line.split() for line in out if line.startswith("info depth")]
    assert infos and all("wdl" in words for words in infos)
    for words in infos:
        i = words.index("wdl")
        w, d, lose = map(int, words[i + 1:i + 4])
        assert w + d + lose == 1000
        assert words[words.index("score") + 1] == "cp"
        assert (w, d, lose) == wdl.wdl(Score(cp=int(words[words.index("score") + 2])), 78)
    assert any("UCI_ShowWDL needs true or false" in line for line in out)
    plain = uci("position startpos", "go depth 3", "position startpos")
    assert all("wdl" not in line for line in plain if line.startswith("info depth"))


GAME = """[Event "t"]
[Result "0-1"]

1. e4 {[%eval 0.30] [%clk 0:00:09]} d5 {[%eval 0.25]} 2. exd5 {[%eval 0.40]} Qxd5 {[%eval -0.10]}
3. Nc3 {no score} Qa5 {[%eval #-4]} 0-1
"""


def test_a_match_games_evals_give_each_searched_position_its_mover_score_and_outcome():
    from training import wdl as fit

    rows = fit.game_positions(GAME)
    # the position searched is the one before the move: e4 at 78 material, then d5, exd5 (78), Qxd5 (77)
    assert rows == [(78, 30, 0), (78, -25, 2), (78, 40, 0), (77, 10, 2)]  # mover's cp, outcome for the mover
    assert fit.game_positions(GAME.replace("0-1", "*")) == []  # unfinished: no outcome to learn from


def random_pairs(rng, pairs, clock=""):
    """A match journal's lines: its settings, then `pairs` pairs of 20-ply games whose [%eval]s (White's view,
    pawns) drift at random and whose result follows the drift; `clock` goes before each [%eval]."""
    import json

    lines = [json.dumps({"settings": {}})]
    for pair in range(pairs):
        games = []
        for _ in range(2):
            evals = rng.normal(0, 150, 20)
            result = "1-0" if evals.mean() > 60 else "0-1" if evals.mean() < -60 else "1/2-1/2"
            text = " ".join(f"{m} {{ {clock}[%eval {e / 100:.2f}] }}"
                            for m, e in zip(["Nf3", "Nf6", "Ng1", "Ng8"] * 5, evals, strict=True))
            games.append(f'[Result "{result}"]\n\n{text} {result}\n')
        lines.append(json.dumps({"pair": pair, "scores": [0.5, 0.5], "problems": [], "pgn": games}))
    return lines


def test_the_fit_reads_match_journals_holds_back_whole_pairs_and_reports_calibration(tmp_path, monkeypatch):
    import json

    from benchmarks import report
    from training import wdl as fit

    journal = tmp_path / "selfplay.jsonl"
    lines = random_pairs(np.random.default_rng(3), 300)
    # one build against itself at a fixed node count: both games of a pair alike, colours' names swapped
    moves = " ".join(f"{m} {{[%eval 0.{k}0]}}" for k, m in enumerate(["Nf3", "Nf6", "Ng1", "Ng8"] * 5))
    twins = [f'[White "{w}"]\n[Black "{b}"]\n[Result "1/2-1/2"]\n\n{moves} 1/2-1/2\n' for w, b in ("AB", "BA")]
    lines.append(json.dumps({"pair": 300, "scores": [0.5, 0.5], "problems": [], "pgn": twins}))
    journal.write_text("\n".join(lines) + "\n{torn")
    material, score, outcome, fold, game = fit.games_dataset([journal])
    # pairs 0, 5, 10 ... 300: both games in fold 0; the twins count once
    assert len(score) == 300 * 2 * 20 + 20 and (fold == 0).sum() == 60 * 2 * 20 + 20
    assert len(np.unique(game)) == 601 and all(len(np.unique(fold[game == g])) == 1 for g in range(601))
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## WDL model\n\nold\n")
    monkeypatch.setattr(report, "DOC", doc)
    fit.run(journals=[journal], record=report.record, report=lambda *a: None)
    text = doc.read_text()
    assert f"`python -m benchmarks.wdl --games {journal} --write`" in text
    assert "the constants before this fit" in text and "By material:" in text and "draw: observed - predicted" in text
    assert "gen7's constants" in text and "each game judged by a fit without it" in text
    assert re.search(r"Of the 601 distinct games, \d+ were drawn", text)


def test_each_fold_is_judged_by_a_fit_that_never_saw_its_games(tmp_path):
    from training import wdl as fit

    synthetic_dataset(tmp_path, n_games=200)
    material, score, outcome, fold, game = fit.dataset([tmp_path])
    X, s = fit.features(material), score / 100
    predicted, base = fit.out_of_fold(X, s, outcome, fold, report=lambda *a: None)
    changed = outcome.copy()
    changed[fold == 0] = 1  # fold 0's games all drawn: its own predictions must not move, the others' must
    again, base_again = fit.out_of_fold(X, s, changed, fold, report=lambda *a: None)
    assert np.allclose(again[:, fold == 0], predicted[:, fold == 0])
    assert np.allclose(base_again[:, fold == 0], base[:, fold == 0])
    assert not np.allclose(again[:, fold == 1], predicted[:, fold == 1])
    assert np.allclose(predicted.sum(axis=0), 1) and np.allclose(base.sum(axis=0), 1)


def test_the_draw_gap_interval_is_as_wide_as_the_games_not_the_positions_allow():
    from training import wdl as fit

    def interval(games, per_game):
        game = np.repeat(np.arange(games), per_game)
        drawn = np.repeat(np.arange(games) % 2 == 0, per_game)  # half the games drawn, every position of them
        return fit.gap_interval(drawn, np.full(len(game), 0.5), game)

    lo, hi = interval(100, 10)
    assert lo < 0 < hi and 0.08 < (hi - lo) / 2 < 0.12  # about 1.96 * sqrt(0.25 / 100) either way
    lo_many, hi_many = interval(100, 1000)  # a hundred times the positions of the same games: no narrower
    assert abs((hi_many - lo_many) - (hi - lo)) < 0.02
    lo_more, hi_more = interval(400, 10)  # four times the games: half as wide
    assert 0.4 < (hi_more - lo_more) / (hi - lo) < 0.6


def test_check_judges_the_constants_in_force_on_other_games_and_fits_nothing(tmp_path, monkeypatch):

    from benchmarks import report
    from training import wdl as fit

    journal = tmp_path / "clock.jsonl"
    lines = random_pairs(np.random.default_rng(5), 60, clock="[%clk 0:00:09.5] ")
    journal.write_text("\n".join(lines) + "\n")
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## WDL model\n\nthe fit's section, untouched\n")
    monkeypatch.setattr(report, "DOC", doc)
    before = fit.WDL_FILE.read_text()
    gap = fit.check([journal], record=report.record, report=lambda *a: None)
    assert fit.WDL_FILE.read_text() == before  # nothing fitted, nothing written
    text = doc.read_text()
    assert "the fit's section, untouched" in text and "## WDL model at the clock" in text
    assert f"`python -m benchmarks.wdl --check {journal}`" in text
    assert "the constants in engine/wdl.py" in text and "of 120 games" in text
    # what the report says of the -30..30 bin is what these games and the constants give
    material, score, outcome, _, game = fit.games_dataset([journal])
    mask = (score >= -30) & (score < 30)
    draw = fit.probabilities(fit.previous_theta(), fit.features(material), score / 100)[1]
    assert f"{100 * ((outcome[mask] == 1).mean() - draw[mask].mean()):+.1f}" in text
    assert gap == gap and gap >= 0


def test_check_takes_no_fit_options():
    from training.__main__ import main

    with pytest.raises(SystemExit):
        main(["wdl", "--check", "a.jsonl", "--write"])


def test_eg_factor_is_the_compiled_searchs_scaling_exactly():
    """engine/wdl.py eg_factor() restates engine/core/endgames.py material_scale() in plain Python: the
    WDL model's units follow the search's only while the two agree, for every material and score."""
    from engine.core.endgames import material_scale
    from engine.layout import BB_COLOR, BISHOP, KNIGHT, PAWN, QUEEN, ROOK

    rng = np.random.default_rng(5)
    for _ in range(300):
        counts = {PAWN: rng.integers(0, 17), KNIGHT: rng.integers(0, 5), BISHOP: rng.integers(0, 5),
                  ROOK: rng.integers(0, 5), QUEEN: rng.integers(0, 3)}
        bb = np.zeros(BB_COLOR + 2, dtype=np.uint64)
        square = 0
        for piece, n in counts.items():  # each piece on a square of its own, as on a board
            bb[piece] = np.uint64(((1 << int(n)) - 1) << square)
            square += int(n)
        m = counts[PAWN] + 3 * (counts[KNIGHT] + counts[BISHOP]) + 5 * counts[ROOK] + 9 * counts[QUEEN]
        eg_scale = int(rng.integers(16, 65))
        for score in (1, 7, 63, 64, 65, 199, 1234, 2999):
            for s in (score, -score):
                assert material_scale(bb, s, eg_scale) == int(s * wdl.eg_factor(m, eg_scale)), (m, eg_scale, s)
