"""File-system IOCTLs (MS-SMB2 3.3.5.15, MS-FSCC 2.3) on a writable share:
server-side copy (resume key + COPYCHUNK), sparse files and zeroed
ranges, allocated ranges, network interfaces, and the statuses of the
control codes we answer with an error.  Files are prepared on disk and
checked on disk (no WRITE needed).

Runs with Python smbprotocol as guest; RINGSMB_TARGET=samba runs the same
against Debian's smbd.  Where Samba answers differently the test says so
(SAMBA_DIFFERS).
"""
import hashlib
import os
import random
import shutil
import socket
import struct
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from conftest import (TARGET, RingsmbServer, SambaServer, finish_server,
                      tool_binary)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.ioctl import SMB2IOCTLRequest  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, FileAttributes, FilePipePrinterAccessMask,
    ImpersonationLevel, Open, ShareAccess)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.structure import IntField  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

TIMEOUT = 60
A = FilePipePrinterAccessMask
SHARE_ALL = (ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE)
NO_FILE = b"\xff" * 16

FSCTL_DFS_GET_REFERRALS = 0x00060194
FSCTL_PIPE_PEEK = 0x0011400C
FSCTL_PIPE_TRANSCEIVE = 0x0011C017
FSCTL_SRV_REQUEST_RESUME_KEY = 0x00140078
FSCTL_SRV_COPYCHUNK = 0x001440F2
FSCTL_SRV_COPYCHUNK_WRITE = 0x001480F2
FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC
FSCTL_GET_REPARSE_POINT = 0x000900A8
FSCTL_CREATE_OR_GET_OBJECT_ID = 0x000900C0
FSCTL_SET_SPARSE = 0x000900C4
FSCTL_SET_ZERO_DATA = 0x000980C8
FSCTL_QUERY_ALLOCATED_RANGES = 0x000940CF
FSCTL_GET_COMPRESSION = 0x0009003C
FSCTL_SET_COMPRESSION = 0x0009C040
FSCTL_UNKNOWN_FS = 0x00090FFC
FSCTL_UNKNOWN_DEVICE = 0x00AA0000

OK = 0
BUFFER_OVERFLOW = 0x80000005
INVALID_PARAMETER = 0xC000000D
INVALID_DEVICE_REQUEST = 0xC0000010
ACCESS_DENIED = 0xC0000022
BUFFER_TOO_SMALL = 0xC0000023
OBJECT_NAME_NOT_FOUND = 0xC0000034
NOT_SUPPORTED = 0xC00000BB
INVALID_USER_BUFFER = 0xC00000E8
FILE_CLOSED = 0xC0000128
FS_DRIVER_REQUIRED = 0xC000019C
NOT_A_REPARSE_POINT = 0xC0000275

MIB = 1 << 20
NOT_FOUND = 0xC0000225
SAMBA = TARGET == "samba"


def ours_or_samba(ours, samba):
    """The status we answer, or where Debian's Samba 4.17 differs from
    MS-SMB2/MS-FSCC (SAMBA_DIFFERS), Samba's."""
    return samba if SAMBA else ours


class WritableTree:
    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"
        self.share.mkdir()
        os.chmod(self.base, 0o755)
        os.chmod(self.share, 0o777)


def writable(cls):
    class Writable(cls):
        def share_section(self, vfs=None):
            s = ("[share]\n  path = %s\n  guest ok = yes\n"
                 "  read only = no\n" % self.tree.share)
            if vfs:
                s += "  vfs objects = %s\n" % vfs
            return s
    return Writable


@pytest.fixture(scope="module")
def wsrv():
    base = tempfile.mkdtemp(prefix="ringsmb-ioctl-")
    tree = WritableTree(base)
    cls = SambaServer if TARGET == "samba" else RingsmbServer
    srv = writable(cls)(tree).start()
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


class Client:
    def __init__(self, srv, dialect=Dialects.SMB_3_1_1):
        self.conn = Connection(uuid.uuid4(), srv.host, srv.port,
                               require_signing=False)
        self.conn.connect(dialect, timeout=TIMEOUT)
        self.session = Session(self.conn, username="guest", password="",
                               require_encryption=False,
                               auth_protocol="ntlm")
        self.session.connect()
        self.tree = self.tcon()

    def tcon(self):
        t = TreeConnect(self.session, r"\\127.0.0.1\share")
        t.connect(require_secure_negotiate=False)
        return t

    def open(self, name, access=A.GENERIC_READ | A.GENERIC_WRITE,
             disp=CreateDisposition.FILE_OPEN, tree=None):
        f = Open(tree or self.tree, name)
        f.create(ImpersonationLevel.Impersonation, access,
                 FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL, disp, 0)
        return f

    def ioctl(self, ctl, fid=NO_FILE, inp=b"", max_out=65536, flags=1,
              tree=None):
        """(status, output bytes) of one IOCTL; error bodies included."""
        req = SMB2IOCTLRequest()
        # any code, also those smbprotocol's CtlCode enum does not know
        req.fields["ctl_code"] = IntField(size=4)
        req["ctl_code"] = ctl
        req["file_id"] = fid
        req["max_input_response"] = 0
        req["max_output_response"] = max_out
        req["flags"] = flags
        req["buffer"] = inp
        tid = (tree or self.tree).tree_connect_id
        r = self.conn.send(req, sid=self.session.session_id, tid=tid)
        try:
            rsp = self.conn.receive(r, timeout=TIMEOUT)
            status, body = OK, rsp["data"].get_value()
            # success is an IOCTL response body, output or not
            assert struct.unpack_from("<H", body)[0] == 49
        except SMBResponseException as e:
            status, body = e.status, e.header["data"].get_value()
        return status, ioctl_output(body)

    def close(self):
        try:
            self.session.disconnect()
        finally:
            self.conn.disconnect(True)


def ioctl_output(body):
    """The Output buffer of an IOCTL response body (b"" for an error
    response, whose StructureSize is 9)."""
    if len(body) < 48 or struct.unpack_from("<H", body)[0] != 49:
        return b""
    ofs, count = struct.unpack_from("<II", body, 32)
    return body[ofs - 64:ofs - 64 + count]


@pytest.fixture
def client(wsrv):
    c = Client(wsrv)
    yield c
    c.close()


def fresh(srv, name, data):
    p = Path(srv.tree.share) / name
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


def rand_bytes(n, seed):
    return random.Random(seed).randbytes(n)


def resume_key(c, f):
    st, out = c.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, f.file_id, max_out=32)
    assert st == OK
    assert len(out) == 32
    return out[:24]


def chunks_blob(key, chunks):
    b = key + struct.pack("<II", len(chunks), 0)
    for src, dst, n in chunks:
        b += struct.pack("<QQII", src, dst, n, 0)
    return b


def cc_rsp(out):
    assert len(out) == 12
    return struct.unpack("<III", out)


# ------------------------------------------------------------ resume key

def test_resume_key(client, wsrv):
    fresh(wsrv, "rk.bin", b"x" * 10)
    f = client.open("rk.bin")
    st, out = client.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, f.file_id)
    assert st == OK and len(out) == 32
    assert out[24:28] == b"\0\0\0\0"            # ContextLength
    st2, out2 = client.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, f.file_id)
    assert out2 == out                          # stable per open
    f.close()


def test_resume_key_small_output(client, wsrv):
    fresh(wsrv, "rk2.bin", b"x")
    f = client.open("rk2.bin")
    st, _ = client.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, f.file_id, max_out=31)
    # MS-SMB2 3.3.5.15.5
    assert st == ours_or_samba(INVALID_PARAMETER, BUFFER_TOO_SMALL)
    f.close()


def test_resume_key_without_file(client):
    st, _ = client.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, NO_FILE)
    assert st == FILE_CLOSED


# ------------------------------------------------------------ copychunk

def test_copychunk_8mib(client, wsrv):
    data = rand_bytes(8 * MIB, 1)
    fresh(wsrv, "cc_src.bin", data)
    fresh(wsrv, "cc_dst.bin", b"")
    src = client.open("cc_src.bin", A.FILE_READ_DATA)
    dst = client.open("cc_dst.bin")
    key = resume_key(client, src)
    chunks = [(i * MIB, i * MIB, MIB) for i in range(8)]
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                           chunks_blob(key, chunks), max_out=12)
    assert st == OK
    assert cc_rsp(out) == (8, 0, 8 * MIB)
    src.close()
    dst.close()
    got = (Path(wsrv.tree.share) / "cc_dst.bin").read_bytes()
    assert hashlib.sha256(got).hexdigest() == \
        hashlib.sha256(data).hexdigest()


def test_copychunk_write_needs_no_read(client, wsrv):
    data = rand_bytes(MIB + 17, 2)
    fresh(wsrv, "ccw_src.bin", data)
    fresh(wsrv, "ccw_dst.bin", b"")
    src = client.open("ccw_src.bin", A.FILE_READ_DATA)
    dst = client.open("ccw_dst.bin", A.FILE_WRITE_DATA)
    key = resume_key(client, src)
    blob = chunks_blob(key, [(0, 100, MIB), (MIB, 100 + MIB, 17)])
    # COPYCHUNK needs READ_DATA on the target, COPYCHUNK_WRITE does not
    st, _ = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id, blob, max_out=12)
    assert st == ACCESS_DENIED
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK_WRITE, dst.file_id, blob,
                           max_out=12)
    assert st == OK
    assert cc_rsp(out) == (2, 0, MIB + 17)
    src.close()
    dst.close()
    got = (Path(wsrv.tree.share) / "ccw_dst.bin").read_bytes()
    assert got == b"\0" * 100 + data


def test_copychunk_within_one_file(client, wsrv):
    data = rand_bytes(3 * 65536, 3)
    p = fresh(wsrv, "cc_self.bin", data)
    f = client.open("cc_self.bin")
    key = resume_key(client, f)
    # overlapping ranges of the same file: like memmove
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, f.file_id,
                           chunks_blob(key, [(0, 4096, 65536),
                                             (65536, 3 * 65536, 1000)]),
                           max_out=12)
    assert st == OK
    assert cc_rsp(out) == (2, 0, 66536)
    f.close()
    want = bytearray(data)
    want[4096:4096 + 65536] = data[:65536]
    want += want[65536:65536 + 1000]
    assert p.read_bytes() == bytes(want)


def test_copychunk_zero_chunks(client, wsrv):
    fresh(wsrv, "cc0_src.bin", b"abc")
    fresh(wsrv, "cc0_dst.bin", b"")
    src = client.open("cc0_src.bin", A.FILE_READ_DATA)
    dst = client.open("cc0_dst.bin")
    key = resume_key(client, src)
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                           chunks_blob(key, []), max_out=12)
    assert st == OK
    assert cc_rsp(out) == (0, 0, 0)
    src.close()
    dst.close()


@pytest.mark.parametrize("chunks", [
    [(0, 0, MIB + 1)],                          # one chunk too long
    [(0, 0, 4096)] * 257,                       # too many chunks
    [(i * MIB, i * MIB, MIB) for i in range(17)],  # total over 16 MiB
    [(0, 0, 0)],                                # a zero-length chunk
], ids=["chunk-too-long", "257-chunks", "total-17mib", "length-0"])
def test_copychunk_limits(client, wsrv, chunks):
    fresh(wsrv, "lim_src.bin", b"s" * 4096)
    fresh(wsrv, "lim_dst.bin", b"")
    src = client.open("lim_src.bin", A.FILE_READ_DATA)
    dst = client.open("lim_dst.bin")
    key = resume_key(client, src)
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                           chunks_blob(key, chunks), max_out=12)
    assert st == INVALID_PARAMETER
    # MS-SMB2 3.3.5.15.6.2: the response carries the server's limits
    assert cc_rsp(out) == (256, MIB, 16 * MIB)
    src.close()
    dst.close()
    assert (Path(wsrv.tree.share) / "lim_dst.bin").read_bytes() == b""


def test_copychunk_source_without_read(client, wsrv):
    fresh(wsrv, "nr_src.bin", b"secret" * 100)
    fresh(wsrv, "nr_dst.bin", b"")
    src = client.open("nr_src.bin", A.FILE_READ_ATTRIBUTES | A.FILE_WRITE_DATA)
    dst = client.open("nr_dst.bin")
    key = resume_key(client, src)
    st, _ = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                         chunks_blob(key, [(0, 0, 600)]), max_out=12)
    assert st == ACCESS_DENIED
    src.close()
    dst.close()
    assert (Path(wsrv.tree.share) / "nr_dst.bin").read_bytes() == b""


def test_copychunk_source_with_execute_only(client, wsrv):
    """FILE_EXECUTE reads the source as FILE_READ_DATA does (smbtorture
    smb2.ioctl.copy_chunk_bad_access); the resume key needs no access."""
    data = rand_bytes(4096, 4)
    # executable on disk: Samba maps FILE_EXECUTE to the x bit
    os.chmod(fresh(wsrv, "ex_src.bin", data), 0o777)
    fresh(wsrv, "ex_dst.bin", b"")
    src = client.open("ex_src.bin", A.FILE_EXECUTE | A.FILE_READ_ATTRIBUTES)
    dst = client.open("ex_dst.bin")
    key = resume_key(client, src)
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                           chunks_blob(key, [(0, 0, 4096)]), max_out=12)
    assert st == OK
    assert cc_rsp(out) == (1, 0, 4096)
    src.close()
    dst.close()
    assert (Path(wsrv.tree.share) / "ex_dst.bin").read_bytes() == data


def test_resume_key_needs_no_access(client, wsrv):
    fresh(wsrv, "rk_attr.bin", b"x" * 10)
    f = client.open("rk_attr.bin", A.FILE_READ_ATTRIBUTES)
    assert len(resume_key(client, f)) == 24
    f.close()


@pytest.mark.parametrize("src_access,dst_access,ctl", [
    # neither READ_DATA nor EXECUTE on the source
    (A.FILE_READ_ATTRIBUTES, A.FILE_READ_DATA | A.FILE_WRITE_DATA,
     FSCTL_SRV_COPYCHUNK),
    # neither WRITE_DATA nor APPEND_DATA on the target
    (A.FILE_READ_DATA, A.FILE_READ_DATA | A.FILE_READ_ATTRIBUTES,
     FSCTL_SRV_COPYCHUNK_WRITE),
    # COPYCHUNK (not _WRITE) also needs READ_DATA on the target
    (A.FILE_READ_DATA, A.FILE_WRITE_DATA | A.FILE_EXECUTE,
     FSCTL_SRV_COPYCHUNK),
], ids=["src-attributes-only", "dst-no-write", "dst-no-read"])
def test_copychunk_access_denied(client, wsrv, src_access, dst_access, ctl):
    fresh(wsrv, "ad_src.bin", b"s" * 4096)
    # executable on disk: Samba maps FILE_EXECUTE to the x bit
    os.chmod(fresh(wsrv, "ad_dst.bin", b""), 0o777)
    src = client.open("ad_src.bin", src_access)
    dst = client.open("ad_dst.bin", dst_access)
    key = resume_key(client, src)
    st, _ = client.ioctl(ctl, dst.file_id, chunks_blob(key, [(0, 0, 4096)]),
                         max_out=12)
    assert st == ACCESS_DENIED
    src.close()
    dst.close()
    assert (Path(wsrv.tree.share) / "ad_dst.bin").read_bytes() == b""


SAMBA_DROPS = pytest.mark.skipif(
    SAMBA, reason="SAMBA_DIFFERS: Samba 4.17 drops the connection on a "
    "resume key it does not know")


@SAMBA_DROPS
def test_copychunk_bad_key(client, wsrv):
    fresh(wsrv, "bk_dst.bin", b"")
    dst = client.open("bk_dst.bin")
    st, _ = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                         chunks_blob(b"\x42" * 24, [(0, 0, 1)]), max_out=12)
    assert st == OBJECT_NAME_NOT_FOUND
    dst.close()


@SAMBA_DROPS
def test_copychunk_key_of_closed_open(client, wsrv):
    fresh(wsrv, "kc_src.bin", b"abc")
    fresh(wsrv, "kc_dst.bin", b"")
    src = client.open("kc_src.bin", A.FILE_READ_DATA)
    key = resume_key(client, src)
    src.close()
    dst = client.open("kc_dst.bin")
    st, _ = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                         chunks_blob(key, [(0, 0, 3)]), max_out=12)
    assert st == OBJECT_NAME_NOT_FOUND
    dst.close()


def test_copychunk_small_output(client, wsrv):
    fresh(wsrv, "so_src.bin", b"abc")
    fresh(wsrv, "so_dst.bin", b"")
    src = client.open("so_src.bin", A.FILE_READ_DATA)
    dst = client.open("so_dst.bin")
    key = resume_key(client, src)
    st, _ = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                         chunks_blob(key, [(0, 0, 3)]), max_out=11)
    assert st == INVALID_PARAMETER
    src.close()
    dst.close()


def test_copychunk_source_past_eof(client, wsrv):
    fresh(wsrv, "eof_src.bin", b"abc")
    fresh(wsrv, "eof_dst.bin", b"")
    src = client.open("eof_src.bin", A.FILE_READ_DATA)
    dst = client.open("eof_dst.bin")
    key = resume_key(client, src)
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                           chunks_blob(key, [(0, 0, 3), (0, 3, 4)]),
                           max_out=12)
    # the second chunk reads past the end of the source
    assert st != OK
    src.close()
    dst.close()


def test_copychunk_across_tree_connects(client, wsrv):
    data = rand_bytes(70000, 4)
    fresh(wsrv, "xt_src.bin", data)
    fresh(wsrv, "xt_dst.bin", b"")
    t2 = client.tcon()
    src = client.open("xt_src.bin", A.FILE_READ_DATA, tree=t2)
    dst = client.open("xt_dst.bin")
    key = resume_key_on(client, src, t2)
    st, out = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                           chunks_blob(key, [(0, 0, 70000)]), max_out=12)
    assert st == OK, hex(st)
    src.close()
    dst.close()
    assert (Path(wsrv.tree.share) / "xt_dst.bin").read_bytes() == data


def resume_key_on(c, f, tree):
    st, out = c.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, f.file_id, max_out=32,
                      tree=tree)
    assert st == OK
    return out[:24]


@SAMBA_DROPS
def test_copychunk_other_session_key(wsrv, client):
    fresh(wsrv, "os_src.bin", b"abc")
    fresh(wsrv, "os_dst.bin", b"")
    other = Client(wsrv)
    try:
        src = other.open("os_src.bin", A.FILE_READ_DATA)
        key = resume_key(other, src)
        dst = client.open("os_dst.bin")
        st, _ = client.ioctl(FSCTL_SRV_COPYCHUNK, dst.file_id,
                             chunks_blob(key, [(0, 0, 3)]), max_out=12)
        assert st == OBJECT_NAME_NOT_FOUND
        dst.close()
        src.close()
    finally:
        other.close()


# ------------------------------------------------------- sparse and holes

def allocated_ranges(c, f, off, length, max_out=65536):
    st, out = c.ioctl(FSCTL_QUERY_ALLOCATED_RANGES, f.file_id,
                      struct.pack("<QQ", off, length), max_out=max_out)
    return st, [struct.unpack_from("<QQ", out, i)
                for i in range(0, len(out), 16)]


def holes_supported(path):
    """Does the file system under path punch holes (st_blocks drops)?"""
    p = Path(path) / ".holeprobe"
    with open(p, "wb") as fh:
        fh.write(b"x" * 3 * MIB)
        fh.flush()
        os.fsync(fh.fileno())
        before = os.fstat(fh.fileno()).st_blocks
        try:
            import fcntl  # noqa: F401
            libc_punch(fh.fileno(), MIB, MIB)
        except OSError:
            return False
        after = os.fstat(fh.fileno()).st_blocks
    p.unlink()
    return after < before


def libc_punch(fd, off, length):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int,
                               ctypes.c_long, ctypes.c_long]
    if libc.fallocate(fd, 0x03, off, length) != 0:   # PUNCH_HOLE|KEEP_SIZE
        raise OSError(ctypes.get_errno(), "fallocate")


def test_sparse_zero_data_and_ranges(client, wsrv):
    size = 4 * MIB
    p = fresh(wsrv, "sparse.bin", rand_bytes(size, 5))
    f = client.open("sparse.bin")
    st, _ = client.ioctl(FSCTL_SET_SPARSE, f.file_id, b"\x01", max_out=0)
    assert st == OK
    st, ranges = allocated_ranges(client, f, 0, size)
    assert st == OK and ranges == [(0, size)]
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id,
                         struct.pack("<QQ", MIB, 3 * MIB), max_out=0)
    assert st == OK
    data = p.read_bytes()
    assert len(data) == size
    assert data[MIB:3 * MIB] == b"\0" * (2 * MIB)
    assert data[:MIB] != b"\0" * MIB and data[3 * MIB:] != b"\0" * MIB
    if not holes_supported(wsrv.tree.share):
        f.close()
        pytest.skip("the share's file system does not punch holes")
    assert os.stat(p).st_blocks * 512 <= 2 * MIB + 65536
    st, ranges = allocated_ranges(client, f, 0, size)
    assert st == OK
    assert ranges == [(0, MIB), (3 * MIB, MIB)]
    # a window inside: clipped to it
    st, ranges = allocated_ranges(client, f, 512 * 1024, 3 * MIB)
    assert ranges == [(512 * 1024, 512 * 1024), (3 * MIB, 512 * 1024)]
    # room for one range only: BUFFER_OVERFLOW with the first (Windows)
    st, ranges = allocated_ranges(client, f, 0, size, max_out=24)
    assert (st, ranges) == ours_or_samba((BUFFER_OVERFLOW, [(0, MIB)]),
                                         (BUFFER_TOO_SMALL, []))
    f.close()


def test_zero_data_without_sparse_flag(client, wsrv):
    """NTFS's and Samba's answer (smb2.ioctl.sparse_punch): zeroing a
    file not marked sparse leaves it allocated, and QUERY_ALLOCATED_RANGES
    reports all of it; marked sparse, the zeroed range is a hole (where
    the file system punches one); the flag cleared, all of it again."""
    size = 2 * MIB
    p = fresh(wsrv, "nsparse.bin", rand_bytes(size, 7))
    f = client.open("nsparse.bin")
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id,
                         struct.pack("<QQ", 0, MIB), max_out=0)
    assert st == OK
    assert p.read_bytes()[:MIB] == b"\0" * MIB
    assert allocated_ranges(client, f, 0, size) == (OK, [(0, size)])
    assert allocated_ranges(client, f, 4096, 8192) == (OK, [(4096, 8192)])
    if not SAMBA and holes_supported(wsrv.tree.share):
        # ringsmb gives the blocks back, as NTFS keeps them (Samba 4.17
        # leaves the hole: "strict allocate" is off by default)
        assert os.stat(p).st_blocks * 512 >= size
    st, _ = client.ioctl(FSCTL_SET_SPARSE, f.file_id, b"\x01", max_out=0)
    assert st == OK
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id,
                         struct.pack("<QQ", 0, MIB), max_out=0)
    assert st == OK
    if holes_supported(wsrv.tree.share):
        assert allocated_ranges(client, f, 0, size) == (OK, [(MIB, MIB)])
    st, _ = client.ioctl(FSCTL_SET_SPARSE, f.file_id, b"\x00", max_out=0)
    assert st == OK
    assert allocated_ranges(client, f, 0, size) == (OK, [(0, size)])
    f.close()
    assert p.read_bytes()[:MIB] == b"\0" * MIB


def test_allocated_ranges_edges(client, wsrv):
    fresh(wsrv, "qar.bin", b"q" * 10000)
    f = client.open("qar.bin")
    st, ranges = allocated_ranges(client, f, 0, 0)
    assert (st, ranges) == (OK, [])
    st, ranges = allocated_ranges(client, f, 20000, 100)
    assert (st, ranges) == (OK, [])
    st, ranges = allocated_ranges(client, f, 100, 1 << 40)
    assert (st, ranges) == (OK, [(100, 9900)])
    st, _ = client.ioctl(FSCTL_QUERY_ALLOCATED_RANGES, f.file_id,
                         b"\0" * 15)
    assert st == INVALID_PARAMETER
    st, _ = allocated_ranges(client, f, 1, (1 << 64) - 1)
    assert st == INVALID_PARAMETER
    st, _ = allocated_ranges(client, f, 0, 100, max_out=8)
    assert st == BUFFER_TOO_SMALL
    # nothing to return fits any buffer
    st, _ = allocated_ranges(client, f, 20000, 100, max_out=0)
    assert st == OK
    f.close()


def test_zero_data_checks(client, wsrv):
    p = fresh(wsrv, "zd.bin", b"z" * 8192)
    f = client.open("zd.bin", A.FILE_READ_DATA)
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id,
                         struct.pack("<QQ", 0, 100))
    assert st == ACCESS_DENIED
    f.close()
    f = client.open("zd.bin")
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id,
                         struct.pack("<QQ", 200, 100))
    assert st == INVALID_PARAMETER              # FileOffset > BeyondFinalZero
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id, b"\0" * 8)
    assert st == INVALID_PARAMETER
    # past the end: zeroed without growing the file
    st, _ = client.ioctl(FSCTL_SET_ZERO_DATA, f.file_id,
                         struct.pack("<QQ", 8000, 100000))
    assert st == OK
    f.close()
    assert p.read_bytes() == b"z" * 8000 + b"\0" * 192


def test_set_sparse_variants(client, wsrv):
    fresh(wsrv, "sp.bin", b"x")
    f = client.open("sp.bin")
    for inp in (b"", b"\x00", b"\x01", b"\x01\x00\x00\x00"):
        st, _ = client.ioctl(FSCTL_SET_SPARSE, f.file_id, inp, max_out=0)
        assert st == OK, inp
    f.close()
    f = client.open("sp.bin", A.FILE_READ_DATA)
    st, _ = client.ioctl(FSCTL_SET_SPARSE, f.file_id, b"\x01", max_out=0)
    assert st == ACCESS_DENIED
    f.close()
    d = client.open("", A.FILE_READ_ATTRIBUTES | A.FILE_WRITE_ATTRIBUTES)
    st, _ = client.ioctl(FSCTL_SET_SPARSE, d.file_id, b"\x01", max_out=0)
    assert st == INVALID_PARAMETER              # a directory
    d.close()


# ----------------------------------------------------- other control codes

def test_compression(client, wsrv):
    fresh(wsrv, "cmp.bin", b"x")
    f = client.open("cmp.bin")
    st, out = client.ioctl(FSCTL_GET_COMPRESSION, f.file_id, max_out=2)
    assert (st, out) == (OK, b"\0\0")           # COMPRESSION_FORMAT_NONE
    st, _ = client.ioctl(FSCTL_GET_COMPRESSION, f.file_id, max_out=1)
    assert st == INVALID_USER_BUFFER            # as Samba
    st, _ = client.ioctl(FSCTL_SET_COMPRESSION, f.file_id, b"\0\0",
                         max_out=0)
    assert st == OK
    st, _ = client.ioctl(FSCTL_SET_COMPRESSION, f.file_id, b"\2\0",
                         max_out=0)
    assert st == NOT_SUPPORTED                  # no compression on Linux
    st, _ = client.ioctl(FSCTL_SET_COMPRESSION, f.file_id, b"\0",
                         max_out=0)
    assert st == INVALID_PARAMETER
    f.close()


def test_reparse_point(client, wsrv):
    fresh(wsrv, "rp.bin", b"x")
    f = client.open("rp.bin")
    st, _ = client.ioctl(FSCTL_GET_REPARSE_POINT, f.file_id)
    assert st == NOT_A_REPARSE_POINT
    f.close()


def test_object_id(client, wsrv):
    fresh(wsrv, "oid.bin", b"x")
    fresh(wsrv, "oid2.bin", b"x")
    f = client.open("oid.bin")
    g = client.open("oid2.bin")
    st, out = client.ioctl(FSCTL_CREATE_OR_GET_OBJECT_ID, f.file_id)
    assert st == OK and len(out) == 64
    st2, out2 = client.ioctl(FSCTL_CREATE_OR_GET_OBJECT_ID, f.file_id)
    assert out2 == out
    st3, out3 = client.ioctl(FSCTL_CREATE_OR_GET_OBJECT_ID, g.file_id)
    assert st3 == OK and out3[:16] != out[:16]
    assert out[32:48] == out[:16]               # BirthObjectId
    st, out = client.ioctl(FSCTL_CREATE_OR_GET_OBJECT_ID, f.file_id,
                           max_out=16)
    # MS-FSCC 2.3.2; Samba cuts the buffer to 16 bytes
    assert st == ours_or_samba(INVALID_PARAMETER, OK)
    f.close()
    g.close()


def test_unknown_and_unsupported_codes(client, wsrv):
    fresh(wsrv, "uk.bin", b"x")
    f = client.open("uk.bin")
    # the statuses Samba gives on a disk share (MS-SMB2 leaves them to
    # the object store)
    for ctl, want in ((FSCTL_UNKNOWN_FS, INVALID_DEVICE_REQUEST),
                      (FSCTL_UNKNOWN_DEVICE, INVALID_DEVICE_REQUEST),
                      (0x00140FFC, INVALID_DEVICE_REQUEST),
                      (0x00098344, INVALID_DEVICE_REQUEST),  # dup extents
                      (0x00144064, INVALID_DEVICE_REQUEST),  # snapshots
                      (FSCTL_PIPE_PEEK, INVALID_DEVICE_REQUEST),
                      (FSCTL_PIPE_TRANSCEIVE, NOT_SUPPORTED),
                      (0x00110018, INVALID_PARAMETER),       # PIPE_WAIT
                      (FSCTL_DFS_GET_REFERRALS, INVALID_PARAMETER)):
        st, _ = client.ioctl(ctl, f.file_id)
        assert st == want, hex(ctl)
    f.close()
    # without a file only DFS, PIPE_WAIT and interfaces are looked at
    for ctl, want in ((FSCTL_UNKNOWN_FS, FILE_CLOSED),
                      (FSCTL_UNKNOWN_DEVICE, FILE_CLOSED),
                      (FSCTL_GET_REPARSE_POINT, FILE_CLOSED),
                      (0x00110018, INVALID_DEVICE_REQUEST),
                      (0x000601B0, INVALID_DEVICE_REQUEST)):
        st, _ = client.ioctl(ctl, NO_FILE)
        assert st == want, hex(ctl)
    st, _ = client.ioctl(FSCTL_DFS_GET_REFERRALS, NO_FILE,
                         b"\x03\x00" + "\\x\\y\0".encode("utf-16-le"))
    assert st == NOT_FOUND                      # not a DFS root


def test_not_fsctl_flag(client, wsrv):
    fresh(wsrv, "nf.bin", b"x")
    f = client.open("nf.bin")
    st, _ = client.ioctl(FSCTL_SRV_REQUEST_RESUME_KEY, f.file_id, flags=0)
    assert st == NOT_SUPPORTED                  # MS-SMB2 3.3.5.15
    f.close()


# ------------------------------------------------------ network interfaces

def parse_ifaces(out):
    res, ofs = [], 0
    while True:
        nxt, idx, cap, _, speed, fam = struct.unpack_from("<IIIIQH", out, ofs)
        sa = out[ofs + 24:ofs + 24 + 128]
        if fam == 2:
            addr = socket.inet_ntop(socket.AF_INET, sa[4:8])
        else:
            addr = socket.inet_ntop(socket.AF_INET6, sa[8:24])
        res.append((idx, cap, speed, fam, addr))
        if nxt == 0:
            return res
        ofs += nxt


def test_network_interface_info(client):
    st, out = client.ioctl(FSCTL_QUERY_NETWORK_INTERFACE_INFO, NO_FILE)
    assert st == OK
    assert len(out) % 152 == 0 and out
    ifs = parse_ifaces(out)
    lo = [i for i in ifs if i[4] == "127.0.0.1"]
    assert lo, ifs
    idx, cap, speed, fam, _ = lo[0]
    assert idx == socket.if_nametoindex("lo")
    assert cap & 0x3 == 0                       # no RSS, no RDMA
    assert speed > 0 and fam == 2


def test_network_interface_info_small(client, wsrv):
    st, _ = client.ioctl(FSCTL_QUERY_NETWORK_INTERFACE_INFO, NO_FILE,
                         max_out=100)
    assert st == BUFFER_TOO_SMALL
    fresh(wsrv, "ni.bin", b"x")
    f = client.open("ni.bin")
    st, _ = client.ioctl(FSCTL_QUERY_NETWORK_INTERFACE_INFO, f.file_id)
    assert st == INVALID_PARAMETER              # as Samba
    f.close()


def test_network_interface_info_ipv6(share_tree, tmp_path):
    """A listener on ::1 is reported as an IPv6 interface."""
    if not socket.has_ipv6 or SAMBA:
        pytest.skip("ringsmb listener configuration only")
    try:
        with socket.socket(socket.AF_INET6) as s6:
            s6.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback")
    base = tempfile.mkdtemp(prefix="ringsmb-ioctl6-")
    tree = WritableTree(base)
    srv = writable(RingsmbServer)(
        tree, extra_global={"interfaces": "127.0.0.1 ::1"}).start()
    try:
        c = Client(srv)
        st, out = c.ioctl(FSCTL_QUERY_NETWORK_INTERFACE_INFO, NO_FILE)
        c.close()
        assert st == OK
        addrs = {(i[3], i[4]) for i in parse_ifaces(out)}
        assert (2, "127.0.0.1") in addrs and (0x17, "::1") in addrs
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)


def _iface_server(extra):
    base = tempfile.mkdtemp(prefix="ringsmb-ioctl-if-")
    srv = writable(RingsmbServer)(WritableTree(base),
                                  extra_global=extra).start()
    return base, srv


def _ifaces_of(srv):
    c = Client(srv)
    try:
        st, out = c.ioctl(FSCTL_QUERY_NETWORK_INTERFACE_INFO, NO_FILE)
    finally:
        c.close()
    assert st == OK
    return parse_ifaces(out)


def test_network_interface_keys():
    """Samba's extended "interfaces" syntax: speed, capability=RSS and
    if_index reach the client as configured."""
    if SAMBA:
        pytest.skip("ringsmb listener configuration only")
    base, srv = _iface_server({
        "interfaces": '"127.0.0.1;speed=25000000000,capability=RSS,'
                      'if_index=77"'})
    try:
        assert _ifaces_of(srv) == [(77, 1, 25000000000, 2, "127.0.0.1")]
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)


def test_network_interface_only_listed():
    """Listening on every address ("bind interfaces only = no"), the
    server still advertises only what "interfaces" names, as Samba; an
    RDMA capability is refused (no SMB Direct) and never advertised, the
    entry's other keys still apply, and testparm names the line."""
    if SAMBA:
        pytest.skip("ringsmb listener configuration only")
    base, srv = _iface_server({
        "bind interfaces only": "no",
        "interfaces": '"lo;capability=RDMA,speed=1000"'})
    try:
        ifs = _ifaces_of(srv)
        assert {i[4] for i in ifs} <= {"127.0.0.1", "::1"}, ifs
        assert "127.0.0.1" in {i[4] for i in ifs}
        for idx, cap, speed, _, _ in ifs:
            assert idx == socket.if_nametoindex("lo")
            assert cap == 0 and speed == 1000
        tp = subprocess.run([str(tool_binary("testparm")), "-s",
                             str(srv.conf)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=60)
        text = tp.stdout.decode(errors="replace")
        assert "capability=RDMA" in text and "interfaces" in text, text
        assert "%s:" % srv.conf in text, text
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)
