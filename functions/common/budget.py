"""What a search may use on Lambda: its time (budget_ms) and its transposition table (hash_size_mb).

Configuration (template.yaml): KIBITZ_SAFETY_MARGIN_MS (default 1000), KIBITZ_HASH_MB ("auto" or MB);
Lambda sets AWS_LAMBDA_FUNCTION_MEMORY_SIZE.
"""

import os

DEFAULT_SAFETY_MARGIN_MS = 1000
HASH_MB_PER_MB_MEMORY = 1 / 16  # "auto": at most the largest power of two under 1/16 of the function's memory,
HASH_KB_PER_MS = 32  # and no more than the budget can fill: ~2,000 nodes a ms, a 16-byte entry each


def budget_ms(movetime_ms, remaining_ms):
    """The search deadline: the request's movetime, cut to what the Lambda has left less a margin."""
    margin = int(os.environ.get("KIBITZ_SAFETY_MARGIN_MS", DEFAULT_SAFETY_MARGIN_MS))
    return max(1, min(movetime_ms, remaining_ms - margin))


def hash_size_mb(budget_ms=None):
    """The transposition table for a search of budget_ms: KIBITZ_HASH_MB, or with "auto" a power of two
    sized from the function's memory and cut to what the budget can fill (memory a search never writes
    would only cost its first touch)."""
    value = os.environ.get("KIBITZ_HASH_MB", "auto")
    if value != "auto":
        return int(value)
    memory_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1769"))
    cap = 1 << (max(1, int(memory_mb * HASH_MB_PER_MB_MEMORY)).bit_length() - 1)
    if budget_ms is None:
        return cap
    fill = max(1, -(-int(budget_ms) * HASH_KB_PER_MS // 1024))
    return min(cap, 1 << (fill - 1).bit_length())
