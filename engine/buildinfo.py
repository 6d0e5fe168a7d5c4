"""Identity of the compiled core's sources, shared by the build script and the loader."""

import hashlib
import pathlib

ENGINE_DIR = pathlib.Path(__file__).resolve().parent
CORE_DIR = ENGINE_DIR / "core"
COMPILED_NAME = "_compiled"


def source_hash():
    """64-bit digest of the compiled core's sources, or None where they are not shipped (Lambda)."""
    files = sorted(CORE_DIR.glob("*.py"))
    if not files:
        return None
    h = hashlib.sha256()
    for f in files + [ENGINE_DIR / "layout.py", ENGINE_DIR / "params.py"]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return int.from_bytes(h.digest()[:8], "little")
