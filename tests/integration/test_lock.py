"""LOCK (MS-SMB2 3.3.5.14, MS-FSA 2.1.5.7) between two connections on a
writable share: conflicts, shared locks, unlock, blocking locks that go
STATUS_PENDING and complete when the range frees (unlock, close, a dropped
connection), CANCEL, the holder's own close, and READ/WRITE against
locks (FILE_LOCK_CONFLICT).

Python smbprotocol as guest, the server from test_create; RINGSMB_TARGET=
samba runs the same against Debian's smbd.  There, a conflicting attempt
from the second connection makes Samba drop the first one's lock as
stale (its brlock checks that the holder's process exists, and in the
fixture's private directories that check fails), so the tests that look
at the holder's lock after a conflict are xfail for Samba; a standalone
Samba 4.17 with a user keeps the lock and answers as ringsmb does.
"""
import time
import uuid

import pytest

import shutil

from conftest import TARGET, finish_server
from test_create import Client, start

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.header import NtStatus  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, LockFlags, SMB2LockElement)

STATUS_FILE_LOCK_CONFLICT = 0xC0000054
STATUS_LOCK_NOT_GRANTED = 0xC0000055
STATUS_RANGE_NOT_LOCKED = 0xC000007E
STATUS_CANCELLED = 0xC0000120
STATUS_INVALID_LOCK_RANGE = 0xC00001A1

X = LockFlags.SMB2_LOCKFLAG_EXCLUSIVE_LOCK
S = LockFlags.SMB2_LOCKFLAG_SHARED_LOCK
U = LockFlags.SMB2_LOCKFLAG_UNLOCK
FI = LockFlags.SMB2_LOCKFLAG_FAIL_IMMEDIATELY
WAIT = 10       # seconds a blocked lock may take to be granted

samba_stale = pytest.mark.xfail(
    TARGET == "samba", strict=False,
    reason="the fixture's Samba drops the holder's lock as stale after "
           "another process's conflicting attempt (see the docstring)")


@pytest.fixture(scope="module")
def wsrv():
    srv, tree, base = start()
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def two(wsrv):
    """Two clients on their own connections, each with the same file open
    for read and write; the file holds 64 bytes."""
    name = "lock-%s.bin" % uuid.uuid4().hex[:8]
    c1, c2 = Client(wsrv), Client(wsrv)
    f1 = c1.create(name, CreateDisposition.FILE_CREATE)
    f1.write(b"x" * 64, 0)
    f2 = c2.create(name, CreateDisposition.FILE_OPEN)
    yield (c1, f1), (c2, f2)
    for c in (c1, c2):
        try:
            c.close()
        except Exception:
            pass


def el(offset, length, flags):
    e = SMB2LockElement()
    e["offset"] = offset
    e["length"] = length
    e["flags"] = flags
    return e


def lock_status(f, *elements):
    try:
        f.lock(list(elements))
    except SMBResponseException as e:
        return e.status
    return 0


def io_status(fn):
    try:
        fn()
    except SMBResponseException as e:
        return e.status
    return 0


def start_blocking(f, offset, length, flags=X):
    """Send a blocking LOCK and wait for its interim STATUS_PENDING.
    (Connection.receive(wait=False) would forget the request, so the
    interim response is watched for here, leaving the request to
    final_status.)"""
    req, _ = f.lock([el(offset, length, flags)], send=False)
    request = f.connection.send(req, f.tree_connect.session.session_id,
                                f.tree_connect.tree_connect_id)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        with request.response_event_lock:
            r = request.response
            if r is not None:
                assert r["status"].get_value() == NtStatus.STATUS_PENDING
                request.response_event.clear()
                assert request.async_id
                return request
        time.sleep(0.01)
    raise AssertionError("no interim response to a blocking LOCK")


def final_status(f, request):
    try:
        f.connection.receive(request, timeout=WAIT)
    except SMBResponseException as e:
        return e.status
    return 0


@samba_stale
def test_exclusive_conflicts_across_connections(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    assert lock_status(f2, el(5, 1, X | FI)) == STATUS_LOCK_NOT_GRANTED
    assert lock_status(f2, el(9, 10, S | FI)) == STATUS_LOCK_NOT_GRANTED
    assert lock_status(f2, el(10, 10, X | FI)) == 0     # adjacent
    assert lock_status(f1, el(0, 10, X | FI)) == STATUS_LOCK_NOT_GRANTED


def test_shared_with_shared(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, S | FI)) == 0
    assert lock_status(f2, el(0, 10, S | FI)) == 0
    assert lock_status(f2, el(0, 10, X | FI)) == STATUS_LOCK_NOT_GRANTED


def test_unlock_then_lock(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    assert lock_status(f1, el(0, 5, U)) == STATUS_RANGE_NOT_LOCKED
    assert lock_status(f1, el(0, 10, U)) == 0
    assert lock_status(f1, el(0, 10, U)) == STATUS_RANGE_NOT_LOCKED
    assert lock_status(f2, el(0, 10, X | FI)) == 0


def test_array_is_all_or_nothing(two):
    (_, f1), (_, f2) = two
    assert lock_status(f2, el(40, 1, S | FI)) == 0
    assert lock_status(f1, el(0, 10, X | FI), el(40, 1, X | FI)) == \
        STATUS_LOCK_NOT_GRANTED
    # element 0 was undone: f2 may take its range
    assert lock_status(f2, el(0, 10, X | FI)) == 0


def test_range_wrapping_past_2_64(two):
    (_, f1), _ = two
    assert lock_status(f1, el(2**64 - 1, 2, X | FI)) == \
        STATUS_INVALID_LOCK_RANGE
    assert lock_status(f1, el(2**64 - 1, 1, X | FI)) == 0


@samba_stale
def test_blocking_lock_granted_on_unlock(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    request = start_blocking(f2, 5, 1)
    assert lock_status(f1, el(0, 10, U)) == 0
    assert final_status(f2, request) == 0
    assert lock_status(f1, el(5, 1, S | FI)) == STATUS_LOCK_NOT_GRANTED


def test_blocking_lock_granted_on_close(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    request = start_blocking(f2, 0, 10)
    f1.close()
    assert final_status(f2, request) == 0


def test_blocking_lock_granted_when_holder_drops(two):
    (c1, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    request = start_blocking(f2, 0, 10)
    c1.conn.disconnect(False)       # no CLOSE, no LOGOFF: a dropped socket
    assert final_status(f2, request) == 0


@samba_stale
def test_cancel_pending_lock(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    request = start_blocking(f2, 0, 10)
    request.cancel()
    assert final_status(f2, request) == STATUS_CANCELLED
    # the cancelled wait holds nothing and is not granted later
    assert lock_status(f1, el(0, 10, U)) == 0
    assert lock_status(f1, el(0, 10, X | FI)) == 0


@samba_stale
def test_own_close_ends_pending_lock(two, wsrv):
    """Samba and Windows answer RANGE_NOT_LOCKED to a wait whose own handle
    is closed; the CLOSE itself succeeds."""
    (_, f1), (c2, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    request = start_blocking(f2, 0, 10)
    f2.close()
    assert final_status(f2, request) == STATUS_RANGE_NOT_LOCKED
    # nothing was granted to the closed handle
    assert lock_status(f1, el(0, 10, U)) == 0


def test_read_write_against_exclusive_lock(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(0, 10, X | FI)) == 0
    assert io_status(lambda: f2.read(5, 1)) == STATUS_FILE_LOCK_CONFLICT
    assert io_status(lambda: f2.write(b"y", 9)) == STATUS_FILE_LOCK_CONFLICT
    assert io_status(lambda: f2.read(10, 10)) == 0
    assert io_status(lambda: f2.write(b"y", 10)) == 0
    # the holder's own I/O passes its exclusive lock
    assert io_status(lambda: f1.read(0, 10)) == 0
    assert io_status(lambda: f1.write(b"z", 0)) == 0


@samba_stale
def test_read_write_against_shared_lock(two):
    (_, f1), (_, f2) = two
    assert lock_status(f1, el(20, 10, S | FI)) == 0
    assert io_status(lambda: f2.read(20, 10)) == 0
    assert io_status(lambda: f2.write(b"y", 25)) == STATUS_FILE_LOCK_CONFLICT
    # a shared lock blocks even its holder's writes (MS-FSA 2.1.4.10)
    assert io_status(lambda: f1.write(b"y", 25)) == STATUS_FILE_LOCK_CONFLICT
    assert lock_status(f1, el(20, 10, U)) == 0
    assert io_status(lambda: f2.write(b"y", 25)) == 0


def test_locks_released_when_connection_drops(two, wsrv):
    (c1, f1), (_, f2) = two
    assert lock_status(f1, el(0, 64, X | FI)) == 0
    c1.conn.disconnect(False)
    deadline = time.monotonic() + WAIT
    while lock_status(f2, el(0, 64, X | FI)) != 0:
        assert time.monotonic() < deadline, "locks outlived the connection"
        time.sleep(0.05)
    assert io_status(lambda: f2.read(0, 64)) == 0
