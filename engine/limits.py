"""What a search accepts: the bounds on depth, multipv and the hash table, and the check of one
call's limits.

Plain Python over engine.layout: the API's models read these bounds without loading the compiled core.
"""

import numpy as np

from engine.layout import MAX_MULTIPV, MAX_PLY

DEFAULT_HASH_MB = 16
MAX_HASH_MB = 65536
MAX_DEPTH = MAX_PLY - 8  # room past the deepest iteration for check extensions and quiescence
MAX_THREADS = 8  # Lazy SMP threads: a Lambda function has at most 6 vCPUs


def check(movetime_ms, depth, nodes, multipv, hash_mb, wtime, btime, winc, binc, movestogo, infinite, stop,
          threads=1):
    """ValueError naming the first limit out of range, or the lack of any limit at all."""

    def whole(name, value, low, high=None):
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
        if value < low or (high is not None and value > high):
            raise ValueError(f"{name} must be between {low} and {high}, got {value}" if high is not None
                             else f"{name} must be at least {low}, got {value}")

    whole("movetime_ms", movetime_ms, 1)
    whole("depth", depth, 1, MAX_DEPTH)
    whole("nodes", nodes, 1)
    whole("multipv", multipv, 1, MAX_MULTIPV)
    whole("hash_mb", hash_mb, 1, MAX_HASH_MB)
    for name, v in (("wtime", wtime), ("btime", btime), ("winc", winc), ("binc", binc)):
        whole(name, v, 0)
    whole("movestogo", movestogo, 1)
    whole("threads", threads, 1, MAX_THREADS)
    if infinite and stop is None:
        raise ValueError("an infinite search needs a StopSignal to end it")
    if not infinite and movetime_ms is None and depth is None and nodes is None and wtime is None and btime is None:
        raise ValueError("give a limit: movetime_ms, depth, nodes, a clock (wtime/btime) or infinite with stop")
