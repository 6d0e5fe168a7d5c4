"""The ahead-of-time module: loadable on Lambda's Amazon Linux 2023 and built from the current sources."""

import re
import subprocess
import sysconfig

from engine.build import GLIBC_TARGET
from engine.buildinfo import COMPILED_NAME, ENGINE_DIR, source_hash

LAMBDA_GLIBC = (2, 34)  # python3.13 runtime: Amazon Linux 2023
TARGET_GLIBC = tuple(int(x) for x in GLIBC_TARGET.rsplit(".", 2)[-2:])  # what zig links for


def compiled_module():
    """This interpreter's module (an older checkout may still hold a cpython-311 one beside it)."""
    path = ENGINE_DIR / (COMPILED_NAME + sysconfig.get_config_var("EXT_SUFFIX"))
    assert path.exists(), f"{path.name} is missing: run `make build`"
    return path


def test_module_needs_at_most_the_glibc_it_was_linked_for_and_lambdas():
    out = subprocess.run(["objdump", "-T", str(compiled_module())], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out)}
    assert TARGET_GLIBC <= LAMBDA_GLIBC
    assert versions and max(versions) <= TARGET_GLIBC, f"needs GLIBC_{'.'.join(map(str, max(versions)))}"


def test_module_links_nothing_but_libc_and_libm():
    out = subprocess.run(["objdump", "-p", str(compiled_module())], capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"NEEDED\s+(\S+)", out))
    assert needed <= {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "ld-linux-x86-64.so.2"}, needed


def test_module_is_built_from_these_sources(aot):
    assert aot.build_hash() == source_hash()
