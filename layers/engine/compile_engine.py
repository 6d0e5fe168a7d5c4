"""Compile the engine for the layer: `python -m engine.build --output-dir DIR`, with zig's clang for glibc 2.26.

engine/build.py sets CC/CXX/LDSHARED to zig's clang only after numba.pycc's CC() has already read the
compiler from the environment, so its module links with the system compiler and needs the build
machine's glibc (2.29 here, for exp/log/pow). Setting the same variables first makes the build use
zig, so the module needs at most GLIBC_2.26 (Amazon Linux 2). Drop this once engine/build.py does it.

    python layers/engine/compile_engine.py OUTPUT_DIR      (run from the project root)
"""

import os
import sys
import tempfile

from engine.build import main, zig_toolchain

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(zig_toolchain(tmp))
        main(["--output-dir", sys.argv[1]])
