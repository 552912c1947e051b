"""SET_INFO SECURITY and CREATE's SecD context through smbprotocol: the
DACL maps to the mode's rwx bits (docs/vfs.md), checked with os.stat and
read back with QUERY_INFO.

RINGSMB_TARGET=samba runs what is meaningful against Debian's smbd,
which maps a DACL to a POSIX ACL (its group bits then show the ACL mask)
and names owners by its own SIDs; those tests only compare what both
servers must agree on.
"""
import os
import struct

import pytest

from conftest import TARGET
from test_eainfo import (DACL, GROUP, OWNER, READ_CONTROL, SHARE_ALL,  # noqa
                         SYNCHRONIZE, esrv, parse_sd, raw_query, t, wname)
from test_setinfo import status_of

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.create_contexts import (  # noqa: E402
    SMB2CreateContextRequest)
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, FileAttributes, ImpersonationLevel, Open,
    SMB2SetInfoRequest)

TIMEOUT = 30
OK = 0
ACCESS_DENIED = 0xC0000022
INVALID_OWNER = 0xC000005A
INVALID_SECURITY_DESCR = 0xC0000079
WRITE_DAC, WRITE_OWNER = 0x40000, 0x80000
READ_DATA = 0x1
FULL, READ, RW = 0x001F01FF, 0x00120089, 0x0012019F

ringsmb_only = pytest.mark.skipif(
    TARGET == "samba", reason="ringsmb's own SIDs and mode mapping")


def sid_bytes(s):
    parts = [int(x) for x in s.split("-")[1:]]
    rev, auth, subs = parts[0], parts[1], parts[2:]
    return (bytes([rev, len(subs)]) + auth.to_bytes(6, "big") +
            b"".join(struct.pack("<I", x) for x in subs))


def acl(aces):
    body = b""
    for typ, mask, sid in aces:
        s = sid_bytes(sid)
        body += struct.pack("<BBHI", typ, 0, 8 + len(s), mask) + s
    return struct.pack("<BBHHH", 2, 0, 8 + len(body), len(aces), 0) + body


def sd(owner=None, group=None, aces=None, null_dacl=False):
    """Self-relative SD; aces None and not null_dacl: no DACL."""
    ctl, parts, ofs = 0x8000, b"", 20
    o_own = o_grp = o_dacl = 0
    if owner:
        o_own, parts = ofs + len(parts), parts + sid_bytes(owner)
    if group:
        o_grp, parts = ofs + len(parts), parts + sid_bytes(group)
    if null_dacl or aces is not None:
        ctl |= 0x4
    if aces is not None:
        o_dacl, parts = ofs + len(parts), parts + acl(aces)
    return struct.pack("<BBHIIII", 1, 0, ctl, o_own, o_grp, 0,
                       o_dacl) + parts


def set_sd(tree, f, buf, addl):
    req = SMB2SetInfoRequest()
    req["info_type"] = 3
    req.fields["file_info_class"].enum_strict = False
    req["file_info_class"] = 0
    req["additional_information"] = addl
    req["file_id"] = f.file_id
    req["buffer"] = buf
    conn = tree.session.connection
    sent = conn.send(req, tree.session.session_id, tree.tree_connect_id)
    return status_of(lambda: conn.receive(sent, timeout=TIMEOUT))


def secd(buf):
    ctx = SMB2CreateContextRequest()
    ctx["buffer_name"] = b"SecD"
    ctx["buffer_data"] = buf
    return ctx


def open_(tree, name, access=READ_CONTROL | WRITE_DAC | WRITE_OWNER,
          disp=CreateDisposition.FILE_OPEN_IF, ctx=None):
    f = Open(tree, wname(tree, name))
    f.create(ImpersonationLevel.Impersonation, access | SYNCHRONIZE,
             FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL, disp, 0,
             create_contexts=ctx)
    return f


def query(tree, f):
    st, buf = raw_query(tree, f, 3, 0, addl=OWNER | GROUP | DACL)
    assert st == OK
    return parse_sd(buf)


def mode(tree, name):
    return os.stat(tree.dir / name).st_mode & 0o777


def test_set_dacl_maps_to_mode(t):
    f = open_(t, "f.txt")
    try:
        cur = query(t, f)
        own, grp = cur["owner"], cur["group"]
        aces = [(0, RW, own), (0, READ, grp), (0, 0, "S-1-1-0")]
        assert set_sd(t, f, sd(aces=aces), DACL) == OK
        if TARGET == "ringsmb":
            assert mode(t, "f.txt") == 0o640
            assert query(t, f)["aces"] == aces
        else:
            assert mode(t, "f.txt") & 0o700 == 0o600
        aces = [(0, FULL, own), (0, READ | 0x20, grp),
                (0, READ | 0x20, "S-1-1-0")]
        assert set_sd(t, f, sd(aces=aces), DACL) == OK
        if TARGET == "ringsmb":
            assert mode(t, "f.txt") == 0o755
            assert query(t, f)["aces"] == [
                (0, FULL, own), (0, 0x001200A9, grp),
                (0, 0x001200A9, "S-1-1-0")]
        else:
            assert mode(t, "f.txt") & 0o705 == 0o705
    finally:
        f.close()


def test_needs_write_dac_and_write_owner(t):
    f = open_(t, "f.txt", access=READ_CONTROL | READ_DATA)
    try:
        cur = query(t, f)
        os.chmod(t.dir / "f.txt", 0o644)
        assert set_sd(t, f, sd(aces=[(0, FULL, cur["owner"])]),
                      DACL) == ACCESS_DENIED
        assert set_sd(t, f, sd(owner=cur["owner"]), OWNER) == \
            ACCESS_DENIED
        assert mode(t, "f.txt") == 0o644
    finally:
        f.close()


@ringsmb_only
def test_null_and_empty_dacl(t):
    f = open_(t, "f.txt")
    try:
        assert set_sd(t, f, sd(null_dacl=True), DACL) == OK
        assert mode(t, "f.txt") == 0o777
        assert set_sd(t, f, sd(aces=[]), DACL) == OK
        assert mode(t, "f.txt") == 0
        assert query(t, f)["aces"][2] == (0, 0, "S-1-1-0")
        # only named classes count; another SID is not representable
        assert set_sd(t, f, sd(aces=[(0, FULL, "S-1-5-11")]), DACL) == OK
        assert mode(t, "f.txt") == 0
    finally:
        f.close()


@ringsmb_only
def test_owner_and_group_stay(t):
    f = open_(t, "f.txt")
    os.chmod(t.dir / "f.txt", 0o600)
    try:
        st = os.stat(t.dir / "f.txt")
        own = "S-1-22-1-%d" % st.st_uid
        grp = "S-1-22-2-%d" % st.st_gid
        assert set_sd(t, f, sd(owner=own, group=grp), OWNER | GROUP) == OK
        assert set_sd(t, f, sd(owner="S-1-22-1-%d" % (st.st_uid + 1)),
                      OWNER) == ACCESS_DENIED
        assert set_sd(t, f, sd(group="S-1-22-2-%d" % (st.st_gid + 1)),
                      GROUP) == ACCESS_DENIED
        assert set_sd(t, f, sd(owner="S-1-5-32-544"), OWNER) == \
            INVALID_OWNER
        assert os.stat(t.dir / "f.txt").st_uid == st.st_uid
        assert mode(t, "f.txt") == 0o600
    finally:
        f.close()


def test_secd_at_create(t):
    buf = sd(aces=[(0, READ, "S-1-1-0")])
    f = open_(t, "new.txt", disp=CreateDisposition.FILE_CREATE,
              ctx=[secd(buf)])
    f.close()
    if TARGET == "ringsmb":
        assert mode(t, "new.txt") == 0o444
    else:
        assert mode(t, "new.txt") & 0o007 == 0o004
    # an existing file opened with a SecD keeps its mode
    os.chmod(t.dir / "new.txt", 0o640)
    f = open_(t, "new.txt", access=READ_CONTROL,
              disp=CreateDisposition.FILE_OPEN_IF, ctx=[secd(buf)])
    f.close()
    assert mode(t, "new.txt") == 0o640


@ringsmb_only
def test_bad_sd(t):
    f = open_(t, "f.txt")
    try:
        good = sd(aces=[(0, FULL, "S-1-1-0")])
        for n in range(len(good)):
            assert set_sd(t, f, good[:n], DACL) == INVALID_SECURITY_DESCR
        assert open_status(t, "bad.txt", good[:30]) == \
            INVALID_SECURITY_DESCR
        assert not (t.dir / "bad.txt").exists()
    finally:
        f.close()


def open_status(tree, name, buf):
    return status_of(lambda: open_(tree, name,
                                   disp=CreateDisposition.FILE_CREATE,
                                   ctx=[secd(buf)]).close())
