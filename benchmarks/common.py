"""Helpers shared by the benchmark scripts: reference engines, CPU steal, the suites' folder, and (from
benchmarks/report.py, the one docs writer, and training/journals.py) table printing, recording results and
reading match journals."""

import pathlib
import shutil

from benchmarks.report import DOC, machine, record, table
from training.journals import read_journal

__all__ = ["DATA", "DOC", "ROOT", "cpu_times", "find_engine", "machine", "read_journal", "record", "steal_since",
           "table"]

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"  # the suites (WAC, STS, the books): the tests read them here too (its SOURCES.md)
GAMES_DIR = "/usr/games"  # Debian puts stockfish, fairymax and phalanx here, off PATH


def find_engine(name):
    """Path of a reference engine (PATH first, then Debian's games folder), or None."""
    found = shutil.which(name)
    if found:
        return found
    path = pathlib.Path(GAMES_DIR) / name
    return str(path) if path.exists() else None


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
