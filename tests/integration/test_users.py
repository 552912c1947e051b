"""User accounts and signing with real clients (issue 3, first part):
smbpasswd-managed NTLMv2 users over every dialect with signing required,
wrong and disabled passwords, smbprotocol with require_signing.  ringsmb
only (Samba would need Unix accounts for its users)."""
import hashlib
import os
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

import accounts
from conftest import (SMBCLIENT, TARGET, finish_server, make_server,
                      sha256_file, tool_binary)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="accounts are ringsmb's smbpasswd")

DIALECTS = ("SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02", "SMB3_11")
# a real Unix account (accounts.py): issue 11 logs users on as theirs
USER, PASSWORD = accounts.name("alice"), "S3cret-pw"


def smbpasswd(srv, *args, stdin=None):
    tool = tool_binary("smbpasswd")
    return subprocess.run([str(tool), "-c", str(srv.conf)] + list(args),
                          input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=30)


@pytest.fixture(scope="module")
def user_server(share_tree, accounts):
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    srv = make_server(share_tree, "default", {
        "smb passwd file": str(passwd),
        "server signing": "mandatory",
    })
    p = smbpasswd(srv, "-s", "-a", USER,
                  stdin=("%s\n%s\n" % (PASSWORD, PASSWORD)).encode())
    assert p.returncode == 0, p.stdout
    yield srv
    finish_server(srv)


def smbclient(srv, creds, dialect, cmd, *extra):
    p = subprocess.run([SMBCLIENT, "//127.0.0.1/share", "-p", str(srv.port),
                        "-U", creds, "-m", dialect,
                        "--option=client min protocol=SMB2_02"] +
                       list(extra) + ["-c", cmd],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_user_get_signed(user_server, share_tree, tmp_path, dialect):
    dst = tmp_path / "m1.bin"
    rc, out = smbclient(user_server, "%s%%%s" % (USER, PASSWORD), dialect,
                        "get m1.bin %s" % dst)
    assert rc == 0, out
    assert sha256_file(dst) == sha256_file(share_tree.share / "m1.bin")


def test_wrong_password(user_server):
    rc, out = smbclient(user_server, "%s%%nope" % USER, "SMB3_11", "ls")
    assert rc != 0 and "NT_STATUS_LOGON_FAILURE" in out, out


def test_disabled_then_enabled(user_server):
    assert smbpasswd(user_server, "-d", USER).returncode == 0
    rc, out = smbclient(user_server, "%s%%%s" % (USER, PASSWORD),
                        "SMB3_11", "ls")
    assert rc != 0 and "NT_STATUS_ACCOUNT_DISABLED" in out, out
    assert smbpasswd(user_server, "-e", USER).returncode == 0
    rc, out = smbclient(user_server, "%s%%%s" % (USER, PASSWORD),
                        "SMB3_11", "ls")
    assert rc == 0, out


SP_DIALECTS = ("2.1.0", "3.0.0", "3.0.2", "3.1.1")


@pytest.mark.parametrize("dialect", SP_DIALECTS)
def test_smbprotocol_require_signing(user_server, share_tree, dialect):
    from smbprotocol.connection import Connection, Dialects
    from smbprotocol.open import (CreateDisposition, CreateOptions,
                                  FilePipePrinterAccessMask,
                                  ImpersonationLevel, Open, ShareAccess)
    from smbprotocol.session import Session
    from smbprotocol.tree import TreeConnect

    d = {"2.1.0": Dialects.SMB_2_1_0, "3.0.0": Dialects.SMB_3_0_0,
         "3.0.2": Dialects.SMB_3_0_2, "3.1.1": Dialects.SMB_3_1_1}[dialect]
    conn = Connection(uuid.uuid4(), "127.0.0.1", user_server.port,
                      require_signing=True)
    conn.connect(d, timeout=10)
    try:
        sess = Session(conn, USER, PASSWORD, require_encryption=False)
        sess.connect()
        assert sess.signing_required
        tree = TreeConnect(sess, r"\\127.0.0.1\share")
        tree.connect()
        f = Open(tree, "m1.bin")
        f.create(ImpersonationLevel.Impersonation,
                 FilePipePrinterAccessMask.GENERIC_READ,
                 0, ShareAccess.FILE_SHARE_READ,
                 CreateDisposition.FILE_OPEN,
                 CreateOptions.FILE_NON_DIRECTORY_FILE)
        h = hashlib.sha256()
        off = 0
        while off < f.end_of_file:
            n = min(65536, f.end_of_file - off)
            h.update(f.read(off, n))
            off += n
        f.close()
        assert h.hexdigest() == sha256_file(share_tree.share / "m1.bin")
    finally:
        conn.disconnect()


@pytest.fixture(scope="module")
def enc_server(share_tree, accounts):
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    srv = make_server(share_tree, "default", {
        "smb passwd file": str(passwd),
        "server smb encrypt": "required",
    })
    p = smbpasswd(srv, "-s", "-a", USER,
                  stdin=("%s\n%s\n" % (PASSWORD, PASSWORD)).encode())
    assert p.returncode == 0, p.stdout
    yield srv
    finish_server(srv)


ENC_DIALECTS = ("3.0.0", "3.0.2", "3.1.1")


def smbprotocol_read(port, dialect, path, require_encryption):
    from smbprotocol.connection import Connection, Dialects
    from smbprotocol.open import (CreateDisposition, CreateOptions,
                                  FilePipePrinterAccessMask,
                                  ImpersonationLevel, Open, ShareAccess)
    from smbprotocol.session import Session
    from smbprotocol.tree import TreeConnect

    d = {"2.1.0": Dialects.SMB_2_1_0, "3.0.0": Dialects.SMB_3_0_0,
         "3.0.2": Dialects.SMB_3_0_2, "3.1.1": Dialects.SMB_3_1_1}[dialect]
    conn = Connection(uuid.uuid4(), "127.0.0.1", port, require_signing=True)
    conn.connect(d, timeout=10)
    try:
        sess = Session(conn, USER, PASSWORD,
                       require_encryption=require_encryption)
        sess.connect()
        tree = TreeConnect(sess, r"\\127.0.0.1\share")
        tree.connect()
        f = Open(tree, path)
        f.create(ImpersonationLevel.Impersonation,
                 FilePipePrinterAccessMask.GENERIC_READ,
                 0, ShareAccess.FILE_SHARE_READ,
                 CreateDisposition.FILE_OPEN,
                 CreateOptions.FILE_NON_DIRECTORY_FILE)
        h = hashlib.sha256()
        off = 0
        while off < f.end_of_file:
            n = min(1 << 20, f.end_of_file - off)
            h.update(f.read(off, n))
            off += n
        f.close()
        return sess.encrypt_data, h.hexdigest()
    finally:
        conn.disconnect()


@pytest.mark.parametrize("dialect", ENC_DIALECTS)
def test_smbprotocol_encrypted_100mib(enc_server, share_tree, dialect):
    encrypted, digest = smbprotocol_read(enc_server.port, dialect,
                                         "m100.bin", True)
    assert encrypted
    assert digest == sha256_file(share_tree.share / "m100.bin")


def test_encryption_required_refuses_smb2(enc_server):
    """A 2.1 client cannot encrypt: 'server smb encrypt = required'
    refuses its session (ACCESS_DENIED), never serves it in clear."""
    rc, out = smbclient(enc_server, "%s%%%s" % (USER, PASSWORD), "SMB2_10",
                        "ls")
    assert rc != 0 and "NT_STATUS_ACCESS_DENIED" in out, out


def test_encryption_required_refuses_guest(enc_server):
    rc, out = smbclient(enc_server, "nosuchuser%", "SMB3_11", "ls")
    assert rc != 0 and "NT_STATUS_ACCESS_DENIED" in out, out


def test_logon_backoff(share_tree, accounts):
    """After five failed logons from one address the next attempts wait
    for a slot (the server says so in its log); a right password still
    gets in, after its wait."""
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    srv = make_server(share_tree, "default", {
        "smb passwd file": str(passwd), "logon backoff": "yes",
        "log level": "3"})
    try:
        p = smbpasswd(srv, "-s", "-a", USER,
                      stdin=("%s\n%s\n" % (PASSWORD, PASSWORD)).encode())
        assert p.returncode == 0, p.stdout
        for _ in range(7):
            rc, out = smbclient(srv, "%s%%wrong" % USER, "SMB3_11", "ls")
            assert "NT_STATUS_LOGON_FAILURE" in out, out
        rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD), "SMB3_11",
                            "ls")
        assert rc == 0, out
        log = srv.log_path.read_text(errors="replace")
        assert "logon delayed after 6 failures" in log
    finally:
        finish_server(srv)


# ------------------------------------------------------------ audit lines

FAIL2BAN_FILTER = (Path(__file__).resolve().parents[2] / "packaging" /
                   "fail2ban" / "filter.d" / "ringsmb.conf")


def fail2ban_regex():
    """The shipped filter's failregex, <HOST> as fail2ban expands it
    (an address), compiled."""
    import re
    text = FAIL2BAN_FILTER.read_text()
    line = [l for l in text.splitlines() if l.startswith("failregex")][0]
    rx = line.split("=", 1)[1].strip()
    return re.compile(rx.replace("<HOST>", r"(?P<host>[0-9a-fA-F.:]+)"))


def test_logon_and_tcon_audit_lines(user_server):
    """At log level 1 every logon leaves one 'Auth:' line (Samba's
    shape: user, status, remote host) and every refused tree connect a
    line naming share, user, address and status; the shipped fail2ban
    filter matches the failed logon and not the good one."""
    before = len(user_server.log_text())
    rc, out = smbclient(user_server, "%s%%nope" % USER, "SMB3_11", "ls")
    assert rc != 0
    rc, out = smbclient(user_server, "%s%%%s" % (USER, PASSWORD),
                        "SMB3_11", "ls")
    assert rc == 0, out
    p = subprocess.run([SMBCLIENT, "//127.0.0.1/nosuchshare", "-p",
                        str(user_server.port), "-U",
                        "%s%%%s" % (USER, PASSWORD), "-c", "ls"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    assert p.returncode != 0
    log = user_server.log_text()[before:]
    auth = [l for l in log.splitlines() if "Auth: [SMB2,(null)]" in l]
    bad = [l for l in auth if "status [NT_STATUS_LOGON_FAILURE]" in l]
    good = [l for l in auth if "status [NT_STATUS_OK]" in l]
    assert len(bad) == 1 and len(good) >= 2, log
    assert "\\[%s] with [NTLMv2]" % USER in bad[0]
    assert "remote host [127.0.0.1:" in bad[0]
    rx = fail2ban_regex()
    m = rx.match(bad[0])
    assert m and m.group("host") == "127.0.0.1", bad[0]
    assert not any(rx.match(l) for l in good)
    assert "tree connect to [nosuchshare] by user [%s] from [127.0.0.1:" \
        % USER in log
    assert "refused: NT_STATUS_BAD_NETWORK_NAME" in log
