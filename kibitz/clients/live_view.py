"""`kibitz analyze --live`: the analysis through the live stream, its lines redrawn in place as they deepen.

    kibitz analyze FEN --live [--url ws://127.0.0.1:3001/live] [--movetime-ms N] [--multipv N]

Without --url (or $KIBITZ_LIVE_URL) it runs the stack in this process, as `kibitz serve` does (moto for
DynamoDB, the WebSocket route on a free 127.0.0.1 port), and talks to it through the same client
(kibitz/clients/live.py). Ctrl-C sends `stop`: the search answers its best line so far, which is printed
as `kibitz analyze` prints an answer. On a terminal the lines are redrawn in place; otherwise one line
is printed per info message.
"""

import contextlib
import os
import sys
import threading

from kibitz.clients.live import LiveClient, LiveError
from kibitz.clients.text import readable, score_text
from kibitz.local.runtime import quiet_logs
from kibitz.local.services import Services
from kibitz.local.ws_server import LiveServer


def info_lines(info):
    head = (f"depth {info['depth']}/{info['seldepth']}  {info['nodes']:,} nodes  {info['nps']:,} nps  "
            f"{info['time_ms']} ms")
    rows = [head]
    for line in info["lines"]:
        rows.append(f"  {line['multipv']}. {score_text(line['score_white']):>10}  d{line['depth']}  "
                    f"{' '.join(line['pv_san'][:12])}")
    return rows


class Screen:
    """Redraws a block of lines in place on a terminal (ANSI: cursor up, erase down); appends elsewhere."""

    def __init__(self, out=sys.stdout):
        self.out, self.tty, self.height = out, out.isatty(), 0

    def show(self, rows):
        if self.tty:
            if self.height:
                self.out.write(f"\x1b[{self.height}F\x1b[J")
            self.out.write("\n".join(rows) + "\n")
            self.height = len(rows)
        else:
            self.out.write(rows[0] + "  " + (rows[1].strip() if len(rows) > 1 else "") + "\n")
        self.out.flush()


@contextlib.contextmanager
def local_stream():
    """The WebSocket route in this process (embedded moto, the template's functions); yields its URL."""
    services = Services(pollers=0, quiet=True).start(pollers=False)
    try:
        with LiveServer(services.functions, concurrency=1) as live:
            yield live.url
    finally:
        services.stop()


def analyze_live(args, request):
    url = args.url or os.environ.get("KIBITZ_LIVE_URL")
    screen = Screen()
    with contextlib.ExitStack() as stack:
        if not url:
            stack.enter_context(contextlib.redirect_stdout(sys.stderr))  # the functions' logs, not the view
            stack.enter_context(quiet_logs())
            url = stack.enter_context(local_stream())
        client = stack.enter_context(LiveClient(url))
        outcome = {}

        def run():
            try:
                outcome["result"] = client.analyse(request, on_info=lambda info: screen.show(info_lines(info)),
                                                   timeout_s=request.get("movetime_ms", 1000) / 1000 + 60)
            except LiveError as e:
                outcome["error"] = e

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
        except KeyboardInterrupt:
            client.stop()
            worker.join()
    if "error" in outcome:
        print(f"error {outcome['error'].status}: {outcome['error']}", file=sys.stderr)
        return 1
    print(readable(outcome["result"]))
    return 0
