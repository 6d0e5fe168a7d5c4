"""Match journals (benchmarks/match.py --journal, JSON lines: the settings, then one game pair a line), read
whether gzip-compressed or not. Here, below benchmarks/, because the WDL fit (training/wdl.py) reads the
matches' games too; benchmarks/match.py writes them. The journals kept in benchmarks/journals/ are gzipped
(`.jsonl.gz`); a match under way appends to a plain `.jsonl`.
"""

import gzip
import json
import pathlib


def open_text(path):
    """A text file for reading, gunzipped on the way if its name ends in .gz."""
    path = pathlib.Path(path)
    return gzip.open(path, "rt") if path.suffix == ".gz" else open(path)


def read_lines(path):
    """The lines of a journal; a compressed one cut short by a kill gives the lines it holds."""
    lines = []
    with open_text(path) as f:
        try:
            for line in f:
                lines.append(line.rstrip("\n"))
        except EOFError:  # a gzip stream cut short: the lines before the cut are whole
            pass
    return lines


def read_journal(journal):
    """(settings, [pair entries]) of a benchmarks/match.py journal ({} and [] for an empty file); a line
    torn by a kill is skipped (the match plays that pair again)."""
    lines = read_lines(journal)
    pairs = []
    for line in lines[1:]:
        try:
            pairs.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return (json.loads(lines[0]).get("settings", {}) if lines else {}), pairs
