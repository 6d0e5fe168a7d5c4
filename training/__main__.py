"""python -m training gen|train|export ... (see training/__init__.py)."""

import argparse

from training import __doc__ as DOC


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m training", description=DOC.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gen", help="self-play training positions")
    g.add_argument("--out", required=True, help="dataset folder (outside the repository)")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--workers", type=int, default=2)
    g.add_argument("--nodes", type=int, default=5000, help="search nodes a move")
    g.add_argument("--games", type=int, default=None, help="stop after this many games (default: run until killed)")
    args = ap.parse_args(argv)
    if args.command == "gen":
        from training import gen

        gen.run(args.out, seed=args.seed, workers=args.workers, nodes=args.nodes, games=args.games)


if __name__ == "__main__":
    main()
