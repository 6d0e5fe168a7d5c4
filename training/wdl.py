"""Fit engine/wdl.py's win/draw/loss model to self-play games: the one command to run again when the
evaluation's score scale changes.

    python -m training wdl --games /work/data/wdl/selfplay-300k.jsonl [--games MORE] [--write]
    python -m training wdl --data /work/data/gen1 [--data MORE]          # the gen datasets instead
    python -m training wdl --check benchmarks/journals/m-timestab-s58.jsonl.gz   # judge, no fit
    python -m benchmarks.wdl ...   # the same arguments, and the report recorded in docs/benchmarks.md

The games are what the answers describe: `python -m benchmarks.match self --journal J` at a real clock or a
node count like one, each move's search score in its PGN's [%eval]. Each position searched gives its
material, the mover's score and the game's result for the mover; a gen dataset's records
(training/records.py) give the same. The constants are fitted on every game by maximum likelihood
(Newton's method on the log-likelihood, numpy only). They are judged by FOLDS-fold cross-validation
over whole games: the games fall into FOLDS folds (with --games by pair number, both games of a pair
in one fold since they share an opening; with --data by game number), and each fold's positions are
predicted by a fit on the other folds alone, so every game is judged by a model that never saw it
(five times the positions a single held-back fifth would give, for the same games). The judgement:
log-loss against a constant predictor (the other folds' base rates) and against the constants in
force before the fit, and the calibration tables, with the number of distinct games behind each bin
(a game's positions share one result, so a bin's games, more than its positions, say how far its
observed share can be trusted).

--write rewrites the FITTED block of engine/wdl.py (the one place the constants live); run as
`python -m benchmarks.wdl` the report goes into docs/benchmarks.md ("WDL model"). --check fits nothing:
it judges engine/wdl.py's constants on other games, say the SPRTs' matches at 10+0.1 (section "WDL model at the clock").
"""

import pathlib
import re

import numpy as np

from training import records, store
from training.journals import read_journal
from training.markdown import table

ROOT = pathlib.Path(__file__).resolve().parents[1]
WDL_FILE = ROOT / "engine" / "wdl.py"
FOLDS = 5
VALUES = np.array([0, 1, 3, 3, 5, 9, 0, 0], np.int32)  # by piece type (engine.layout: PAWN=1 .. KING=6)
EPS = 1e-12
# The constants fitted on gen7 (net-d's self-play at 5000 nodes a move), which the API answered with until
# the fit moved to games at a real clock: every report is judged against them as well (100 cp units).
GEN7 = np.array([-940.798, 2707.794, -2524.282, 865.561, -455.51, 1188.124, -869.31, 325.828]) / 100


def dataset(folders):
    """(material, score in cp from the side to move, outcome 0 loss / 1 draw / 2 win for the side to move,
    fold, game) of every position in the folders; game tells games apart (chunk or file, and game number)."""
    parts = [store.read_chunk(c) for folder in folders for c in store.chunks(folder)]
    parts += [records.read(p) for folder in folders for p in records.files(folder)]
    if not parts:
        raise SystemExit(f"no game-store chunks or *.bin records in {', '.join(map(str, folders))}")
    game = np.concatenate([part["game"].astype(np.int64) + (i << 40) for i, part in enumerate(parts)])
    recs = np.concatenate(parts)
    nibbles = np.concatenate([recs["pieces"] & 15, recs["pieces"] >> 4], axis=1)
    material = VALUES[nibbles & 7].sum(axis=1)
    score = recs["score"].astype(np.float64)
    result = recs["result"].astype(np.int64)
    outcome = np.where(recs["stm"] == 0, result, 2 - result)
    fold = recs["game"].astype(np.int64) % FOLDS
    return material, score, outcome, fold, game


EVAL = re.compile(r"\[%eval\s+([-+]?\d+(?:\.\d+)?)\]")  # centipawns as pawns; a mate (#3) is skipped
RESULT_FOR_WHITE = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}


def game_positions(pgn):
    """(material, the mover's score in cp, outcome for the mover 0/1/2) of each searched position of one
    PGN game whose moves carry [%eval] (White's view, as benchmarks/match.py writes it); [] if unfinished."""
    from engine.board import Board
    from engine.pgn import read_games
    from engine.wdl import material

    game = next(read_games(pgn))
    white_result = RESULT_FOR_WHITE.get(game.result)
    if white_result is None:
        return []
    board = Board(game.start_fen, chess960=game.chess960)
    out = []
    for move, comment in zip(game.moves, game.comments, strict=True):
        found = EVAL.search(comment)
        if found:  # the score of the search made in this position, before its move
            white_cp = round(float(found.group(1)) * 100)
            mover_is_white = board.side == 0
            out.append((material(board.fen()), white_cp if mover_is_white else -white_cp,
                        white_result if mover_is_white else 2 - white_result))
        board.push_uci(move)
    return out


def movetext(pgn):
    """A game without its players' names: the same game played twice is one game. (At a fixed node count one
    build against itself plays both games of a pair alike, move for move and eval for eval, colours swapped.)"""
    return re.sub(r'\[(White|Black) "[^"]*"\]', "", pgn).split()


def distinct_games(journals):
    """(pair number, PGN) of each distinct game of match journals (benchmarks/match.py --journal)."""
    seen = set()
    for journal in journals:
        for pair in read_journal(journal)[1]:
            for pgn in pair["pgn"]:
                key = tuple(movetext(pgn))
                if key not in seen:
                    seen.add(key)
                    yield pair["pair"], pgn


def games_dataset(journals):
    """dataset() from match journals: their distinct games' [%eval]s, a pair's games in one fold."""
    rows, fold, game = [], [], []
    for n, (pair, pgn) in enumerate(distinct_games(journals)):
        positions = game_positions(pgn)
        rows += positions
        fold += [pair % FOLDS] * len(positions)
        game += [n] * len(positions)
    if not rows:
        raise SystemExit(f"no finished games with [%eval] in {', '.join(map(str, journals))}")
    data = np.array(rows, np.int64)
    return data[:, 0], data[:, 1].astype(np.float64), data[:, 2], np.array(fold), np.array(game)


def games_eg_scale(journals, stated=None):
    """The EgScale both players of the journals' games searched with (engine/params.py): their scores are in
    its units. A player's options say it, else `stated` (--eg-scale), else the default in force if the
    build in force played it (its bench). Games with two settings cannot be fitted together."""
    from engine.bench import SIGNATURE
    from engine.params import DEFAULTS, INDEX

    default = DEFAULTS[INDEX["EgScale"]]
    found = set()
    for journal in journals:
        players = read_journal(journal)[0]
        for side in ("a", "b"):
            if side not in players:
                continue
            options, bench = players[side].get("options", {}), players[side].get("bench")
            if "EgScale" in options:
                found.add(int(options["EgScale"]))
            elif stated is not None:
                found.add(stated)
            elif bench is None or str(bench) == str(SIGNATURE):
                found.add(default)
            else:
                raise SystemExit(f"{journal}: played by bench {bench}, not this build's {SIGNATURE}, and its "
                                 "settings do not say its EgScale: give it with --eg-scale (64 before bench 5233284)")
    if len(found) > 1:
        raise SystemExit(f"the games of {', '.join(map(str, journals))} were played with EgScale {sorted(found)}: "
                         "their scores are in different units")
    return found.pop() if found else default


def to_units(score, material, eg_from, eg_to):
    """Scores searched with EgScale eg_from as the search would give them with eg_to."""
    from engine.wdl import eg_factor

    ratio = np.array([eg_factor(int(m), eg_to) / eg_factor(int(m), eg_from) for m in material])
    return score * ratio


def data_eg_scale(folders, journals, stated=None):
    """The EgScale of all the positions to fit: the journals' games' (games_eg_scale), and gen's datasets'
    (training/gen.py PARAMS: the net's own units); refused if they differ."""
    from training.gen import PARAMS

    games = games_eg_scale(journals, stated) if journals else None
    if folders and games is not None and games != PARAMS["EgScale"]:
        raise SystemExit(f"the gen datasets' scores are at EgScale {PARAMS['EgScale']} and the games' at "
                         f"{games}: fit them apart")
    return PARAMS["EgScale"] if games is None else games


def games_drawn(journals):
    """(drawn, finished) distinct games of the journals: what balanced openings end in at this clock."""
    drawn = finished = 0
    for _, pgn in distinct_games(journals):
        result = re.search(r'\[Result "([^"]+)"\]', pgn)
        if result and result.group(1) in RESULT_FOR_WHITE:
            finished += 1
            drawn += result.group(1) == "1/2-1/2"
    return drawn, finished


def features(material):
    from engine.wdl import MATERIAL_NORM, MATERIAL_RANGE

    x = np.clip(material, *MATERIAL_RANGE) / MATERIAL_NORM
    return np.stack([x ** 3, x ** 2, x, np.ones_like(x)], axis=1)  # highest power first, as engine/wdl.py


def _sigmoid(z):
    return 1 / (1 + np.exp(-np.clip(z, -60, 60)))


def probabilities(theta, X, s):
    """(win, draw, loss) arrays; theta = 4 coefficients of a, 4 of b, in units of 100 cp."""
    a, b = X @ theta[:4], X @ theta[4:]
    win, loss = _sigmoid((s - a) / b), _sigmoid((-s - a) / b)
    return win, 1 - win - loss, loss, a, b


def loss_and_gradient(theta, X, s, y):
    """Mean negative log-likelihood and its gradient. s in units of 100 cp."""
    win, draw, loss, a, b = probabilities(theta, X, s)
    if np.any(a <= 0) or np.any(b <= 0):
        return np.inf, None
    p = np.choose(y, [loss, draw, win])
    nll = -np.mean(np.log(np.maximum(p, EPS)))
    u, v = (s - a) / b, (-s - a) / b
    dw, dl = win * (1 - win), loss * (1 - loss)
    # d(win)/da = -dw/b, d(win)/db = -dw*u/b; d(loss)/da = -dl/b, d(loss)/db = -dl*v/b; draw = 1 - win - loss
    dwin_da, dwin_db, dloss_da, dloss_db = -dw / b, -dw * u / b, -dl / b, -dl * v / b
    dp_da = np.choose(y, [dloss_da, -dwin_da - dloss_da, dwin_da])
    dp_db = np.choose(y, [dloss_db, -dwin_db - dloss_db, dwin_db])
    weight = -1 / (np.maximum(p, EPS) * len(y))
    return nll, np.concatenate([X.T @ (weight * dp_da), X.T @ (weight * dp_db)])


def fit(X, s, y, iterations=60, report=print):
    """Newton's method with a finite-difference Hessian of the exact gradient, damped and backtracking."""
    theta = np.array([0, 0, 0, 2.0, 0, 0, 0, 1.0])  # a = 200 cp, b = 100 cp everywhere
    nll, g = loss_and_gradient(theta, X, s, y)
    damping = 1e-3
    for it in range(iterations):
        h = 1e-5
        H = np.empty((8, 8))
        for k in range(8):
            e = np.zeros(8)
            e[k] = h
            up, down = loss_and_gradient(theta + e, X, s, y)[1], loss_and_gradient(theta - e, X, s, y)[1]
            if up is None or down is None:  # at the edge of a, b > 0 (a degenerate sample): stop here
                return theta, nll
            H[:, k] = (up - down) / (2 * h)
        H = (H + H.T) / 2
        while True:
            try:
                step = np.linalg.solve(H + damping * np.eye(8), -g)
            except np.linalg.LinAlgError:
                damping *= 10
                continue
            new_nll, new_g = loss_and_gradient(theta + step, X, s, y)
            if new_nll < nll:
                damping = max(damping / 10, 1e-9)
                break
            damping *= 10
            if damping > 1e6:
                return theta, nll
        improvement = nll - new_nll
        theta, nll, g = theta + step, new_nll, new_g
        if improvement < 1e-10:
            break
        if it % 5 == 0:
            report(f"  iteration {it}: log-loss {nll:.6f}")
    return theta, nll


def log_loss(p_win, p_draw, p_loss, y):
    p = np.choose(y, [p_loss, p_draw, p_win])
    return float(-np.mean(np.log(np.maximum(p, EPS))))


SCORE_BINS = ([-np.inf, -400, -200, -100, -30, 30, 100, 200, 400, np.inf], [
              "< -400", "-400..-200", "-200..-100", "-100..-30", "-30..30", "30..100", "100..200", "200..400", "> 400"])
MATERIAL_BINS = ([0, 24, 36, 48, 60, 79], ["up to 23", "24..35", "36..47", "48..59", "60..78"])
MIN_BIN = 200  # positions in a bin for its draw share to be judged


def calibration(values, bins, y, predicted, game):
    """Rows (bin, positions, games, predicted W/D/L %, observed W/D/L %, draw observed - predicted) on
    positions judged by a fit that did not see them, binned by `values` (the score in cp, or the material)."""
    win, draw, loss = predicted
    rows = []
    for lo, hi, name in zip(bins[0], bins[0][1:], bins[1], strict=False):
        mask = (values >= lo) & (values < hi)
        if not mask.any():
            continue
        pred = f"{100 * win[mask].mean():.1f} / {100 * draw[mask].mean():.1f} / {100 * loss[mask].mean():.1f}"
        won, drawn, lost = ((y[mask] == k).mean() for k in (2, 1, 0))
        obs = f"{100 * won:.1f} / {100 * drawn:.1f} / {100 * lost:.1f}"
        lo_gap, hi_gap = gap_interval(y[mask] == 1, draw[mask], game[mask])
        rows.append([name, int(mask.sum()), len(np.unique(game[mask])), pred, obs,
                     f"{100 * (drawn - draw[mask].mean()):+.1f}", f"{100 * lo_gap:+.1f} .. {100 * hi_gap:+.1f}"])
    return rows


def gap_interval(drawn, draw, game, resamples=2000, seed=1):
    """95% interval of (observed - predicted draw share) over a bin's positions, by resampling its games
    (the bootstrap over whole games: a game's positions share one result, so they are not independent)."""
    ids, inverse = np.unique(game, return_inverse=True)
    n = np.bincount(inverse).astype(np.float64)
    d = np.bincount(inverse, weights=drawn.astype(np.float64))
    p = np.bincount(inverse, weights=draw)
    picks = np.random.default_rng(seed).integers(0, len(ids), (resamples, len(ids)))
    gaps = (d[picks].sum(axis=1) - p[picks].sum(axis=1)) / n[picks].sum(axis=1)
    return tuple(np.percentile(gaps, [2.5, 97.5]))


def worst_draw_gap(values, bins, y, draw):
    """The largest |observed - predicted| draw share (points) over the bins with at least MIN_BIN positions."""
    gaps = [abs((y[m] == 1).mean() - draw[m].mean()) for lo, hi in zip(bins[0], bins[0][1:], strict=False)
            if (m := (values >= lo) & (values < hi)).sum() >= MIN_BIN]
    return 100 * max(gaps) if gaps else float("nan")


CALIBRATION_HEAD = ["positions", "games", "predicted W / D / L %", "observed W / D / L %",
                    "draw: observed - predicted", "95% interval (games resampled)"]


def calibration_tables(material, score, y, predicted, game):
    """The calibration tables, by score and by material, of `predicted` (win, draw, loss) on these positions."""
    by_score = table(["score (cp, side to move)", *CALIBRATION_HEAD],
                     calibration(score, SCORE_BINS, y, predicted, game))
    by_material = table(["material (P=1 .. Q=9, both sides)", *CALIBRATION_HEAD],
                        calibration(material, MATERIAL_BINS, y, predicted, game))
    return by_score, by_material


def base_rate_loss(y):
    """(W, D, L shares, log-loss) of the constant predictor that gives every position these outcomes' rates."""
    rates = np.bincount(y, minlength=3) / len(y)
    return rates[::-1], log_loss(*[np.full(len(y), r) for r in rates[::-1]], y)


def constants_block(theta, folders, eg_scale):
    a = tuple(round(float(v) * 100, 3) for v in theta[:4])
    b = tuple(round(float(v) * 100, 3) for v in theta[4:])
    where = ", ".join(str(f) for f in folders)
    return ("# BEGIN FITTED (python -m training wdl --write; do not edit by hand)\n"
            f"# Fitted on {where}\n# by python -m training wdl (--games | --data) ... --write. Coefficients of x^3, "
            "x^2, x, 1.\n"
            f"A = {a}\nB = {b}\nFIT_EG_SCALE = {eg_scale}\n# END FITTED")


def write_constants(theta, folders, eg_scale, path=WDL_FILE):
    text = path.read_text()
    block = re.compile(r"# BEGIN FITTED.*?# END FITTED", re.S)
    if not block.search(text):
        raise SystemExit(f"{path}: no FITTED block to rewrite")
    path.write_text(block.sub(lambda m: constants_block(theta, folders, eg_scale), text))


def previous_theta():
    """The constants in force before this fit (engine/wdl.py), in the fit's units of 100 cp."""
    from engine import wdl

    return np.array(wdl.A + wdl.B) / 100


def out_of_fold(X, s, y, fold, report=print):
    """Each position's (win, draw, loss) from a fit on the other folds, and the other folds' base rates."""
    predicted = np.zeros((3, len(y)))
    base = np.zeros((3, len(y)))
    for k in np.unique(fold):
        train, test = fold != k, fold == k
        theta, _ = fit(X[train], s[train], y[train], report=lambda *a: None)
        predicted[:, test] = probabilities(theta, X[test], s[test])[:3]
        loss, draw, win = np.bincount(y[train], minlength=3) / train.sum()
        base[:, test] = np.array([[win], [draw], [loss]])
        report(f"  fold {k}: {int(test.sum())} positions judged by a fit on {int(train.sum())}")
    return predicted, base


def run(folders=(), journals=(), write=False, record=False, report=print, eg_scale=None):
    from engine import wdl

    sources = [*map(str, journals), *map(str, folders)]
    parts = []
    if journals:
        parts.append(games_dataset(journals))
    if folders:
        more = dataset(folders)
        parts.append(more[:4] + (more[4] + (1 << 50),))  # other game numbers than the journals'
    material, score, outcome, fold, game = (np.concatenate(x) for x in zip(*parts, strict=True))
    if len(np.unique(fold)) < 2:
        raise SystemExit(f"need games in at least two of the {FOLDS} folds (pair or game number mod {FOLDS}) "
                         "to judge a fit by games it did not see")
    X = features(material)
    s = score / 100
    eg_scale = data_eg_scale(folders, journals, eg_scale)
    s_before = to_units(s, material, eg_scale, wdl.FIT_EG_SCALE)  # as the constants before read scores
    games = len(np.unique(game))
    report(f"{len(s)} positions of {games} games; the constants from all of them, judged fold by fold "
           f"({FOLDS} folds of whole games)")
    theta, _ = fit(X, s, outcome, report=report)
    predicted, base = out_of_fold(X, s, outcome, fold, report=report)
    model = log_loss(*predicted, outcome)
    constant = log_loss(*base, outcome)
    before_predicted = probabilities(previous_theta(), X, s_before)[:3]
    before = log_loss(*before_predicted, outcome)
    gen7_predicted = probabilities(GEN7, X, to_units(s, material, eg_scale, 64))[:3]  # fitted before EgScale
    gen7 = log_loss(*gen7_predicted, outcome)
    in_sample = log_loss(*probabilities(theta, X, s)[:3], outcome)
    (win, draw, loss), constant_in_sample = base_rate_loss(outcome)
    summary = table(["log-loss (lower is better)", "each game judged by a fit without it", "all games, in sample"], [
        ["WDL model (score, material), refitted", f"{model:.4f}", f"{in_sample:.4f}"],
        ["the constants before this fit", f"{before:.4f}", f"{before:.4f}"],
        ["gen7's constants (5000-node self-play)", f"{gen7:.4f}", f"{gen7:.4f}"],
        ["constant: base rates " + f"W {100 * win:.1f}% D {100 * draw:.1f}% L {100 * loss:.1f}%",
         f"{constant:.4f}", f"{constant_in_sample:.4f}"]])
    by_score, by_material = calibration_tables(material, score, outcome, predicted, game)
    gap = worst_draw_gap(score, SCORE_BINS, outcome, predicted[1])
    gap_before = worst_draw_gap(score, SCORE_BINS, outcome, before_predicted[1])
    gap_gen7 = worst_draw_gap(score, SCORE_BINS, outcome, gen7_predicted[1])
    a = [round(float(v) * 100, 1) for v in theta[:4]]
    b = [round(float(v) * 100, 1) for v in theta[4:]]
    if gap == gap:  # not NaN: some bin has enough positions
        judged = (f"The largest gap between the observed and predicted draw share in a score bin of at least "
                  f"{MIN_BIN} positions: {gap:.1f} points (the constants before: {gap_before:.1f}; "
                  f"gen7's: {gap_gen7:.1f}).")
    else:
        judged = f"No score bin has {MIN_BIN} positions yet: too few games to judge the draw shares."
    text = (f"{summary}\n\nCalibration, each game's positions predicted by the fit on the other folds, "
            f"by score:\n\n{by_score}\n\nBy material:\n\n{by_material}\n\n{judged}\n\n"
            f"Positions: {len(s)} of {games} games, from {', '.join(sources)}; {FOLDS} folds of whole games "
            f"(see training/wdl.py). The constants written, fitted on all of them: a(x) = {a} and b(x) = {b} "
            f"(cp; coefficients of x^3, x^2, x, 1; x = material / 58). On games it never saw, the model beats "
            f"the constant predictor by {constant - model:.4f} nats a position, the constants before by "
            f"{before - model:.4f} and gen7's by {gen7 - model:.4f}.")
    if journals:
        drawn, finished = games_drawn(journals)
        text += f" Of the {finished} distinct games, {drawn} were drawn ({100 * drawn / finished:.1f}%)."
    report("\n" + text)
    if write:
        write_constants(theta, sources, eg_scale)
        report(f"wrote the constants into {WDL_FILE.relative_to(ROOT)}")
    if record:
        command = "python -m benchmarks.wdl " + " ".join([*(f"--games {j}" for j in journals),
                                                          *(f"--data {f}" for f in folders)]) + " --write"
        record("WDL model", text, command)
    return theta, model, constant


def check(journals, record=False, report=print, eg_scale=None):
    """engine/wdl.py's constants, as the API answers with them, judged on games that no fit saw: say the
    matches at 10+0.1 that the SPRTs play, which give the answers' own clock where the fit's games had a
    node count like it. The constant predictor gets these games' own base rates (in sample: the
    hardest constant for the model to beat)."""
    from engine import wdl

    material, score, outcome, _, game = games_dataset(journals)
    X = features(material)
    eg_scale = games_eg_scale(journals, eg_scale)
    s = to_units(score / 100, material, eg_scale, wdl.FIT_EG_SCALE)  # the constants' units
    shipped = probabilities(previous_theta(), X, s)[:3]
    gen7 = probabilities(GEN7, X, to_units(score / 100, material, eg_scale, 64))[:3]  # fitted before EgScale
    (win, draw, loss), constant = base_rate_loss(outcome)
    games = len(np.unique(game))
    summary = table(["log-loss on these games (lower is better)", "nats a position"], [
        ["the constants in engine/wdl.py", f"{log_loss(*shipped, outcome):.4f}"],
        ["gen7's constants (5000-node self-play)", f"{log_loss(*gen7, outcome):.4f}"],
        ["constant: these games' base rates " + f"W {100 * win:.1f}% D {100 * draw:.1f}% L {100 * loss:.1f}%",
         f"{constant:.4f}"]])
    by_score, by_material = calibration_tables(material, score, outcome, shipped, game)
    gap = worst_draw_gap(score, SCORE_BINS, outcome, shipped[1])
    drawn, finished = games_drawn(journals)
    text = (f"{summary}\n\nCalibration of engine/wdl.py's constants on these games, by score:\n\n{by_score}\n\n"
            f"By material:\n\n{by_material}\n\n"
            + (f"The largest gap between the observed and predicted draw share in a score bin of at least {MIN_BIN} "
               f"positions: {gap:.1f} points. " if gap == gap else f"No score bin has {MIN_BIN} positions yet. ")
            + f"Positions: {len(s)} of {games} games, from {', '.join(map(str, journals))}, none of them seen by "
            f"the fit; {drawn} of the {finished} distinct games were drawn ({100 * drawn / max(finished, 1):.1f}%).")
    report("\n" + text)
    if record:
        command = "python -m benchmarks.wdl --check " + " --check ".join(map(str, journals))
        record("WDL model at the clock", text, command)
    return gap


def main(args, record=None):
    """The wdl command; record(section, text, command) puts the report in the docs (python -m benchmarks.wdl
    passes benchmarks/report.py's: training writes no docs)."""
    if not (args.games or args.data or args.check):
        raise SystemExit("wdl: give --games JOURNAL or --data FOLDER (to fit), or --check JOURNAL (to judge)")
    if args.check and (args.games or args.data or args.write):
        raise SystemExit("wdl: --check judges the constants in force; it takes no --games, --data or --write")
    if args.check:
        check(args.check, record=record, eg_scale=args.eg_scale)
        return
    run(args.data or (), args.games or (), write=args.write, record=record, eg_scale=args.eg_scale)
