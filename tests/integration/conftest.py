"""Fixtures for the ringsmb integration tests.

A test gets a running SMB server from the `server` fixture family: either
ringsmb (the binary in $RINGSMB_SMBD, default <repo>/bin/smbd) or Debian's
Samba smbd as the reference, chosen with RINGSMB_TARGET=ringsmb|samba.
Each server listens on an ephemeral port on 127.0.0.1 with its own temporary
configuration, run directories and log file.  When it stops, the log is
scanned for sanitizer reports and the exit code must be 0.

The share content is built once per session (share_tree) and served
read-only by every server as [share].  A server may serve more shares
(make_server(..., shares=[...])), e.g. a writable scratch directory.
"""
import faulthandler
import hashlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TARGET = os.environ.get("RINGSMB_TARGET", "ringsmb")
SAMBA_SMBD = os.environ.get("RINGSMB_SAMBA_SMBD", "/usr/sbin/smbd")
SMBCLIENT = os.environ.get("RINGSMB_SMBCLIENT", "smbclient")

START_TIMEOUT = 20.0     # seconds until the port must accept connections
STOP_TIMEOUT = 15.0      # seconds between SIGTERM and SIGKILL
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "runtime error:",
                     "LeakSanitizer", "WARNING: ThreadSanitizer")

# Variants of the server configuration.  "default" runs everywhere; the
# other two only mean something for ringsmb (Samba can run vfs_io_uring,
# which we use as a reference when its module is installed).
VARIANTS = ("default", "vfs_io_uring", "no_io_uring")

# Sizes of the test files: name -> size in bytes.
DATA_FILES = {
    "empty.bin": 0,
    "one.bin": 1,
    "k64p1.bin": 64 * 1024 + 1,
    "m1.bin": 1024 * 1024,
    "m100.bin": 100 * 1024 * 1024,
}
MANY_COUNT = 5000
PROBE_NAME = "probe.txt"
PROBE_DATA = b"ringsmb probe file: the quick brown fox jumps over 13 lazy dogs\n"
SECRET_DATA = b"TOPSECRET-outside-the-share-" + b"%016x" % random.getrandbits(64)


def ringsmb_binary():
    p = Path(os.environ.get("RINGSMB_SMBD", "bin/smbd"))
    if not p.is_absolute():
        p = REPO / p
    return p


def tool_binary(name):
    """A ringsmb tool (testparm, smbpasswd) from the same build as smbd:
    build*/source3/utils/NAME next to build*/source3/smbd/smbd, else
    <repo>/bin/NAME."""
    smbd = ringsmb_binary()
    cand = smbd.parent.parent / "utils" / name
    if smbd.parent.name == "smbd" and cand.exists():
        return cand
    return REPO / "bin" / name


def free_port():
    """An ephemeral port that was free a moment ago (bind to 0, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


# ---------------------------------------------------------------- share tree

class ShareTree:
    """The directory layout every server serves (read-only).

    base/                 0755, readable by Samba's guest account (nobody)
      secret.txt          outside the share: must never be served
      share2/secret2.txt  sibling whose name has the share's name as prefix
      share/              the share
        probe.txt, empty.bin, one.bin, k64p1.bin, m1.bin, m100.bin
        sub/inner.txt
        many/f00000.txt .. f04999.txt
        link_inside       -> probe.txt            (stays inside: allowed)
        link_secret       -> ../secret.txt        (relative, escapes)
        link_secret_abs   -> /abs/base/secret.txt
        link_root         -> /
        link_sibling      -> ../share2            (prefix sibling dir)
        link_sibling_file -> /abs/base/share2/secret2.txt
    """

    def __init__(self, base):
        self.base = Path(base)
        self.share = self.base / "share"
        self.secret = self.base / "secret.txt"
        self.sibling = self.base / "share2"
        self.hashes = {}

    def build(self):
        rnd = random.Random(0x5eed)
        os.chmod(self.base, 0o755)
        self.share.mkdir()
        self.sibling.mkdir()
        self.secret.write_bytes(SECRET_DATA)
        (self.sibling / "secret2.txt").write_bytes(SECRET_DATA)
        (self.share / PROBE_NAME).write_bytes(PROBE_DATA)
        for name, size in DATA_FILES.items():
            p = self.share / name
            with open(p, "wb") as f:
                left = size
                while left:
                    n = min(left, 1 << 20)
                    f.write(rnd.randbytes(n))
                    left -= n
            self.hashes[name] = sha256_file(p)
        sub = self.share / "sub"
        sub.mkdir()
        (sub / "inner.txt").write_bytes(b"inner\n")
        many = self.share / "many"
        many.mkdir()
        for i in range(MANY_COUNT):
            (many / self.many_name(i)).write_bytes(b"%d\n" % i)
        links = {
            "link_inside": PROBE_NAME,
            "link_secret": "../secret.txt",
            "link_secret_abs": str(self.secret),
            "link_root": "/",
            "link_sibling": "../share2",
            "link_sibling_file": str(self.sibling / "secret2.txt"),
        }
        for name, target in links.items():
            os.symlink(target, self.share / name)
        for root, dirs, files in os.walk(self.base):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
            for fn in files:
                os.chmod(os.path.join(root, fn), 0o644)

    @staticmethod
    def many_name(i):
        return "f%05d.txt" % i


@pytest.fixture(scope="session")
def share_tree():
    base = tempfile.mkdtemp(prefix="ringsmb-share-")
    tree = ShareTree(base)
    try:
        tree.build()
        yield tree
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------ servers

class Server:
    """One running smbd (ringsmb or Samba) with its own temp dir."""

    kind = None
    ok_exit_codes = (0,)

    def __init__(self, tree, variant="default", extra_global=None,
                 shares=None):
        self.tree = tree
        self.variant = variant
        self.extra_global = dict(extra_global or {})
        # more shares: [{"name", "path", "read_only", optional "params"}]
        self.shares = list(shares or [])
        self.host = "127.0.0.1"
        self.port = None
        self.tmp = Path(tempfile.mkdtemp(prefix="ringsmb-%s-" % self.kind))
        self.conf = self.tmp / "smb.conf"
        self.client_conf = self.tmp / "client.conf"
        self.log_path = self.tmp / "server.log"
        self.proc = None
        self._log = None

    # subclasses: config_text(), command(), env()
    def env(self):
        return dict(os.environ)

    def start(self):
        last = None
        for _ in range(3):       # a port taken between free_port and bind
            self.port = free_port()
            self.conf.write_text(self.config_text())
            self.write_client_conf()
            self._log = open(self.log_path, "ab")
            self.proc = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=subprocess.STDOUT, env=self.env(),
                start_new_session=True, cwd=str(self.tmp))
            try:
                self.wait_ready()
                return self
            except RuntimeError as e:
                last = e
                self._reap()
        raise RuntimeError("%s did not start: %s\n--- log ---\n%s"
                           % (self.kind, last, self.log_tail()))

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("exited with %d" % self.proc.returncode)
            try:
                with socket.create_connection((self.host, self.port), 0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("port %d not accepting after %.0f s"
                           % (self.port, START_TIMEOUT))

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _reap(self):
        """Stop whatever is left of the process group; no checks."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        if self._log:
            self._log.close()
            self._log = None

    def stop(self):
        """SIGTERM, wait; returns a list of problems (empty when clean)."""
        problems = []
        if self.proc is None:
            return problems
        if self.proc.poll() is not None:
            problems.append("%s died before shutdown (exit %d)"
                            % (self.kind, self.proc.returncode))
        else:
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(STOP_TIMEOUT)
                if rc not in self.ok_exit_codes:
                    problems.append("%s exited with %d on SIGTERM"
                                    % (self.kind, rc))
            except subprocess.TimeoutExpired:
                problems.append("%s did not exit %.0f s after SIGTERM"
                                % (self.kind, STOP_TIMEOUT))
        # children (Samba forks per connection) and stragglers
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._reap()
        text = self.log_text()
        for marker in SANITIZER_MARKERS:
            if marker in text:
                problems.append("sanitizer report in %s log: %r"
                                % (self.kind, marker))
        return problems

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, n=60):
        return "\n".join(self.log_text().splitlines()[-n:])

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write_client_conf(self):
        d = self.tmp / "client"
        for sub in ("cache", "lock", "state", "private"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        self.client_conf.write_text(
            "[global]\n"
            "  client min protocol = SMB2_02\n"
            "  cache directory = %s\n  lock directory = %s\n"
            "  state directory = %s\n  private dir = %s\n"
            % (d / "cache", d / "lock", d / "state", d / "private"))

    def share_section(self, vfs=None):
        s = ("[share]\n"
             "  path = %s\n"
             "  guest ok = yes\n"
             "  read only = yes\n" % self.tree.share)
        if vfs:
            s += "  vfs objects = %s\n" % vfs
        for sh in self.shares:
            s += ("\n[%s]\n  path = %s\n  guest ok = yes\n"
                  "  read only = %s\n"
                  % (sh["name"], sh["path"],
                     "yes" if sh.get("read_only", True) else "no"))
            if vfs:
                s += "  vfs objects = %s\n" % vfs
            s += "".join("  %s = %s\n" % kv
                         for kv in sh.get("params", {}).items())
        return s

    def global_extra(self):
        return "".join("  %s = %s\n" % kv for kv in self.extra_global.items())


class RingsmbServer(Server):
    kind = "ringsmb"

    def config_text(self):
        g = ("[global]\n"
             "  smb ports = %d\n"
             "  interfaces = 127.0.0.1\n"
             "  bind interfaces only = yes\n"
             "  map to guest = Bad User\n"
             "  log level = 1\n" % self.port)
        # its own private dir: the domain SID in secrets.tdb
        # (docs/accounts.md "SIDs"), as Samba's fixture has
        if "private dir" not in self.extra_global:
            (self.tmp / "private").mkdir(exist_ok=True)
            g += "  private dir = %s\n" % (self.tmp / "private")
        # and its own pid file (written in the foreground too) and
        # control socket (smbstatus, smbcontrol)
        if "pid directory" not in self.extra_global:
            g += "  pid directory = %s\n" % (self.tmp / "pid")
        if "lock directory" not in self.extra_global:
            g += "  lock directory = %s\n" % (self.tmp / "lock")
        # the bad-input catalogue fails hundreds of logons from 127.0.0.1
        # on purpose; test_users.py turns the back-off on where it tests it
        if "logon backoff" not in self.extra_global:
            g += "  logon backoff = no\n"
        # smbprotocol, like Windows 11 24H2, refuses a guest logon on a
        # server that requires signing, which 'default' does on SMB 3.x
        # (issue 11; test_untrusted.py tests it): the guest tests run
        # with Samba's 'auto', which is also what the Samba target does
        if "server signing" not in self.extra_global:
            g += "  server signing = auto\n"
        if self.variant == "no_io_uring":
            g += "  io_uring = no\n"
        elif self.variant == "vfs_io_uring":
            # the fast path: ring I/O and the splice read mode (auto,
            # the default) for every unsigned READ of a page or more
            # that no open can change
            g += ("  io_uring = yes\n  smb2 read mode = auto\n"
                  "  min splice size = 4096\n")
        g += self.global_extra()
        vfs = "io_uring" if self.variant == "vfs_io_uring" else None
        return g + "\n" + self.share_section(vfs)

    def command(self):
        return [str(ringsmb_binary()), "-F", "--debug-stdout", "-d", "2",
                "-s", str(self.conf)]

    def env(self):
        env = dict(os.environ)
        env.pop("RINGSMB_NO_IO_URING", None)
        if self.variant == "no_io_uring":
            env["RINGSMB_NO_IO_URING"] = "1"
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        return env


class SambaServer(Server):
    kind = "samba"
    # Samba's smbd -F dies from SIGTERM rather than exiting 0; that is the
    # reference's behaviour, not something we test.
    ok_exit_codes = (0, -signal.SIGTERM)

    def config_text(self):
        t = self.tmp
        dirs = {}
        for key, sub in (("private dir", "private"),
                         ("lock directory", "lock"),
                         ("state directory", "state"),
                         ("cache directory", "cache"),
                         ("pid directory", "pid"),
                         ("ncalrpc dir", "ncalrpc"),
                         ("binddns dir", "binddns")):
            (t / sub).mkdir(exist_ok=True)
            dirs[key] = t / sub
        g = ("[global]\n"
             "  smb ports = %d\n"
             "  interfaces = 127.0.0.1\n"
             "  bind interfaces only = yes\n"
             "  server role = standalone server\n"
             "  disable netbios = yes\n"
             "  map to guest = Bad User\n"
             "  log level = 1\n"
             "  server min protocol = SMB2_02\n"
             "  load printers = no\n"
             "  printing = bsd\n"
             "  printcap name = /dev/null\n"
             "  disable spoolss = yes\n"
             "  passdb backend = tdbsam:%s/passdb.tdb\n"
             % (self.port, dirs["private dir"]))
        g += "".join("  %s = %s\n" % kv for kv in dirs.items())
        g += self.global_extra()
        vfs = "io_uring" if self.variant == "vfs_io_uring" else None
        return g + "\n" + self.share_section(vfs)

    def command(self):
        return [SAMBA_SMBD, "-F", "--debug-stdout", "--no-process-group",
                "--configfile=%s" % self.conf]


def samba_has_vfs_io_uring():
    return any(Path(p).exists() for p in (
        "/usr/lib/x86_64-linux-gnu/samba/vfs/io_uring.so",
        "/usr/lib/aarch64-linux-gnu/samba/vfs/io_uring.so"))


def make_server(tree, variant="default", extra_global=None, shares=None):
    """Start a server for the selected target; pytest.skip if the variant
    does not apply to it.  shares: more shares besides [share] (see
    Server.shares)."""
    if TARGET == "samba":
        if variant == "no_io_uring":
            pytest.skip("io_uring forced off is a ringsmb-only variant")
        if variant == "vfs_io_uring" and not samba_has_vfs_io_uring():
            pytest.skip("Samba's vfs_io_uring module is not installed")
        cls = SambaServer
    elif TARGET == "ringsmb":
        if not ringsmb_binary().exists():
            pytest.fail("ringsmb binary %s not found (build it, or set "
                        "RINGSMB_SMBD, or RINGSMB_TARGET=samba)"
                        % ringsmb_binary())
        cls = RingsmbServer
    else:
        pytest.fail("RINGSMB_TARGET must be ringsmb or samba, not %r" % TARGET)
    return cls(tree, variant, extra_global, shares).start()


def finish_server(srv):
    problems = srv.stop()
    tail = srv.log_tail()
    if not problems:
        srv.cleanup()
        return
    pytest.fail("; ".join(problems) + "\n--- server log (%s) ---\n%s"
                % (srv.log_path, tail), pytrace=False)


@pytest.fixture(scope="module", params=VARIANTS)
def server(request, share_tree):
    """A server per module per variant (default, vfs_io_uring,
    no_io_uring)."""
    srv = make_server(share_tree, request.param)
    yield srv
    finish_server(srv)


@pytest.fixture(scope="module")
def default_server(share_tree):
    """A server in the default configuration, one per module."""
    srv = make_server(share_tree, "default")
    yield srv
    finish_server(srv)


@pytest.fixture
def target():
    return TARGET


@pytest.fixture(scope="session")
def accounts():
    """Real Unix accounts rsmbtalice, rsmbtbob, rsmbtcarol and groups
    rsmbtstaff, rsmbtother (accounts.py), removed when the session ends."""
    import accounts as acc
    try:
        yield acc.acquire()
    finally:
        acc.release()


def pytest_report_header(config):
    if TARGET == "samba":
        return "ringsmb integration target: samba (%s)" % SAMBA_SMBD
    return "ringsmb integration target: ringsmb (%s)" % ringsmb_binary()


def make_scratch_dir(prefix="ringsmb-scratch-"):
    """A directory a writable share can serve: world-writable, so Samba's
    guest account (nobody) can write in it too.  Returns (base, dir);
    remove base when done."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(base, 0o755)
    d = base / "w"
    d.mkdir()
    os.chmod(d, 0o777)
    return base, d


def scratch_file(d, name, data=b""):
    """A pre-created file in a scratch directory (CREATE cannot make new
    files yet), writable by anyone."""
    p = Path(d) / name
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


# ------------------------------------------------------------ per-test limit

# A test that waits on a server which never answers (smbprotocol's receive()
# waits without a limit) must fail on its own, not hang the whole run until
# the runner's backstop kills pytest and hides which test it was.  The limit
# is generous: the slowest test (100 MiB transfers under ASan) takes ~30 s.
TEST_TIME_LIMIT = int(os.environ.get("RINGSMB_TEST_TIME_LIMIT", "240"))


class TestTimeLimit(Exception):
    pass


def _over_time(signum, frame):
    raise TestTimeLimit("test exceeded %d s (RINGSMB_TEST_TIME_LIMIT)"
                        % TEST_TIME_LIMIT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # setup, call and teardown together: a fixture may hang as well
    old = signal.signal(signal.SIGALRM, _over_time)
    # every thread's stack goes to stderr shortly before the alarm fires,
    # so a hang in a helper thread shows where it waits
    faulthandler.dump_traceback_later(max(TEST_TIME_LIMIT - 5, 1),
                                      exit=False)
    signal.alarm(TEST_TIME_LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old)
