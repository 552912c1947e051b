"""Leases (MS-SMB2 3.3.5.9.8, 3.3.5.9.11, 3.3.4.7, 3.3.5.22.2) between two
smbprotocol connections on a writable share: the state CREATE grants
(read from the response's RqLs context), the Lease Break Notification a
second connection's open sends the holder (its new state, epoch and
flags), the opener waiting for the acknowledgment, the acknowledgment's
answers and errors, breaks by WRITE without an acknowledgment, the break
timeout, oplocks next to leases, and a rename waiting for the handle
caching it takes from another lease.

The server and the client helpers are test_oplock.py's (its docstring
says why breaks are collected under MessageId 0xFFFFFFFFFFFFFFFF, and why
Samba's fixture sends none: those tests are xfail for Samba).
"""
import struct
import time
import uuid

import pytest

from test_oplock import (  # noqa: F401  (osrv is a fixture)
    BATCH, BREAK_TIMEOUT, NONE, UNSOLICITED, WAIT, Background, Breaks,
    OClient, osrv, samba_stale)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.create_contexts import (  # noqa: E402
    CreateContextName, SMB2CreateContextRequest)
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.header import Commands  # noqa: E402
from smbprotocol.open import CreateDisposition  # noqa: E402

LEASE = 0xFF
R, H, W = 0x1, 0x2, 0x4
ACK_REQUIRED = 0x1
BREAK_IN_PROGRESS = 0x2
PARENT_KEY_SET = 0x4
STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_UNSUCCESSFUL = 0xC0000001
STATUS_REQUEST_NOT_ACCEPTED = 0xC00000D0


def rqls(key, state, v2=False, epoch=0, parent=None):
    """An RqLs context (2.2.13.2.8 / 2.2.13.2.10)."""
    data = struct.pack("<16sIIQ", key, state,
                       PARENT_KEY_SET if parent else 0, 0)
    if v2:
        data += struct.pack("<16sHH", parent or b"\0" * 16, epoch, 0)
    c = SMB2CreateContextRequest()
    c["buffer_name"] = CreateContextName.SMB2_CREATE_REQUEST_LEASE
    c["buffer_data"] = data
    return c


def lease_of(ctxs):
    """(key, state, flags, epoch or None) of the response's RqLs."""
    for c in ctxs or []:
        raw = c if isinstance(c, bytes) else c.pack()
        if len(raw) in (32, 52):
            key, state, flags = struct.unpack("<16sII", raw[:24])
            epoch = struct.unpack("<H", raw[48:50])[0] \
                if len(raw) == 52 else None
            return key, state, flags, epoch
    return None


class LeaseBreaks(Breaks):
    """Lease Break Notifications (2.2.23.2) of one connection."""

    def get(self, timeout=WAIT):
        try:
            h = self.queue.get(timeout=timeout)
        except Exception:
            return None
        body = h["data"].get_value()
        size, epoch, flags, key, cur, new = struct.unpack(
            "<HHI16sII", body[:32])
        assert size == 44 and len(body) >= 44
        return {"hdr": h, "epoch": epoch, "flags": flags, "key": key,
                "current": cur, "new": new}


class LeaseAck:
    """Lease Break Acknowledgment (2.2.24.2)."""
    COMMAND = Commands.SMB2_OPLOCK_BREAK

    def __init__(self, key, state):
        self.data = struct.pack("<HHI16sIQ", 36, 0, 0, key, state, 0)

    def pack(self):
        return self.data

    def __len__(self):
        return len(self.data)


class LClient(OClient):
    # as Windows asks: LEASING | DIRECTORY_LEASING (a server grants
    # directory leases only to a client that offers the capability)
    extra_caps = 0x02 | 0x20

    def __init__(self, srv):
        super().__init__(srv)
        del self.conn.outstanding_requests[UNSOLICITED]
        self.breaks = LeaseBreaks(self.conn)

    def lcreate(self, name, key, state, v2=True, epoch=0, parent=None,
                disp=CreateDisposition.FILE_OPEN_IF, **kw):
        """(Open, lease tuple or None)."""
        from smbprotocol.open import (
            CreateOptions, FileAttributes, ImpersonationLevel, Open)
        from test_oplock import A, SHARE_ALL
        f = Open(self.tree, name)
        ctxs = f.create(ImpersonationLevel.Impersonation,
                        kw.get("access", A.GENERIC_READ | A.GENERIC_WRITE),
                        FileAttributes.FILE_ATTRIBUTE_NORMAL,
                        kw.get("share", SHARE_ALL), disp,
                        CreateOptions.FILE_NON_DIRECTORY_FILE,
                        oplock_level=LEASE,
                        create_contexts=[rqls(key, state, v2, epoch,
                                              parent)])
        return f, lease_of(ctxs)

    def lack(self, key, state):
        """(status, state in the response)."""
        req = self.conn.send(LeaseAck(key, state),
                             self.session.session_id,
                             self.tree.tree_connect_id)
        try:
            r = self.conn.receive(req, timeout=WAIT)
        except SMBResponseException as e:
            return e.status, None
        body = r["data"].get_value()
        assert struct.unpack("<H", body[:2])[0] == 36
        return 0, struct.unpack("<I", body[24:28])[0]


@pytest.fixture
def two(osrv):
    c1, c2 = LClient(osrv), LClient(osrv)
    yield c1, c2
    for c in (c1, c2):
        try:
            c.close()
        except Exception:
            pass


def fresh():
    return "ls-%s.bin" % uuid.uuid4().hex[:8]


def key():
    return uuid.uuid4().bytes


@pytest.mark.parametrize("asked,granted", [
    (0, 0), (R, R), (H, 0), (W, 0), (R | H, R | H), (R | W, R | W),
    (H | W, 0), (R | H | W, R | H | W)])
def test_lone_opener_grant(two, asked, granted):
    c1, _ = two
    k = key()
    f, ls = c1.lcreate(fresh(), k, asked, v2=False)
    assert f.oplock_level == LEASE
    assert ls is not None and ls[0] == k
    assert ls[1] == granted
    assert ls[2] == 0 and ls[3] is None         # v1 answer: 32 bytes
    f.close()


def test_v2_epoch_and_parent(two):
    c1, _ = two
    k, parent = key(), key()
    f, ls = c1.lcreate(fresh(), k, R | H | W, epoch=5, parent=parent)
    assert ls == (k, R | H | W, PARENT_KEY_SET, 6)
    f.close()


def test_same_key_upgrades(two):
    c1, _ = two
    name, k = fresh(), key()
    f1, ls = c1.lcreate(name, k, R, epoch=1)
    assert ls[1] == R and ls[3] == 2
    f2, ls = c1.lcreate(name, k, R | H | W, epoch=1)
    assert ls[1] == R | H | W and ls[3] == 3
    f3, ls = c1.lcreate(name, k, R)             # no downgrade
    assert ls[1] == R | H | W and ls[3] == 3
    for f in (f3, f2, f1):
        f.close()


def test_key_names_one_file(two):
    c1, _ = two
    k = key()
    f, _ = c1.lcreate(fresh(), k, R)
    with pytest.raises(SMBResponseException) as e:
        c1.lcreate(fresh(), k, R)
    assert e.value.status == 0xC000000D         # INVALID_PARAMETER
    f.close()


@samba_stale
def test_break_seen_from_second_connection(two):
    c1, c2 = two
    name, k = fresh(), key()
    f1, ls = c1.lcreate(name, k, R | H | W, epoch=7)
    assert ls[1] == R | H | W and ls[3] == 8
    bg = Background(c2, name, NONE)
    b = c1.breaks.get()
    assert b is not None, "no lease break notification"
    assert b["hdr"]["message_id"].get_value() == UNSOLICITED
    assert b["hdr"]["session_id"].get_value() == 0
    assert b["key"] == k
    assert (b["current"], b["new"]) == (R | H | W, R | H)
    assert b["flags"] == ACK_REQUIRED
    assert b["epoch"] == 9
    time.sleep(0.3)
    assert not bg.done(), "the second CREATE did not wait for the ack"
    # while the break is in flight, the key's state is unchanged
    f3, ls = c1.lcreate(name, k, 0)
    assert ls[1] == R | H | W and ls[2] == BREAK_IN_PROGRESS
    f3.close()
    assert c1.lack(k, R | H) == (0, R | H)
    f2 = bg.join()
    assert f2.oplock_level == NONE
    f3, ls = c1.lcreate(name, k, 0)
    assert ls[1] == R | H and ls[2] == 0
    for f in (f3, f2, f1):
        f.close()


@samba_stale
def test_ack_errors(two):
    c1, c2 = two
    name, k = fresh(), key()
    f1, _ = c1.lcreate(name, k, R | H | W)
    # no break in progress, an unknown key
    assert c1.lack(k, R)[0] == STATUS_UNSUCCESSFUL
    assert c1.lack(key(), R)[0] == STATUS_OBJECT_NAME_NOT_FOUND
    bg = Background(c2, name, NONE,
                    disp=CreateDisposition.FILE_OVERWRITE_IF)
    b = c1.breaks.get()
    assert b is not None and (b["current"], b["new"]) == (R | H | W, 0)
    # more than the break asked for
    assert c1.lack(k, R)[0] == STATUS_REQUEST_NOT_ACCEPTED
    assert c1.lack(k, 0) == (0, 0)
    bg.join().close()
    assert c1.lack(k, 0)[0] == STATUS_UNSUCCESSFUL
    f1.close()


@samba_stale
def test_write_breaks_other_read_lease(two):
    c1, c2 = two
    name, k1, k2 = fresh(), key(), key()
    f1, ls = c1.lcreate(name, k1, R)
    f2, ls2 = c2.lcreate(name, k2, R | W)
    assert ls2[1] == R                          # one writer only
    f2.write(b"x", 0)
    b = c1.breaks.get()
    assert b is not None and b["key"] == k1
    assert (b["current"], b["new"], b["flags"]) == (R, 0, 0)
    assert c2.breaks.get(timeout=0.5) is None   # not its own lease
    f2.close()
    f1.close()


@samba_stale
def test_unacknowledged_break_times_out(two):
    c1, c2 = two
    name, k = fresh(), key()
    f1, _ = c1.lcreate(name, k, R | W)
    t0 = time.monotonic()
    bg = Background(c2, name, NONE)
    assert c1.breaks.get() is not None
    f2 = bg.join()
    assert time.monotonic() - t0 >= BREAK_TIMEOUT - 0.5
    assert c1.lack(k, R)[0] == STATUS_UNSUCCESSFUL
    f3, ls = c1.lcreate(name, k, 0)
    assert ls[1] == 0
    for f in (f3, f2, f1):
        f.close()


def test_no_oplock_next_to_handle_lease(two):
    c1, c2 = two
    name = fresh()
    f1, _ = c1.lcreate(name, key(), R | H)
    f2 = c2.create(name, BATCH)
    assert f2.oplock_level == NONE
    f2.close()
    f1.close()


def waits_for_handle_break(holder, k, what, op):
    """op(), run in a thread, takes H from holder's lease k (R | H): it
    waits for the acknowledgment, then succeeds."""
    import threading
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("status", op()))
    t.start()
    b = holder.breaks.get()
    assert b is not None and b["key"] == k
    assert (b["current"], b["new"], b["flags"]) == (R | H, R, ACK_REQUIRED)
    time.sleep(0.3)
    assert t.is_alive(), "the %s did not wait for the ack" % what
    assert holder.lack(k, R) == (0, R)
    t.join(WAIT)
    assert result.get("status") == 0


@samba_stale
def test_rename_waits_for_handle_break(two):
    from test_setinfo import rename_buf, set_info
    from test_oplock import A
    c1, c2 = two
    name, dst, k1, k2 = fresh(), fresh(), key(), key()
    f1, ls1 = c1.lcreate(name, k1, R | H,
                         access=A.GENERIC_READ | A.GENERIC_WRITE | A.DELETE)
    f2, ls2 = c2.lcreate(name, k2, R | H)
    assert (ls1[1], ls2[1]) == (R | H, R | H)
    waits_for_handle_break(c2, k2, "rename", lambda: set_info(
        c1.tree, f1, 10, rename_buf(dst)))
    assert c1.breaks.get(timeout=0.2) is None   # the renamer's own lease
    f2.close()
    f1.close()


@samba_stale
def test_delete_pending_waits_for_handle_break(two):
    from test_setinfo import set_info
    from test_oplock import A
    c1, c2 = two
    name, k1, k2 = fresh(), key(), key()
    f1, _ = c1.lcreate(name, k1, R | H,
                       access=A.GENERIC_READ | A.GENERIC_WRITE | A.DELETE)
    f2, ls2 = c2.lcreate(name, k2, R | H)
    assert ls2[1] == R | H
    waits_for_handle_break(c2, k2, "delete", lambda: set_info(
        c1.tree, f1, 13, b"\x01"))
    f2.close()
    f1.close()


@samba_stale
def test_delete_on_close_create_waits_for_handle_break(two):
    from smbprotocol.open import CreateOptions
    from test_oplock import A
    c1, c2 = two
    name, k = fresh(), key()
    f1, _ = c1.lcreate(name, k, R | H)

    def unlink():
        c2.create(name, NONE, disp=CreateDisposition.FILE_OPEN,
                  access=A.DELETE | A.FILE_READ_ATTRIBUTES,
                  options=CreateOptions.FILE_NON_DIRECTORY_FILE |
                  CreateOptions.FILE_DELETE_ON_CLOSE).close()
        return 0
    waits_for_handle_break(c1, k, "CREATE", unlink)
    f1.close()
