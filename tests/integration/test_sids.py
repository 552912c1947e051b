"""Users' SIDs as Samba's standalone server gives them (docs/accounts.md
"SIDs"): the domain SID kept in `private dir`/secrets.tdb under Samba's
key, made once and kept across restarts; a passdb user's RID Samba's
algorithmic one (uid * 2 + 1000) when Samba's passdb.tdb does not name
it; a user added with smbpasswd while the server runs gets a domain SID
at its first logon; without a domain SID (a private dir that cannot be
made) every user keeps its Unix SID S-1-22-1-uid, and the log says why.

The check that the format is Samba's is Samba itself: Debian's smbd 4.17
started on ringsmb's private dir with `passdb backend = smbpasswd:`
ringsmb's file gives alice the SID ringsmb gives her.  (Samba's own
tdbsam RIDs served by ringsmb: test_crossserver.py.)

Each user's SID is read as the owner SID of a file the user creates on
an acl_xattr share, never computed from a hardcoded domain.
"""
import os
import re
import shutil
import stat
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
    secrets = base / "private" / "secrets.tdb"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    assert secrets.stat().st_uid == 0

    srv = start(RingsmbNT, base, g, users=())
    try:
        again = {who: owner_sid(srv, who) for who in ("alice", "bob")}
    finally:
        finish_server(srv)
    assert again == first


def test_samba_reads_the_same_sids(base, accounts):
    """Samba on ringsmb's private dir and smbpasswd file: the secrets.tdb
    ringsmb wrote and the algorithmic RIDs are Samba's."""
    if not Path(SAMBA_SMBD).exists():
        pytest.skip("Samba's smbd (%s) is not installed" % SAMBA_SMBD)
    srv = start(RingsmbNT, base, ringsmb_globals(base))
    try:
        ours = owner_sid(srv, "alice")
    finally:
        finish_server(srv)
    samba = start(SambaNT, base,
                  {"private dir": base / "private",
                   "passdb backend": "smbpasswd:%s" % (base / "smbpasswd")},
                  users=())
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


def test_without_domain_sid_unix_sids(base, accounts):
    """A private dir whose parent is missing cannot be made: no domain
    SID, Unix SIDs, and the reason in the log."""
    missing = base / "no" / "private"
    srv = start(RingsmbNT, base, ringsmb_globals(base, missing),
                users=("alice",))
    try:
        sid = owner_sid(srv, "alice")
        log = srv.log_text()
    finally:
        finish_server(srv)
    assert sid == "S-1-22-1-%d" % accounts["alice"].uid
    assert "SIDs: cannot create %s" % missing in log
    assert "no domain SID" in log
