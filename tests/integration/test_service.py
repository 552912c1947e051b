"""smbd as a systemd service (docs/service.md): the sd_notify messages a
Type=notify unit relies on, received on a socket of our own as systemd
would receive them; and the unit file judged by systemd-analyze.
ringsmb only."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (REPO, TARGET, RingsmbServer, finish_server, free_port,
                      ringsmb_binary, tool_binary)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's own service behaviour")

NOTIFY_TIMEOUT = 20.0


class Notifications:
    """An AF_UNIX datagram socket standing in for systemd's notify
    socket: a path, or an abstract name (NOTIFY_SOCKET=@name)."""

    def __init__(self, tmp, abstract=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = "ringsmb-test-notify-%d-%d" % (os.getpid(),
                                                   time.monotonic_ns())
            self.sock.bind("\0" + name)
            self.env_value = "@" + name
        else:
            path = str(Path(tmp) / "notify.sock")
            self.sock.bind(path)
            self.env_value = path
        self.messages = []

    def next(self, timeout=NOTIFY_TIMEOUT):
        """The next message as a dict of its assignments."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            pytest.fail("no sd_notify message within %.0f s (got so far: "
                        "%r)" % (timeout, self.messages))
        self.messages.append(data)
        fields = {}
        for line in data.decode().split("\n"):
            if line:
                k, _, v = line.partition("=")
                fields[k] = v
        return fields

    def none_pending(self):
        self.sock.settimeout(0.3)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            return True
        self.messages.append(data)
        return False

    def close(self):
        self.sock.close()


class NotifyServer(RingsmbServer):
    """smbd -F with NOTIFY_SOCKET set; ready when READY=1 arrives, and
    the port must accept at that moment (not merely later)."""

    notifications = None

    def env(self):
        env = super().env()
        env["NOTIFY_SOCKET"] = self.notifications.env_value
        return env

    def wait_ready(self):
        msg = self.notifications.next()
        if self.proc.poll() is not None:
            raise RuntimeError("exited with %d" % self.proc.returncode)
        assert msg.get("READY") == "1", msg
        assert "STATUS" in msg, msg
        try:
            with socket.create_connection((self.host, self.port), 2):
                pass
        except OSError as e:
            pytest.fail("READY=1 before the port accepts: %s" % e)


def start_notify_server(tree, notif):
    srv = NotifyServer(tree)
    srv.notifications = notif
    return srv.start()


@pytest.mark.parametrize("abstract", [False, True],
                         ids=["path", "abstract"])
def test_notify_ready_reload_stopping(share_tree, tmp_path, abstract):
    notif = Notifications(tmp_path, abstract)
    srv = None
    try:
        srv = start_notify_server(share_tree, notif)
        srv.proc.send_signal(signal.SIGHUP)
        msg = notif.next()
        assert msg.get("RELOADING") == "1", msg
        # CLOCK_MONOTONIC in microseconds, as systemd 253 compares it
        usec = int(msg["MONOTONIC_USEC"])
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        assert 0 < usec <= now and now - usec < 60 * 10**6, (usec, now)
        msg = notif.next()
        assert msg.get("READY") == "1", msg
        assert srv.alive()
        with socket.create_connection((srv.host, srv.port), 2):
            pass
        # smbcontrol reload-config: the same two messages
        p = subprocess.run([str(tool_binary("smbcontrol")), "-s",
                            str(srv.conf), "smbd", "reload-config"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30)
        assert p.returncode == 0, p.stdout
        assert notif.next().get("RELOADING") == "1"
        assert notif.next().get("READY") == "1"
        # SIGTERM, exit 0, no sanitizer report
        srv_stopped, srv = srv, None
        finish_server(srv_stopped)
        msg = notif.next()
        assert msg.get("STOPPING") == "1", msg
    finally:
        if srv is not None:
            finish_server(srv)
        notif.close()


def test_notify_failed_reload_still_ready(share_tree, tmp_path):
    """A configuration that no longer loads keeps the old one; the
    service manager must still hear READY=1 after RELOADING=1, or it
    would wait for the reload until its timeout."""
    notif = Notifications(tmp_path)
    srv = None
    try:
        srv = start_notify_server(share_tree, notif)
        srv.conf.write_text(srv.conf.read_text() +
                            "\n[broken]\n  read only = maybe\n")
        srv.proc.send_signal(signal.SIGHUP)
        assert notif.next().get("RELOADING") == "1"
        assert notif.next().get("READY") == "1"
        assert srv.alive()
        assert "keeping the old configuration" in srv.log_text()
    finally:
        if srv is not None:
            finish_server(srv)
        notif.close()


def test_no_notify_socket_no_messages(tmp_path):
    """Without NOTIFY_SOCKET nothing is sent and nothing fails; with a
    daemon (no -F) nothing is sent either: its child is not the main
    process a service manager would accept messages from."""
    notif = Notifications(tmp_path)
    conf = tmp_path / "smb.conf"
    port = free_port()
    conf.write_text("[global]\n  smb ports = %d\n  interfaces = 127.0.0.1\n"
                    "  bind interfaces only = yes\n"
                    "  pid directory = %s\n  private dir = %s\n"
                    "  log file = %s\n  log level = 2\n"
                    % (port, tmp_path / "run", tmp_path / "private",
                       tmp_path / "log.smbd"))
    env = dict(os.environ, NOTIFY_SOCKET=notif.env_value,
               ASAN_OPTIONS="detect_leaks=0")
    try:
        p = subprocess.run([str(ringsmb_binary()), "-D", "-s", str(conf)],
                           env=env, timeout=30)
        assert p.returncode == 0
        pidfile = tmp_path / "run" / "smbd.pid"
        end = time.time() + 15
        while not pidfile.exists() and time.time() < end:
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        os.kill(pid, signal.SIGHUP)
        end = time.time() + 15
        while time.time() < end and "configuration reloaded" not in \
                (tmp_path / "log.smbd").read_text():
            time.sleep(0.05)
        assert "configuration reloaded" in (tmp_path / "log.smbd").read_text()
        os.kill(pid, signal.SIGTERM)
        end = time.time() + 15
        while pidfile.exists() and time.time() < end:
            time.sleep(0.05)
        assert not pidfile.exists()
        assert notif.none_pending(), notif.messages
    finally:
        notif.close()


# ------------------------------------------------- make install, the unit

def build_dir():
    """The waf build dir of the smbd under test (build*/source3/smbd/smbd),
    or None when it is not one (bin/smbd is a link into build/)."""
    smbd = ringsmb_binary().resolve()
    d = smbd.parent.parent.parent
    if smbd.parent.name != "smbd" or not (d / "c4che" / "_cache.py").exists():
        return None
    return d


def waf_lock_for(bdir):
    """The WAFLOCK file that names bdir as its out_dir (configure
    writes one per build dir: .lock-waf_linux_build, .lock-waf_asan, ...)."""
    for lock in sorted(REPO.glob(".lock-waf*")):
        for line in lock.read_text(errors="replace").splitlines():
            if line.startswith("out_dir = ") and \
                    Path(eval(line[len("out_dir = "):])) == bdir:
                return lock.name
    return None


def cache_value(bdir, name):
    for line in (bdir / "c4che" / "_cache.py").read_text().splitlines():
        if line.startswith(name + " = "):
            return eval(line[len(name) + 3:])
    return None


class Install:
    def __init__(self, root, bdir):
        self.root = root
        self.bdir = bdir
        self.prefix = cache_value(bdir, "PREFIX")
        self.unit_dir = cache_value(bdir, "SYSTEMD_UNIT_DIR")

    def path(self, p):
        return self.root / p.lstrip("/")

    def p(self, rel):
        return self.path(self.prefix + "/" + rel)

    def run(self):
        lock = waf_lock_for(self.bdir)
        if lock is None:
            pytest.skip("no .lock-waf* names %s" % self.bdir)
        env = dict(os.environ, WAFLOCK=lock)
        env.pop("DESTDIR", None)
        p = subprocess.run([str(REPO / "buildtools" / "bin" / "waf"),
                            "install", "--destdir=%s" % self.root],
                           cwd=str(REPO), env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        assert p.returncode == 0, p.stdout.decode(errors="replace")[-3000:]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """waf install --destdir=TMP from the build of the smbd under test,
    as 'make install DESTDIR=TMP' does (Makefile)."""
    bdir = build_dir()
    if bdir is None:
        pytest.skip("RINGSMB_SMBD is not inside a waf build dir")
    inst = Install(tmp_path_factory.mktemp("destdir"), bdir)
    inst.run()
    return inst


PROGRAMS = {"sbin/smbd", "bin/testparm", "bin/smbpasswd", "bin/smb2bench",
            "bin/ringsmb-import-samba", "bin/smbstatus", "bin/smbcontrol"}
MAN_PAGES = {"man8/smbd.8", "man8/smbpasswd.8", "man8/ringsmb-import-samba.8",
             "man5/smb.conf.5", "man1/testparm.1", "man1/smb2bench.1",
             "man1/smbstatus.1", "man1/smbcontrol.1"}


def test_install_tree(installed):
    """The tree README.md and docs/service.md promise, under DESTDIR."""
    inst = installed
    for prog in PROGRAMS:
        f = inst.p(prog)
        assert f.is_file() and os.access(f, os.X_OK), prog
    # every installed program has its page (smbstatus, smbcontrol, ...)
    for sub in ("bin", "sbin"):
        for f in inst.p(sub).iterdir():
            pages = [m for m in MAN_PAGES
                     if m.split("/")[1].rsplit(".", 1)[0] == f.name]
            assert pages, "%s/%s has no man page" % (sub, f.name)
    for page in MAN_PAGES:
        assert inst.p("share/man/" + page).is_file(), page
    for doc in ["README.md", "service.md", "smb.conf.md"] + \
            [d.name for d in (REPO / "docs").glob("*.md")]:
        assert inst.p("share/doc/ringsmb/" + doc).is_file(), doc
    assert inst.p("etc/smb.conf.example").read_bytes() == \
        (REPO / "packaging" / "smb.conf.example").read_bytes()
    assert inst.p("etc/smb.conf").read_bytes() == \
        inst.p("etc/smb.conf.example").read_bytes()
    assert inst.p("share/ringsmb/fail2ban/filter.d/ringsmb.conf").is_file()
    # state directories: empty, private/ for root alone
    for d, mode in (("private", 0o700), ("var", 0o755),
                    ("var/run", 0o755), ("var/lock", 0o755)):
        st = inst.p(d).stat()
        assert oct(st.st_mode & 0o7777) == oct(mode), d
    assert list(inst.p("private").iterdir()) == []
    # the unit under the prefix and where systemd looks
    unit = inst.p("lib/systemd/system/ringsmb.service")
    assert unit.is_file()
    assert inst.unit_dir == "/usr/local/lib/systemd/system"
    assert inst.path(inst.unit_dir + "/ringsmb.service").read_bytes() == \
        unit.read_bytes()
    # and nothing else at the top of the prefix
    assert {p.name for p in inst.p("").iterdir()} == {
        "bin", "sbin", "etc", "private", "var", "lib", "share"}


def test_install_keeps_smb_conf(installed):
    """A second 'make install' must not overwrite the admin's smb.conf,
    nor what is in private/."""
    conf = installed.p("etc/smb.conf")
    conf.write_text("[global]\n  workgroup = MINE\n")
    (installed.p("private") / "smbpasswd").write_text("x:1000:...\n")
    installed.run()
    assert conf.read_text() == "[global]\n  workgroup = MINE\n"
    assert (installed.p("private") / "smbpasswd").exists()
    assert oct(installed.p("private").stat().st_mode & 0o777) == "0o700"


def unit_text(installed):
    return installed.p("lib/systemd/system/ringsmb.service").read_text()


def test_unit_contents(installed):
    text = unit_text(installed)
    keys = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            k, _, v = line.partition("=")
            keys.setdefault(k, []).append(v)
    assert keys["Type"] == ["notify"]
    assert keys["ExecStart"] == [installed.prefix + "/sbin/smbd --foreground"]
    assert keys["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    rw = keys["ReadWritePaths"][0].split()
    assert installed.prefix + "/var" in rw
    assert installed.prefix + "/private" in rw
    assert keys["ProtectHome"] == ["read-only"]
    caps = set(keys["CapabilityBoundingSet"][0].split())
    assert {"CAP_SETUID", "CAP_SETGID", "CAP_SYS_ADMIN",
            "CAP_NET_BIND_SERVICE"} <= caps
    assert "io_uring_enter" in keys["SystemCallFilter"][0]
    # Documentation= names files that the install put there
    for doc in keys["Documentation"]:
        assert doc.startswith("file://"), doc
        assert installed.path(doc[len("file://"):]).is_file(), doc


def test_unit_verifies(installed, tmp_path):
    """systemd-analyze verify on the installed unit; its ExecStart is
    pointed into DESTDIR, where the program is (verify checks that it is
    executable), nothing else changes."""
    sa = shutil.which("systemd-analyze")
    if sa is None:
        pytest.skip("systemd-analyze is not installed (Debian package "
                    "systemd; buildtools/install-deps.sh installs it)")
    text = unit_text(installed).replace(
        "ExecStart=" + installed.prefix,
        "ExecStart=" + str(installed.p("")).rstrip("/"))
    unit = tmp_path / "ringsmb.service"
    unit.write_text(text)
    p = subprocess.run([sa, "verify", str(unit)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0 and "ringsmb.service" not in out, out
    # the exposure score docs/service.md reports (systemd 252: 3.1)
    p = subprocess.run([sa, "security", "--offline=yes", str(unit)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    out = p.stdout.decode(errors="replace")
    m = re.search(r"Overall exposure level for ringsmb.service: ([\d.]+)",
                  out)
    if p.returncode != 0 and m is None:
        pytest.skip("systemd-analyze security --offline is not supported")
    assert m and float(m.group(1)) <= 4.0, out[-2000:]


# ------------------------------------------------------------ man pages

def parameter_list():
    from conftest import tool_binary
    p = subprocess.run([str(tool_binary("testparm")), "--parameter-list"],
                       stdout=subprocess.PIPE, timeout=30)
    assert p.returncode == 0
    rows = [l.split("\t") for l in p.stdout.decode().splitlines()]
    assert rows and all(len(r) == 6 for r in rows), rows[:3]
    return rows


def test_every_parameter_documented(installed):
    """Every parameter of the table has a row in docs/smb.conf.md and an
    entry in the generated smb.conf(5); every row names a parameter."""
    sys.path.insert(0, str(REPO / "docs" / "man"))
    import mkconfman
    md = mkconfman.md_rows((REPO / "docs" / "smb.conf.md").read_text())
    names = [r[0] for r in parameter_list()]
    assert len(names) > 50
    assert [n for n in names if n not in md] == []
    assert sorted(n for n in md if n not in names) == []
    page = installed.p("share/man/man5/smb.conf.5").read_text()
    for n in names:
        assert '.B "%s"\n' % n in page, n
    assert "not described in docs/smb.conf.md" not in page


def test_man_pages_render_without_warnings(installed):
    man = shutil.which("man")
    groff = shutil.which("groff")
    if man is None or groff is None:
        pytest.skip("man or groff missing (Debian packages man-db, "
                    "groff-base; buildtools/install-deps.sh installs them)")
    for page in sorted(MAN_PAGES):
        f = installed.p("share/man/" + page)
        p = subprocess.run([man, "--warnings", "-E", "UTF-8", "-l",
                            "-Tutf8", str(f)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        assert p.returncode == 0 and p.stderr == b"", (page, p.stderr)
        assert len(p.stdout) > 500, page
        p = subprocess.run([groff, "-man", "-ww", "-z", str(f)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        assert p.returncode == 0 and p.stderr == b"", (page, p.stderr)
