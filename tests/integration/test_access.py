"""Who may do what (issue 11): a matrix of share access controls and Unix
permissions, as data, run against the target RINGSMB_TARGET selects with
the same smb.conf.  Debian's Samba is the reference: every expectation
below is what Samba 4.17 answers.

A case (Case below) is: the share's parameters, files on disk (owner,
group, mode, optional POSIX ACL entries for setfacl), the client user
(alice, bob, carol: real Unix accounts from accounts.py; guest; an unknown
name; a wrong password; a name from the username map; anon for smbclient
-N), one operation, and the expected outcome as a string:

    SUCCESS                      the operation worked
    SUCCESS guest | user         connect: the session is a guest's or not
    SUCCESS alice:staff 0644     create/mkdir: owner:group mode on disk
    SUCCESS sees a.txt,b.txt(H)  list: which of the case's names are
                                 listed, (H) = DOS hidden attribute
    SUCCESS gone | kept          delete/rmdir: the name on disk after close
    ACCESS_DENIED                the operation's NTSTATUS (STATUS_ dropped)
    tree: ACCESS_DENIED          tree connect refused
    logon: LOGON_FAILURE         session setup refused
    disconnect                   the server closed the connection

Owners and groups print without the rsmbt prefix.  Each case has its own
share (named by the case id) and directory, so cases do not see each
other; cases that need other [global] settings run in another server
(Case.server: default, badpw, never, usermap, hostsdeny, guestacct).

Operations go through smbprotocol's low-level API at SMB 3.1.1 (the exact
NTSTATUS from SMBResponseException.status), `smbclient` where a client
command is the natural test.  Every client call is bounded in time: a
server that never answers fails the case, it does not hang the run.

RINGSMB_ACCESS_REPORT=FILE appends one JSON line per case (id, expected,
observed outcome, target): `make compat` runs this file against both
targets and puts the two side by side in docs/compatibility.md.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

import accounts as A
from conftest import (SMBCLIENT, TARGET, RingsmbServer, SambaServer,
                      finish_server, ringsmb_binary)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.connection import Connection, Dialects  # noqa: E402
from smbprotocol.exceptions import (SMBException,  # noqa: E402
                                    SMBResponseException)
from smbprotocol.file_info import FileInformationClass  # noqa: E402
from smbprotocol.header import NtStatus  # noqa: E402
from smbprotocol.open import (CreateDisposition, CreateOptions,  # noqa: E402
                              FileAttributes, ImpersonationLevel, Open,
                              ShareAccess)
from smbprotocol.session import Session  # noqa: E402
from smbprotocol.tree import TreeConnect  # noqa: E402

CALL_LIMIT = 30          # seconds for one case's client calls
READ_DATA, WRITE_DATA, DELETE = 0x1, 0x2, 0x10000
LIST_DIRECTORY, READ_ATTRIBUTES, SYNCHRONIZE = 0x1, 0x80, 0x100000
ATTR_HIDDEN = 0x2
DATA = b"access matrix data\n"

# [global] settings per server; conftest's servers already say
# `map to guest = Bad User`.  $BASE is the matrix's base directory.
SERVERS = {
    "default": {},
    "badpw": {"map to guest": "Bad Password"},
    "never": {"map to guest": "Never"},
    "usermap": {"username map": "$BASE/usermap.txt"},
    "hostsdeny": {"hosts deny": "127.0.0.1"},
    "guestacct": {"guest account": "rsmbtcarol"},
}
USERMAP = "rsmbtalice = winalice\n"


class Case:
    """One line of the matrix.

    share:  the share's parameters besides path (default: read only = no);
            "path" may use $DIR (the case's directory) and %U/%S
    files:  [(relative path, {owner, group, mode, dir, acl, data})]
    root:   owner/group/mode/acl of the case directory (default root:root
            0777, so everyone may create)
    user:   alice bob carol guest unknown badpw winalice anon
    op:     connect | read P | write P | create P | mkdir P | delete P |
            rmdir P | list [DIR] | smbclient CMD
    names:  for list/smbclient ls: the names whose presence is checked
    section/connect: the smb.conf section ([homes]) and the share name to
            connect to, when not the case id
    disk:   for create/mkdir under [homes]: the directory the new name is
            checked in ("home:alice")
    """

    def __init__(self, id, op, expect, user="alice", share=None, files=(),
                 root=None, names=(), server="default", section=None,
                 connect=None, disk=None):
        self.id, self.op, self.expect, self.user = id, op, expect, user
        self.share = {"read only": "no"}
        self.share.update(share or {})
        self.files, self.root, self.names = list(files), root, names
        self.server = server
        self.section = section or id
        self.connect = connect or self.section
        self.disk = disk

    def describe(self):
        """One line for the report: share settings, files, who does
        what."""
        parts = ["%s = %s" % kv for kv in self.share.items()
                 if kv != ("read only", "no")]
        if SERVERS[self.server]:
            parts += ["[global] %s = %s" % kv
                      for kv in SERVERS[self.server].items()]
        for path, f in self.files:
            s = "%s %s:%s %04o" % (path, f.get("owner", "root"),
                                   f.get("group", f.get("owner", "root")),
                                   f.get("mode", 0o644))
            if f.get("acl"):
                s += " acl " + ",".join(f["acl"])
            parts.append(s)
        if self.root:
            parts.append("dir %s" % " ".join(
                "%s=%s" % (k, "%04o" % v if k == "mode" else v)
                for k, v in self.root.items()))
        return "%s: %s %s" % ("; ".join(parts) or "defaults", self.user,
                              self.op)


def F(owner="alice", mode=0o644, group=None, acl=(), data=DATA):
    return {"owner": owner, "group": group or owner, "mode": mode,
            "acl": list(acl), "data": data}


def D(owner="alice", mode=0o755, group=None, acl=()):
    return {"owner": owner, "group": group or owner, "mode": mode,
            "acl": list(acl), "dir": True}


GUEST_SHARE = {"guest ok": "yes"}

CASES = [
    # ---- mode bits, groups, POSIX ACLs: the kernel decides as the user
    Case("mode-own-0600-read", "read f.txt", "SUCCESS",
         files=[("f.txt", F("alice", 0o600))]),
    Case("mode-other-0600-read", "read f.txt", "ACCESS_DENIED", user="bob",
         files=[("f.txt", F("alice", 0o600))]),
    Case("mode-other-0600-write", "write f.txt", "ACCESS_DENIED",
         user="bob", files=[("f.txt", F("alice", 0o600))]),
    Case("mode-other-0644-read", "read f.txt", "SUCCESS", user="carol",
         files=[("f.txt", F("alice", 0o644))]),
    Case("mode-other-0644-write", "write f.txt", "ACCESS_DENIED",
         user="carol", files=[("f.txt", F("alice", 0o644))]),
    Case("group-0640-member-read", "read f.txt", "SUCCESS", user="bob",
         files=[("f.txt", F("alice", 0o640, "staff"))]),
    Case("group-0640-nonmember-read", "read f.txt", "ACCESS_DENIED",
         user="carol", files=[("f.txt", F("alice", 0o640, "staff"))]),
    Case("group-0640-member-write", "write f.txt", "ACCESS_DENIED",
         user="bob", files=[("f.txt", F("alice", 0o640, "staff"))]),
    Case("group-0660-member-write", "write f.txt", "SUCCESS", user="bob",
         files=[("f.txt", F("alice", 0o660, "staff"))]),
    Case("acl-user-read", "read f.txt", "SUCCESS", user="carol",
         files=[("f.txt", F("alice", 0o600, acl=["u:carol:r"]))]),
    Case("acl-user-read-no-write", "write f.txt", "ACCESS_DENIED",
         user="carol",
         files=[("f.txt", F("alice", 0o600, acl=["u:carol:r"]))]),
    Case("acl-user-other-denied", "read f.txt", "ACCESS_DENIED", user="bob",
         files=[("f.txt", F("alice", 0o600, acl=["u:carol:r"]))]),
    Case("acl-group-read", "read f.txt", "SUCCESS", user="carol",
         files=[("f.txt", F("alice", 0o600, acl=["g:other:r"]))]),
    Case("acl-group-write", "write f.txt", "SUCCESS", user="carol",
         files=[("f.txt", F("alice", 0o600, acl=["g:other:rw"]))]),
    Case("dir-0755-other-create", "create d/new.txt", "ACCESS_DENIED",
         user="bob", files=[("d", D("alice", 0o755))]),
    Case("dir-0700-other-read", "read d/f.txt", "ACCESS_DENIED", user="bob",
         files=[("d", D("alice", 0o700)), ("d/f.txt", F("alice", 0o644))]),
    # Samba asks the file's own permissions for DELETE (bob has none on
    # a 0600 file), not only the directory's write permission
    Case("delete-other-0600-in-0777-dir", "delete f.txt", "ACCESS_DENIED",
         user="bob", files=[("f.txt", F("alice", 0o600))]),
    Case("delete-other-0666-in-0777-dir", "delete f.txt", "SUCCESS gone",
         user="bob", files=[("f.txt", F("alice", 0o666))]),
    Case("delete-other-in-sticky-dir", "delete f.txt", "ACCESS_DENIED",
         user="bob", root={"mode": 0o1777},
         files=[("f.txt", F("alice", 0o644))]),
    Case("delete-own-in-sticky-dir", "delete f.txt", "SUCCESS gone",
         user="alice", root={"mode": 0o1777},
         files=[("f.txt", F("alice", 0o644))]),

    # ---- guest acts as nobody
    Case("guest-read-world-readable", "read f.txt", "SUCCESS", user="guest",
         share=GUEST_SHARE, files=[("f.txt", F("alice", 0o644))]),
    Case("guest-read-0640", "read f.txt", "ACCESS_DENIED", user="guest",
         share=GUEST_SHARE, files=[("f.txt", F("alice", 0o640, "staff"))]),
    Case("guest-read-nobody-0600", "read f.txt", "SUCCESS", user="guest",
         share=GUEST_SHARE,
         files=[("f.txt", F("nobody", 0o600, "nogroup"))]),
    Case("guest-write-0644", "write f.txt", "ACCESS_DENIED", user="guest",
         share=GUEST_SHARE, files=[("f.txt", F("alice", 0o644))]),
    Case("guest-create", "create new.txt", "SUCCESS nobody:nogroup 0744",
         user="guest", share=GUEST_SHARE),
    Case("guest-mkdir", "mkdir nd", "SUCCESS nobody:nogroup 0755",
         user="guest", share=GUEST_SHARE),

    # ---- new files and directories: owner, group, mode
    Case("create-owner", "create new.txt", "SUCCESS alice:alice 0744"),
    Case("mkdir-owner", "mkdir nd", "SUCCESS alice:alice 0755"),
    # Samba maps the ARCHIVE attribute of a new file to the owner's x bit
    # (map archive = yes is its default): 0666 & 0744 | 0100
    Case("create-map-archive-no", "create new.txt",
         "SUCCESS alice:alice 0644", share={"map archive": "no"}),
    Case("create-mask", "create new.txt", "SUCCESS alice:alice 0600",
         share={"create mask": "0600"}),
    Case("create-mask-wide", "create new.txt", "SUCCESS alice:alice 0766",
         share={"create mask": "0777"}),
    Case("force-create-mode", "create new.txt", "SUCCESS alice:alice 0660",
         share={"create mask": "0600", "force create mode": "0060"}),
    Case("directory-mask", "mkdir nd", "SUCCESS alice:alice 0700",
         share={"directory mask": "0700"}),
    Case("force-directory-mode", "mkdir nd", "SUCCESS alice:alice 0770",
         share={"directory mask": "0700", "force directory mode": "0070"}),
    Case("force-user-create", "create new.txt", "SUCCESS bob:bob 0744",
         share={"force user": "rsmbtbob"}),
    Case("force-user-read", "read f.txt", "SUCCESS", user="carol",
         share={"force user": "rsmbtbob"},
         files=[("f.txt", F("bob", 0o600))]),
    Case("force-group-create", "create new.txt", "SUCCESS alice:other 0744",
         share={"force group": "rsmbtother"}),
    Case("force-group-read", "read f.txt", "SUCCESS", user="alice",
         share={"force group": "rsmbtother"},
         files=[("f.txt", F("carol", 0o640, "other"))]),
    Case("force-group-plus-member", "create new.txt",
         "SUCCESS bob:staff 0744", user="bob",
         share={"force group": "+rsmbtstaff"}),
    Case("force-group-plus-nonmember", "create new.txt",
         "SUCCESS carol:carol 0744", user="carol",
         share={"force group": "+rsmbtstaff"}),
    Case("setgid-dir-create", "create d/new.txt", "SUCCESS bob:staff 0744",
         user="bob", files=[("d", D("alice", 0o2777, "staff"))]),
    Case("inherit-permissions-file", "create d/new.txt",
         "SUCCESS bob:bob 0760", user="bob",
         share={"inherit permissions": "yes"},
         files=[("d", D("alice", 0o770, "staff"))]),
    Case("inherit-permissions-dir", "mkdir d/nd", "SUCCESS bob:bob 0770",
         user="bob", share={"inherit permissions": "yes"},
         files=[("d", D("alice", 0o770, "staff"))]),
    Case("inherit-owner", "create d/new.txt", "SUCCESS alice:bob 0744",
         user="bob", share={"inherit owner": "yes"},
         files=[("d", D("alice", 0o777, "staff"))]),
    Case("admin-users-create", "create new.txt", "SUCCESS root:alice 0744",
         share={"admin users": "rsmbtalice"}),
    Case("admin-users-read", "read f.txt", "SUCCESS",
         share={"admin users": "rsmbtalice"},
         files=[("f.txt", F("bob", 0o600))]),
    Case("admin-users-other", "read f.txt", "ACCESS_DENIED", user="carol",
         share={"admin users": "rsmbtalice"},
         files=[("f.txt", F("bob", 0o600))]),

    # ---- who may connect
    Case("valid-users-listed", "connect", "SUCCESS user",
         share={"valid users": "rsmbtalice"}),
    Case("valid-users-unlisted", "connect", "tree: ACCESS_DENIED",
         user="bob", share={"valid users": "rsmbtalice"}),
    Case("valid-users-at-group-member", "connect", "SUCCESS user",
         user="bob", share={"valid users": "@rsmbtstaff"}),
    Case("valid-users-at-group-other", "connect", "tree: ACCESS_DENIED",
         user="carol", share={"valid users": "@rsmbtstaff"}),
    Case("valid-users-plus-group-member", "connect", "SUCCESS user",
         share={"valid users": "+rsmbtstaff"}),
    Case("valid-users-plus-group-other", "connect", "tree: ACCESS_DENIED",
         user="carol", share={"valid users": "+rsmbtstaff"}),
    Case("valid-users-guest", "connect", "tree: ACCESS_DENIED",
         user="guest",
         share={"valid users": "rsmbtalice", "guest ok": "yes"}),
    Case("invalid-users-listed", "connect", "tree: ACCESS_DENIED",
         share={"invalid users": "rsmbtalice"}),
    Case("invalid-users-unlisted", "connect", "SUCCESS user", user="bob",
         share={"invalid users": "rsmbtalice"}),
    Case("invalid-users-at-group", "connect", "tree: ACCESS_DENIED",
         user="bob", share={"invalid users": "@rsmbtstaff"}),
    Case("invalid-users-plus-group-other", "connect", "SUCCESS user",
         user="carol", share={"invalid users": "+rsmbtstaff"}),
    Case("invalid-over-valid", "connect", "tree: ACCESS_DENIED",
         share={"valid users": "@rsmbtstaff",
                "invalid users": "rsmbtalice"}),
    Case("guest-account-create", "create new.txt",
         "SUCCESS carol:carol 0744", user="guest", share=GUEST_SHARE,
         server="guestacct"),
    Case("guest-ok-no-guest", "connect", "tree: ACCESS_DENIED",
         user="guest"),
    Case("guest-ok-yes-guest", "connect", "SUCCESS guest", user="guest",
         share=GUEST_SHARE),
    Case("guest-only-user", "create new.txt", "SUCCESS nobody:nogroup 0744",
         share={"guest ok": "yes", "guest only": "yes"}),
    Case("anon-guest-ok-no", "smbclient ls", "ACCESS_DENIED", user="anon"),
    Case("anon-guest-ok-yes", "smbclient ls", "SUCCESS", user="anon",
         share=GUEST_SHARE),
    Case("no-such-share", "connect", "tree: BAD_NETWORK_NAME",
         connect="rsmbtnosuchshare"),

    # ---- read only, read list, write list
    Case("read-only-create", "create new.txt", "ACCESS_DENIED",
         share={"read only": "yes"}),
    Case("read-only-write", "write f.txt", "ACCESS_DENIED",
         share={"read only": "yes"}, files=[("f.txt", F("alice", 0o644))]),
    Case("read-only-read", "read f.txt", "SUCCESS",
         share={"read only": "yes"}, files=[("f.txt", F("alice", 0o644))]),
    Case("writeable-yes", "create new.txt", "SUCCESS carol:carol 0744",
         user="carol", share={"read only": "yes", "writeable": "yes"}),
    Case("write-list-listed", "create new.txt", "SUCCESS alice:alice 0744",
         share={"read only": "yes", "write list": "rsmbtalice"}),
    Case("write-list-unlisted", "create new.txt", "ACCESS_DENIED",
         user="bob",
         share={"read only": "yes", "write list": "rsmbtalice"}),
    Case("write-list-at-group", "create new.txt", "SUCCESS bob:bob 0744",
         user="bob",
         share={"read only": "yes", "write list": "@rsmbtstaff"}),
    Case("write-list-at-group-other", "create new.txt", "ACCESS_DENIED",
         user="carol",
         share={"read only": "yes", "write list": "@rsmbtstaff"}),
    Case("read-list-listed-create", "create new.txt", "ACCESS_DENIED",
         user="bob", share={"read list": "rsmbtbob"}),
    Case("read-list-listed-read", "read f.txt", "SUCCESS", user="bob",
         share={"read list": "rsmbtbob"},
         files=[("f.txt", F("alice", 0o644))]),
    Case("read-list-unlisted", "create new.txt", "SUCCESS alice:alice 0744",
         share={"read list": "rsmbtbob"}),
    Case("write-list-beats-read-list", "create new.txt",
         "SUCCESS bob:bob 0744", user="bob",
         share={"read list": "rsmbtbob", "write list": "rsmbtbob"}),

    # ---- hosts allow / hosts deny (the client is 127.0.0.1)
    Case("hosts-allow-localhost", "connect", "SUCCESS user",
         share={"hosts allow": "127.0.0.1"}),
    Case("hosts-allow-other-net", "connect", "SUCCESS user",
         share={"hosts allow": "10.0.0.0/8"}),
    Case("hosts-allow-other-net-deny-all", "connect", "tree: ACCESS_DENIED",
         share={"hosts allow": "10.0.0.0/8", "hosts deny": "ALL"}),
    Case("hosts-deny-localhost", "connect", "tree: ACCESS_DENIED",
         share={"hosts deny": "127.0.0.1"}),
    Case("hosts-deny-net-except", "connect", "SUCCESS user",
         share={"hosts deny": "127.0.0.0/8 EXCEPT 127.0.0.1"}),
    # Samba lets localhost in unless `hosts deny` names it
    Case("hosts-allow-all-except", "connect", "SUCCESS user",
         share={"hosts allow": "ALL EXCEPT 127.0.0.1"}),
    Case("hosts-deny-other-net", "connect", "SUCCESS user",
         share={"hosts deny": "10.0.0.0/8"}),
    Case("hosts-deny-global", "connect", "disconnect", server="hostsdeny"),

    # ---- map to guest
    Case("bad-user-unknown-guest-share", "connect", "SUCCESS guest",
         user="unknown", share=GUEST_SHARE),
    Case("bad-user-unknown-creates-as-nobody", "create new.txt",
         "SUCCESS nobody:nogroup 0744", user="unknown", share=GUEST_SHARE),
    Case("bad-user-unknown-plain-share", "connect", "tree: ACCESS_DENIED",
         user="unknown"),
    Case("bad-user-wrong-password", "connect", "logon: LOGON_FAILURE",
         user="badpw", share=GUEST_SHARE),
    Case("bad-password-wrong-password", "connect", "SUCCESS guest",
         user="badpw", share=GUEST_SHARE, server="badpw"),
    # Bad Password maps unknown users to guest as well (as Bad User)
    Case("bad-password-unknown", "connect", "SUCCESS guest",
         user="unknown", share=GUEST_SHARE, server="badpw"),
    Case("never-unknown", "connect", "logon: LOGON_FAILURE",
         user="unknown", share=GUEST_SHARE, server="never"),
    Case("never-user", "connect", "SUCCESS user", share=GUEST_SHARE,
         server="never"),

    # ---- veto, hide
    Case("veto-open", "read secret.txt", "OBJECT_NAME_NOT_FOUND",
         share={"veto files": "/secret*/"},
         files=[("secret.txt", F()), ("plain.txt", F())]),
    Case("veto-list", "list", "SUCCESS sees plain.txt",
         share={"veto files": "/secret*/"},
         files=[("secret.txt", F()), ("plain.txt", F())],
         names=("secret.txt", "plain.txt")),
    Case("veto-create", "create secret2.txt", "OBJECT_NAME_NOT_FOUND",
         share={"veto files": "/secret*/"}),
    Case("veto-dir-component", "read vdir/f.txt", "OBJECT_PATH_NOT_FOUND",
         share={"veto files": "/vdir/"},
         files=[("vdir", D()), ("vdir/f.txt", F())]),
    Case("veto-smbclient-ls", "smbclient ls", "SUCCESS sees plain.txt",
         share={"veto files": "/secret*/"},
         files=[("secret.txt", F()), ("plain.txt", F())],
         names=("secret.txt", "plain.txt")),
    Case("delete-veto-files-yes", "rmdir d", "SUCCESS gone",
         share={"veto files": "/*.tmp/", "delete veto files": "yes"},
         files=[("d", D("alice", 0o755)), ("d/a.tmp", F())]),
    Case("delete-veto-files-no", "rmdir d", "DIRECTORY_NOT_EMPTY",
         share={"veto files": "/*.tmp/"},
         files=[("d", D("alice", 0o755)), ("d/a.tmp", F())]),
    Case("hide-files-list", "list", "SUCCESS sees hfile.txt(H),plain.txt",
         share={"hide files": "/hf*/"},
         files=[("hfile.txt", F()), ("plain.txt", F())],
         names=("hfile.txt", "plain.txt")),
    Case("hide-files-open", "read hfile.txt", "SUCCESS",
         share={"hide files": "/hf*/"}, files=[("hfile.txt", F())]),
    Case("hide-dot-files-default", "list", "SUCCESS sees .dot(H),plain.txt",
         files=[(".dot", F()), ("plain.txt", F())],
         names=(".dot", "plain.txt")),
    Case("hide-dot-files-no", "list", "SUCCESS sees .dot,plain.txt",
         share={"hide dot files": "no"},
         files=[(".dot", F()), ("plain.txt", F())],
         names=(".dot", "plain.txt")),
    Case("hide-dot-files-open", "read .dot", "SUCCESS",
         files=[(".dot", F())]),
    Case("hide-unreadable-other", "list", "SUCCESS sees pub.txt",
         user="bob", share={"hide unreadable": "yes"},
         files=[("mine.txt", F("alice", 0o600)), ("pub.txt", F())],
         names=("mine.txt", "pub.txt")),
    Case("hide-unreadable-owner", "list", "SUCCESS sees mine.txt,pub.txt",
         share={"hide unreadable": "yes"},
         files=[("mine.txt", F("alice", 0o600)), ("pub.txt", F())],
         names=("mine.txt", "pub.txt")),

    # ---- [homes], username map, substitutions
    Case("homes-own", "connect", "SUCCESS user", section="homes",
         connect="rsmbtalice", share={"browseable": "no"}),
    Case("homes-own-create", "create homes-new.txt",
         "SUCCESS alice:alice 0744", section="homes", connect="rsmbtalice",
         disk="home:alice", share={"browseable": "no"}),
    Case("homes-other-user", "connect", "SUCCESS user", user="bob",
         section="homes", connect="rsmbtalice", share={"browseable": "no"}),
    Case("homes-unknown-name", "connect", "tree: BAD_NETWORK_NAME",
         section="homes", connect="rsmbtnosuchuser",
         share={"browseable": "no"}),
    Case("username-map-logon", "create new.txt", "SUCCESS alice:alice 0744",
         user="winalice", server="usermap"),
    Case("username-map-unix-name", "connect", "SUCCESS user",
         server="usermap"),
    Case("subst-user-path", "read marker.txt", "SUCCESS",
         share={"path": "$DIR/%U"},
         files=[("rsmbtalice", D("alice", 0o755)),
                ("rsmbtalice/marker.txt", F("alice"))]),
    Case("subst-user-path-missing", "connect", "tree: BAD_NETWORK_NAME",
         user="bob", share={"path": "$DIR/%U"},
         files=[("rsmbtalice", D("alice", 0o755))]),
    Case("subst-share-path", "read marker.txt", "SUCCESS",
         share={"path": "$DIR/%S"},
         files=[("subst-share-path", D("alice", 0o755)),
                ("subst-share-path/marker.txt", F("alice"))]),
]


# ------------------------------------------------------------ time bounds

class CallTimeout(Exception):
    pass


class deadline:
    """SIGALRM after secs; restores the per-test alarm of conftest.py."""

    def __init__(self, secs):
        self.secs = secs

    def _fire(self, signum, frame):
        raise CallTimeout("client call took more than %d s" % self.secs)

    def __enter__(self):
        self.old_left = signal.alarm(0)
        self.old = signal.signal(signal.SIGALRM, self._fire)
        signal.alarm(self.secs)
        return self

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.old)
        if self.old_left:
            signal.alarm(max(self.old_left - self.secs, 1))


# ------------------------------------------------------------ on disk

def resolve(who):
    return A.name(who)


def short(n):
    return n[len(A.PREFIX):] if n.startswith(A.PREFIX) else n


def apply_owner(path, spec, accounts):
    import grp
    import pwd
    os.chown(path, pwd.getpwnam(resolve(spec.get("owner", "root"))).pw_uid,
             grp.getgrnam(resolve(spec.get("group", spec.get("owner",
                                                              "root")))
                          ).gr_gid, follow_symlinks=False)
    os.chmod(path, spec.get("mode", 0o644))
    acl = spec.get("acl")
    if acl:
        entries = []
        for e in acl:
            kind, who, perm = e.split(":")
            entries.append("%s:%s:%s" % (kind, resolve(who), perm))
        p = subprocess.run(["setfacl", "-m", ",".join(entries), str(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30)
        assert p.returncode == 0, p.stdout


def build_case_dir(base, case, accounts):
    d = base / case.section
    if d.exists():          # [homes] cases share one section
        return d
    d.mkdir()
    for path, spec in case.files:
        p = d / path
        if spec.get("dir"):
            p.mkdir()
        else:
            p.write_bytes(spec.get("data", DATA))
        apply_owner(p, spec, accounts)
    apply_owner(d, dict({"owner": "root", "group": "root", "mode": 0o777},
                        **(case.root or {})), accounts)
    return d


def disk_state(path):
    import grp
    import pwd
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing on disk"
    try:
        u = short(pwd.getpwuid(st.st_uid).pw_name)
    except KeyError:
        u = str(st.st_uid)
    try:
        g = short(grp.getgrgid(st.st_gid).gr_name)
    except KeyError:
        g = str(st.st_gid)
    return "%s:%s %04o" % (u, g, st.st_mode & 0o7777)


# ------------------------------------------------------------ servers

class AccessServers:
    """The servers of the matrix, started on first use, one per entry of
    SERVERS; each serves one share per case of that server."""

    def __init__(self, accounts):
        self.accounts = accounts
        self.base = Path(tempfile.mkdtemp(prefix="ringsmb-access-"))
        os.chmod(self.base, 0o755)
        (self.base / "usermap.txt").write_text(USERMAP)
        self.running = {}

    def get(self, name):
        if name not in self.running:
            self.running[name] = self.start(name)
        return self.running[name]

    def sections(self, name):
        out = {}
        for c in CASES:
            if c.server != name:
                continue
            if c.section in out:
                assert out[c.section][0].share == c.share, c.id
                continue
            out[c.section] = (c, None)
        return out

    def start(self, name):
        if TARGET == "samba":
            base_cls = SambaServer
        elif TARGET == "ringsmb":
            if not ringsmb_binary().exists():
                pytest.fail("ringsmb binary %s not found" % ringsmb_binary())
            base_cls = RingsmbServer
        else:
            pytest.fail("RINGSMB_TARGET must be ringsmb or samba")
        sdir = self.base / name
        sdir.mkdir()
        os.chmod(sdir, 0o755)
        text = ""
        for section, (c, _) in self.sections(name).items():
            text += "\n[%s]\n" % section
            if section != "homes":
                d = build_case_dir(sdir, c, self.accounts)
                path = c.share.get("path", "$DIR").replace("$DIR", str(d))
                text += "  path = %s\n" % path
            text += "".join("  %s = %s\n" % (k, v)
                            for k, v in c.share.items() if k != "path")

        def share_section(srv, vfs=None):
            return text

        cls = type("Access" + base_cls.__name__, (base_cls,),
                   {"share_section": share_section})
        glob = {k: v.replace("$BASE", str(self.base))
                for k, v in SERVERS[name].items()}
        glob.update(A.passdb_global(sdir))
        srv = cls(None, "default", glob)
        # Samba reads the state dirs as the logged-on user
        os.chmod(srv.tmp, 0o755)
        srv.start()
        for u in A.USERS:
            A.add_smb_user(srv, u)
        return srv

    def stop(self):
        problems = []
        for srv in self.running.values():
            try:
                finish_server(srv)
            except BaseException as e:   # pytest.fail: keep stopping
                problems.append(str(e))
        shutil.rmtree(self.base, ignore_errors=True)
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture(scope="module")
def servers(accounts):
    s = AccessServers(accounts)
    yield s
    s.stop()


# ------------------------------------------------------------ clients

def credentials(user):
    """(logon name, password) for a case's user."""
    if user in A.USERS:
        return A.name(user), A.PASSWORDS[user]
    return {"guest": ("guest", ""),
            "unknown": ("rsmbtnosuchuser", "Whatever-pw-1"),
            "badpw": (A.name("alice"), "Wrong-pw-99"),
            "winalice": ("winalice", A.PASSWORDS["alice"])}[user]


def status_name(code):
    for n, v in vars(NtStatus).items():
        if n.startswith("STATUS_") and v == code:
            return n[len("STATUS_"):]
    return "0x%08x" % code


class Stage(Exception):
    def __init__(self, text):
        super().__init__(text)
        self.text = text


def sp_status(e):
    if isinstance(e, SMBResponseException):
        return status_name(e.status)
    return None


def drop(conn):
    """Disconnect; a server that already dropped the session may make
    smbprotocol raise here, which says nothing about the case."""
    try:
        conn.disconnect(True)
    except Exception:
        pass


def logon(srv, user, share):
    conn = Connection(uuid.uuid4(), "127.0.0.1", srv.port,
                      require_signing=False)
    try:
        conn.connect(Dialects.SMB_3_1_1, timeout=10)
    except (OSError, SMBException, ValueError) as e:
        raise Stage("disconnect") from e
    n, pw = credentials(user)
    sess = Session(conn, n, pw, require_encryption=False,
                   auth_protocol="ntlm")
    try:
        sess.connect()
    except SMBResponseException as e:
        drop(conn)
        raise Stage("logon: " + sp_status(e))
    except SMBException as e:
        drop(conn)
        # smbprotocol refuses a guest session when the server asked for
        # signing; other SMBExceptions here are failed authentications
        if "guest" in str(e):
            raise Stage("logon: guest, but signing required") from e
        raise Stage("logon: %s" % type(e).__name__) from e
    except OSError as e:
        drop(conn)
        raise Stage("disconnect") from e
    if sess.session_key is not None:
        # SMB 3.1.1 wants a user's requests signed (a guest has no key;
        # Connection(require_signing=True) would refuse the guest session)
        sess.signing_required = True
    tree = TreeConnect(sess, r"\\127.0.0.1\%s" % share)
    try:
        tree.connect(require_secure_negotiate=False)
    except SMBResponseException as e:
        drop(conn)
        raise Stage("tree: " + sp_status(e))
    except (OSError, SMBException) as e:
        drop(conn)
        raise Stage("tree: %s" % type(e).__name__) from e
    return conn, sess, tree


def sp_open(tree, path, access, disposition, options, attrs=0):
    f = Open(tree, path.replace("/", "\\"))
    f.create(ImpersonationLevel.Impersonation, access | SYNCHRONIZE, attrs,
             ShareAccess.FILE_SHARE_READ | ShareAccess.FILE_SHARE_WRITE |
             ShareAccess.FILE_SHARE_DELETE, disposition, options)
    return f


def op_result(case, tree, sess, share_dir):
    verb, _, arg = case.op.partition(" ")
    if verb == "connect":
        return "SUCCESS " + ("guest" if sess.session_key is None else "user")
    if verb == "read":
        f = sp_open(tree, arg, READ_DATA, CreateDisposition.FILE_OPEN,
                    CreateOptions.FILE_NON_DIRECTORY_FILE)
        data = f.read(0, 4096) if f.end_of_file else b""
        f.close()
        want = (share_dir / arg).read_bytes()
        return "SUCCESS" if data == want else "SUCCESS wrong data"
    if verb == "write":
        f = sp_open(tree, arg, WRITE_DATA, CreateDisposition.FILE_OPEN,
                    CreateOptions.FILE_NON_DIRECTORY_FILE)
        f.write(b"W", 0)
        f.close()
        ok = (share_dir / arg).read_bytes()[:1] == b"W"
        return "SUCCESS" if ok else "SUCCESS not on disk"
    if verb in ("create", "mkdir"):
        d = verb == "mkdir"
        f = sp_open(tree, arg, LIST_DIRECTORY if d else READ_DATA |
                    WRITE_DATA, CreateDisposition.FILE_CREATE,
                    CreateOptions.FILE_DIRECTORY_FILE if d else
                    CreateOptions.FILE_NON_DIRECTORY_FILE,
                    0 if d else FileAttributes.FILE_ATTRIBUTE_NORMAL)
        f.close()
        return "SUCCESS " + disk_state(share_dir / arg)
    if verb in ("delete", "rmdir"):
        d = verb == "rmdir"
        f = sp_open(tree, arg, DELETE | READ_ATTRIBUTES,
                    CreateDisposition.FILE_OPEN,
                    CreateOptions.FILE_DELETE_ON_CLOSE |
                    (CreateOptions.FILE_DIRECTORY_FILE if d else
                     CreateOptions.FILE_NON_DIRECTORY_FILE))
        f.close()
        gone = not os.path.lexists(share_dir / arg)
        return "SUCCESS " + ("gone" if gone else "kept")
    if verb == "list":
        f = sp_open(tree, arg, LIST_DIRECTORY | READ_ATTRIBUTES,
                    CreateDisposition.FILE_OPEN,
                    CreateOptions.FILE_DIRECTORY_FILE)
        seen = {}
        try:
            while True:
                try:
                    ents = f.query_directory(
                        "*", FileInformationClass.FILE_DIRECTORY_INFORMATION)
                except SMBResponseException as e:
                    if e.status == NtStatus.STATUS_NO_MORE_FILES:
                        break
                    raise
                if not ents:
                    break
                for e in ents:
                    nm = e["file_name"].get_value().decode("utf-16-le")
                    seen[nm] = e["file_attributes"].get_value()
        finally:
            f.close()
        return sees(case, {n: bool(a & ATTR_HIDDEN) for n, a in seen.items()})
    raise AssertionError("unknown op %r" % case.op)


def sees(case, seen):
    out = []
    for n in sorted(case.names):
        if n in seen:
            out.append(n + ("(H)" if seen[n] else ""))
    return "SUCCESS sees " + ",".join(out)


LS_LINE = re.compile(r"^  (.+?)\s+([ADHSRN]*)\s+\d+\s+\w{3} \w{3} ")


def run_smbclient(case, srv):
    verb, _, cmd = case.op.partition(" ")
    argv = [SMBCLIENT, "//127.0.0.1/%s" % case.connect, "-p", str(srv.port),
            "-s", str(srv.client_conf), "-m", "SMB3_11",
            "--option=client min protocol=SMB2_02"]
    if case.user == "anon":
        argv.append("-N")
    else:
        argv += ["-U", "%s%%%s" % credentials(case.user)]
    try:
        p = subprocess.run(argv + ["-c", cmd], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=CALL_LIMIT)
    except subprocess.TimeoutExpired:
        return "timeout"
    out = p.stdout.decode(errors="replace")
    m = re.search(r"NT_STATUS_(\w+)", out)
    if m:
        return m.group(1)
    if p.returncode != 0:
        return "smbclient exit %d" % p.returncode
    if not case.names:
        return "SUCCESS"
    seen = {}
    for line in out.splitlines():
        lm = LS_LINE.match(line)
        if lm:
            seen[lm.group(1)] = "H" in lm.group(2)
    return sees(case, seen)


def share_dir_of(case, servers, accounts):
    if case.disk and case.disk.startswith("home:"):
        return Path(accounts[case.disk[5:]].home)
    d = servers.base / case.server / case.section
    p = case.share.get("path")
    if p:
        n = A.name(case.user) if case.user in A.USERS else case.user
        d = Path(p.replace("$DIR", str(d)).replace("%U", n)
                 .replace("%S", case.section))
    return d


def run_case(case, servers, accounts):
    srv = servers.get(case.server)
    if case.op.startswith("smbclient"):
        return run_smbclient(case, srv)
    share_dir = share_dir_of(case, servers, accounts)
    with deadline(CALL_LIMIT):
        try:
            conn, sess, tree = logon(srv, case.user, case.connect)
        except Stage as s:
            return s.text
        try:
            return op_result(case, tree, sess, share_dir)
        except SMBResponseException as e:
            return sp_status(e)
        except (OSError, SMBException) as e:
            return "disconnect (%s)" % type(e).__name__
        finally:
            drop(conn)


def report(case, outcome):
    path = os.environ.get("RINGSMB_ACCESS_REPORT")
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps({"id": case.id, "describe": case.describe(),
                            "expect": case.expect, "outcome": outcome,
                            "target": TARGET}) + "\n")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_access(case, servers, accounts):
    try:
        outcome = run_case(case, servers, accounts)
    except CallTimeout as e:
        outcome = "timeout"
        report(case, outcome)
        pytest.fail(str(e))
    except Exception as e:
        # every case gets a line in the report, whatever broke
        report(case, "error: %s" % type(e).__name__)
        raise
    report(case, outcome)
    assert outcome == case.expect, case.describe()


def test_case_ids_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
