"""Case-insensitive lookup ('case sensitive = auto', the default, and
'preserve case'): names are found whatever their case, a case-only
collision counts as existing, rename a to A works, 'case sensitive = yes'
keeps exact lookups, and a case-folded name never leaves the share.

smbprotocol and smbclient as guest; RINGSMB_TARGET=samba runs the same
against Debian's smbd.  Both set FILE_CASE_SENSITIVE_SEARCH on every
share, as NTFS does: it says exact-case lookups are possible, not that
the share makes them.
"""
import os
import shutil
import struct
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from conftest import (SMBCLIENT, TARGET, RingsmbServer, SambaServer,
                      finish_server, sha256_file)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateAction, CreateDisposition, CreateOptions, FileAttributes,
    FilePipePrinterAccessMask, ImpersonationLevel, Open, ShareAccess,
    SMB2QueryInfoRequest, SMB2QueryInfoResponse, SMB2SetInfoRequest)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

TIMEOUT = 30
A = FilePipePrinterAccessMask
SHARE_ALL = (ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE)
DELETE = 0x00010000
READ_ATTRIBUTES = 0x80

OBJECT_NAME_NOT_FOUND = 0xC0000034
OBJECT_NAME_COLLISION = 0xC0000035
OBJECT_PATH_NOT_FOUND = 0xC000003A
ACCESS_DENIED = 0xC0000022
REFUSED = (OBJECT_NAME_NOT_FOUND, OBJECT_PATH_NOT_FOUND, ACCESS_DENIED)
FILE_RENAME_INFORMATION = 10
FS_ATTRIBUTE_INFORMATION = 5
FILE_CASE_SENSITIVE_SEARCH = 0x1

SHARES = {"share": "", "cs": "  case sensitive = yes\n",
          "nopres": "  preserve case = no\n"}


class Tree:
    def __init__(self, base):
        self.base = Path(base)
        os.chmod(self.base, 0o755)
        self.dirs = {}
        for name in SHARES:
            d = self.base / name
            d.mkdir()
            os.chmod(d, 0o777)
            self.dirs[name] = d
        self.share = self.dirs["share"]
        out = self.base / "outside"
        out.mkdir()
        (out / "secret").write_bytes(b"secret")


def casefold_server(cls):
    class CaseServer(cls):
        def share_section(self, vfs=None):
            return "".join("[%s]\n  path = %s\n  guest ok = yes\n"
                           "  read only = no\n%s\n"
                           % (name, self.tree.dirs[name], extra)
                           for name, extra in SHARES.items())
    return CaseServer


@pytest.fixture(scope="module")
def srv():
    base = tempfile.mkdtemp(prefix="ringsmb-casefold-")
    tree = Tree(base)
    cls = SambaServer if TARGET == "samba" else RingsmbServer
    s = casefold_server(cls)(tree).start()
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)


class Client:
    def __init__(self, srv, share="share"):
        self.conn = Connection(uuid.uuid4(), srv.host, srv.port,
                               require_signing=False)
        self.conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
        self.session = Session(self.conn, username="guest", password="",
                               require_encryption=False,
                               auth_protocol="ntlm")
        self.session.connect()
        self.tree = TreeConnect(self.session,
                                r"\\%s\%s" % (srv.host, share))
        self.tree.connect(require_secure_negotiate=False)

    def create(self, name, disp=CreateDisposition.FILE_OPEN,
               access=A.GENERIC_READ | A.GENERIC_WRITE, options=0):
        f = Open(self.tree, name)
        f.create(ImpersonationLevel.Impersonation, access,
                 FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL, disp,
                 options)
        return f

    def status_of(self, *args, **kw):
        try:
            f = self.create(*args, **kw)
        except SMBResponseException as e:
            return e.status
        f.close()
        return 0

    def _send(self, req):
        sent = self.conn.send(req, self.session.session_id,
                              self.tree.tree_connect_id)
        return self.conn.receive(sent, timeout=TIMEOUT)

    def rename(self, f, new, replace=False):
        n = new.encode("utf-16-le")
        req = SMB2SetInfoRequest()
        req["info_type"] = 1
        req.fields["file_info_class"].enum_strict = False
        req["file_info_class"] = FILE_RENAME_INFORMATION
        req["file_id"] = f.file_id
        req["buffer"] = struct.pack("<B7xQI", 1 if replace else 0, 0,
                                    len(n)) + n
        try:
            self._send(req)
        except SMBResponseException as e:
            return e.status
        return 0

    def fs_attributes(self):
        f = self.create("", access=READ_ATTRIBUTES,
                        options=CreateOptions.FILE_DIRECTORY_FILE)
        try:
            req = SMB2QueryInfoRequest()
            req["info_type"] = 2
            req.fields["file_info_class"].enum_strict = False
            req["file_info_class"] = FS_ATTRIBUTE_INFORMATION
            req["output_buffer_length"] = 1024
            req["file_id"] = f.file_id
            resp = SMB2QueryInfoResponse()
            resp.unpack(self._send(req)["data"].get_value())
            return struct.unpack_from("<I",
                                      resp["buffer"].get_value())[0]
        finally:
            f.close()

    def close(self):
        try:
            self.tree.disconnect()
            self.session.disconnect()
        finally:
            self.conn.disconnect(True)


@pytest.fixture
def client(srv):
    c = Client(srv)
    yield c
    c.close()


def put(srv, rel, data, share="share"):
    p = srv.tree.dirs[share] / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


def names(d):
    return sorted(os.listdir(d))


def test_open_upper_finds_lower(srv, client):
    put(srv, "upper.txt", b"lower-case on disk")
    for spelled in ("UPPER.TXT", "Upper.Txt", "upper.txt"):
        f = client.create(spelled, access=A.GENERIC_READ)
        try:
            assert f.read(0, 100) == b"lower-case on disk"
        finally:
            f.close()


def test_create_keeps_case_and_collides(srv, client):
    d = srv.tree.share
    f = client.create("New.Txt", CreateDisposition.FILE_CREATE)
    assert f.create_action == CreateAction.FILE_CREATED
    f.write(b"first", 0)
    f.close()
    assert "New.Txt" in names(d)
    assert client.status_of("new.txt", CreateDisposition.FILE_CREATE) == \
        OBJECT_NAME_COLLISION
    f = client.create("NEW.TXT", CreateDisposition.FILE_OPEN_IF)
    assert f.create_action == CreateAction.FILE_OPENED
    assert f.read(0, 10) == b"first"
    f.close()
    f = client.create("nEw.tXt", CreateDisposition.FILE_OVERWRITE_IF)
    assert f.create_action == CreateAction.FILE_OVERWRITTEN
    f.close()
    assert [n for n in names(d) if n.lower() == "new.txt"] == ["New.Txt"]


def test_missing_parents_resolved(srv, client):
    (srv.tree.share / "pdir" / "psub").mkdir(parents=True)
    os.chmod(srv.tree.share / "pdir", 0o777)
    os.chmod(srv.tree.share / "pdir" / "psub", 0o777)
    f = client.create(r"PDIR\PSub\Made.Bin", CreateDisposition.FILE_CREATE)
    f.close()
    assert names(srv.tree.share / "pdir" / "psub") == ["Made.Bin"]
    assert "PDIR" not in names(srv.tree.share)
    assert client.status_of(r"NoSuchDir\x.bin",
                            CreateDisposition.FILE_CREATE) == \
        OBJECT_PATH_NOT_FOUND


def test_case_sensitive_yes(srv):
    put(srv, "upper.txt", b"x", share="cs")
    c = Client(srv, "cs")
    try:
        assert c.status_of("UPPER.TXT", access=A.GENERIC_READ) == \
            OBJECT_NAME_NOT_FOUND
        assert c.status_of("upper.txt", access=A.GENERIC_READ) == 0
        f = c.create("UPPER.TXT", CreateDisposition.FILE_CREATE)
        f.close()
        assert names(srv.tree.dirs["cs"]) == ["UPPER.TXT", "upper.txt"]
        assert c.fs_attributes() & FILE_CASE_SENSITIVE_SEARCH
    finally:
        c.close()


def test_fs_attribute_flag_on_every_share(srv, client):
    """NTFS and Samba set FILE_CASE_SENSITIVE_SEARCH whatever the
    share's 'case sensitive' says (MS-FSCC 2.5.1: the file system can)."""
    assert client.fs_attributes() & FILE_CASE_SENSITIVE_SEARCH


def test_preserve_case_no(srv):
    c = Client(srv, "nopres")
    try:
        c.create("MiXeD.TXT", CreateDisposition.FILE_CREATE).close()
        assert c.status_of("MIXED.txt", access=A.GENERIC_READ) == 0
    finally:
        c.close()
    assert names(srv.tree.dirs["nopres"]) == ["mixed.txt"]


def smbclient(srv, commands):
    argv = [SMBCLIENT, "-N", "//%s/share" % srv.host, "-p", str(srv.port),
            "-s", str(srv.client_conf), "-m", "SMB3_11",
            "--option=client min protocol=SMB2_02", "-c", commands]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr


def test_smbclient_get_upper_path(srv, tmp_path):
    src = put(srv, "dir/sub/file.bin", os.urandom(300000))
    out = tmp_path / "got.bin"
    rc, text = smbclient(srv, r'get DIR\SUB\FILE.BIN "%s"' % out)
    assert rc == 0 and "NT_STATUS_" not in text, text
    assert sha256_file(out) == sha256_file(src)


def test_case_only_rename(srv, client):
    put(srv, "a_file.txt", b"same file")
    f = client.create("a_file.txt", access=DELETE | READ_ATTRIBUTES)
    try:
        assert client.rename(f, "A_FILE.TXT") == 0
    finally:
        f.close()
    assert "A_FILE.TXT" in names(srv.tree.share)
    assert "a_file.txt" not in names(srv.tree.share)
    assert (srv.tree.share / "A_FILE.TXT").read_bytes() == b"same file"


def test_rename_onto_case_variant(srv, client):
    put(srv, "r1.txt", b"one")
    put(srv, "r2.txt", b"two")
    f = client.create("r1.txt", access=DELETE | READ_ATTRIBUTES)
    try:
        assert client.rename(f, "R2.TXT") == OBJECT_NAME_COLLISION
        (srv.tree.share / "rdir").mkdir()
        os.chmod(srv.tree.share / "rdir", 0o777)
        assert client.rename(f, r"RDIR\Moved.txt") == 0
    finally:
        f.close()
    assert names(srv.tree.share / "rdir") == ["Moved.txt"]
    assert (srv.tree.share / "r2.txt").read_bytes() == b"two"


@pytest.mark.parametrize("link,target,spelled", [
    ("out", "ABS", r"OUT\SECRET"),
    ("up", "../outside", r"Up\Secret"),
    ("root", "/", r"ROOT\ETC\PASSWD"),
    ("proc", "/proc/self/root", r"PROC\etc\passwd"),
])
def test_folded_names_stay_confined(srv, client, link, target, spelled):
    """RELIABILITY.md item 30 / G10: a case-folded match of a symlink
    that leaves the share is refused, as the exact name is."""
    p = srv.tree.share / link
    if not p.is_symlink():
        os.symlink(str(srv.tree.base / "outside") if target == "ABS"
                   else target, p)
    for name in (spelled, spelled.lower()):
        assert client.status_of(name, access=A.GENERIC_READ) in REFUSED
        assert client.status_of(name, CreateDisposition.FILE_OPEN_IF) \
            in REFUSED
    assert names(srv.tree.base / "outside") == ["secret"]


def test_names_follow_changes_beside_the_server(srv, client):
    """Names made, renamed and removed by a local process between two
    CREATEs count at once, however the server finds case variants (it
    keeps a folder's names under inotify, casefold_dirs.c)."""
    d = srv.tree.share / "beside"
    d.mkdir()
    os.chmod(d, 0o777)
    for i in range(20):             # misses in the folder: listed, kept
        f = client.create("beside\\Made%02d.bin" % i,
                          CreateDisposition.FILE_CREATE)
        f.write(b"smb %d" % i, 0)
        f.close()
    assert client.status_of("beside\\made07.BIN",
                            CreateDisposition.FILE_CREATE) == \
        OBJECT_NAME_COLLISION
    (d / "Local.Txt").write_bytes(b"local")
    os.chmod(d / "Local.Txt", 0o666)
    assert client.status_of("beside\\local.txt",
                            CreateDisposition.FILE_CREATE) == \
        OBJECT_NAME_COLLISION
    f = client.create("beside\\LOCAL.TXT", CreateDisposition.FILE_OPEN_IF)
    assert f.create_action == CreateAction.FILE_OPENED
    assert f.read(0, 10) == b"local"
    f.close()
    os.rename(d / "Local.Txt", d / "Other.Txt")
    assert client.status_of("beside\\local.txt") == OBJECT_NAME_NOT_FOUND
    f = client.create("beside\\oTHER.txt", access=A.GENERIC_READ)
    assert f.read(0, 10) == b"local"
    f.close()
    os.unlink(d / "Other.Txt")
    assert client.status_of("beside\\other.txt") == OBJECT_NAME_NOT_FOUND
    os.unlink(d / "Made07.bin")
    f = client.create("beside\\made07.BIN", CreateDisposition.FILE_CREATE)
    assert f.create_action == CreateAction.FILE_CREATED
    f.close()
    assert len([n for n in names(d) if n.lower() == "made07.bin"]) == 1
    if TARGET != "samba":
        # Samba's stat cache still spells it as the file it deleted
        assert "made07.BIN" in names(d)


def test_unlistable_folder_stays_unlisted(srv, client):
    """A folder the user may enter but not list: names in it are found
    only as spelled, even after the server has listed it for a user who
    could (the kept names are not handed out without the listing's
    permission).  Samba's stat cache does hand out the spelling it
    learnt while the folder was readable."""
    d = srv.tree.share / "nolist"
    d.mkdir()
    (d / "Inside.Txt").write_bytes(b"inside")
    os.chmod(d / "Inside.Txt", 0o644)
    os.chmod(d, 0o777)
    f = client.create("nolist\\INSIDE.TXT", access=A.GENERIC_READ)
    f.close()                       # listed (and kept) while readable
    os.chmod(d, 0o733)
    try:
        if TARGET != "samba":
            assert client.status_of("nolist\\INSIDE.TXT",
                                    access=A.GENERIC_READ) in REFUSED
        f = client.create("nolist\\Inside.Txt", access=A.GENERIC_READ)
        assert f.read(0, 10) == b"inside"
        f.close()
    finally:
        os.chmod(d, 0o777)
