"""The ahead-of-time module: loadable on Lambda's Amazon Linux 2 and built from the current sources."""

import re
import subprocess

from engine.buildinfo import ENGINE_DIR, source_hash

LAMBDA_GLIBC = (2, 26)  # python3.11 runtime: Amazon Linux 2


def compiled_module():
    found = sorted(ENGINE_DIR.glob("_compiled*.so"))
    assert found, "engine/_compiled*.so is missing: run `make build`"
    return found[0]


def test_module_needs_at_most_glibc_2_26():
    out = subprocess.run(["objdump", "-T", str(compiled_module())], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out)}
    assert versions and max(versions) <= LAMBDA_GLIBC, f"needs GLIBC_{'.'.join(map(str, max(versions)))}"


def test_module_links_nothing_but_libc_and_libm():
    out = subprocess.run(["objdump", "-p", str(compiled_module())], capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"NEEDED\s+(\S+)", out))
    assert needed <= {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "ld-linux-x86-64.so.2"}, needed


def test_module_is_built_from_these_sources(aot):
    assert aot.build_hash() == source_hash()
