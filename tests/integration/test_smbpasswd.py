"""The smbpasswd tool against a temporary smb.conf and user database.

Runs the built binary ($RINGSMB_BIN_DIR/smbpasswd, default <repo>/bin)
and checks its messages, exit codes and the file it writes.  No server
needed.  As in Samba, `smbpasswd -a` only adds users with a Unix account:
the tests create theirs (useradd, so as root) with names unique to this
run, prefixed "rsmbpw", and delete them afterwards.
"""
import hashlib
import os
import pwd
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN_DIR = Path(os.environ.get("RINGSMB_BIN_DIR", REPO / "bin"))
SMBPASSWD = BIN_DIR / "smbpasswd"

# MS-NLMP 4.2.2.1.2: NTOWFv1("Password")
HASH_PASSWORD = "A4F49C406510BDCAB6824EE7C30FD852"
LINE_RE = re.compile(r"^([^:]+):(\d+):(X{32}):([0-9A-F]{32}):"
                     r"\[([A-Z ]{11})\]:LCT-([0-9A-F]{8}):$")

pytestmark = pytest.mark.skipif(not SMBPASSWD.exists(),
                                reason=f"{SMBPASSWD} not built")

# Unix accounts of the test users: unique per run, so that two checkouts
# running this file at once do not share (or delete) each other's.
ALICE = f"rsmbpwa{os.getpid()}"
BOB = f"rsmbpwb{os.getpid()}"
NO_UNIX = f"rsmbpwnone{os.getpid()}"     # never created


@pytest.fixture(scope="module", autouse=True)
def unix_users():
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("creating Unix accounts needs root and useradd")
    made = []
    try:
        for name in (ALICE, BOB):
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin",
                            name], check=True, capture_output=True,
                           timeout=60)
            made.append(name)
        yield
    finally:
        for name in made:
            subprocess.run(["userdel", name], capture_output=True,
                           timeout=60)


def nt_hash(password):
    """MD4(UTF-16LE(password)); hashlib's md4 may be missing (OpenSSL 3)."""
    try:
        return hashlib.new("md4", password.encode("utf-16-le")) \
            .hexdigest().upper()
    except ValueError:
        return None


@pytest.fixture
def env(tmp_path):
    passdb = tmp_path / "private" / "smbpasswd"
    conf = tmp_path / "smb.conf"
    conf.write_text(f"[global]\n\tsmb passwd file = {passdb}\n")
    return {"conf": conf, "passdb": passdb, "tmp": tmp_path}


def run(env, *args, stdin=None):
    return subprocess.run([str(SMBPASSWD), "-c", str(env["conf"]), *args],
                          input=stdin, capture_output=True, text=True,
                          timeout=30, start_new_session=True)


def entries(env):
    """{name: (uid, nthash, flags)} from the file, checking every line."""
    out = {}
    for line in env["passdb"].read_text().splitlines():
        m = LINE_RE.match(line)
        assert m, f"bad line {line!r}"
        out[m.group(1)] = (int(m.group(2)), m.group(4),
                           m.group(5).strip())
    return out


def add(env, user, password="Password"):
    r = run(env, "-s", "-a", user, stdin=f"{password}\n{password}\n")
    assert r.returncode == 0, r.stderr
    return r


def test_add_writes_samba_format(env):
    r = add(env, ALICE)
    assert r.stdout == f"Added user {ALICE}.\n"
    e = entries(env)
    assert e[ALICE][1] == HASH_PASSWORD
    assert e[ALICE][2] == "U"
    assert stat.S_IMODE(env["passdb"].stat().st_mode) == 0o600
    assert stat.S_IMODE(env["passdb"].parent.stat().st_mode) == 0o700
    assert sorted(os.listdir(env["passdb"].parent)) == ["smbpasswd"]


def test_add_writes_unix_uid(env):
    add(env, ALICE)
    add(env, BOB)
    e = entries(env)
    assert e[ALICE][0] == pwd.getpwnam(ALICE).pw_uid
    assert e[BOB][0] == pwd.getpwnam(BOB).pw_uid


def test_add_without_unix_account_refused(env):
    """Samba's wording; nothing written, no password asked for."""
    r = run(env, "-s", "-a", NO_UNIX, stdin="x\nx\n")
    assert r.returncode == 1
    assert f"Failed to find a Unix account for {NO_UNIX}" in r.stderr
    assert f"Failed to add entry for user {NO_UNIX}." in r.stderr
    assert r.stdout == ""
    assert not env["passdb"].exists()
    add(env, ALICE)
    before = env["passdb"].read_bytes()
    r = run(env, "-a", NO_UNIX)       # no -s, no terminal: not reached
    assert r.returncode == 1
    assert f"Failed to add entry for user {NO_UNIX}." in r.stderr
    assert env["passdb"].read_bytes() == before


def test_add_existing_changes_password(env):
    add(env, ALICE)
    r = add(env, ALICE.upper(), "Secret99")
    assert r.stdout == ""
    e = entries(env)
    assert list(e) == [ALICE]
    want = nt_hash("Secret99")
    if want is not None:
        assert e[ALICE][1] == want
    assert e[ALICE][1] != HASH_PASSWORD


def test_change_password_of_existing_user(env):
    add(env, ALICE)
    r = run(env, "-s", ALICE, stdin="x\nx\n")
    assert r.returncode == 0, r.stderr
    assert entries(env)[ALICE][1] != HASH_PASSWORD


def test_change_password_unknown_user(env):
    add(env, ALICE)
    r = run(env, "-s", BOB, stdin="x\nx\n")
    assert r.returncode == 1
    assert f"Failed to find entry for user {BOB}." in r.stderr


def test_mismatch(env):
    add(env, ALICE)
    before = env["passdb"].read_bytes()
    r = run(env, "-s", "-a", ALICE, stdin="one\ntwo\n")
    assert r.returncode == 1
    assert "Mismatch - password unchanged." in r.stderr
    assert env["passdb"].read_bytes() == before
    r = run(env, "-s", "-a", BOB, stdin="one\ntwo\n")
    assert r.returncode == 1
    assert env["passdb"].read_bytes() == before


def test_password_from_stdin_missing(env):
    r = run(env, "-s", "-a", ALICE, stdin="only-once\n")
    assert r.returncode == 1
    assert "Unable to get new password." in r.stderr
    assert not env["passdb"].exists()


def test_no_tty_without_s(env):
    r = run(env, "-a", ALICE, stdin="Password\nPassword\n")
    assert r.returncode == 1
    assert "-s" in r.stderr
    assert not env["passdb"].exists()


def test_disable_enable(env):
    add(env, ALICE)
    r = run(env, "-d", ALICE)
    assert (r.returncode, r.stdout) == (0, f"Disabled user {ALICE}.\n")
    assert entries(env)[ALICE][2] == "DU"
    r = run(env, "-e", ALICE)
    assert (r.returncode, r.stdout) == (0, f"Enabled user {ALICE}.\n")
    assert entries(env)[ALICE][2] == "U"


def test_delete(env):
    add(env, ALICE)
    add(env, BOB)
    r = run(env, "-x", ALICE)
    assert (r.returncode, r.stdout) == (0, f"Deleted user {ALICE}.\n")
    assert list(entries(env)) == [BOB]


@pytest.mark.parametrize("opt", ["-x", "-d", "-e"])
def test_unknown_user(env, opt):
    add(env, ALICE)
    before = env["passdb"].read_bytes()
    r = run(env, opt, "nobody-here")
    assert r.returncode == 1
    assert "Failed to find entry for user nobody-here." in r.stderr
    assert env["passdb"].read_bytes() == before


def test_invalid_user_name(env):
    r = run(env, "-s", "-a", "a:b", stdin="x\nx\n")
    assert r.returncode == 1
    assert "invalid user name" in r.stderr


def test_keeps_comments_and_reports_bad_lines(env):
    env["passdb"].parent.mkdir(mode=0o700)
    env["passdb"].write_text("# note\nnot a valid line\n")
    env["passdb"].chmod(0o600)
    r = add(env, ALICE)
    assert f"{env['passdb']}:2:" in r.stderr
    text = env["passdb"].read_text()
    assert text.startswith(f"# note\nnot a valid line\n{ALICE}:")


def test_unreadable_database(env):
    env["passdb"].mkdir(parents=True)     # a directory, not a file
    r = run(env, "-x", ALICE)
    assert r.returncode == 1
    assert str(env["passdb"]) in r.stderr
    assert os.strerror(21) in r.stderr    # EISDIR


def test_unwritable_database(env):
    env["passdb"].parent.write_text("a file where the directory should be")
    r = run(env, "-s", "-a", ALICE, stdin="x\nx\n")
    assert r.returncode == 1
    assert str(env["passdb"]) in r.stderr
    assert os.strerror(20) in r.stderr    # ENOTDIR


def test_bad_config(env):
    r = subprocess.run([str(SMBPASSWD), "-c", str(env["tmp"] / "none"),
                        "-x", ALICE], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 1
    assert "Can't load" in r.stderr


def test_options(env):
    r = subprocess.run([str(SMBPASSWD), "-h"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0
    assert "Usage: smbpasswd" in r.stdout
    r = run(env, "-a", "-x", ALICE)
    assert r.returncode == 1
