"""SET_INFO (MS-SMB2 3.3.5.21) with smbprotocol against a writable share,
checked on disk (os.stat, xattrs, directory contents) and through
QUERY_INFO / QUERY_DIRECTORY, with exact NTSTATUS codes.

The share is a fresh temporary directory per module, served with
`read only = no`; each test works in its own subdirectory whose files are
made here on disk (CREATE of new files is not this test's subject).

RINGSMB_TARGET=samba runs the same tests against Debian's smbd (with
`ea support = no`, so FullEa answers as ours does).  Where Samba 4.17
answers differently from Windows / MS-FSA, the test says so and accepts
Samba's status only for the Samba target.  Notably Samba answers a buffer
shorter than the class's structure with INVALID_PARAMETER (and takes a
36-byte FileBasicInformation); ringsmb answers INFO_LENGTH_MISMATCH, as
MS-FSA 2.1.5.14 and Windows do.
"""
import os
import shutil
import struct
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import (TARGET, RingsmbServer, SambaServer, finish_server,
                      ringsmb_binary)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open, ShareAccess, SMB2QueryInfoRequest, SMB2QueryInfoResponse,
    SMB2SetInfoRequest)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

TIMEOUT = 30

# NTSTATUS values the tests expect
OK = 0
INVALID_INFO_CLASS = 0xC0000003
INFO_LENGTH_MISMATCH = 0xC0000004
INVALID_PARAMETER = 0xC000000D
ACCESS_DENIED = 0xC0000022
OBJECT_NAME_INVALID = 0xC0000033
OBJECT_NAME_NOT_FOUND = 0xC0000034
OBJECT_NAME_COLLISION = 0xC0000035
OBJECT_PATH_SYNTAX_BAD = 0xC000003B
EAS_NOT_SUPPORTED = 0xC000004F
DELETE_PENDING = 0xC0000056
NOT_SUPPORTED = 0xC00000BB
DIRECTORY_NOT_EMPTY = 0xC0000101
CANNOT_DELETE = 0xC0000121

# access bits
READ_DATA, WRITE_DATA = 0x1, 0x2
READ_ATTRIBUTES, WRITE_ATTRIBUTES = 0x80, 0x100
DELETE = 0x10000
SYNCHRONIZE = 0x100000
SHARE_ALL = (ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE)

# information classes
BASIC, STANDARD, NAME, RENAME, LINK = 4, 5, 9, 10, 11
DISPOSITION, POSITION, FULL_EA, MODE = 13, 14, 15, 16
ALLOCATION, END_OF_FILE, ID_BOTH_DIRECTORY = 19, 20, 37
DISPOSITION_EX = 64

ATTR_READONLY, ATTR_HIDDEN, ATTR_DIRECTORY = 0x1, 0x2, 0x10
ATTR_ARCHIVE, ATTR_NORMAL = 0x20, 0x80

NT_EPOCH = 116444736000000000
# 2021-03-04 05:06:07.1234567 UTC as NTTIME (100 ns units)
T_WRITE = NT_EPOCH + 1614834367 * 10 ** 7 + 1234567
T_ACCESS = NT_EPOCH + 1500000000 * 10 ** 7 + 5000000
T_CREATE = NT_EPOCH + 1000000000 * 10 ** 7 + 7


def writable(cls):
    class Writable(cls):
        def share_section(self, vfs=None):
            s = super().share_section(vfs).replace("read only = yes",
                                                   "read only = no")
            return s + "  ea support = no\n"
    return Writable


class Tree:
    """What the servers need of a share tree: just the share."""

    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"


@pytest.fixture(scope="module")
def wsrv():
    if TARGET == "ringsmb" and not ringsmb_binary().exists():
        pytest.fail("ringsmb binary %s not found" % ringsmb_binary())
    base = tempfile.mkdtemp(prefix="ringsmb-setinfo-")
    os.chmod(base, 0o755)
    tree = Tree(base)
    tree.share.mkdir()
    os.chmod(tree.share, 0o777)     # Samba's guest (nobody) writes here
    cls = SambaServer if TARGET == "samba" else RingsmbServer
    srv = writable(cls)(tree).start()
    try:
        yield srv
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def t(wsrv, request):
    """A tree connect (SMB 3.1.1, guest) and the test's own directory."""
    d = wsrv.tree.share / request.node.name.replace("[", "_").strip("]")
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    conn = Connection(uuid.uuid4(), wsrv.host, wsrv.port,
                      require_signing=False)
    conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
    try:
        session = Session(conn, username="guest", password="",
                          require_encryption=False, auth_protocol="ntlm")
        session.connect()
        tree = TreeConnect(session, r"\\%s\share" % wsrv.host)
        tree.connect(require_secure_negotiate=False)
        tree.dir = d
        tree.rel = d.name
        yield tree
        tree.disconnect()
        session.disconnect()
    finally:
        conn.disconnect(True)


def mkfile(tree, name, data=b"x" * 100):
    p = tree.dir / name
    p.parent.mkdir(parents=True, exist_ok=True, mode=0o777)
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


def wname(tree, name):
    return tree.rel + "\\" + name.replace("/", "\\")


def op(tree, name, access, opts=0, share=SHARE_ALL):
    f = Open(tree, wname(tree, name) if name else tree.rel)
    f.create(ImpersonationLevel.Impersonation, access | SYNCHRONIZE,
             FileAttributes.FILE_ATTRIBUTE_NORMAL, share,
             CreateDisposition.FILE_OPEN, opts)
    return f


def status_of(fn):
    try:
        fn()
    except SMBResponseException as e:
        return e.status
    return OK


def set_info(tree, f, cls, buf, info_type=1):
    req = SMB2SetInfoRequest()
    req["info_type"] = info_type
    req.fields["file_info_class"].enum_strict = False
    req["file_info_class"] = cls
    req["file_id"] = f.file_id
    req["buffer"] = buf
    conn = tree.session.connection
    sent = conn.send(req, tree.session.session_id, tree.tree_connect_id)
    return status_of(lambda: conn.receive(sent, timeout=TIMEOUT))


def query(tree, f, cls, length=4096):
    req = SMB2QueryInfoRequest()
    req["info_type"] = 1
    req.fields["file_info_class"].enum_strict = False
    req["file_info_class"] = cls
    req["output_buffer_length"] = length
    req["file_id"] = f.file_id
    conn = tree.session.connection
    sent = conn.send(req, tree.session.session_id, tree.tree_connect_id)
    resp = SMB2QueryInfoResponse()
    resp.unpack(conn.receive(sent, timeout=TIMEOUT)["data"].get_value())
    return resp["buffer"].get_value()


def basic(create=0, access=0, write=0, change=0, attrs=0):
    return struct.pack("<QQQQII", create, access, write, change, attrs, 0)


def rename_buf(name, replace=False, root=0, name_len=None):
    n = name.encode("utf-16-le")
    return struct.pack("<B7xQI", 1 if replace else 0, root,
                       len(n) if name_len is None else name_len) + n


def listing_attrs(tree, dirname=""):
    """name -> FileAttributes from an IdBothDirectory listing."""
    d = op(tree, dirname, 0x1 | READ_ATTRIBUTES,
           CreateOptions.FILE_DIRECTORY_FILE)
    try:
        entries = d.query_directory("*", ID_BOTH_DIRECTORY)
        return {e["file_name"].get_value().decode("utf-16-le"):
                e["file_attributes"].get_value() for e in entries}
    finally:
        d.close()


def expect(got, want, samba=None):
    """want for ringsmb; Samba 4.17 may answer `samba` instead."""
    if TARGET == "samba" and samba is not None:
        want = samba
    assert got == want, "status 0x%08x, expected 0x%08x" % (got, want)


# ------------------------------------------------------------ basic info

def test_basic_times_on_disk_and_query(t):
    p = mkfile(t, "f.txt")
    f = op(t, "f.txt", READ_ATTRIBUTES | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, BASIC, basic(create=T_CREATE,
                                           access=T_ACCESS,
                                           write=T_WRITE)) == OK
        ct, at, wt, _, attrs = struct.unpack_from("<QQQQI",
                                                  query(t, f, BASIC))
    finally:
        f.close()
    st = os.stat(p)
    assert st.st_mtime_ns == (T_WRITE - NT_EPOCH) * 100
    assert st.st_atime_ns == (T_ACCESS - NT_EPOCH) * 100
    assert (wt, at, ct) == (T_WRITE, T_ACCESS, T_CREATE)
    # the creation time can only live in the DOS attribute xattr
    assert os.getxattr(p, "user.DOSATTRIB")
    assert not attrs & ATTR_DIRECTORY


def test_basic_zero_and_minus_one_leave_times_alone(t):
    p = mkfile(t, "f.txt")
    os.utime(p, ns=(1_000_000_000_000_000_000, 1_100_000_000_000_000_000))
    f = op(t, "f.txt", WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, BASIC, basic()) == OK
        m1 = 0xFFFFFFFFFFFFFFFF
        assert set_info(t, f, BASIC, basic(access=m1, write=m1)) == OK
    finally:
        f.close()
    st = os.stat(p)
    assert st.st_atime_ns == 1_000_000_000_000_000_000
    assert st.st_mtime_ns == 1_100_000_000_000_000_000


def test_basic_attributes_in_listing_and_query(t):
    mkfile(t, "h.txt")
    mkfile(t, "plain.txt")
    f = op(t, "h.txt", READ_ATTRIBUTES | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, BASIC,
                        basic(attrs=ATTR_HIDDEN | ATTR_READONLY)) == OK
        attrs = struct.unpack_from("<I", query(t, f, BASIC), 32)[0]
        assert attrs & (ATTR_HIDDEN | ATTR_READONLY) == \
            ATTR_HIDDEN | ATTR_READONLY
        got = listing_attrs(t, "")
        assert got["h.txt"] & ATTR_HIDDEN and got["h.txt"] & ATTR_READONLY
        assert not got["plain.txt"] & (ATTR_HIDDEN | ATTR_READONLY)
        # NORMAL alone clears them
        assert set_info(t, f, BASIC, basic(attrs=ATTR_NORMAL)) == OK
        got = listing_attrs(t, "")
        assert got["h.txt"] & (ATTR_HIDDEN | ATTR_READONLY) == 0
    finally:
        f.close()


def test_basic_directory_attribute_on_file(t):
    mkfile(t, "f.txt")
    f = op(t, "f.txt", WRITE_ATTRIBUTES)
    try:
        # MS-FSA 2.1.5.14.2; Samba 4.17 drops the bit and succeeds
        expect(set_info(t, f, BASIC, basic(attrs=ATTR_DIRECTORY)),
               INVALID_PARAMETER, samba=OK)
    finally:
        f.close()


def test_basic_needs_write_attributes(t):
    p = mkfile(t, "f.txt")
    before = os.stat(p).st_mtime_ns
    f = op(t, "f.txt", READ_DATA | READ_ATTRIBUTES)
    try:
        assert set_info(t, f, BASIC, basic(write=T_WRITE)) == ACCESS_DENIED
    finally:
        f.close()
    assert os.stat(p).st_mtime_ns == before


def test_basic_short_buffer(t):
    mkfile(t, "f.txt")
    f = op(t, "f.txt", WRITE_ATTRIBUTES)
    try:
        expect(set_info(t, f, BASIC, basic()[:36]), INFO_LENGTH_MISMATCH,
               samba=OK)
        expect(set_info(t, f, BASIC, b""), INFO_LENGTH_MISMATCH,
               samba=INVALID_PARAMETER)
    finally:
        f.close()


# ------------------------------------------------------------ sizes

def test_end_of_file_truncate_and_extend(t):
    p = mkfile(t, "f.bin", bytes(range(100)))
    f = op(t, "f.bin", READ_DATA | WRITE_DATA)
    try:
        assert set_info(t, f, END_OF_FILE, struct.pack("<Q", 10)) == OK
        assert os.stat(p).st_size == 10
        assert set_info(t, f, END_OF_FILE, struct.pack("<Q", 5000)) == OK
    finally:
        f.close()
    data = p.read_bytes()
    assert len(data) == 5000
    assert data[:10] == bytes(range(10)) and data[10:] == bytes(4990)


def test_end_of_file_needs_write_data(t):
    p = mkfile(t, "f.bin")
    f = op(t, "f.bin", READ_DATA | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, END_OF_FILE,
                        struct.pack("<Q", 1)) == ACCESS_DENIED
        expect(set_info(t, f, END_OF_FILE, b"\0" * 7),
               INFO_LENGTH_MISMATCH, samba=INVALID_PARAMETER)
    finally:
        f.close()
    assert os.stat(p).st_size == 100


def test_allocation_grows_keeps_size_and_truncates(t):
    p = mkfile(t, "f.bin")
    f = op(t, "f.bin", READ_DATA | WRITE_DATA)
    try:
        assert set_info(t, f, ALLOCATION,
                        struct.pack("<Q", 1 << 20)) == OK
        st = os.stat(p)
        assert st.st_size == 100
        if TARGET == "ringsmb":
            # Samba reserves nothing unless `strict allocate = yes`
            assert st.st_blocks * 512 >= 1 << 20
        assert set_info(t, f, ALLOCATION, struct.pack("<Q", 10)) == OK
    finally:
        f.close()
    assert os.stat(p).st_size == 10


# ------------------------------------------------------------ rename, link

def test_rename_within_directory(t):
    mkfile(t, "a.txt", b"AAA")
    f = op(t, "a.txt", DELETE | READ_ATTRIBUTES)
    try:
        assert set_info(t, f, RENAME,
                        rename_buf(wname(t, "b.txt"))) == OK
        name = query(t, f, NAME)
        n = struct.unpack_from("<I", name)[0]
        assert name[4:4 + n].decode("utf-16-le").endswith("\\b.txt")
    finally:
        f.close()
    assert not (t.dir / "a.txt").exists()
    assert (t.dir / "b.txt").read_bytes() == b"AAA"


def test_rename_across_directories(t):
    mkfile(t, "x.txt", b"XX")
    (t.dir / "sub").mkdir(mode=0o777)
    os.chmod(t.dir / "sub", 0o777)
    f = op(t, "x.txt", DELETE)
    try:
        assert set_info(t, f, RENAME,
                        rename_buf(wname(t, "sub/y.txt"))) == OK
    finally:
        f.close()
    assert not (t.dir / "x.txt").exists()
    assert (t.dir / "sub" / "y.txt").read_bytes() == b"XX"


def test_rename_onto_existing(t):
    mkfile(t, "src.txt", b"SRC")
    mkfile(t, "dst.txt", b"DST")
    f = op(t, "src.txt", DELETE)
    try:
        assert set_info(t, f, RENAME, rename_buf(
            wname(t, "dst.txt"))) == OBJECT_NAME_COLLISION
        assert (t.dir / "dst.txt").read_bytes() == b"DST"
        assert set_info(t, f, RENAME, rename_buf(
            wname(t, "dst.txt"), replace=True)) == OK
    finally:
        f.close()
    assert not (t.dir / "src.txt").exists()
    assert (t.dir / "dst.txt").read_bytes() == b"SRC"


def test_rename_onto_directory_refused(t):
    mkfile(t, "src.txt")
    (t.dir / "d").mkdir()
    f = op(t, "src.txt", DELETE)
    try:
        # MS-FSA 2.1.5.14.11: a directory target is never replaced
        expect(set_info(t, f, RENAME, rename_buf(wname(t, "d"),
                                                 replace=True)),
               ACCESS_DENIED, samba=OBJECT_NAME_COLLISION)
    finally:
        f.close()
    assert (t.dir / "src.txt").exists() and (t.dir / "d").is_dir()


def test_rename_directory_with_open_file_below(t):
    mkfile(t, "dir/inner.txt")
    inner = op(t, "dir/inner.txt", READ_DATA)
    d = op(t, "dir", DELETE | READ_ATTRIBUTES,
           CreateOptions.FILE_DIRECTORY_FILE)
    try:
        st = set_info(t, d, RENAME, rename_buf(wname(t, "moved")))
        assert st == ACCESS_DENIED
    finally:
        d.close()
        inner.close()
    assert (t.dir / "dir" / "inner.txt").exists()
    assert not (t.dir / "moved").exists()


def test_rename_needs_delete_access(t):
    mkfile(t, "a.txt")
    f = op(t, "a.txt", READ_DATA | WRITE_ATTRIBUTES)
    try:
        # MS-SMB2 3.3.5.21.1; Samba 4.17 renames anyway
        expect(set_info(t, f, RENAME, rename_buf(wname(t, "b.txt"))),
               ACCESS_DENIED, samba=OK)
    finally:
        f.close()
    if TARGET == "ringsmb":
        assert (t.dir / "a.txt").exists()
        assert not (t.dir / "b.txt").exists()


def test_rename_to_same_name(t):
    mkfile(t, "a.txt", b"same")
    f = op(t, "a.txt", DELETE)
    try:
        assert set_info(t, f, RENAME, rename_buf(wname(t, "a.txt"))) == OK
        assert set_info(t, f, RENAME, rename_buf(wname(t, "a.txt"),
                                                 replace=True)) == OK
    finally:
        f.close()
    assert (t.dir / "a.txt").read_bytes() == b"same"


def test_rename_bad_names(t):
    mkfile(t, "a.txt")
    f = op(t, "a.txt", DELETE)
    try:
        target = wname(t, "b.txt")
        n = len(target.encode("utf-16-le"))
        assert set_info(t, f, RENAME, rename_buf(
            target, name_len=n + 2)) == INVALID_PARAMETER
        assert set_info(t, f, RENAME, rename_buf(
            target, name_len=0)) == INVALID_PARAMETER
        # MS-SMB2 3.3.5.21.1: RootDirectory must be 0; Samba ignores it
        expect(set_info(t, f, RENAME, rename_buf(target, root=1)),
               INVALID_PARAMETER, samba=OK)
        # '..' above the share: Samba's status (smb2.mkdir tests it too)
        expect(set_info(t, f, RENAME, rename_buf("..\\..\\escaped.txt")),
               OBJECT_PATH_SYNTAX_BAD)
    finally:
        f.close()
    assert not (t.dir.parent.parent / "escaped.txt").exists()
    assert not (t.dir.parent / "escaped.txt").exists()


def test_hard_link(t):
    p = mkfile(t, "f.txt", b"linked")
    mkfile(t, "other.txt", b"other")
    f = op(t, "f.txt", READ_DATA)
    try:
        assert set_info(t, f, LINK, rename_buf(wname(t, "g.txt"))) == OK
        assert set_info(t, f, LINK, rename_buf(
            wname(t, "other.txt"))) == OBJECT_NAME_COLLISION
        assert set_info(t, f, LINK, rename_buf(
            wname(t, "other.txt"), replace=True)) == OK
    finally:
        f.close()
    st = os.stat(p)
    assert st.st_nlink == 3
    assert os.stat(t.dir / "g.txt").st_ino == st.st_ino
    assert os.stat(t.dir / "other.txt").st_ino == st.st_ino


# ------------------------------------------------------------ disposition

def test_delete_on_disposition(t):
    p = mkfile(t, "gone.txt")
    f = op(t, "gone.txt", DELETE | READ_ATTRIBUTES)
    try:
        assert set_info(t, f, DISPOSITION, b"\x01") == OK
        std = query(t, f, STANDARD)
        assert std[20] == 1             # DeletePending
        opened = []
        second = status_of(lambda: opened.append(
            op(t, "gone.txt", READ_ATTRIBUTES)))
        for o in opened:
            o.close()
        assert second == DELETE_PENDING
        assert p.exists()
    finally:
        f.close()
    assert not p.exists()


def test_delete_cleared_again(t):
    p = mkfile(t, "kept.txt")
    f = op(t, "kept.txt", DELETE)
    try:
        assert set_info(t, f, DISPOSITION, b"\x01") == OK
        assert set_info(t, f, DISPOSITION, b"\x00") == OK
    finally:
        f.close()
    assert p.exists()


def test_delete_needs_delete_access(t):
    p = mkfile(t, "f.txt")
    f = op(t, "f.txt", READ_DATA | WRITE_DATA | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, DISPOSITION, b"\x01") == ACCESS_DENIED
    finally:
        f.close()
    assert p.exists()


def test_delete_non_empty_directory(t):
    mkfile(t, "full/x.txt")
    d = op(t, "full", DELETE, CreateOptions.FILE_DIRECTORY_FILE)
    try:
        assert set_info(t, d, DISPOSITION, b"\x01") == DIRECTORY_NOT_EMPTY
    finally:
        d.close()
    assert (t.dir / "full" / "x.txt").exists()


def test_delete_empty_directory(t):
    (t.dir / "empty").mkdir()
    d = op(t, "empty", DELETE, CreateOptions.FILE_DIRECTORY_FILE)
    try:
        assert set_info(t, d, DISPOSITION, b"\x01") == OK
    finally:
        d.close()
    assert not (t.dir / "empty").exists()


def test_delete_readonly_file(t):
    p = mkfile(t, "ro.txt")
    f = op(t, "ro.txt", DELETE | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, BASIC, basic(attrs=ATTR_READONLY)) == OK
        assert set_info(t, f, DISPOSITION, b"\x01") == CANNOT_DELETE
    finally:
        f.close()
    assert p.exists()


def test_disposition_ex(t):
    if TARGET == "samba":
        pytest.skip("Samba 4.17 has no FileDispositionInformationEx")
    p = mkfile(t, "ro.txt")
    f = op(t, "ro.txt", DELETE | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, BASIC, basic(attrs=ATTR_READONLY)) == OK
        assert set_info(t, f, DISPOSITION_EX,
                        struct.pack("<I", 1)) == CANNOT_DELETE
        # POSIX semantics are refused, not half done
        assert set_info(t, f, DISPOSITION_EX,
                        struct.pack("<I", 3)) == NOT_SUPPORTED
        assert set_info(t, f, DISPOSITION_EX,
                        struct.pack("<I", 0x100)) == INVALID_PARAMETER
        assert set_info(t, f, DISPOSITION_EX,
                        struct.pack("<I", 0x11)) == OK
        assert p.exists()
    finally:
        f.close()
    assert not p.exists()


# ------------------------------------------------------------ per open

def test_position_and_mode(t):
    mkfile(t, "f.txt")
    f = op(t, "f.txt", READ_DATA)
    try:
        assert set_info(t, f, POSITION, struct.pack("<Q", 1234)) == OK
        assert struct.unpack("<Q", query(t, f, POSITION)[:8])[0] == 1234
        assert set_info(t, f, MODE, struct.pack("<I", 2)) == OK
        if TARGET == "ringsmb":
            # Samba accepts the mode without keeping it
            mode = struct.unpack("<I", query(t, f, MODE)[:4])[0]
            assert mode & 0x6 == 2
        assert set_info(t, f, MODE,
                        struct.pack("<I", 0x1)) == INVALID_PARAMETER
        assert set_info(t, f, MODE,
                        struct.pack("<I", 0x30)) == INVALID_PARAMETER
    finally:
        f.close()


def test_unsupported_and_unknown_classes(t):
    mkfile(t, "f.txt")
    f = op(t, "f.txt", READ_DATA | WRITE_ATTRIBUTES)
    try:
        assert set_info(t, f, FULL_EA,
                        b"\0" * 8 + b"a\0") == EAS_NOT_SUPPORTED
        # FileStandardInformation can be queried, not set
        assert set_info(t, f, STANDARD, b"\0" * 24) == INVALID_INFO_CLASS
        if TARGET == "ringsmb":
            # an SD with revision 0: refused before any access check
            # (test_secdesc.py has the settable ones)
            assert set_info(t, f, 0, b"\0" * 20,
                            info_type=3) == 0xC0000079
    finally:
        f.close()


# ---- the delayed write-time update (files/write_time.c) ----

def write_time(tree, f):
    return struct.unpack_from("<Q", query(tree, f, BASIC), 16)[0]


def test_write_time_update_is_delayed(t):
    """A handle's first WRITE leaves LastWriteTime alone for 2 s, then
    moves it once; a second WRITE does not move it again until the
    close (Windows, Samba: smb2.timestamps.delayed-2write)."""
    p = mkfile(t, "wt.bin")
    old = 1_000_000_000
    os.utime(p, (old, old))
    f = op(t, "wt.bin", READ_DATA | WRITE_DATA | 0x180)
    try:
        before = write_time(t, f)
        f.write(b"a", 0)
        assert write_time(t, f) == before
        time.sleep(2.6)
        first = write_time(t, f)
        assert first > before
        f.write(b"b", 1)
        assert write_time(t, f) == first
        # on disk too, at the last close: the time clients saw
    finally:
        f.close()
    assert os.stat(p).st_mtime_ns // 100 > (first - 116444736000000000)
    assert p.read_bytes()[:2] == b"ab"


def test_write_time_flushed_by_end_of_file(t):
    """Setting the end of file brings a pending update forward; closing
    without writing since keeps that time (delayed-write-vs-seteof)."""
    p = mkfile(t, "wt2.bin")
    os.utime(p, (1_000_000_000, 1_000_000_000))
    f = op(t, "wt2.bin", READ_DATA | WRITE_DATA | 0x180)
    try:
        before = write_time(t, f)
        f.write(b"a", 0)
        assert write_time(t, f) == before
        assert set_info(t, f, END_OF_FILE, struct.pack("<Q", 1)) == OK
        flushed = write_time(t, f)
        assert flushed > before
    finally:
        f.close()
    assert os.stat(p).st_mtime_ns // 100 == flushed - 116444736000000000
