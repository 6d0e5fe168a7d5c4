"""Fit the network to self-play positions, on the CPU, with numba.

    python -m training train --data ~/kibitz-data/gen1 --out ~/kibitz-data/net1.npz \
        [--hidden 256] [--epochs 30] [--batch 16384] [--lr 0.001] [--result-weight 0.3] [--seed 1]
        [--init engine/nets/kibitz.nnue]      (start from a net's weights instead of random ones)
        [--buckets 8]                         (output layers by piece count; default 1, or --init's)
        [--weight-decay 0.1]                  (AdamW: the weights shrink by lr x decay a step)

The network is engine/nnue.py's: (768 -> H) x 2 -> 1, squared clipped ReLU on [0, 1], the side to
move's accumulator first. Its output times engine.nnue.SCALE is the evaluation in centipawns. With B
output buckets, w2 is [B, 2H] and b2 [B]: a position's output comes from the row of its piece count's
bucket (engine.nnue.bucket_of), and its gradient goes to that row alone; the accumulator is shared.
--init from a net of one bucket copies its output layer into every bucket, so training starts from
exactly that net's evaluations.

Loss: mean squared error between sigmoid(cp / K) of the net and a blend of the search's score and
the game's result, both as a win probability for the side to move:

    target = (1 - result_weight) * sigmoid(score / K) + result_weight * result

K is fitted to the data first (the K for which sigmoid(score / K) best predicts the results).
Adam, cosine learning-rate decay, weights clipped to +-1.98 so that the quantised accumulator fits
int16 (engine/nnue.py). One game in 50 (by game number) is held back to measure the validation loss.
A checkpoint is written after every epoch; --resume continues from it.

Why numba and not PyTorch: measured on this machine (2 cores, no GPU), see docs/strength.md; the
input is 32 sparse features of 768, which a hand-written loop turns into H-wide vector adds.
"""

import json
import math
import pathlib
import time

import numpy as np
from numba import get_num_threads, njit, prange

from engine import nnue
from engine.layout import NNUE_BUCKETS
from engine.nnue import SCALE
from training import features, store

CLIP = 1.98
VALIDATION_EVERY = 50  # one game in 50 is held back
# A feature with its square's file mirrored (a <-> h): the same piece and side, the board seen in a mirror.
MIRROR = np.array([(f & ~7) | (7 - (f & 7)) for f in range(features.N_FEATURES)], np.int16)


def held_back(recs):
    """One game in VALIDATION_EVERY, chosen by a hash of the game's number (each worker numbers its games
    in its own residue class, so a plain modulus could leave a worker's games all in or all out)."""
    h = (recs["game"].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(58)
    return (h % np.uint64(VALIDATION_EVERY)) == 0


@njit(inline="always")
def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


@njit(inline="always")
def _forward(i, own, other, count, bucket, w1, b1, w2, b2, a, c, mirror, flip):
    hidden = b1.shape[0]
    o = bucket[i]
    a[:] = b1
    c[:] = b1
    for k in range(count[i]):
        fa = own[i, k]
        fc = other[i, k]
        if flip:
            fa = mirror[fa]
            fc = mirror[fc]
        for h in range(hidden):
            a[h] += w1[fa, h]
            c[h] += w1[fc, h]
    out = b2[o]
    for h in range(hidden):
        x = min(max(a[h], np.float32(0)), np.float32(1))
        y = min(max(c[h], np.float32(0)), np.float32(1))
        out += x * x * w2[o, h] + y * y * w2[o, hidden + h]
    return out


@njit(parallel=True, fastmath=True, cache=True)
def _gradients(batch, flips, own, other, count, bucket, target, w1, b1, w2, b2, g1, gb1, g2, gb2, scratch, scale,
               mirror):
    """Sum of squared errors over the batch; per-thread gradient sums in g1, gb1, g2 [thread, bucket, 2H],
    gb2 [thread, bucket]. flips[j]: train on the j-th position's mirror image (files a <-> h) instead (the
    same pieces: the same bucket)."""
    threads = g1.shape[0]
    hidden = b1.shape[0]
    n = len(batch)
    losses = np.zeros(threads)
    for t in prange(threads):
        G1 = g1[t]
        GB1 = gb1[t]
        G2 = g2[t]
        GB2 = gb2[t]
        G1[:] = 0
        GB1[:] = 0
        G2[:] = 0
        GB2[:] = 0
        a = scratch[t, 0]
        c = scratch[t, 1]
        da = scratch[t, 2]
        dc = scratch[t, 3]
        loss = 0.0
        for j in range(t * n // threads, (t + 1) * n // threads):
            i = batch[j]
            flip = flips[j]
            o = bucket[i]
            out = _forward(i, own, other, count, bucket, w1, b1, w2, b2, a, c, mirror, flip)
            p = _sigmoid(out * scale)
            e = p - target[i]
            loss += e * e
            d = np.float32(2 * e * p * (1 - p) * scale)
            GB2[o] += d
            for h in range(hidden):
                x = min(max(a[h], np.float32(0)), np.float32(1))
                y = min(max(c[h], np.float32(0)), np.float32(1))
                G2[o, h] += d * x * x
                G2[o, hidden + h] += d * y * y
                da[h] = d * w2[o, h] * 2 * x if 0 < a[h] < 1 else np.float32(0)
                dc[h] = d * w2[o, hidden + h] * 2 * y if 0 < c[h] < 1 else np.float32(0)
                GB1[h] += da[h] + dc[h]
            for k in range(count[i]):
                fa = own[i, k]
                fc = other[i, k]
                if flip:
                    fa = mirror[fa]
                    fc = mirror[fc]
                for h in range(hidden):
                    G1[fa, h] += da[h]
                    G1[fc, h] += dc[h]
        losses[t] = loss
    return losses.sum()


@njit(parallel=True, fastmath=True, cache=True)
def _loss(rows, own, other, count, bucket, target, w1, b1, w2, b2, scratch, scale, mirror):
    threads = scratch.shape[0]
    n = len(rows)
    losses = np.zeros(threads)
    for t in prange(threads):
        loss = 0.0
        for j in range(t * n // threads, (t + 1) * n // threads):
            i = rows[j]
            p = _sigmoid(_forward(i, own, other, count, bucket, w1, b1, w2, b2, scratch[t, 0], scratch[t, 1], mirror,
                                  False) * scale)
            loss += (p - target[i]) ** 2
        losses[t] = loss
    return losses.sum() / max(n, 1)


@njit(parallel=True, fastmath=True, cache=True)
def _adam(p, g, m, v, lr, step, clip, decay=0.0):
    """One Adam step; with decay > 0, AdamW's: the weights also shrink by lr x decay of themselves,
    apart from the gradient's moments (decoupled weight decay)."""
    b1, b2, eps = 0.9, 0.999, 1e-8
    c1 = 1 - b1 ** step
    c2 = 1 - b2 ** step
    for i in prange(p.size):
        m[i] = b1 * m[i] + (1 - b1) * g[i]
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i]
        x = p[i] * (1 - lr * decay) - lr * (m[i] / c1) / (math.sqrt(v[i] / c2) + eps)
        p[i] = min(max(x, -clip), clip)


def fit_k(scores, results):
    """The K for which sigmoid(score / K) best predicts the result (least squares), by golden section."""
    s = scores.astype(np.float64)
    r = results.astype(np.float64)

    def err(k):
        return np.mean((r - 1 / (1 + np.exp(-s / k))) ** 2)

    lo, hi = 50.0, 1500.0
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if err(a) < err(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def load_dataset(folders):
    """The training positions of every folder (a game-store folder, or one of records), and how many games
    they come from."""
    parts = [store.dataset(f) for f in folders]
    return np.concatenate([p[0] for p in parts]), sum(p[1] for p in parts)


def targets(recs, k, result_weight):
    """Win probability for the side to move: the blend of score and result."""
    result_white = recs["result"].astype(np.float64) / 2
    result = np.where(recs["stm"] == 0, result_white, 1 - result_white)
    score = 1 / (1 + np.exp(-recs["score"].astype(np.float64) / k))
    return ((1 - result_weight) * score + result_weight * result).astype(np.float32), result


def init_weights(hidden, seed, buckets=1):
    rng = np.random.default_rng(seed)
    return {
        "w1": rng.normal(0, 0.1, (features.N_FEATURES, hidden)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": rng.uniform(-1, 1, (buckets, 2 * hidden)).astype(np.float32) / math.sqrt(2 * hidden),
        "b2": np.zeros(buckets, np.float32),
    }


def with_buckets(params):
    """params with w2 as [B, 2H] and b2 as [B]: weights saved before buckets had w2 [2H], b2 [1]."""
    hidden = len(params["b1"])
    return {**params, "w2": params["w2"].reshape(-1, 2 * hidden), "b2": params["b2"].reshape(-1)}


def weights_of_net(path, buckets=None):
    """Float weights from a net file (engine/nnue.py's quantisation undone): a start for further training.
    buckets: as many output layers, copies of the net's one if it has one (the same evaluations)."""
    w1, b1, w2, b2 = nnue.read(path)
    if buckets is not None and buckets != len(b2):
        if len(b2) != 1:
            raise SystemExit(f"train: {path} has {len(b2)} output buckets, not --buckets {buckets}")
        w2, b2 = np.repeat(w2, buckets, axis=0), np.repeat(b2, buckets)
    return {"w1": (w1 / nnue.QA).astype(np.float32), "b1": (b1 / nnue.QA).astype(np.float32),
            "w2": (w2 / nnue.QB).astype(np.float32), "b2": (b2 / nnue.OUT_DIV).astype(np.float32)}


def gradient_buffers(threads, hidden, buckets):
    """Per-thread gradient sums and scratch rows for _gradients: g1, gb1, g2, gb2, scratch."""
    return (np.zeros((threads, features.N_FEATURES, hidden), np.float32), np.zeros((threads, hidden), np.float32),
            np.zeros((threads, buckets, 2 * hidden), np.float32), np.zeros((threads, buckets), np.float32),
            np.zeros((threads, 4, hidden), np.float32))


def train(data, out, hidden=256, epochs=30, batch=16384, lr=1e-3, final_lr=1e-5, result_weight=0.3, seed=1,
          resume=False, max_positions=None, mirror=False, init=None, buckets=None, weight_decay=0.0, log=print):
    """buckets: output layers by piece count (engine.nnue.bucket_of); None: --init's count, else 1.
    weight_decay: AdamW's, on the weights (w1, w2), not on the biases."""
    if buckets is not None and not 1 <= buckets <= NNUE_BUCKETS:
        raise SystemExit(f"train: --buckets {buckets}: the engine takes 1 to {NNUE_BUCKETS}")
    out = pathlib.Path(out).expanduser()
    t_load = time.perf_counter()
    recs, games = load_dataset([pathlib.Path(d).expanduser() for d in data])
    if max_positions:
        recs = recs[:max_positions]
    held = held_back(recs)
    own, other, count = features.extract(recs)
    result = np.where(recs["stm"] == 0, recs["result"] / 2, 1 - recs["result"] / 2)
    k = fit_k(recs["score"][~held], result[~held])
    target, _ = targets(recs, k, result_weight)
    train_rows = np.flatnonzero(~held)
    val_rows = np.flatnonzero(held)
    scale = np.float32(SCALE / k)
    log(f"train: {len(recs)} positions ({len(train_rows)} training, {len(val_rows)} held back) from "
        f"{len(data)} folder(s) in {time.perf_counter() - t_load:.0f} s; K = {k:.1f}")

    ckpt = out.with_suffix(".ckpt.npz")
    if resume and ckpt.exists():
        z = np.load(ckpt)
        params = with_buckets({n: z[n] for n in ("w1", "b1", "w2", "b2")})
        moments = {n: (z["m_" + n].reshape(p.shape), z["v_" + n].reshape(p.shape)) for n, p in params.items()}
        if buckets not in (None, len(params["b2"])):
            raise SystemExit(f"train: the checkpoint has {len(params['b2'])} output buckets, not --buckets {buckets}")
        buckets = len(params["b2"])
        start_epoch, step = int(z["epoch"]), int(z["step"])
        history = json.loads(str(z["history"]))
        init_val = float(z["init_val"]) if "init_val" in z.files and not np.isnan(z["init_val"]) else None
        log(f"train: resumed after epoch {start_epoch}")
    else:
        if buckets is None:
            buckets = len(nnue.read(init)[3]) if init else 1
        params = weights_of_net(init, buckets) if init else init_weights(hidden, seed, buckets)
        if len(params["b1"]) != hidden:
            raise SystemExit(f"train: {init} has {len(params['b1'])} hidden units, not --hidden {hidden}")
        moments = {n: (np.zeros_like(p), np.zeros_like(p)) for n, p in params.items()}
        start_epoch, step, history = 0, 0, []
        init_val = None

    bucket = nnue.bucket_of(count, buckets).astype(np.int8)
    threads = get_num_threads()
    g1, gb1, g2, gb2, scratch = gradient_buffers(threads, hidden, buckets)

    def validation():
        return float(_loss(val_rows, own, other, count, bucket, target, params["w1"], params["b1"], params["w2"],
                           params["b2"], scratch, scale, MIRROR))

    if init and start_epoch == 0:
        # The starting net's own loss on the held-back games: the bar a tuned net must clear on new data.
        init_val = validation()
        log(f"train: validation {init_val:.6f} with --init's weights, before any step")
    rng = np.random.default_rng(seed + 1000 * start_epoch)
    batches = max(1, len(train_rows) // batch)
    total = epochs * batches
    for epoch in range(start_epoch, epochs):
        t0 = time.perf_counter()
        order = rng.permutation(train_rows)
        loss_sum = 0.0
        for b in range(batches):
            rows = order[b * batch:(b + 1) * batch]
            flips = rng.random(len(rows)) < 0.5 if mirror else np.zeros(len(rows), np.bool_)
            loss_sum += _gradients(rows, flips, own, other, count, bucket, target, params["w1"], params["b1"],
                                   params["w2"], params["b2"], g1, gb1, g2, gb2, scratch, scale, MIRROR)
            step += 1
            rate = final_lr + 0.5 * (lr - final_lr) * (1 + math.cos(math.pi * min(step / total, 1.0)))
            n = len(rows)
            for name, grad in (("w1", g1.sum(axis=0)), ("b1", gb1.sum(axis=0)), ("w2", g2.sum(axis=0)),
                               ("b2", gb2.sum(axis=0))):
                m, v = moments[name]
                _adam(params[name].reshape(-1), (grad / n).reshape(-1), m.reshape(-1), v.reshape(-1), rate, step,
                      CLIP, weight_decay if name in ("w1", "w2") else 0.0)
        seconds = time.perf_counter() - t0
        val = validation()
        row = {"epoch": epoch + 1, "train_loss": loss_sum / (batches * batch), "val_loss": val,
               "lr": rate, "seconds": round(seconds, 1), "positions_per_s": round(batches * batch / seconds)}
        history.append(row)
        log(f"train: epoch {epoch + 1}/{epochs}  loss {row['train_loss']:.6f}  validation {val:.6f}  "
            f"lr {rate:.2e}  {seconds:.0f} s  {row['positions_per_s']} positions/s")
        np.savez(ckpt, **params, **{"m_" + n: mv[0] for n, mv in moments.items()},
                 **{"v_" + n: mv[1] for n, mv in moments.items()}, epoch=epoch + 1, step=step,
                 history=json.dumps(history), init_val=np.nan if init_val is None else init_val)
    settings = {"data": [str(d) for d in data], "positions": int(len(recs)), "training": int(len(train_rows)),
                "held_back": int(len(val_rows)), "games": games, "hidden": hidden, "buckets": buckets,
                "epochs": epochs, "batch": batch, "lr": lr, "final_lr": final_lr, "result_weight": result_weight,
                "mirror": mirror, "weight_decay": weight_decay, "init": str(init) if init else None,
                "init_val_loss": init_val,
                "seed": seed, "k": k, "scale": SCALE, "clip": CLIP, "threads": threads, "history": history}
    np.savez(out, **params, settings=json.dumps(settings))
    log(f"train: wrote {out}")
    return params, settings
