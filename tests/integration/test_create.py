"""CREATE on a writable share (issue 4): every CreateDisposition on an
existing and a missing name with its CreateAction, directories, share
modes across opens, delete-on-close and delete-pending, read-only share
and read-only file refusals.  Checked on disk, not only on the wire.

Runs with Python smbprotocol as guest; RINGSMB_TARGET=samba runs the same
against Debian's smbd (its guest is 'nobody', so the share is mode 0777).
"""
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from conftest import TARGET, RingsmbServer, SambaServer, finish_server

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateAction, CreateDisposition, CreateOptions, FileAttributes,
    FilePipePrinterAccessMask, ImpersonationLevel, Open, ShareAccess)

TIMEOUT = 30
A = FilePipePrinterAccessMask
SHARE_ALL = (ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE)

STATUS_OBJECT_NAME_NOT_FOUND = 0xC0000034
STATUS_OBJECT_PATH_NOT_FOUND = 0xC000003A
STATUS_OBJECT_NAME_COLLISION = 0xC0000035
STATUS_SHARING_VIOLATION = 0xC0000043
STATUS_DELETE_PENDING = 0xC0000056
STATUS_ACCESS_DENIED = 0xC0000022
STATUS_FILE_IS_A_DIRECTORY = 0xC00000BA
STATUS_NOT_A_DIRECTORY = 0xC0000103
STATUS_CANNOT_DELETE = 0xC0000121


class WritableTree:
    """What the server classes need of a share tree: a path."""

    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"
        self.share.mkdir()
        os.chmod(self.base, 0o755)
        os.chmod(self.share, 0o777)


def writable(cls, read_only):
    class Writable(cls):
        def share_section(self, vfs=None):
            return ("[share]\n  path = %s\n  guest ok = yes\n"
                    "  read only = %s\n" % (self.tree.share,
                                           "yes" if read_only else "no"))
    return Writable


def start(read_only=False):
    base = tempfile.mkdtemp(prefix="ringsmb-create-")
    tree = WritableTree(base)
    cls = SambaServer if TARGET == "samba" else RingsmbServer
    srv = writable(cls, read_only)(tree).start()
    return srv, tree, base


@pytest.fixture(scope="module")
def wsrv():
    srv, tree, base = start()
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def rosrv():
    srv, tree, base = start(read_only=True)
    (tree.share / "exists.txt").write_bytes(b"x")
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


class Client:
    def __init__(self, srv):
        self.conn = Connection(uuid.uuid4(), srv.host, srv.port,
                               require_signing=False)
        self.conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
        self.session = Session(self.conn, username="guest", password="",
                               require_encryption=False,
                               auth_protocol="ntlm")
        self.session.connect()
        self.tree = TreeConnect(self.session, r"\\%s\share" % srv.host)
        self.tree.connect(require_secure_negotiate=False)

    def create(self, name, disp, access=A.GENERIC_READ | A.GENERIC_WRITE,
               share=SHARE_ALL, options=0):
        f = Open(self.tree, name)
        f.create(ImpersonationLevel.Impersonation, access,
                 FileAttributes.FILE_ATTRIBUTE_NORMAL, share, disp, options)
        return f

    def status_of(self, *args, **kw):
        try:
            f = self.create(*args, **kw)
        except SMBResponseException as e:
            return e.status
        f.close()
        return 0

    def close(self):
        try:
            self.tree.disconnect()
            self.session.disconnect()
        finally:
            self.conn.disconnect(True)


@pytest.fixture
def client(wsrv):
    c = Client(wsrv)
    yield c
    c.close()


def share_path(srv, name):
    return Path(srv.tree.share) / name


def fresh(srv, name, data=b"0123456789"):
    p = share_path(srv, name)
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


# (disposition, exists before) -> (status, CreateAction, size after)
DISPOSITIONS = [
    (CreateDisposition.FILE_OPEN, True, 0, CreateAction.FILE_OPENED, 10),
    (CreateDisposition.FILE_OPEN, False, STATUS_OBJECT_NAME_NOT_FOUND,
     None, None),
    (CreateDisposition.FILE_CREATE, True, STATUS_OBJECT_NAME_COLLISION,
     None, 10),
    (CreateDisposition.FILE_CREATE, False, 0, CreateAction.FILE_CREATED, 0),
    (CreateDisposition.FILE_OPEN_IF, True, 0, CreateAction.FILE_OPENED, 10),
    (CreateDisposition.FILE_OPEN_IF, False, 0, CreateAction.FILE_CREATED, 0),
    (CreateDisposition.FILE_OVERWRITE, True, 0,
     CreateAction.FILE_OVERWRITTEN, 0),
    (CreateDisposition.FILE_OVERWRITE, False, STATUS_OBJECT_NAME_NOT_FOUND,
     None, None),
    (CreateDisposition.FILE_OVERWRITE_IF, True, 0,
     CreateAction.FILE_OVERWRITTEN, 0),
    (CreateDisposition.FILE_OVERWRITE_IF, False, 0,
     CreateAction.FILE_CREATED, 0),
    (CreateDisposition.FILE_SUPERSEDE, True, 0,
     CreateAction.FILE_SUPERSEDED, 0),
    (CreateDisposition.FILE_SUPERSEDE, False, 0,
     CreateAction.FILE_CREATED, 0),
]


@pytest.mark.parametrize("disp,exists,status,action,size", DISPOSITIONS)
def test_disposition(wsrv, client, disp, exists, status, action, size):
    name = "disp_%d_%d.bin" % (disp, exists)
    p = share_path(wsrv, name)
    if exists:
        fresh(wsrv, name)
    elif p.exists():
        p.unlink()
    try:
        f = client.create(name, disp,
                          options=CreateOptions.FILE_NON_DIRECTORY_FILE)
    except SMBResponseException as e:
        assert e.status == status
        assert status != 0
    else:
        assert status == 0
        assert f.create_action == action
        assert f.end_of_file == size
        f.close()
    if size is None:
        assert not p.exists()
    else:
        assert p.stat().st_size == size


def test_create_directory(wsrv, client):
    d = share_path(wsrv, "newdir")
    shutil.rmtree(d, ignore_errors=True)
    f = client.create("newdir", CreateDisposition.FILE_CREATE,
                      access=A.GENERIC_READ,
                      options=CreateOptions.FILE_DIRECTORY_FILE)
    assert f.create_action == CreateAction.FILE_CREATED
    f.close()
    assert d.is_dir()
    f = client.create("newdir\\inner.txt", CreateDisposition.FILE_CREATE)
    f.close()
    assert (d / "inner.txt").is_file()
    assert client.status_of("newdir", CreateDisposition.FILE_OPEN,
                            options=CreateOptions.FILE_NON_DIRECTORY_FILE
                            ) == STATUS_FILE_IS_A_DIRECTORY
    assert client.status_of("newdir\\inner.txt", CreateDisposition.FILE_OPEN,
                            options=CreateOptions.FILE_DIRECTORY_FILE
                            ) == STATUS_NOT_A_DIRECTORY
    assert client.status_of("nodir\\x.txt", CreateDisposition.FILE_CREATE
                            ) == STATUS_OBJECT_PATH_NOT_FOUND
    assert not share_path(wsrv, "nodir").exists()


def test_sharing_violation(wsrv, client):
    fresh(wsrv, "shared.bin")
    first = client.create("shared.bin", CreateDisposition.FILE_OPEN,
                          share=ShareAccess.FILE_SHARE_READ)
    try:
        # the first open reads and writes and lets others only read
        assert client.status_of("shared.bin", CreateDisposition.FILE_OPEN,
                                access=A.FILE_WRITE_DATA
                                ) == STATUS_SHARING_VIOLATION
        assert client.status_of("shared.bin", CreateDisposition.FILE_OPEN,
                                access=A.FILE_READ_DATA,
                                share=ShareAccess.FILE_SHARE_READ
                                ) == STATUS_SHARING_VIOLATION
        assert client.status_of("shared.bin", CreateDisposition.FILE_OPEN,
                                access=A.FILE_READ_DATA) == 0
        # attribute-only opens take no part in share modes
        assert client.status_of("shared.bin", CreateDisposition.FILE_OPEN,
                                access=A.FILE_READ_ATTRIBUTES, share=0) == 0
    finally:
        first.close()
    assert client.status_of("shared.bin", CreateDisposition.FILE_OPEN,
                            access=A.FILE_WRITE_DATA) == 0


@pytest.mark.skipif(TARGET == "samba", reason="Samba 4.17 let the second "
                    "connection open the file here, then answered the "
                    "first open's CLOSE with INVALID_PARAMETER; not "
                    "investigated")
def test_sharing_violation_across_connections(wsrv, client):
    fresh(wsrv, "shared2.bin")
    first = client.create("shared2.bin", CreateDisposition.FILE_OPEN, share=0)
    other = Client(wsrv)
    try:
        assert other.status_of("shared2.bin", CreateDisposition.FILE_OPEN,
                               access=A.FILE_READ_DATA
                               ) == STATUS_SHARING_VIOLATION
    finally:
        first.close()
        other.close()


def test_delete_on_close(wsrv, client):
    p = fresh(wsrv, "doc.bin")
    f = client.create("doc.bin", CreateDisposition.FILE_OPEN,
                      access=A.DELETE | A.FILE_READ_DATA,
                      options=CreateOptions.FILE_DELETE_ON_CLOSE)
    assert p.exists()
    f.close()
    assert not p.exists()


def test_delete_pending_blocks_new_opens(wsrv, client):
    p = fresh(wsrv, "pending.bin")
    a = client.create("pending.bin", CreateDisposition.FILE_OPEN,
                      access=A.DELETE | A.FILE_READ_DATA,
                      options=CreateOptions.FILE_DELETE_ON_CLOSE)
    b = client.create("pending.bin", CreateDisposition.FILE_OPEN,
                      access=A.FILE_READ_DATA)
    a.close()
    assert p.exists()           # b still holds it open
    assert client.status_of("pending.bin", CreateDisposition.FILE_OPEN,
                            access=A.FILE_READ_DATA) == STATUS_DELETE_PENDING
    b.close()
    assert not p.exists()


def test_delete_on_close_directory(wsrv, client):
    d = share_path(wsrv, "docdir")
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    f = client.create("docdir", CreateDisposition.FILE_OPEN,
                      access=A.DELETE | A.FILE_READ_ATTRIBUTES,
                      options=(CreateOptions.FILE_DIRECTORY_FILE |
                               CreateOptions.FILE_DELETE_ON_CLOSE))
    f.close()
    assert not d.exists()


def test_delete_on_close_on_disconnect(wsrv):
    p = fresh(wsrv, "doc_drop.bin")
    c = Client(wsrv)
    c.create("doc_drop.bin", CreateDisposition.FILE_OPEN,
             access=A.DELETE | A.FILE_READ_DATA,
             options=CreateOptions.FILE_DELETE_ON_CLOSE)
    c.conn.disconnect(True)     # no CLOSE: the connection goes away
    for _ in range(50):
        if not p.exists():
            break
        import time
        time.sleep(0.02)
    assert not p.exists()


@pytest.mark.skipif(TARGET == "samba", reason="Samba 4.17 does not map "
                    "mode 0444 to READONLY ('map readonly = no')")
def test_readonly_file(wsrv, client):
    p = fresh(wsrv, "ro.bin")
    os.chmod(p, 0o444)
    try:
        assert client.status_of("ro.bin", CreateDisposition.FILE_OPEN,
                                access=A.FILE_WRITE_DATA
                                ) == STATUS_ACCESS_DENIED
        assert client.status_of("ro.bin", CreateDisposition.FILE_OPEN,
                                access=A.DELETE,
                                options=CreateOptions.FILE_DELETE_ON_CLOSE
                                ) == STATUS_CANNOT_DELETE
        assert client.status_of("ro.bin", CreateDisposition.FILE_OVERWRITE_IF
                                ) == STATUS_ACCESS_DENIED
        assert p.read_bytes() == b"0123456789"
        assert client.status_of("ro.bin", CreateDisposition.FILE_OPEN,
                                access=A.FILE_READ_DATA) == 0
    finally:
        os.chmod(p, 0o644)


def test_read_only_share(rosrv):
    c = Client(rosrv)
    try:
        assert c.status_of("new.txt", CreateDisposition.FILE_CREATE
                           ) == STATUS_ACCESS_DENIED
        # nothing can be created: the name stays missing (as Samba)
        assert c.status_of("new.txt", CreateDisposition.FILE_OPEN_IF,
                           access=A.GENERIC_READ
                           ) == STATUS_OBJECT_NAME_NOT_FOUND
        assert c.status_of("exists.txt", CreateDisposition.FILE_OVERWRITE_IF,
                           access=A.GENERIC_READ) == STATUS_ACCESS_DENIED
        assert c.status_of("exists.txt", CreateDisposition.FILE_OPEN,
                           access=A.GENERIC_READ) == 0
    finally:
        c.close()
    assert not (Path(rosrv.tree.share) / "new.txt").exists()
    assert (Path(rosrv.tree.share) / "exists.txt").read_bytes() == b"x"


def create_attrs(c, name, disp, attrs):
    """NTSTATUS of a CREATE with FileAttributes attrs (0: success)."""
    f = Open(c.tree, name)
    try:
        f.create(ImpersonationLevel.Impersonation,
                 A.GENERIC_READ | A.GENERIC_WRITE, attrs, SHARE_ALL, disp,
                 0)
    except SMBResponseException as e:
        return e.status
    f.close()
    return 0


@pytest.mark.parametrize("kept", [FileAttributes.FILE_ATTRIBUTE_HIDDEN,
                                  FileAttributes.FILE_ATTRIBUTE_SYSTEM])
def test_overwrite_needs_hidden_and_system_kept(client, wsrv, kept):
    """MS-FSA 2.1.5.1.2.1: overwriting a file that has HIDDEN or SYSTEM
    without asking for them again is ACCESS_DENIED (Windows, Samba:
    smb2.openattr); with them it succeeds; a plain file is overwritten
    with any attributes.  FILE_SUPERSEDE is not checked: Samba 4.17
    replaces the file."""
    name = "attr-%s.txt" % uuid.uuid4().hex[:8]
    normal = FileAttributes.FILE_ATTRIBUTE_NORMAL
    assert create_attrs(client, name, CreateDisposition.FILE_CREATE,
                        kept) == 0
    for disp in (CreateDisposition.FILE_OVERWRITE,
                 CreateDisposition.FILE_OVERWRITE_IF):
        assert create_attrs(client, name, disp, normal) == \
            STATUS_ACCESS_DENIED
    assert create_attrs(client, name, CreateDisposition.FILE_OPEN,
                        normal) == 0
    assert create_attrs(client, name, CreateDisposition.FILE_OVERWRITE,
                        kept) == 0
    assert create_attrs(client, name, CreateDisposition.FILE_SUPERSEDE,
                        normal) == 0
    plain = "plain-%s.txt" % uuid.uuid4().hex[:8]
    assert create_attrs(client, plain, CreateDisposition.FILE_CREATE,
                        normal) == 0
    assert create_attrs(client, plain, CreateDisposition.FILE_OVERWRITE,
                        normal) == 0
