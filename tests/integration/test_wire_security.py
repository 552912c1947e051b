"""Security checks seen from the wire (issue 17, "tests that must be able
to fail"): mutants of the daemon that once survived the whole suite must
fail here.

- signatures: on a session that must sign, a request whose signature was
  tampered with, whose body changed after signing, or that is not signed
  at all is refused with ACCESS_DENIED, and the connection goes on;
- NTLMSSP without a MIC: a raw NTLMv2 AUTHENTICATE (no MIC, no key
  exchange) logs on with the right proof, and is refused with a flipped
  NTProofStr byte or a wrong password (the MIC check must not be what
  catches a bad proof);
- encryption: on a session (`server smb encrypt = required`) and on a
  share (`smb encrypt = required`) that must be encrypted, a plaintext
  request is refused with ACCESS_DENIED and the same request encrypted
  succeeds;
- nonces: 200 encrypted responses carry 200 different nonces, each
  decrypting to the right answer;
- the credit window: after NEGOTIATE the last MessageId the granted
  credits allow is served, one past it ends the connection.

A small SMB 3.0.2 client (test_multichannel.Channel: AES-CMAC signing,
SP800-108 keys) with AES-128-CCM transforms.  ringsmb only (its
smbpasswd users).
"""
import os
import shutil
import struct
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

import rawsmb as R
from conftest import (TARGET, finish_server, make_scratch_dir, make_server,
                      scratch_file)
from test_multichannel import (CAP_MULTI_CHANNEL, D302, SIG, Channel, kdf,
                               open_data, sign, signed_with,
                               signing_key_302)
from test_session import ALICE, USERS, add_user, file_id, ntlm_token

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="accounts are ringsmb's smbpasswd")

CAP_ENCRYPTION = 0x40
SESSION_FLAG_ENCRYPT_DATA = 0x04
SHAREFLAG_ENCRYPT_DATA = 0x8000
TRANSFORM_ID = b"\xfdSMB"
ACCESS_DENIED = R.STATUS["STATUS_ACCESS_DENIED"]
DATA = b"multichannel data"


def make_srv(share_tree, extra):
    """A server with ALICE and BOB, signing required, a share rw and a
    share enc that must be encrypted."""
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    base, d = make_scratch_dir()
    scratch_file(d, "data.txt", DATA)
    g = {"smb passwd file": str(passwd), "server signing": "mandatory"}
    g.update(extra)
    s = make_server(share_tree, "default", g, shares=[
        {"name": "rw", "path": str(d), "read_only": False},
        {"name": "enc", "path": str(d), "read_only": False,
         "params": {"smb encrypt": "required"}}])
    for user, pw in USERS.items():
        add_user(s, user, pw)
    return s, base, passwd.parent


@pytest.fixture(scope="module")
def srv(share_tree, accounts):
    s, base, pdir = make_srv(share_tree, {})
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(pdir, ignore_errors=True)


@pytest.fixture(scope="module")
def srv_enc(share_tree, accounts):
    s, base, pdir = make_srv(share_tree, {"server smb encrypt": "required"})
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(pdir, ignore_errors=True)


class SecChannel(Channel):
    """Channel that can also encrypt (SMB 3.0.2: AES-128-CCM)."""

    def __init__(self, port):
        R.Conn.__init__(self, "127.0.0.1", port, timeout=10)
        self.key = None
        self.enc_key = self.dec_key = None
        self.nonce = 0
        self.neg = self.negotiate(
            dialects=[D302], capabilities=CAP_MULTI_CHANNEL | CAP_ENCRYPTION)

    def logon(self, user=ALICE):
        """SESSION_SETUP only; returns the last response."""
        r, skey = self.auth(user)
        self.expect(r)
        self.session_id = r.session_id
        self.key = signing_key_302(skey)
        self.enc_key = kdf(skey[:16], b"SMB2AESCCM\0", b"ServerIn \0")
        self.dec_key = kdf(skey[:16], b"SMB2AESCCM\0", b"ServerOut\0")
        return r

    def seal(self, pdu):
        self.nonce += 1
        nonce = struct.pack("<Q", self.nonce) + os.urandom(3)
        tail = nonce + b"\0" * 5 + struct.pack("<IHHQ", len(pdu), 0, 1,
                                               self.session_id)
        ct = AESCCM(self.enc_key, tag_length=16).encrypt(nonce, pdu, tail)
        return TRANSFORM_ID + ct[-16:] + tail + ct[:-16]

    def unseal(self, frame):
        """(nonce, responses) of one encrypted frame."""
        assert frame[:4] == TRANSFORM_ID, frame[:8].hex()
        tag, tail = frame[4:20], frame[20:52]
        size, _, flags, sid = struct.unpack_from("<IHHQ", tail, 16)
        assert flags == 1 and sid == self.session_id
        pdu = AESCCM(self.dec_key, tag_length=16).decrypt(
            tail[:11], frame[52:] + tag, tail)
        assert len(pdu) == size
        return tail[:16], R.split_compound(pdu)

    def call_sealed(self, command, body):
        """An encrypted request; (nonce, response) of the encrypted
        answer, interim responses skipped."""
        self.send(R.nbt(self.seal(self.pdu(command, body))))
        for _ in range(8):
            nonce, rs = self.unseal(self.recv_frame())
            rs = [r for r in rs if r.status != R.STATUS["STATUS_PENDING"]]
            if rs:
                return nonce, rs[0]
        raise AssertionError("no final response")

    def call_plain(self, command, body):
        """A signed, unencrypted request; the response, or None when the
        server closed the connection instead."""
        try:
            return self.call(command, body)
        except R.Disconnected:
            return None


def refused(r):
    """ACCESS_DENIED, or the connection closed; never served."""
    return r is None or r.status == ACCESS_DENIED


# ------------------------------------------------------------- signatures

def send_raw(c, pdu):
    c.send(R.nbt(pdu))
    return c.recv()[0]


def test_bad_signatures_refused(srv):
    with SecChannel(srv.port) as c:
        c.logon()
        r = c.call("TREE_CONNECT", R.tree_connect_body("\\\\127.0.0.1\\rw"))
        c.expect(r)
        c.tree_id = r.tree_id
        fid = open_data(c)
        q = R.query_info_body(file_id=fid)
        # a byte of the signature flipped
        p = bytearray(sign(c.key, c.pdu("QUERY_INFO", q)))
        p[SIG + 3] ^= 0x40
        assert send_raw(c, bytes(p)).status == ACCESS_DENIED
        # the body changed after signing (another info class)
        p = bytearray(sign(c.key, c.pdu("QUERY_INFO", q)))
        p[64 + 3] ^= 0x01
        assert send_raw(c, bytes(p)).status == ACCESS_DENIED
        # not signed at all
        assert send_raw(c, c.pdu("QUERY_INFO", q)).status == ACCESS_DENIED
        # signed with another session's key
        with SecChannel(srv.port) as other:
            other.logon()
            p = sign(other.key, c.pdu("QUERY_INFO", q))
            assert send_raw(c, p).status == ACCESS_DENIED
        # the connection and the session go on
        r = c.call("QUERY_INFO", q)
        c.expect(r)
        assert signed_with(c.key, r)
        assert c.read_file(fid) == DATA


# ------------------------------------------------------------ NTLM, no MIC

def ntlmv2_authenticate(challenge, user, password, flip_proof=False):
    """An NTLMv2 AUTHENTICATE without MIC or key exchange (MS-NLMP 3.3.2);
    returns (message, session base key)."""
    import hashlib
    import hmac
    from spnego._ntlm_raw.crypto import ntowfv1, ntowfv2
    server_challenge = challenge[24:32]
    ti_len, _, ti_off = struct.unpack_from("<HHI", challenge, 40)
    target_info = challenge[ti_off:ti_off + ti_len]
    key = ntowfv2(user, ntowfv1(password), "")
    ts = struct.pack("<Q", (int(time.time()) + 11644473600) * 10 ** 7)
    temp = (b"\x01\x01" + b"\0" * 6 + ts + os.urandom(8) + b"\0" * 4 +
            target_info + b"\0" * 4)
    proof = hmac.new(key, server_challenge + temp, hashlib.md5).digest()
    base_key = hmac.new(key, proof, hashlib.md5).digest()
    if flip_proof:
        proof = bytes([proof[0] ^ 1]) + proof[1:]
    msg = R.ntlm_authenticate(nt=proof + temp, user=user.encode("utf-16-le"),
                              workstation="WS".encode("utf-16-le"),
                              flags=R.NTLM_FLAGS)
    return msg, base_key


def raw_logon(port, user, password, flip_proof=False):
    """(final SESSION_SETUP response, session key, channel)."""
    c = SecChannel(port)
    r = c.call("SESSION_SETUP", R.session_setup_body(
        R.spnego_init(R.ntlm_negotiate())))
    c.expect(r, "STATUS_MORE_PROCESSING_REQUIRED")
    challenge = ntlm_token(r.body[r.u16(4) - 64:][:r.u16(6)])
    msg, skey = ntlmv2_authenticate(challenge, user, password, flip_proof)
    r = c.call("SESSION_SETUP", R.session_setup_body(R.spnego_resp(msg)),
               session_id=r.session_id)
    return r, skey, c


def test_ntlm_without_mic(srv):
    r, skey, c = raw_logon(srv.port, ALICE, USERS[ALICE])
    with c:
        c.expect(r)
        # the key the proof gives signs what follows
        c.session_id, c.key = r.session_id, signing_key_302(skey)
        assert signed_with(c.key, r)
        c.expect(c.call("TREE_CONNECT", R.tree_connect_body(
            "\\\\127.0.0.1\\rw")))
    for flip, pw in ((True, USERS[ALICE]), (False, "not-" + USERS[ALICE])):
        r, _, c = raw_logon(srv.port, ALICE, pw, flip_proof=flip)
        with c:
            assert r.status == R.STATUS["STATUS_LOGON_FAILURE"], r


def test_ntlm_wrong_mic(srv):
    """pyspnego's AUTHENTICATE carries a MIC (the challenge has a
    timestamp, MS-NLMP 3.1.5.1.2); one bit of it flipped must fail the
    logon although the password and the proof are right."""
    import spnego
    for tamper in (False, True):
        ctx = spnego.client(ALICE, USERS[ALICE], hostname="127.0.0.1",
                            service="cifs", protocol="ntlm",
                            options=spnego.NegotiateOptions.session_key)
        with SecChannel(srv.port) as c:
            r = c.call("SESSION_SETUP", R.session_setup_body(
                R.spnego_init(ctx.step())))
            c.expect(r, "STATUS_MORE_PROCESSING_REQUIRED")
            tok = bytearray(ctx.step(ntlm_token(
                r.body[r.u16(4) - 64:][:r.u16(6)])))
            # the payload starts after Version (8) and MIC (16)
            first = min(struct.unpack_from("<I", tok, o)[0]
                        for o in (16, 24, 32, 40, 48, 56)
                        if struct.unpack_from("<H", tok, o - 4)[0])
            assert first >= 88 and any(tok[72:88]), "no MIC sent"
            if tamper:
                tok[80] ^= 0x10
            r = c.call("SESSION_SETUP", R.session_setup_body(
                R.spnego_resp(bytes(tok))), session_id=r.session_id)
            if tamper:
                assert r.status == R.STATUS["STATUS_LOGON_FAILURE"], r
            else:
                c.expect(r)


def test_preauth_mismatch_fails_setup(srv):
    """RELIABILITY G9: an SMB 3.1.1 client whose preauth integrity hash
    differs from the server's (what a man in the middle who changed the
    NEGOTIATE would cause) ends with different keys, so nothing it signs
    is accepted: the logon fails at its first signed request.  The same
    client with the hash as it should be works."""
    import smbprotocol.exceptions as X
    from smbprotocol.connection import Connection, Dialects
    from smbprotocol.session import Session
    from smbprotocol.tree import TreeConnect
    for tamper in (False, True):
        conn = Connection(uuid.uuid4(), "127.0.0.1", srv.port)
        conn.connect(Dialects.SMB_3_1_1)
        try:
            assert conn.dialect == Dialects.SMB_3_1_1
            if tamper:
                # one more message in the connection's hash chain
                conn.preauth_integrity_hash_value.append(b"\0" * 64)
            sess = Session(conn, ALICE, USERS[ALICE], require_encryption=False)
            try:
                sess.connect()
                TreeConnect(sess, "\\\\127.0.0.1\\rw").connect()
                ok = True
            except (X.SMBException, X.SMBResponseException) as e:
                ok, why = False, e
            if tamper:
                assert not ok, "a wrong preauth hash logged on"
            else:
                assert ok, why
        finally:
            try:
                conn.disconnect(True)
            except X.SMBException:
                pass    # the refused session's LOGOFF is refused too


# ------------------------------------------------------------- encryption

def test_encrypted_session_refuses_plaintext(srv_enc):
    with SecChannel(srv_enc.port) as c:
        r = c.logon()
        assert r.u16(2) & SESSION_FLAG_ENCRYPT_DATA
        tc = R.tree_connect_body("\\\\127.0.0.1\\rw")
        assert refused(c.call_plain("TREE_CONNECT", tc))
    with SecChannel(srv_enc.port) as c:
        c.logon()
        _, r = c.call_sealed("TREE_CONNECT", tc)
        c.expect(r)
        c.tree_id = r.tree_id
        _, r = c.call_sealed("CREATE", R.create_body(
            "data.txt", disposition=1, desired_access=0x0012019F))
        c.expect(r)
        fid = file_id(r)
        q = R.query_info_body(file_id=fid)
        assert refused(c.call_plain("QUERY_INFO", q))


def test_encrypted_share_refuses_plaintext(srv):
    with SecChannel(srv.port) as c:
        r = c.logon()
        assert not r.u16(2) & SESSION_FLAG_ENCRYPT_DATA
        r = c.call("TREE_CONNECT", R.tree_connect_body(
            "\\\\127.0.0.1\\enc"))
        c.expect(r)
        assert r.u32(4) & SHAREFLAG_ENCRYPT_DATA
        c.tree_id = r.tree_id
        create = R.create_body("data.txt", disposition=1,
                               desired_access=0x0012019F)
        assert refused(c.call_plain("CREATE", create))
    with SecChannel(srv.port) as c:
        c.logon()
        r = c.call("TREE_CONNECT", R.tree_connect_body(
            "\\\\127.0.0.1\\enc"))
        c.expect(r)
        c.tree_id = r.tree_id
        _, r = c.call_sealed("CREATE", create)
        c.expect(r)
        _, r = c.call_sealed("READ", R.read_body(file_id=file_id(r),
                                                 length=100))
        c.expect(r)
        off = r.u8(2) - 64
        assert r.body[off:off + r.u32(4)] == DATA


def test_encrypted_responses_have_unique_nonces(srv_enc):
    with SecChannel(srv_enc.port) as c:
        c.logon()
        _, r = c.call_sealed("TREE_CONNECT",
                             R.tree_connect_body("\\\\127.0.0.1\\rw"))
        c.expect(r)
        c.tree_id = r.tree_id
        _, r = c.call_sealed("CREATE", R.create_body(
            "data.txt", disposition=1, desired_access=0x0012019F))
        c.expect(r)
        fid = file_id(r)
        nonces = set()
        for i in range(200):
            nonce, r = c.call_sealed("READ", R.read_body(
                file_id=fid, offset=i % 5, length=100))
            c.expect(r)
            off = r.u8(2) - 64
            assert r.body[off:off + r.u32(4)] == DATA[i % 5:]
            nonces.add(nonce)
        assert len(nonces) == 200


# ---------------------------------------------------------- credit window

def test_credit_window_edges(srv):
    """After NEGOTIATE (MessageId 0) the client holds the credits it was
    granted: MessageIds 1 .. granted.  The last one is served; one past
    it is a protocol error that ends the connection."""
    for past, served in ((0, True), (1, False)):
        with R.Conn("127.0.0.1", srv.port, timeout=10) as c:
            r = c.negotiate(dialects=[D302])
            granted = r.credit
            assert granted >= 1
            p = c.pdu("ECHO", R.body_for("ECHO"), credit_charge=1,
                      message_id=granted + past)
            c.send(R.nbt(p))
            if served:
                e = c.recv()[0]
                c.expect(e)
                assert e.message_id == granted
            else:
                c.wait_closed(10)
