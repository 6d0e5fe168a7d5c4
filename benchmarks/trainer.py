"""Which library trains the net fastest here: the numba trainer against PyTorch on the CPU.

    .venv/bin/python benchmarks/trainer.py --data ~/kibitz-data/gen1 [--torch-python /path/to/python] [--record]

Both fit the same network (engine/nnue.py: 768 -> H x 2 -> 1, squared clipped ReLU, the same loss and
Adam) to the same positions, in batches of 16384, for a few hundred batches after a warm-up, and
report training positions per second. PyTorch runs in the interpreter given by --torch-python (a
virtualenv with `torch` and `numpy`; PyTorch is not a project dependency), its first layer an
EmbeddingBag over the active features, as sparse-input trainers write it.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from benchmarks.common import record, table

TORCH_STEP = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import torch
    z = np.load(sys.argv[1])
    hidden, batch, batches, warmup = (int(x) for x in sys.argv[2:6])
    own = torch.from_numpy(z["own"].astype(np.int64))
    other = torch.from_numpy(z["other"].astype(np.int64))
    weight = torch.from_numpy(z["mask"].astype(np.float32))
    target = torch.from_numpy(z["target"])
    scale = float(z["scale"])
    emb = torch.nn.EmbeddingBag(768, hidden, mode="sum")
    b1 = torch.nn.Parameter(torch.zeros(hidden))
    out = torch.nn.Linear(2 * hidden, 1)
    params = list(emb.parameters()) + [b1] + list(out.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    n = len(target)
    g = torch.Generator().manual_seed(1)
    def step():
        rows = torch.randint(0, n, (batch,), generator=g)
        a = emb(own[rows], per_sample_weights=weight[rows]) + b1
        c = emb(other[rows], per_sample_weights=weight[rows]) + b1
        h = torch.cat([a.clamp(0, 1) ** 2, c.clamp(0, 1) ** 2], dim=1)
        p = torch.sigmoid(out(h).squeeze(1) * scale)
        loss = ((p - target[rows]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            for q in params:
                q.clamp_(-1.98, 1.98)
    for _ in range(warmup):
        step()
    t = time.perf_counter()
    for _ in range(batches):
        step()
    print(json.dumps({"seconds": time.perf_counter() - t, "threads": torch.get_num_threads(),
                      "version": torch.__version__}))
""")


def numba_rate(own, other, count, target, scale, hidden, batch, batches, warmup):
    from numba import get_num_threads

    from training import train

    params = train.init_weights(hidden, 1)
    moments = {n: (np.zeros_like(p), np.zeros_like(p)) for n, p in params.items()}
    threads = get_num_threads()
    g1, gb1, g2, gb2, scratch = train.gradient_buffers(threads, hidden, 1)
    bucket = np.zeros(len(count), np.int8)  # one output bucket
    rng = np.random.default_rng(1)
    t = None
    for i in range(warmup + batches):
        if i == warmup:
            t = time.perf_counter()
        rows = rng.integers(0, len(target), batch)
        train._gradients(rows, np.zeros(len(rows), np.bool_), own, other, count, bucket, target, params["w1"],
                         params["b1"], params["w2"], params["b2"], g1, gb1, g2, gb2, scratch, scale, train.MIRROR)
        for name, grad in (("w1", g1.sum(axis=0)), ("b1", gb1.sum(axis=0)), ("w2", g2.sum(axis=0)),
                           ("b2", gb2.sum(axis=0))):
            m, v = moments[name]
            train._adam(params[name].reshape(-1), (grad / batch).reshape(-1), m.reshape(-1), v.reshape(-1), 1e-3,
                        i + 1, train.CLIP)
    return batches * batch / (time.perf_counter() - t), threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--torch-python", default=None)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--positions", type=int, default=1_000_000)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    from training import features, records, train

    recs = records.load(pathlib.Path(args.data).expanduser())[:args.positions]
    own, other, count = features.extract(recs)
    k = 200.0
    target, _ = train.targets(recs, k, 0.3)
    scale = np.float32(400 / k)
    rows = []
    rate, threads = numba_rate(own, other, count, target, scale, args.hidden, args.batch, args.batches, 5)
    rows.append(["numba (training/train.py)", f"{threads} threads", f"{rate:,.0f}"])
    print(f"numba: {rate:,.0f} positions/s", flush=True)
    if args.torch_python:
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "batch.npz"
            mask = (np.arange(32)[None, :] < count[:, None]).astype(np.float32)
            np.savez(path, own=own, other=other, mask=mask, target=target, scale=scale)
            script = pathlib.Path(tmp) / "torch_step.py"
            script.write_text(TORCH_STEP)
            out = subprocess.run([args.torch_python, str(script), str(path), str(args.hidden), str(args.batch),
                                  str(args.batches), "5"], capture_output=True, text=True)
            if out.returncode:
                sys.exit(out.stderr)
            res = json.loads(out.stdout)
            trate = args.batches * args.batch / res["seconds"]
            rows.append([f"PyTorch {res['version']} (EmbeddingBag)", f"{res['threads']} threads", f"{trate:,.0f}"])
            print(f"torch: {trate:,.0f} positions/s", flush=True)
    body = table(["trainer", "threads", "positions/s"], rows)
    body += (f"\n\n{args.batches} batches of {args.batch} after 5 warm-up batches, the net of the engine "
             f"(768 -> {args.hidden} x 2 -> 1), {len(recs):,} positions of self-play data.")
    print(body)
    if args.record:
        record("Trainer speed", body, "python benchmarks/trainer.py --data ... --torch-python ... --record")


if __name__ == "__main__":
    main()
