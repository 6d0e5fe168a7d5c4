"""The learned evaluation's net file: its format, and loading it once per process.

The network is (768 -> H) x 2 -> 1: one accumulator of H int16 per side (its own pieces first, the
board seen from its own side), squared clipped ReLU, then one output from both, side to move first.

A piece's input feature, from perspective P (0 White, 1 Black):

    (colour != P) * 384 + (type - 1) * 64 + (square ^ 56 * P)

File, little-endian: the 8-byte magic `KBZNNUE1`, u32 H, u32 0, then
    W1 int16[768][H]   accumulator weights by feature (x QA)
    B1 int16[H]        accumulator biases (x QA)
    W2 int16[2H]       output weights, side to move's half first (x QB)
    B2 int32           output bias (x OUT_DIV = QA^2 QB / 2^SHIFT)
Evaluation in centipawns, side to move (integer arithmetic, the same in the compiled core, numpy and
the tests):

    h_i = clamp(acc_i, 0, QA)^2 >> SHIFT          (0 .. 1016: an activation squared, in 16 bits)
    out = sum_i h_stm_i W2_i + sum_i h_other_i W2_(H+i) + B2
    cp  = out * SCALE // OUT_DIV

The compiled core takes the whole net as one int16 array (engine.layout's NET_* offsets), B2 split
into its low and high 16 bits.
"""

import pathlib

import numpy as np

from engine import layout
from engine.layout import NET_B1, NET_B2, NET_SIZE, NET_W1, NET_W2, NNUE_HIDDEN

QA, QB, SCALE, SHIFT, OUT_DIV = (layout.NNUE_QA, layout.NNUE_QB, layout.NNUE_SCALE, layout.NNUE_SHIFT,
                                 layout.NNUE_OUT_DIV)

MAGIC = b"KBZNNUE1"
N_FEATURES = 768
HEADER = np.dtype([("magic", "S8"), ("hidden", "<u4"), ("reserved", "<u4")])
NET_DIR = pathlib.Path(__file__).resolve().parent / "nets"
DEFAULT_NET = NET_DIR / "kibitz.nnue"


class NetError(ValueError):
    """A net file that is not one this engine can use."""


def write(path, w1, b1, w2, b2):
    """Write quantised weights (int16 arrays, b2 an int) as a net file."""
    hidden = len(b1)
    header = np.zeros((), HEADER)
    header["magic"], header["hidden"] = MAGIC, hidden
    with open(path, "wb") as f:
        f.write(header.tobytes())
        f.write(np.asarray(w1, "<i2").reshape(N_FEATURES, hidden).tobytes())
        f.write(np.asarray(b1, "<i2").tobytes())
        f.write(np.asarray(w2, "<i2").reshape(2 * hidden).tobytes())
        f.write(np.int32(b2).astype("<i4").tobytes())


def read(path):
    """(w1 [768, H], b1 [H], w2 [2H], b2) of a net file, as int16 arrays and an int."""
    data = pathlib.Path(path).read_bytes()
    if len(data) < HEADER.itemsize:
        raise NetError(f"{path}: too short for a net file")
    header = np.frombuffer(data[:HEADER.itemsize], HEADER)[0]
    if header["magic"] != MAGIC:
        raise NetError(f"{path}: not a Kibitz net file (magic {header['magic']!r})")
    h = int(header["hidden"])
    expected = HEADER.itemsize + 2 * (N_FEATURES * h + h + 2 * h) + 4
    if len(data) != expected:
        raise NetError(f"{path}: {len(data)} bytes, a net of {h} hidden units has {expected}")
    body = np.frombuffer(data, "<i2", count=N_FEATURES * h + 3 * h, offset=HEADER.itemsize)
    w1 = body[:N_FEATURES * h].reshape(N_FEATURES, h)
    b1 = body[N_FEATURES * h:N_FEATURES * h + h]
    w2 = body[N_FEATURES * h + h:]
    b2 = int(np.frombuffer(data, "<i4", count=1, offset=expected - 4)[0])
    return w1, b1, w2, b2


def pack(w1, b1, w2, b2):
    """The one int16 array the compiled core reads (engine.layout's NET_* offsets)."""
    if len(b1) != NNUE_HIDDEN:
        raise NetError(f"the net has {len(b1)} hidden units; this build of the engine takes {NNUE_HIDDEN}")
    net = np.zeros(NET_SIZE, np.int16)
    net[NET_W1:NET_B1] = np.asarray(w1).ravel()
    net[NET_B1:NET_W2] = b1
    net[NET_W2:NET_B2] = w2
    net[NET_B2] = np.int16(np.uint16(b2 & 0xFFFF).view(np.int16))
    net[NET_B2 + 1] = b2 >> 16
    return net


def load(path=DEFAULT_NET):
    """The packed net of a file, ready for the compiled core."""
    return pack(*read(path))
