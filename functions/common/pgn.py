"""A small PGN reader: the games of a PGN text, each as its tags and its main line in UCI.

    for game in read_games(text):
        game.number, game.tags, game.start_fen, game.moves   # moves: UCI, legal, main line only

Enough of the PGN standard (export and import formats) for game collections: tag pairs, SAN
movetext with move numbers, `{comments}`, `; comments`, `%` escape lines, `(variations)` (skipped,
nested), NAGs (`$14`) and suffix annotations (`!?`), results (`1-0`, `0-1`, `1/2-1/2`, `*`), and
`[SetUp "1"] [FEN "..."]` starting positions. SAN is matched against the engine's legal moves
(engine.board.Board), so a move that is illegal or ambiguous is an error naming the game and the
move. Chess960 and other variants are refused.

python-chess reads PGN too, but it is GPL-licensed: it is this project's test oracle only and must
never be imported by runtime code.
"""

import dataclasses
import re

from engine.fen import STARTPOS

MAX_GAME_PLIES = 1000


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
    sans: list  # the same moves in SAN, as written (normalised: no annotations)
    result: str | None

    @property
    def title(self):
        white, black = self.tags.get("White", "?"), self.tags.get("Black", "?")
        return f"{white} - {black}"


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

_SAN = re.compile(r"^(?P<piece>[NBRQK])?(?P<file>[a-h])?(?P<rank>[1-8])?(?P<capture>x)?(?P<to>[a-h][1-8])"
                  r"(?:=?(?P<promo>[NBRQ]))?(?P<check>[+#])?$")
_CASTLE = re.compile(r"^(?P<side>O-O-O|O-O|0-0-0|0-0)(?P<check>[+#])?$")


def _strip_escapes(text):
    """Drop `%` escape lines (the standard's line-start escape mechanism)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("%"))


def _unescape(value):
    return re.sub(r"\\(.)", r"\1", value)


def read_games(text, max_plies=MAX_GAME_PLIES):
    """Yield each Game of a PGN text. Raises PgnError at the first game that cannot be read."""
    game_tags, tokens, depth, number = {}, [], 0, 0
    in_movetext = False

    def finish(result):
        nonlocal game_tags, tokens, in_movetext, number
        number += 1
        game = _replay(number, game_tags, tokens, result, max_plies)
        game_tags, tokens, in_movetext = {}, [], False
        return game

    for m in _TOKEN.finditer(_strip_escapes(text)):
        kind = m.lastgroup if m.lastgroup not in ("name", "value") else "tag"
        if kind in ("space", "comment", "line_comment", "nag", "annotation", "number"):
            if kind == "comment" and not m.group().endswith("}"):
                raise PgnError(number + 1, "a { comment } is not closed")
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
        else:
            raise PgnError(number + 1, f"unexpected {m.group()!r} in the movetext")
    if depth:
        raise PgnError(number + 1, "a '(' variation is not closed")
    if in_movetext or game_tags:
        yield finish(None)


def _replay(number, tags, tokens, result, max_plies):
    from engine.board import Board
    from engine.fen import FenError

    variant = tags.get("Variant", "standard").lower()
    if variant not in ("standard", "chess", "normal", ""):
        raise PgnError(number, f"variant {tags['Variant']!r} is not supported (standard chess only)")
    fen = tags.get("FEN", STARTPOS) if tags.get("SetUp", "1" if "FEN" in tags else "0") == "1" else STARTPOS
    try:
        board = Board(fen, capacity=max(512, len(tokens) + 64))
    except FenError as e:
        raise PgnError(number, f"[FEN] tag: {e}") from e
    fen = board.fen()
    if len(tokens) > max_plies:
        raise PgnError(number, f"{len(tokens)} moves; the limit is {max_plies} per game")
    moves, sans = [], []
    for ply, token in enumerate(tokens):
        label = _move_label(fen, ply, token)
        move = match_san(board, token, label, number)
        moves.append(board.uci(move))
        sans.append(token.rstrip("!?"))
        board.push(move)
    return Game(number=number, tags=tags, start_fen=fen, moves=moves, sans=sans, result=result)


def _move_label(start_fen, ply, token):
    """`12. Nf3` / `12... Nf6` for error messages."""
    fields = start_fen.split()
    black_first = fields[1] == "b"
    fullmove = int(fields[5]) if len(fields) > 5 else 1
    k = ply + black_first
    return f"{fullmove + k // 2}{'.' if k % 2 == 0 else '...'} {token}"


def match_san(board, token, label="", game=1):
    """The legal move of `board` that SAN `token` names; PgnError if none or several do."""
    from engine.layout import F_KING_CASTLE, F_QUEEN_CASTLE, PAWN, PIECE_CHARS
    from engine.moves import move_flag, move_from, move_to, promotion_type

    text = token.rstrip("!?")
    where = f"move {label or token}"
    if text == "--":
        raise PgnError(game, f"{where}: null moves are not supported")
    legal = board.legal_moves()
    castle = _CASTLE.match(text)
    if castle:
        flag = F_QUEEN_CASTLE if castle.group("side") in ("O-O-O", "0-0-0") else F_KING_CASTLE
        found = [m for m in legal if move_flag(m) == flag]
    else:
        san = _SAN.match(text)
        if not san:
            raise PgnError(game, f"{where}: not a move in SAN (like e4, Nf3, exd5, O-O, e8=Q)")
        piece = "PNBRQK".index(san.group("piece") or "P") + PAWN
        to = "abcdefgh".index(san.group("to")[0]) + 8 * (int(san.group("to")[1]) - 1)
        promo = san.group("promo")
        found = []
        for m in legal:
            frm = move_from(m)
            if move_to(m) != to or board.piece_at(frm) & 7 != piece:
                continue
            if move_flag(m) in (F_KING_CASTLE, F_QUEEN_CASTLE):
                continue
            if san.group("file") and "abcdefgh"[frm & 7] != san.group("file"):
                continue
            if san.group("rank") and str((frm >> 3) + 1) != san.group("rank"):
                continue
            p = promotion_type(m)
            if (PIECE_CHARS[p] if p else None) != promo:
                continue
            found.append(m)
    if not found:
        raise PgnError(game, f"{where}: not legal in {board.fen()}")
    if len(found) > 1:
        raise PgnError(game, f"{where}: ambiguous in {board.fen()} (" +
                       ", ".join(board.uci(m) for m in found) + ")")
    return found[0]
