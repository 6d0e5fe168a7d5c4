"""The analysis cache for many positions at once (an S3 job's chunk): its entries read before the searches in
BatchGetItem requests, the new ones written after them in BatchWriteItem requests, instead of a GetItem
and an UpdateItem a position (issue 69.1).

    batch = CacheBatch(store)                 # a CacheStore (or None: no cache)
    batch.read(keys)                          # engine.cache_key keys of the chunk's positions
    analyse_cached(..., store=batch)          # get() answers from what was read, put() queues the write
    batch.write_behind()                      # (optional, any number of times) what is queued so far, written
                                              # in the background while the searches go on
    batch.write()                             # the queued entries, in batches (after any written behind)

The rules of functions/common/analysis/cache.py are unchanged (what serves, what is kept); what changes
is when the table is read and written, and with what guard:
  - An entry is read once, at the start of the chunk: a write by another caller during the chunk is not
    seen by the chunk's searches (they search and keep the deeper as if it were not there).
  - BatchWriteItem takes no condition. Instead of each UpdateItem's compare-and-swap ("only if the
    attribute still holds what was read"), write() reads the items again (BatchGetItem) and drops every
    entry whose attribute no longer holds what the chunk read (another writer got there first: the cache
    keeps theirs, as a failed single write does); the others are written as whole items, the item's
    other multipv attributes as that second read found them. The check and the write are no longer one
    atomic step: a writer that writes the same item between the second read and the batch write (a window
    of one round trip, not a chunk) has its write replaced. What it costs: a sound entry, maybe shallower
    than the one it replaced, until a search that needs more writes again; never a wrong answer (every
    entry is checked against its position when read: cache.read_entry).
  - A fault fails no position: a read that fails (or keys left unprocessed after the retries) leaves
    those positions to search without the cache ("unavailable", as a single GetItem's failure), and a
    write that fails loses only the entries.
  - write_behind() hands what is queued so far to a thread of the batch's own, which re-reads and writes it
    (one such write at a time, in order) while the caller searches the next positions (the compiled search
    lets go of the GIL), so that the chunk does not wait for the table's round trips; write() waits for
    them, then writes the rest, so nothing is in flight once it returns. The entries and the checks are
    those of one write at the end: a position met again after its entry was handed over is checked against
    what the chunk wrote for it (what get() answered), not the first read. What it costs: a re-read
    (BatchGetItem) a handover, besides the one of the rest.
"""

from concurrent.futures import ThreadPoolExecutor

from functions.common.analysis.cache_store import MULTIPV_ATTRIBUTES, CacheUnavailable


class CacheBatch:
    def __init__(self, store):
        self.store = store
        self.items = {}  # key -> the item as read (the low-level JSON), for the keys that were read
        self.unread = {}  # key -> why it could not be read
        self.queued = {}  # (key, multipv) -> (new text, text read)
        self.reads = self.writes = self.given_up = self.raced = 0  # entries, for the logs and the benchmark
        self._behind = None  # the thread of write_behind(), started on first use
        self._pending = []  # its writes not waited for yet (futures of _write)

    def read(self, keys):
        keys = sorted(set(keys) - set(self.items) - set(self.unread))
        if not keys:
            return
        try:
            found, left = self.store.read_items(keys)
        except CacheUnavailable as e:
            found, left, why = {}, set(keys), str(e)
        else:
            why = "BatchGetItem: left unprocessed after the retries"
        for k in keys:
            if k in left:
                self.unread[k] = why
            else:
                self.items[k] = found.get(k, {"position": {"S": k}})
        self.reads += len(keys) - len(left)

    def get(self, key, multipv):
        """The text read for (key, multipv), or None; CacheUnavailable if the key was not read."""
        if key not in self.items:
            raise CacheUnavailable(self.unread.get(key, "not read with the chunk"))
        return self.items[key].get(MULTIPV_ATTRIBUTES[multipv - 1], {}).get("S")

    def put(self, key, multipv, text, old):
        """Queue the write (True): written by write() if the entry still holds `old` then."""
        if (key, multipv) in self.queued:  # the position again in the chunk: the table still holds the first `old`
            old = self.queued[(key, multipv)][1]
        self.queued[(key, multipv)] = (text, old)
        self.items[key] = {**self.items[key], MULTIPV_ATTRIBUTES[multipv - 1]: {"S": text}}  # a repeat reads it
        return True

    def write_behind(self):
        """Start writing what is queued so far in the background (the batch's thread, one write at a time) and
        return at once; write() waits for it. A fault loses the entries, as in write()."""
        if not self.queued or self.store is None:
            return
        if self._behind is None:
            self._behind = ThreadPoolExecutor(1, thread_name_prefix="kibitz-cache-write")
        self._pending.append(self._behind.submit(self._write, self._take()))

    def write(self):
        """Write what was queued (after waiting for what write_behind() handed over); a fault loses the entries,
        never raises. Returns the number written, by this call and the writes behind it."""
        written = self.wait_behind()
        if not self.queued or self.store is None:
            return written
        return written + self._write(self._take())

    def wait_behind(self):
        """Wait for the writes write_behind() started (nothing in flight after it). Returns how many they wrote."""
        written = 0
        try:
            for pending in self._pending:
                written += pending.result()
        finally:
            self._pending = []
            if self._behind is not None:
                self._behind.shutdown(wait=True)
                self._behind = None
        return written

    def _take(self):
        """The queued writes by key ({key: {attribute: (text, text read)}}), taken off the queue."""
        first = {}
        for (key, multipv), (text, old) in self.queued.items():
            first.setdefault(key, {})[MULTIPV_ATTRIBUTES[multipv - 1]] = (text, old)
        self.queued = {}
        return first

    def _write(self, first):
        try:
            now, left = self.store.read_items(list(first))
            items, counts = [], {}
            for key, changes in first.items():
                if key in left:
                    self.given_up += len(changes)
                    continue
                item = dict(now.get(key, {"position": {"S": key}}))
                item.pop("expires_at", None)
                fresh = {a: text for a, (text, old) in changes.items() if item.get(a, {}).get("S") == old}
                self.raced += len(changes) - len(fresh)
                if fresh:
                    items.append({**item, **{a: {"S": text} for a, text in fresh.items()}})
                    counts[key] = len(fresh)
            given_up = set(self.store.write_items(items))
        except CacheUnavailable:
            self.given_up += sum(len(c) for c in first.values())
            return 0
        written = sum(n for k, n in counts.items() if k not in given_up)
        self.given_up += sum(n for k, n in counts.items() if k in given_up)
        self.writes += written
        return written
