"""A batch job's positions: read from a list (FEN strings or {id, fen, moves}), an EPD text or a PGN
text, and every one checked before anything is queued.

    positions, errors = read_positions(request)   # request: JobRequest (functions/common/jobs/models.py)

`errors` is a list of {"field", "reason"} naming each bad position the way the request wrote it:
`positions[3].fen`, `positions[7].moves[2]`, `epd` with "line 12 (position 11): ...", `pgn` with
"game 2: move 14... Qd7: not legal in ...". A job is queued only when there are none.

The request's `variant` is the rules of every position; in a PGN, of the games without a Variant tag
(a game's [Variant "Chess960"] tag makes it Chess960 whatever the request says), so that one collection
may hold both.
"""

import dataclasses

from engine import epd
from engine.board import Board, IllegalMoveError
from engine.fen import FenError
from engine.pgn import PgnError, read_games
from functions.common.jobs.limits import MAX_POSITIONS, S3_WAY

MAX_ERRORS = 50  # reported per request; the count of the rest is given


@dataclasses.dataclass(frozen=True)
class Position:
    index: int  # 0-based, in the order of the request
    id: str  # the caller's id, or one made up from where the position came from
    fen: str
    moves: tuple = ()  # UCI, played from fen (history for repetitions); the position analysed is after them
    chess960: bool = False  # Chess960's rules: X-FEN/Shredder-FEN castling, castling moves king-to-rook


def check_position(fen, moves, chess960=False):
    """None if fen + moves is a position to analyse, else (field suffix, reason): ("fen", ...) or ("moves[i]", ...)."""
    try:
        Board.from_moves(fen, moves, chess960=chess960)
    except FenError as e:
        return "fen", str(e)
    except IllegalMoveError as e:
        return f"moves[{e.index}]", str(e)
    return None


def from_list(items, chess960=False):
    """Positions from the request's `positions` list (PositionIn items, read by the model)."""
    positions, errors = [], []
    for i, item in enumerate(items):
        pid, fen, moves = item.id if item.id is not None else str(i), item.fen, tuple(item.moves)
        bad = check_position(fen, moves, chess960)
        if bad:
            field, reason = bad
            bare = getattr(item, "_bare", False)  # a FEN string: the item is the FEN
            errors.append({"field": f"positions[{i}]" if bare else f"positions[{i}].{field}", "reason": reason})
        else:
            positions.append(Position(i, pid, fen, moves, chess960))
    return positions, errors


def from_epd(text, chess960=False):
    """Positions from EPD lines (blank lines and lines starting with # are skipped). id: the `id` opcode,
    else "line N"."""
    positions, errors = [], []
    for index, (n, line) in enumerate(epd.records(text)):
        try:
            fen, ops = epd.parse_epd(line, chess960)
            bad = check_position(fen, (), chess960)
        except FenError as e:
            bad = ("fen", str(e))
        if bad:
            errors.append({"field": "epd", "reason": f"line {n} (position {index}): {bad[1]}"})
        else:
            positions.append(Position(index, ops.get("id") or f"line {n}", fen, chess960=chess960))
    return positions, errors


def from_pgn(text, limit=MAX_POSITIONS, chess960=False, games=None):
    """Every position of every game: the start and the position after each move of the main line.
    id: "G.P", game number (from 1) and ply (0 = before the first move). chess960: the rules of the
    games without a Variant tag. games: a list to append each game read to (a review records them: the
    text is read once), whole when there are no errors."""
    positions = []
    try:
        for game in read_games(text, chess960=chess960):
            if games is not None:
                games.append(game)
            for ply in range(len(game.moves) + 1):
                if len(positions) >= limit:
                    return [], [{"field": "pgn", "reason": f"more than {limit} positions (game {game.number} "
                                                                  f"reaches position {len(positions)}); the limit is "
                                                                  f"{limit} per job in the body: {S3_WAY}"}]
                positions.append(Position(len(positions), f"{game.number}.{ply}", game.start_fen,
                                          tuple(game.moves[:ply]), game.chess960))
    except PgnError as e:
        return [], [{"field": "pgn", "reason": str(e)}]
    if not positions:
        return [], [{"field": "pgn", "reason": "no game in the text"}]
    return positions, []


def read_positions(request, limit=MAX_POSITIONS, games=None):
    """(positions, errors) for a JobRequest: exactly one of positions / epd / pgn is set. games: from_pgn's."""
    chess960 = request.variant == "chess960"
    if request.positions is not None:
        positions, errors = from_list(request.positions, chess960)
    elif request.epd is not None:
        total = sum(1 for _ in epd.records(request.epd))
        if total > limit:
            return [], [{"field": "epd", "reason": f"{total} positions; the limit is {limit} per job in the "
                                                        f"body: {S3_WAY}"}]
        if total == 0:
            return [], [{"field": "epd", "reason": "no position in the text"}]
        positions, errors = from_epd(request.epd, chess960)
    else:
        positions, errors = from_pgn(request.pgn, limit, chess960, games)
    if len(errors) > MAX_ERRORS:
        rest = len(errors) - MAX_ERRORS
        errors = errors[:MAX_ERRORS] + [{"field": "body", "reason": f"and {rest} more bad positions"}]
    return positions, errors
