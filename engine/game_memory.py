"""What the searches of one game (UCI) keep from move to move, as engines do between moves.

KeepTable: the transposition table. Each search of the game takes the next epoch under the game's
own salt and passes `ages`, so that the entries of the game's earlier searches are still found; in
replacement they rank lower the older they are (engine/core/transposition.py). The memory is the
pool's spare table (engine/tt_pool.py), held until the game ends, cleared once when the game takes it.
An old entry settles a node only with a score short of a decided one (engine/core/search.py
_cut_trusted): decided scores carried over from earlier searches had turned drawn endings into +15.

KeepHistory: the main thread's move-ordering statistics (quiet, counter-move and continuation
histories). Killers, move lists and lines are per ply of one search and start afresh.
"""

from engine import tt_pool
from engine.layout import S_HISTORY, S_MOVES, TT_EPOCHS


class GameMemory:
    def __init__(self):
        self.table = None
        self.n = 0
        self.salt = 0
        self.searches = 0
        self.arrays = None  # (S, acc, cont) of the main thread's last search, with KeepHistory

    def take_table(self, n):
        """(table, epoch, salt, ages) for the game's next search in n buckets; a new size starts afresh."""
        if self.table is None or self.n != n:
            self.release_table()
            table, used, _, self.salt = tt_pool.acquire(n)
            table[:used * 4].fill(0)  # no entry of another search may rank as the game's own
            self.table, self.n, self.searches = table, n, 0
        k = self.searches
        self.searches += 1
        return self.table, k % TT_EPOCHS + 1, self.salt, min(k, TT_EPOCHS - 1)

    def take_arrays(self):
        """The last search's arrays with only the histories left in them, or None on the game's first move."""
        if self.arrays is None:
            return None
        S, acc, cont = self.arrays
        self.arrays = None
        S[:S_HISTORY] = 0  # killers, by ply of the last search's tree
        S[S_MOVES:] = 0  # move lists, PV, lines, parameters (set again), ...
        acc.fill(0)
        return S, acc, cont

    def release_table(self):
        if self.table is not None:
            tt_pool.release(self.table, self.n)
            self.table = None

    def close(self):
        """The game is over: its table goes back to the pool, its histories are forgotten."""
        self.release_table()
        self.arrays = None
