"""Search profiles: parameter sets for the two ways the engine is used.

A game (UCI, a match, self-play) keeps its table from move to move and is played against a clock;
an answer of the API (or the CLI) is one search of a fresh table at a movetime, judged move by move.
The search's parameters (engine/params.py) were tuned in games; at the API's conditions a little
less pruning finds more (docs/benchmarks.md, "Search profiles": tactics at fixed nodes and the
answers benchmark at 1 s), so an analysis without a game uses ANALYSIS on top of the defaults.

Overrides passed as `params` win over the profile's values.
"""

import hashlib

GAME = {}
ANALYSIS = {"RfpMargin": 200, "LmrDivisor": 350}
PROFILES = {"analysis": ANALYSIS, "game": GAME}


def settings(profile, params=None):
    """The parameter overrides of `profile` with `params` ({name: value}) on top."""
    if profile not in PROFILES:
        raise ValueError(f"profile: {profile!r} is not one of {', '.join(sorted(PROFILES))}")
    return {**PROFILES[profile], **(params or {})}


def fingerprint():
    """Six hex digits naming the analysis profile's values, for the analysis cache's key: answers of
    another profile are never served for this one."""
    text = ",".join(f"{name}={value}" for name, value in sorted(ANALYSIS.items()))
    return hashlib.blake2b(text.encode(), digest_size=3).hexdigest()
