"""Cutting a game collection into chunks: byte ranges that start at a game (PGN) or a line (EPD,
JSONL), of about a given number of positions each, for batch jobs read from S3.

    scanner = Scanner("pgn")                  # or "epd", "jsonl"; continuing: Scanner(fmt, offset, number, line)
    for block in blocks:                      # bytes, in order, from any source (ranged GETs, a decompressor)
        for record in scanner.feed(block): ...
    records = scanner.finish()                # the last ones
    chunker = Chunker(target=100)             # Chunker.add(record) -> Chunk or None; Chunker.finish()

A record is one game (PGN: its positions are its main line's moves + 1, as functions/common/jobs/positions.py
counts them) or one position line (EPD: not blank, not `#`; JSONL: not blank). Its byte range is exact:
the records of a text tile it from its first byte to its last, so a chunk [start, end) read back with a
ranged GET and scanned again gives the same records. Scanning is sequential and keeps no more than a line
in hand, whatever the size of the text.

Where a PGN game starts: at the start of the text; at a tag (`[Name "..."]`) after movetext (a move or a
result) of the game before; and at the first move after a result, when the next game has no tags (as
engine.pgn.read_games reads them). A tag-like line inside a `{ comment }` is comment: braces, `;` comments
and `%` escape lines are followed across lines. Lines end at LF; a CR before it is a space; a UTF-8 byte
order mark at the start of the text is skipped (its bytes belong to the first record).

Only the shape is read here (tokens, no move is checked): a game whose moves are illegal is found and
counted, and fails when its chunk is analysed, naming its game.
"""

import dataclasses
import json
import re

from engine.epd import parse_epd
from engine.fen import FenError

FORMATS = ("pgn", "epd", "jsonl")
BOM = b"\xef\xbb\xbf"

_PGN_TOKEN = re.compile(rb"""
      (?P<tag>\[)
    | (?P<comment>\{)
    | (?P<line_comment>;)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<result>1-0|0-1|1/2-1/2|\*)
    | (?P<number>\d+\s*\.(?:\s*\.)*)
    | (?P<nag>\$\d+)
    | (?P<move>[A-Za-z0-9][A-Za-z0-9=+\#!?/-]*|--)
    | (?P<space>\s+)
    | (?P<other>.)
""", re.X)
_QUOTED = re.compile(rb'"(?:[^"\\]|\\.)*"?')


@dataclasses.dataclass(frozen=True)
class Record:
    start: int  # byte offsets in the whole text: [start, end)
    end: int
    positions: int
    number: int  # PGN: the game's number from 1; EPD, JSONL: the line's number from 1


@dataclasses.dataclass(frozen=True)
class Chunk:
    number: int  # from 0, in the order of the text
    start: int
    end: int
    positions: int
    first_number: int  # the first record's number (game or line)
    first_index: int  # the first position's index in the whole job, from 0
    last_number: int  # the last record's number: a continuation after this chunk starts its count there


class Scanner:
    """Records of a text fed in blocks. offset, number, line: where a continuation starts (a record boundary:
    the byte offset, the records before it, the lines before it)."""

    def __init__(self, fmt, offset=0, number=0, line=0):
        if fmt not in FORMATS:
            raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
        self.fmt = fmt
        self.offset = offset  # of the first byte not yet split into lines
        self.number = number
        self.line = line
        self.pending = b""
        self.at_text_start = offset == 0
        # PGN state: the current game's start, its plies, whether it has movetext, where comments stand
        self.game_start = offset
        self.plies = 0
        self.movetext = False
        self.after_result = False
        self.depth = 0
        self.in_comment = False
        self.tags_seen = False

    def feed(self, data):
        self.pending += data
        out = []
        start = 0
        while True:
            nl = self.pending.find(b"\n", start)
            if nl < 0:
                break
            out += self._line(self.pending[start:nl + 1], self.offset)
            self.offset += nl + 1 - start
            start = nl + 1
        self.pending = self.pending[start:]
        return out

    def finish(self):
        out = []
        if self.pending:
            out += self._line(self.pending, self.offset)
            self.offset += len(self.pending)
            self.pending = b""
        if self.fmt == "pgn" and self.offset > self.game_start and (self.movetext or self.plies or self.tags_seen):
            out.append(self._end_game(self.offset))
        return out

    # --- lines ---------------------------------------------------------------------------------------

    def _line(self, raw, at):
        self.line += 1
        body = raw
        if self.at_text_start:
            self.at_text_start = False
            if body.startswith(BOM):
                body, at_body = body[len(BOM):], at + len(BOM)
            else:
                at_body = at
        else:
            at_body = at
        if self.fmt == "pgn":
            return self._pgn_line(body, at_body)
        text = body.strip()
        if not text or (self.fmt == "epd" and text.startswith(b"#")):
            return []
        self.number += 1
        return [Record(at, at + len(raw), 1, self.line)]

    def _pgn_line(self, body, at):
        out = []
        if body.startswith(b"%") and not self.in_comment:
            return out  # an escape line
        pos, n = 0, len(body)
        while pos < n:
            if self.in_comment:
                close = body.find(b"}", pos)
                if close < 0:
                    return out
                self.in_comment = False
                pos = close + 1
                continue
            m = _PGN_TOKEN.match(body, pos)
            kind = m.lastgroup
            if kind == "space":
                pos = m.end()
                continue
            if kind == "comment":
                self.in_comment = True
                pos = m.end()
                continue
            if kind == "line_comment":
                return out
            if kind == "tag":
                if self.depth == 0 and (self.movetext or self.after_result) and at + m.start() > self.game_start:
                    out.append(self._end_game(at + m.start()))
                self.tags_seen = True
                end = self._tag_end(body, m.end())
                pos = end
                continue
            if kind == "open":
                self.depth += 1
            elif kind == "close":
                self.depth = max(0, self.depth - 1)
            elif self.depth == 0 and kind == "result":
                self.movetext = True
                self.after_result = True
            elif self.depth == 0 and kind in ("move", "number"):
                if self.after_result:  # a game with no tags after a result starts at its first move (number)
                    out.append(self._end_game(at + m.start()))
                if kind == "move":
                    self.movetext = True
                    self.plies += 1
            pos = m.end()
        return out

    @staticmethod
    def _tag_end(body, pos):
        """Past a tag pair's closing bracket (quoted values may hold brackets), or the line's end."""
        while pos < len(body):
            c = body[pos:pos + 1]
            if c == b'"':
                m = _QUOTED.match(body, pos)
                pos = m.end()
            elif c == b"]":
                return pos + 1
            else:
                pos += 1
        return pos

    def _end_game(self, end):
        self.number += 1
        record = Record(self.game_start, end, self.plies + 1, self.number)
        self.game_start, self.plies, self.movetext, self.after_result = end, 0, False, False
        self.tags_seen = False
        return record


class Chunker:
    """Records grouped into chunks of at least `target` positions (the last one may have fewer; a record
    larger than the target is a chunk of its own). first_chunk, first_index: where a continuation starts."""

    def __init__(self, target, first_chunk=0, first_index=0):
        if target < 1:
            raise ValueError("target: at least one position a chunk")
        self.target = target
        self.next_chunk = first_chunk
        self.next_index = first_index
        self.records = []

    def add(self, record):
        self.records.append(record)
        if sum(r.positions for r in self.records) >= self.target:
            return self._emit()
        return None

    def finish(self):
        return self._emit() if self.records else None

    def _emit(self):
        rs, self.records = self.records, []
        positions = sum(r.positions for r in rs)
        chunk = Chunk(self.next_chunk, rs[0].start, rs[-1].end, positions, rs[0].number, self.next_index,
                      rs[-1].number)
        self.next_chunk += 1
        self.next_index += positions
        return chunk


def scan(data, fmt, offset=0, number=0, line=0):
    """Every record of a whole text (bytes) at once."""
    scanner = Scanner(fmt, offset, number, line)
    return scanner.feed(data) + scanner.finish()


def chunks(data, fmt, target):
    """Every chunk of a whole text (bytes) at once."""
    chunker = Chunker(target)
    out = [c for c in map(chunker.add, scan(data, fmt)) if c is not None]
    last = chunker.finish()
    return out + ([last] if last else [])


def text_of(data, start):
    """A record's or chunk's bytes as text: UTF-8, a byte order mark dropped at the text's start, CRLF as LF."""
    if start == 0 and data.startswith(BOM):
        data = data[len(BOM):]
    return data.decode("utf-8").replace("\r\n", "\n")


def check_head(text, fmt, chess960=False):
    """None if the start of a text (decoded, possibly cut mid-line) reads as `fmt`, else why not. Enough to
    refuse a wrong format at submission; the chunks' analysis names any bad record later. chess960: the
    job's variant, which an EPD line's castling field is read by."""
    lines = [line.strip() for line in text.splitlines()[:-1] or text.splitlines()]
    first = next((line for line in lines if line and not (fmt == "epd" and line.startswith("#"))), None)
    if first is None:
        return "no position in its first bytes (blank)"
    if fmt == "jsonl":
        try:
            value = json.loads(first)
        except ValueError as e:
            return f"format jsonl: its first line is not JSON ({e})"
        if not isinstance(value, str | dict):
            return "format jsonl: a line is a FEN string or an object {id, fen, moves}"
        return None
    if fmt == "epd":
        try:
            parse_epd(first, chess960)
        except FenError as e:
            return f"format epd: its first line is not EPD ({e})"
        return None
    records = Scanner("pgn").feed(text.encode())
    if first.startswith(("{", '"')) and not first.startswith("{ "):
        try:
            json.loads(first)
            return "format pgn: it reads as JSON lines (format jsonl?)"
        except ValueError:
            pass
    try:
        parse_epd(first)
        return "format pgn: its first line is a position (format epd?)"
    except FenError:
        pass
    if not first.startswith(("[", "%", ";", "{")) and not re.match(r"\d+\s*\.", first) and not records:
        return f"format pgn: it starts with {first[:40]!r}, not a tag pair or a move number"
    return None
