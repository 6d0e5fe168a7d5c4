"""The one writer of docs tables (issue 67): every `--record` of a benchmark, and the WDL fit's
(`python -m benchmarks.wdl`), goes through here. Two kinds of place in a page:

- a section, `## NAME` in docs/benchmarks.md: record() replaces what it holds above its KEEP_BELOW mark
  (the command's stamp and the script's tables) and keeps what is below it (paragraphs written by hand);
- a block between two HTML comments in any page (docs/strength.md's SPRT table, an SPSA run's values):
  write_block() replaces it, or appends it under a heading the first time; record_row() keeps such a
  block as a table of rows, one per name, each with its command in a comment.
"""

import datetime
import os
import pathlib
import platform
import re

from training.markdown import table

__all__ = ["DOC", "KEEP_BELOW", "machine", "record", "record_row", "recorded_part", "table", "write_block"]

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


def write_block(doc, start, end, body, heading=""):
    """Put `start`, body, `end` in the page doc: in place of the block those markers hold, or appended (after
    `heading`, itself appended if the page lacks it) the first time."""
    doc = pathlib.Path(doc)
    text = doc.read_text() if doc.exists() else ""
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text[text.index(start) + len(start):]:
        i = text.index(start)
        j = text.index(end, i + len(start)) + len(end)
        text = text[:i] + block + text[j:]
    else:
        if heading and heading.strip() not in text:
            text = text.rstrip("\n") + "\n\n" + heading.strip("\n")
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(text)


def record_row(doc, marker, header, row, command, heading=""):
    """Add (or replace: the same first cell) a row of the table between two `marker`s in doc, its command in a
    comment at the end of its line. The first time, the table is appended after `heading`."""
    doc = pathlib.Path(doc)
    text = doc.read_text() if doc.exists() else ""
    rows = []  # (cells, the command that produced the row)
    if text.count(marker) >= 2:
        for line in text.split(marker)[1].splitlines():
            if line.startswith("|") and not line.startswith("|-") and not line.startswith(f"| {header[0]} "):
                cells, _, comment = line.partition(" <!-- ")
                rows.append(([c.strip() for c in cells.strip().strip("|").split("|")], comment.removesuffix(" -->")))
    rows = [r for r in rows if r[0][0] != row[0]] + [(row, command)]
    lines = table(header, [cells for cells, _ in rows]).splitlines()
    body = "\n".join(lines[:2] + [f"{line} <!-- {c} -->" if c else line for line, (_, c) in zip(lines[2:], rows,
                                                                                                  strict=True)])
    write_block(doc, marker, marker, body, heading)
