"""python -m training store count|commit [PATH ...]: what the game store holds; commit its new chunks.

    count    every chunk read back (decompressed, checked against its hashes, replayed), by run: chunks,
             games, moves, training positions (today's filter), bytes on disk and bytes a position;
             --headers trusts each chunk's header instead (instant)
    commit   `git add` the sealed chunks git does not have yet and commit them, the counts in the message:
             the one command that keeps a day's games (journals are never committed)
"""

import pathlib
import subprocess

from training import store


def table(runs):
    rows = [("run", "chunks", "games", "moves", "positions", "MB", "bytes a position", "bytes a move")]
    total = {"chunks": 0, "games": 0, "moves": 0, "positions": 0, "bytes": 0}
    for run, r in sorted(runs.items()):
        rows.append(_row(run, r))
        for k in total:
            total[k] += r[k]
    if len(runs) > 1 or not runs:
        rows.append(_row("all", total))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(
        zip(r, widths, strict=True))) for r in rows), total


def _row(run, r):
    per_position = f"{r['bytes'] / r['positions']:.3f}" if r["positions"] else "-"
    per_move = f"{r['bytes'] / r['moves']:.3f}" if r["moves"] else "-"
    return (run, r["chunks"], r["games"], r["moves"], r["positions"], f"{r['bytes'] / 1e6:.2f}", per_position, per_move)


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def commit(folder):
    folder = pathlib.Path(folder).resolve()
    root = pathlib.Path(git(folder, "rev-parse", "--show-toplevel").strip())
    new = [line[3:] for line in git(root, "status", "--porcelain", "--untracked-files=all", "--",
                                    str(folder)).splitlines() if line.startswith("?? ") and line.endswith(store.SUFFIX)]
    if not new:
        print(f"store: no new chunks under {folder}")
        return None
    added = store.count([root / p for p in new], verify=True)
    git(root, "add", "--", *new)
    _, total = table(store.count([folder], verify=False))
    plus = sum(r["positions"] for r in added.values())
    runs = ", ".join(f"{run} +{r['positions']:,} in {r['chunks']}" for run, r in sorted(added.items()))
    message = (f"Game store: +{plus:,} positions in {len(new)} chunks ({runs}); "
               f"{total['positions']:,} positions, {total['bytes'] / 1e6:.1f} MB in all")
    # Only the chunks: whatever else is staged stays staged, uncommitted.
    git(root, "commit", "-q", "-m", message, "--", *new)
    print(message)
    return message


def main(args):
    paths = args.paths or [store.STORE]
    if args.action == "count":
        text, _ = table(store.count(paths, verify=not args.headers))
        print(text)
    else:
        for p in paths:
            commit(p)
