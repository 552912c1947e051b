"""T10: teardown with work pending (RELIABILITY.md item 42), under the
ASan+UBSan build.  Each iteration, on an anonymous connection to a
writable share:

    a blocking LOCK that waits for another connection's lock (async,
    STATUS_PENDING), a CHANGE_NOTIFY on the share's root (async), a
    CANCEL of a MessageId nobody sent, a 1 MiB READ, and the first half
    of a 1 MiB WRITE; then an RST.

After all iterations, with no client left: the rings' in-flight
operations and the server's open files, connections and descriptors
are back to what they were before (metrics endpoint, /proc), the log has
no sanitizer report, and the health probe passes.
"""
import os
import socket
import struct
import tempfile
import time
import urllib.request

from common import R, fd_count, probe, start_server, stop_server

from conftest import free_port                            # noqa: E402

GENERIC_RW = 0x0012019F
PENDING = R.STATUS["STATUS_PENDING"]


def metrics(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                timeout=10) as r:
        out = {}
        for line in r.read().decode().splitlines():
            if line and not line.startswith("#") and "{" not in line:
                k, v = line.split()[:2]
                out[k] = float(v)
        return out


GAUGES = ("ringsmb_uring_inflight", "ringsmb_open_files",
          "ringsmb_connections", "ringsmb_sessions")


def conn(port):
    c = R.Conn("127.0.0.1", port, timeout=10)
    c.negotiate()
    c.session_setup_anonymous()
    c.tree_connect("rw")
    c.expect(c.request("ECHO", credit_request=64))
    return c


def lock_body(fid, flags):
    return R.body_for("LOCK", file_id=fid, lock_offset=0, lock_length=1,
                      lock_flags=flags)


def iteration(port, tally):
    c = conn(port)
    fid = c.create("t.bin", desired_access=GENERIC_RW, share_access=7,
                   disposition=3)
    # a blocking exclusive lock on the holder's byte: goes async
    c.send(R.nbt(c.pdu("LOCK", lock_body(fid, 0x02))))
    tally["lock " + c.recv(skip_pending=False)[0].status_name] += 1
    d = c.open_dir("")
    c.send(R.nbt(c.pdu("CHANGE_NOTIFY",
                       R.body_for("CHANGE_NOTIFY", file_id=d))))
    tally["notify " + c.recv(skip_pending=False)[0].status_name] += 1
    # CANCEL of a MessageId never sent: no answer, nothing cancelled
    c.send(R.nbt(c.header(R.CMD["CANCEL"], message_id=1 << 40,
                          credit_charge=0) + R.body_for("CANCEL")))
    c.send(R.nbt(c.pdu("READ", R.read_body(file_id=fid, length=1 << 20))))
    size = 1 << 20
    hdr = c.header(R.CMD["WRITE"], credit_charge=16)
    body = R._pack(R.WRITE_FIELDS, {"length": size, "file_id": fid})
    c.next_mid += 16
    c.send(struct.pack(">I", 64 + len(body) + size) + hdr + body +
           b"\x5a" * (size // 2))
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                      struct.pack("ii", 1, 0))
    c.sock.close()


def settle(port, pid, want, fds0, limit=10):
    deadline = time.monotonic() + limit
    while True:
        m = metrics(port)
        now = {k: m.get(k) for k in GAUGES}
        fds = fd_count(pid)
        if (all(now[k] == want[k] for k in GAUGES) and fds == fds0) or \
                time.monotonic() > deadline:
            return now, fds
        time.sleep(0.1)


def run(tree, long_mode, binary):
    from collections import Counter
    n_iter = 1000 if long_mode else 200
    scratch = tempfile.mkdtemp(prefix="ringsmb-teardown-")
    os.chmod(scratch, 0o755)
    rw = os.path.join(scratch, "rw")
    os.mkdir(rw)
    os.chmod(rw, 0o777)
    mport = free_port()
    problems = []
    srv = start_server(tree, binary, "default",
                       {"metrics listen": "127.0.0.1:%d" % mport},
                       shares=[{"name": "rw", "path": rw,
                                "read_only": False}])
    tally = Counter()
    try:
        # one iteration first: the server's inotify descriptor is made at
        # the first CHANGE_NOTIFY and kept (files/notify.c), not a leak
        iteration(srv.port, Counter())
        time.sleep(1)
        want = {k: metrics(mport).get(k) for k in GAUGES}
        fds0 = fd_count(srv.pid)
        holder = conn(srv.port)
        hfid = holder.create("t.bin", desired_access=GENERIC_RW,
                             share_access=7, disposition=3)
        holder.expect(holder.request("LOCK", lock_body(hfid, 0x12)))
        t0 = time.monotonic()
        done = 0
        for _ in range(n_iter):
            try:
                iteration(srv.port, tally)
                done += 1
            except (R.Disconnected, OSError, R.ProtocolError) as e:
                tally["error %s" % type(e).__name__] += 1
                if not srv.alive():
                    break
        took = time.monotonic() - t0
        # the holder still works, then goes the orderly way
        holder.expect(holder.request("LOCK", lock_body(hfid, 0x04)))
        holder.close_file(hfid)
        holder.close()
        now, fds = settle(mport, srv.pid, want, fds0)
        err = probe(srv.port, tree)
        if err:
            problems.append(err)
    finally:
        reports = srv.sanitizer_reports() if srv.proc else 0
        stop_server(srv, problems)
    fig = {"iterations": done, "seconds": round(took, 1),
           "answers": dict(tally), "before": want, "after": now,
           "fds_before": fds0, "fds_after": fds,
           "sanitizer_reports": reports}
    print("  teardown: %d iterations in %.0f s, %s" % (done, took,
                                                      dict(tally)))
    print("  before / after: %s / %s; fds %d / %d; sanitizer reports %d"
          % (want, now, fds0, fds, reports))
    for k in GAUGES:
        if now[k] != want[k]:
            problems.append("%s: %s before, %s after" % (k, want[k], now[k]))
    if fds != fds0:
        problems.append("fds: %d before, %d after" % (fds0, fds))
    if done < n_iter:
        problems.append("%d of %d iterations done" % (done, n_iter))
    if tally.get("lock STATUS_PENDING", 0) != done or \
            tally.get("notify STATUS_PENDING", 0) != done:
        problems.append("not every LOCK and NOTIFY went async: %s"
                        % dict(tally))
    if reports:
        problems.append("%d sanitizer reports" % reports)
    return fig, problems
