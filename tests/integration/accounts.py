"""Real Unix accounts for the tests (issue 11): ringsmb, like Samba, acts on
disk as the logged-on user's Unix account, so every SMB user a test logs on
with must exist in NSS.

    rsmbtalice  groups rsmbtalice (primary), rsmbtstaff
    rsmbtbob    groups rsmbtbob (primary), rsmbtstaff
    rsmbtcarol  groups rsmbtcarol (primary), rsmbtother

Each has a home directory under /tmp/rsmbt-homes (for [homes]).  The
`accounts` fixture (conftest.py) creates them once per pytest session with
groupadd/useradd and removes them with userdel/groupdel at the end, also
after a failure.  Leftovers of a killed run are deleted before creating.

Several worktrees on one machine may run tests at the same time and share
these names, so two lock files coordinate them: MUTEX serialises creating
and removing; every running session holds a shared lock on INUSE, and only
the session that can turn it into an exclusive lock (nobody else uses the
accounts) creates or removes them.

SMB passwords live in each server's own password database:
add_smb_user(srv, name, password) runs ringsmb's smbpasswd (its `smb passwd
file`, see passdb_global) or Samba's smbpasswd (tdbsam in the server's temp
dir) with the server's configuration.
"""
import fcntl
import grp
import os
import pwd
import shutil
import subprocess
from pathlib import Path

from conftest import TARGET, tool_binary

PREFIX = "rsmbt"
USERS = ("alice", "bob", "carol")
GROUPS = {"staff": ("alice", "bob"), "other": ("carol",)}
PASSWORDS = {"alice": "Alice-pw-11", "bob": "Bob-pw-22", "carol": "Carol-pw-33"}
HOME_BASE = Path("/tmp/rsmbt-homes")
MUTEX = Path("/tmp/rsmbt-accounts.lock")
INUSE = Path("/tmp/rsmbt-accounts.inuse")
SAMBA_SMBPASSWD = os.environ.get("RINGSMB_SAMBA_SMBPASSWD",
                                 "/usr/bin/smbpasswd")
CMD_TIMEOUT = 60


def name(short):
    """'alice' -> 'rsmbtalice'; names without a short form pass through
    ('root', 'nobody', 'nogroup', already prefixed names)."""
    if short in USERS or short in GROUPS:
        return PREFIX + short
    return short


class Account:
    def __init__(self, short):
        self.short = short
        self.name = name(short)
        self.password = PASSWORDS[short]
        pw = pwd.getpwnam(self.name)
        self.uid, self.gid, self.home = pw.pw_uid, pw.pw_gid, pw.pw_dir


class Accounts:
    """What the fixture hands out: accounts['alice'].uid, .name, ..."""

    def __init__(self):
        self.users = {s: Account(s) for s in USERS}
        self.gids = {s: grp.getgrnam(name(s)).gr_gid for s in GROUPS}

    def __getitem__(self, short):
        return self.users[short]

    def uid(self, who):
        return pwd.getpwnam(name(who)).pw_uid

    def gid(self, who):
        return grp.getgrnam(name(who)).gr_gid


def _run(argv, check=True):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=CMD_TIMEOUT)
    if check and p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (
            " ".join(argv), p.returncode, p.stdout.decode(errors="replace")))
    return p


def _exists_user(n):
    try:
        pwd.getpwnam(n)
        return True
    except KeyError:
        return False


def _exists_group(n):
    try:
        grp.getgrnam(n)
        return True
    except KeyError:
        return False


def remove_all():
    """userdel/groupdel every rsmbt account; tolerant of missing ones."""
    for s in USERS:
        n = name(s)
        if _exists_user(n):
            # the user may still own a process of a killed server: -f
            _run(["userdel", "-f", n], check=False)
        if _exists_group(n):
            _run(["groupdel", n], check=False)
    for g in GROUPS:
        if _exists_group(name(g)):
            _run(["groupdel", name(g)], check=False)
    shutil.rmtree(HOME_BASE, ignore_errors=True)


def create_all():
    remove_all()
    HOME_BASE.mkdir(mode=0o755, exist_ok=True)
    os.chmod(HOME_BASE, 0o755)
    for g in GROUPS:
        _run(["groupadd", name(g)])
    for s in USERS:
        groups = [name(g) for g, members in GROUPS.items() if s in members]
        # -U: a primary group of the user's own name (Debian's default)
        _run(["useradd", "-m", "-d", str(HOME_BASE / name(s)), "-U",
              "-G", ",".join(groups), "-s", "/usr/sbin/nologin", name(s)])


class _Locks:
    def __init__(self):
        self.mutex = open(MUTEX, "a")
        self.inuse = open(INUSE, "a")

    def __enter__(self):
        fcntl.flock(self.mutex, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.mutex, fcntl.LOCK_UN)

    def alone(self):
        """True when no other session holds INUSE (ours becomes EX)."""
        try:
            fcntl.flock(self.inuse, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False


_locks = None


def acquire():
    """Make sure the accounts exist and mark this process as a user of
    them; returns Accounts."""
    global _locks
    _locks = _Locks()
    with _locks:
        if _locks.alone() or not all(_exists_user(name(s)) for s in USERS):
            create_all()
        fcntl.flock(_locks.inuse, fcntl.LOCK_SH)
    return Accounts()


def release():
    """Remove the accounts unless another session still uses them."""
    global _locks
    if _locks is None:
        return
    with _locks:
        if _locks.alone():
            remove_all()
        fcntl.flock(_locks.inuse, fcntl.LOCK_UN)
    _locks.inuse.close()
    _locks.mutex.close()
    _locks = None


def passdb_global(base):
    """Server globals for a private password database under base: ringsmb
    needs `smb passwd file`; Samba's tdbsam already lives in its temp
    dir."""
    if TARGET == "samba":
        return {}
    return {"smb passwd file": str(Path(base) / "smbpasswd")}


def add_smb_user(srv, user, password=None):
    """An SMB password for Unix account user (short or full name) in srv's
    password database."""
    n = name(user)
    if password is None:
        password = PASSWORDS[user]
    if srv.kind == "samba":
        # smbd reaches into its state directories as the logged-on user
        os.chmod(srv.tmp, 0o755)
        tool = SAMBA_SMBPASSWD
    else:
        tool = str(tool_binary("smbpasswd"))
    p = subprocess.run([tool, "-c", str(srv.conf), "-s", "-a", n],
                       input=("%s\n%s\n" % (password, password)).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=CMD_TIMEOUT)
    assert p.returncode == 0, "smbpasswd -a %s: %s" % (
        n, p.stdout.decode(errors="replace"))
