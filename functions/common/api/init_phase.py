"""The collector during a function's init phase: off while the handler module imports, then the
objects made so far are frozen out of its sight.

    from functions.common.api import init_phase
    init_phase.begin()      # first thing in app.py, before the heavy imports
    ...
    init_phase.end()        # last thing in app.py

Init imports Powertools, pydantic's schemas and the engine's tables: tens of thousands of objects,
almost none freed, which the collector walked for ~30 ms of AnalyzeFunction's cold start. They live
as long as the container, so gc.freeze() at the end keeps a full collection in a later request from
walking them all (a 150 ms outlier in 600 warm requests before, none after); then it is back on.
"""

import gc


def begin():
    gc.disable()


def end():
    gc.freeze()
    gc.enable()
