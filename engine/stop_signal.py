"""StopSignal: ends a running engine.analyse() from another thread (UCI `stop`)."""

import threading

from engine.layout import C_STOP


class StopSignal:
    """Sets the stop flag of every search attached to it; the compiled search sees it within 512 nodes.
    Reusable after clear()."""

    def __init__(self):
        self._lock = threading.Lock()
        self._set = False
        self._ctls = []

    def set(self):
        with self._lock:
            self._set = True
            for ctl in self._ctls:
                ctl[C_STOP] = 1

    def clear(self):
        with self._lock:
            self._set = False
            self._ctls = []

    def is_set(self):
        return self._set

    def attach(self, ctl):
        """A search's control array (engine.layout C_*): stopped now if the signal is set, else when it is."""
        with self._lock:
            self._ctls.append(ctl)
            if self._set:
                ctl[C_STOP] = 1
