"""The learned evaluation's training loop: self-play data, the trainer, and the export of a net file.

    python -m training gen    --out DIR [--nodes 5000] [--seed 1] [--workers 2]   # self-play positions
    python -m training train  --data DIR --out NET.npz ...                         # fit the network
    python -m training export NET.npz engine/nets/kibitz.nnue                      # quantise for the engine
    python -m training wdl    --data DIR --write [--record]                        # fit engine/wdl.py's model

Nothing here ships to Lambda: it is a dev extra (pyproject's `train` group).
"""
