"""The page's first load (issue 14): compressed bytes over the wire, and time until it is interactive,
measured in Debian's chromium against `kibitz serve` on 127.0.0.1.

    .venv/bin/python -m benchmarks.page [--record] [--runs 7]

Each run is a first visit: a new browser context (empty cache), the page loaded from
http://127.0.0.1:PORT/. Bytes: every response's body as sent (gzip where `kibitz serve` compresses, as
API Gateway does with the template's MinimumCompressionSize), plus its headers, summed over the
page and everything it loads before it is interactive. Interactive: the page's own
"kibitz-interactive" performance mark (app/main.js), set once the board is drawn, with its pieces,
and the Analyse button enabled; measured from the navigation's start. The server's first request
also imports PageFunction (its cold start here): the first run is reported on its own.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import threading

from benchmarks.common import ROOT, record, table

COMMAND = "python -m benchmarks.page --record"
CHROMIUM = os.environ.get("KIBITZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GOAL_BYTES = 300 * 1024
GOAL_MS = 1000


def serve():
    """`kibitz serve` on a free port: (process, base URL)."""
    proc = subprocess.Popen([sys.executable, "-m", "kibitz.cli", "serve", "--port", "0", "--pollers", "0"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not m:
        proc.terminate()
        raise SystemExit(f"kibitz serve did not start: {line}")
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # one line per request: keep the pipe empty
    return proc, f"http://127.0.0.1:{m.group(1)}"


def first_visit(browser, url):
    """{sent, body, requests, interactive_ms, dcl_ms, load_ms} of one load with an empty cache."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    responses = []
    page.on("requestfinished", lambda request: responses.append(request))
    page.goto(url + "/")
    page.wait_for_selector("html[data-ready=true]")
    timing = page.evaluate("""() => {
        const nav = performance.getEntriesByType("navigation")[0]
        const mark = performance.getEntriesByName("kibitz-interactive")[0]
        return {interactive: mark.startTime, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd}
    }""")
    sent = body = 0
    for request in responses:
        sizes = request.sizes()
        sent += sizes["responseBodySize"] + sizes["responseHeadersSize"]
        body += len(request.response().body())
    context.close()
    return {"sent": sent, "body": body, "requests": len(responses), "interactive_ms": timing["interactive"],
            "dcl_ms": timing["dcl"], "load_ms": timing["load"]}


def measure(runs):
    from playwright.sync_api import sync_playwright

    proc, url = serve()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                return [first_visit(browser, url) for _ in range(runs)]
            finally:
                browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--record", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    results = measure(args.runs)
    first, rest = results[0], results[1:] or results
    tti = [r["interactive_ms"] for r in rest]
    kb = lambda n: f"{n / 1024:.1f} KB"
    rows = [
        ["bytes sent (compressed, with headers)", kb(first["sent"]), kb(statistics.median(r["sent"] for r in rest)),
         f"≤ {kb(GOAL_BYTES)}", "yes" if max(r["sent"] for r in results) <= GOAL_BYTES else "NO"],
        ["bytes of content (uncompressed)", kb(first["body"]), kb(statistics.median(r["body"] for r in rest)), "", ""],
        ["requests", first["requests"], statistics.median(r["requests"] for r in rest), "", ""],
        ["interactive (board drawn, Analyse enabled)", f"{first['interactive_ms']:.0f} ms",
         f"{statistics.median(tti):.0f} ms (worst {max(tti):.0f})", f"≤ {GOAL_MS} ms",
         "yes" if max(r["interactive_ms"] for r in results) <= GOAL_MS else "NO"],
        ["DOMContentLoaded", f"{first['dcl_ms']:.0f} ms", f"{statistics.median(r['dcl_ms'] for r in rest):.0f} ms",
         "", ""],
        ["load event", f"{first['load_ms']:.0f} ms", f"{statistics.median(r['load_ms'] for r in rest):.0f} ms", "", ""],
    ]
    text = table(["first load of http://127.0.0.1:PORT/", "first run (server cold)",
                  f"median of the next {len(rest)}", "goal", "met"], rows)
    load = os.getloadavg()
    notes = (f"Each run a new browser context (empty cache) in Debian's chromium, headless; `kibitz serve` on "
             f"127.0.0.1, gzip as API Gateway with MinimumCompressionSize 1024. Interactive = the page's "
             f"`kibitz-interactive` mark, from the navigation's start. Load average at the end: {load[0]:.2f} "
             f"(1 min), {load[1]:.2f} (5 min) on {os.cpu_count()} cores.")
    print(text)
    print(notes)
    if args.record:
        record("Page first load (local)", text + "\n\n" + notes, COMMAND)


if __name__ == "__main__":
    main()
