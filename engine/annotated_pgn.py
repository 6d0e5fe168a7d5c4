"""The annotated PGN of a reviewed game, as Lichess writes its computer analysis:

    [White "..."] ... [Annotator "Kibitz 0.1.0"] [WhiteAccuracy "87.4"] [BlackAccuracy "71.0"]
    [WhiteACPL "23"] [BlackACPL "58"]

    1. e4 { [%eval 0.31] } 1... e5 { [%eval 0.28] } 2. Qh5?? { [%eval -1.50] Blunder. Nf3 was best. }
    ( 2. Nf3 { [%eval 0.31] } Nc6 3. Bb5 ) 2... Nc6 ...

Every move carries `[%eval]` (and so does the start, in a comment before the first move): the score
of the position after it from White's side, in pawns with
two decimals, or `#N` / `#-N` for a mate in N for White / for Black (`#0`: the side to move is
mated, as python-chess reads it). Inaccuracies, mistakes and blunders (engine/review.py: Lichess's
marks) carry their glyph (`?!`, `?`, `??`, which PGN readers take as the NAGs $6, $2, $4), Lichess's
comment ("Blunder. Bxf7+ was best.", or "Checkmate is now unavoidable. ..." / "Lost forced checkmate
sequence. ..." for a mate turned round), the coach's reason when the review has one ("Blunder. d3 was
best. Loses the queen on e2: Qxe4+ Qe2 Nxe2."; engine/review.py; where nothing simple explains the
move, what it costs: "Blunder. Bxf7+ was best: the score goes from -0.98 to -3.63."), and the search's
line from the position before the move as a variation (at most VARIATION_PLIES plies).

The game's own tags are kept (a Chess960 game's Variant, SetUp and FEN too, written when the game had
none), and ECO and Opening are written when the game has none: the last named position the game passed
through (engine/openings.py, lichess-org/chess-openings, by position). Header tags beyond them:
Annotator, WhiteAccuracy / BlackAccuracy (engine/review.py's accuracy, Lichess's formula, percent, one
decimal) and WhiteACPL / BlackACPL (average centipawn loss); a side with no judged move gets "?".
"""

import engine
from engine import openings
from engine.board import Board
from engine.epd import quote
from engine.pgn import move_number
from engine.review import GLYPHS
from engine.san import line_san

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
ROSTER_DEFAULTS = {"Date": "????.??.??"}
VARIATION_PLIES = 10
LINE_WIDTH = 79


def eval_text(ev):
    """`[%eval 0.31]` / `[%eval #-3]` for a PositionEval (White's side)."""
    s = ev.score.for_white(ev.side)
    if ev.terminal is not None and ev.terminal != "checkmate":
        return "[%eval 0.00]"
    if s.mate is not None:
        return f"[%eval #{s.mate}]" if s.mate else "[%eval #0]"
    return f"[%eval {s.cp / 100:.2f}]"


def tags_of(game_tags, result, review):
    """The header: the seven-tag roster first (in its order), the game's other tags, then the review's."""
    tags = {name: game_tags.get(name) or ROSTER_DEFAULTS.get(name, "?") for name in ROSTER}
    tags["Result"] = result
    tags.update({k: v for k, v in game_tags.items() if k not in ROSTER})
    tags["Annotator"] = f"{engine.NAME} {engine.__version__}"
    white, black = review.sides["white"], review.sides["black"]
    for name, s in (("WhiteAccuracy", white), ("BlackAccuracy", black)):
        tags[name] = f"{s.accuracy:.1f}" if s.accuracy is not None else "?"
    for name, s in (("WhiteACPL", white), ("BlackACPL", black)):
        tags[name] = str(s.acpl) if s.acpl is not None else "?"
    return tags


def write_game(game, evals, review):
    """The annotated PGN text of an engine.pgn.Game, its positions' PositionEvals and its GameReview."""
    result = game.result or "*"
    game_tags = dict(game.tags)
    if game.chess960:  # kept from the game, or added when the request's variant said Chess960: readers need them
        for name, value in (("Variant", "Chess960"), ("SetUp", "1"), ("FEN", game.start_fen)):
            game_tags.setdefault(name, value)
    opening = openings.of_game(game.start_fen, game.moves, game.chess960)
    if opening is not None and "ECO" not in game_tags and "Opening" not in game_tags:  # the game's own stay
        game_tags.update(ECO=opening.eco, Opening=opening.name)
    header = "\n".join(f"[{name} {quote(value)}]" for name, value in tags_of(game_tags, result, review).items())
    sans = line_san(game.start_fen, game.moves, chess960=game.chess960)
    board = Board(game.start_fen, capacity=len(game.moves) + 64, chess960=game.chess960)
    # the start position's eval too, as a comment before the first move: the first move's drop can be
    # read from the PGN alone
    tokens = ["{ " + eval_text(evals[0]) + " }"] if evals and evals[0] is not None else []
    numbered = True  # the next move needs its number (a game's first move, after a comment or variation)
    for ply, (move, san) in enumerate(zip(game.moves, sans, strict=True)):
        mr = review.moves[ply]
        tokens.append(_numbered(game.start_fen, ply, san + (GLYPHS[mr.judgement] if mr.judgement else ""), numbered))
        numbered = False
        after = evals[ply + 1]
        comment = [eval_text(after)] if after is not None else []
        if mr.judgement and mr.best:
            best_san = line_san(board, [mr.best])[0]
            if mr.reason is not None and mr.reason.kind == "loses":  # nothing simple: what it costs
                comment.append(f"{mr.comment}. {reason_text(mr.reason).replace(' was better: ', ' was best: ', 1)}")
            else:
                comment.append(f"{mr.comment}. {best_san} was best.")
                if mr.reason is not None:
                    comment.append(reason_text(mr.reason))
        if comment:
            tokens.append("{ " + " ".join(comment) + " }")
            numbered = True
        if mr.judgement and evals[ply] is not None and evals[ply].pv:
            tokens += _variation(game.start_fen, ply, board, evals[ply])
            numbered = True
        board.push_uci(move)
    tokens.append(result)
    return header + "\n\n" + _wrap(tokens) + "\n"


def reason_text(reason):
    """A reason's sentence as a PGN comment may hold it (no braces)."""
    return reason.sentence().replace("{", "(").replace("}", ")")


def _variation(start_fen, ply, board, ev):
    """`( 2. Nf3 { [%eval 0.31] } Nc6 3. Bb5 )`: the search's line from the position before the move."""
    pv = list(ev.pv[:VARIATION_PLIES])
    out, numbered = ["("], True
    for i, san in enumerate(line_san(board, pv)):
        out.append(_numbered(start_fen, ply + i, san, numbered))
        numbered = i == 0
        if i == 0:
            out.append("{ " + eval_text(ev) + " }")
    out.append(")")
    return out


def _numbered(start_fen, ply, san, numbered):
    """`12. Nf3`, `12... Nf6` (Black's move after a comment or variation, or first), or `Nf6`."""
    number, black = move_number(start_fen, ply)
    if not black:
        return f"{number}. {san}"
    return f"{number}... {san}" if numbered else san


def _wrap(tokens):
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(line)
    return "\n".join(lines)
