"""Users' SIDs as Samba's standalone server gives them (docs/accounts.md
"SIDs"): the domain SID kept in `private dir`/sids, made once and kept
across restarts; a passdb user's RID the one the SID file names, else
Samba's algorithmic one (uid * 2 + 1000); one SID never names two users;
a user added with smbpasswd while the server runs gets a domain SID at
its first logon; without a domain SID (a private dir that cannot be
made, a file without a domain line) every user keeps its Unix SID
S-1-22-1-uid, and the log says why.

The check that the RIDs are Samba's is Samba itself: Debian's smbd 4.17
given ringsmb's domain SID (`net setlocalsid`) and ringsmb's smbpasswd
file (`passdb backend = smbpasswd:`) gives alice the SID ringsmb gives
her.  (Samba's tdbsam imported by ringsmb-import-samba:
test_crossserver.py.)

Each user's SID is read as the owner SID of a file the user creates on
an acl_xattr share, never computed from a hardcoded domain.
"""
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

import accounts as A
from conftest import (SAMBA_SMBD, RingsmbServer, SambaServer,
                      finish_server, ringsmb_binary)
from test_ntacl import Client

OWNER = 0x1
DOMAIN = re.compile(r"^S-1-5-21-(\d+)-(\d+)-(\d+)-(\d+)$")

SHARE = "\n[ntacl]\n  path = %s\n  read only = no\n  vfs objects = acl_xattr\n"


class RingsmbNT(RingsmbServer):
    def share_section(self, vfs=None):
        return SHARE % self.tree.share


class SambaNT(SambaServer):
    def share_section(self, vfs=None):
        return SHARE % self.tree.share + "  store dos attributes = yes\n"


class Tree:
    def __init__(self, base):
        self.share = Path(base) / "share"


@pytest.fixture
def base(accounts):
    """A share (0777), a private dir and an smbpasswd path, removed
    afterwards."""
    if not ringsmb_binary().exists():
        pytest.fail("ringsmb binary %s not found" % ringsmb_binary())
    b = Path(tempfile.mkdtemp(prefix="ringsmb-sids-"))
    os.chmod(b, 0o755)
    (b / "share").mkdir(mode=0o777)
    os.chmod(b / "share", 0o777)
    try:
        yield b
    finally:
        shutil.rmtree(b, ignore_errors=True)


def start(cls, b, extra, users=("alice", "bob")):
    srv = cls(Tree(b), extra_global=extra)
    srv.start()
    try:
        for who in users:
            A.add_smb_user(srv, who)
    except Exception:
        finish_server(srv)
        raise
    return srv


def ringsmb_globals(b, private=None):
    return {"smb passwd file": b / "smbpasswd",
            "private dir": private or (b / "private")}


_made = [0]


def owner_sid(srv, who):
    """The owner SID of a new file who creates through srv."""
    _made[0] += 1
    c = Client(srv, who)
    try:
        f = c.create_file("%s-%s-%d" % (srv.kind, who, _made[0]))
        try:
            return c.query_sd(f, OWNER)["owner"]
        finally:
            c.close_file(f)
    finally:
        c.close()


def rid_of(sid):
    m = DOMAIN.match(sid)
    assert m, "not a domain user SID: %s" % sid
    return int(m.group(4))


def domain_of(sid):
    return sid.rsplit("-", 1)[0]


def test_domain_sid_algorithmic_rids_kept_across_restart(base, accounts):
    g = ringsmb_globals(base)
    srv = start(RingsmbNT, base, g)
    try:
        first = {who: owner_sid(srv, who) for who in ("alice", "bob")}
    finally:
        finish_server(srv)
    for who in ("alice", "bob"):
        assert rid_of(first[who]) == accounts[who].uid * 2 + 1000
    assert domain_of(first["alice"]) == domain_of(first["bob"])
    sids = base / "private" / "sids"
    assert stat.S_IMODE(sids.stat().st_mode) == 0o600
    assert sids.stat().st_uid == 0
    assert "\ndomain %s\n" % domain_of(first["alice"]) in sids.read_text()

    srv = start(RingsmbNT, base, g, users=())
    try:
        again = {who: owner_sid(srv, who) for who in ("alice", "bob")}
    finally:
        finish_server(srv)
    assert again == first


def test_samba_reads_the_same_sids(base, accounts):
    """Samba given ringsmb's domain SID (net setlocalsid, the way back
    docs/accounts.md gives) and ringsmb's smbpasswd file: its
    algorithmic RIDs are ringsmb's."""
    if not Path(SAMBA_SMBD).exists():
        pytest.skip("Samba's smbd (%s) is not installed" % SAMBA_SMBD)
    srv = start(RingsmbNT, base, ringsmb_globals(base))
    try:
        ours = owner_sid(srv, "alice")
    finally:
        finish_server(srv)
    samba = SambaNT(Tree(base), extra_global={
        "passdb backend": "smbpasswd:%s" % (base / "smbpasswd")})
    samba.port = 1              # the config needs one; not started yet
    samba.conf.write_text(samba.config_text())
    p = subprocess.run(["net", "-s", str(samba.conf), "setlocalsid",
                        domain_of(ours)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    assert p.returncode == 0, p.stdout
    samba.start()
    try:
        theirs = owner_sid(samba, "alice")
    finally:
        finish_server(samba)
    assert theirs == ours


def test_user_added_while_running(base, accounts):
    srv = start(RingsmbNT, base, ringsmb_globals(base), users=("alice",))
    try:
        alice = owner_sid(srv, "alice")
        A.add_smb_user(srv, "bob")
        bob = owner_sid(srv, "bob")
    finally:
        finish_server(srv)
    assert domain_of(bob) == domain_of(alice)
    assert rid_of(bob) == accounts["bob"].uid * 2 + 1000


def test_sid_file_rids_first(base, accounts):
    """A RID the SID file names is alice's; bob's algorithmic RID is his
    unless the file gives it to someone else, then he keeps his Unix SID
    (one SID, one user)."""
    (base / "private").mkdir(mode=0o700)
    bob_algo = accounts["bob"].uid * 2 + 1000
    (base / "private" / "sids").write_text(
        "domain S-1-5-21-11-22-33\n"
        "user %s 1234\n"
        "user nosuchuser-xyz %d\n"        # no Unix account: not used
        "user %s %d\n"                    # alice again: ignored
        % (A.name("alice"), bob_algo, A.name("alice"), bob_algo))
    srv = start(RingsmbNT, base, ringsmb_globals(base))
    try:
        alice = owner_sid(srv, "alice")
        bob = owner_sid(srv, "bob")
        log = srv.log_text()
    finally:
        finish_server(srv)
    assert alice == "S-1-5-21-11-22-33-1234"
    assert bob == "S-1-5-21-11-22-33-%d" % bob_algo
    assert "user named twice; line ignored" in log

    (base / "private" / "sids").write_text(
        "domain S-1-5-21-11-22-33\nuser %s %d\n"
        % (A.name("alice"), bob_algo))
    srv = start(RingsmbNT, base, ringsmb_globals(base), users=())
    try:
        alice = owner_sid(srv, "alice")
        bob = owner_sid(srv, "bob")
    finally:
        finish_server(srv)
    assert alice == "S-1-5-21-11-22-33-%d" % bob_algo
    assert bob == "S-1-22-1-%d" % accounts["bob"].uid


def alice_sid_and_log(base, extra):
    """alice's SID on a server started with extra, and its log."""
    srv = start(RingsmbNT, base, extra, users=("alice",))
    try:
        return owner_sid(srv, "alice"), srv.log_text()
    finally:
        finish_server(srv)


def test_sid_file_without_domain(base, accounts):
    """A SID file without a domain line is the admin's: left as it is,
    Unix SIDs, the reason in the log."""
    (base / "private").mkdir(mode=0o700)
    text = "# no domain here\nuser %s 1234\n" % A.name("alice")
    (base / "private" / "sids").write_text(text)
    sid, log = alice_sid_and_log(base, ringsmb_globals(base))
    assert sid == "S-1-22-1-%d" % accounts["alice"].uid
    assert "has no domain line" in log
    assert (base / "private" / "sids").read_text() == text


def test_without_domain_sid_unix_sids(base, accounts):
    """A private dir whose parent is missing cannot be made: no domain
    SID, Unix SIDs, and the reason in the log."""
    missing = base / "no" / "private"
    sid, log = alice_sid_and_log(base, ringsmb_globals(base, missing))
    assert sid == "S-1-22-1-%d" % accounts["alice"].uid
    assert "SIDs: cannot create %s" % missing in log
    assert "no domain SID" in log
