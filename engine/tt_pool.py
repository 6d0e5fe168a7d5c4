"""The transposition table's memory, kept from one search to the next.

Every search gets a table that is fresh to it, but not fresh memory: the largest table so far is kept
with how many of its buckets searches have written since it was last cleared, and a search needing no
more reuses the front of it. Each search stamps its entries with its own epoch and salt, and entries
of other searches count as empty (engine/core/transposition.py). Fresh memory is dear: a first touch
costs ~2.6 ms per MB on this Firecracker VM, and numpy backs big arrays with 2 MB huge pages that
fault whole, so pages once faulted in are kept for every later search, whatever its size.
"""

import threading

import numpy as np

from engine.layout import TT_EPOCHS
from engine.limits import DEFAULT_HASH_MB

BUCKET_BYTES = 32  # two (key, data) entries of two uint64 words

_lock = threading.Lock()
_spare = None  # (table, used): the largest table so far, and how many buckets of it have been written
_searches = 0  # searches started in this process; gives each its epoch and salt


def buckets(hash_mb):
    """The largest power-of-two bucket count that fits in hash_mb megabytes."""
    n = max(1, hash_mb * 1024 * 1024 // BUCKET_BYTES)
    return 1 << (n.bit_length() - 1)


def reserve_hash(hash_mb=DEFAULT_HASH_MB):
    """Allocate and touch the transposition table now (e.g. during Lambda's init phase, or at UCI's
    `isready`), not in a search. Does nothing when the spare table is big enough already."""
    n = buckets(hash_mb)
    with _lock:
        if _spare is not None and len(_spare[0]) >= n * 4:
            return
    table = np.zeros(n * 4, np.uint64)
    table.fill(0)  # fault every page in
    release(table, 0)


def acquire(n):
    """(table, used, epoch, salt) for a new search of n buckets: table is the spare when it is big
    enough, used how much of it has been written."""
    global _spare, _searches
    with _lock:
        k = _searches
        _searches += 1
        spare, _spare = _spare, None
    if spare is None or len(spare[0]) < n * 4:
        table, used = np.zeros(n * 4, np.uint64), 0
    else:
        table, used = spare
        if k % TT_EPOCHS == 0:  # the epochs come round again: forget the oldest entries for good
            table[:used * 4].fill(0)
            used = 0
    salt = (k * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    return table, max(used, n), k % TT_EPOCHS + 1, salt - (1 << 64) if salt >= 1 << 63 else salt


def release(table, used):
    """Keep the larger of this table and the spare (concurrent searches each had their own)."""
    global _spare
    with _lock:
        if _spare is None or len(_spare[0]) <= len(table):
            _spare = (table, used)

