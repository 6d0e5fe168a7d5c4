"""`kibitz serve` as a process of its own on 127.0.0.1, for the load, fault and fuzz runs (and their tests).

    with Served(pollers=2, visibility_timeout=10, dynamodb_faults=0.05) as served:
        served.url                  # http://127.0.0.1:PORT
        served.rss_mb()             # {"serve": MB, "poller <pid>": MB, ...} from /proc
        served.kill_poller()        # SIGKILL one poller (serve starts another, as Lambda would)
    served.log_text()               # everything serve and its pollers wrote on stderr

Its stderr (request lines, the pollers' function logs) goes to a file, read after; the port is a free
one, read from the banner. Stopping is serve's own: SIGTERM, and it stops its pollers and moto. With
dynamodb_faults, serve is run by benchmarks/faults.py, which makes that fraction of moto's DynamoDB calls fail.
"""

import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BANNER_S = 180  # serve imports nothing heavy before its banner, but a poller's cold start is seconds on a busy host


def children(pid):
    """Pids whose parent is pid (from /proc)."""
    out = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def rss_mb(pid):
    """Resident memory of a process in MB (VmRSS), or None when it is gone."""
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class Served:
    def __init__(self, pollers=0, visibility_timeout=None, env=None, quiet=False, dynamodb_faults=None):
        self.pollers, self.visibility_timeout, self.dynamodb_faults = pollers, visibility_timeout, dynamodb_faults
        self.env = {k: v for k, v in os.environ.items() if k not in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL")}
        self.env.update(env or {})
        self.quiet = quiet
        self.log = pathlib.Path(tempfile.mkstemp(prefix="kibitz-serve-", suffix=".log")[1])
        self.proc = self.url = None

    def start(self):
        args = [sys.executable, "-m", "kibitz.cli"]
        if self.dynamodb_faults:
            args = [sys.executable, "-m", "benchmarks.faults", "--dynamodb", str(self.dynamodb_faults)]
        args += ["serve", "--port", "0", "--pollers", str(self.pollers)]
        if self.visibility_timeout is not None:
            args += ["--visibility-timeout", str(self.visibility_timeout)]
        with open(self.log, "a") as log:  # O_APPEND: serve and its pollers share it, and no line overwrites another
            self.proc = subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + BANNER_S
        while time.monotonic() < deadline:
            text = self.log_text()
            m = re.search(r"serving \S+ on (http://127\.0\.0\.1:\d+)", text)
            ready = m and (self.pollers == 0 or "BatchFunction:" in text)
            if ready and len(children(self.proc.pid)) >= self.pollers:
                self.url = m.group(1)
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"kibitz serve exited ({self.proc.returncode}):\n{text[-3000:]}")
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"kibitz serve did not start in {BANNER_S} s:\n{self.log_text()[-3000:]}")

    def poller_pids(self):
        return children(self.proc.pid) if self.proc else []

    def rss_mb(self):
        out = {"serve": rss_mb(self.proc.pid)}
        for pid in self.poller_pids():
            out[f"poller {pid}"] = rss_mb(pid)
        return {k: v for k, v in out.items() if v is not None}

    def kill_poller(self):
        """SIGKILL the first poller, as a crash would; returns its pid (None if there is none)."""
        pids = self.poller_pids()
        if not pids:
            return None
        os.kill(pids[0], signal.SIGKILL)
        return pids[0]

    def log_text(self):
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
