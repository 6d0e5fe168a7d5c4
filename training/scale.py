"""Does a new net keep the old one's score scale? The WDL model (engine/wdl.py) is fitted to the scores of
one net's searches; a net that scores the same positions larger or smaller needs a refit (docs/wdl.md).

    python -m training scale NEW.nnue OLD.nnue --data DATASET [--data MORE] [--sample 20000]

Both nets evaluate the same quiet positions (the held-back games of the datasets, training/train.py's
held_back, so neither was trained on them); the slope of a least-squares line through the origin, new
against old, over the positions both score within +-10 pawns, says how the scale moved: 1.00 is the
same scale, 1.10 a tenth larger. The correlation says how far the two agree at all.
"""

import numpy as np

from engine import nnue
from training import export, features, store
from training.train import held_back

WITHIN_CP = 1000  # beyond ten pawns the scores are decided anyway, and a few of them would weigh most
REFIT_BEYOND = 0.03  # a scale moved by more than this calls for a refit of engine/wdl.py


def evals(path, own, other, count):
    w1, b1, w2, b2 = nnue.read(path)
    return export.quantised_eval(w1, b1, w2, b2, own, other, count).astype(np.float64)


def compare(new, old, folders, sample=20000, seed=1):
    """(positions, mean |new|, mean |old|, slope of new on old, correlation)."""
    recs = np.concatenate([store.dataset(f)[0] for f in folders])
    recs = recs[held_back(recs)]
    if len(recs) == 0:
        raise SystemExit(f"scale: no held-back positions in {', '.join(map(str, folders))}")
    if len(recs) > sample:
        recs = recs[np.sort(np.random.default_rng(seed).choice(len(recs), sample, replace=False))]
    own, other, count = features.extract(recs)
    a, b = evals(new, own, other, count), evals(old, own, other, count)
    m = (np.abs(a) <= WITHIN_CP) & (np.abs(b) <= WITHIN_CP)
    a, b = a[m], b[m]
    return int(m.sum()), float(np.abs(a).mean()), float(np.abs(b).mean()), float(a @ b / (b @ b)), \
        float(np.corrcoef(a, b)[0, 1])


def main(args):
    n, mean_new, mean_old, slope, corr = compare(args.new, args.old, args.data, args.sample)
    verdict = ("the same scale: the WDL fit holds" if abs(slope - 1) <= REFIT_BEYOND else
               "the scale moved: refit engine/wdl.py on the new net's games (docs/wdl.md)")
    print(f"scale: {n} held-back positions; mean |eval| {mean_new:.1f} cp (new) and {mean_old:.1f} cp (old); "
          f"new = {slope:.3f} x old (correlation {corr:.3f}): {verdict}")
    return slope
