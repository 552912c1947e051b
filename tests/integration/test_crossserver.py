"""One share, two servers (issue 15): a share populated through Samba
(NT ACLs, named streams, DOS attributes, creation times) is served by
ringsmb with the same answers, and one populated through ringsmb is
served by Samba with the same answers.

Debian's Samba smbd 4.17 ($RINGSMB_SAMBA_SMBD) and ringsmb
($RINGSMB_SMBD) run side by side for the whole module, each on its own
port, both serving the same directory as [xs] with `vfs objects =
acl_xattr streams_xattr` (Samba also `store dos attributes = yes`, its
default), whatever RINGSMB_TARGET says.  Real Unix accounts log on with
their passwords (accounts.py): alice populates, bob is the one access is
checked for.

Each direction has its own top directory, made by root (0777, no NT
ACL):

    s2r/   written through Samba, read through ringsmb and Samba
    r2s/   written through ringsmb, read through Samba and ringsmb

and the same content in each:

    f.txt                 data; DACL [DENY bob WRITE_DATA, ALLOW alice
                          full, ALLOW bob read]; streams Zone.Identifier
                          and second; HIDDEN|ARCHIVE, created 2001-02-03
                          04:05:06 UTC
    D/                    DACL [ALLOW alice full OI|CI, ALLOW bob
                          read+execute OI|CI]
    D/inh.txt             created after that: inherits D's ACEs
    u.txt, U/, U/inh.txt  the same as f.txt, D/, D/inh.txt, the users
                          named by their Unix SIDs
    e.txt                 DACL [ALLOW alice full, ALLOW Everyone read]
    r.txt                 no DACL set; READONLY, created 1999-12-31
                          23:59:59 UTC

ringsmb is set up as an admin replacing Samba's smbd would set it up:
ringsmb-import-samba (Samba's `net getlocalsid`, `pdbedit`) copies
Samba's domain SID and its tdbsam users' RIDs into ringsmb's SID file
and their password hashes into ringsmb's smbpasswd file, so alice and
bob log on to ringsmb with the passwords Samba knows, and both servers
name them by the same S-1-5-21-...-RID SIDs: the SIDs in f.txt's and
D's ACEs are those.
u.txt and U/ name them by their Unix SIDs S-1-22-1-<uid>, which both
servers also understand (both tokens carry them).

Every comparison asks both servers the same question as the same user
(alice) and compares the answers, an NTSTATUS where the open or query
fails; the writer's answers are also checked against what was written,
so two servers agreeing on something wrong fail as well.
"""
import calendar
import os
import shutil
import struct
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

import accounts as A
from conftest import (SAMBA_SMBD, RingsmbServer, SambaServer,
                      finish_server, ringsmb_binary, tool_binary)
from test_eainfo import raw_query
from test_ntacl import (ACCESS_DENIED, ALLOW, CI, DACL, DENY, EVERYONE,
                        FULL, OI, OK, READ, READ_CONTROL, READ_DATA,
                        READ_EXEC, RW, SHARE_ALL, WRITE_DAC, WRITE_DATA,
                        parse_sd, sd_bytes, status_of)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.open import (  # noqa: E402
    CreateDisposition, CreateOptions, FileAttributes, ImpersonationLevel,
    Open, SMB2QueryInfoRequest, SMB2QueryInfoResponse, SMB2SetInfoRequest)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

TIMEOUT = 30            # seconds for any one request

READ_ATTRIBUTES, SYNCHRONIZE = 0x80, 0x100000
OWNER, GROUP = 0x1, 0x2
SECINFO = OWNER | GROUP | DACL
BASIC, STREAM_INFO = 4, 22

READONLY, HIDDEN, DIRECTORY, ARCHIVE = 0x1, 0x2, 0x10, 0x20

NT_EPOCH_DIFF = 11644473600     # seconds from 1601 to 1970


def nt_time(y, mo, d, h, mi, s):
    return (calendar.timegm((y, mo, d, h, mi, s)) + NT_EPOCH_DIFF) * 10 ** 7


CT_F = nt_time(2001, 2, 3, 4, 5, 6)
CT_R = nt_time(1999, 12, 31, 23, 59, 59)

DATA = b"cross-server file data: the quick brown fox\n"
ZONE = b"[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=http://example.org/\r\n"
SECOND = b"second stream \x00\x01\x02\xff bytes"
INH_DATA = b"inherits from D\n"
ZONE_XATTR = "user.DosStream.Zone.Identifier:$DATA"

FILES = ("f.txt", "u.txt", "r.txt", "e.txt", "D", "D/inh.txt", "U",
         "U/inh.txt")
STREAMED = ("f.txt", "u.txt")
STREAMS = ("Zone.Identifier", "second")
# named by the domain SIDs both servers give alice and bob
WRITER_SID_PATHS = ("f.txt", "D", "D/inh.txt")
# made in a directory without an NT ACL and given none
NO_DACL_SET = ("r.txt",)

XS = ("\n[xs]\n  path = %s\n  read only = no\n"
      "  vfs objects = acl_xattr streams_xattr\n")


class RingsmbXS(RingsmbServer):
    def share_section(self, vfs=None):
        return XS % self.tree.share


class SambaXS(SambaServer):
    def share_section(self, vfs=None):
        return (XS % self.tree.share) + "  store dos attributes = yes\n"


class Tree:
    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"


# ------------------------------------------------------------ clients

class Client:
    """One user's SMB 3.1.1 session (signed) to [xs] of one server;
    every request waits at most TIMEOUT seconds."""

    def __init__(self, srv, who):
        self.kind = srv.kind
        self.conn = Connection(uuid.uuid4(), srv.host, srv.port,
                               require_signing=True)
        self.conn.connect(Dialects.SMB_3_1_1, timeout=TIMEOUT)
        try:
            self.session = Session(self.conn, A.name(who),
                                   A.PASSWORDS[who],
                                   require_encryption=False,
                                   auth_protocol="ntlm")
            self.session.connect()
            self.tree = TreeConnect(self.session, r"\\%s\xs" % srv.host)
            self.tree.connect()
        except Exception:
            self.close()
            raise

    def close(self):
        try:
            self.conn.disconnect(True)
        except Exception:
            pass

    def _send(self, req):
        sent = self.conn.send(req, self.session.session_id,
                              self.tree.tree_connect_id)
        return self.conn.receive(sent, timeout=TIMEOUT)

    def _call(self, pair):
        req, finish = pair
        sent = self.conn.send(req, self.session.session_id,
                              self.tree.tree_connect_id)
        self.conn.receive(sent, timeout=TIMEOUT)     # raises on an error
        return finish(sent)

    def open(self, path, access, disp=CreateDisposition.FILE_OPEN,
             options=0):
        f = Open(self.tree, path.replace("/", "\\"))
        self._call(f.create(
            ImpersonationLevel.Impersonation, access | SYNCHRONIZE,
            FileAttributes.FILE_ATTRIBUTE_NORMAL, SHARE_ALL, disp,
            options, send=False))
        return f

    def open_status(self, path, access):
        return status_of(lambda: self.close_file(self.open(path, access)))

    def close_file(self, f):
        self._call(f.close(send=False))

    def read(self, f, length=65536, offset=0):
        return self._call(f.read(offset, length, send=False))

    def write(self, f, data, offset=0):
        return self._call(f.write(data, offset, send=False))

    def query_sd(self, f, addl=SECINFO):
        req = SMB2QueryInfoRequest()
        req["info_type"] = 3
        req.fields["file_info_class"].enum_strict = False
        req["file_info_class"] = 0
        req["output_buffer_length"] = 65536
        req["additional_information"] = addl
        req["file_id"] = f.file_id
        resp = SMB2QueryInfoResponse()
        resp.unpack(self._send(req)["data"].get_value())
        return parse_sd(resp["buffer"].get_value())

    def set_info(self, f, info_type, cls, buf, addl=0):
        req = SMB2SetInfoRequest()
        req["info_type"] = info_type
        req.fields["file_info_class"].enum_strict = False
        req["file_info_class"] = cls
        req["additional_information"] = addl
        req["file_id"] = f.file_id
        req["buffer"] = buf
        self._send(req)                  # raises on an error

    def set_dacl(self, f, aces):
        self.set_info(f, 3, 0, sd_bytes(aces), DACL)

    def set_basic(self, f, attrs, ct):
        self.set_info(f, 1, BASIC, struct.pack("<QQQQII", ct, 0, 0, 0,
                                               attrs, 0))

    def query_basic(self, f):
        """(FileAttributes, CreationTime)."""
        req = SMB2QueryInfoRequest()
        req["info_type"] = 1
        req["file_info_class"] = BASIC
        req["output_buffer_length"] = 40
        req["file_id"] = f.file_id
        resp = SMB2QueryInfoResponse()
        resp.unpack(self._send(req)["data"].get_value())
        ct, _, _, _, attrs = struct.unpack_from(
            "<QQQQI", resp["buffer"].get_value())
        return attrs, ct

    def streams(self, f):
        """FileStreamInformation as sorted [(name, size)]."""
        status, buf = raw_query(self.tree, f, 1, STREAM_INFO, 4096)
        if status != OK:
            return "NTSTATUS 0x%08x" % status
        out, ofs = [], 0
        while buf:
            nxt, nlen, size, _ = struct.unpack_from("<IIQQ", buf, ofs)
            out.append((buf[ofs + 24:ofs + 24 + nlen].decode("utf-16-le"),
                        size))
            if nxt == 0:
                break
            ofs += nxt
        return sorted(out)

    def with_open(self, path, access, fn):
        """fn(open) on a fresh open of path; the NTSTATUS as a string
        when the open or fn fails."""
        try:
            f = self.open(path, access)
        except SMBResponseException as e:
            return "NTSTATUS 0x%08x (open)" % e.status
        try:
            return fn(f)
        except SMBResponseException as e:
            return "NTSTATUS 0x%08x" % e.status
        finally:
            self.close_file(f)


def sd_answer(sd):
    return (sd["control"], sd["owner"], sd["group"],
            None if sd["dacl"] is None else tuple(sd["dacl"]))


def answers(c, top):
    """What alice sees of one top directory through client c:
    {(what, path): answer}."""
    out = {}
    for rel in FILES:
        p = top + "/" + rel
        out[("sd", rel)] = c.with_open(
            p, READ_CONTROL, lambda f: sd_answer(c.query_sd(f)))
        out[("basic", rel)] = c.with_open(p, READ_ATTRIBUTES,
                                          c.query_basic)
    for rel in STREAMED:
        p = top + "/" + rel
        out[("streams", rel)] = c.with_open(p, READ_ATTRIBUTES, c.streams)
        for s in STREAMS:
            out[("stream", "%s:%s" % (rel, s))] = c.with_open(
                "%s:%s:$DATA" % (p, s), READ_DATA, c.read)
    for rel in STREAMED + ("D/inh.txt", "U/inh.txt"):
        out[("data", rel)] = c.with_open(top + "/" + rel, READ_DATA,
                                         c.read)
    return out


def populate(c, top, sid):
    """alice's content of one top directory (see the module's
    docstring), through client c, with the writer's SIDs sid['alice'],
    sid['bob'] and the Unix SIDs sid['ualice'], sid['ubob']."""
    def dacl_f(a, b):
        return [(DENY, 0, WRITE_DATA, b), (ALLOW, 0, FULL, a),
                (ALLOW, 0, READ, b)]

    def new_file(rel, data):
        f = c.open(top + "/" + rel, RW | READ_CONTROL | WRITE_DAC,
                   CreateDisposition.FILE_CREATE,
                   CreateOptions.FILE_NON_DIRECTORY_FILE)
        if data:
            c.write(f, data)
        return f

    def streamed_file(rel, a, b):
        c.close_file(new_file(rel, DATA))
        for name, data in (("Zone.Identifier", ZONE), ("second", SECOND)):
            s = c.open("%s/%s:%s:$DATA" % (top, rel, name), RW,
                       CreateDisposition.FILE_CREATE)
            try:
                c.write(s, data)
            finally:
                c.close_file(s)
        f = c.open(top + "/" + rel, RW | READ_CONTROL | WRITE_DAC)
        try:
            c.set_dacl(f, dacl_f(a, b))
            c.set_basic(f, HIDDEN | ARCHIVE, CT_F)
        finally:
            c.close_file(f)

    def inheriting_dir(rel, a, b):
        d = c.open(top + "/" + rel, FULL, CreateDisposition.FILE_CREATE,
                   CreateOptions.FILE_DIRECTORY_FILE)
        try:
            c.set_dacl(d, [(ALLOW, OI | CI, FULL, a),
                           (ALLOW, OI | CI, READ_EXEC, b)])
        finally:
            c.close_file(d)
        c.close_file(new_file(rel + "/inh.txt", INH_DATA))

    streamed_file("f.txt", sid["alice"], sid["bob"])
    streamed_file("u.txt", sid["ualice"], sid["ubob"])
    inheriting_dir("D", sid["alice"], sid["bob"])
    inheriting_dir("U", sid["ualice"], sid["ubob"])

    f = new_file("r.txt", b"read only\n")
    try:
        c.set_basic(f, READONLY, CT_R)
    finally:
        c.close_file(f)

    f = new_file("e.txt", DATA)
    try:
        c.set_dacl(f, [(ALLOW, 0, FULL, sid["alice"]),
                       (ALLOW, 0, READ, EVERYONE)])
    finally:
        c.close_file(f)



# ------------------------------------------------------------ fixtures

def root_dir(path):
    path.mkdir(mode=0o777)
    os.chmod(path, 0o777)


def start(cls, tree, extra):
    srv = cls(tree, extra_global=extra)
    srv.start()
    try:
        for who in ("alice", "bob"):
            A.add_smb_user(srv, who)
    except Exception:
        finish_server(srv)
        raise
    return srv


def start_imported(tree, base, samba):
    """ringsmb after ringsmb-import-samba took Samba's SIDs and users
    (with their passwords: no smbpasswd -a here)."""
    srv = RingsmbXS(tree, extra_global={"smb passwd file":
                                        base / "smbpasswd"})
    srv.port = 1                # the config needs one; not started yet
    srv.conf.write_text(srv.config_text())
    p = subprocess.run([str(tool_binary("ringsmb-import-samba")),
                        "-s", str(samba.conf), "-c", str(srv.conf)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=300)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, out
    assert "2 users' RIDs" in out and "2 users added" in out, out
    srv.start()
    return srv


@pytest.fixture(scope="module")
def servers(accounts):
    """Samba and ringsmb, both running, on one directory."""
    if not ringsmb_binary().exists():
        pytest.fail("ringsmb binary %s not found" % ringsmb_binary())
    if not Path(SAMBA_SMBD).exists():
        pytest.skip("Samba's smbd (%s) is not installed" % SAMBA_SMBD)
    base = Path(tempfile.mkdtemp(prefix="ringsmb-crossserver-"))
    os.chmod(base, 0o755)
    tree = Tree(base)
    root_dir(tree.share)
    srvs = {}
    try:
        srvs["samba"] = start(SambaXS, tree, {})
        srvs["ringsmb"] = start_imported(tree, base, srvs["samba"])
        srvs["share"] = tree.share
        yield srvs
    finally:
        try:
            if "ringsmb" in srvs:
                finish_server(srvs["ringsmb"])
        finally:
            if "samba" in srvs:
                finish_server(srvs["samba"])
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def clients(servers):
    """{(server, user): Client}: alice and bob on each server."""
    out = {}
    try:
        for kind in ("samba", "ringsmb"):
            for who in ("alice", "bob"):
                out[(kind, who)] = Client(servers[kind], who)
        yield out
    finally:
        for c in out.values():
            c.close()


@pytest.fixture(scope="module")
def sids(servers, clients, accounts):
    """Each server's SIDs for alice and bob: the owner SID of a file the
    user creates through it (never hardcoded): the same domain SIDs on
    both, from Samba's files."""
    d = servers["share"] / "sids"
    root_dir(d)
    out = {}
    for kind in ("samba", "ringsmb"):
        out[kind] = {}
        for who in ("alice", "bob"):
            c = clients[(kind, who)]
            f = c.open("sids/%s-%s" % (kind, who),
                       RW | READ_CONTROL, CreateDisposition.FILE_CREATE,
                       CreateOptions.FILE_NON_DIRECTORY_FILE)
            try:
                out[kind][who] = c.query_sd(f, OWNER)["owner"]
            finally:
                c.close_file(f)
    unix = {who: "S-1-22-1-%d" % accounts[who].uid
            for who in ("alice", "bob")}
    assert out["samba"]["alice"].startswith("S-1-5-21-")
    assert out["samba"]["alice"] != out["samba"]["bob"]
    assert out["ringsmb"] == out["samba"]
    for kind in out:
        out[kind]["ualice"] = unix["alice"]
        out[kind]["ubob"] = unix["bob"]
    return out


# top directory -> (writer, reader)
DIRECTIONS = {"s2r": ("samba", "ringsmb"), "r2s": ("ringsmb", "samba")}


@pytest.fixture(scope="module")
def populated(servers, clients, sids):
    """Both top directories populated, and every answer of both servers
    for each: {top: {server: answers}}."""
    out = {}
    for top, (writer, _) in DIRECTIONS.items():
        root_dir(servers["share"] / top)
        populate(clients[(writer, "alice")], top, sids[writer])
        out[top] = {kind: answers(clients[(kind, "alice")], top)
                    for kind in ("samba", "ringsmb")}
    return out


def pick(ans, what, paths):
    """The answers of kinds what about paths."""
    return {k: v for k, v in ans.items()
            if k[0] in what and k[1].split(":")[0] in paths}


def comparable(top):
    """The paths whose answers must agree: all of them (r.txt's
    descriptor is test_same_sd_without_parent_ntacl's)."""
    return list(FILES)


def params():
    return [pytest.param(top, id="%s-writes-%s-reads" % DIRECTIONS[top])
            for top in DIRECTIONS]


# ------------------------------------------------------------ what was written

@pytest.mark.parametrize("top", params())
def test_writer_answers(populated, sids, top):
    """The writer itself returns what alice wrote: the DACLs in order,
    the stream lists and bytes, the attributes and creation times, and
    each directory's ACEs inherited by its inh.txt."""
    writer = DIRECTIONS[top][0]
    w = populated[top][writer]
    s = sids[writer]
    for rel, a, b in (("f.txt", s["alice"], s["bob"]),
                      ("u.txt", s["ualice"], s["ubob"])):
        assert w[("sd", rel)][3] == ((DENY, 0, WRITE_DATA, b),
                                     (ALLOW, 0, FULL, a),
                                     (ALLOW, 0, READ, b))
        assert w[("streams", rel)] == [
            ("::$DATA", len(DATA)), (":Zone.Identifier:$DATA", len(ZONE)),
            (":second:$DATA", len(SECOND))]
        assert w[("stream", rel + ":Zone.Identifier")] == ZONE
        assert w[("stream", rel + ":second")] == SECOND
        assert w[("data", rel)] == DATA
        assert w[("basic", rel)] == (HIDDEN | ARCHIVE, CT_F)
    for rel, a, b in (("D", s["alice"], s["bob"]),
                      ("U", s["ualice"], s["ubob"])):
        assert w[("sd", rel)][3] == ((ALLOW, OI | CI, FULL, a),
                                     (ALLOW, OI | CI, READ_EXEC, b))
        assert w[("sd", rel + "/inh.txt")][3] == (
            (ALLOW, 0, FULL, a), (ALLOW, 0, READ_EXEC, b))
        assert w[("data", rel + "/inh.txt")] == INH_DATA
        assert w[("basic", rel)][0] == DIRECTORY
    assert w[("sd", "f.txt")][1] == s["alice"]         # the owner
    assert w[("sd", "e.txt")][3] == ((ALLOW, 0, FULL, s["alice"]),
                                     (ALLOW, 0, READ, EVERYONE))
    assert w[("basic", "r.txt")] == (READONLY, CT_R)


# ------------------------------------------------------------ same answers

@pytest.mark.parametrize("top", params())
def test_same_security_descriptors(populated, top):
    """QUERY_INFO SECURITY (OWNER|GROUP|DACL) of every file and
    directory with a DACL set or inherited from one: control, owner,
    group and ACE list equal."""
    ans, paths = populated[top], [p for p in comparable(top)
                                  if p not in NO_DACL_SET]
    assert pick(ans["ringsmb"], ("sd",), paths) == \
        pick(ans["samba"], ("sd",), paths)


@pytest.mark.parametrize("top", params())
def test_same_sd_without_parent_ntacl(populated, top):
    """r.txt, created in a directory without an NT ACL and given none:
    Samba stores the descriptor it inherits from the parent's
    synthesized DACL in security.NTACL at CREATE, so the reader serves
    that one; the same answer from both servers."""
    ans = populated[top]
    assert pick(ans["ringsmb"], ("sd",), NO_DACL_SET) == \
        pick(ans["samba"], ("sd",), NO_DACL_SET)


@pytest.mark.parametrize("top", params())
def test_same_streams(populated, top):
    """FileStreamInformation (names, sizes) and the bytes of each stream
    and of the files' data equal."""
    ans, what = populated[top], ("streams", "stream", "data")
    assert pick(ans["ringsmb"], what, comparable(top)) == \
        pick(ans["samba"], what, comparable(top))


@pytest.mark.parametrize("top", params())
def test_same_basic_information(populated, top):
    """FileBasicInformation: FileAttributes and CreationTime equal."""
    ans = populated[top]
    assert pick(ans["ringsmb"], ("basic",), comparable(top)) == \
        pick(ans["samba"], ("basic",), comparable(top))


def test_samba_domain_sids_served_by_ringsmb(populated):
    """What Samba wrote with its domain SIDs (s2r/f.txt with its
    streams, D, D/inh.txt) reads back through ringsmb as through Samba:
    descriptors, stream lists and bytes, attributes and times.  (Before
    ringsmb read Samba's SIDs it refused alice every one of these.)"""
    ans = populated["s2r"]
    what = ("sd", "basic", "streams", "stream", "data")
    assert pick(ans["ringsmb"], what, WRITER_SID_PATHS) == \
        pick(ans["samba"], what, WRITER_SID_PATHS)


# ------------------------------------------------------------ access

def bob_access(clients, kind, path):
    """(NTSTATUS of bob's open for WRITE_DATA, bob's READ_DATA result:
    the bytes read, or the NTSTATUS)."""
    c = clients[(kind, "bob")]
    return (c.open_status(path, WRITE_DATA),
            c.with_open(path, READ_DATA, c.read))


@pytest.mark.parametrize("top", params())
@pytest.mark.parametrize("kind", ["samba", "ringsmb"])
def test_everyone_read_enforced(populated, clients, top, kind):
    """e.txt grants Everyone read and bob nothing else: both servers let
    bob read it and refuse him WRITE_DATA, whoever wrote it."""
    assert bob_access(clients, kind, top + "/e.txt") == \
        (ACCESS_DENIED, DATA)


@pytest.mark.parametrize("top", params())
@pytest.mark.parametrize("kind", ["samba", "ringsmb"])
def test_unix_sid_acl_enforced(populated, clients, top, kind):
    """u.txt's DACL names alice and bob by their Unix SIDs
    (S-1-22-1-uid), which both servers understand: DENY bob WRITE_DATA
    ahead of ALLOW bob read holds on both, whoever wrote it; bob reads
    U/inh.txt through the ACE it inherited."""
    assert bob_access(clients, kind, top + "/u.txt") == \
        (ACCESS_DENIED, DATA)
    assert bob_access(clients, kind, top + "/U/inh.txt") == \
        (ACCESS_DENIED, INH_DATA)


@pytest.mark.parametrize("top,kind", [
    pytest.param("s2r", "samba", id="samba-writes-samba-enforces"),
    pytest.param("s2r", "ringsmb", id="samba-writes-ringsmb-enforces"),
    pytest.param("r2s", "ringsmb", id="ringsmb-writes-ringsmb-enforces"),
    pytest.param("r2s", "samba", id="ringsmb-writes-samba-enforces")])
def test_writer_sid_acl_enforced(populated, clients, top, kind):
    """f.txt's DACL names alice and bob by their domain SIDs: whoever
    wrote it, both servers refuse bob WRITE_DATA and let him read."""
    assert bob_access(clients, kind, top + "/f.txt") == \
        (ACCESS_DENIED, DATA)


# ------------------------------------------------------------ Samba's tools

SAMBA_TOOL = "/usr/bin/samba-tool"
SDDL_PATHS = ("f.txt", "u.txt", "e.txt", "D", "D/inh.txt", "U",
              "U/inh.txt")


def samba_tool_sddl(servers, path):
    """What Samba's own `samba-tool ntacl get` reads from path through
    its s3 VFS with Samba's configuration ([xs]: acl_xattr), as SDDL."""
    p = subprocess.run([SAMBA_TOOL, "ntacl", "get", "--as-sddl",
                        "--use-s3fs", "--service=xs",
                        "-s", str(servers["samba"].conf), str(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p.stdout.decode().strip()


@pytest.fixture(scope="module")
def samba_tool(servers):
    """samba-tool ntacl get asks Samba's passdb for the domain SID of
    the workgroup, which a standalone Samba keeps under its machine
    name only: store it under the workgroup too (`net setdomainsid`)."""
    if not Path(SAMBA_TOOL).exists():
        pytest.skip("samba-tool is not installed")
    conf = str(servers["samba"].conf)
    out = subprocess.run(["net", "-s", conf, "getlocalsid"],
                         stdout=subprocess.PIPE, timeout=120,
                         check=True).stdout.decode()
    sid = out.strip().rsplit(" ", 1)[-1]
    subprocess.run(["net", "-s", conf, "setdomainsid", sid],
                   stdout=subprocess.DEVNULL, timeout=120, check=True)


@pytest.mark.parametrize("rel", SDDL_PATHS)
def test_samba_tool_reads_what_ringsmb_wrote(populated, servers, sids,
                                             samba_tool, rel):
    """Samba's samba-tool ntacl get reads from the file ringsmb wrote
    (r2s/) the descriptor it reads from the one Samba wrote (s2r/):
    owner, group, control and every ACE, in SDDL."""
    share = servers["share"]
    ours = samba_tool_sddl(servers, share / "r2s" / rel)
    theirs = samba_tool_sddl(servers, share / "s2r" / rel)
    assert ours == theirs
    assert "D:" in ours and "O:" + sids["samba"]["alice"] in ours


# ------------------------------------------------------------ on disk

def ntacl_level(p):
    return struct.unpack("<HH", os.getxattr(p, "security.NTACL")[:4])


@pytest.mark.parametrize("top", params())
def test_on_disk_format(populated, servers, top):
    """Whoever wrote it, f.txt carries Samba's xattrs: security.NTACL
    version 4 (xattr_NTACL level 4), user.DOSATTRIB, and the stream in
    user.DosStream.Zone.Identifier:$DATA (its bytes and one NUL); the
    directory's and the inherited file's NTACL are version 4 too."""
    d = servers["share"] / top
    for rel in ("f.txt", "u.txt", "D", "D/inh.txt", "U/inh.txt"):
        assert ntacl_level(d / rel) == (4, 4), rel
    for rel in STREAMED:
        assert os.getxattr(d / rel, "user.DOSATTRIB")
        assert os.getxattr(d / rel, ZONE_XATTR) == ZONE + b"\0"


def test_same_dosattrib_bytes(populated, servers):
    """Both servers write the same user.DOSATTRIB bytes for the same
    attributes and creation time."""
    s, r = servers["share"] / "s2r", servers["share"] / "r2s"
    for rel in STREAMED + ("r.txt",):
        assert os.getxattr(r / rel, "user.DOSATTRIB") == \
            os.getxattr(s / rel, "user.DOSATTRIB"), rel
