"""SnapStart's runtime hooks (issue 16). On Lambda's python3.12+ runtimes AnalyzeFunction registers them
with snapshot_restore_py, which exists only there: here a stand-in records them, and they are run as
Lambda would, before the snapshot and after a restore."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

# Imports the handler with a stand-in snapshot_restore_py, runs the hooks, prints what they did.
DRIVER = r'''
import json, random, sys, types
hooks = {"before": [], "after": []}
fake = types.ModuleType("snapshot_restore_py")
fake.register_before_snapshot = lambda f, *a, **k: hooks["before"].append(f) or f
fake.register_after_restore = lambda f, *a, **k: hooks["after"].append(f) or f
sys.modules["snapshot_restore_py"] = fake
sys.path.insert(0, "functions/analyze")
import gc
import app
from engine import tt_pool
facts = {"before": len(hooks["before"]), "after": len(hooks["after"]), "searches_at_init": tt_pool._searches,
         "table_at_init": tt_pool._spare is not None, "collector_on": gc.isenabled()}
for hook in hooks["before"]:
    hook()
facts |= {"searches": tt_pool._searches, "table_mb": tt_pool._spare[0].nbytes >> 20}
state = random.getstate()
for hook in hooks["after"]:
    hook()
facts["reseeded"] = random.getstate() != state
print(json.dumps(facts))
'''


def run_hooks(**env):
    proc = subprocess.run([sys.executable, "-c", DRIVER], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1769", **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_hooks_warm_the_engine_before_the_snapshot_and_reseed_after_a_restore():
    facts = run_hooks()
    assert facts["before"] == 1 and facts["after"] == 1
    assert facts["collector_on"]  # init_phase.end() ran after the hooks were registered
    # Init itself searches nothing and reserves no table (a cold start without SnapStart pays neither) ...
    assert facts["searches_at_init"] == 0 and not facts["table_at_init"]
    # ... the snapshot hook does: the table at its largest for 1769 MB (64 MB) and one tiny search.
    assert facts["searches"] == 1 and facts["table_mb"] == 64
    assert facts["reseeded"]


def test_the_snapshot_hook_follows_the_hash_setting():
    assert run_hooks(KIBITZ_HASH_MB="16")["table_mb"] == 16
