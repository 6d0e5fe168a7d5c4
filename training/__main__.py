"""python -m training gen|store|train|export|wdl|scale ... (see training/__init__.py)."""

import argparse

from training import __doc__ as DOC
from training import store


def parser():
    """The commands' arguments (python -m benchmarks.wdl reads the wdl command's too)."""
    ap = argparse.ArgumentParser(prog="python -m training", description=DOC.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gen", help="self-play games into the game store")
    g.add_argument("--run", required=True, help="the run's folder in the store, e.g. gen23")
    g.add_argument("--store", default=str(store.STORE), help="the store (default: training/games)")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--workers", type=int, default=2, help="processes (0: in this one)")
    g.add_argument("--nodes", type=int, default=5000, help="soft nodes a move: no depth starts after them")
    g.add_argument("--hard-nodes", type=int, default=None, help="nodes a move at most (default: 4 x --nodes)")
    g.add_argument("--games", type=int, default=None, help="stop after this many games (default: run until killed)")
    g.add_argument("--net", default=None, help="search with this net file (default: the shipped net)")
    g.add_argument("--chess960", type=float, default=0.0, metavar="SHARE",
                   help="this share of the games (0..1) starts from a Chess960 start position")
    g.add_argument("--chunk-games", type=int, default=store.CHUNK_GAMES, help="games a worker seals into a chunk")
    g.add_argument("--seal-minutes", type=float, default=60, help="a worker seals a chunk at least this often")
    t = sub.add_parser("train", help="fit the network to a dataset")
    t.add_argument("--data", action="append", required=True,
                   help="the store, a run's folder of it, or a folder of records (repeat for several)")
    t.add_argument("--out", required=True, help="the float weights, .npz (a checkpoint sits beside it)")
    t.add_argument("--hidden", type=int, default=256)
    t.add_argument("--epochs", type=int, default=30)
    t.add_argument("--batch", type=int, default=16384)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--final-lr", type=float, default=1e-5)
    t.add_argument("--result-weight", type=float, default=0.3, help="weight of the game result in the target")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--max-positions", type=int, default=None)
    t.add_argument("--resume", action="store_true", help="continue from the checkpoint beside --out")
    t.add_argument("--mirror", action="store_true", help="train on each position or its mirror image (a <-> h)")
    t.add_argument("--weight-decay", type=float, default=0.0,
                   help="AdamW's decoupled weight decay on the weights (default 0: plain Adam)")
    t.add_argument("--init", default=None, help="start from this net file's weights (default: random ones)")
    t.add_argument("--buckets", type=int, default=None,
                   help="output layers by piece count, 1 to 8 (default: --init's, else 1); --init from a net of one "
                        "copies its output layer into each")
    e = sub.add_parser("export", help="quantise trained weights into a net file")
    e.add_argument("weights", help="the .npz that train wrote")
    e.add_argument("net", help="the net file to write, e.g. engine/nets/kibitz.nnue")
    e.add_argument("--check", default=None, help="a dataset folder: compare quantised and float evaluations")
    e.add_argument("--rescale", type=float, default=None, metavar="FACTOR",
                   help="multiply every evaluation by FACTOR (1 / what `training scale` read against the shipped net)")
    w = sub.add_parser("wdl", help="fit the win/draw/loss model (engine/wdl.py) to self-play games")
    w.add_argument("--games", action="append", help="a benchmarks/match.py journal with [%%eval]s (repeat for several)")
    w.add_argument("--data", action="append", help="a gen dataset folder (repeat for several)")
    w.add_argument("--check", action="append",
                   help="judge engine/wdl.py's constants on this journal's games, fitting nothing (repeat for several)")
    w.add_argument("--write", action="store_true", help="rewrite the constants in engine/wdl.py")
    w.add_argument("--eg-scale", type=int, default=None,
                   help="the EgScale of journals whose settings do not say and that another build played "
                        "(64 for games before bench 5233284)")
    s = sub.add_parser("scale", help="does a new net keep the old one's score scale (the WDL fit's)?")
    s.add_argument("new", help="the new net file")
    s.add_argument("old", help="the net it replaces, e.g. engine/nets/kibitz.nnue")
    s.add_argument("--data", action="append", required=True, help="a dataset folder (its held-back games)")
    s.add_argument("--sample", type=int, default=20000, help="positions at most")
    st = sub.add_parser("store", help="the game store: count it, commit its new chunks")
    st.add_argument("action", choices=("count", "commit"))
    st.add_argument("paths", nargs="*", help="folders or chunks (default: the whole store)")
    st.add_argument("--headers", action="store_true", help="count: trust each chunk's header instead of reading it")
    return ap


def main(argv=None):
    ap = parser()
    args = ap.parse_args(argv)
    if args.command == "gen":
        from training import gen

        gen.run(args.run, store_dir=args.store, seed=args.seed, workers=args.workers, nodes=args.nodes,
                games=args.games, net=args.net, hard_nodes=args.hard_nodes, chess960=args.chess960,
                chunk_games=args.chunk_games, seal_minutes=args.seal_minutes)
    elif args.command == "train":
        from training import train

        train.train(args.data, args.out, hidden=args.hidden, epochs=args.epochs, batch=args.batch, lr=args.lr,
                    final_lr=args.final_lr, result_weight=args.result_weight, seed=args.seed, resume=args.resume,
                    max_positions=args.max_positions, mirror=args.mirror, init=args.init,
                    buckets=args.buckets, weight_decay=args.weight_decay)
    elif args.command == "wdl":
        from training import wdl

        wdl.main(args)
    elif args.command == "scale":
        from training import scale

        scale.main(args)
    elif args.command == "store":
        from training import store_cli

        try:
            store_cli.main(args)
        except store.StoreError as err:
            ap.error(f"store: {err}")
    elif args.command == "export":
        from training import export

        sample = store.dataset(args.check)[0][:2000] if args.check else None
        export.export(args.weights, args.net, sample, rescale=args.rescale)


if __name__ == "__main__":
    main()
