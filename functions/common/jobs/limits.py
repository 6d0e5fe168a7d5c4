"""What one job, and one API key in a day, may ask of BatchFunction (docs/bill.md, "What an attacker can cost you").

    check_search_time(positions, movetime_ms, source)   # 422 past KIBITZ_MAX_JOB_SEARCH_S
    charge_key(store, api_key_id)                       # 429 past KIBITZ_MAX_JOBS_PER_KEY_DAY jobs today

A job's cost is bounded by its positions times its movetime: every search ends by its movetime,
whatever depth or nodes it also names. Jobs per key are counted only when the request carries an API
key (ApiKeyRequired: API Gateway puts the key's id in the request context, which a client cannot set).
"""

import time

from functions.common import settings
from functions.common.api.http import InputError

DEFAULT_MAX_JOB_SEARCH_S = 3600
DEFAULT_MAX_JOBS_PER_KEY_DAY = 100


def max_job_search_s():
    return settings.integer("KIBITZ_MAX_JOB_SEARCH_S", DEFAULT_MAX_JOB_SEARCH_S)


def check_search_time(positions, movetime_ms, source):
    """InputError 422 naming `source` when positions x movetime_ms is over the deployment's bound."""
    limit_s = max_job_search_s()
    asked_s = positions * movetime_ms / 1000
    if asked_s > limit_s:
        most = max(1, limit_s * 1000 // movetime_ms)
        raise InputError(422, source, f"{positions} positions x {movetime_ms} ms is {asked_s:g} s of search; this "
                                      f"deployment allows {limit_s} s a job (MaxJobSearchSeconds): send at most "
                                      f"{most} positions at this movetime_ms, or a shorter movetime_ms")


def charge_key(store, api_key_id, now=None):
    """Count one job against the key's jobs of today (UTC); InputError 429 when they are used up."""
    limit = settings.integer("KIBITZ_MAX_JOBS_PER_KEY_DAY", DEFAULT_MAX_JOBS_PER_KEY_DAY)
    day = int((now or time.time()) // 86400)
    if not store.count_key_job(api_key_id, day, limit):
        raise InputError(429, "api_key", f"this key has submitted its {limit} jobs for today (MaxJobsPerKeyPerDay); "
                                         "more from 00:00 UTC")
