"""What one job, and one API key in a day, may ask of BatchFunction (docs/bill.md, "What an attacker can cost you").

    position_cost_ms(limits)                        # what one position's search may spend, ms
    check_search_time(positions, limits, source)    # 422 past KIBITZ_MAX_JOB_SEARCH_S
    charge_key(store, api_key_id)                   # 429 past KIBITZ_MAX_JOBS_PER_KEY_DAY jobs today

A job's cost is bounded by its positions times what one search can spend. Every search ends by its
movetime, whatever depth or nodes it also names; one that names nodes ends sooner, by its nodes at
the engine's slowest rate (NODES_PER_S_FLOOR), so it is costed by the lower of the two (issue 69.3: a
job of 6,139 positions at 2000 nodes was refused as 6,139 s of search). A depth bounds no time (a
position may need any number of nodes to reach it): a job limited by depth alone is costed by its
movetime. Jobs per key are counted only when the request carries an API key (ApiKeyRequired: API
Gateway puts the key's id in the request context, which a client cannot set).
"""

import math
import time

from functions.common import settings
from functions.common.api.http import InputError

MAX_POSITIONS = 1000  # in a job's body (a list, EPD or PGN); documented in docs/batch.md
DEFAULT_MAX_JOB_SEARCH_S = 3600
DEFAULT_MAX_JOBS_PER_KEY_DAY = 100
# The slowest a search with a node limit gets through its nodes, answer and overhead included: measured
# on the dev VM (1 thread, `analyse_request` as a chunk calls it, 600 positions of wac/sts/bratko_kopec,
# benchmarks/node_floor.py): at 2000 nodes a position, mean 899k nodes/s, slowest 1% 349k,
# slowest one 151k; at 10000, mean 1.45M, slowest 787k. 100k is under the slowest position seen, so a
# Lambda vCPU somewhat slower than the VM still spends no more than it is costed.
NODES_PER_S_FLOOR = 100_000
S3_WAY = ("send it as a job read from S3 instead, which has no position or body limit but the search time's: "
          "POST /jobs/uploads, PUT the file to the upload_url it answers, then POST /jobs with its source and format "
          "(`kibitz batch submit FILE` does this by itself for a file over the limits; --s3 always)")


def max_job_search_s():
    return settings.integer("KIBITZ_MAX_JOB_SEARCH_S", DEFAULT_MAX_JOB_SEARCH_S)


def position_cost_ms(limits):
    """The most one position's search may spend, ms: its movetime, or its nodes at NODES_PER_S_FLOOR if
    that is less. limits: SearchLimits (or anything with movetime_ms and nodes)."""
    cost = limits.movetime_ms
    if getattr(limits, "nodes", None) is not None:
        cost = min(cost, max(1, math.ceil(limits.nodes * 1000 / NODES_PER_S_FLOOR)))
    return cost


def _cost_basis(limits):
    if position_cost_ms(limits) < limits.movetime_ms:
        return f"a position's {limits.nodes} nodes at {NODES_PER_S_FLOOR} nodes/s, under its movetime_ms"
    return "a position's movetime_ms" + (": a depth bounds no time" if getattr(limits, "depth", None) else "")


def most_positions(limits):
    return max(1, max_job_search_s() * 1000 // position_cost_ms(limits))


def over_search_time(positions, limits, more=False):
    """None, or why `positions` positions at these limits are over the deployment's bound (more: and more
    positions may follow, as a split reading on)."""
    limit_s = max_job_search_s()
    asked_s = positions * position_cost_ms(limits) / 1000
    if asked_s <= limit_s:
        return None
    return (f"{positions}{'+' if more else ''} positions x {position_cost_ms(limits)} ms is {asked_s:g} s of search "
            f"({_cost_basis(limits)}); this deployment allows "
            f"{limit_s} s a job (MaxJobSearchSeconds): send at most {most_positions(limits)} positions at these "
            f"limits, or a shorter movetime_ms or fewer nodes")


def check_search_time(positions, limits, source):
    """InputError 422 naming `source` when positions x position_cost_ms(limits) is over the deployment's bound."""
    reason = over_search_time(positions, limits)
    if reason is not None:
        raise InputError(422, source, reason)


def charge_key(store, api_key_id, now=None):
    """Count one job against the key's jobs of today (UTC); InputError 429 when they are used up."""
    limit = settings.integer("KIBITZ_MAX_JOBS_PER_KEY_DAY", DEFAULT_MAX_JOBS_PER_KEY_DAY)
    day = int((now or time.time()) // 86400)
    if not store.count_key_job(api_key_id, day, limit):
        raise InputError(429, "api_key", f"this key has submitted its {limit} jobs for today (MaxJobsPerKeyPerDay); "
                                         "more from 00:00 UTC")
