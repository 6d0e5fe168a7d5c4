"""Quantise trained float weights into the engine's net file (engine/nnue.py gives the format).

    python -m training export ~/kibitz-data/net1.npz engine/nets/kibitz.nnue

Accumulator weights and biases are scaled by QA and rounded to int16, output weights by QB, the
output biases by OUT_DIV (engine/nnue.py), as many output buckets as the weights have (one: a format
version 1 file, as before buckets). Prints how far the quantised net's evaluation strays from the float net's on
a sample of the training positions (centipawns), and writes the training settings beside the net
as JSON (`<net>.json`), the provenance that docs/nnue.md summarises. A net trained from another one's
weights (`train --init`) carries that net's provenance too, from the JSON beside it.
"""

import json
import pathlib

import numpy as np

from engine import nnue
from training.train import with_buckets


def quantise(params):
    w1 = np.round(params["w1"] * nnue.QA).astype(np.int16)
    b1 = np.round(params["b1"] * nnue.QA).astype(np.int16)
    w2 = np.round(params["w2"] * nnue.QB)
    if np.abs(w2).max() > np.iinfo(np.int16).max:
        raise SystemExit(f"export: an output weight quantises to {int(np.abs(w2).max())}, beyond int16")
    w2 = w2.astype(np.int16)
    b2 = np.round(params["b2"] * nnue.OUT_DIV).astype(np.int64)
    return w1, b1, w2, b2


def float_eval(params, own, other, count):
    """Centipawns of the float net, side to move, for feature rows (training/features.py; count[i] is the
    number of pieces, which picks the output bucket)."""
    params = with_buckets(params)
    bucket = nnue.bucket_of(count, len(params["b2"]))
    out = np.empty(len(count))
    for i in range(len(count)):
        a = params["b1"] + params["w1"][own[i, :count[i]]].sum(axis=0)
        c = params["b1"] + params["w1"][other[i, :count[i]]].sum(axis=0)
        h = np.concatenate([np.clip(a, 0, 1), np.clip(c, 0, 1)]) ** 2
        out[i] = (h @ params["w2"][bucket[i]] + params["b2"][bucket[i]]) * nnue.SCALE
    return out


def quantised_eval(w1, b1, w2, b2, own, other, count):
    """Centipawns of the quantised net, side to move: engine/nnue.py's integer formula, in numpy."""
    w2 = np.asarray(w2).reshape(-1, 2 * len(b1))
    b2 = np.atleast_1d(b2)
    bucket = nnue.bucket_of(count, len(b2))
    out = np.empty(len(count), np.int64)
    for i in range(len(count)):
        a = b1.astype(np.int64) + w1[own[i, :count[i]]].astype(np.int64).sum(axis=0)
        c = b1.astype(np.int64) + w1[other[i, :count[i]]].astype(np.int64).sum(axis=0)
        h = np.concatenate([np.clip(a, 0, nnue.QA), np.clip(c, 0, nnue.QA)]) ** 2 >> nnue.SHIFT
        out[i] = ((h * w2[bucket[i]].astype(np.int64)).sum() + b2[bucket[i]]) * nnue.SCALE // nnue.OUT_DIV
    return out


def rescaled(params, factor):
    """The same net with every evaluation multiplied by factor: the output layer is linear in the hidden
    activations, so scaling its weights and biases scales the output exactly (before rounding)."""
    if not 0.5 <= factor <= 2.0:
        raise SystemExit(f"export: --rescale {factor}: expected a factor between 0.5 and 2 (a net's scale drifts "
                         f"by a few percent; `training scale` measures it)")
    return {**params, "w2": params["w2"] * np.float32(factor), "b2": params["b2"] * np.float32(factor)}


def export(src, dst, sample=None, rescale=None):
    """rescale: multiply every evaluation by this factor (1 / what `training scale` read), so that a tuned net
    keeps the score scale the WDL model and the search's margins were fitted to."""
    from training import features

    z = np.load(pathlib.Path(src).expanduser())
    params = with_buckets({n: z[n] for n in ("w1", "b1", "w2", "b2")})
    settings = json.loads(str(z["settings"]))
    settings["buckets"] = len(params["b2"])  # weights trained before buckets have one, and no such setting
    if rescale is not None:
        params = rescaled(params, rescale)
        settings["rescale"] = rescale
    w1, b1, w2, b2 = quantise(params)
    dst = pathlib.Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    nnue.write(dst, w1, b1, w2, b2)
    report = {}
    if sample is not None and len(sample):
        own, other, count = features.extract(sample)
        f = float_eval(params, own, other, count)
        q = quantised_eval(w1, b1, w2, b2, own, other, count)
        report = {"sample": len(sample), "mean_abs_diff_cp": float(np.mean(np.abs(f - q))),
                  "max_abs_diff_cp": float(np.max(np.abs(f - q)))}
        print(f"export: quantised vs float on {len(sample)} positions: mean |diff| "
              f"{report['mean_abs_diff_cp']:.2f} cp, max {report['max_abs_diff_cp']:.1f} cp")
    settings["quantisation"] = {"qa": nnue.QA, "qb": nnue.QB, "scale": nnue.SCALE, **report}
    settings.pop("history", None)
    start = pathlib.Path(settings["init"]).with_suffix(".json") if settings.get("init") else None
    if start is not None and start.exists():  # train --init: the weights' own history goes with them
        settings["init_net"] = json.loads(start.read_text())
    dst.with_suffix(".json").write_text(json.dumps(settings, indent=2) + "\n")
    print(f"export: wrote {dst} ({dst.stat().st_size} bytes, {settings['buckets']} output bucket(s))")
    return dst
