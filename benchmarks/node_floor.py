"""The floor of nodes a second that costs a job limited by nodes (functions/common/jobs/limits.py,
NODES_PER_S_FLOOR): each position searched as an S3 chunk searches it (analyse_request, one thread, no
cache, a movetime that never ends it), its nodes asked over the wall time it took, answer included.

    /work/quiet.sh .venv/bin/python -m benchmarks.node_floor 2000 10000
"""

import sys
import time

from engine import epd
from functions.common.analysis.request import analyse_request
from functions.common.api.models import SearchLimits

FILES = ("benchmarks/data/wac.epd", "benchmarks/data/sts.epd", "benchmarks/data/bratko_kopec.epd")
POSITIONS = 600


def main(argv):
    fens = [epd.parse_epd(line)[0] for f in FILES for _, line in epd.records(open(f).read())][:POSITIONS]
    for nodes in (int(a) for a in argv or ["2000"]):
        limits = SearchLimits(movetime_ms=10000, nodes=nodes, threads=1)
        analyse_request(fens[0], (), limits, limits.movetime_ms, None, threads=1)  # compiled core loaded
        rates, started = [], time.perf_counter()
        for fen in fens:
            t = time.perf_counter()
            analyse_request(fen, (), limits, limits.movetime_ms, None, threads=1)
            rates.append(nodes / (time.perf_counter() - t))
        total = time.perf_counter() - started
        rates.sort()
        print(f"nodes {nodes}: {len(fens)} positions in {total:.2f} s; nodes asked a second: mean "
              f"{len(fens) * nodes / total:,.0f}, slowest 1% {rates[len(rates) // 100]:,.0f}, slowest {rates[0]:,.0f}, "
              f"median {rates[len(rates) // 2]:,.0f}")


if __name__ == "__main__":
    main(sys.argv[1:])
