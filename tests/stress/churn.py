"""T5 / G7: connection churn.

Client processes connect, NEGOTIATE and close as fast as they can; every
fourth connection also sets up an anonymous session and a tree connect
before it goes (so sessions and tree connects churn as well).  Closes
alternate between an orderly FIN and an RST (SO_LINGER 0).  The server's
fds (/proc/PID/fd) and RSS (VmRSS) are sampled before, right after and
after a settle period: the fd count must come back to the baseline.
"""
import multiprocessing as mp
import socket
import struct
import time
from collections import Counter

from common import (R, fd_count, probe, rss_kib, settle_fds, start_server,
                    stop_server)

CLIENTS = 3
SETTLE = 30          # seconds the fds get to come back
WITH_SESSION_EVERY = 4


def _negotiate_frame():
    return R.nbt(R.build_header(0, message_id=0) + R.negotiate_body())


def churn_client(port, deadline, out):
    res = Counter()
    neg = _negotiate_frame()
    linger0 = struct.pack("ii", 1, 0)
    i = 0
    while time.monotonic() < deadline:
        i += 1
        try:
            if i % WITH_SESSION_EVERY == 0:
                c = R.Conn("127.0.0.1", port, timeout=10)
                try:
                    c.negotiate()
                    c.session_setup_anonymous()
                    c.tree_connect("share")
                    res["with session"] += 1
                finally:
                    if i % 2:
                        c.sock.setsockopt(socket.SOL_SOCKET,
                                          socket.SO_LINGER, linger0)
                    c.close()
            else:
                s = socket.create_connection(("127.0.0.1", port), 10)
                try:
                    s.sendall(neg)
                    got = s.recv(4096)
                    if len(got) < 4 + 64 or got[4:8] != b"\xfeSMB":
                        res["bad negotiate answer"] += 1
                    if i % 2:
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                     linger0)
                finally:
                    s.close()
            res["connections"] += 1
        except OSError as e:
            res["error %s" % (e.strerror or type(e).__name__)] += 1
            time.sleep(0.01)
        except Exception as e:             # noqa: BLE001
            res["error %s" % type(e).__name__] += 1
    out.put(dict(res))


def run(tree, long_mode, binary):
    seconds = 60 if long_mode else 20
    problems = []
    srv = start_server(tree, binary, "default")
    pid = srv.pid
    time.sleep(1)
    fd0, rss0 = fd_count(pid), rss_kib(pid)
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    t0 = time.monotonic()
    ps = [ctx.Process(target=churn_client, args=(srv.port, t0 + seconds,
                                                 out))
          for _ in range(CLIENTS)]
    for p in ps:
        p.start()
    total = Counter()
    for _ in ps:
        total.update(out.get(timeout=seconds + 60))
    for p in ps:
        p.join(30)
    elapsed = time.monotonic() - t0
    fd1, rss1 = fd_count(pid), rss_kib(pid)
    fd2 = settle_fds(pid, fd0, SETTLE)
    time.sleep(2)
    fd2, rss2 = fd_count(pid), rss_kib(pid)
    err = probe(srv.port, tree)
    if err:
        problems.append(err)
    stop_server(srv, problems)
    n = total["connections"]
    fig = {"seconds": round(elapsed, 1), "connections": n,
           "with_session": total["with session"],
           "rate": round(n / elapsed), "fds_before": fd0,
           "fds_after": fd1, "fds_settled": fd2, "fd_delta": fd2 - fd0,
           "rss_before_mib": round(rss0 / 1024, 1),
           "rss_after_mib": round(rss1 / 1024, 1),
           "rss_settled_mib": round(rss2 / 1024, 1),
           "rss_delta_mib": round((rss2 - rss0) / 1024, 1),
           "errors": {k: v for k, v in total.items()
                      if k.startswith(("error", "bad"))}}
    print("  churn: %(connections)d connections in %(seconds)s s "
          "(%(rate)d/s, %(with_session)d with a session); fds "
          "%(fds_before)d -> %(fds_after)d -> %(fds_settled)d after "
          "settling; RSS %(rss_before_mib)s -> %(rss_after_mib)s -> "
          "%(rss_settled_mib)s MiB" % fig)
    if fig["errors"]:
        print("    client errors: %s" % fig["errors"])
    if fig["fd_delta"] != 0:
        problems.append("fds did not return to baseline: %d -> %d"
                        % (fd0, fd2))
    if total["bad negotiate answer"]:
        problems.append("%d bad NEGOTIATE answers"
                        % total["bad negotiate answer"])
    errs = sum(fig["errors"].values())
    if errs > n // 100:
        problems.append("%d client errors in %d connections" % (errs, n))
    return fig, problems
