"""NT ACLs on a share with `vfs objects = acl_xattr`: the DACL a client
sets is stored whole (security.NTACL), read back exactly, enforced at
CREATE (deny before allow, owner's implicit rights, FILE_DELETE_CHILD on
the parent), inherited by new files and directories (MS-DTYP 2.5.3.4)
and mirrored into the POSIX ACL so the kernel lets the user do what the
NT ACL grants.

Two real Unix accounts log on with their passwords (accounts.py): A is
rsmbtalice, B is rsmbtbob.  Their SIDs are never written down: each user
creates a file and the owner SID that QUERY_INFO SECURITY reports is
that user's SID (Samba's come from its tdbsam, S-1-5-21-...).

Every expectation is what Debian's Samba 4.17 (vfs_acl_xattr) answers;
RINGSMB_TARGET=samba runs the file against it.  Where Samba departs
from Windows the test says so; in one place (a MAXIMUM_ALLOWED open,
test_deny_before_allow) Samba refuses what Windows allows, and only
there the expectation depends on the target.

Each test works in its own directory, made by root with mode 0777 and
no NT ACL: Samba presents it with a DACL synthesized from the mode
(Everyone full, CREATOR OWNER / CREATOR GROUP / Everyone inheritable),
so both users may create in it.  The tests set the DACLs they rely on
explicitly and never assert on what that directory passes down.
"""
import os
import shutil
import struct
import subprocess
import uuid
from types import SimpleNamespace

import pytest

import accounts as A
from conftest import TARGET, finish_server, make_scratch_dir, make_server
from test_setinfo import status_of

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.create_contexts import (  # noqa: E402
    CreateContextName, SMB2CreateContextRequest,
    SMB2CreateQueryMaximalAccessRequest,
    SMB2CreateQueryMaximalAccessResponse)
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open, ShareAccess, SMB2QueryInfoRequest, SMB2QueryInfoResponse,
    SMB2SetInfoRequest)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

TIMEOUT = 30            # seconds for any one request

OK = 0
INVALID_PARAMETER = 0xC000000D
ACCESS_DENIED = 0xC0000022
BUFFER_TOO_SMALL = 0xC0000023
OBJECT_NAME_NOT_FOUND = 0xC0000034
INVALID_ACL = 0xC0000077
INVALID_SID = 0xC0000078
INVALID_SECURITY_DESCR = 0xC0000079

# access masks (MS-DTYP 2.4.3, MS-SMB2 2.2.13.1)
READ_DATA, WRITE_DATA = 0x1, 0x2
LIST_DIRECTORY, TRAVERSE, DELETE_CHILD = 0x1, 0x20, 0x40
DELETE, READ_CONTROL, WRITE_DAC, WRITE_OWNER = \
    0x10000, 0x20000, 0x40000, 0x80000
SYNCHRONIZE, MAXIMUM_ALLOWED = 0x100000, 0x02000000
GENERIC_ALL = 0x10000000
FULL = 0x001F01FF       # FILE_ALL_ACCESS
READ = 0x00120089       # FILE_GENERIC_READ
RW = 0x0012019F         # FILE_GENERIC_READ | FILE_GENERIC_WRITE
READ_EXEC = 0x001200A9  # FILE_GENERIC_READ | FILE_GENERIC_EXECUTE

# ACE types and flags (MS-DTYP 2.4.4.1)
ALLOW, DENY = 0, 1
OI, CI, NP, IO, INHERITED = 0x1, 0x2, 0x4, 0x8, 0x10

# SECURITY_INFORMATION and SD control bits (MS-DTYP 2.4.6, 2.4.7)
OWNER, DACL = 0x1, 0x4
SE_DACL_PRESENT, SE_DACL_AUTO_INHERIT_REQ = 0x0004, 0x0100
SE_DACL_AUTO_INHERITED, SE_SELF_RELATIVE = 0x0400, 0x8000

EVERYONE = "S-1-1-0"
CREATOR_OWNER = "S-1-3-0"

SHARE_ALL = (ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE)
DATA = b"nt acl test data: the quick brown fox\n"


# ---------------------------------------- security descriptors (MS-DTYP)

def sid_bytes(s):
    """'S-1-5-21-1-2-3' -> the binary SID (MS-DTYP 2.4.2.2)."""
    parts = [int(x) for x in s.split("-")[1:]]
    rev, auth, subs = parts[0], parts[1], parts[2:]
    return (bytes([rev, len(subs)]) + auth.to_bytes(6, "big") +
            b"".join(struct.pack("<I", x) for x in subs))


def parse_sid(b, ofs):
    n = b[ofs + 1]
    auth = int.from_bytes(b[ofs + 2:ofs + 8], "big")
    subs = struct.unpack_from("<%dI" % n, b, ofs + 8)
    return "S-%d-%d" % (b[ofs], auth) + "".join("-%d" % s for s in subs)


def ace_bytes(typ, flags, mask, sid):
    s = sid_bytes(sid)
    return struct.pack("<BBHI", typ, flags, 8 + len(s), mask) + s


def acl_bytes(aces):
    """An ACL (revision 2) of (type, flags, mask, sid) ACEs."""
    body = b"".join(ace_bytes(*a) for a in aces)
    return struct.pack("<BBHHH", 2, 0, 8 + len(body), len(aces), 0) + body


def sd_bytes(aces, control=0):
    """A self-relative SD with only a DACL: SE_DACL_PRESENT |
    SE_SELF_RELATIVE, the ACL right after the 20-byte header."""
    return struct.pack("<BBHIIII", 1, 0,
                       SE_SELF_RELATIVE | SE_DACL_PRESENT | control,
                       0, 0, 0, 20) + acl_bytes(aces)


def parse_sd(b):
    """{"control", "owner", "group", "dacl": [(type, flags, mask, sid)]}
    of a self-relative SD."""
    _, _, ctl, o_own, o_grp, _, o_dacl = struct.unpack_from("<BBHIIII", b)
    out = {"control": ctl,
           "owner": parse_sid(b, o_own) if o_own else None,
           "group": parse_sid(b, o_grp) if o_grp else None,
           "dacl": None}
    if o_dacl:
        _, _, size, count, _ = struct.unpack_from("<BBHHH", b, o_dacl)
        assert o_dacl + size <= len(b)
        aces, ofs = [], o_dacl + 8
        for _ in range(count):
            typ, flags, asize, mask = struct.unpack_from("<BBHI", b, ofs)
            aces.append((typ, flags, mask, parse_sid(b, ofs + 8)))
            ofs += asize
        out["dacl"] = aces
    return out


ACL_USER, ACL_GROUP, ACL_MASK = 0x02, 0x08, 0x10    # <linux/posix_acl.h>


def posix_acl(path):
    """{(tag, id): perm} of the system.posix_acl_access xattr (the
    kernel's format: u32 version 2, then u16 tag, u16 perm, u32 id)."""
    raw = os.getxattr(path, "system.posix_acl_access")
    assert struct.unpack_from("<I", raw)[0] == 2
    return {(tag, qid if tag in (ACL_USER, ACL_GROUP) else None): perm
            for tag, perm, qid in struct.iter_unpack("<HHI", raw[4:])}


def ntacl_header(path):
    """(version, level) of the security.NTACL xattr: Samba's
    xattr_NTACL starts with two little-endian u16."""
    return struct.unpack("<HH", os.getxattr(path, "security.NTACL")[:4])


# ------------------------------------------------------------ clients

class Client:
    """One user's SMB 3.1.1 session (signed) and tree connect to
    [ntacl]; every request waits at most TIMEOUT seconds."""

    def __init__(self, srv, who):
        self.conn = Connection(uuid.uuid4(), srv.host, srv.port,
                               require_signing=True)
        self.conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
        self.session = Session(self.conn, A.name(who), A.PASSWORDS[who],
                               require_encryption=False,
                               auth_protocol="ntlm")
        self.session.connect()
        self.tree = TreeConnect(self.session, r"\\%s\ntacl" % srv.host)
        self.tree.connect()
        self.sid = None

    def close(self):
        try:
            self.conn.disconnect(True)
        except Exception:
            pass

    def _call(self, pair):
        """Send an smbprotocol request built with send=False, wait for
        its answer within TIMEOUT, then let smbprotocol parse it."""
        req, finish = pair
        sent = self.conn.send(req, self.session.session_id,
                              self.tree.tree_connect_id)
        self.conn.receive(sent, timeout=TIMEOUT)   # raises on an error
        return finish(sent)

    def open(self, path, access, disp=CreateDisposition.FILE_OPEN,
             options=0, ctx=None):
        """CREATE; returns the Open with .contexts (the response's
        create contexts, parsed) or raises SMBResponseException."""
        f = Open(self.tree, path)
        f.contexts = self._call(f.create(
            ImpersonationLevel.Impersonation, access,
            FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL, disp,
            options, create_contexts=ctx, send=False)) or []
        return f

    def open_status(self, path, access, **kw):
        """The NTSTATUS of a CREATE (the open is closed again)."""
        return status_of(lambda: self.close_file(
            self.open(path, access, **kw)))

    def create_file(self, path, data=b"", ctx=None):
        f = self.open(path, RW | DELETE | READ_CONTROL | WRITE_DAC,
                      CreateDisposition.FILE_CREATE,
                      CreateOptions.FILE_NON_DIRECTORY_FILE, ctx)
        if data:
            self.write(f, data)
        return f

    def mkdir(self, path):
        return self.open(path, FULL, CreateDisposition.FILE_CREATE,
                         CreateOptions.FILE_DIRECTORY_FILE)

    def close_file(self, f):
        self._call(f.close(send=False))

    def read(self, f, length, offset=0):
        return self._call(f.read(offset, length, send=False))

    def write(self, f, data, offset=0):
        return self._call(f.write(data, offset, send=False))

    def query_sd(self, f, addl=DACL):
        req = SMB2QueryInfoRequest()
        req["info_type"] = 3
        req.fields["file_info_class"].enum_strict = False
        req["file_info_class"] = 0
        req["output_buffer_length"] = 65536
        req["additional_information"] = addl
        req["file_id"] = f.file_id
        sent = self.conn.send(req, self.session.session_id,
                              self.tree.tree_connect_id)
        msg = self.conn.receive(sent, timeout=TIMEOUT)
        resp = SMB2QueryInfoResponse()
        resp.unpack(msg["data"].get_value())
        return parse_sd(resp["buffer"].get_value())

    def set_info(self, f, cls, buf, info_type=1, addl=0):
        """SET_INFO with a raw buffer; returns the NTSTATUS."""
        req = SMB2SetInfoRequest()
        req["info_type"] = info_type
        req.fields["file_info_class"].enum_strict = False
        req["file_info_class"] = cls
        req["additional_information"] = addl
        req["file_id"] = f.file_id
        req["buffer"] = buf
        sent = self.conn.send(req, self.session.session_id,
                              self.tree.tree_connect_id)
        return status_of(lambda: self.conn.receive(sent, timeout=TIMEOUT))

    def set_sd(self, f, buf, addl=DACL):
        """SET_INFO SECURITY; returns the NTSTATUS."""
        return self.set_info(f, 0, buf, info_type=3, addl=addl)

    def dacl_of(self, path):
        f = self.open(path, READ_CONTROL)
        try:
            return self.query_sd(f)
        finally:
            self.close_file(f)

    def set_dacl(self, path, aces):
        f = self.open(path, READ_CONTROL | WRITE_DAC)
        try:
            return self.set_sd(f, sd_bytes(aces))
        finally:
            self.close_file(f)


def maximal_access_ctx():
    ctx = SMB2CreateContextRequest()
    ctx["buffer_name"] = \
        CreateContextName.SMB2_CREATE_QUERY_MAXIMAL_ACCESS_REQUEST
    ctx["buffer_data"] = SMB2CreateQueryMaximalAccessRequest()
    return ctx


def maximal_access(f):
    """(QueryStatus, MaximalAccess) of the MxAc response context of an
    open made with maximal_access_ctx()."""
    mxac = [c for c in f.contexts
            if isinstance(c, SMB2CreateQueryMaximalAccessResponse)]
    assert len(mxac) == 1
    return (mxac[0]["query_status"].get_value(),
            mxac[0]["maximal_access"].get_value())


def secd_ctx(buf):
    ctx = SMB2CreateContextRequest()
    ctx["buffer_name"] = b"SecD"
    ctx["buffer_data"] = buf
    return ctx


# ------------------------------------------------------------ fixtures

@pytest.fixture(scope="module")
def ntsrv(share_tree, accounts):
    """A server with [ntacl]: writable, `vfs objects = acl_xattr`, on a
    world-writable scratch directory; alice and bob have passwords."""
    base, d = make_scratch_dir("ringsmb-ntacl-")
    shares = [{"name": "ntacl", "path": str(d), "read_only": False,
               "params": {"vfs objects": "acl_xattr"}}]
    srv = make_server(share_tree, "default", A.passdb_global(base), shares)
    try:
        for who in ("alice", "bob"):
            A.add_smb_user(srv, who)
        srv.ntdir = d
        yield srv
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def sids(ntsrv, accounts):
    """{'alice': SID, 'bob': SID}: the owner SID of a file each user
    creates (never a hardcoded SID)."""
    d = ntsrv.ntdir / "sids"
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    out = {}
    for who in ("alice", "bob"):
        c = Client(ntsrv, who)
        try:
            f = c.create_file("sids\\" + who)
            out[who] = c.query_sd(f, OWNER)["owner"]
            c.close_file(f)
        finally:
            c.close()
    assert out["alice"] != out["bob"]
    assert os.stat(d / "alice").st_uid == accounts["alice"].uid
    return out


@pytest.fixture
def u(ntsrv, sids, request):
    """The test's own directory (root's, 0777, no NT ACL stored) and a
    logged-on client per user: u.a (alice), u.b (bob), u.a.sid, u.b.sid;
    u.p(name) is the SMB path inside the directory, u.disk(name) the
    path on disk."""
    d = ntsrv.ntdir / request.node.name.replace("[", "_").strip("]")
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    a = Client(ntsrv, "alice")
    try:
        b = Client(ntsrv, "bob")
        try:
            a.sid, b.sid = sids["alice"], sids["bob"]
            yield SimpleNamespace(
                a=a, b=b, dir=d, disk=lambda n: d / n,
                p=lambda n: d.name + "\\" + n.replace("/", "\\"))
        finally:
            b.close()
    finally:
        a.close()


# ------------------------------------------------------------ tests

def test_dacl_round_trip(u):
    """SET_INFO SECURITY (DACL_SECURITY_INFORMATION) stores the DACL as
    given, order and masks kept (MS-FSA 2.1.5.17), and QUERY_INFO
    returns it; acl_xattr keeps it in the security.NTACL xattr
    (Samba's xattr_NTACL, version 4, level 4)."""
    f = u.a.create_file(u.p("f"), DATA)
    aces = [(ALLOW, 0, FULL, u.a.sid), (ALLOW, 0, READ, u.b.sid)]
    try:
        assert u.a.set_sd(f, sd_bytes(aces)) == OK
        assert u.a.query_sd(f)["dacl"] == aces
    finally:
        u.a.close_file(f)
    assert u.a.dacl_of(u.p("f"))["dacl"] == aces     # a new open too
    assert ntacl_header(u.disk("f")) == (4, 4)


def test_deny_before_allow(u):
    """Access check walks the DACL in order (MS-DTYP 2.5.3.2): a DENY
    for B's WRITE_DATA ahead of ALLOW Everyone full takes that one bit
    away from B and nothing else; MxAc reports the same (MS-SMB2
    3.3.5.9.5)."""
    f = u.a.create_file(u.p("f"), DATA)
    aces = [(DENY, 0, WRITE_DATA, u.b.sid), (ALLOW, 0, FULL, EVERYONE)]
    try:
        assert u.a.set_sd(f, sd_bytes(aces)) == OK
        assert u.a.query_sd(f)["dacl"] == aces
    finally:
        u.a.close_file(f)
    assert u.b.open_status(u.p("f"), WRITE_DATA) == ACCESS_DENIED
    g = u.b.open(u.p("f"), READ_DATA)
    try:
        assert u.b.read(g, 4096) == DATA
    finally:
        u.b.close_file(g)
    # MxAc (MS-SMB2 3.3.5.9.5) on an ordinary open: everything but
    # WRITE_DATA
    g = u.b.open(u.p("f"), READ_DATA, ctx=[maximal_access_ctx()])
    try:
        assert maximal_access(g) == (OK, FULL & ~WRITE_DATA)
    finally:
        u.b.close_file(g)
    # MAXIMUM_ALLOWED: Windows opens with that maximal access.  Samba
    # 4.17 refuses the open: the maximal access holds FILE_APPEND_DATA,
    # so it opens the file O_RDWR as B, and the POSIX ACL it derived
    # from this DACL gives B r-x (the DENY took w away): EACCES.
    ctx = [maximal_access_ctx()]
    if TARGET == "samba":
        assert u.b.open_status(u.p("f"), MAXIMUM_ALLOWED, ctx=ctx) == \
            ACCESS_DENIED
        return
    g = u.b.open(u.p("f"), MAXIMUM_ALLOWED, ctx=ctx)
    try:
        assert maximal_access(g) == (OK, FULL & ~WRITE_DATA)
        assert u.b.read(g, 4096) == DATA
    finally:
        u.b.close_file(g)


def test_acl_grants_beyond_mode(u, accounts):
    """An ALLOW ACE lets B write a file whose mode (0600, A's) does not:
    the server keeps the POSIX ACL in step with the DACL (Samba's
    posix_acls mapping adds user:B:rw-), so B's own write, done as B's
    Unix account, is allowed by the kernel."""
    # A's file as A's Unix account made it: plain 0600, no NT ACL yet.
    # (An SMB create on Samba always carries an extended POSIX ACL whose
    # mask shows in the group bits, so it is never exactly 0600.)
    who = accounts["alice"]
    subprocess.run(["sh", "-c", 'printf %s "$1" > "$2"', "sh",
                    DATA.decode(), str(u.disk("f"))], check=True,
                   timeout=TIMEOUT, user=who.uid, group=who.gid,
                   extra_groups=[], umask=0o077)
    st = os.stat(u.disk("f"))
    assert (st.st_uid, st.st_mode & 0o7777) == (who.uid, 0o600)
    assert u.b.open_status(u.p("f"), WRITE_DATA) == ACCESS_DENIED

    aces = [(ALLOW, 0, FULL, u.a.sid), (ALLOW, 0, RW, u.b.sid)]
    assert u.a.set_dacl(u.p("f"), aces) == OK
    assert u.a.dacl_of(u.p("f"))["dacl"] == aces
    pacl = posix_acl(u.disk("f"))
    bob = accounts["bob"].uid
    assert pacl[(ACL_USER, bob)] & pacl[(ACL_MASK, None)] == 0o6

    g = u.b.open(u.p("f"), WRITE_DATA)
    try:
        assert u.b.write(g, b"BOB") == 3
    finally:
        u.b.close_file(g)
    f = u.a.open(u.p("f"), READ_DATA)
    try:
        assert u.a.read(f, 4096) == b"BOB" + DATA[3:]
    finally:
        u.a.close_file(f)


def test_owner_implicit_rights(u):
    """The owner always gets READ_CONTROL and WRITE_DAC, whatever the
    DACL says (MS-DTYP 2.5.3.2, no OWNER RIGHTS ACE present), but no
    other right: with only [ALLOW B full], A cannot read the data and
    can still give itself access back."""
    f = u.a.create_file(u.p("f"), DATA)
    try:
        assert u.a.set_sd(f, sd_bytes([(ALLOW, 0, FULL, u.b.sid)])) == OK
    finally:
        u.a.close_file(f)
    assert u.a.open_status(u.p("f"), READ_DATA) == ACCESS_DENIED
    assert u.a.open_status(u.p("f"), READ_CONTROL | WRITE_DAC |
                           READ_DATA) == ACCESS_DENIED
    aces = [(ALLOW, 0, FULL, u.a.sid), (ALLOW, 0, FULL, u.b.sid)]
    f = u.a.open(u.p("f"), READ_CONTROL | WRITE_DAC)
    try:
        assert u.a.set_sd(f, sd_bytes(aces)) == OK
        assert u.a.query_sd(f)["dacl"] == aces
    finally:
        u.a.close_file(f)
    f = u.a.open(u.p("f"), READ_DATA)
    try:
        assert u.a.read(f, 4096) == DATA
    finally:
        u.a.close_file(f)


@pytest.mark.parametrize("auto", [False, True], ids=["plain", "auto_req"])
def test_inheritance_file_and_subdir(u, auto):
    """A new file and a new subdirectory inherit from their parent's
    DACL (MS-DTYP 2.5.3.4.1 ComputeACL, 2.5.3.4.2 ContainerInheritance):

    - OI ACEs reach files, CI ACEs reach directories; a file's copy
      has no inheritance flags, a directory's copy keeps OI|CI;
    - CREATOR OWNER becomes the creator's SID with GENERIC_ALL mapped
      to 0x1F01FF; on a directory an inherit-only CREATOR OWNER copy
      stays behind for the grandchildren (Samba maps GENERIC_ALL to
      0x1F01FF in every ACE when the parent's DACL is set, the
      inherit-only one included, so that copy reads 0x1F01FF too);
    - the CI-only Everyone ACE does not reach the file;
    - INHERITED_ACE (0x10) marks the copies, and SE_DACL_AUTO_INHERITED
      the child's control, only when the parent's DACL is marked
      auto-inherited.  Samba keeps SE_DACL_AUTO_INHERITED from a
      SET_INFO only when SE_DACL_AUTO_INHERIT_REQ comes with it
      ("auto_req"); sent alone it is dropped.  Without both ("plain")
      the parent's control is plain and the copies carry no 0x10.

    Samba also drops an inherited ACE equal to one already in the new
    list (se_create_child_secdesc "remove duplicates"), so the file's
    two copies for A (from A's ACE and from CREATOR OWNER) become one."""
    ctl = SE_DACL_AUTO_INHERIT_REQ | SE_DACL_AUTO_INHERITED if auto else 0
    inh = INHERITED if auto else 0
    want_ctl = SE_SELF_RELATIVE | SE_DACL_PRESENT | (
        SE_DACL_AUTO_INHERITED if auto else 0)
    parent = [(ALLOW, OI | CI, FULL, u.a.sid),
              (ALLOW, OI | CI | IO, GENERIC_ALL, CREATOR_OWNER),
              (ALLOW, CI, READ_EXEC, EVERYONE)]
    d = u.a.mkdir(u.p("D"))
    try:
        assert u.a.set_sd(d, sd_bytes(parent, ctl)) == OK
        got = u.a.query_sd(d)
        assert got["dacl"] == [parent[0], (ALLOW, OI | CI | IO, FULL,
                                           CREATOR_OWNER), parent[2]]
        assert got["control"] == want_ctl
    finally:
        u.a.close_file(d)
    u.a.close_file(u.a.create_file(u.p("D/f")))
    u.a.close_file(u.a.mkdir(u.p("D/s")))

    f = u.a.dacl_of(u.p("D/f"))
    assert f["dacl"] == [(ALLOW, inh, FULL, u.a.sid)]
    s = u.a.dacl_of(u.p("D/s"))
    assert s["dacl"] == [
        (ALLOW, inh | OI | CI, FULL, u.a.sid),
        (ALLOW, inh, FULL, u.a.sid),               # CREATOR OWNER -> A
        (ALLOW, inh | OI | CI | IO, FULL, CREATOR_OWNER),
        (ALLOW, inh | CI, READ_EXEC, EVERYONE)]
    assert (f["control"], s["control"]) == (want_ctl, want_ctl)


def test_no_propagate_inherit(u):
    """NO_PROPAGATE_INHERIT (MS-DTYP 2.4.4.1): the ACE reaches the
    child directory with its inheritance flags cleared, and stops
    there: neither the grandchild directory nor a file in the child
    gets it."""
    parent = [(ALLOW, OI | CI, FULL, u.a.sid),
              (ALLOW, CI | NP, READ_EXEC, u.b.sid)]
    d = u.a.mkdir(u.p("D"))
    try:
        assert u.a.set_sd(d, sd_bytes(parent)) == OK
    finally:
        u.a.close_file(d)
    u.a.close_file(u.a.mkdir(u.p("D/s")))
    u.a.close_file(u.a.mkdir(u.p("D/s/g")))
    u.a.close_file(u.a.create_file(u.p("D/s/f")))
    assert u.a.dacl_of(u.p("D/s"))["dacl"] == [
        (ALLOW, OI | CI, FULL, u.a.sid), (ALLOW, 0, READ_EXEC, u.b.sid)]
    assert u.a.dacl_of(u.p("D/s/g"))["dacl"] == [
        (ALLOW, OI | CI, FULL, u.a.sid)]
    assert u.a.dacl_of(u.p("D/s/f"))["dacl"] == [(ALLOW, 0, FULL, u.a.sid)]


def test_secd_create_context(u):
    """A SecD create context (MS-SMB2 2.2.13.2.2) gives the new file its
    DACL: QUERY_INFO returns it as sent, and it is enforced for B.  The
    creator keeps the access it asked for at CREATE."""
    aces = [(ALLOW, 0, FULL, u.a.sid), (ALLOW, 0, READ, u.b.sid)]
    f = u.a.create_file(u.p("f"), DATA, ctx=[secd_ctx(sd_bytes(aces))])
    try:
        assert u.a.query_sd(f)["dacl"] == aces
    finally:
        u.a.close_file(f)
    assert u.a.dacl_of(u.p("f"))["dacl"] == aces
    assert u.b.open_status(u.p("f"), WRITE_DATA) == ACCESS_DENIED
    g = u.b.open(u.p("f"), READ_DATA)
    try:
        assert u.b.read(g, 4096) == DATA
    finally:
        u.b.close_file(g)


def test_write_dac_needed(u):
    """Changing a DACL needs WRITE_DAC (MS-SMB2 3.3.5.21.3): B, granted
    only FILE_GENERIC_READ, is refused WRITE_DAC at CREATE, and a
    SET_INFO on its READ_CONTROL handle fails; A's DACL is unchanged."""
    aces = [(ALLOW, 0, FULL, u.a.sid), (ALLOW, 0, READ, u.b.sid)]
    f = u.a.create_file(u.p("f"), DATA)
    try:
        assert u.a.set_sd(f, sd_bytes(aces)) == OK
    finally:
        u.a.close_file(f)
    assert u.b.open_status(u.p("f"), WRITE_DAC) == ACCESS_DENIED
    assert u.b.open_status(u.p("f"), READ_CONTROL | WRITE_DAC) == \
        ACCESS_DENIED
    g = u.b.open(u.p("f"), READ_CONTROL)
    try:
        assert u.b.set_sd(g, sd_bytes([(ALLOW, 0, FULL, u.b.sid)])) == \
            ACCESS_DENIED
    finally:
        u.b.close_file(g)
    assert u.a.dacl_of(u.p("f"))["dacl"] == aces


def bad_sd(case, aces):
    """A malformed self-relative SD built around a valid DACL."""
    acl = acl_bytes(aces)
    first = ace_bytes(*aces[0])
    if case == "dacl-offset-past-end":
        return struct.pack("<BBHIIII", 1, 0, SE_SELF_RELATIVE |
                           SE_DACL_PRESENT, 0, 0, 0, 20 + len(acl)) + acl
    if case == "ace-count-too-big":
        return sd_bytes(aces)[:20] + struct.pack(
            "<BBHHH", 2, 0, len(acl), len(aces) + 1, 0) + acl[8:]
    if case == "ace-size-past-acl":
        return (sd_bytes(aces)[:20] + acl[:8] + first[:2] +
                struct.pack("<H", 0x200) + first[4:] +
                acl[8 + len(first):])
    if case == "owner-sid-255-subauths":
        sid = bytes([1, 255]) + (5).to_bytes(6, "big") + \
            struct.pack("<I", 32) * 255
        return struct.pack("<BBHIIII", 1, 0, SE_SELF_RELATIVE |
                           SE_DACL_PRESENT, 20, 0, 0,
                           20 + len(sid)) + sid + acl
    raise ValueError(case)


# What each malformed SD gets.  MS-SMB2 3.3.5.21.3 hands the buffer to
# the object store and returns its error; Windows' capture of a
# self-relative SD fails with INVALID_SECURITY_DESCR (offsets, layout),
# INVALID_ACL (AceCount, AceSize) or INVALID_SID (more than 15
# sub-authorities), and the SMB2 layer may refuse a buffer with
# INVALID_PARAMETER: those four are accepted.  Samba 4.17 parses the SD
# with NDR and answers BUFFER_TOO_SMALL for the first three (the NDR
# "buffer too small" error, not a Windows answer for SET_INFO) and
# INVALID_PARAMETER for the SID (NDR range error), so BUFFER_TOO_SMALL
# is accepted too, for Samba's sake.
BAD_SD_STATUSES = {INVALID_SECURITY_DESCR, INVALID_ACL, INVALID_SID,
                   INVALID_PARAMETER, BUFFER_TOO_SMALL}


@pytest.mark.parametrize("case", ["dacl-offset-past-end",
                                  "ace-count-too-big",
                                  "ace-size-past-acl",
                                  "owner-sid-255-subauths"])
def test_bad_sd(u, case):
    """A malformed SD in SET_INFO SECURITY fails with an error status
    (see BAD_SD_STATUSES), changes nothing, and the handle and
    connection keep working."""
    aces = [(ALLOW, 0, FULL, u.a.sid), (ALLOW, 0, READ, u.b.sid)]
    f = u.a.create_file(u.p("f"), DATA)
    try:
        assert u.a.set_sd(f, sd_bytes(aces)) == OK
    finally:
        u.a.close_file(f)
    f = u.a.open(u.p("f"), READ_DATA | READ_CONTROL | WRITE_DAC |
                 WRITE_OWNER)
    try:
        addl = OWNER | DACL if case.startswith("owner") else DACL
        assert u.a.set_sd(f, bad_sd(case, aces), addl) in BAD_SD_STATUSES
        assert u.a.read(f, 4096) == DATA
        assert u.a.query_sd(f)["dacl"] == aces
        assert u.a.query_sd(f, OWNER)["owner"] == u.a.sid
    finally:
        u.a.close_file(f)
    assert u.a.dacl_of(u.p("f"))["dacl"] == aces


def test_delete_child(u, accounts):
    """FILE_DELETE_CHILD on the parent grants DELETE on a child whose
    own DACL does not (MS-FSA 2.1.5.1.2.1, Windows' "delete child"
    rule): B opens D\\f for DELETE, marks it delete-on-close, and the
    file is gone.  Only DELETE comes from the parent: B asking for
    DELETE|SYNCHRONIZE is refused by Samba, as f's DACL grants B no
    SYNCHRONIZE."""
    d = u.a.mkdir(u.p("D"))
    try:
        assert u.a.set_sd(d, sd_bytes([
            (ALLOW, OI | CI, FULL, u.a.sid),
            (ALLOW, 0, DELETE_CHILD | LIST_DIRECTORY | TRAVERSE |
             SYNCHRONIZE, u.b.sid)])) == OK
    finally:
        u.a.close_file(d)
    f = u.a.create_file(u.p("D/f"), DATA)
    try:
        assert u.a.set_sd(f, sd_bytes([(ALLOW, 0, FULL, u.a.sid)])) == OK
    finally:
        u.a.close_file(f)
    assert u.b.open_status(u.p("D/f"), READ_DATA) == ACCESS_DENIED

    g = u.b.open(u.p("D/f"), DELETE)
    try:
        assert u.b.set_info(g, 13, b"\x01") == OK   # delete on close
    finally:
        u.b.close_file(g)
    assert not u.disk("D/f").exists()
    assert u.b.open_status(u.p("D/f"), READ_DATA) == OBJECT_NAME_NOT_FOUND
