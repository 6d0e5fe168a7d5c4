"""LLVM intrinsics and libc/CPython calls that numba does not expose.

Each works both under the JIT and inside the ahead-of-time module: they emit plain calls that the
linker (or the running interpreter) resolves.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_I64 = ir.IntType(64)
_I32 = ir.IntType(32)


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a uint64 (one POPCNT on haswell)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [_I64])
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def lsb(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (one TZCNT/BSF)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [_I64, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


@intrinsic
def monotonic_ns(typingctx):
    """CLOCK_MONOTONIC in nanoseconds via libc's clock_gettime (~25-45 ns a call, no GIL needed)."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        timespec = ir.LiteralStructType([_I64, _I64])
        fnty = ir.FunctionType(_I32, [_I32, timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(_I32, 1), ts])  # 1 = CLOCK_MONOTONIC on Linux
        zero = ir.Constant(_I32, 0)
        sec = builder.load(builder.gep(ts, [zero, zero]))
        nsec = builder.load(builder.gep(ts, [zero, ir.Constant(_I32, 1)]))
        return builder.add(builder.mul(sec, ir.Constant(_I64, 1_000_000_000)), nsec)

    return sig, codegen


@intrinsic
def release_gil(typingctx):
    """PyEval_SaveThread(): lets other Python threads run while compiled code works.

    A pycc export holds the GIL for its whole call and `nogil=True` does not reach it, so long
    entry points (search, perft) bracket their work with release_gil()/acquire_gil(). Code between the
    two must not raise, allocate through Python or touch any Python object.
    """
    sig = types.voidptr()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(8).as_pointer(), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "PyEval_SaveThread")
        return builder.call(fn, [])

    return sig, codegen


@intrinsic
def acquire_gil(typingctx, state):
    """PyEval_RestoreThread(state): takes the GIL back after release_gil()."""
    sig = types.void(types.voidptr)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "PyEval_RestoreThread")
        builder.call(fn, [args[0]])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def prefetch(typingctx, arr, index):
    """Hint the CPU to fetch arr[index]'s cache line now (llvm.prefetch; never faults, does nothing else)."""
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, _I32, _I32, _I32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, high temporal locality, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(_I32, 0), ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
        return context.get_dummy_value()

    return sig, codegen
