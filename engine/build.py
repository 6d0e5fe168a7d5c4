"""Ahead-of-time build of the compiled core into one extension module, engine/_compiled*.so.

    python -m engine.build [--output-dir DIR] [--system-cc]

numba.pycc compiles every function registered in engine/core/exports.py with its signature, for
haswell (POPCNT, BMI2, AVX2: every x86_64 Lambda host has them). The C parts are compiled and linked
by zig's clang (the `ziglang` wheel) for glibc 2.26, so the module loads on Amazon Linux 2023 (glibc
2.34), the python3.13 Lambda runtime, as well as here; --system-cc uses the machine's compiler instead.
The module then needs only numpy at run time. The layer build (layers/engine/Makefile) calls this too.
"""

import argparse
import os
import pathlib
import stat
import sys
import tempfile
import time
from unittest import mock

import numpy as np

from engine.buildinfo import COMPILED_NAME, ENGINE_DIR, source_hash

# Lambda's python3.13 runs on Amazon Linux 2023 (glibc 2.34), but the one module `make build` makes is
# also what every developer's machine loads, so it is linked for less: 2.26 loads on Debian 10+,
# Ubuntu 18.04+, RHEL 8+ and Amazon Linux 2 as well, and the module needs nothing a newer glibc adds
# (its only symbols are libc's and libm's basics). tests/test_build.py checks it against both.
GLIBC_TARGET = "x86_64-linux-gnu.2.26"


def zig_toolchain(workdir):
    """CC/CXX/LDSHARED pointing at zig's clang for GLIBC_TARGET.

    pycc compiles numba's C helpers and its C++ runtime (nrt.cpp) with the one CC, so CC is a small
    wrapper that switches to C++ mode for .cpp files; linking is done in C++ mode too.
    """
    import ziglang

    zig = pathlib.Path(ziglang.__file__).parent / "zig"
    wrapper = pathlib.Path(workdir) / "zig-cc"
    wrapper.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in *.cpp) '
        f'exec "{zig}" c++ -target {GLIBC_TARGET} "$@";; esac; done\n'
        f'exec "{zig}" cc -target {GLIBC_TARGET} "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return {
        "CC": str(wrapper),
        "CXX": f"{zig} c++ -target {GLIBC_TARGET}",
        "LDSHARED": f"{zig} c++ -target {GLIBC_TARGET} -shared",
    }


def build(output_dir=ENGINE_DIR, system_cc=False, verbose=False):
    os.environ["KIBITZ_AOT_BUILD"] = "1"  # recursive functions get their explicit signatures
    from numba.pycc import CC

    from engine.core.exports import EXPORTS

    with tempfile.TemporaryDirectory() as tmp:
        env = {} if system_cc else zig_toolchain(tmp)
        # CC() picks its compiler up from the environment when it is constructed, so set it first.
        with mock.patch.dict(os.environ, env):
            cc = CC(COMPILED_NAME)
            cc.output_dir = str(output_dir)
            cc.target_cpu = "haswell"
            cc.verbose = verbose
            for name, (signature, fn) in EXPORTS.items():
                cc.export(name, signature)(fn)
            digest = np.uint64(source_hash())

            def build_hash():
                return digest

            cc.export("build_hash", "u8()")(build_hash)
            cc.compile()
    return pathlib.Path(cc.output_dir) / cc.output_file


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--output-dir", default=str(ENGINE_DIR), help="where to write the module (default: engine/)")
    ap.add_argument("--system-cc", action="store_true", help="use the system C compiler instead of zig")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    path = build(pathlib.Path(args.output_dir), args.system_cc, args.verbose)
    print(f"built {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
