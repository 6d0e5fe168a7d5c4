"""A review job's report: the games stored with the job, their positions' stored analyses, and what
engine/review.py and engine/annotated_pgn.py make of them.

    games_record(games)          # the games of a PGN as the job item keeps them (JSON), or InputError
    puzzles_record(games, results)  # each game's puzzles (JSON), found once when the review is complete
    finish_review(store, job_id, item)  # after a count: a complete review's puzzles found and stored
    summaries(job, results)      # [GameSummary] for GET /jobs/{job_id}, with the puzzles stored with the job
    annotated_pgn(job, results)  # the annotated PGN text for GET /jobs/{job_id}/pgn

`job` is job_store.Store.job()'s dict (its "games", and "puzzles": puzzles_record's text or None), `results`
every JobResult of the job in index order. A position that failed (or is missing) has no analysis: the moves
next to it are not judged. The puzzles cost a search per mistake (engine/puzzles.py), so they are found once,
by whoever counts the review's last position (jobs/worker.py, or jobs/submit.py for positions the queue
refused) with finish_review, and kept with the job (jobs/table.py put_puzzles): a GET reads them, it does not search.
"""

import json
import logging

from engine import openings, wdl
from engine.annotated_pgn import write_game
from engine.board import Board
from engine.pgn import Game, move_label
from engine.puzzles import SEARCH_NODES, find_puzzles
from engine.result import Score
from engine.review import GLYPHS, PositionEval, review_game
from engine.san import line_san
from functions.common.api.http import InputError
from functions.common.api.models import opening_answer, reason_answer
from functions.common.jobs.models import FlaggedMove, GameSummary, Judgements, PuzzleAnswer, SideAccuracy, SideAcpl

MAX_GAMES_BYTES = 300 * 1024  # of the job item's 400 KB


def games_record(games):
    """JSON of the games (tags, start, moves, result, index of their first position, and chess960: true
    for a Chess960 game) for the job item."""
    out, first = [], 0
    for game in games:
        out.append({"number": game.number, "tags": game.tags, "start_fen": game.start_fen, "moves": game.moves,
                    "result": game.result, "first": first})
        if game.chess960:  # the request's variant may have said so, not the game's tags
            out[-1]["chess960"] = True
        first += len(game.moves) + 1
    text = json.dumps(out, separators=(",", ":"))
    if len(text.encode()) > MAX_GAMES_BYTES:
        raise InputError(422, "pgn", f"the games take {len(text.encode()) // 1024} KB once read (their tags, mostly); "
                                     f"a review keeps at most {MAX_GAMES_BYTES // 1024} KB")
    return text


def _games(job):
    return [(Game(number=g["number"], tags=g["tags"], start_fen=g["start_fen"], moves=g["moves"], result=g["result"],
                  chess960=g.get("chess960", False)), g["first"]) for g in json.loads(job["games"])]


def position_eval(analysis):
    """The PositionEval of a stored AnalysisAnswer (None stays None)."""
    if analysis is None:
        return None
    s = analysis.score
    score = Score(mate=s.mate) if hasattr(s, "mate") else Score(cp=s.cp)
    table = analysis.tablebase.category if analysis.tablebase is not None else None
    return PositionEval(side=analysis.side_to_move, score=score, pv=tuple(analysis.pv), terminal=analysis.game_over,
                        depth=analysis.depth, material=wdl.material(analysis.fen), tablebase=table)


def reviewed(job, results):
    """[(game, evals, GameReview)] for each game of a review job."""
    by_index = {r.index: r.analysis for r in results}
    out = []
    for game, first in _games(job):
        evals = [position_eval(by_index.get(first + ply)) for ply in range(len(game.moves) + 1)]
        first_side = "white" if game.start_fen.split()[1] == "w" else "black"
        out.append((game, evals, review_game(first_side, game.moves, evals, start_fen=game.start_fen,
                                             chess960=game.chess960)))
    return out


def summaries(job, results):
    """[GameSummary]; each game's puzzles are the ones stored with the job (none before they are)."""
    stored = json.loads(job["puzzles"]) if job.get("puzzles") else []
    return [summary(game, review, [PuzzleAnswer.model_validate(p) for p in stored[n]] if n < len(stored) else [])
            for n, (game, _, review) in enumerate(reviewed(job, results))]


def puzzles_record(games, results):
    """JSON of each game's puzzles, in the games' order ([[PuzzleAnswer], ...]): games is the job item's
    games_record text, results every JobResult of the job."""
    found = [[p.model_dump() for p in puzzles(game, evals, review)] for game, evals, review in
             reviewed({"games": games}, results)]
    return json.dumps(found, separators=(",", ":"), ensure_ascii=False)


def finish_review(store, job_id, item):
    """When `item` (the job item after a count) shows a review complete whose puzzles are not stored: find
    them (a small search per mistake, engine/puzzles.py) and store them with the job, once; GET /jobs/{job_id}
    reads them from there. Returns "stored", "stored-before" (another delivery did it), either with " without
    puzzles (the error)" when finding them raised (a bug, logged: the review is done with none), or None
    (nothing to do). A second delivery counting the same last position finds the same puzzles (fixed-node searches)
    and stores nothing. AWS errors propagate: the record comes back, is found finished, and gets here again.
    """
    if not item or "puzzles_due" not in item:
        return None
    done, failed = (len(item.get(name, {}).get("NS", [])) for name in ("done_idx", "failed_idx"))
    if done + failed < int(item["total"]["N"]) or store.puzzles(job_id) is not None:
        return None
    results = store.all_results(job_id)
    try:
        found = puzzles_record(item["games"]["S"], results)
    except Exception as e:  # a bug: searching again would fail again, and the review would never be done
        logging.getLogger(__name__).exception("finding the puzzles of review %s failed: it is stored with none",
                                              job_id)
        found, note = "[]", f" without puzzles ({type(e).__name__}: {e})"
    else:
        note = ""
    return ("stored" if store.put_puzzles(job_id, found) else "stored-before") + note


def puzzles(game, evals, review, nodes=SEARCH_NODES):
    """The game's puzzles (engine/puzzles.py: one small two-line search of `nodes` per mistake or blunder)."""
    return [PuzzleAnswer(ply=p.ply, fen=p.fen, solution=list(p.solution), solution_san=list(p.solution_san),
                         themes=list(p.themes), played=p.played, played_san=p.played_san,
                         before_fen=p.before_fen, before_move=p.before_move)
            for p in find_puzzles(game.start_fen, game.moves, evals, review, chess960=game.chess960, nodes=nodes)]


def flagged(game, review):
    marked = [m for m in review.moves if m.judgement]
    if not marked:
        return []
    sans = line_san(game.start_fen, game.moves, chess960=game.chess960)
    board = Board(game.start_fen, capacity=len(game.moves) + 64, chess960=game.chess960)
    out = []
    for ply, move in enumerate(game.moves):
        m = review.moves[ply]
        if m.judgement:
            out.append(FlaggedMove(ply=ply, move=move_label(game.start_fen, ply, sans[ply]) + GLYPHS[m.judgement],
                                   judgement=m.judgement, comment=m.comment,
                                   best=line_san(board, [m.best])[0] if m.best else None,
                                   reason=reason_answer(m.reason)))
        board.push_uci(move)
    return out


def summary(game, review, found=()):
    white, black = review.sides["white"], review.sides["black"]
    return GameSummary(
        game=game.number, white=game.tags.get("White", "?"), black=game.tags.get("Black", "?"),
        result=game.result or "*", plies=len(game.moves),
        accuracy=SideAccuracy(white=white.accuracy, black=black.accuracy),
        acpl=SideAcpl(white=white.acpl, black=black.acpl),
        judgements={"white": Judgements(**white.counts), "black": Judgements(**black.counts)},
        judged=sum(1 for m in review.moves if m.accuracy is not None), flagged=flagged(game, review),
        win_chances=[round(w, 1) if w is not None else None for w in review.win_chances],
        opening=opening_answer(openings.of_game(game.start_fen, game.moves, game.chess960)),
        puzzles=list(found))


def annotated_pgn(job, results):
    return "\n".join(write_game(game, evals, review) for game, evals, review in reviewed(job, results))
