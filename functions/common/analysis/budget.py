"""What a search may use on Lambda: its time (budget_ms), its threads (default_threads) and its
transposition table (hash_size_mb).

Configuration (template.yaml): KIBITZ_SAFETY_MARGIN_MS (default 1000), KIBITZ_HASH_MB ("auto" or MB);
Lambda sets AWS_LAMBDA_FUNCTION_MEMORY_SIZE.
"""

import os

from engine.limits import MAX_THREADS
from functions.common import settings

DEFAULT_SAFETY_MARGIN_MS = 1000
HASH_MB_PER_MB_MEMORY = 1 / 16  # "auto": at most the largest power of two under 1/16 of the function's memory,
HASH_KB_PER_MS = 32  # and no more than the budget can fill: ~2,000 nodes a ms a thread, a 16-byte entry each
MB_PER_VCPU = 1769  # Lambda gives a full vCPU per 1769 MB of memory (about 6 at 10240 MB)


def memory_mb():
    return int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", str(MB_PER_VCPU)))


def default_threads():
    """One searching thread per full vCPU the function's memory buys, at least one, at most MAX_THREADS.
    Not os.cpu_count(): it says 2 on every function up to 3008 MB, even where the CPU credit is one vCPU."""
    return max(1, min(MAX_THREADS, memory_mb() // MB_PER_VCPU))


def budget_ms(movetime_ms, remaining_ms):
    """The search deadline: the request's movetime, cut to what the Lambda has left less a margin."""
    margin = settings.integer("KIBITZ_SAFETY_MARGIN_MS", DEFAULT_SAFETY_MARGIN_MS)
    return max(1, min(movetime_ms, remaining_ms - margin))


def hash_size_mb(budget_ms=None, threads=1):
    """The transposition table for a search of budget_ms on `threads` threads: KIBITZ_HASH_MB, or with
    "auto" a power of two sized from the function's memory and cut to what the threads can fill in the
    budget (memory a search never writes would only cost its first touch)."""
    if settings.text("KIBITZ_HASH_MB", "auto") != "auto":
        return settings.integer("KIBITZ_HASH_MB", None)
    cap = 1 << (max(1, int(memory_mb() * HASH_MB_PER_MB_MEMORY)).bit_length() - 1)
    if budget_ms is None:
        return cap
    fill = max(1, -(-int(budget_ms) * threads * HASH_KB_PER_MS // 1024))
    return min(cap, 1 << (fill - 1).bit_length())
