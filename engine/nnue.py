"""The learned evaluation's net file: its format, and loading it once per process.

The network is (768 -> H) x 2 -> 1: one accumulator of H int16 per side (its own pieces first, the
board seen from its own side), squared clipped ReLU, then one output from both, side to move first.
The output layer comes in B buckets (B = 1 to NNUE_BUCKETS), one per range of piece counts on the
board (bucket_of); the accumulators are shared by all of them.

A piece's input feature, from perspective P (0 White, 1 Black):

    (colour != P) * 384 + (type - 1) * 64 + (square ^ 56 * P)

File, little-endian: an 8-byte magic that ends in the format's version, u32 H, u32 B, then
    W1 int16[768][H]   accumulator weights by feature (x QA)
    B1 int16[H]        accumulator biases (x QA)
    W2 int16[B][2H]    output weights by bucket, side to move's half first (x QB)
    B2 int32[B]        output biases by bucket (x OUT_DIV = QA^2 QB / 2^SHIFT)
Version 1 (`KBZNNUE1`, every net before buckets) has one bucket and 0 in B's place; version 2
(`KBZNNUE2`) carries B. write() uses version 1 for a net of one bucket, so such a file stays byte for
byte what builds from before buckets read.

Evaluation in centipawns, side to move (integer arithmetic, the same in the compiled core, numpy and
the tests), with b = bucket_of(the number of pieces on the board, B):

    h_i = clamp(acc_i, 0, QA)^2 >> SHIFT          (0 .. 1016: an activation squared, in 16 bits)
    out = sum_i h_stm_i W2_b,i + sum_i h_other_i W2_b,(H+i) + B2_b
    cp  = out * SCALE // OUT_DIV

The compiled core takes the whole net as one int16 array (engine.layout's NET_* offsets): the B output
layers in the first of NNUE_BUCKETS slots, each B2 split into its low and high 16 bits, and
bucket_of() as a table by piece count.
"""

import pathlib

import numpy as np

from engine import layout
from engine.layout import NET_B1, NET_B2, NET_BUCKET_OF, NET_SIZE, NET_W1, NET_W2, NNUE_BUCKETS, NNUE_HIDDEN

QA, QB, SCALE, SHIFT, OUT_DIV = (layout.NNUE_QA, layout.NNUE_QB, layout.NNUE_SCALE, layout.NNUE_SHIFT,
                                 layout.NNUE_OUT_DIV)

MAGIC = b"KBZNNUE"  # + the version's digit
VERSIONS = (1, 2)
N_FEATURES = 768
HEADER = np.dtype([("magic", "S8"), ("hidden", "<u4"), ("buckets", "<u4")])
NET_DIR = pathlib.Path(__file__).resolve().parent / "nets"
DEFAULT_NET = NET_DIR / "kibitz.nnue"


def bucket_of(pieces, buckets):
    """The output bucket of a position with `pieces` pieces on the board (kings included), of `buckets`.

    Bullet's MaterialCount<N> (github.com/jw1912/bullet, crates/bullet_lib/src/game/outputs.rs):
    (pieces - 2) // ceil(32 / N), here clamped to the buckets there are; with 8, a bucket per four pieces,
    32-30 pieces in bucket 7, 2-5 in bucket 0. Takes ints or numpy arrays.
    """
    return np.clip((np.asarray(pieces) - 2) // -(-32 // buckets), 0, buckets - 1)


class NetError(ValueError):
    """A net file that is not one this engine can use."""


def write(path, w1, b1, w2, b2):
    """Write quantised weights (int16 arrays; w2 [B, 2H] or, one bucket, [2H]; b2 B ints) as a net file."""
    hidden = len(b1)
    w2 = np.asarray(w2, "<i2").reshape(-1, 2 * hidden)
    b2 = np.atleast_1d(np.asarray(b2, np.int64))
    buckets = len(w2)
    if buckets < 1 or len(b2) != buckets:
        raise NetError(f"{buckets} output weight rows but {len(b2)} output biases")
    header = np.zeros((), HEADER)
    version = 1 if buckets == 1 else 2
    header["magic"], header["hidden"] = MAGIC + str(version).encode(), hidden
    header["buckets"] = 0 if version == 1 else buckets
    with open(path, "wb") as f:
        f.write(header.tobytes())
        f.write(np.asarray(w1, "<i2").reshape(N_FEATURES, hidden).tobytes())
        f.write(np.asarray(b1, "<i2").tobytes())
        f.write(w2.tobytes())
        f.write(b2.astype("<i4").tobytes())


def read(path):
    """(w1 [768, H], b1 [H], w2 [B, 2H], b2 [B]) of a net file: int16 arrays, b2 int64."""
    data = pathlib.Path(path).read_bytes()
    if len(data) < HEADER.itemsize:
        raise NetError(f"{path}: too short for a net file")
    header = np.frombuffer(data[:HEADER.itemsize], HEADER)[0]
    magic = bytes(header["magic"])
    if magic[:len(MAGIC)] != MAGIC:
        raise NetError(f"{path}: not a Kibitz net file (magic {magic!r})")
    version = magic[len(MAGIC):]
    if version not in [str(v).encode() for v in VERSIONS]:
        raise NetError(f"{path}: a net file of format version {version.decode(errors='replace')!r}; "
                       f"this engine reads versions {', '.join(map(str, VERSIONS))}")
    h, b = int(header["hidden"]), int(header["buckets"])
    if version == b"1" and b != 0:
        raise NetError(f"{path}: format version 1 has 0 in the bucket field, not {b}")
    if version == b"1":
        b = 1
    elif b < 1:
        raise NetError(f"{path}: a net of {b} output buckets")
    expected = HEADER.itemsize + 2 * (N_FEATURES * h + h + 2 * h * b) + 4 * b
    if len(data) != expected:
        raise NetError(f"{path}: {len(data)} bytes, a net of {h} hidden units and {b} output bucket(s) has "
                       f"{expected}")
    body = np.frombuffer(data, "<i2", count=N_FEATURES * h + h + 2 * h * b, offset=HEADER.itemsize)
    w1 = body[:N_FEATURES * h].reshape(N_FEATURES, h)
    b1 = body[N_FEATURES * h:N_FEATURES * h + h]
    w2 = body[N_FEATURES * h + h:].reshape(b, 2 * h)
    b2 = np.frombuffer(data, "<i4", count=b, offset=expected - 4 * b).astype(np.int64)
    return w1, b1, w2, b2


def pack(w1, b1, w2, b2):
    """The one int16 array the compiled core reads (engine.layout's NET_* offsets)."""
    if len(b1) != NNUE_HIDDEN:
        raise NetError(f"the net has {len(b1)} hidden units; this build of the engine takes {NNUE_HIDDEN}")
    w2 = np.asarray(w2).reshape(-1, 2 * NNUE_HIDDEN)
    b2 = np.atleast_1d(np.asarray(b2, np.int64))
    buckets = len(w2)
    if buckets > NNUE_BUCKETS:
        raise NetError(f"the net has {buckets} output buckets; this build of the engine takes at most {NNUE_BUCKETS}")
    net = np.zeros(NET_SIZE, np.int16)
    net[NET_W1:NET_B1] = np.asarray(w1).ravel()
    net[NET_B1:NET_W2] = b1
    net[NET_W2:NET_W2 + w2.size] = w2.ravel()
    net[NET_B2:NET_B2 + 2 * buckets:2] = (b2 & 0xFFFF).astype(np.uint16).view(np.int16)
    net[NET_B2 + 1:NET_B2 + 2 * buckets:2] = b2 >> 16
    net[NET_BUCKET_OF:NET_SIZE] = bucket_of(np.arange(NET_SIZE - NET_BUCKET_OF), buckets)
    return net


def load(path=DEFAULT_NET):
    """The packed net of a file, ready for the compiled core."""
    return pack(*read(path))
