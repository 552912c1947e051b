"""Directory leases (MS-SMB2 3.3.1.4, 3.3.5.9.11; smbtorture
smb2.lease.v2_request) and the `smb2 leases` switch, with raw v2 lease
contexts from smbprotocol (test_lease.py builds and reads them).

A directory opened with a v2 RqLs context gets R or RH, never W.  A
change of an entry inside it (created, renamed in or out, deleted, its
attributes set, written and then closed) breaks its lease to none
without waiting for the acknowledgment, unless the change came through
an open whose ParentLeaseKey is the directory's lease key (from the
same client).  With `smb2 leases = no` neither SMB2_GLOBAL_CAP_LEASING
nor SMB2_GLOBAL_CAP_DIRECTORY_LEASING is announced and RqLs is ignored.
"""
import shutil
import struct
import tempfile
import time
import uuid

import pytest

from conftest import TARGET, RingsmbServer, finish_server
from test_create import SHARE_ALL, WritableTree, writable
from test_lease import (  # noqa: F401  (osrv, two are fixtures)
    ACK_REQUIRED, LEASE, R, H, W, LClient, lease_of, osrv, rqls, two,
    waits_for_handle_break)
from test_oplock import A
from test_setinfo import rename_buf, set_info as si

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open)

pytestmark = pytest.mark.skipif(
    TARGET != "ringsmb", reason="Samba 4.17 grants no directory leases")

CAP_LEASING, CAP_DIRECTORY_LEASING = 0x02, 0x20
FILE_BASIC_INFORMATION = 4
FILE_RENAME_INFORMATION = 10
FILE_DISPOSITION_INFORMATION = 13


def key():
    return uuid.uuid4().bytes


def fresh(prefix="dl"):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])


def dcreate(c, name, k, state, epoch=0, parent=None,
            disp=CreateDisposition.FILE_OPEN_IF):
    """A directory opened with a v2 lease request: (Open, lease)."""
    f = Open(c.tree, name)
    ctxs = f.create(ImpersonationLevel.Impersonation,
                    A.FILE_READ_ATTRIBUTES | A.FILE_READ_DATA,
                    FileAttributes.FILE_ATTRIBUTE_DIRECTORY, SHARE_ALL,
                    disp, CreateOptions.FILE_DIRECTORY_FILE,
                    oplock_level=LEASE,
                    create_contexts=[rqls(k, state, True, epoch, parent)])
    return f, lease_of(ctxs)


def mkdir(c, name):
    """A directory, made without a lease."""
    d = Open(c.tree, name)
    d.create(ImpersonationLevel.Impersonation, A.FILE_READ_ATTRIBUTES,
             FileAttributes.FILE_ATTRIBUTE_DIRECTORY, SHARE_ALL,
             CreateDisposition.FILE_CREATE,
             CreateOptions.FILE_DIRECTORY_FILE)
    d.close()
    return name


def child(c, dirname, parent=None, disp=CreateDisposition.FILE_CREATE,
          access=A.GENERIC_READ | A.GENERIC_WRITE | A.DELETE):
    """A file in dirname, with a lease naming parent (or none)."""
    f, _ = c.lcreate("%s\\%s" % (dirname, fresh("f")), key(), R | H,
                     parent=parent, disp=disp, access=access)
    return f


def broke(c, k, old, epoch):
    """The directory lease k was broken from old to none, as expected."""
    b = c.breaks.get()
    assert b is not None, "no lease break notification"
    assert b["key"] == k
    assert (b["current"], b["new"]) == (old, 0)
    assert b["flags"] == (ACK_REQUIRED if old & H else 0)
    assert b["epoch"] == epoch
    if old & H:
        assert c.lack(k, 0) == (0, 0)


def test_capabilities(two):
    c1, _ = two
    assert c1.conn.server_capabilities.get_value() & CAP_LEASING
    assert c1.conn.server_capabilities.get_value() & CAP_DIRECTORY_LEASING


@pytest.mark.parametrize("asked,granted", [
    (R, R), (R | H, R | H), (R | H | W, R | H), (R | W, R), (H, 0),
    (W, 0), (0, 0)])
def test_directory_grant(two, asked, granted):
    c1, _ = two
    k = key()
    d, ls = dcreate(c1, fresh(), k, asked, epoch=3)
    assert d.oplock_level == LEASE
    assert ls == (k, granted, 0, 4)
    d.close()


def test_two_clients_share_rh(two):
    c1, c2 = two
    name, k1, k2 = fresh(), key(), key()
    d1, ls1 = dcreate(c1, name, k1, R | H)
    d2, ls2 = dcreate(c2, name, k2, R | H)
    assert (ls1[1], ls2[1]) == (R | H, R | H)
    assert c1.breaks.get(timeout=0.5) is None
    d2.close()
    d1.close()


def test_new_entry_breaks_without_waiting(two):
    c1, c2 = two
    name, k = fresh(), key()
    d, ls = dcreate(c1, name, k, R | H, epoch=1)
    assert ls[1] == R | H and ls[3] == 2
    # the same client without a parent key: broken, and not waited for
    t0 = time.monotonic()
    f = child(c1, name)
    assert time.monotonic() - t0 < 1.0, "the CREATE waited for the ack"
    broke(c1, k, R | H, 3)
    f.close()
    # the same key again: upgraded from none, the epoch moves on
    d2, ls = dcreate(c1, name, k, R | H | W)
    assert ls[1] == R | H and ls[3] == 4
    # another client's new entry
    f = child(c2, name)
    broke(c1, k, R | H, 5)
    f.close()
    d2.close()
    d.close()


def test_read_only_lease_broken_without_ack(two):
    c1, c2 = two
    name, k = fresh(), key()
    d, _ = dcreate(c1, name, k, R)
    f = child(c2, name)
    broke(c1, k, R, 2)
    f.close()
    d.close()


def test_parent_key_of_same_client_does_not_break(two):
    c1, c2 = two
    name, k = fresh(), key()
    d, _ = dcreate(c1, name, k, R | H)
    f = child(c1, name, parent=k)
    assert c1.breaks.get(timeout=0.5) is None
    f.close()
    # another client naming the same key is not the lease's client
    f = child(c2, name, parent=k)
    broke(c1, k, R | H, 2)
    f.close()
    d.close()


def set_info(c, f, cls, buf):
    return si(c.tree, f, cls, buf)


HIDDEN = struct.pack("<QQQQII", 0, 0, 0, 0, 0x2, 0)
# a change of an entry through c2's open f, and whether the directory's
# lease is broken only when f is closed (a WRITE, a delete-pending set)
# or at once (attributes)
CHANGES = {
    "write": (lambda c, f: f.write(b"data", 0) and 0, True),
    "basic": (lambda c, f: set_info(c, f, FILE_BASIC_INFORMATION,
                                    HIDDEN), False),
    "delete": (lambda c, f: set_info(c, f, FILE_DISPOSITION_INFORMATION,
                                     b"\x01"), True),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_entry_change_breaks(two, change):
    c1, c2 = two
    do, at_close = CHANGES[change]
    name, k = mkdir(c1, fresh()), key()
    f = child(c2, name)
    d, _ = dcreate(c1, name, k, R | H)
    assert do(c2, f) == 0
    if at_close:
        assert c1.breaks.get(timeout=0.5) is None, "broken before close"
        f.close()
    broke(c1, k, R | H, 2)
    if not at_close:
        f.close()
    d.close()


def test_rename_out_and_in_breaks_both(two):
    c1, c2 = two
    src, dst, k1, k2 = mkdir(c1, fresh()), fresh(), key(), key()
    d2, _ = dcreate(c1, dst, k2, R | H)    # created first: not broken
    f = child(c2, src)
    d1, _ = dcreate(c1, src, k1, R | H)
    target = "%s\\moved" % dst
    assert set_info(c2, f, FILE_RENAME_INFORMATION,
                    rename_buf(target)) == 0
    seen = {}
    for _ in range(2):
        b = c1.breaks.get()
        assert b is not None, "a directory lease was not broken"
        seen[b["key"]] = (b["current"], b["new"])
        assert c1.lack(b["key"], 0) == (0, 0)
    assert seen == {k1: (R | H, 0), k2: (R | H, 0)}
    f.close()
    d1.close()
    d2.close()


def test_directory_rename_waits_for_handle_break(two):
    """The directory's own rename by another client takes H and waits."""
    c1, c2 = two
    name, k = fresh(), key()
    d1, _ = dcreate(c1, name, k, R | H)
    d2 = Open(c2.tree, name)
    d2.create(ImpersonationLevel.Impersonation,
              A.FILE_READ_ATTRIBUTES | A.DELETE,
              FileAttributes.FILE_ATTRIBUTE_DIRECTORY, SHARE_ALL,
              CreateDisposition.FILE_OPEN,
              CreateOptions.FILE_DIRECTORY_FILE)
    waits_for_handle_break(c1, k, "rename", lambda: si(
        c2.tree, d2, FILE_RENAME_INFORMATION, rename_buf(fresh())))
    d2.close()
    d1.close()


# ---- smb2 leases = no ----

@pytest.fixture(scope="module")
def noleases():
    base = tempfile.mkdtemp(prefix="ringsmb-dirlease-")
    srv = writable(RingsmbServer, False)(
        WritableTree(base), extra_global={"smb2 leases": "no"}).start()
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def test_leases_off(noleases):
    c = LClient(noleases)
    try:
        caps = c.conn.server_capabilities.get_value()
        assert not caps & (CAP_LEASING | CAP_DIRECTORY_LEASING)
        f, ls = c.lcreate(fresh(), key(), R | H | W)
        assert f.oplock_level == 0 and ls is None
        f.close()
        d, ls = dcreate(c, fresh(), key(), R | H)
        assert d.oplock_level == 0 and ls is None
        d.close()
    finally:
        c.close()


def test_no_directory_leasing_unless_offered(osrv):
    """As Samba and Windows: a client that does not offer
    DIRECTORY_LEASING (smbprotocol's default, impacket) is not told the
    server has it, and its directory opens get no lease."""
    from test_oplock import OClient
    c = OClient(osrv)
    try:
        caps = c.conn.server_capabilities.get_value()
        assert caps & CAP_LEASING and not caps & CAP_DIRECTORY_LEASING
    finally:
        c.conn.disconnect(True)
