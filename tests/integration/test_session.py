"""Session setup beyond the first logon (MS-SMB2 3.3.5.5): re-authentication
of a live session, PreviousSessionId, and the refusals of binding
(binding itself: test_multichannel.py).  A small signed raw client (SMB 2.1,
HMAC-SHA256 with the NTLM session key, tokens from pyspnego) so each test
controls the session id, PreviousSessionId and flags of every leg.
ringsmb only (its smbpasswd users)."""
import hashlib
import hmac
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

import accounts
import rawsmb as R
from conftest import (TARGET, finish_server, make_scratch_dir, make_server,
                      scratch_file, tool_binary)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="accounts are ringsmb's smbpasswd")

# real Unix accounts (accounts.py): issue 11 logs users on as theirs
ALICE, BOB = accounts.name("alice"), accounts.name("bob")
USERS = {ALICE: "S3cret-pw", BOB: "0ther-pw"}
SIGNED_OFS = 48                 # the header's Signature field


def add_user(srv, user, password):
    tool = tool_binary("smbpasswd")
    p = subprocess.run([str(tool), "-c", str(srv.conf), "-s", "-a", user],
                       input=("%s\n%s\n" % (password, password)).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=30)
    assert p.returncode == 0, p.stdout


@pytest.fixture(scope="module")
def srv(share_tree, accounts):
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    base, d = make_scratch_dir()
    scratch_file(d, "locked.txt", b"hello")
    s = make_server(share_tree, "default", {"smb passwd file": str(passwd)},
                    shares=[{"name": "rw", "path": str(d),
                             "read_only": False}])
    for user, pw in USERS.items():
        add_user(s, user, pw)
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)


def sign(key, pdu):
    pdu = bytearray(pdu)
    struct.pack_into("<I", pdu, 16, struct.unpack_from("<I", pdu, 16)[0] |
                     R.FLAG_SIGNED)
    pdu[SIGNED_OFS:SIGNED_OFS + 16] = b"\0" * 16
    mac = hmac.new(key, bytes(pdu), hashlib.sha256).digest()[:16]
    pdu[SIGNED_OFS:SIGNED_OFS + 16] = mac
    return bytes(pdu)


def signature_ok(key, r):
    pdu = bytearray(r.pdu[:r.next_command or len(r.pdu)])
    got = bytes(pdu[SIGNED_OFS:SIGNED_OFS + 16])
    pdu[SIGNED_OFS:SIGNED_OFS + 16] = b"\0" * 16
    return (r.flags & R.FLAG_SIGNED) and \
        hmac.new(key, bytes(pdu), hashlib.sha256).digest()[:16] == got


def ntlm_token(blob):
    i = blob.find(b"NTLMSSP\0")
    assert i >= 0, blob.hex()
    return blob[i:]


class Client(R.Conn):
    """SMB 2.1 with a user session; every request after the first logon
    is signed with that logon's key."""

    def __init__(self, port):
        super().__init__("127.0.0.1", port, timeout=10)
        self.key = None
        self.negotiate(dialects=[0x0210])

    def call(self, command, body, **hdr):
        p = self.pdu(command, body, **hdr)
        if self.key is not None:
            p = sign(self.key, p)
        self.send(R.nbt(p))
        return self.recv()[0]

    def logon(self, user, previous=0, session_id=None, flags=0):
        """Returns (final response, session key of this logon)."""
        import spnego
        ctx = spnego.client(user, USERS.get(user, "wrong"),
                            hostname="127.0.0.1", service="cifs",
                            protocol="ntlm",
                            options=spnego.NegotiateOptions.session_key)
        sid = self.session_id if session_id is None else session_id
        r = self.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_init(ctx.step()), previous_session_id=previous,
            flags=flags), session_id=sid)
        if r.status != R.STATUS["STATUS_MORE_PROCESSING_REQUIRED"]:
            return r, None
        sid = r.session_id
        blob = r.body[r.u16(4) - 64:][:r.u16(6)]
        auth = ctx.step(ntlm_token(blob))
        r = self.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_resp(auth), previous_session_id=previous,
            flags=flags), session_id=sid)
        if r.status == 0 and self.session_id in (0, sid):
            self.session_id = sid
            if self.key is None:
                self.key = ctx.session_key
        return r, ctx.session_key

    def login(self, user, previous=0):
        r, _ = self.logon(user, previous)
        self.expect(r)
        self.tree_connect("rw")

    def open_exclusive(self, name="locked.txt"):
        return self.call("CREATE", R.create_body(
            name, share_access=0, desired_access=0x0012019F,
            disposition=1))

    def query(self, fid):
        return self.call("QUERY_INFO", R.query_info_body(file_id=fid))


def file_id(r):
    return r.body[64:80]


def test_reauth_keeps_open_and_signing(srv):
    with Client(srv.port) as c:
        c.login(ALICE)
        f = c.open_exclusive()
        c.expect(f)
        old_key = c.key
        r, new_key = c.logon(ALICE)
        c.expect(r)
        assert r.session_id == c.session_id
        assert new_key != old_key        # a fresh NTLM exchange ...
        assert signature_ok(old_key, r)  # ... the session's key stays
        q = c.query(file_id(f))
        c.expect(q)
        assert signature_ok(old_key, q)


def test_reauth_anonymous_and_back(srv):
    with Client(srv.port) as c:
        c.login(ALICE)
        f = c.open_exclusive()
        c.expect(f)
        # anonymous: an empty NTLM AUTHENTICATE on the live session
        r = c.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_init(R.ntlm_negotiate())))
        c.expect(r, "STATUS_MORE_PROCESSING_REQUIRED")
        r = c.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_resp(R.ntlm_authenticate())))
        c.expect(r)
        assert signature_ok(c.key, r)
        c.expect(c.query(file_id(f)))
        r, _ = c.logon(ALICE)
        c.expect(r)
        c.expect(c.query(file_id(f)))


def test_reauth_as_other_user_refused(srv):
    with Client(srv.port) as c:
        c.login(ALICE)
        r, _ = c.logon(BOB)
        c.expect(r, "STATUS_ACCESS_DENIED")


def test_previous_session_closes_its_opens(srv):
    with Client(srv.port) as a, Client(srv.port) as b, \
            Client(srv.port) as c:
        a.login(ALICE)
        a.expect(a.open_exclusive())
        b.login(ALICE)
        b.expect(b.open_exclusive(), "STATUS_SHARING_VIOLATION")
        c.login(ALICE, previous=a.session_id)
        f = b.open_exclusive()
        b.expect(f)                     # a's open is gone
        b.expect(b.call("CLOSE", R.body_for("CLOSE", file_id=file_id(f))))
        a.expect(a.call("TREE_DISCONNECT", b"\x04\0\0\0"),
                 "STATUS_USER_SESSION_DELETED")


def test_previous_session_of_other_user_stays(srv):
    with Client(srv.port) as a, Client(srv.port) as b, \
            Client(srv.port) as c:
        a.login(ALICE)
        f = a.open_exclusive()
        a.expect(f)
        c.login(BOB, previous=a.session_id)
        b.login(BOB)
        b.expect(b.open_exclusive(), "STATUS_SHARING_VIOLATION")
        a.expect(a.query(file_id(f)))


def binding(conn, session_id):
    """A binding first leg (unsigned: the refusals come first)."""
    return conn.request("SESSION_SETUP", R.session_setup_body(
        R.spnego_init(R.ntlm_negotiate()), flags=1), session_id=session_id)


def test_binding_refusals(srv):
    with Client(srv.port) as a:
        a.login(ALICE)
        with Client(srv.port) as b:     # 2.1 channel
            a.expect(binding(b, a.session_id),
                     "STATUS_REQUEST_NOT_ACCEPTED")
        with R.Conn("127.0.0.1", srv.port) as c:
            c.negotiate(dialects=[0x0311],
                        contexts=[(R.CTX_PREAUTH, R.ctx_preauth()),
                                  (R.CTX_SIGNING, R.ctx_signing(algs=(1,)))])
            c.expect(binding(c, 0), "STATUS_INVALID_PARAMETER")
            c.expect(binding(c, 0x7777777777), "STATUS_USER_SESSION_DELETED")
            # 2.1 session, 3.1.1 channel
            c.expect(binding(c, a.session_id), "STATUS_INVALID_PARAMETER")
        with R.Conn("127.0.0.1", srv.port) as g:
            g.negotiate(dialects=[0x0311],
                        contexts=[(R.CTX_PREAUTH, R.ctx_preauth()),
                                  (R.CTX_SIGNING, R.ctx_signing(algs=(2,)))])
            g.expect(binding(g, a.session_id), "STATUS_NOT_SUPPORTED")
        # the session is still fine
        a.expect(a.call("TREE_DISCONNECT", b"\x04\0\0\0"))


def test_previous_session_on_same_connection(srv):
    """The old session belongs to the connection whose request is running:
    it goes once that request is done (deferred teardown), not under it."""
    with Client(srv.port) as a, Client(srv.port) as b:
        a.login(ALICE)
        a.expect(a.open_exclusive())
        old = a.session_id
        r, _ = a.logon(ALICE, previous=old, session_id=0)
        a.expect(r)
        assert r.session_id != old
        a.expect(a.call("TREE_DISCONNECT", b"\x04\0\0\0"),
                 "STATUS_USER_SESSION_DELETED")
        b.login(ALICE)
        b.expect(b.open_exclusive())
