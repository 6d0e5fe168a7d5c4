"""Fit engine/wdl.py's win/draw/loss model to self-play games: the one command to run again when the
evaluation's score scale changes.

    python -m training wdl --games /work/data/wdl/selfplay-300k.jsonl [--games MORE] [--write] [--record]
    python -m training wdl --data /work/data/gen1 [--data MORE]          # the gen datasets instead

The games are what the answers describe: `benchmarks/match.py self --journal J` at a real clock or a
node count like one, each move's search score in its PGN's [%eval]. Each position searched gives its
material, the mover's score and the game's result for the mover; a gen dataset's records
(training/records.py) give the same. Whole games are held back (with --games, both games of every
pair numbered 0 mod HOLDOUT_EVERY, since they share an opening; with --data, every game numbered so);
the model is fitted on the rest by maximum likelihood (Newton's method on the log-likelihood, numpy
only), and judged on the held-back games by log-loss against a constant predictor that always answers
the training positions' base rates, and against the constants in force before the fit.

--write rewrites the FITTED block of engine/wdl.py (the one place the constants live); --record
puts the report in docs/benchmarks.md ("WDL model").
"""

import json
import pathlib
import re

import numpy as np

from training import records
from training.report import record as record_section
from training.report import table

ROOT = pathlib.Path(__file__).resolve().parents[1]
WDL_FILE = ROOT / "engine" / "wdl.py"
HOLDOUT_EVERY = 5
VALUES = np.array([0, 1, 3, 3, 5, 9, 0, 0], np.int32)  # by piece type (engine.layout: PAWN=1 .. KING=6)
EPS = 1e-12


def dataset(folders):
    """(material, score in cp from the side to move, outcome 0 loss / 1 draw / 2 win for the side to move,
    held back?) of every record in the folders."""
    parts = [records.read(p) for folder in folders for p in records.files(folder)]
    if not parts:
        raise SystemExit(f"no *.bin records in {', '.join(map(str, folders))}")
    recs = np.concatenate(parts)
    nibbles = np.concatenate([recs["pieces"] & 15, recs["pieces"] >> 4], axis=1)
    material = VALUES[nibbles & 7].sum(axis=1)
    score = recs["score"].astype(np.float64)
    result = recs["result"].astype(np.int64)
    outcome = np.where(recs["stm"] == 0, result, 2 - result)
    held = recs["game"] % HOLDOUT_EVERY == 0
    return material, score, outcome, held


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
        for line in pathlib.Path(journal).read_text().splitlines()[1:]:
            try:
                pair = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill: the match plays that pair again
            for pgn in pair["pgn"]:
                key = tuple(movetext(pgn))
                if key not in seen:
                    seen.add(key)
                    yield pair["pair"], pgn


def games_dataset(journals):
    """dataset() from match journals: their distinct games' [%eval]s."""
    rows, held = [], []
    for pair, pgn in distinct_games(journals):
        positions = game_positions(pgn)
        rows += positions
        held += [pair % HOLDOUT_EVERY == 0] * len(positions)
    if not rows:
        raise SystemExit(f"no finished games with [%eval] in {', '.join(map(str, journals))}")
    data = np.array(rows, np.int64)
    return data[:, 0], data[:, 1].astype(np.float64), data[:, 2], np.array(held)


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


def evaluate(theta, X, s, y, base):
    win, draw, loss, _, _ = probabilities(theta, X, s)
    model = log_loss(win, draw, loss, y)
    constant = log_loss(np.full(len(y), base[2]), np.full(len(y), base[1]), np.full(len(y), base[0]), y)
    return model, constant, (win, draw, loss)


SCORE_BINS = ([-np.inf, -400, -200, -100, -30, 30, 100, 200, 400, np.inf], [
              "< -400", "-400..-200", "-200..-100", "-100..-30", "-30..30", "30..100", "100..200", "200..400", "> 400"])
MATERIAL_BINS = ([0, 24, 36, 48, 60, 79], ["up to 23", "24..35", "36..47", "48..59", "60..78"])
MIN_BIN = 200  # positions in a bin for its draw share to be judged


def calibration(values, bins, y, predicted):
    """Rows (bin, positions, predicted W/D/L %, observed W/D/L %, draw observed - predicted) on held-back
    positions, binned by `values` (the score in cp, or the material)."""
    win, draw, loss = predicted
    rows = []
    for lo, hi, name in zip(bins[0], bins[0][1:], bins[1], strict=False):
        mask = (values >= lo) & (values < hi)
        if not mask.any():
            continue
        pred = f"{100 * win[mask].mean():.1f} / {100 * draw[mask].mean():.1f} / {100 * loss[mask].mean():.1f}"
        won, drawn, lost = ((y[mask] == k).mean() for k in (2, 1, 0))
        obs = f"{100 * won:.1f} / {100 * drawn:.1f} / {100 * lost:.1f}"
        rows.append([name, int(mask.sum()), pred, obs, f"{100 * (drawn - draw[mask].mean()):+.1f}"])
    return rows


def worst_draw_gap(values, bins, y, draw):
    """The largest |observed - predicted| draw share (points) over the bins with at least MIN_BIN positions."""
    gaps = [abs((y[m] == 1).mean() - draw[m].mean()) for lo, hi in zip(bins[0], bins[0][1:], strict=False)
            if (m := (values >= lo) & (values < hi)).sum() >= MIN_BIN]
    return 100 * max(gaps) if gaps else float("nan")


def constants_block(theta, folders):
    a = tuple(round(float(v) * 100, 3) for v in theta[:4])
    b = tuple(round(float(v) * 100, 3) for v in theta[4:])
    where = ", ".join(str(f) for f in folders)
    return ("# BEGIN FITTED (python -m training wdl --write; do not edit by hand)\n"
            f"# Fitted on {where}\n# by python -m training wdl (--games | --data) ... --write. Coefficients of x^3, "
            "x^2, x, 1.\n"
            f"A = {a}\nB = {b}\n# END FITTED")


def write_constants(theta, folders, path=WDL_FILE):
    text = path.read_text()
    block = re.compile(r"# BEGIN FITTED.*?# END FITTED", re.S)
    if not block.search(text):
        raise SystemExit(f"{path}: no FITTED block to rewrite")
    path.write_text(block.sub(lambda m: constants_block(theta, folders), text))


def previous_theta():
    """The constants in force before this fit (engine/wdl.py), in the fit's units of 100 cp."""
    from engine import wdl

    return np.array(wdl.A + wdl.B) / 100


def run(folders=(), journals=(), write=False, record=False, report=print):
    sources = [*map(str, journals), *map(str, folders)]
    if journals:
        material, score, outcome, held = games_dataset(journals)
        if folders:
            more = dataset(folders)
            material, score, outcome, held = (np.concatenate([x, z]) for x, z in zip((material, score, outcome, held),
                                                                                    more, strict=True))
    else:
        material, score, outcome, held = dataset(folders)
    if held.all() or not held.any():
        raise SystemExit("need games both to fit and to hold back (game numbers that are and are not multiples "
                         f"of {HOLDOUT_EVERY})")
    X = features(material)
    s = score / 100
    train, test = ~held, held
    report(f"{int(train.sum())} positions to fit, {int(test.sum())} held back (whole games)")
    theta, nll = fit(X[train], s[train], outcome[train], report=report)
    base = np.bincount(outcome[train], minlength=3) / train.sum()  # loss, draw, win
    model, constant, predicted = evaluate(theta, X[test], s[test], outcome[test], base)
    fit_model, fit_constant, _ = evaluate(theta, X[train], s[train], outcome[train], base)
    before, _, before_predicted = evaluate(previous_theta(), X[test], s[test], outcome[test], base)
    fit_before, _, _ = evaluate(previous_theta(), X[train], s[train], outcome[train], base)
    summary = table(["log-loss (lower is better)", "fitted games", "held-back games"], [
        ["WDL model (score, material), refitted", f"{fit_model:.4f}", f"{model:.4f}"],
        ["the constants before this fit", f"{fit_before:.4f}", f"{before:.4f}"],
        ["constant: base rates " + f"W {100 * base[2]:.1f}% D {100 * base[1]:.1f}% L {100 * base[0]:.1f}%",
         f"{fit_constant:.4f}", f"{constant:.4f}"]])
    head = ["held-back positions", "predicted W / D / L %", "observed W / D / L %", "draw: observed - predicted"]
    by_score = table(["score (cp, side to move)", *head],
                     calibration(score[test], SCORE_BINS, outcome[test], predicted))
    by_material = table(["material (P=1 .. Q=9, both sides)", *head],
                        calibration(material[test], MATERIAL_BINS, outcome[test], predicted))
    gap = worst_draw_gap(score[test], SCORE_BINS, outcome[test], predicted[1])
    gap_before = worst_draw_gap(score[test], SCORE_BINS, outcome[test], before_predicted[1])
    a = [round(float(v) * 100, 1) for v in theta[:4]]
    b = [round(float(v) * 100, 1) for v in theta[4:]]
    if gap == gap:  # not NaN: some bin has enough positions
        judged = (f"The largest gap between the observed and predicted draw share in a score bin of at least "
                  f"{MIN_BIN} positions: {gap:.1f} points (the constants before: {gap_before:.1f}).")
    else:
        judged = f"No score bin has {MIN_BIN} held-back positions yet: too few games to judge the draw shares."
    text = (f"{summary}\n\nCalibration on the held-back games, by score:\n\n{by_score}\n\nBy material:\n\n"
            f"{by_material}\n\n{judged}\n\n"
            f"Positions: {int(train.sum())} fitted, {int(test.sum())} held back (whole games, see training/wdl.py), "
            f"from {', '.join(sources)}. a(x) = {a} and b(x) = {b} (cp; coefficients of x^3, x^2, "
            f"x, 1; x = material / 58). The model beats the constant predictor by "
            f"{constant - model:.4f} nats a position on games it never saw, and the constants before by "
            f"{before - model:.4f}.")
    if journals:
        drawn, finished = games_drawn(journals)
        text += f" Of the {finished} distinct games, {drawn} were drawn ({100 * drawn / finished:.1f}%)."
    report("\n" + text)
    if write:
        write_constants(theta, sources)
        report(f"wrote the constants into {WDL_FILE.relative_to(ROOT)}")
    if record:
        command = "python -m training wdl " + " ".join([*(f"--games {j}" for j in journals),
                                                          *(f"--data {f}" for f in folders)]) + " --write --record"
        record_section("WDL model", text, command)
    return theta, model, constant


def main(args):
    run(args.data or (), args.games or (), write=args.write, record=args.record)
