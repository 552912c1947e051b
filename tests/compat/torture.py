#!/usr/bin/env python3
"""smbtorture judge: the suites in suites.txt against ringsmb and Samba.

  torture.py --compare [--report docs/compatibility.md]
      ringsmb (bin/smbd, or $RINGSMB_SMBD) and Debian's Samba smbd, one
      after the other, each with its own temporary config, port, user and
      empty writable share; then the access matrix against both
      (access.py); writes the comparison report (`make compat`).
  torture.py --gate
      ringsmb alone; every subtest in expected-pass.txt must pass.  Ends
      with 'torture: N passed, N failed, N skipped' (the `torture` step of
      `make test`; tests/runner.py runs it on the ASan build).
  torture.py --update-expected
      ringsmb alone; rewrites expected-pass.txt with what passes now.

Servers come from tests/integration/conftest.py (the same classes the
integration tests use) with a writable share and a password user instead of
a read-only guest share.  smbtorture runs with --format=subunit --fullname;
each suite and each subtest is time-bounded (suites.txt), the process group
is killed on expiry, and a suite resumes after a stalled subtest.  The
server must still be alive after every smbtorture run; if not, that is
recorded as a server failure and it is restarted for the rest.
"""
import argparse
import datetime
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))
import conftest as servers  # noqa: E402  (the integration server classes)
sys.path.insert(0, str(HERE))
import access  # noqa: E402  (the access matrix section of the report)

SMBTORTURE = os.environ.get("RINGSMB_SMBTORTURE", "smbtorture")
SAMBA_SMBPASSWD = os.environ.get("RINGSMB_SAMBA_SMBPASSWD",
                                 "/usr/bin/smbpasswd")
SUITES_FILE = HERE / "suites.txt"
EXPECTED_FILE = HERE / "expected-pass.txt"
REASONS_FILE = HERE / "reasons.json"
REPORT_FILE = REPO / "docs" / "compatibility.md"

USER, PASSWORD = "ringsmbtorture", "Torture-pw-1"
# the integration servers map unknown users to guest; smbtorture expects
# LOGON_FAILURE for bad credentials, so both servers here say Never
GLOBALS = {"map to guest": "Never"}
# smbtorture picks a random seed per run; a fixed one makes the data and
# names of rw1/rw2 and friends the same against both servers and each run
SEED = 4445
GATE_BUDGET = 900.0      # seconds for the whole `make test` step (~520 used)
COMPARE_BUDGET = 1800.0  # seconds per server for `make compat`
KILL_WAIT = 10.0         # seconds to reap smbtorture after SIGKILL
PASS, FAIL, SKIP = "pass", "fail", "skip"
STATUS_WORDS = {"success": PASS, "successful": PASS, "xfail": PASS,
                "failure": FAIL, "fail": FAIL, "error": FAIL,
                "uxsuccess": FAIL, "skip": SKIP}


# ------------------------------------------------------------------ data

class Suite:
    """One line of suites.txt.  An option share:NAME=VALUE is not passed
    to smbtorture: the suite runs on a share of its own (same directory
    as [share]) with that parameter set, '_' in NAME read as a space
    (share:kernel_oplocks=yes).  {share} in an option is the share's
    directory on disk (--option=torture:localdir={share})."""

    def __init__(self, name, timeout, stall, options):
        self.name = name
        self.timeout = float(timeout)
        self.stall = float(stall)
        self.options = [o for o in options if not o.startswith("share:")]
        self.share_params = {}
        for o in options:
            if o.startswith("share:"):
                k, v = o[len("share:"):].split("=", 1)
                self.share_params[k.replace("_", " ")] = v
        self.share = "share"
        if self.share_params:
            self.share = "s_" + re.sub(r"[^a-z0-9]", "_",
                                       name.split(".")[-1].lower())


def load_suites(path=SUITES_FILE, only=None):
    suites = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            f = line.split()
            if not only or f[0] in only:
                suites.append(Suite(f[0], f[1], f[2], f[3:]))
    return suites


def load_expected(path=EXPECTED_FILE):
    if not path.exists():
        return []
    names = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return names


def load_reasons(path=REASONS_FILE):
    if not path.exists():
        return {}
    return {k: v for k, v in json.loads(path.read_text()).items()
            if not k.startswith("_")}


def reason_for(name, message, reasons):
    """The reasons.json entry for name or its longest dotted prefix whose
    value is a reason, or a list of {match, reason} of which one matches
    message."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        value = reasons.get(".".join(parts[:n]))
        if isinstance(value, str):
            return value
        for entry in value or []:
            if re.search(entry["match"], message):
                return entry["reason"]
    return None


class Result:
    def __init__(self, status, message=""):
        self.status = status
        self.message = message

    def first_line(self):
        for line in self.message.splitlines():
            line = line.strip()
            if line:
                return line.replace("../../source4/torture/", "")
        return ""


# ------------------------------------------------------------ smbtorture

def smbtorture_version():
    p = subprocess.run([SMBTORTURE, "--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    return p.stdout.decode(errors="replace").strip().splitlines()[-1]


def list_subtests(suite):
    """The subtests of a suite as --fullname reports them.  --list prints
    suite.case.test, with case == test for simple tests (reported as
    suite.case), and also lists suites that merely share the prefix."""
    p = subprocess.run([SMBTORTURE, "--list", suite],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       timeout=60)
    names = []
    for line in p.stdout.decode(errors="replace").splitlines()[1:]:
        line = line.rstrip()
        if "." not in line:
            continue
        head, last = line.rsplit(".", 1)
        if head.endswith("." + last):
            line = head
        if (line == suite or line.startswith(suite + ".")) and \
                line not in names:
            names.append(line)
    return names


class SubunitParser:
    """Incremental parser of smbtorture's subunit v1 output: 'test: NAME',
    then 'success|failure|error|skip|...: NAME', optionally followed by
    ' [' and detail lines up to a line ']'."""

    def __init__(self):
        self.results = {}
        self.order = []
        self.current = None
        self.last = time.monotonic()     # last test start or result
        self._details = None     # (name, status, lines)
        self._buf = b""

    def feed(self, data):
        self._buf += data
        while b"\n" in self._buf:
            raw, self._buf = self._buf.split(b"\n", 1)
            self.line(raw.decode("utf-8", "replace"))

    def line(self, line):
        if self._details is not None:
            if line.strip() == "]":
                name, status, lines = self._details
                self._details = None
                self.finish(name, status, "\n".join(lines))
            else:
                self._details[2].append(line)
            return
        if line.startswith("test: "):
            self.current = line[6:].strip()
            self.last = time.monotonic()
            return
        m = re.match(r"^(\w+): (.*)$", line)
        if not m or m.group(1) not in STATUS_WORDS:
            return
        status, rest = STATUS_WORDS[m.group(1)], m.group(2)
        if rest.endswith(" ["):
            self._details = (rest[:-2].strip(), status, [])
            return
        m = re.match(r"^(.*?) \[(.*)\]$", rest)
        if m:
            self.finish(m.group(1).strip(), status, m.group(2))
        else:
            self.finish(rest.strip(), status, "")

    def finish(self, name, status, message):
        if name not in self.results:
            self.order.append(name)
        self.results[name] = Result(status, message)
        self.last = time.monotonic()
        if name == self.current:
            self.current = None

    def close(self):
        """End of stream: details cut off by a kill still count."""
        if self._details is not None:
            name, status, lines = self._details
            self._details = None
            self.finish(name, status, "\n".join(lines))


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(KILL_WAIT)
    except subprocess.TimeoutExpired:
        pass


def run_smbtorture(cmd, stderr_path, stdout_path, stall, deadline):
    """Runs one smbtorture; returns (parser, why) where why is None when it
    exited by itself, 'stall' or 'timeout' when it was killed."""
    parser = SubunitParser()
    with open(stderr_path, "ab") as err, open(stdout_path, "ab") as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=err,
                                start_new_session=True)
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        why = None
        parser.last = time.monotonic()
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    why = "timeout"
                    break
                if now - parser.last > stall:
                    why = "stall"
                    break
                if not sel.select(min(0.5, deadline - now)):
                    continue
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    break
                out.write(data)
                parser.feed(data)
        finally:
            sel.close()
            if why or proc.poll() is None:
                if proc.poll() is None and not why:
                    # stdout closed but the process lingers
                    try:
                        proc.wait(KILL_WAIT)
                    except subprocess.TimeoutExpired:
                        why = "stall"
                kill_group(proc)
            proc.stdout.close()
    parser.close()
    return parser, why


# --------------------------------------------------------------- servers

class Share:
    """An empty writable share directory (what the server classes call a
    tree: they only use .share)."""

    def __init__(self):
        self.base = Path(tempfile.mkdtemp(prefix="ringsmb-torture-"))
        os.chmod(self.base, 0o755)
        self.share = self.base / "share"
        self.share.mkdir()
        os.chmod(self.share, 0o777)

    def empty(self):
        """Removes what a suite left behind, so each suite starts clean."""
        for p in self.share.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    p.unlink()
                except OSError:
                    pass
        os.chmod(self.share, 0o777)

    def remove(self):
        shutil.rmtree(self.base, ignore_errors=True)


def share_text(name, path, lines):
    return "[%s]\n  path = %s\n  read only = no\n%s" % (name, path, lines)


def writable_share(self, vfs=None, lines=""):
    """[share], and a share per suite that asks for share parameters
    (Suite.share_params, in self.shares), each with lines added."""
    s = share_text("share", self.tree.share, lines)
    for sh in self.shares:
        s += "\n" + share_text(sh["name"], sh["path"], lines + "".join(
            "  %s = %s\n" % kv for kv in sh["params"].items()))
    return s


def ensure_unix_user():
    """The torture user is a Unix account for both servers: each acts on
    disk as the logged-on user's account (issue 11 for ringsmb)."""
    if subprocess.run(["id", USER], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", USER],
                       check=True, timeout=60)


def ringsmb_share(self, vfs=None):
    """ringsmb's share: as Samba's, NT ACLs and named streams kept as
    Samba keeps them (issue 15)."""
    return writable_share(self, vfs,
                          "  vfs objects = acl_xattr streams_xattr\n")


class TortureRingsmb(servers.RingsmbServer):
    share_section = ringsmb_share

    def __init__(self, tree):
        super().__init__(tree, extra_global=GLOBALS)
        self.passwd = self.tmp / "smbpasswd"
        self.extra_global["smb passwd file"] = str(self.passwd)

    def add_user(self):
        ensure_unix_user()
        self.port = 1            # the config needs a port; not started yet
        self.conf.write_text(self.config_text())
        pw = ("%s\n%s\n" % (PASSWORD, PASSWORD)).encode()
        subprocess.run([str(servers.tool_binary("smbpasswd")), "-c",
                        str(self.conf), "-s", "-a", USER], input=pw,
                       check=True, stdout=subprocess.DEVNULL, timeout=60)

    def version(self):
        p = subprocess.run([str(servers.ringsmb_binary()), "-V"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30)
        v = p.stdout.decode(errors="replace").strip()
        g = subprocess.run(["git", "-C", str(REPO), "describe", "--always",
                            "--dirty"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
        rev = g.stdout.decode().strip()
        return "%s (git %s)" % (v, rev) if rev else v


def admin_share(self, vfs=None):
    """Samba's share as admins run it: NT ACLs and streams in xattrs, DOS
    attributes stored (ringsmb gets these with issue 15)."""
    return writable_share(self, vfs,
                          "  vfs objects = acl_xattr streams_xattr\n"
                          "  store dos attributes = yes\n")


class TortureSamba(servers.SambaServer):
    share_section = admin_share

    def __init__(self, tree):
        super().__init__(tree, extra_global=GLOBALS)
        # smbd reaches into its lock and state directories while running
        # as the logged-on user: behind a 0700 mkdtemp directory it fails
        # opens with EINVAL and panics on share-mode locks
        os.chmod(self.tmp, 0o755)

    def add_user(self):
        ensure_unix_user()
        self.port = 1
        self.conf.write_text(self.config_text())
        pw = ("%s\n%s\n" % (PASSWORD, PASSWORD)).encode()
        subprocess.run([SAMBA_SMBPASSWD, "-c", str(self.conf), "-s", "-a",
                        USER], input=pw, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60)

    def version(self):
        p = subprocess.run([servers.SAMBA_SMBD, "--version"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30)
        return "Samba smbd " + p.stdout.decode(errors="replace").strip()


# ----------------------------------------------------------------- a run

class Run:
    """All suites against one server.  results: suite -> {subtest:
    Result}; problems: server deaths, sanitizer reports, unclean exits."""

    def __init__(self, cls, suites, out_dir, budget):
        self.cls = cls
        self.kind = cls.kind
        self.suites = suites
        self.out_dir = Path(out_dir) / self.kind
        self.budget = budget
        self.results = {}
        self.problems = []
        self.seconds = {}
        self.version = ""
        self.srv = None
        self.share = None

    def note(self, text):
        print("%s: *** %s" % (self.kind, text), flush=True)
        if text not in self.problems:
            self.problems.append(text)

    def execute(self):
        shutil.rmtree(self.out_dir, ignore_errors=True)
        self.out_dir.mkdir(parents=True)
        self.share = Share()
        self.srv = self.cls(self.share)
        self.srv.shares = [{"name": s.share, "path": self.share.share,
                            "params": s.share_params}
                           for s in self.suites if s.share_params]
        end = time.monotonic() + self.budget
        try:
            self.version = self.srv.version()
            self.srv.add_user()
            self.srv.start()
            for suite in self.suites:
                self.run_suite(suite, end)
        finally:
            for p in self.srv.stop():
                self.note(p)
            if self.srv.log_path.exists():
                shutil.copy(self.srv.log_path, self.out_dir / "server.log")
            self.srv.cleanup()
            self.share.remove()
            self.save()
        return self

    def save(self):
        data = {"version": self.version, "problems": self.problems,
                "seconds": self.seconds,
                "results": {s: {n: [r.status, r.message]
                                for n, r in res.items()}
                            for s, res in self.results.items()}}
        (self.out_dir / "results.json").write_text(json.dumps(data,
                                                              indent=1))

    def load(self):
        """The results of the last run (results.json in out_dir)."""
        data = json.loads((self.out_dir / "results.json").read_text())
        self.version = data["version"]
        self.problems = data["problems"]
        self.seconds = data["seconds"]
        self.results = {s: {n: Result(*v) for n, v in res.items()}
                        for s, res in data["results"].items()}
        return self

    def ensure_alive(self, where):
        if self.srv.alive():
            return
        for p in self.srv.stop():
            self.note("%s (%s)" % (p, where))
        self.srv.start()

    def run_suite(self, suite, end):
        t0 = time.monotonic()
        names = list_subtests(suite.name)
        res = {}
        self.results[suite.name] = res
        deadline = min(end, t0 + suite.timeout)
        if deadline - t0 < 1:
            for n in names:
                res[n] = Result(FAIL, "not run: time budget exhausted")
            return
        self.ensure_alive("before %s" % suite.name)
        self.share.empty()
        remaining = list(names)
        attempt = 0
        why = None
        while attempt <= len(names):     # each pass settles >= 1 subtest
            attempt += 1
            parser, why = self.torture_once(suite, remaining, attempt,
                                            deadline)
            for n in parser.order:
                res[n] = parser.results[n]
                if n not in names:
                    names.append(n)
            stuck = parser.current
            if stuck and stuck not in res:
                res[stuck] = Result(FAIL, {
                    "stall": "timeout: no result after %.0f s"
                             % suite.stall,
                    "timeout": "timeout: suite limit of %.0f s reached"
                               % suite.timeout,
                }.get(why, "smbtorture ended during the subtest"))
            if not self.srv.alive():
                self.note("server died during %s (last subtest: %s)"
                          % (suite.name, stuck or parser.order[-1:]))
                self.ensure_alive("during %s" % suite.name)
            remaining = [n for n in names if n not in res]
            progress = stuck or parser.order
            if not remaining or why == "timeout" or not progress or \
                    time.monotonic() >= deadline:
                break
        for n in names:
            if n in res:
                continue
            if why == "timeout" or time.monotonic() >= deadline:
                msg = ("timeout: suite limit of %.0f s reached before "
                       "this subtest" % suite.timeout)
            elif why == "stall":
                msg = ("timeout: smbtorture made no progress for %.0f s "
                       "before this subtest" % suite.stall)
            else:
                msg = "not reported by smbtorture"
            res[n] = Result(FAIL, msg)
        self.seconds[suite.name] = time.monotonic() - t0
        c = count(res)
        print("%s: %-28s %3d passed %3d failed %3d skipped  %5.1f s"
              % (self.kind, suite.name, c[PASS], c[FAIL], c[SKIP],
                 self.seconds[suite.name]), flush=True)

    def torture_once(self, suite, remaining, attempt, deadline):
        cmd = [SMBTORTURE, "//%s/%s" % (self.srv.host, suite.share),
               "-p", str(self.srv.port), "-U", "%s%%%s" % (USER, PASSWORD),
               "--configfile=%s" % self.srv.client_conf,
               "--format=subunit", "--fullname", "--seed=%d" % SEED] + \
            [o.replace("{share}", str(self.share.share))
             for o in suite.options]
        if attempt > 1:
            lst = self.out_dir / ("%s.list%d" % (suite.name, attempt))
            lst.write_text("".join(n + "\n" for n in remaining))
            cmd.append("--load-list=%s" % lst)
        cmd.append(suite.name)
        base = self.out_dir / suite.name
        return run_smbtorture(cmd, str(base) + ".err", str(base) + ".out",
                              suite.stall, deadline)


def count(res):
    c = {PASS: 0, FAIL: 0, SKIP: 0}
    for r in res.values():
        c[r.status] += 1
    return c


# ----------------------------------------------------------------- gate

# In the gate (ringsmb alone) a subtest that gives no result for this
# long has hung: the stall limits in suites.txt are sized for Samba's
# slowest subtests (notify.mask, 78 s), which ringsmb answers in under 10.
GATE_STALL = 20.0
# ... except an unacknowledged oplock break, which waits its 35 s
# (smb2.oplock.batch22a, smb2.lease.timeout; smb2.lease.break waits a
# second for each break it expects not to come, 16 times over), and
# compound_find_close, which creates 5000 files first: 17.7 s under ASan
# alone on 2 cores, so 20 s failed it once under load
GATE_STALL_SUITE = {"smb2.oplock": 45.0, "smb2.lease": 60.0,
                    "smb2.compound_find": 45.0}


def ringsmb_suites(args):
    suites = load_suites(only=args.suite)
    for s in suites:
        s.stall = min(s.stall, GATE_STALL_SUITE.get(s.name, GATE_STALL))
    return suites


def gate(args):
    suites = ringsmb_suites(args)
    run = Run(TortureRingsmb, suites, args.out_dir, args.budget).execute()
    expected = load_expected()
    seen = {n: r for res in run.results.values() for n, r in res.items()}
    passed = failed = skipped = 0
    for n in expected:
        r = seen.get(n)
        if r is not None and r.status == PASS:
            passed += 1
            continue
        failed += 1
        print("FAILED (expected to pass) %s: %s" % (
            n, "not run" if r is None else
            "%s: %s" % (r.status, r.first_line())))
    new = sorted(n for n, r in seen.items()
                 if r.status == PASS and n not in expected)
    for n in new:
        print("hint: %s passes but is not in %s" % (
            n, EXPECTED_FILE.relative_to(REPO)))
    if new:
        print("hint: %d new passes; tests/compat/torture.py "
              "--update-expected rewrites the list" % len(new))
    skipped = sum(1 for n in seen if n not in expected and n not in new)
    skipped += len(new)
    for p in run.problems:
        failed += 1
        print("FAILED %s" % p)
    print("torture: %.0f s for %d subtests in %d suites"
          % (sum(run.seconds.values()), len(seen), len(run.suites)))
    print("torture: %d passed, %d failed, %d skipped" % (passed, failed,
                                                          skipped))
    return 1 if failed else 0


def update_expected(args):
    run = Run(TortureRingsmb, ringsmb_suites(args), args.out_dir,
              args.budget).execute()
    if run.problems:
        print("not updating %s: the server had problems" % EXPECTED_FILE)
        return 1
    header = []
    if EXPECTED_FILE.exists():
        for line in EXPECTED_FILE.read_text().splitlines():
            if not line.startswith("#"):
                break
            header.append(line)
    names = []
    for suite in run.suites:
        names += [n for n, r in run.results[suite.name].items()
                  if r.status == PASS]
    EXPECTED_FILE.write_text("".join(l + "\n" for l in header + names))
    print("%s: %d subtests" % (EXPECTED_FILE.relative_to(REPO), len(names)))
    return 0


# -------------------------------------------------------------- compare

def md_code(text):
    return "`%s`" % text.replace("`", "'") if text else "(no message)"


def write_report(path, suites, rs, sa, versions, elapsed, matrix=None):
    reasons = load_reasons()
    today = datetime.date.today().isoformat()
    L = []
    L.append("# smbtorture: ringsmb against Samba\n")
    L.append("Generated by `make compat` (tests/compat/torture.py) on %s; "
             "do not edit by hand — reasons for failures live in "
             "`tests/compat/reasons.json`.\n" % today)
    L.append("- smbtorture: %s" % versions["smbtorture"])
    L.append("- ringsmb: %s" % versions["ringsmb"])
    L.append("- Samba: %s" % versions["samba"])
    L.append("- setup: each server on 127.0.0.1 with its own temporary "
             "config and port, an empty writable share `[share]` "
             "(`read only = no`), user `%s` with a password (ringsmb: its "
             "smbpasswd file; Samba: tdbsam; both: a Unix account). Samba "
             "is configured as admins run it: `vfs objects = acl_xattr "
             "streams_xattr`, `store dos attributes = yes`; ringsmb's "
             "share has the same `vfs objects`." % USER)
    L.append("- limits per suite and per subtest: `tests/compat/suites.txt`"
             "; run took %.0f s (ringsmb %.0f s, Samba %.0f s)\n"
             % (elapsed["all"], elapsed["ringsmb"], elapsed["samba"]))
    for run in (rs, sa):
        for p in run.problems:
            L.append("**%s: %s**\n" % (run.kind, p))
    L.append("| suite | subtests | ringsmb passed | Samba passed | "
             "Samba only | ringsmb only |")
    L.append("|---|---:|---:|---:|---:|---:|")
    tot = [0] * 5
    gaps, extras = [], []
    for s in suites:
        r, m = rs.results.get(s.name, {}), sa.results.get(s.name, {})
        names = list(m) + [n for n in r if n not in m]
        rp = {n for n in names if n in r and r[n].status == PASS}
        sp = {n for n in names if n in m and m[n].status == PASS}
        g = [n for n in names if n in sp and n not in rp]
        x = [n for n in names if n in rp and n not in sp]
        gaps.append((s.name, g, r))
        extras.append((s.name, x, m))
        row = [len(names), len(rp), len(sp), len(g), len(x)]
        tot = [a + b for a, b in zip(tot, row)]
        L.append("| %s | %d | %d | %d | %d | %d |" % ((s.name,) + tuple(row)))
    L.append("| **total** | %d | %d | %d | %d | %d |\n" % tuple(tot))
    L.append("## Passed by Samba, not by ringsmb\n")
    L.append("Goal: this section empty. Each line: the subtest, the "
             "reason from `tests/compat/reasons.json` where one applies, "
             "and the first line of ringsmb's failure message (in "
             "backquotes).\n")
    for suite, g, r in gaps:
        if not g:
            continue
        L.append("### %s (%d)\n" % (suite, len(g)))
        for n in g:
            res = r.get(n)
            msg = res.first_line() if res else "not run"
            why = reason_for(n, msg, reasons)
            line = md_code(msg)
            if res and res.status == SKIP:
                line = "skipped: " + line
            if why:
                line = "%s — %s" % (why, line)
            L.append("- %s — %s" % (n, line))
        L.append("")
    L.append("## Passed by ringsmb, not by Samba\n")
    any_x = False
    for suite, x, m in extras:
        for n in x:
            any_x = True
            res = m.get(n)
            L.append("- %s — Samba: %s" % (
                n, md_code(res.first_line()) if res else "not run"))
    if not any_x:
        L.append("(none)")
    L.append("")
    if matrix is not None:
        L += access.section(matrix)
    path.write_text("\n".join(L))
    return tot


def compare(args):
    suites = load_suites(only=args.suite)
    # ringsmb with the gate's hang limits, Samba with the Samba-sized ones
    rs = Run(TortureRingsmb, ringsmb_suites(args), args.out_dir,
             args.budget)
    sa = Run(TortureSamba, suites, args.out_dir, args.budget)
    if args.reuse:
        rs.load()
        sa.load()
        matrix, mproblems = access.load(args.out_dir), []
    else:
        rs.execute()
        sa.execute()
        matrix, mproblems = access.run(args.out_dir)
    versions = {"smbtorture": smbtorture_version(), "ringsmb": rs.version,
                "samba": sa.version}
    elapsed = {"ringsmb": sum(rs.seconds.values()),
               "samba": sum(sa.seconds.values())}
    elapsed["all"] = elapsed["ringsmb"] + elapsed["samba"]
    tot = write_report(Path(args.report), suites, rs, sa, versions, elapsed,
                       matrix)
    print("wrote %s: %d subtests, ringsmb passed %d, Samba passed %d, "
          "Samba only %d, ringsmb only %d" % ((args.report,) + tuple(tot)))
    print("raw smbtorture output in %s" % args.out_dir)
    for p in mproblems:
        print(p)
    if rs.problems or sa.problems:
        print("server problems: %s" % "; ".join(rs.problems + sa.problems))
        return 1
    if mproblems:
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--compare", action="store_true",
                      help="ringsmb and Samba; write the report")
    mode.add_argument("--gate", action="store_true",
                      help="ringsmb against expected-pass.txt")
    mode.add_argument("--update-expected", action="store_true",
                      help="rewrite expected-pass.txt from a ringsmb run")
    ap.add_argument("--smbd", help="ringsmb binary (default $RINGSMB_SMBD "
                    "or bin/smbd)")
    ap.add_argument("--report", default=str(REPORT_FILE))
    ap.add_argument("--out-dir", default=str(REPO / "build" / "torture"),
                    help="raw smbtorture output per suite")
    ap.add_argument("--suite", action="append",
                    help="run only this suite (repeatable; for debugging)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --compare: rewrite the report from the "
                    "results.json files of the last run (e.g. after "
                    "editing reasons.json)")
    ap.add_argument("--budget", type=float,
                    help="seconds for all suites against one server")
    args = ap.parse_args()
    if args.smbd:
        os.environ["RINGSMB_SMBD"] = str(Path(args.smbd).resolve())
    if args.budget is None:
        args.budget = COMPARE_BUDGET if args.compare else GATE_BUDGET
    if not servers.ringsmb_binary().exists():
        print("ringsmb binary %s not found" % servers.ringsmb_binary())
        return 1
    if args.compare:
        return compare(args)
    if args.gate:
        return gate(args)
    return update_expected(args)


if __name__ == "__main__":
    sys.exit(main())
