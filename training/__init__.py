"""The learned evaluation's training loop: self-play data, the trainer, and the export of a net file.

    python -m training gen    --run gen23 [--nodes 5000] [--seed 1] [--workers 2]  # self-play games into the store
    python -m training store  count|commit                                         # what the store holds; commit it
    python -m training train  --data training/games --out NET.npz ...              # fit the network
    python -m training export NET.npz engine/nets/kibitz.nnue                      # quantise for the engine
    python -m training wdl    --data DIR --write                               # fit engine/wdl.py's model
    python -m training scale  NEW.nnue OLD.nnue --data DIR                          # the same score scale?

The games live in the repository, in the game store (training/games/, training/store.py): compact chunks
written once, from which the training positions are derived. Nothing here ships to Lambda. It runs in the
project's .venv/: numpy, and numba for the trainer's and self-play's compiled loops (pyproject's `build`
extra, which `dev` includes). Its data (the self-play opening book) is in training/data. It writes no
docs: `python -m benchmarks.wdl` records the WDL fit's report (benchmarks/report.py is the one docs
writer); journals.py reads the match journals that the fit and the benchmarks both read.
"""
