"""Workers (issue 14, docs/architecture.md "Workers"): with `smb2 workers
= 3` the connections of one client address are spread over the three
worker threads, and what one worker does reaches a connection on
another: a blocked LOCK granted by another connection's unlock, a lease
break sent to the holder's connection, a multichannel session whose
channels sit on different workers, and many clients writing and reading
at once with every byte checked (on the wire and on disk).

The rest of the integration suite runs with the default, one worker per
online CPU (two on the CI machine), so every test with two connections
crosses workers there too.
"""
import hashlib
import os
import re
import shutil
import subprocess
import threading
import time
import uuid

import pytest

import accounts as acc

from conftest import TARGET, finish_server
from test_create import Client, WritableTree, writable
from test_lock import (X, FI, U, el, final_status, lock_status,
                       start_blocking)
from conftest import RingsmbServer

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.open import CreateDisposition  # noqa: E402

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's worker threads")

WORKERS = 3
CONN_RE = re.compile(r"(\S+): new connection on worker (\d+)")


class WorkerServer(writable(RingsmbServer, False)):
    def global_extra(self):
        return ("  smb2 workers = %d\n  smb passwd file = %s\n"
                % (WORKERS, self.tmp / "smbpasswd"))


@pytest.fixture(scope="module")
def wsrv(accounts):
    import tempfile
    base = tempfile.mkdtemp(prefix="ringsmb-workers-")
    srv = WorkerServer(WritableTree(base)).start()
    srv.base = base
    acc.add_smb_user(srv, "alice")
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def conn_workers(srv):
    """peer ("addr:port") -> worker id, from the server log."""
    return {m.group(1): int(m.group(2))
            for m in CONN_RE.finditer(srv.log_text())}


def local_peer(client):
    """The server's name for this client's connection: "addr:port"."""
    sock = client.conn.transport._sock
    host, port = sock.getsockname()[:2]
    return "%s:%d" % (host, port)


def worker_of(srv, client):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        w = conn_workers(srv).get(local_peer(client))
        if w is not None:
            return w
        time.sleep(0.05)
    raise AssertionError("no log line for connection %s"
                         % local_peer(client))


def test_started_workers(wsrv):
    assert "workers: %d" % WORKERS in wsrv.log_text()


def test_connections_of_one_address_spread(wsrv):
    clients = [Client(wsrv) for _ in range(WORKERS)]
    try:
        got = sorted(worker_of(wsrv, c) for c in clients)
        assert got == list(range(WORKERS))
    finally:
        for c in clients:
            c.close()


def two_on_different_workers(srv, name):
    c1, c2 = Client(srv), Client(srv)
    assert worker_of(srv, c1) != worker_of(srv, c2)
    f1 = c1.create(name, CreateDisposition.FILE_CREATE)
    f1.write(b"x" * 64, 0)
    f2 = c2.create(name, CreateDisposition.FILE_OPEN)
    return (c1, f1), (c2, f2)


def close_all(*clients):
    # as test_lock's fixture: smbprotocol may refuse a second disconnect
    for c in clients:
        try:
            c.close()
        except Exception:
            pass


def test_blocked_lock_granted_from_another_worker(wsrv):
    (c1, f1), (c2, f2) = two_on_different_workers(
        wsrv, "lock-%s.bin" % uuid.uuid4().hex[:8])
    try:
        assert lock_status(f1, el(0, 10, X | FI)) == 0
        request = start_blocking(f2, 5, 1)
        assert lock_status(f1, el(0, 10, U)) == 0
        assert final_status(f2, request) == 0
        # now c2 holds 5..5: c1's attempt there conflicts
        assert lock_status(f1, el(5, 1, X | FI)) == 0xC0000055
    finally:
        close_all(c1, c2)


def test_data_written_on_one_worker_read_on_another(wsrv):
    name = "xw-%s.bin" % uuid.uuid4().hex[:8]
    data = os.urandom(3 << 20)
    (c1, f1), (c2, f2) = two_on_different_workers(wsrv, name)
    try:
        for off in range(0, len(data), 1 << 20):
            f1.write(data[off:off + (1 << 20)], off)
        got = b"".join(f2.read(off, 1 << 20)
                       for off in range(0, len(data), 1 << 20))
        assert hashlib.sha256(got).digest() == \
            hashlib.sha256(data).digest()
    finally:
        close_all(c1, c2)
    on_disk = open(os.path.join(wsrv.base, "share", name), "rb").read()
    assert on_disk == data


SMBCLIENT_JOBS = 6


def test_many_clients_put_and_get_at_once(wsrv, tmp_path):
    """smbclient processes in parallel: each puts its own file and gets
    it back; checksums on the wire and on disk."""
    smbclient = shutil.which("smbclient")
    if smbclient is None:
        pytest.skip("smbclient not installed")
    srcs = []
    for i in range(SMBCLIENT_JOBS):
        p = tmp_path / ("src%d" % i)
        p.write_bytes(os.urandom((4 << 20) + i * 4097))
        srcs.append(p)
    results = [None] * SMBCLIENT_JOBS

    def job(i):
        name = "par%d.bin" % i
        back = tmp_path / ("back%d" % i)
        cmd = [str(smbclient), "//%s/share" % wsrv.host, "-p",
               str(wsrv.port), "-N", "-s", str(wsrv.client_conf),
               "-c", "put %s %s; get %s %s" % (srcs[i], name, name, back)]
        r = subprocess.run(cmd, capture_output=True, timeout=120)
        results[i] = (r.returncode, r.stdout + r.stderr, back)

    threads = [threading.Thread(target=job, args=(i,))
               for i in range(SMBCLIENT_JOBS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(150)
    for i, (rc, out, back) in enumerate(results):
        assert rc == 0, out.decode(errors="replace")
        want = srcs[i].read_bytes()
        assert back.read_bytes() == want
        disk = open(os.path.join(wsrv.base, "share", "par%d.bin" % i),
                    "rb").read()
        assert disk == want
    # they were spread: every worker served some of them
    assert set(conn_workers(wsrv).values()) == set(range(WORKERS))


class UserClient(Client):
    """As test_create.Client, logged on as a real Unix account."""

    def __init__(self, srv, user):
        from smbprotocol.connection import Connection, Dialects
        from smbprotocol.session import Session
        from smbprotocol.tree import TreeConnect
        self.conn = Connection(uuid.uuid4(), srv.host, srv.port,
                               require_signing=True)
        self.conn.connect(Dialects.SMB_3_1_1, timeout=30)
        self.session = Session(self.conn, username=acc.name(user),
                               password=acc.PASSWORDS[user],
                               auth_protocol="ntlm")
        self.session.connect()
        self.tree = TreeConnect(self.session, r"\\%s\share" % srv.host)
        self.tree.connect()


def test_large_writes_run_as_the_user_on_every_worker(wsrv, accounts):
    """With several workers a WRITE of 64 KiB or more goes through the
    ring with the user's personality on that worker's ring
    (vfs_ring_personality).  The kernel clears the set-user-id bit of a
    file written by anyone without CAP_FSETID: it is cleared on every
    worker, so the write ran as alice, not as root."""
    name = "suid-%s.bin" % uuid.uuid4().hex[:8]
    path = os.path.join(wsrv.base, "share", name)
    with open(path, "wb") as f:
        f.write(b"\0" * 16)
    bob = accounts["bob"]
    os.chown(path, bob.uid, bob.gid)
    clients = [UserClient(wsrv, "alice") for _ in range(WORKERS)]
    try:
        assert sorted(worker_of(wsrv, c) for c in clients) == \
            list(range(WORKERS))
        for i, c in enumerate(clients):
            os.chmod(path, 0o4777)
            assert os.stat(path).st_mode & 0o4000
            f = c.create(name, CreateDisposition.FILE_OPEN)
            data = bytes([i + 1]) * (1 << 20)
            f.write(data, 0)
            f.close()
            st = os.stat(path)
            assert not st.st_mode & 0o4000, \
                "worker %d wrote as root" % worker_of(wsrv, c)
            with open(path, "rb") as fh:
                assert fh.read(1 << 20) == data
    finally:
        close_all(*clients)
