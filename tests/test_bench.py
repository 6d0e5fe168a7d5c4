"""The bench signature: a fixed search whose node count changes with any change to search or eval.

engine.bench.SIGNATURE must be updated (and quoted as `Bench: N` in the commit) whenever a change is
meant to alter the search; otherwise this test catches the change that was not.
"""

import json
import subprocess
import sys

from engine import analyse, bench
from tests.conftest import ROOT


def test_bench_matches_the_recorded_signature():
    nodes, _ = bench.run()
    assert nodes == bench.SIGNATURE, f"bench gives {nodes}; update engine.bench.SIGNATURE if the change is meant"


def test_fixed_depth_results_equal_across_compiled_and_jit():
    """The same source compiled ahead of time and under numba's JIT searches the very same tree."""
    depth = 7
    probe = (
        "import json; from engine import analyse; from engine.bench import POSITIONS; "
        f"print(json.dumps([[r.best_move, r.score.cp, r.score.mate, r.nodes, list(r.pv), r.backend] "
        f"for r in (analyse(f, depth={depth}) for f in POSITIONS)]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"KIBITZ_BACKEND": "jit", "PATH": "/usr/bin:/bin"}, timeout=900).stdout
    jit = json.loads(out)
    aot = [[r.best_move, r.score.cp, r.score.mate, r.nodes, list(r.pv), r.backend]
           for r in (analyse(f, depth=depth) for f in bench.POSITIONS)]
    assert {row[-1] for row in jit} == {"jit"} and {row[-1] for row in aot} == {"aot"}
    assert [row[:-1] for row in jit] == [row[:-1] for row in aot]
