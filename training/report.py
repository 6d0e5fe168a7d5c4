"""Reports in docs/benchmarks.md: a markdown table, the machine's description, and the recording of a
section. `python -m training wdl --record` and the scripts in benchmarks/ (through benchmarks/common.py)
both write there, and both read benchmarks/match.py's journals; here, below both, so that training/
imports nothing from benchmarks/.
"""

import datetime
import json
import os
import pathlib
import platform
import re

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def machine():
    cpu = "unknown cpu"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def table(headers, rows):
    """A markdown table."""
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"
    out = [fmt(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(r) for r in cells[1:]]
    return "\n".join(out)


# Written by record() below each section's recorded text. A rerun replaces what is above it (the command's
# stamp and the script's tables) and keeps what is below it: the paragraphs written by hand about earlier runs.
KEEP_BELOW = "<!-- recorded above; kept below: written by hand -->"


def _section(text, section):
    """The match of `## section` in text, up to the next `## ` heading (None if it has none)."""
    return re.search(rf"^## {re.escape(section)}\n.*?(?=^## |\Z)", text, re.S | re.M)


def recorded_part(section):
    """What docs/benchmarks.md's `## section` holds above its KEEP_BELOW mark ("" if there is no section)."""
    existing = _section(DOC.read_text(), section) if DOC.exists() else None
    return existing.group(0).partition(KEEP_BELOW)[0] if existing else ""


def record(section, body, command):
    """Replace (or append) `## section` in docs/benchmarks.md with body, dated, with the command, keeping what
    the section holds below its KEEP_BELOW mark. A section without the mark is replaced whole."""
    DOC.parent.mkdir(exist_ok=True)
    header = "# Benchmarks\n\nEvery figure here was printed by a script in `benchmarks/`.\n"
    text = DOC.read_text() if DOC.exists() else header
    stamp = datetime.date.today().isoformat()
    block = f"## {section}\n\n`{command}` — {stamp}, {machine()}\n\n{body.strip()}\n\n{KEEP_BELOW}\n"
    existing = _section(text, section)
    if existing:
        below = existing.group(0).partition(KEEP_BELOW)[2].strip("\n")
        text = text[:existing.start()] + block + (f"\n{below}\n" if below else "") + "\n" + text[existing.end():]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    DOC.write_text(text.rstrip("\n") + "\n")


def read_journal(journal):
    """(settings, [pair entries]) of a benchmarks/match.py journal ({} and [] for an empty file); a line
    torn by a kill is skipped (the match plays that pair again)."""
    lines = pathlib.Path(journal).read_text().splitlines()
    pairs = []
    for line in lines[1:]:
        try:
            pairs.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return (json.loads(lines[0]).get("settings", {}) if lines else {}), pairs
