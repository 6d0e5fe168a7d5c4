"""What the endgame tables cost a cold start (issue 70.4): fresh processes of the built AnalyzeFunction
(benchmarks/api.py's cold start, clean venv without numba), the same request with the tables on (the
default) and with "tablebases": false, and first requests within the tables (KRvKB, KQvKR: their tables
decompressed on that request), in turns.

    .venv/bin/python -m benchmarks.tablebase_cold --build-dir DIR [--runs 8]

DIR: a sam build directory (benchmarks/api.py --build-dir builds one into DIR/build). Prints, per request,
the medians of: import + first request minus its search ("cold"), the import alone, the first request minus
its search, and the search's own time_ms (for a table answer: the probes and the tables' decompression).
"""

import argparse
import json
import pathlib
import shutil
import statistics
import sys
import tempfile

from benchmarks import api, artifact

REQUESTS = {
    "tables on (default)": {},
    "tablebases false": {"tablebases": False},
    "KRvKB (first table answer)": {"fen": "8/8/4k3/8/3b4/8/8/4K2R w - - 0 1"},
    "KQvKR (first table answer)": {"fen": "8/8/8/8/5kr1/7Q/K7/8 w - - 0 1"},
}


def events(work):
    base = json.loads((api.ROOT / "events/analyze-post.json").read_text())
    out = {}
    for i, (label, change) in enumerate(REQUESTS.items()):
        body = {**json.loads(base["body"]), **change}
        path = work / f"event{i}.json"
        path.write_text(json.dumps({**base, "body": json.dumps(body)}))
        out[label] = path
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True, help="a sam build directory (its EngineLayer, AnalyzeFunction, ...)")
    ap.add_argument("--runs", type=int, default=8)
    args = ap.parse_args()
    build = pathlib.Path(args.build_dir)
    work = pathlib.Path(tempfile.mkdtemp(prefix="kibitz-tbcold-"))
    try:
        paths = events(work)
        python = api.clean_python(sys.executable, work / "clean")
        for path in paths.values():  # a first run brings the files into the page cache
            artifact.run_events(python, build, [path], env=api.DEPLOYED)
        samples = {label: [] for label in paths}
        for _ in range(args.runs):
            for label, path in paths.items():
                facts, result = artifact.run_events(python, build, [path], env=api.DEPLOYED)
                body = json.loads(result["response"]["body"])
                assert result["response"]["statusCode"] == 200, body
                first = result["ms"] - body["time_ms"]
                samples[label].append((facts["init_ms"] + first, facts["init_ms"], first, body["time_ms"],
                                       body.get("tablebase") is not None))
    finally:
        shutil.rmtree(work)
    print(f"| fresh process, built artifact ({args.runs} runs, medians, ms) | cold | import | first - search "
          f"| search time_ms | tablebase |")
    print("|---|---|---|---|---|---|")
    for label, rows in samples.items():
        med = [round(statistics.median(r[i] for r in rows), 1) for i in range(4)]
        print(f"| {label} | {med[0]} | {med[1]} | {med[2]} | {med[3]} | {'yes' if rows[0][4] else 'no'} |")


if __name__ == "__main__":
    main()
