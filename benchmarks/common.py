"""Helpers shared by the benchmark scripts: reference engines, table printing, recording results."""

import datetime
import os
import pathlib
import platform
import re
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(os.environ.get("KIBITZ_DATA", ROOT / "tests" / "data"))  # as the tests (tests/data/SOURCES.md)
DOC = ROOT / "docs" / "benchmarks.md"
GAMES_DIR = "/usr/games"  # Debian puts stockfish, fairymax and phalanx here, off PATH


def find_engine(name):
    """Path of a reference engine (PATH first, then Debian's games folder), or None."""
    found = shutil.which(name)
    if found:
        return found
    path = pathlib.Path(GAMES_DIR) / name
    return str(path) if path.exists() else None


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


def cpu_times():
    """(steal, total) jiffies of all CPUs since boot, from /proc/stat; (0, 0) where there is none."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def steal_since(start):
    """Share of CPU time the hypervisor gave to other guests since `start` (a cpu_times() reading), as
    text: a noisy neighbour shows up as steal, and the timings under it are not to be trusted."""
    steal, total = (b - a for a, b in zip(start, cpu_times(), strict=True))
    return f"CPU steal during the run: {100 * steal / total:.1f}%" if total else "CPU steal: unknown"


def table(headers, rows):
    """A markdown table."""
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"
    out = [fmt(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt(r) for r in cells[1:]]
    return "\n".join(out)


def record(section, body, command):
    """Replace (or append) `## section` in docs/benchmarks.md with body, dated, with the command."""
    DOC.parent.mkdir(exist_ok=True)
    header = "# Benchmarks\n\nEvery figure here was printed by a script in `benchmarks/`.\n"
    text = DOC.read_text() if DOC.exists() else header
    stamp = datetime.date.today().isoformat()
    block = f"## {section}\n\n`{command}` — {stamp}, {machine()}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(section)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda m: block + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + block
    DOC.write_text(text.rstrip("\n") + "\n")

