"""Multichannel: session binding (MS-SMB2 3.3.5.5.2) with two raw
connections.  A small SMB 3.0.2 client (AES-CMAC signing, keys from the
SP800-108 KDF, NTLM tokens from pyspnego) binds its second connection to
the session of the first and uses the first one's tree connect and open
from there; each channel signs with its own key.  ringsmb only (its
smbpasswd users)."""
import hashlib
import hmac
import shutil
import struct
import tempfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.cmac import CMAC

import rawsmb as R
from conftest import (TARGET, finish_server, make_scratch_dir, make_server,
                      scratch_file)
from test_session import ALICE, BOB, USERS, add_user, file_id, ntlm_token

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="accounts are ringsmb's smbpasswd")

D302 = 0x0302
CAP_MULTI_CHANNEL = 0x08
SIG = 48                        # the header's Signature field
FLAG_BINDING = 0x01


def make_srv(share_tree, extra):
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    base, d = make_scratch_dir()
    scratch_file(d, "data.txt", b"multichannel data")
    g = {"smb passwd file": str(passwd), "server signing": "mandatory"}
    g.update(extra)
    s = make_server(share_tree, "default", g,
                    shares=[{"name": "rw", "path": str(d),
                             "read_only": False}])
    for user, pw in USERS.items():
        add_user(s, user, pw)
    return s, base


@pytest.fixture(scope="module")
def srv(share_tree, accounts):
    # the back-off holds a logon leg running (test_close_waits...)
    s, base = make_srv(share_tree, {"logon backoff": "yes"})
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def srv_off(share_tree, accounts):
    s, base = make_srv(share_tree, {"server multi channel support": "no"})
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)


def kdf(key, label, context):
    """SP800-108 counter mode, HMAC-SHA256, one block, L = 128."""
    msg = struct.pack(">I", 1) + label + b"\0" + context + \
        struct.pack(">I", 128)
    return hmac.new(key, msg, hashlib.sha256).digest()[:16]


def signing_key_302(session_key):
    return kdf(session_key[:16], b"SMB2AESCMAC\0", b"SmbSign\0")


def cmac(key, data):
    c = CMAC(algorithms.AES(key))
    c.update(data)
    return c.finalize()


def sign(key, pdu):
    pdu = bytearray(pdu)
    struct.pack_into("<I", pdu, 16, struct.unpack_from("<I", pdu, 16)[0] |
                     R.FLAG_SIGNED)
    pdu[SIG:SIG + 16] = b"\0" * 16
    pdu[SIG:SIG + 16] = cmac(key, bytes(pdu))
    return bytes(pdu)


def signed_with(key, r):
    pdu = bytearray(r.pdu[:r.next_command or len(r.pdu)])
    got = bytes(pdu[SIG:SIG + 16])
    pdu[SIG:SIG + 16] = b"\0" * 16
    return bool(r.flags & R.FLAG_SIGNED) and cmac(key, bytes(pdu)) == got


class Channel(R.Conn):
    """One SMB 3.0.2 connection; key: what this channel signs with."""

    def __init__(self, port):
        super().__init__("127.0.0.1", port, timeout=10)
        self.key = None
        self.neg = self.negotiate(dialects=[D302],
                                  capabilities=CAP_MULTI_CHANNEL)

    @property
    def caps(self):
        return self.neg.u32(24)

    def call(self, command, body, key=None, **hdr):
        p = self.pdu(command, body, **hdr)
        key = self.key if key is None else key
        if key is not None:
            p = sign(key, p)
        self.send(R.nbt(p))
        return self.recv()[0]

    def auth(self, user, password=None, session_id=0, flags=0, key=None):
        """Both NTLM legs; returns (final response, its session key)."""
        import spnego
        ctx = spnego.client(user, password or USERS[user],
                            hostname="127.0.0.1", service="cifs",
                            protocol="ntlm",
                            options=spnego.NegotiateOptions.session_key)
        r = self.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_init(ctx.step()), flags=flags), key=key,
            session_id=session_id)
        if r.status != R.STATUS["STATUS_MORE_PROCESSING_REQUIRED"]:
            return r, None
        blob = r.body[r.u16(4) - 64:][:r.u16(6)]
        tok = ctx.step(ntlm_token(blob))
        r = self.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_resp(tok), flags=flags), key=key,
            session_id=r.session_id)
        return r, ctx.session_key

    def login(self, user=ALICE):
        r, skey = self.auth(user)
        self.expect(r)
        self.session_id = r.session_id
        self.key = signing_key_302(skey)
        assert signed_with(self.key, r)
        r = self.call("TREE_CONNECT", R.tree_connect_body(
            "\\\\127.0.0.1\\rw"))
        self.expect(r)
        self.tree_id = r.tree_id

    def bind(self, first, user=ALICE, password=None):
        """Binds this connection to first's session: the legs are signed
        with the session's key; the answer and everything after with the
        new channel key."""
        r, skey = self.auth(user, password, session_id=first.session_id,
                            flags=FLAG_BINDING, key=first.key)
        if r.status == 0:
            self.session_id = first.session_id
            self.tree_id = first.tree_id
            self.key = signing_key_302(skey)
        return r

    def query(self, fid, key=None):
        return self.call("QUERY_INFO", R.query_info_body(file_id=fid),
                         key=key)

    def read_file(self, fid):
        r = self.call("READ", R.read_body(file_id=fid, length=100))
        self.expect(r)
        off = r.u8(2) - 64
        return r.body[off:off + r.u32(4)]


def open_data(c):
    r = c.call("CREATE", R.create_body("data.txt", disposition=1,
                                       desired_access=0x0012019F))
    c.expect(r)
    return file_id(r)


def test_multichannel_capability(srv, srv_off):
    with Channel(srv.port) as a:
        assert a.caps & CAP_MULTI_CHANNEL
    with Channel(srv_off.port) as a:
        assert not a.caps & CAP_MULTI_CHANNEL


def test_bind_uses_tree_and_open_of_first_channel(srv):
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        r = b.bind(a)
        b.expect(r)
        assert r.session_id == a.session_id
        assert b.key != a.key
        assert signed_with(b.key, r)      # the new channel's key
        q = b.query(fid)
        b.expect(q)
        assert signed_with(b.key, q)
        assert b.read_file(fid) == b"multichannel data"
        # each channel has its own key: the other one's does not check
        b.expect(b.query(fid, key=a.key), "STATUS_ACCESS_DENIED")
        a.expect(a.query(fid, key=b.key), "STATUS_ACCESS_DENIED")
        q = a.query(fid)
        a.expect(q)
        assert signed_with(a.key, q)


def test_first_channel_closed_second_goes_on(srv):
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        b.expect(b.bind(a))
        a.close()
        b.expect(b.query(fid))
        assert b.read_file(fid) == b"multichannel data"
        r = b.call("CREATE", R.create_body("new.txt", disposition=5,
                                           desired_access=0x0012019F))
        b.expect(r)
        b.expect(b.call("CLOSE", R.body_for("CLOSE", file_id=file_id(r))))
        b.expect(b.call("CLOSE", R.body_for("CLOSE", file_id=fid)))
        b.expect(b.query(fid), "STATUS_FILE_CLOSED")
    # the last channel gone, the session ended: the file is free again
    with Channel(srv.port) as c:
        c.login()
        r = c.call("CREATE", R.create_body("data.txt", disposition=1,
                                           share_access=0,
                                           desired_access=0x0012019F))
        c.expect(r)


def test_logoff_on_one_channel_ends_both(srv):
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        b.expect(b.bind(a))
        b.expect(b.call("LOGOFF", R.body_for("LOGOFF")))
        a.expect(a.query(fid), "STATUS_USER_SESSION_DELETED")
        b.expect(b.query(fid), "STATUS_USER_SESSION_DELETED")


def test_close_from_second_channel(srv):
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        b.expect(b.bind(a))
        b.expect(b.call("CLOSE", R.body_for("CLOSE", file_id=fid)))
        a.expect(a.query(fid), "STATUS_FILE_CLOSED")
        b.expect(b.call("TREE_DISCONNECT", b"\x04\0\0\0"))
        a.expect(a.query(fid), "STATUS_NETWORK_NAME_DELETED")


def test_unbound_connection_does_not_see_session(srv):
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        b.session_id, b.tree_id = a.session_id, a.tree_id
        b.expect(b.query(fid, key=a.key), "STATUS_USER_SESSION_DELETED")


def test_bind_refused_keeps_session(srv):
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        b.expect(b.bind(a, user=BOB), "STATUS_ACCESS_DENIED")
        b.expect(b.bind(a, password="wrong"), "STATUS_LOGON_FAILURE")
        # a binding must be signed (3.3.5.5), with the session's key
        r, _ = b.auth(ALICE, session_id=a.session_id, flags=FLAG_BINDING,
                      key=None)
        b.expect(r, "STATUS_INVALID_PARAMETER")
        r, _ = b.auth(ALICE, session_id=a.session_id, flags=FLAG_BINDING,
                      key=b"k" * 16)
        b.expect(r, "STATUS_ACCESS_DENIED")
        a.expect(a.query(fid))
        # and a correct one still binds on the same connection
        b.expect(b.bind(a))
        b.expect(b.query(fid))
        # bound already: a binding is signed with the channel key now
        r = b.bind(a)
        b.expect(r, "STATUS_ACCESS_DENIED")
        b.expect(b.query(fid))


def test_bind_refused_when_disabled(srv_off):
    with Channel(srv_off.port) as a, Channel(srv_off.port) as b:
        a.login()
        r = b.bind(a)
        b.expect(r, "STATUS_REQUEST_NOT_ACCEPTED")
        a.expect(a.call("TREE_DISCONNECT", b"\x04\0\0\0"))


def lock(c, fid, seq, flags=0x12):
    """An exclusive FAIL_IMMEDIATELY lock of byte 0 (or flags=4: unlock)."""
    return c.call("LOCK", R.body_for("LOCK", file_id=fid, lock_sequence=seq,
                                     lock_flags=flags))


def test_lock_replay_on_other_channel(srv):
    """LockSequenceIndex 1..64 with its number (MS-SMB2 3.3.5.14): the
    same LOCK resent on another channel is a replay, answered SUCCESS and
    not applied again; another number is a new request."""
    with Channel(srv.port) as a, Channel(srv.port) as b:
        a.login()
        fid = open_data(a)
        b.expect(b.bind(a))
        seq = (1 << 4) | 3              # index 1, number 3
        a.expect(lock(a, fid, seq))
        b.expect(lock(b, fid, seq))     # replay: not a second lock
        b.expect(lock(b, fid, seq + 1), "STATUS_LOCK_NOT_GRANTED")
        # the failure invalidated index 1: the old number is new again
        a.expect(lock(a, fid, seq), "STATUS_LOCK_NOT_GRANTED")
        # index 0 and above 64 are never replays
        a.expect(lock(a, fid, 3), "STATUS_LOCK_NOT_GRANTED")
        a.expect(lock(a, fid, 3), "STATUS_LOCK_NOT_GRANTED")
        a.expect(lock(a, fid, (65 << 4) | 3), "STATUS_LOCK_NOT_GRANTED")
        a.expect(lock(a, fid, (2 << 4) | 1, flags=4))    # unlock
        b.expect(lock(b, fid, (2 << 4) | 1, flags=4))    # its replay
        a.expect(lock(a, fid, 0, flags=4), "STATUS_RANGE_NOT_LOCKED")


def test_close_waits_for_command_on_other_channel(srv):
    """A command running on one channel may use the session's opens: a
    CLOSE on another channel waits until it is done (RELIABILITY.md item
    41).  The running command here is a re-authentication leg held back
    by the failed-logon throttle (logon backoff, after 7 failures).

    The throttle spaces logon legs from one address 500 ms apart after 7
    failures; a leg that comes after the last slot ran at once.  So c
    takes a slot first, and a's leg, read after it, waits >= 500 ms
    behind it however slowly this machine ran the failures."""
    import time
    import spnego

    def first_leg(ch, password):
        ctx = spnego.client(ALICE, password, hostname="127.0.0.1",
                            service="cifs", protocol="ntlm",
                            options=spnego.NegotiateOptions.session_key)
        pdu = ch.pdu("SESSION_SETUP", R.session_setup_body(
            R.spnego_init(ctx.step())))
        ch.send(R.nbt(sign(ch.key, pdu) if ch.key else pdu))
        return ctx

    with Channel(srv.port) as a, Channel(srv.port) as b, \
            Channel(srv.port) as c:
        a.login()
        fid = open_data(a)
        b.expect(b.bind(a))
        for _ in range(7):       # the 7th logon's legs wait already
            r, _ = c.auth(ALICE, password="wrong")
            c.expect(r, "STATUS_LOGON_FAILURE")
        first_leg(c, "wrong")     # takes the next slot
        time.sleep(0.2)           # so that the server reads c's leg first
        ctx = first_leg(a, USERS[ALICE])
        time.sleep(0.05)          # and a's leg before b's CLOSE
        t0 = time.monotonic()
        b.send(R.nbt(sign(b.key, b.pdu("CLOSE", R.body_for(
            "CLOSE", file_id=fid)))))
        closed = b.recv()[0]
        waited = time.monotonic() - t0
        b.expect(closed)
        leg = a.recv()[0]
        a.expect(leg, "STATUS_MORE_PROCESSING_REQUIRED")
        assert waited >= 0.1, waited
        # finish the re-authentication: a success resets the throttle
        blob = leg.body[leg.u16(4) - 64:][:leg.u16(6)]
        r = a.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_resp(ctx.step(ntlm_token(blob)))))
        a.expect(r)
        a.expect(a.query(fid), "STATUS_FILE_CLOSED")
