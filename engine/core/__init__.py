"""The compiled core: numba code over numpy arrays, built ahead of time into engine/_compiled*.so.

Nothing here is imported at run time when the compiled module is present (see engine/native.py).

numba's on-disk cache only notices edits to the file that holds a cached function, not to the
functions it calls, so under the JIT the cache lives in .numba_cache/<hash of all core sources>:
any edit anywhere in the core starts a fresh cache instead of running stale machine code.
"""

import os

if "NUMBA_CACHE_DIR" not in os.environ:
    from numba.core import config as _config

    from engine.buildinfo import ENGINE_DIR, source_hash

    _config.CACHE_DIR = str(ENGINE_DIR.parent / ".numba_cache" / f"{source_hash():016x}")
