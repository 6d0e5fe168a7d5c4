"""`kibitz review`: review the games of a PGN file through the jobs API, with a progress bar, and
write them annotated.

    kibitz review game.pgn --movetime-ms 300 -o annotated.pgn [--graph DIR] [--url API]

Without --url (or $KIBITZ_URL) the whole jobs path runs here: SQS and DynamoDB (with the analysis
cache) embedded in moto on 127.0.0.1, local pollers running BatchFunction, and JobsFunction in this
process, as `kibitz serve` runs them (kibitz/clients/jobs.py's LocalStack), stopped at the end. With
--url it talks to `kibitz serve` (whose cache outlives one review) or a deployed stack: the same requests.

It submits POST /jobs {"pgn": ..., "review": true}, waits (progress bar on stderr), prints each
game's summary (accuracy, ACPL, the moves flagged: Lichess's formulas, docs/review-numbers.md), writes
GET /jobs/{job_id}/pgn to -o (or standard output), and with --graph DIR an SVG of White's win% per
game (kibitz/clients/review_graph.py).
"""

import contextlib
import csv
import os
import pathlib
import sys

from kibitz.clients.jobs import ClientError, LocalStack, explain, served, wait
from kibitz.clients.review_graph import svg


def _said(flag):
    """Lichess's words for a mate let in or let go ("Checkmate is now unavoidable; "), else nothing."""
    comment = flag.get("comment")
    return f"{comment}; " if comment and comment.lower() != flag["judgement"] else ""


def summary_lines(game):
    """A game's summary for people (a GameSummary of GET /jobs/{job_id}, as JSON): accuracy, ACPL and marks
    by Lichess's formulas (docs/review-numbers.md)."""
    def cell(value, fmt):
        return format(value, fmt) if value is not None else "?"

    lines = [f"game {game['game']}: {game['white']} - {game['black']} ({game['result']}), {game['plies']} plies; "
             "accuracy, ACPL and marks by Lichess's formulas"]
    lines.append(f"  {'':6} {'accuracy':>8} {'ACPL':>5} {'inaccuracies':>12} {'mistakes':>8} {'blunders':>8}")
    for side in ("white", "black"):
        j = game["judgements"][side]
        accuracy, acpl = cell(game["accuracy"][side], ".1f"), cell(game["acpl"][side], "d")
        lines.append(f"  {side.capitalize():6} {accuracy:>8} {acpl:>5} {j['inaccuracy']:>12} {j['mistake']:>8} "
                     f"{j['blunder']:>8}")
    worst = [f"{f['move']} ({_said(f)}{f['best']} was best)" for f in game["flagged"] if f["judgement"] != "inaccuracy"]
    if worst:
        lines.append("  mistakes and blunders: " + ", ".join(worst))
    for f in game["flagged"]:  # each marked move's reason (engine/coach), one a line
        if f.get("reason"):
            lines.append(f"    {f['move']} {f['reason']['text']}")
    return lines


def puzzle_lines(game):
    """A game's puzzles for people: the position, the move played, the solution and its themes."""
    found = game.get("puzzles") or []
    lines = [f"game {game['game']}: {len(found)} puzzle{'s' if len(found) != 1 else ''}"]
    for p in found:
        lines.append(f"  ply {p['ply']}: {p['fen']}  played {p['played_san']}, solution "
                     f"{' '.join(p['solution_san'])} ({' '.join(p['themes'])})")
    return lines


PUZZLE_COLUMNS = ("PuzzleId", "FEN", "Moves", "Rating", "RatingDeviation", "Popularity", "NbPlays", "Themes",
                  "GameUrl", "OpeningTags")


def write_puzzles_csv(path, games):
    """The games' puzzles in Lichess's puzzle CSV layout (docs/review.md): FEN before the opponent's move, Moves
    starting with it; the columns Lichess fills from its players (Rating, RatingDeviation, Popularity, NbPlays)
    and GameUrl left empty."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=PUZZLE_COLUMNS)
        w.writeheader()
        for game in games:
            tags = (game.get("opening") or {}).get("name", "")
            for p in game.get("puzzles") or []:
                fen, moves = (p["before_fen"], [p["before_move"]] + p["solution"]) if p.get("before_fen") \
                    else (p["fen"], p["solution"])
                w.writerow({"PuzzleId": f"g{game['game']}p{p['ply']}", "FEN": fen, "Moves": " ".join(moves),
                            "Themes": " ".join(p["themes"]), "OpeningTags": _opening_tag(tags)})


def _opening_tag(name):
    """Lichess's OpeningTags form: the family, and the family with its variation (Italian_Game Italian_Game_X)."""
    family, _, variation = name.partition(":")
    words = ["_".join(part.replace("'", "").replace("-", " ").split()) for part in (family, variation.split(",")[0])]
    return " ".join(t for t in (words[0], f"{words[0]}_{words[1]}" if words[1] else "") if t)


def review_command(args):
    try:
        path = pathlib.Path(args.file)
        if path.suffix.lower() != ".pgn":
            raise ClientError(f"{path}: expected a .pgn file, not {path.suffix or 'no suffix'}")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ClientError(f"{path}: {e}") from e
        body = {"pgn": text, "review": True, "movetime_ms": args.movetime_ms, "cache": args.cache}
        for key in ("depth", "nodes", "variant"):
            if getattr(args, key) is not None:
                body[key] = getattr(args, key)
        url = args.url or os.environ.get("KIBITZ_URL")
        where = contextlib.nullcontext(served(url)) if url else LocalStack(args.template, args.pollers)
        with where as api:
            status, answer = api.submit(body)
            if status != 202:
                for line in explain(status, answer):
                    print(line, file=sys.stderr)
                print("kibitz: nothing was reviewed", file=sys.stderr)
                return 1
            job_id = answer["job_id"]
            print(f"kibitz: job {job_id}: {answer['total']} positions", file=sys.stderr)
            wait(api, job_id, progress=not args.quiet)
            status, state = api.state(job_id, limit=1)
            if status != 200:
                raise ClientError("\n".join(explain(status, state)))
            status, pgn = api.pgn(job_id)
            if status != 200:
                raise ClientError("\n".join(explain(status, pgn)))
        out = sys.stdout if args.output else sys.stderr  # the PGN has standard output when there is no -o
        for game in state["games"] or []:
            print("\n".join(summary_lines(game)), file=out)
        if state["failed"]:
            print(f"kibitz: {state['failed']} positions could not be analysed; the moves next to them are not "
                  f"judged (kibitz batch results {job_id} shows why)", file=sys.stderr)
        if args.puzzles:
            for game in state["games"] or []:
                print("\n".join(puzzle_lines(game)), file=out)
        if args.puzzles_csv:
            write_puzzles_csv(args.puzzles_csv, state["games"] or [])
            print(f"kibitz: wrote {args.puzzles_csv}", file=out)
        if args.output:
            pathlib.Path(args.output).write_text(pgn)
            print(f"kibitz: wrote {args.output}", file=out)
        else:
            sys.stdout.write(pgn)
        if args.graph:
            folder = pathlib.Path(args.graph)
            folder.mkdir(parents=True, exist_ok=True)
            for game in state["games"] or []:
                target = folder / f"game-{game['game']}.svg"
                target.write_text(svg(game))
                print(f"kibitz: wrote {target}", file=out)
        return 0
    except ClientError as e:
        print(f"kibitz: {e}", file=sys.stderr)
        return 1


def add_review(p):
    p.add_argument("file", help="a .pgn file: every game in it is reviewed")
    p.add_argument("--movetime-ms", type=int, default=1000, help="time per position (default 1000)")
    p.add_argument("--depth", type=int)
    p.add_argument("--nodes", type=int)
    p.add_argument("--variant", help="standard (the default) or chess960: the rules of the games without a Variant "
                                     "tag ([Variant \"Chess960\"] is read as such anyway)")
    p.add_argument("--cache", choices=("on", "off", "refresh"), default="on", help="the shared analysis cache")
    p.add_argument("-o", "--output", help="write the annotated PGN here (default: standard output)")
    p.add_argument("--puzzles", action="store_true", help="print each game's puzzles: the moves missed where one "
                                                           "move was far better than any other")
    p.add_argument("--puzzles-csv", metavar="FILE", help="write the puzzles here, in Lichess's puzzle CSV layout")
    p.add_argument("--graph", metavar="DIR", help="write an SVG of White's winning chances per game here")
    p.add_argument("--url", help="the API: `kibitz serve` or a deployed stack (default $KIBITZ_URL; without "
                                 "either, the jobs path runs in this process)")
    p.add_argument("--pollers", type=int, help="in this process: BatchFunction pollers (default: the cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
