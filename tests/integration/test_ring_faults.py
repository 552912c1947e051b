"""The ring itself failing under the server (RELIABILITY.md §2, issue 17):
vfs_error's `error:ring` (docs/vfs.md) hands the call to vfs_io_uring
below it with a fault armed on the worker's ring (lib/uring,
uring_fault_arm), so the kernel is asked for something else in its place:

- `error:ring = eagain`: the completion says -EAGAIN and nothing was read
  or written.  vfs_io_uring tries the call once more through vfs_default
  (it blocks, or hands the call to a thread, where the ring would not
  wait): a put and a get of 1 MiB through faulted calls only have
  identical checksums, and FLUSH still succeeds.
- `error:ring = hang`: the CQE never comes (a timeout of a year stands in
  for the read).  A CANCEL of the READ answers STATUS_CANCELLED and the
  ring operation is cancelled in the kernel (the in-flight gauge returns
  to where it was); the connection goes on working.  A client that gives
  up and disconnects leaves nothing behind either: in-flight back to
  its baseline, descriptors back to theirs, the server answering.

The metrics endpoint (docs/admin.md) gives the ring's counters:
ringsmb_uring_faults_total counts what was faulted, so a test that would
pass with the fault missing fails instead.  ringsmb only.
"""
import hashlib
import os
import shutil
import time
import urllib.request

import pytest

from conftest import (TARGET, finish_server, free_port, make_scratch_dir,
                      make_server, scratch_file, sha256_file)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.exceptions import SMBResponseException  # noqa: E402

from test_write import Client  # noqa: E402

if TARGET != "ringsmb":
    pytest.skip("vfs_error is ringsmb's module", allow_module_level=True)

STATUS_CANCELLED = 0xC0000120
KiB = 1024
CHUNK = 64 * KiB
WAIT = 10               # seconds: every wait below is bounded by it


@pytest.fixture(scope="module")
def rsrv(share_tree):
    base, d = make_scratch_dir("ringsmb-ringfaults-")
    port = free_port()

    def share(name, **params):
        p = {"error:%s" % k: v for k, v in params.items()}
        p["vfs objects"] = "error io_uring"
        return {"name": name, "path": d, "read_only": False, "params": p}
    srv = make_server(share_tree, "default", {
        "metrics listen": "127.0.0.1:%d" % port,
        "io_uring": "yes",
    }, shares=[
        share("again", ops="pread pwrite fsync", ring="eagain"),
        # the 2nd READ of each connection hangs; the 1st shows it works
        share("hang", ops="pread", ring="hang", nth="2", times="1"),
        share("plain"),
    ])
    srv.metrics_port = port
    srv.wdir = d
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def metric(srv, name):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics"
                                % srv.metrics_port, timeout=WAIT) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise KeyError(name)


def wait_metric(srv, name, want):
    """The gauge reaches want within WAIT seconds; its last value."""
    deadline = time.monotonic() + WAIT
    while True:
        v = metric(srv, name)
        if v == want or time.monotonic() > deadline:
            return v
        time.sleep(0.05)


def server_fds(srv):
    return len(os.listdir("/proc/%d/fd" % srv.proc.pid))


def settled_fds(srv):
    """The server's descriptor count once the sockets of earlier clients
    and metric scrapes have closed: unchanged for 0.5 s (bounded)."""
    deadline = time.monotonic() + WAIT
    last, since = server_fds(srv), time.monotonic()
    while time.monotonic() - since < 0.5 and time.monotonic() < deadline:
        time.sleep(0.05)
        now = server_fds(srv)
        if now != last:
            last, since = now, time.monotonic()
    return last


def ring_is_on(srv):
    if "io_uring: on" not in srv.log_text():
        pytest.skip("io_uring is not available here: no ring to fault")


def test_eagain_from_the_ring_is_retried(rsrv):
    """Every pread, pwrite and fsync of the share gets -EAGAIN from the
    ring: the data still goes both ways exactly."""
    ring_is_on(rsrv)
    data = os.urandom(1024 * KiB)
    p = scratch_file(rsrv.wdir, "again.bin")
    faults0 = metric(rsrv, "ringsmb_uring_faults_total")
    with Client(rsrv.port, share="again") as c:
        f = c.open(p.name)
        for off in range(0, len(data), CHUNK):
            assert f.write(data[off:off + CHUNK], off) == CHUNK
        f.flush()
        assert f.write(b"sync", len(data), write_through=True) == 4
        got = b"".join(f.read(off, CHUNK)
                       for off in range(0, len(data), CHUNK))
        f.close()
    assert hashlib.sha256(got).digest() == hashlib.sha256(data).digest()
    assert sha256_file(p) == hashlib.sha256(data + b"sync").hexdigest()
    # 17 writes and 16 reads: each SQE faulted, tried twice more on the
    # ring (lib/uring), then through vfs_default; 2 fsyncs: once each
    faulted = metric(rsrv, "ringsmb_uring_faults_total") - faults0
    assert faulted == 3 * (17 + 16) + 2, faulted
    assert wait_metric(rsrv, "ringsmb_uring_inflight", 0) == 0


def start_read(c, f, off, length):
    """Send a READ without waiting: (request, receive function)."""
    msg, recv = f.read(off, length, send=False)
    req = c.conn.send(msg, sid=c.sess.session_id, tid=c.tree.tree_connect_id)
    return req, recv


def test_cancel_of_a_hung_read(rsrv):
    """The 2nd READ's CQE never comes: CANCEL answers it with
    STATUS_CANCELLED, the ring operation is gone, the next READ works."""
    ring_is_on(rsrv)
    data = os.urandom(256 * KiB)
    p = scratch_file(rsrv.wdir, "hang.bin", data)
    faults0 = metric(rsrv, "ringsmb_uring_faults_total")
    with Client(rsrv.port, share="hang") as c:
        f = c.open(p.name)
        assert f.read(0, CHUNK) == data[:CHUNK]
        # the connection's own receive is in flight too
        inflight0 = metric(rsrv, "ringsmb_uring_inflight")
        req, recv = start_read(c, f, CHUNK, CHUNK)
        # it hangs: no answer, one more operation in flight than before
        assert not req.response_event.wait(0.5)
        assert metric(rsrv, "ringsmb_uring_faults_total") == faults0 + 1
        assert metric(rsrv, "ringsmb_uring_inflight") >= inflight0 + 1
        req.cancel()
        assert req.response_event.wait(WAIT), "CANCEL left it unanswered"
        with pytest.raises(SMBResponseException) as e:
            recv(req)
        assert e.value.status == STATUS_CANCELLED
        assert wait_metric(rsrv, "ringsmb_uring_inflight", inflight0) == \
            inflight0
        # error:times = 1: the connection reads on
        assert f.read(CHUNK, CHUNK) == data[CHUNK:2 * CHUNK]
        f.close()


def test_disconnect_with_a_hung_read(rsrv):
    """A client that gives up on a READ that never completes and drops
    the connection: the ring operation is cancelled, the server's
    descriptors return to their number, other clients are served."""
    ring_is_on(rsrv)
    data = os.urandom(128 * KiB)
    p = scratch_file(rsrv.wdir, "hang-drop.bin", data)
    inflight0 = wait_metric(rsrv, "ringsmb_uring_inflight", 0)
    fds0 = settled_fds(rsrv)
    for _ in range(3):
        c = Client(rsrv.port, share="hang")
        f = c.open(p.name)
        assert f.read(0, CHUNK) == data[:CHUNK]
        req, _ = start_read(c, f, CHUNK, CHUNK)
        assert not req.response_event.wait(0.3)
        c.conn.disconnect(False)            # no LOGOFF: gone
    assert wait_metric(rsrv, "ringsmb_uring_inflight", inflight0) == \
        inflight0
    deadline = time.monotonic() + WAIT
    while server_fds(rsrv) != fds0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_fds(rsrv) == fds0
    with Client(rsrv.port, share="plain") as c:
        f = c.open(p.name)
        assert f.read(0, len(data)) == data
        f.close()
