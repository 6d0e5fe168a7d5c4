"""Puzzles from a reviewed game (issue 68 item 3): the positions where the player to move had one clearly
winning or saving move and played another, by Lichess's puzzle criteria as far as they are published
(lichess-org/lichess-puzzler: the solution is the only good move, the second-best line far behind in
winning chances, and the line ends in a clear result: a mate or a decisive advantage).

    puzzles = find_puzzles(start_fen, moves, evals, review)   # review: engine.review.review_game's
    puzzles[0].fen, .solution (UCI), .solution_san, .themes, .played, .ply

Candidates are the review's mistakes and blunders only (a move marked ? or ??, not the search's best); each
gets one cheap two-line search (SEARCH_NODES nodes, deterministic) for its second-best move, since the
review's own search has one line. A candidate is a puzzle when the best line's winning chances (Lichess's
-1..1 scale, a mate counting 1) are at least GAP above the second's, and the best line is a mate or keeps
the solver at DECISIVE_CP or better (winning), or is level while the second loses (saving). Beyond
lichess-puzzler (which makes attacking puzzles only): a position where every move but one walks into a
forced mate is a puzzle too, the only defence (theme defensiveMove), however lost the game is otherwise.
"""

import dataclasses

from engine.review import winning_chances

SEARCH_NODES = 200_000  # per candidate: two lines, a fraction of a review position's usual budget
GAP = 0.5  # best less second, -1..1 winning chances (lichess-puzzler asks a wide margin; ~0.5 to 0.7)
DECISIVE_CP = 200  # a "winning" solution keeps at least this much
SAVING_CP = -50  # a "saving" solution keeps the game about level
MAX_PLIES = 9  # the longest solution kept (solver, reply, solver, ...)


@dataclasses.dataclass(frozen=True)
class Puzzle:
    ply: int  # from 0: the move played instead of the solution
    fen: str  # the position the solver moves in
    solution: tuple  # UCI: the solver's move, the reply, ... (odd length: ends with the solver's move)
    solution_san: tuple
    themes: tuple  # Lichess theme names: mateInN / mate, advantage / crushing / equality, and the reason's
    played: str  # UCI, the move the game went on with
    played_san: str
    before_fen: str | None  # the position before the opponent's move that led to it (Lichess's FEN), if any
    before_move: str | None  # that move (UCI): Lichess's Moves start with it


def _chances(score):
    if score.mate is not None:
        return 1.0 if score.mate > 0 else -1.0
    return winning_chances(score.cp)


def _solution(line, score):
    """The solution: the best line cut to end on the solver's move (a mate: the whole mate)."""
    plies = min(len(line), MAX_PLIES, 2 * score.mate - 1 if score.mate is not None and score.mate > 0 else 3)
    return tuple(line[:plies if plies % 2 else plies - 1])


def find_puzzles(start_fen, moves, evals, review, chess960=False, nodes=SEARCH_NODES):
    """[Puzzle] of a reviewed game (moves UCI, evals and review as engine.review.review_game takes and gives)."""
    from engine import analyse
    from engine.board import Board
    from engine.san import line_san

    board = Board(start_fen, capacity=len(moves) + 64, chess960=chess960)
    previous = None  # (fen, move) of the position before this one
    out = []
    for m, move in zip(review.moves, moves, strict=True):
        fen = board.fen()
        if m.judgement in ("mistake", "blunder") and m.best and evals[m.ply] is not None:
            puzzle = _puzzle(board, fen, m, move, previous, nodes, chess960, analyse, line_san)
            if puzzle is not None:
                out.append(puzzle)
        previous = (fen, move)
        board.push_uci(move)
    return out


def _puzzle(board, fen, m, move, previous, nodes, chess960, analyse, line_san):
    a = analyse(fen, nodes=nodes, multipv=2, chess960=chess960)
    if not a.lines:
        return None
    best = a.lines[0]
    if best.pv[0] == move:
        return None  # the deeper look finds the game's move best: no puzzle
    best_wc = _chances(best.score)
    second_wc = _chances(a.lines[1].score) if len(a.lines) > 1 else -1.0  # the only legal move
    second = a.lines[1].score if len(a.lines) > 1 else None
    mate = best.score.mate is not None and best.score.mate > 0
    cp = best.score.cp
    # the only move that does not walk into a forced mate (a defence, beyond lichess-puzzler's attacks)
    escape = cp is not None and (second is None or (second.mate is not None and second.mate < 0))
    winning = mate or (cp is not None and cp >= DECISIVE_CP)
    if not escape and (best_wc - second_wc < GAP or (not winning and cp < SAVING_CP)):
        return None
    solution = best.pv[:1] if escape and not winning else _solution(best.pv, best.score)
    if mate:
        themes = [f"mateIn{best.score.mate}" if best.score.mate <= 5 else "mate"]
    else:
        themes = ["crushing" if cp >= 600 else "advantage" if winning else "equality"] if cp >= SAVING_CP else []
        themes += ["defensiveMove"] if escape else []
    if m.reason is not None:
        themes += [t for t in m.reason.themes if t not in themes and (mate or not t.startswith("mate"))]
    return Puzzle(ply=m.ply, fen=fen, solution=solution, solution_san=tuple(line_san(board, list(solution))),
                  themes=tuple(themes), played=move, played_san=line_san(board, [move])[0],
                  before_fen=previous[0] if previous else None, before_move=previous[1] if previous else None)


CSV_COLUMNS = ("PuzzleId", "FEN", "Moves", "Rating", "RatingDeviation", "Popularity", "NbPlays", "Themes",
               "GameUrl", "OpeningTags")


def csv_row(puzzle, puzzle_id, game_url="", opening_tags=""):
    """A row in Lichess's puzzle CSV layout: FEN before the opponent's move, Moves starting with it; Rating,
    RatingDeviation, Popularity and NbPlays empty (Lichess's come from its players)."""
    if puzzle.before_fen is not None:
        fen, line = puzzle.before_fen, (puzzle.before_move,) + puzzle.solution
    else:  # the game's first move: no move before it
        fen, line = puzzle.fen, puzzle.solution
    return {"PuzzleId": puzzle_id, "FEN": fen, "Moves": " ".join(line), "Rating": "", "RatingDeviation": "",
            "Popularity": "", "NbPlays": "", "Themes": " ".join(puzzle.themes), "GameUrl": game_url,
            "OpeningTags": opening_tags}
