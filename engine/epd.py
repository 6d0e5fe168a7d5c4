"""EPD (Extended Position Description, PGN standard section 16.2): a position's first four FEN fields,
then operations `opcode operand;` — reading and writing. Plain Python: runs without the compiled core.

    fen, ops = parse_epd('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";')
    format_epd(fen, [("bm", "Qg6"), ("ce", 312), ("acs", 1.25), ("pv", ["Qg6", "fxg6"]), ("id", "WAC.001")])
"""

from engine.fen import FIELDS, FenError, parse_fen

# Opcodes whose operand is a string, written in double quotes (the standard's `id` and comments).
STRING_OPCODES = frozenset({"id", *(f"c{i}" for i in range(10))})


def parse_epd(line, chess960=False):
    """Split an EPD line into (fen, operations): 4 FEN fields, optional clocks, then `opcode operand;`s.

    Returns the FEN (validated by parse_fen, as Chess960's with chess960; clocks 0 1 when the line has
    none) and a dict of opcode -> operand text (quotes removed).
    """
    if not isinstance(line, str):
        raise FenError("board", f"expected an EPD line, got {type(line).__name__}")
    words = line.split(None, 4)
    if len(words) < 4:
        raise FenError(FIELDS[len(words)] if words else "board", "an EPD line needs at least 4 fields")
    rest = words[4] if len(words) > 4 else ""
    tail = rest.split()
    fen = " ".join(words[:4])
    if len(tail) >= 2 and tail[0].isdigit() and tail[1].isdigit():
        fen += f" {tail[0]} {tail[1]}"
        rest = rest.split(None, 2)[2] if len(tail) > 2 else ""
    else:
        fen += " 0 1"
    parse_fen(fen, chess960)
    ops = {}
    for op in rest.split(";"):
        op = op.strip()
        if op:
            code, _, operand = op.partition(" ")
            ops[code] = operand.strip().strip('"')
    return fen, ops


def records(text):
    """(line number from 1, line) for each record of an EPD text: blank lines and `#` comments skipped."""
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield n, line


def format_epd(fen, operations):
    """An EPD line: fen's first four fields, then each (opcode, operand) as `opcode operand;`.

    An operand is written as its type says: a string of a STRING_OPCODES opcode in quotes, other
    strings as they are (SAN moves: `bm Nf3`), a list or tuple as its items with spaces between (`pv`),
    an int as it is, a float with at most three decimals and no trailing zeros (`acs 1.25`).
    """
    written = [f"{opcode} {_operand(opcode, value)}" for opcode, value in operations]
    return " ".join(fen.split()[:4]) + " " + "; ".join(written) + ";"


def quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _operand(opcode, value):
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".")
    if isinstance(value, str) and opcode in STRING_OPCODES:
        return quote(value)
    return str(value)
