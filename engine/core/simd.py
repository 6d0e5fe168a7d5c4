"""Vector code for the learned evaluation: int16 lanes, sixteen at a time (one AVX2 register); and
first_max(), the move picker's scan over int32 ordering scores, eight at a time.

numba types every sum of two int16 as int64, so plain loops over the accumulators came out as
four-lane int64 arithmetic (vpaddq) and cost ~10,000 instructions a move. These intrinsics write the
LLVM vector IR themselves, unrolled over the NNUE_HIDDEN lanes, so each accumulator row is a few
dozen vpaddw/vpsubw. The IR is generic: the JIT compiles it for whatever CPU it runs on, the
ahead-of-time build for haswell. One x86 intrinsic (vpmaddwd, in the output layer) is used only where
AVX2 is there, with a generic fallback.

Offsets are element indices (int64) into the int16 arrays; rows are NNUE_HIDDEN long. The rows taken
off come before the rows put on, in every argument list.
"""

from llvmlite import binding, ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

from engine.core.signatures import AOT_BUILD
from engine.layout import NNUE_HIDDEN, NNUE_SHIFT

LANES = 16
_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V16 = ir.VectorType(_I16, LANES)
_V8_I32 = ir.VectorType(_I32, LANES // 2)
# x86 intrinsics only where they run: the ahead-of-time build targets haswell, the JIT this CPU.
AVX2 = AOT_BUILD or (config.ENABLE_AVX and binding.get_host_cpu_features().get("avx2", False))


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


def _madd(builder, h, w):
    """Lanes 2i and 2i+1 of h * w (int16, widened) added: eight int32 sums. One vpmaddwd where the target
    has AVX2; the generic form elsewhere (LLVM makes it two vpmaddwd and some shuffles on x86: it knows h
    is not negative and widens it the other way)."""
    if AVX2:
        fn = builder.module.declare_intrinsic("llvm.x86.avx2.pmadd.wd", fnty=ir.FunctionType(_V8_I32, [_V16, _V16]))
        return builder.call(fn, [h, w])
    halves = []
    for first in (0, 1):
        lanes = ir.Constant(_V8_I32, list(range(first, LANES, 2)))
        hh = builder.sext(builder.shuffle_vector(h, ir.Constant(_V16, None), lanes), _V8_I32)
        ww = builder.sext(builder.shuffle_vector(w, ir.Constant(_V16, None), lanes), _V8_I32)
        halves.append(builder.mul(hh, ww))
    return builder.add(halves[0], halves[1])


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
        total = ir.Constant(_V8_I32, None)
        for half, row in ((0, us), (1, them)):
            for j in range(0, NNUE_HIDDEN, LANES):
                k = ir.Constant(_I64, j)
                x = _load(builder, a, builder.add(row, k))
                x = builder.select(builder.icmp_signed(">", x, zero), x, zero)
                x = builder.select(builder.icmp_signed("<", x, top), x, top)
                h = builder.lshr(builder.mul(x, x), shift)  # x <= 255: x*x fits 16 bits unsigned, h < 2^15
                w = _load(builder, n, builder.add(w2, ir.Constant(_I64, half * NNUE_HIDDEN + j)))
                total = builder.add(total, _madd(builder, h, w))
        s = ir.Constant(_I32, 0)
        for i in range(LANES // 2):
            s = builder.add(s, builder.extract_element(total, ir.Constant(_I32, i)))
        return builder.sext(s, _I64)

    return sig, codegen


@intrinsic
def first_max(typingctx, arr, start, stop):
    """Index of the first largest of arr[start:stop] (int32 values above the int32 minimum, stop > start).

    Eight lanes at a time: each lane keeps its largest value and where it first saw it, and the lanes
    agree at the end. It reads up to seven elements past stop (they must exist) and ignores them.
    """
    sig = types.int64(arr, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        data = _data(context, builder, signature.args[0], args[0])
        start, stop = args[1], args[2]
        lanes = LANES // 2

        def splat(value):
            v = builder.insert_element(ir.Constant(_V8_I32, None), value, ir.Constant(_I32, 0))
            return builder.shuffle_vector(v, ir.Constant(_V8_I32, None), ir.Constant(_V8_I32, [0] * lanes))

        def reduce(op, v):
            fnty = ir.FunctionType(_I32, [_V8_I32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.vector.reduce.{op}.v8i32")
            return builder.call(fn, [v])

        lowest = ir.Constant(_V8_I32, [-(2**31)] * lanes)
        end = splat(builder.trunc(stop, _I32))
        best = cgutils.alloca_once_value(builder, lowest)
        where = cgutils.alloca_once_value(builder, ir.Constant(_V8_I32, [2**31 - 1] * lanes))
        with cgutils.for_range_slice(builder, start, stop, ir.Constant(_I64, lanes)) as (k, _):
            ptr = builder.bitcast(builder.gep(data, [k]), _V8_I32.as_pointer())
            index = builder.add(splat(builder.trunc(k, _I32)), ir.Constant(_V8_I32, list(range(lanes))))
            v = builder.select(builder.icmp_signed("<", index, end), builder.load(ptr, align=4), lowest)
            b = builder.load(best)
            higher = builder.icmp_signed(">", v, b)
            builder.store(builder.select(higher, v, b), best)
            builder.store(builder.select(higher, index, builder.load(where)), where)
        b = builder.load(best)
        top = splat(reduce("smax", b))
        first = builder.select(builder.icmp_signed("==", b, top), builder.load(where),
                               ir.Constant(_V8_I32, [2**31 - 1] * lanes))
        return builder.sext(reduce("smin", first), _I64)

    return sig, codegen
