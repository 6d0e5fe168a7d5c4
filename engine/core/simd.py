"""Vector code for the learned evaluation: int16 lanes, sixteen at a time (one AVX2 register).

numba types every sum of two int16 as int64, so plain loops over the accumulators came out as
four-lane int64 arithmetic (vpaddq) and cost ~10,000 instructions a move. These intrinsics write the
LLVM vector IR themselves, unrolled over the NNUE_HIDDEN lanes, so each accumulator row is a few
dozen vpaddw/vpsubw. The IR is generic (no x86 intrinsics): the JIT compiles it for whatever CPU it
runs on, the ahead-of-time build for haswell.

Offsets are element indices (int64) into the int16 arrays; rows are NNUE_HIDDEN long. The rows taken
off come before the rows put on, in every argument list.
"""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from engine.layout import NNUE_HIDDEN, NNUE_SHIFT

LANES = 16
_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V16 = ir.VectorType(_I16, LANES)
_V32 = ir.VectorType(_I32, LANES)


def _data(context, builder, arytype, value):
    return context.make_array(arytype)(context, builder, value).data


def _load(builder, base, offset):
    return builder.load(builder.bitcast(builder.gep(base, [offset]), _V16.as_pointer()), align=2)


def _store(builder, value, base, offset):
    builder.store(value, builder.bitcast(builder.gep(base, [offset]), _V16.as_pointer()), align=2)


def _update(n_sub, n_add):
    """Codegen for acc[dst:] = acc[src:] - sum(net[sub_k:]) + sum(net[add_k:]) over one row."""

    def codegen(context, builder, signature, args):
        acc = _data(context, builder, signature.args[0], args[0])
        net = _data(context, builder, signature.args[1], args[1])
        dst, src = args[2], args[3]
        subs, adds = args[4:4 + n_sub], args[4 + n_sub:4 + n_sub + n_add]
        for j in range(0, NNUE_HIDDEN, LANES):
            k = ir.Constant(_I64, j)
            v = _load(builder, acc, builder.add(src, k))
            for s in subs:
                v = builder.sub(v, _load(builder, net, builder.add(s, k)))
            for a in adds:
                v = builder.add(v, _load(builder, net, builder.add(a, k)))
            _store(builder, v, acc, builder.add(dst, k))
        return context.get_dummy_value()

    return codegen


@intrinsic
def row_copy(typingctx, acc, net, dst, src):
    """acc[dst:] = acc[src:] (a passed move)."""
    return types.void(acc, net, types.int64, types.int64), _update(0, 0)


@intrinsic
def row_add(typingctx, acc, net, dst, src, add):
    """acc[dst:] = acc[src:] + net[add:] (a piece put on the board, building a row from scratch)."""
    return types.void(acc, net, types.int64, types.int64, types.int64), _update(0, 1)


@intrinsic
def row_move(typingctx, acc, net, dst, src, sub, add):
    """A piece moves: one row off, one row on."""
    return types.void(acc, net, types.int64, types.int64, types.int64, types.int64), _update(1, 1)


@intrinsic
def row_capture(typingctx, acc, net, dst, src, sub, sub2, add):
    """A piece moves and takes: two rows off, one on."""
    return types.void(acc, net, types.int64, types.int64, types.int64, types.int64, types.int64), _update(2, 1)


@intrinsic
def row_castle(typingctx, acc, net, dst, src, sub, sub2, add, add2):
    """King and rook move: two rows off, two on."""
    sig = types.void(acc, net, types.int64, types.int64, types.int64, types.int64, types.int64, types.int64)
    return sig, _update(2, 2)


@intrinsic
def output_sum(typingctx, acc, net, us, them, w2, qa):
    """sum over both rows of ((clamp(acc, 0, qa)^2) >> NNUE_SHIFT) * net[w2 + i], `us` first (int32 lanes:
    with qa <= 255, a shift of 6 and |w2| < 4096 no sum of 512 terms can overflow)."""
    sig = types.int64(acc, net, types.int64, types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        a = _data(context, builder, signature.args[0], args[0])
        n = _data(context, builder, signature.args[1], args[1])
        us, them, w2 = args[2], args[3], args[4]
        top = builder.insert_element(ir.Constant(_V16, None), builder.trunc(args[5], _I16), ir.Constant(_I32, 0))
        top = builder.shuffle_vector(top, ir.Constant(_V16, None), ir.Constant(ir.VectorType(_I32, LANES), None))
        zero = ir.Constant(_V16, None)
        shift = ir.Constant(_V16, [NNUE_SHIFT] * LANES)
        total = ir.Constant(_V32, None)
        for half, row in ((0, us), (1, them)):
            for j in range(0, NNUE_HIDDEN, LANES):
                k = ir.Constant(_I64, j)
                x = _load(builder, a, builder.add(row, k))
                x = builder.select(builder.icmp_signed(">", x, zero), x, zero)
                x = builder.select(builder.icmp_signed("<", x, top), x, top)
                h = builder.lshr(builder.mul(x, x), shift)  # x <= 255: x*x fits 16 bits unsigned
                w = _load(builder, n, builder.add(w2, ir.Constant(_I64, half * NNUE_HIDDEN + j)))
                total = builder.add(total, builder.mul(builder.zext(h, _V32), builder.sext(w, _V32)))
        s = ir.Constant(_I32, 0)
        for i in range(LANES):
            s = builder.add(s, builder.extract_element(total, ir.Constant(_I32, i)))
        return builder.sext(s, _I64)

    return sig, codegen
