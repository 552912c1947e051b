"""CHANGE_NOTIFY (MS-SMB2 3.3.5.19, MS-FSCC 2.4.42) with smbprotocol
against a writable share: changes made through SMB and by local
processes, renames as OLD/NEW pairs, WATCH_TREE subpaths, changes
buffered between requests, CANCEL, CLOSE / TREE_DISCONNECT / LOGOFF with
a request pending, and NOTIFY_ENUM_DIR when the changes do not fit.

RINGSMB_TARGET=samba runs the same against Debian's smbd; where Samba
answers differently the test says so (expect()).
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
from smbprotocol.change_notify import (  # noqa: E402
    CompletionFilter, SMB2ChangeNotifyRequest, SMB2ChangeNotifyResponse)
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.header import NtStatus  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open, ShareAccess, SMB2SetInfoRequest)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import SMB2TreeDisconnect, TreeConnect  # noqa: E402

TIMEOUT = 30
WAIT = 10           # seconds a notification may take to arrive

OK = 0
NOTIFY_CLEANUP = 0x0000010B
NOTIFY_ENUM_DIR = 0x0000010C
PENDING = 0x00000103
CANCELLED = 0xC0000120
INVALID_PARAMETER = 0xC000000D

ADDED, REMOVED, MODIFIED, OLD_NAME, NEW_NAME = 1, 2, 3, 4, 5
FILE_NAME = CompletionFilter.FILE_NOTIFY_CHANGE_FILE_NAME
DIR_NAME = CompletionFilter.FILE_NOTIFY_CHANGE_DIR_NAME
NAMES = FILE_NAME | DIR_NAME
WATCH_TREE = 0x0001

LIST_DIRECTORY, READ_ATTRIBUTES, DELETE = 0x1, 0x80, 0x10000
GENERIC_ALL = 0x10000000
SYNCHRONIZE = 0x100000
SHARE_ALL = (ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE)
RENAME_CLASS = 10


def writable(cls):
    class Writable(cls):
        def share_section(self, vfs=None):
            return super().share_section(vfs).replace("read only = yes",
                                                      "read only = no")
    return Writable


class Tree:
    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"


@pytest.fixture(scope="module")
def wsrv():
    if TARGET == "ringsmb" and not ringsmb_binary().exists():
        pytest.fail("ringsmb binary %s not found" % ringsmb_binary())
    base = tempfile.mkdtemp(prefix="ringsmb-notify-")
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


def connect(srv):
    conn = Connection(uuid.uuid4(), srv.host, srv.port,
                      require_signing=False)
    conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
    session = Session(conn, username="guest", password="",
                      require_encryption=False, auth_protocol="ntlm")
    session.connect()
    tree = TreeConnect(session, r"\\%s\share" % srv.host)
    tree.connect(require_secure_negotiate=False)
    return conn, session, tree


@pytest.fixture
def t(wsrv, request):
    """A tree connect (SMB 3.1.1, guest) and the test's own directory."""
    d = wsrv.tree.share / request.node.name.replace("[", "_").strip("]")
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    conn, session, tree = connect(wsrv)
    tree.dir = d
    tree.rel = d.name
    tree.srv = wsrv
    try:
        yield tree
    finally:
        # opens and pending requests go with the connection
        conn.disconnect(False)


def wname(tree, name):
    return tree.rel + ("\\" + name.replace("/", "\\") if name else "")


def op(tree, name, access, opts=0, disp=CreateDisposition.FILE_OPEN):
    f = Open(tree, wname(tree, name))
    f.create(ImpersonationLevel.Impersonation, access | SYNCHRONIZE,
             FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL, disp, opts)
    return f


def opendir(tree, name="", access=LIST_DIRECTORY | READ_ATTRIBUTES):
    return op(tree, name, access, CreateOptions.FILE_DIRECTORY_FILE)


def notify_send(tree, f, filt=NAMES, flags=0, length=65536):
    req = SMB2ChangeNotifyRequest()
    req["flags"] = flags
    req["output_buffer_length"] = length
    req["file_id"] = f.file_id
    req["completion_filter"] = filt
    conn = tree.session.connection
    return conn.send(req, tree.session.session_id, tree.tree_connect_id)


def parse(buf):
    out, ofs = [], 0
    while buf:
        nxt, action, nlen = struct.unpack_from("<III", buf, ofs)
        name = buf[ofs + 12:ofs + 12 + nlen].decode("utf-16-le")
        out.append((action, name))
        if nxt == 0:
            break
        assert nxt % 4 == 0, "NextEntryOffset %d not 4-byte aligned" % nxt
        ofs += nxt
    return out


def notify_wait(tree, sent, timeout=WAIT):
    """(status, [(action, name), ...]) of a sent request."""
    conn = tree.session.connection
    try:
        resp = conn.receive(sent, timeout=timeout)
    except SMBResponseException as e:
        return e.status, []
    rsp = SMB2ChangeNotifyResponse()
    rsp.unpack(resp["data"].get_value())
    return resp["status"].get_value(), parse(rsp["buffer"].get_value())


def notify(tree, f, action_fn, **kw):
    """Send a request, wait for its interim response, do action_fn()."""
    sent = notify_send(tree, f, **kw)
    wait_pending(tree, sent)
    action_fn()
    return notify_wait(tree, sent)


def wait_pending(tree, sent):
    """The interim STATUS_PENDING (the server is now watching)."""
    # not conn.receive(wait=False): it forgets the request
    assert sent.response_event.wait(TIMEOUT)
    with sent.response_event_lock:
        assert sent.response["status"].get_value() == PENDING


def expect(got, want, samba=None):
    """Samba's answer where it differs from ringsmb's (recorded here)."""
    if TARGET == "samba" and samba is not None:
        assert got == samba
    else:
        assert got == want


def set_info(tree, f, cls, buf):
    req = SMB2SetInfoRequest()
    req["info_type"] = 1
    req.fields["file_info_class"].enum_strict = False
    req["file_info_class"] = cls
    req["file_id"] = f.file_id
    req["buffer"] = buf
    conn = tree.session.connection
    sent = conn.send(req, tree.session.session_id, tree.tree_connect_id)
    conn.receive(sent, timeout=TIMEOUT)


def rename_buf(name):
    n = name.encode("utf-16-le")
    return struct.pack("<B7xQI", 0, 0, len(n)) + n


def local_file(tree, name, data=b"x"):
    p = tree.dir / name
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


# ------------------------------------------------------------ names

def test_smb_create_is_added(t):
    d = opendir(t)

    def create():
        op(t, "new.txt", 0x12019F, disp=CreateDisposition.FILE_CREATE)\
            .close()
    st, changes = notify(t, d, create, filt=FILE_NAME)
    assert st == OK
    assert changes[0] == (ADDED, "new.txt")


def test_local_create_is_added(t):
    d = opendir(t)
    st, changes = notify(t, d, lambda: local_file(t, "local.txt"))
    assert st == OK
    assert changes[0] == (ADDED, "local.txt")


def test_local_delete_is_removed(t):
    local_file(t, "gone.txt")
    d = opendir(t)
    st, changes = notify(t, d, lambda: os.unlink(t.dir / "gone.txt"))
    assert (st, changes) == (OK, [(REMOVED, "gone.txt")])


def test_local_rename_is_a_pair(t):
    local_file(t, "a.txt")
    d = opendir(t)
    st, changes = notify(t, d, lambda: os.rename(t.dir / "a.txt",
                                                 t.dir / "b.txt"))
    assert (st, changes) == (OK, [(OLD_NAME, "a.txt"), (NEW_NAME, "b.txt")])


def test_smb_rename_is_a_pair(t):
    local_file(t, "c.txt")
    d = opendir(t)
    f = op(t, "c.txt", DELETE)

    def rename():
        set_info(t, f, RENAME_CLASS, rename_buf(wname(t, "d.txt")))
    st, changes = notify(t, d, rename)
    f.close()
    assert (st, changes) == (OK, [(OLD_NAME, "c.txt"), (NEW_NAME, "d.txt")])


def test_rename_out_of_the_directory_is_removed(t):
    local_file(t, "out.txt")
    d = opendir(t)
    st, changes = notify(t, d, lambda: os.rename(
        t.dir / "out.txt", t.srv.tree.share / ("%s-out.txt" % t.rel)))
    assert (st, changes) == (OK, [(REMOVED, "out.txt")])


def test_directory_names_need_dir_name(t):
    """mkdir is DIR_NAME: a FILE_NAME watch does not see it."""
    d = opendir(t)

    def both():
        os.mkdir(t.dir / "sub")
        local_file(t, "file.txt")
    st, changes = notify(t, d, both, filt=FILE_NAME)
    assert (st, changes) == (OK, [(ADDED, "file.txt")])


def smb_create(tree, name):
    op(tree, name, 0x12019F, disp=CreateDisposition.FILE_CREATE).close()


# Samba 4.17's inotify backend watches neither IN_MODIFY for a local
# write nor subdirectories (its WATCH_TREE sees only changes made through
# smbd): the local variants are ringsmb-only.
LOCAL_ONLY = pytest.mark.skipif(
    TARGET == "samba", reason="Samba: local changes seen only one level, "
    "names only")


def test_smb_write_is_modified(t):
    local_file(t, "w.txt")
    d = opendir(t)
    f = op(t, "w.txt", 0x12019F)
    st, changes = notify(t, d, lambda: f.write(b"more", 0),
                         filt=CompletionFilter.FILE_NOTIFY_CHANGE_SIZE |
                         CompletionFilter.FILE_NOTIFY_CHANGE_LAST_WRITE)
    f.close()
    assert st == OK
    assert changes[0] == (MODIFIED, "w.txt")


@LOCAL_ONLY
def test_local_write_is_modified(t):
    p = local_file(t, "w.txt")
    d = opendir(t)

    def write():
        with open(p, "ab") as fh:
            fh.write(b"more")
    st, changes = notify(t, d, write,
                         filt=CompletionFilter.FILE_NOTIFY_CHANGE_SIZE)
    assert (st, changes) == (OK, [(MODIFIED, "w.txt")])


# ------------------------------------------------------------ WATCH_TREE

def mkdirs(tree, name):
    """Directories Samba's guest (nobody) may write in."""
    p = tree.dir
    for part in name.split("/"):
        p = p / part
        p.mkdir(mode=0o777)
        os.chmod(p, 0o777)


def test_watch_tree_smb_create_in_subdirectory(t):
    mkdirs(t, "sub/deeper")
    d = opendir(t)
    st, changes = notify(t, d, lambda: smb_create(t, "sub/deeper/x.txt"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "sub\\deeper\\x.txt")])


@LOCAL_ONLY
def test_watch_tree_existing_subdirectory(t):
    os.makedirs(t.dir / "sub" / "deeper")
    d = opendir(t)
    st, changes = notify(t, d, lambda: local_file(t, "sub/deeper/x.txt"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "sub\\deeper\\x.txt")])


@LOCAL_ONLY
def test_watch_tree_new_subdirectory(t):
    d = opendir(t)
    st, changes = notify(t, d, lambda: os.mkdir(t.dir / "made"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "made")])
    st, changes = notify(t, d, lambda: local_file(t, "made/y.txt"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "made\\y.txt")])


@LOCAL_ONLY
def test_watch_tree_moved_subdirectory_keeps_names(t):
    os.makedirs(t.dir / "old" / "in")
    d = opendir(t)
    st, changes = notify(t, d, lambda: os.rename(t.dir / "old",
                                                 t.dir / "new"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(OLD_NAME, "old"), (NEW_NAME, "new")])
    st, changes = notify(t, d, lambda: local_file(t, "new/in/z.txt"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "new\\in\\z.txt")])


def test_watch_tree_smb_mkdir_then_create(t):
    d = opendir(t)
    st, changes = notify(t, d, lambda: op(
        t, "made", 0x12019F, CreateOptions.FILE_DIRECTORY_FILE,
        CreateDisposition.FILE_CREATE).close(), flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "made")])
    st, changes = notify(t, d, lambda: smb_create(t, "made/y.txt"),
                         flags=WATCH_TREE)
    assert (st, changes) == (OK, [(ADDED, "made\\y.txt")])


def test_without_watch_tree_subdirectories_are_quiet(t):
    mkdirs(t, "sub")
    d = opendir(t)

    def both():
        smb_create(t, "sub/hidden.txt")
        local_file(t, "seen.txt")
    st, changes = notify(t, d, both)
    assert (st, changes) == (OK, [(ADDED, "seen.txt")])


# ------------------------------------------------------------ buffering

def test_changes_between_requests_are_buffered(t):
    d = opendir(t)
    st, changes = notify(t, d, lambda: local_file(t, "one.txt"))
    assert (st, changes) == (OK, [(ADDED, "one.txt")])
    local_file(t, "two.txt")
    local_file(t, "three.txt")
    time.sleep(0.5)         # let the server see them with no request
    st, changes = notify_wait(t, notify_send(t, d))
    assert (st, changes) == (OK, [(ADDED, "two.txt"), (ADDED, "three.txt")])


def test_too_many_buffered_changes_is_enum_dir(t):
    """The first request's OutputBufferLength bounds the buffer."""
    d = opendir(t)
    st, _ = notify(t, d, lambda: local_file(t, "first.txt"), length=128)
    assert st == OK
    for i in range(20):
        local_file(t, "file-number-%02d.txt" % i)
    time.sleep(0.5)
    st, changes = notify_wait(t, notify_send(t, d, length=128))
    assert (st, changes) == (NOTIFY_ENUM_DIR, [])
    # and afterwards it reports changes again
    st, changes = notify(t, d, lambda: local_file(t, "after.txt"),
                         length=128)
    assert (st, changes) == (OK, [(ADDED, "after.txt")])


def test_output_buffer_too_small_is_enum_dir(t):
    d = opendir(t)
    st, changes = notify(t, d, lambda: local_file(t, "long-name.txt"),
                         length=8)
    assert (st, changes) == (NOTIFY_ENUM_DIR, [])


def test_two_requests_on_one_open_are_queued(t):
    d = opendir(t)
    first = notify_send(t, d)
    wait_pending(t, first)
    second = notify_send(t, d)
    wait_pending(t, second)
    local_file(t, "q1.txt")
    assert notify_wait(t, first) == (OK, [(ADDED, "q1.txt")])
    time.sleep(0.3)
    local_file(t, "q2.txt")
    assert notify_wait(t, second) == (OK, [(ADDED, "q2.txt")])


# ------------------------------------------------------------ endings

def test_cancel_is_cancelled(t):
    d = opendir(t)
    sent = notify_send(t, d)
    wait_pending(t, sent)
    sent.cancel()
    assert notify_wait(t, sent) == (CANCELLED, [])
    # the open still works
    st, changes = notify(t, d, lambda: local_file(t, "after.txt"))
    assert (st, changes) == (OK, [(ADDED, "after.txt")])


def test_close_with_pending_is_cleanup(t):
    d = opendir(t)
    sent = notify_send(t, d)
    wait_pending(t, sent)
    d.close()
    assert notify_wait(t, sent) == (NOTIFY_CLEANUP, [])


def test_tree_disconnect_with_pending(t):
    conn, session, tree = connect(t.srv)
    try:
        tree.rel = t.rel
        d = opendir(tree)
        sent = notify_send(tree, d)
        wait_pending(tree, sent)
        # sent by hand: smbprotocol's tree.disconnect() forgets the tree,
        # and then cannot take the notify response
        tdis = conn.send(SMB2TreeDisconnect(), session.session_id,
                         tree.tree_connect_id)
        conn.receive(tdis, timeout=TIMEOUT)
        assert notify_wait(tree, sent) == (NOTIFY_CLEANUP, [])
    finally:
        conn.disconnect(False)


def test_logoff_with_pending(t):
    conn, session, tree = connect(t.srv)
    try:
        tree.rel = t.rel
        d = opendir(tree)
        sent = notify_send(tree, d)
        wait_pending(tree, sent)
        session.disconnect()
        assert notify_wait(tree, sent) == (NOTIFY_CLEANUP, [])
    finally:
        conn.disconnect(False)


def test_disconnect_with_pending_leaves_server_working(t):
    conn, session, tree = connect(t.srv)
    tree.rel = t.rel
    d = opendir(tree)
    wait_pending(tree, notify_send(tree, d))
    conn.disconnect(False)
    d2 = opendir(t)
    st, changes = notify(t, d2, lambda: smb_create(t, "still.txt"))
    assert (st, changes) == (OK, [(ADDED, "still.txt")])


# ------------------------------------------------------------ refusals

def test_file_handle_is_invalid_parameter(t):
    local_file(t, "plain.txt")
    f = op(t, "plain.txt", 0x1)
    assert notify_wait(t, notify_send(t, f)) == (INVALID_PARAMETER, [])


def test_handle_without_list_directory(t):
    """Windows and Samba want FILE_LIST_DIRECTORY on the handle."""
    d = opendir(t, access=READ_ATTRIBUTES)
    assert notify_wait(t, notify_send(t, d), timeout=5) == (0xC0000022, [])
