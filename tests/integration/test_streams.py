"""Named streams (`vfs objects = streams_xattr`, issue 15) through
smbprotocol: what a client sees (data, FileStreamInformation, NTSTATUS
codes) and what lands on disk, Samba's layout: the xattr
`user.DosStream.<name>:$DATA` holding the stream's bytes and one NUL.

The last tests start Debian's smbd with `vfs objects = streams_xattr` on
the same directory and read through one server what the other wrote.
"""
import os
import shutil
import struct
import tempfile
import types
import uuid
from pathlib import Path

import pytest

from conftest import (SAMBA_SMBD, RingsmbServer, SambaServer, finish_server,
                      ringsmb_binary)
from test_eainfo import raw_query
from test_oplock import FSCTL_SRV_REQUEST_RESUME_KEY
from test_oplock import ioctl as oplock_ioctl
from test_setinfo import rename_buf, set_info, status_of

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

TIMEOUT = 30

OK = 0
BUFFER_OVERFLOW = 0x80000005
OBJECT_NAME_INVALID = 0xC0000033
OBJECT_NAME_NOT_FOUND = 0xC0000034
OBJECT_NAME_COLLISION = 0xC0000035
SHARING_VIOLATION = 0xC0000043
DELETE_PENDING = 0xC0000056
ACCESS_DENIED = 0xC0000022
DISK_FULL = 0xC000007F
ALLOTTED_SPACE_EXCEEDED = 0xC0000099
FILE_SYSTEM_LIMITATION = 0xC0000427
FILE_IS_A_DIRECTORY = 0xC00000BA
NOT_A_DIRECTORY = 0xC0000103
INVALID_PARAMETER = 0xC000000D

READ_DATA, WRITE_DATA, APPEND_DATA = 0x1, 0x2, 0x4
READ_ATTRIBUTES, DELETE, SYNCHRONIZE = 0x80, 0x10000, 0x100000
RW = READ_DATA | WRITE_DATA | READ_ATTRIBUTES | SYNCHRONIZE
SHARE_ALL = 7
STANDARD_INFO, STREAM_INFO, EOF_INFO, DISPOSITION_INFO = 5, 22, 20, 13
RENAME_INFO = 10
FS_ATTRIBUTE_INFO = 5
FILE_NAMED_STREAMS = 0x00040000
PREFIX = "user.DosStream."


class StreamsServer(RingsmbServer):
    """[share] with streams_xattr (and io_uring above it, where asked),
    [plain] on the same directory without."""
    stack = "streams_xattr"

    def share_section(self, vfs=None):
        path = self.tree.share
        return ("[share]\n  path = %s\n  guest ok = yes\n  read only = no\n"
                "  vfs objects = %s\n"
                "\n[plain]\n  path = %s\n  guest ok = yes\n"
                "  read only = no\n" % (path, self.stack, path))


class SambaStreams(SambaServer):
    def share_section(self, vfs=None):
        return ("[share]\n  path = %s\n  guest ok = yes\n  read only = no\n"
                "  vfs objects = streams_xattr\n" % self.tree.share)


class Tree:
    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"


@pytest.fixture(scope="module")
def base_dir():
    base = tempfile.mkdtemp(prefix="ringsmb-streams-")
    os.chmod(base, 0o755)
    tree = Tree(base)
    tree.share.mkdir()
    os.chmod(tree.share, 0o777)
    try:
        yield tree
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module",
                params=["streams_xattr", "io_uring streams_xattr"])
def srv(base_dir, request):
    """Stream handles pass through vfs_io_uring to the module below."""
    if not ringsmb_binary().exists():
        pytest.fail("ringsmb binary %s not found" % ringsmb_binary())
    s = StreamsServer(base_dir)
    s.stack = request.param
    s.start()
    try:
        yield s
    finally:
        finish_server(s)


def connect(server, share, d=None):
    conn = Connection(uuid.uuid4(), server.host, server.port,
                      require_signing=False)
    conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
    session = Session(conn, username="guest", password="",
                      require_encryption=False, auth_protocol="ntlm")
    session.connect()
    tree = TreeConnect(session, r"\\%s\%s" % (server.host, share))
    tree.connect(require_secure_negotiate=False)
    tree.conn = conn
    tree.dir = d
    tree.rel = d.name if d is not None else ""
    return tree


def disconnect(tree):
    try:
        tree.disconnect()
        tree.session.disconnect()
    finally:
        tree.conn.disconnect(True)


def own_dir(server, request):
    d = server.tree.share / request.node.name.replace("[", "_").strip("]")
    d.mkdir(mode=0o777, exist_ok=True)
    os.chmod(d, 0o777)
    return d


@pytest.fixture
def t(srv, request):
    tree = connect(srv, "share", own_dir(srv, request))
    yield tree
    disconnect(tree)


@pytest.fixture
def plain(srv, request):
    tree = connect(srv, "plain", own_dir(srv, request))
    yield tree
    disconnect(tree)


def mkfile(d, name, data=b""):
    p = d / name
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


def wname(tree, name):
    return tree.rel + "\\" + name


def create(tree, name, disp=CreateDisposition.FILE_OPEN_IF, access=RW,
           share=SHARE_ALL, options=0,
           attrs=FileAttributes.FILE_ATTRIBUTE_NORMAL):
    f = Open(tree, wname(tree, name))
    f.create(ImpersonationLevel.Impersonation, access, attrs, share, disp,
             options)
    return f


def create_status(tree, name, **kw):
    try:
        create(tree, name, **kw).close()
    except SMBResponseException as e:
        return e.status
    return OK


def streams_of(tree, f, length=4096):
    """FileStreamInformation as [(name, size, allocation)]."""
    status, buf = raw_query(tree, f, 1, STREAM_INFO, length)
    assert status == OK
    out, ofs = [], 0
    while buf:
        nxt, nlen, size, alloc = struct.unpack_from("<IIQQ", buf, ofs)
        name = buf[ofs + 24:ofs + 24 + nlen].decode("utf-16-le")
        out.append((name, size, alloc))
        if nxt == 0:
            break
        assert nxt % 8 == 0
        ofs += nxt
    return out


def xattrs(path):
    return sorted(n for n in os.listxattr(path) if n.startswith(PREFIX))


# ------------------------------------------------------------ data

def test_write_read_on_disk(t):
    f = create(t, "f.txt:s1")
    f.write(b"hello stream", 0)
    assert f.read(0, 100) == b"hello stream"
    f.write(b"S", 0)
    f.close()
    p = t.dir / "f.txt"
    assert p.stat().st_size == 0        # the file's own data untouched
    assert xattrs(p) == [PREFIX + "s1:$DATA"]
    # Samba's layout: the bytes and one NUL
    assert os.getxattr(p, PREFIX + "s1:$DATA") == b"Sello stream\0"
    f = create(t, "f.txt:s1:$DATA", disp=CreateDisposition.FILE_OPEN)
    assert f.read(0, 100) == b"Sello stream"
    assert f.read(6, 100) == b"stream"
    f.close()


def test_creates_base_file(t):
    f = create(t, "new.txt:s", disp=CreateDisposition.FILE_CREATE)
    assert f.create_action == 2                 # FILE_CREATED
    f.close()
    p = t.dir / "new.txt"
    assert p.is_file() and p.stat().st_size == 0
    assert os.getxattr(p, PREFIX + "s:$DATA") == b"\0"


def test_open_missing(t):
    assert create_status(t, "none.txt:s", disp=CreateDisposition.FILE_OPEN) \
        == OBJECT_NAME_NOT_FOUND
    assert not (t.dir / "none.txt").exists()
    mkfile(t.dir, "f.txt", b"abc")
    assert create_status(t, "f.txt:s", disp=CreateDisposition.FILE_OPEN) \
        == OBJECT_NAME_NOT_FOUND
    assert create_status(t, "f.txt:s", disp=CreateDisposition.FILE_OVERWRITE) \
        == OBJECT_NAME_NOT_FOUND
    f = create(t, "f.txt:s", disp=CreateDisposition.FILE_CREATE)
    f.close()
    assert create_status(t, "f.txt:s", disp=CreateDisposition.FILE_CREATE) \
        == OBJECT_NAME_COLLISION


def test_overwrite(t):
    f = create(t, "f.txt:s")
    f.write(b"0123456789", 0)
    f.close()
    f = create(t, "f.txt:s", disp=CreateDisposition.FILE_OVERWRITE_IF)
    assert f.create_action == 3                 # FILE_OVERWRITTEN
    f.close()
    assert os.getxattr(t.dir / "f.txt", PREFIX + "s:$DATA") == b"\0"


def test_default_stream(t):
    mkfile(t.dir, "f.txt", b"file data")
    f = create(t, "f.txt::$DATA", disp=CreateDisposition.FILE_OPEN)
    assert f.read(0, 100) == b"file data"
    f.close()


def test_case_insensitive_names(t):
    f = create(t, "f.txt:MyStream")
    f.write(b"x", 0)
    f.close()
    f = create(t, "f.txt:mYsTREAM", disp=CreateDisposition.FILE_OPEN)
    assert f.read(0, 10) == b"x"
    f.close()
    assert xattrs(t.dir / "f.txt") == [PREFIX + "MyStream:$DATA"]


def test_end_of_file(t):
    f = create(t, "f.txt:s")
    f.write(b"abcdef", 0)
    assert set_info(t, f, EOF_INFO, struct.pack("<Q", 3)) == OK
    assert f.read(0, 100) == b"abc"
    assert set_info(t, f, EOF_INFO, struct.pack("<Q", 5)) == OK
    f.close()
    assert os.getxattr(t.dir / "f.txt", PREFIX + "s:$DATA") == \
        b"abc\0\0\0"
    f = create(t, "f.txt:s", disp=CreateDisposition.FILE_OPEN)
    status, buf = raw_query(t, f, 1, STANDARD_INFO)
    assert status == OK
    alloc, eof = struct.unpack_from("<QQ", buf)
    assert eof == 5
    assert buf[20] == 0                         # Directory: no
    f.close()


def test_zero_byte_stream(t):
    create(t, "f.txt:empty").close()
    f = create(t, "f.txt", disp=CreateDisposition.FILE_OPEN)
    # (the file's allocation counts an xattr block ext4 may have added)
    assert sorted(e[:2] for e in streams_of(t, f)) == \
        [("::$DATA", 0), (":empty:$DATA", 0)]
    f.close()
    assert os.getxattr(t.dir / "f.txt", PREFIX + "empty:$DATA") == b"\0"


def test_stream_information(t):
    mkfile(t.dir, "f.txt", b"x" * 100)
    for name, data in (("one", b"1"), ("Stream Two", b"22")):
        f = create(t, "f.txt:" + name)
        f.write(data, 0)
        f.close()
    f = create(t, "f.txt:one", disp=CreateDisposition.FILE_OPEN)
    got = streams_of(t, f)
    f.close()
    assert got[0][:2] == ("::$DATA", 100)
    assert sorted((n, s) for n, s, _ in got[1:]) == \
        [(":Stream Two:$DATA", 2), (":one:$DATA", 1)]
    # a short buffer: the list cut to it, BUFFER_OVERFLOW (as Windows)
    f = create(t, "f.txt", disp=CreateDisposition.FILE_OPEN)
    status, buf = raw_query(t, f, 1, STREAM_INFO, 50)
    f.close()
    assert status == BUFFER_OVERFLOW
    assert len(buf) == 50 and struct.unpack_from("<I", buf)[0] == 40


def test_directory_streams(t):
    d = t.dir / "d"
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    f = create(t, "d:s")
    f.write(b"on a dir", 0)
    f.close()
    assert os.getxattr(d, PREFIX + "s:$DATA") == b"on a dir\0"
    assert create_status(t, "d::$DATA", disp=CreateDisposition.FILE_OPEN) \
        == FILE_IS_A_DIRECTORY
    assert create_status(t, "d:s", disp=CreateDisposition.FILE_OPEN,
                         options=CreateOptions.FILE_DIRECTORY_FILE) \
        == NOT_A_DIRECTORY
    f = create(t, "d", disp=CreateDisposition.FILE_OPEN,
               access=READ_ATTRIBUTES,
               options=CreateOptions.FILE_DIRECTORY_FILE)
    # a directory has no unnamed stream
    assert [n for n, _, _ in streams_of(t, f)] == [":s:$DATA"]
    f.close()


# ------------------------------------------------------------ names

@pytest.mark.parametrize("name", [
    "f.txt:", "f.txt:s:", "f.txt:s:$FOO", "f.txt:a:b:$DATA", "f.txt:::$DATA",
    "f.txt:" + "a" * 256, "f.txt:s:$DATA:x",
])
def test_invalid_names(t, name):
    mkfile(t.dir, "f.txt", b"")
    assert create_status(t, name) == OBJECT_NAME_INVALID
    assert xattrs(t.dir / "f.txt") == []


def test_windows_allows_odd_characters(t):
    """Wildcards and control characters are legal in stream names."""
    for name in ("?Stream*", "\x05Stream\n One", "<>|\""):
        f = create(t, "f.txt:" + name)
        f.close()
    assert len(xattrs(t.dir / "f.txt")) == 3


def test_long_name(t):
    """255 characters are valid, but Linux xattr names stop at 255 bytes
    (prefix and type included): NAME_TOO_LONG, and nothing stored."""
    assert create_status(t, "f.txt:" + "a" * 234) == OK
    assert create_status(t, "f.txt:" + "a" * 235) == 0xC0000106
    assert xattrs(t.dir / "f.txt") == [PREFIX + "a" * 234 + ":$DATA"]
    # a file made only for a stream that could not be made goes again
    assert create_status(t, "g.txt:" + "a" * 235) == 0xC0000106
    assert not (t.dir / "g.txt").exists()


# ------------------------------------------------------------ limits

def test_size_limit(t):
    f = create(t, "f.txt:s")
    # Samba's 'smbd max xattr size' (64 KiB): WRITE answers
    # FILE_SYSTEM_LIMITATION (Samba's smb2_write.c), EndOfFile
    # ALLOTTED_SPACE_EXCEEDED (EOVERFLOW)
    assert status_of(lambda: f.write(b"x", 65535)) == FILE_SYSTEM_LIMITATION
    assert set_info(t, f, EOF_INFO, struct.pack("<Q", 65536)) == \
        ALLOTTED_SPACE_EXCEEDED
    # ext4 keeps a file's xattrs in one block (4 KiB): DISK_FULL
    big = status_of(lambda: f.write(b"y" * 8192, 0))
    f.close()
    fs = os.statvfs(t.dir)
    if fs.f_bsize == 4096 and big != OK:
        assert big == DISK_FULL
    assert os.getxattr(t.dir / "f.txt", PREFIX + "s:$DATA") in \
        (b"\0", b"y" * 8192 + b"\0")


# ------------------------------------------------- deleting, renaming

def test_delete_on_close(t):
    mkfile(t.dir, "f.txt", b"keep")
    create(t, "f.txt:s").close()
    f = create(t, "f.txt:s", disp=CreateDisposition.FILE_OPEN,
               access=RW | DELETE,
               options=CreateOptions.FILE_DELETE_ON_CLOSE)
    f.close()
    assert xattrs(t.dir / "f.txt") == []
    assert (t.dir / "f.txt").read_bytes() == b"keep"


def test_disposition(t):
    create(t, "f.txt:s").close()
    f = create(t, "f.txt:s", disp=CreateDisposition.FILE_OPEN,
               access=RW | DELETE)
    assert set_info(t, f, DISPOSITION_INFO, b"\x01") == OK
    f.close()
    assert xattrs(t.dir / "f.txt") == []
    assert (t.dir / "f.txt").exists()


def test_delete_file_with_open_stream(t):
    s = create(t, "f.txt:s", access=RW, share=0)
    s.write(b"data", 0)
    # the stream does not share delete: the file cannot be opened for it
    assert create_status(t, "f.txt", disp=CreateDisposition.FILE_OPEN,
                         access=DELETE) == SHARING_VIOLATION
    s.close()
    s = create(t, "f.txt:s", disp=CreateDisposition.FILE_OPEN, access=RW,
               share=SHARE_ALL)
    f = create(t, "f.txt", disp=CreateDisposition.FILE_OPEN, access=DELETE,
               options=CreateOptions.FILE_DELETE_ON_CLOSE)
    f.close()
    # still there while the stream is open, but delete pending
    assert (t.dir / "f.txt").exists()
    assert s.read(0, 10) == b"data"
    assert create_status(t, "f.txt") == DELETE_PENDING
    assert create_status(t, "f.txt:s") == DELETE_PENDING
    s.close()
    assert not (t.dir / "f.txt").exists()


def test_rename(t):
    f = create(t, "f.txt:old")
    f.write(b"moved", 0)
    create(t, "f.txt:other").close()
    f.close()
    f = create(t, "f.txt:old", disp=CreateDisposition.FILE_OPEN,
               access=RW | DELETE)
    assert set_info(t, f, RENAME_INFO, rename_buf(":other:$DATA")) == \
        OBJECT_NAME_COLLISION
    assert set_info(t, f, RENAME_INFO, rename_buf(":other", True)) == \
        INVALID_PARAMETER
    assert set_info(t, f, RENAME_INFO, rename_buf(":new:$DATA")) == OK
    assert f.read(0, 10) == b"moved"
    f.close()
    assert xattrs(t.dir / "f.txt") == [PREFIX + "new:$DATA",
                                       PREFIX + "other:$DATA"]
    assert os.getxattr(t.dir / "f.txt", PREFIX + "new:$DATA") == b"moved\0"


# ------------------------------------------------------------ sharing

def test_share_modes(t):
    s = create(t, "f.txt:s", access=RW, share=0)
    # another stream and the file itself are other objects
    create(t, "f.txt:t", access=RW, share=0).close()
    create(t, "f.txt", access=RW, share=0).close()
    assert create_status(t, "f.txt:s", access=READ_DATA) == \
        SHARING_VIOLATION
    assert create_status(t, "F.TXT:S", access=READ_DATA) == \
        SHARING_VIOLATION
    s.close()


# ------------------------------------------------------------ rights

def test_user_rights_apply(t):
    """The guest (nobody) may not read or write a stream of a file it may
    not read or write: every xattr access runs as the user."""
    p = t.dir / "root.txt"
    p.write_bytes(b"")
    os.setxattr(p, PREFIX + "s:$DATA", b"secret\0")
    os.chown(p, 0, 0)
    os.chmod(p, 0o600)
    assert create_status(t, "root.txt:s", disp=CreateDisposition.FILE_OPEN,
                         access=READ_DATA) == ACCESS_DENIED
    assert create_status(t, "root.txt:s2", access=WRITE_DATA) == \
        ACCESS_DENIED
    os.chmod(p, 0o644)
    f = create(t, "root.txt:s", disp=CreateDisposition.FILE_OPEN,
               access=READ_DATA)
    assert f.read(0, 10) == b"secret"
    f.close()
    assert create_status(t, "root.txt:s", disp=CreateDisposition.FILE_OPEN,
                         access=WRITE_DATA) == ACCESS_DENIED
    assert xattrs(p) == [PREFIX + "s:$DATA"]


# ------------------------------------------------------------ no module

def test_share_without_streams(t, plain):
    mkfile(plain.dir, "f.txt", b"")
    assert create_status(plain, "f.txt:s") == OBJECT_NAME_INVALID
    assert create_status(plain, "f.txt:s:$DATA") == OBJECT_NAME_INVALID
    assert xattrs(plain.dir / "f.txt") == []
    f = create(plain, "f.txt::$DATA", disp=CreateDisposition.FILE_OPEN)
    assert [n for n, _, _ in streams_of(plain, f)] == ["::$DATA"]
    status, buf = raw_query(plain, f, 2, FS_ATTRIBUTE_INFO)
    assert status == OK
    assert struct.unpack_from("<I", buf)[0] & FILE_NAMED_STREAMS == 0
    f.close()
    f = create(t, "f.txt", disp=CreateDisposition.FILE_OPEN)
    status, buf = raw_query(t, f, 2, FS_ATTRIBUTE_INFO)
    assert struct.unpack_from("<I", buf)[0] & FILE_NAMED_STREAMS
    f.close()


# ------------------------------------------------------------ with Samba

@pytest.fixture(scope="module")
def samba(base_dir):
    if not os.path.exists(SAMBA_SMBD):
        pytest.skip("no Samba smbd at %s" % SAMBA_SMBD)
    s = SambaStreams(base_dir).start()
    try:
        yield s
    finally:
        finish_server(s)


def test_samba_writes_ringsmb_reads(srv, samba, request):
    d = own_dir(srv, request)
    st = connect(samba, "share", d)
    rt = connect(srv, "share", d)
    try:
        f = create(st, "x.txt:FromSamba")
        f.write(b"written by Samba", 0)
        f.close()
        f = create(rt, "x.txt:fromsamba", disp=CreateDisposition.FILE_OPEN)
        assert f.read(0, 100) == b"written by Samba"
        assert sorted(n for n, _, _ in streams_of(rt, f)) == \
            ["::$DATA", ":FromSamba:$DATA"]
        f.close()
    finally:
        disconnect(st)
        disconnect(rt)


def test_ringsmb_writes_samba_reads(srv, samba, request):
    d = own_dir(srv, request)
    st = connect(samba, "share", d)
    rt = connect(srv, "share", d)
    try:
        f = create(rt, "y.txt:From ringsmb")
        f.write(b"written by ringsmb", 0)
        f.close()
        create(rt, "y.txt:empty").close()
        f = create(st, "y.txt:From ringsmb", disp=CreateDisposition.FILE_OPEN)
        assert f.read(0, 100) == b"written by ringsmb"
        f.close()
        # Samba lists streams only on the file's handle (a stream handle:
        # INVALID_PARAMETER); ringsmb on either
        f = create(st, "y.txt", disp=CreateDisposition.FILE_OPEN)
        assert sorted((n, s) for n, s, _ in streams_of(st, f)) == \
            [("::$DATA", 0), (":From ringsmb:$DATA", 18),
             (":empty:$DATA", 0)]
        f.close()
    finally:
        disconnect(st)
        disconnect(rt)


# ------------------------------------------------------------ copy-chunk

FSCTL_SRV_COPYCHUNK = 0x001440F2


def ioctl(tree, f, ctl, inp=b"", max_out=4096):
    """test_oplock's FSCTL helper, on a tree connect of these tests."""
    client = types.SimpleNamespace(conn=tree.conn, session=tree.session,
                                   tree=tree)
    return oplock_ioctl(client, ctl, f, inp, max_out)


def copychunk(tree, src, dst, chunks):
    st, out = ioctl(tree, src, FSCTL_SRV_REQUEST_RESUME_KEY, max_out=32)
    assert st == OK
    blob = out[:24] + struct.pack("<II", len(chunks), 0)
    for s, d, n in chunks:
        blob += struct.pack("<QQII", s, d, n, 0)
    st, out = ioctl(tree, dst, FSCTL_SRV_COPYCHUNK, blob, max_out=12)
    return st, struct.unpack("<III", out) if st == OK else None


def test_copychunk_with_streams(t):
    mkfile(t.dir, "f.txt", b"0123456789")
    s = create(t, "f.txt:s")
    s.write(b"stream bytes", 0)
    d = create(t, "g.txt")
    # stream -> file
    st, rsp = copychunk(t, s, d, [(0, 0, 6), (7, 6, 5)])
    assert st == OK and rsp == (2, 0, 11)
    assert d.read(0, 100) == b"streambytes"
    # file -> stream
    f = create(t, "f.txt", disp=CreateDisposition.FILE_OPEN)
    st, rsp = copychunk(t, f, s, [(0, 2, 4)])
    assert st == OK and rsp == (1, 0, 4)
    assert s.read(0, 100) == b"st0123 bytes"
    # past the 64 KiB a stream may hold
    st, _ = copychunk(t, f, s, [(0, 65534, 4)])
    assert st == ALLOTTED_SPACE_EXCEEDED
    for h in (s, d, f):
        h.close()
    assert os.getxattr(t.dir / "f.txt", PREFIX + "s:$DATA") == \
        b"st0123 bytes\0"


def test_zero_data(t):
    """FSCTL_SET_ZERO_DATA on a stream zeroes the range, as in a file."""
    s = create(t, "f.txt:s")
    s.write(b"abcdefgh", 0)
    st, _ = ioctl(t, s, 0x000980C8, struct.pack("<QQ", 2, 5), max_out=0)
    assert st == OK
    assert s.read(0, 100) == b"ab\0\0\0fgh"
    s.close()


# ------------------------------------------------------------ leases

def lease_open(tree, name, key, state):
    from test_lease import LEASE, lease_of, rqls
    f = Open(tree, wname(tree, name))
    ctxs = f.create(ImpersonationLevel.Impersonation, RW,
                    FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL,
                    CreateDisposition.FILE_OPEN_IF, 0, oplock_level=LEASE,
                    create_contexts=[rqls(key, state, True)])
    return f, lease_of(ctxs)


def test_stream_lease_is_its_own(t):
    """A file and its stream are two lease objects (smb2.lease.request):
    each gets RWH under its own key; a key of one does not name the
    other (INVALID_PARAMETER), and the stream's key opens it again."""
    k1, k2, rwh = b"\x01" * 16, b"\x02" * 16, 0x7
    f, l1 = lease_open(t, "f.txt", k1, rwh)
    s, l2 = lease_open(t, "f.txt:s", k2, rwh)
    assert l1[:2] == (k1, rwh) and l2[:2] == (k2, rwh)
    try:
        lease_open(t, "f.txt:s", k1, rwh)
        assert False, "a file's lease key named its stream"
    except SMBResponseException as e:
        assert e.status == INVALID_PARAMETER
    s2, l3 = lease_open(t, "f.txt:S", k2, rwh)
    assert l3[:2] == (k2, rwh)
    for h in (s2, s, f):
        h.close()


def test_size_limits_as_samba(srv, samba, request):
    """The statuses of too large a stream are Samba's: past 64 KiB
    FILE_SYSTEM_LIMITATION, past what the file system holds (ext4: one
    block for all of a file's xattrs) its ENOSPC, DISK_FULL."""
    d = own_dir(srv, request)
    got = {}
    for label, server in (("samba", samba), ("ringsmb", srv)):
        tree = connect(server, "share", d)
        try:
            f = create(tree, label + ".txt:s")
            got[label] = (status_of(lambda: f.write(b"x", 65535)),
                          status_of(lambda: f.write(b"y" * 8192, 0)),
                          status_of(lambda: f.write(b"z" * 100, 0)))
            f.close()
        finally:
            disconnect(tree)
    assert got["ringsmb"] == got["samba"]
    assert got["ringsmb"][0] == FILE_SYSTEM_LIMITATION
    assert got["ringsmb"][2] == OK


def test_rename_file_with_open_stream(t):
    """A file whose stream is open is not renamed (ACCESS_DENIED, as
    smbtorture smb2.streams.basefile-rename-with-open-stream wants)."""
    s = create(t, "f.txt:s", access=RW | DELETE)
    f = create(t, "f.txt", disp=CreateDisposition.FILE_OPEN,
               access=RW | DELETE)
    assert set_info(t, f, RENAME_INFO,
                    rename_buf(wname(t, "g.txt"))) == ACCESS_DENIED
    s.close()
    assert set_info(t, f, RENAME_INFO, rename_buf(wname(t, "g.txt"))) == OK
    f.close()
    assert os.getxattr(t.dir / "g.txt", PREFIX + "s:$DATA") == b"\0"
