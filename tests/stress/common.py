"""Shared pieces of `make stress` (tests/stress/run.py): servers started
with the integration suite's helpers (tests/integration/conftest.py), the
server process sampled through /proc, a health probe, and bounded loops.

Everything talks to 127.0.0.1 only.  A part returns a dict of figures
(printed by the runner and written to docs/reliability.md) and a list of
problems; a non-empty list fails `make stress`.
"""
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

import rawsmb as R                                       # noqa: E402
from conftest import (RingsmbServer, SANITIZER_MARKERS,  # noqa: E402
                      ShareTree)

RELEASE_SMBD = REPO / "bin" / "smbd"
ASAN_SMBD = REPO / "build-asan" / "source3" / "smbd" / "smbd"


class StressServer(RingsmbServer):
    """conftest's RingsmbServer with the binary chosen per part (the
    release build for rates, the ASan+UBSan build for the races)."""

    def __init__(self, tree, binary, variant="default", extra_global=None,
                 shares=None):
        super().__init__(tree, variant, extra_global, shares)
        self.binary = Path(binary)

    def command(self):
        return [str(self.binary), "-F", "--debug-stdout", "-d", "1",
                "-s", str(self.conf)]

    def env(self):
        env = super().env()
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        return env

    @property
    def pid(self):
        return self.proc.pid

    def sanitizer_reports(self):
        text = self.log_text()
        return sum(text.count(m) for m in SANITIZER_MARKERS)


def start_server(tree, binary, variant="default", extra_global=None,
                 shares=None):
    srv = StressServer(tree, binary, variant, extra_global, shares)
    return srv.start()


def stop_server(srv, problems, keep_log_on_error=True):
    """Stop srv; its problems (crash, exit code, sanitizer report) go to
    problems.  The temporary directory is kept when something is wrong,
    so the log can be read."""
    p = srv.stop()
    problems.extend(p)
    if p and keep_log_on_error:
        print("  server log kept: %s" % srv.log_path)
        print("\n".join("  | " + l for l in srv.log_tail(30).splitlines()))
    else:
        srv.cleanup()


# ------------------------------------------------------------- /proc samples

def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """utime + stime of the whole process (all threads)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick


def sample(pid):
    return {"t": time.monotonic(), "fds": fd_count(pid),
            "rss_kib": rss_kib(pid)}


def settle_fds(pid, baseline, limit):
    """Wait (at most limit seconds) for the fd count to come back to
    baseline; returns the last count."""
    deadline = time.monotonic() + limit
    n = fd_count(pid)
    while n != baseline and time.monotonic() < deadline:
        time.sleep(0.25)
        n = fd_count(pid)
    return n


def slope_per_10min(points):
    """Least-squares slope of [(seconds, value)], per 600 s."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return 0.0
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    return sxy / sxx * 600.0


# --------------------------------------------------------------- the probe

def probe(port, tree):
    """RELIABILITY.md's health probe: a fresh client completes NEGOTIATE,
    SESSION_SETUP, TREE_CONNECT and a READ of probe.txt.  Returns None or
    what went wrong."""
    from conftest import PROBE_DATA, PROBE_NAME
    try:
        with R.Conn("127.0.0.1", port, timeout=10) as c:
            c.negotiate()
            c.session_setup_anonymous()
            c.tree_connect("share")
            fid = c.create(PROBE_NAME)
            data = c.read(fid)
            c.close_file(fid)
        if data != PROBE_DATA:
            return "probe read %r" % data[:40]
        return None
    except Exception as e:                 # noqa: BLE001 (report any)
        return "probe failed: %s: %s" % (type(e).__name__, e)


def make_tree(base):
    """The integration suite's share tree (probe.txt and friends), less
    the 100 MiB file and the 5,000-file folder nobody here reads."""
    tree = ShareTree(base)
    import conftest
    saved = (dict(conftest.DATA_FILES), conftest.MANY_COUNT)
    conftest.DATA_FILES.pop("m100.bin", None)
    conftest.MANY_COUNT = 10
    try:
        tree.build()
    finally:
        conftest.DATA_FILES.clear()
        conftest.DATA_FILES.update(saved[0])
        conftest.MANY_COUNT = saved[1]
    return tree


def machine():
    import platform
    return "%d CPUs (%s), Linux %s" % (
        os.cpu_count(), platform.machine(), platform.release())
