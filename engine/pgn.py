"""PGN: a small reader (the games of a PGN text, each as its tags and its main line in UCI), and move
numbers as PGN writes them.

    for game in read_games(text):
        game.number, game.tags, game.start_fen, game.moves   # moves: UCI, legal, main line only
    movetext(fen, ["Nf3", "d5", "c4"])                        # "1. Nf3 d5 2. c4"

Enough of the PGN standard (export and import formats) for game collections: tag pairs, SAN
movetext with move numbers, `{comments}`, `; comments`, `%` escape lines, `(variations)` (skipped,
nested), NAGs (`$14`) and suffix annotations (`!?`), results (`1-0`, `0-1`, `1/2-1/2`, `*`), and
`[SetUp "1"] [FEN "..."]` starting positions. SAN is matched against the engine's legal moves
(engine.san.parse_san), so a move that is illegal or ambiguous is an error naming the game and the
move. Chess960 is read from `[Variant "Chess960"]` (its FEN in X-FEN or Shredder-FEN, castling as
O-O/O-O-O, the moves in UCI king-to-rook: e1h1) and written by write_game; other variants are refused.
A game without a Variant tag is standard chess, or Chess960 when read_games is told so (chess960=True:
a request's `"variant": "chess960"`); a game's own tag always wins.

python-chess reads PGN too, but it is GPL-licensed: it is this project's test oracle only and must
never be imported by runtime code.
"""

import dataclasses
import re

from engine.fen import STARTPOS

MAX_GAME_PLIES = 1000
STANDARD_VARIANTS = ("standard", "chess", "normal", "")
CHESS960_VARIANTS = ("chess960", "chess 960", "960", "fischerandom", "fischer random", "fischer random chess",
                     "fischerrandom")


class PgnError(ValueError):
    """A PGN text that cannot be read: `game` (1-based) and where, with the reason."""

    def __init__(self, game, reason):
        self.game, self.reason = game, reason
        super().__init__(f"game {game}: {reason}")


@dataclasses.dataclass
class Game:
    number: int  # 1-based, in the order of the text
    tags: dict
    start_fen: str
    moves: list  # UCI, the main line
    result: str | None
    chess960: bool = False  # [Variant "Chess960"]: castling in the moves is king-to-rook (e1h1)
    comments: list = dataclasses.field(default_factory=list)  # per move, its {comments} after it ("" if none)


_TOKEN = re.compile(r"""
      (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s+"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
    | (?P<comment>\{[^}]*\}?)
    | (?P<line_comment>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<result>1-0|0-1|1/2-1/2|\*)
    | (?P<number>\d+\s*\.(?:\s*\.)*)
    | (?P<nag>\$\d+)
    | (?P<move>[A-Za-z0-9][A-Za-z0-9=+#!?/-]*|--)
    | (?P<annotation>[!?]+)
    | (?P<space>\s+)
    | (?P<other>.)
""", re.X)

def _strip_escapes(text):
    """Drop `%` escape lines (the standard's line-start escape mechanism)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("%"))


def _unescape(value):
    return re.sub(r"\\(.)", r"\1", value)


def read_games(text, max_plies=MAX_GAME_PLIES, chess960=False):
    """Yield each Game of a PGN text. Raises PgnError at the first game that cannot be read.
    chess960: the rules of a game with no Variant tag (its tag, when it has one, says them)."""
    game_tags, tokens, comments, depth, number = {}, [], [], 0, 0
    in_movetext = False

    def finish(result):
        nonlocal game_tags, tokens, comments, in_movetext, number
        number += 1
        game = _replay(number, game_tags, tokens, result, max_plies, chess960)
        game.comments = comments
        game_tags, tokens, comments, in_movetext = {}, [], [], False
        return game

    for m in _TOKEN.finditer(_strip_escapes(text)):
        kind = m.lastgroup if m.lastgroup not in ("name", "value") else "tag"
        if kind in ("space", "comment", "line_comment", "nag", "annotation", "number"):
            if kind == "comment" and not m.group().endswith("}"):
                raise PgnError(number + 1, "a { comment } is not closed")
            if kind == "comment" and not depth and tokens:  # a main-line move's comment (its [%eval], say)
                comments[-1] = (comments[-1] + " " + m.group()[1:-1].strip()).strip()
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                raise PgnError(number + 1, "a ')' closes no variation")
            depth -= 1
            continue
        if depth:
            continue  # inside a variation: not the main line
        if kind == "tag":
            if in_movetext:  # a new game's tags after movetext with no result: the old game ends
                yield finish(None)
            game_tags[m.group("name")] = _unescape(m.group("value"))
        elif kind == "result":
            yield finish(m.group())
        elif kind == "move":
            in_movetext = True
            tokens.append(m.group())
            comments.append("")
        else:
            raise PgnError(number + 1, f"unexpected {m.group()!r} in the movetext")
    if depth:
        raise PgnError(number + 1, "a '(' variation is not closed")
    if in_movetext or game_tags:
        yield finish(None)


def _replay(number, tags, tokens, result, max_plies, untagged_chess960=False):
    from engine.board import Board
    from engine.fen import FenError
    from engine.san import SanError, parse_san

    variant = tags.get("Variant", "chess960" if untagged_chess960 else "standard").strip().lower()
    if variant not in STANDARD_VARIANTS + CHESS960_VARIANTS:
        raise PgnError(number, f"variant {tags['Variant']!r} is not supported (standard chess and Chess960 only)")
    chess960 = variant in CHESS960_VARIANTS
    fen = tags.get("FEN", STARTPOS) if tags.get("SetUp", "1" if "FEN" in tags else "0") == "1" else STARTPOS
    try:
        board = Board(fen, capacity=max(512, len(tokens) + 64), chess960=chess960)
    except FenError as e:
        raise PgnError(number, f"[FEN] tag: {e}") from e
    fen = board.fen()
    if len(tokens) > max_plies:
        raise PgnError(number, f"{len(tokens)} moves; the limit is {max_plies} per game")
    moves = []
    for ply, token in enumerate(tokens):
        try:
            move = parse_san(board, token)
        except SanError as e:
            raise PgnError(number, f"move {move_label(fen, ply, token)}: {e}") from None
        moves.append(board.uci(move))
        board.push(move)
    return Game(number=number, tags=tags, start_fen=fen, moves=moves, result=result, chess960=chess960)


def move_number(fen, ply):
    """(fullmove number, whether Black plays it) of the move at `ply` (from 0) of a game started at fen."""
    fields = fen.split()
    k = ply + (fields[1] == "b")
    return (int(fields[5]) if len(fields) > 5 else 1) + k // 2, k % 2 == 1


def move_label(fen, ply, san):
    """`12. Nf3` or `12... Nf6`: the move at `ply` of a game started at fen, numbered (error messages)."""
    number, black = move_number(fen, ply)
    return f"{number}{'...' if black else '.'} {san}"


def movetext(fen, sans):
    """SAN moves played from fen, numbered as PGN writes them: `12. Nf3 d5 13. c4`, or `12... d5 13. c4`
    when Black moves first."""
    return " ".join(move_label(fen, ply, san) if ply == 0 or not move_number(fen, ply)[1] else san
                    for ply, san in enumerate(sans))


def write_game(start_fen=STARTPOS, moves=(), tags=None, result="*", chess960=False):
    """PGN text of a game: its tags (the seven-tag roster first, "?" where missing), `[Variant "Chess960"]`
    for Chess960, `[SetUp "1"] [FEN ...]` when it does not start from standard chess's start position,
    and the UCI `moves` (king-to-rook castling in Chess960) as numbered SAN."""
    from engine.board import Board
    from engine.epd import quote
    from engine.san import line_san

    board = Board(start_fen, chess960=chess960)
    fen = board.fen()
    out = {name: "?" for name in ("Event", "Site", "Date", "Round", "White", "Black")}
    out["Date"] = "????.??.??"
    out.update(tags or {})
    out["Result"] = result
    if chess960:
        out["Variant"] = "Chess960"
    if fen != STARTPOS or chess960:
        out["SetUp"] = "1"
        out["FEN"] = fen
    header = "\n".join(f"[{name} {quote(value)}]" for name, value in out.items())
    text = movetext(fen, line_san(board, moves))
    return header + "\n\n" + (text + " " if text else "") + result + "\n"
