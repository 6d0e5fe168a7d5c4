"""Analysing a request as the API does: the budget (time, threads, hash) and engine.analyse() through the
shared analysis cache (cache.py, its table cache_store.py)."""
