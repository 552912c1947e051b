"""The admin's tools against a running smbd (issue 16): smbstatus (text
and --json) after real smbclient and smbprotocol sessions with open
files, leases and byte-range locks; smbcontrol ping, debug, reload-config,
close-share, kill-client-ip and shutdown; the control socket refusing
non-root callers; the Prometheus endpoint scraped and parsed with
prometheus_client's own parser, its counters moving with traffic.
ringsmb only: Samba's smbstatus reads its tdbs, not our socket."""
import json
import os
import pwd
import re
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

import accounts
from conftest import (SANITIZER_MARKERS, SMBCLIENT, TARGET, finish_server,
                      free_port, make_server, tool_binary)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's control socket and tools")

USER, PASSWORD = accounts.name("alice"), "S3cret-pw"


def tool(srv, name, *args, timeout=30):
    cmd = [str(tool_binary(name)), "-s", str(srv.conf)] + list(args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def status_json(srv):
    rc, out, err = tool(srv, "smbstatus", "--json")
    assert rc == 0, err
    return json.loads(out)


def add_user(srv):
    p = subprocess.run([str(tool_binary("smbpasswd")), "-c", str(srv.conf),
                        "-s", "-a", USER],
                       input=("%s\n%s\n" % (PASSWORD, PASSWORD)).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=30)
    assert p.returncode == 0, p.stdout


@pytest.fixture(scope="module")
def admin_server(share_tree, accounts):
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    port = free_port()
    rw = Path(tempfile.mkdtemp(prefix="ringsmb-admin-rw-"))
    rw.chmod(0o777)
    srv = make_server(share_tree, "default", {
        "smb passwd file": str(passwd),
        "metrics listen": "127.0.0.1:%d" % port,
    }, shares=[{"name": "rw", "path": str(rw), "read_only": False}])
    srv.metrics_port = port
    add_user(srv)
    yield srv
    finish_server(srv)


class Client:
    """An smbprotocol session on //127.0.0.1/share, signed."""

    def __init__(self, srv, share="share"):
        from smbprotocol.connection import Connection
        from smbprotocol.session import Session
        from smbprotocol.tree import TreeConnect
        self.conn = Connection(uuid.uuid4(), "127.0.0.1", srv.port,
                               require_signing=True)
        self.conn.connect(timeout=10)
        self.sess = Session(self.conn, USER, PASSWORD,
                            require_encryption=False)
        self.sess.connect()
        self.tree = TreeConnect(self.sess, r"\\127.0.0.1\%s" % share)
        self.tree.connect()

    def open(self, name, write=False, oplock=None):
        from smbprotocol.open import (CreateDisposition, CreateOptions,
                                      FilePipePrinterAccessMask,
                                      ImpersonationLevel, Open,
                                      RequestedOplockLevel, ShareAccess)
        f = Open(self.tree, name)
        access = FilePipePrinterAccessMask.GENERIC_READ
        if write:
            access |= FilePipePrinterAccessMask.GENERIC_WRITE
        f.create(ImpersonationLevel.Impersonation, access, 0,
                 ShareAccess.FILE_SHARE_READ,
                 CreateDisposition.FILE_OPEN_IF if write else
                 CreateDisposition.FILE_OPEN,
                 CreateOptions.FILE_NON_DIRECTORY_FILE,
                 oplock_level=oplock if oplock is not None else
                 RequestedOplockLevel.SMB2_OPLOCK_LEVEL_NONE)
        return f

    def close(self):
        try:
            self.conn.disconnect()
        except Exception:
            pass


def lock(f, offset, length, exclusive=True):
    from smbprotocol.open import LockFlags, SMB2LockElement
    e = SMB2LockElement()
    e["offset"] = offset
    e["length"] = length
    e["flags"] = (LockFlags.SMB2_LOCKFLAG_EXCLUSIVE_LOCK if exclusive else
                  LockFlags.SMB2_LOCKFLAG_SHARED_LOCK) | \
        LockFlags.SMB2_LOCKFLAG_FAIL_IMMEDIATELY
    f.lock([e])


def test_status_shows_session_tree_open_and_locks(admin_server):
    from smbprotocol.open import RequestedOplockLevel
    c = Client(admin_server, "rw")
    try:
        f = c.open("status-a.txt", write=True,
                   oplock=RequestedOplockLevel.SMB2_OPLOCK_LEVEL_BATCH)
        f.write(b"0123456789" * 10, 0)
        lock(f, 10, 20)
        lock(f, 40, 5, exclusive=False)
        j = status_json(admin_server)
        assert j["pid"] == admin_server.proc.pid
        mine = [s for s in j["sessions"].values() if s["username"] == USER]
        assert len(mine) == 1, j["sessions"]
        s = mine[0]
        assert s["session_dialect"] == "SMB3_11"
        assert s["signing"]["degree"] == "full"
        assert s["signing"]["cipher"] in ("AES-128-CMAC", "AES-128-GMAC")
        assert s["encryption"]["degree"] == "none"
        assert s["remote_machine"] == "127.0.0.1"
        assert s["uid"] == pwd.getpwnam(USER).pw_uid
        assert s["bytes_in"] > 100 and s["bytes_out"] > 100
        tcons = [t for t in j["tcons"].values()
                 if t["session_id"] == s["session_id"]]
        assert [t["service"] for t in tcons] == ["rw"]
        assert tcons[0]["open_files"] == 1
        opens = [o for o in j["open_files"].values()
                 if o["session_id"] == s["session_id"]]
        assert len(opens) == 1
        o = opens[0]
        assert o["filename"] == "status-a.txt"
        assert o["share"] == "rw"
        assert o["rw"] == "RDWR"
        assert o["deny_mode"] == "DENY_WRITE"       # share read only
        assert int(o["access_mask"], 16) & 0x3 == 0x3
        assert o["oplock"] == "BATCH"
        st = os.stat(Path(o["service_path"]) / "status-a.txt")
        assert o["fileid"]["inode"] == st.st_ino
        locks = sorted((b["start"], b["size"], b["type"])
                       for b in j["byte_range_locks"]
                       if b["session_id"] == s["session_id"])
        assert locks == [(10, 20, "write"), (40, 5, "read")]

        rc, out, err = tool(admin_server, "smbstatus")
        assert rc == 0, err
        assert re.search(r"^%d\s+%s\s+\S+\s+127\.0\.0\.1 \(ipv4:127\.0\.0\.1:"
                         r"\d+\)\s+SMB3_11\s+-\s+AES-128-[CG]MAC"
                         % (admin_server.proc.pid, USER), out, re.M), out
        assert re.search(r"^rw\s+%d\s+127\.0\.0\.1\s+"
                         % admin_server.proc.pid, out, re.M), out
        assert re.search(r"^%d\s+%d\s+DENY_WRITE\s+0x[0-9a-f]+\s+RDWR\s+BATCH"
                         r"\s+\S+\s+status-a\.txt\s+"
                         % (admin_server.proc.pid, pwd.getpwnam(USER).pw_uid),
                         out, re.M), out
        assert re.search(r"^%d\s+\d+:%d\s+W\s+10\s+20\s+"
                         % (admin_server.proc.pid, st.st_ino), out, re.M), out

        # -L alone: no session table; -b alone: no locked files
        rc, out, _ = tool(admin_server, "smbstatus", "-L")
        assert "Locked files:" in out and "Username" not in out
        rc, out, _ = tool(admin_server, "smbstatus", "-b")
        assert "Username" in out and "Locked files:" not in out
        f.close()
    finally:
        c.close()
    # gone from the list once the client is
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        j = status_json(admin_server)
        if not any(s["username"] == USER for s in j["sessions"].values()):
            break
        time.sleep(0.1)
    assert not any(s["username"] == USER for s in j["sessions"].values())
    assert j["byte_range_locks"] == []


def test_status_shows_smbclient_session(admin_server):
    """A real smbclient, kept open on its prompt, is listed with the file
    it holds open (smbclient's `open` command)."""
    p = subprocess.Popen([SMBCLIENT, "//127.0.0.1/share", "-p",
                          str(admin_server.port), "-U",
                          "%s%%%s" % (USER, PASSWORD)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    try:
        p.stdin.write(b"open m1.bin\n")
        p.stdin.flush()
        deadline = time.monotonic() + 20
        found = None
        while time.monotonic() < deadline and found is None:
            j = status_json(admin_server)
            found = next((o for o in j["open_files"].values()
                          if o["filename"] == "m1.bin"), None)
            time.sleep(0.1)
        assert found is not None, j
        assert found["username"] == USER
        s = [s for s in j["sessions"].values()
             if s["session_id"] == found["session_id"]][0]
        assert s["session_dialect"] == "SMB3_11"
    finally:
        p.stdin.close()
        p.wait(timeout=20)


def test_status_refused_to_non_root(admin_server):
    """nobody may read the configuration, not ask the daemon."""
    d = Path(tempfile.mkdtemp(prefix="ringsmb-admin-conf-"))
    try:
        d.chmod(0o755)
        conf = d / "smb.conf"
        conf.write_text(admin_server.conf.read_text())
        conf.chmod(0o644)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                            "--clear-groups", str(tool_binary("smbstatus")),
                            "-s", str(conf)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        err = p.stderr.decode()
        assert p.returncode == 1
        assert "cannot reach smbd" in err and "Permission denied" in err, err
    finally:
        conf.unlink()
        d.rmdir()


def test_control_checks_credentials_itself(admin_server):
    """Even with the socket file opened to everyone (an admin's chmod),
    smbd answers nobody but root: it checks SO_PEERCRED, not only the
    file mode."""
    sock = admin_server.tmp / "lock" / "smbd.ctl"
    d = Path(tempfile.mkdtemp(prefix="ringsmb-admin-conf-"))
    conf = d / "smb.conf"
    try:
        d.chmod(0o755)
        conf.write_text(admin_server.conf.read_text())
        conf.chmod(0o644)
        for p in (admin_server.tmp, admin_server.tmp / "lock"):
            p.chmod(p.stat().st_mode | 0o755)
        sock.chmod(0o666)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                            "--clear-groups", str(tool_binary("smbcontrol")),
                            "-s", str(conf), "smbd", "shutdown"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30)
        assert p.returncode == 1
        assert b"it answers root only" in p.stderr, p.stderr
        assert admin_server.alive()
        rc, out, err = tool(admin_server, "smbcontrol", "smbd", "ping")
        assert rc == 0, err
    finally:
        sock.chmod(0o600)
        admin_server.tmp.chmod(0o700)
        conf.unlink()
        d.rmdir()


def test_status_without_daemon(tmp_path):
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n  lock directory = %s\n" % tmp_path)
    p = subprocess.run([str(tool_binary("smbstatus")), "-s", str(conf)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    assert p.returncode == 1
    assert ("cannot reach smbd at %s/smbd.ctl" % tmp_path).encode() in \
        p.stderr
    assert b"is smbd running?" in p.stderr


def test_smbcontrol_ping_and_debug(admin_server):
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "ping")
    assert rc == 0, err
    assert out.strip() == "PONG from pid %d" % admin_server.proc.pid
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "debug", "4")
    assert rc == 0, err
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "debuglevel")
    assert rc == 0, err
    assert re.match(r"PID %d: .*\b4\b" % admin_server.proc.pid, out), out
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "debug", "x")
    assert rc == 1 and "debug" in err, err
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "debug", "2")
    assert rc == 0, err
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "frobnicate")
    assert rc == 1 and "unknown message" in err, err
    rc, out, err = tool(admin_server, "smbcontrol", "nmbd", "ping")
    assert rc == 1 and "unknown destination" in err, err


def wait_disconnected(c, timeout=10):
    """The server dropped c: the next request fails."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            f = c.open("m1.bin")
            f.close()
        except Exception:
            return True
        time.sleep(0.1)
    return False


def test_smbcontrol_close_share(admin_server, tmp_path):
    c = Client(admin_server)
    try:
        rc, out, err = tool(admin_server, "smbcontrol", "smbd",
                            "close-share", "nosuchshare")
        assert rc == 0, err
        f = c.open("m1.bin")     # still connected
        f.close()
        rc, out, err = tool(admin_server, "smbcontrol", "smbd",
                            "close-share", "SHARE")
        assert rc == 0, err
        assert wait_disconnected(c)
    finally:
        c.close()
    j = status_json(admin_server)
    assert not any(t["service"] == "share" for t in j["tcons"].values())
    # the server still serves
    c = Client(admin_server)
    c.close()


def test_smbcontrol_kill_client_ip(admin_server):
    c = Client(admin_server)
    try:
        rc, out, err = tool(admin_server, "smbcontrol", "smbd",
                            "kill-client-ip", "192.0.2.1")
        assert rc == 0, err
        f = c.open("m1.bin")
        f.close()
        rc, out, err = tool(admin_server, "smbcontrol", "smbd",
                            "kill-client-ip", "127.0.0.1")
        assert rc == 0, err
        assert wait_disconnected(c)
    finally:
        c.close()


def test_smbcontrol_reload_config(admin_server, tmp_path):
    from smbprotocol.exceptions import SMBResponseException
    newdir = Path(tempfile.mkdtemp(prefix="ringsmb-admin-added-"))
    newdir.chmod(0o777)     # alice's way in: /tmp, then this
    original = admin_server.conf.read_text()
    try:
        with pytest.raises(SMBResponseException):
            Client(admin_server, "added").close()
        admin_server.conf.write_text(
            original + "\n[added]\n  path = %s\n  read only = no\n" % newdir)
        rc, out, err = tool(admin_server, "smbcontrol", "smbd",
                            "reload-config")
        assert rc == 0, err
        c = Client(admin_server, "added")
        c.open("new.txt", write=True).close()
        c.close()
        assert (newdir / "new.txt").exists()
        # a broken file: refused, the old configuration kept
        admin_server.conf.write_text(original + "\n[bad]\n  path = /x\n"
                                     "  read only = maybe\n")
        # smbcontrol reads it too (for the lock directory) and says why
        rc, out, err = tool(admin_server, "smbcontrol", "smbd",
                            "reload-config")
        assert rc == 1 and 'invalid value "maybe" for parameter "read ' \
            'only"' in err, err
        # given a good file for the way in, the daemon refuses the bad one
        good = tmp_path / "good.conf"
        good.write_text(original)
        p = subprocess.run([str(tool_binary("smbcontrol")), "-s", str(good),
                            "smbd", "reload-config"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30)
        assert p.returncode == 1
        assert b"old one is kept" in p.stderr, p.stderr
        c = Client(admin_server, "added")
        c.close()
    finally:
        admin_server.conf.write_text(original)
        tool(admin_server, "smbcontrol", "smbd", "reload-config")


def scrape(srv, path="/metrics"):
    with urllib.request.urlopen("http://127.0.0.1:%d%s"
                                % (srv.metrics_port, path),
                                timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        return r.read().decode()


def families(text):
    from prometheus_client.parser import text_string_to_metric_families
    out = {}
    for fam in text_string_to_metric_families(text):
        out[fam.name] = fam
    return out


def sample(fams, family, name=None, **labels):
    for s in fams[family].samples:
        if (name is None or s.name == name) and all(
                s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise KeyError((family, name, labels))


def test_metrics_parse_and_move(admin_server, tmp_path):
    before = families(scrape(admin_server))
    # prometheus_client strips _total from counter family names
    assert before["ringsmb_requests"].type == "counter"
    assert before["ringsmb_request_duration_seconds"].type == "histogram"
    assert before["ringsmb_sessions"].type == "gauge"
    for fam in ("ringsmb_read_bytes", "ringsmb_written_bytes",
                "ringsmb_credits_granted", "ringsmb_uring_submissions",
                "ringsmb_uring_completions", "ringsmb_crypto_pool_queued",
                "ringsmb_open_files", "ringsmb_connections",
                "ringsmb_spliced_reads", "ringsmb_zerocopy_sends",
                "ringsmb_mapped_reads"):
        assert fam in before, sorted(before)
    payload = os.urandom(1 << 20)
    src = tmp_path / "up.bin"
    src.write_bytes(payload)
    p = subprocess.run([SMBCLIENT, "//127.0.0.1/rw", "-p",
                        str(admin_server.port), "-U",
                        "%s%%%s" % (USER, PASSWORD), "-c",
                        "put %s metrics-up.bin; get metrics-up.bin %s"
                        % (src, tmp_path / "down.bin")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=60)
    assert p.returncode == 0, p.stdout
    after = families(scrape(admin_server))

    def delta(family, name=None, **labels):
        return (sample(after, family, name, **labels) -
                sample(before, family, name, **labels))

    assert delta("ringsmb_requests", command="WRITE") >= 1
    assert delta("ringsmb_requests", command="READ") >= 1
    assert delta("ringsmb_requests", command="SESSION_SETUP") >= 2
    assert delta("ringsmb_written_bytes") == len(payload)
    assert delta("ringsmb_read_bytes") >= len(payload)
    assert delta("ringsmb_received_bytes") > len(payload)
    assert delta("ringsmb_sent_bytes") > len(payload)
    assert delta("ringsmb_logons") >= 1
    assert delta("ringsmb_request_duration_seconds",
                 "ringsmb_request_duration_seconds_count") >= 6
    assert delta("ringsmb_credits_granted") > 0
    # the histogram's buckets are cumulative and end at the count
    buckets = [s for s in after["ringsmb_request_duration_seconds"].samples
               if s.name.endswith("_bucket")]
    values = [s.value for s in buckets]
    assert values == sorted(values)
    assert buckets[-1].labels["le"] == "+Inf"
    assert values[-1] == sample(after, "ringsmb_request_duration_seconds",
                                "ringsmb_request_duration_seconds_count")
    if sample(after, "ringsmb_workers") > 0 and \
            delta("ringsmb_uring_submissions") == 0:
        # io_uring off on this machine: nothing submitted, nothing reaped
        assert delta("ringsmb_uring_completions") == 0
    with pytest.raises(urllib.error.HTTPError) as e:
        scrape(admin_server, "/other")
    assert e.value.code == 404


def test_metrics_listen_bad_value(tmp_path):
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n  metrics listen = localhost\n")
    p = subprocess.run([str(tool_binary("testparm")), "-s", str(conf)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    assert p.returncode == 1
    assert ('%s:2: parameter "metrics listen": "localhost" is not '
            'ADDRESS:PORT' % conf).encode() in p.stderr, p.stderr


def test_smbcontrol_shutdown(share_tree, accounts):
    srv = make_server(share_tree, "default")
    sock = srv.tmp / "lock" / "smbd.ctl"
    assert sock.exists()
    assert (sock.stat().st_mode & 0o777) == 0o600
    rc, out, err = tool(srv, "smbcontrol", "smbd", "shutdown")
    assert rc == 0, err
    assert srv.proc.wait(timeout=20) == 0
    assert not sock.exists()
    log = srv.log_text()
    assert "smbcontrol shutdown" in log
    assert not any(m in log for m in SANITIZER_MARKERS), srv.log_tail()
    srv.proc = None
    srv.cleanup()


def closed_by_peer(sock):
    """The peer closed: EOF, or a reset (it closed with our bytes
    unread)."""
    try:
        return sock.recv(100) == b""
    except ConnectionResetError:
        return True


def test_metrics_and_control_bounded(admin_server):
    """Idle clients hold at most 8 metrics slots (the 9th is closed at
    once) and are dropped after 10 s; an endless request head is cut at
    4 KiB; the control socket refuses a line over 1 KiB."""
    import socket
    idle = [socket.create_connection(("127.0.0.1",
                                      admin_server.metrics_port), 5)
            for _ in range(8)]
    try:
        time.sleep(0.3)
        extra = socket.create_connection(("127.0.0.1",
                                          admin_server.metrics_port), 5)
        extra.settimeout(5)
        assert closed_by_peer(extra)            # closed, no answer
        extra.close()
        big = idle.pop()
        big.sendall(b"GET /metrics HTTP/1.0\r\nX: " + b"a" * 5000)
        big.settimeout(5)
        assert closed_by_peer(big)
        big.close()
        idle[0].settimeout(15)
        t0 = time.monotonic()
        assert closed_by_peer(idle[0])          # the timeout
        assert 5 < time.monotonic() - t0 < 14
    finally:
        for s in idle:
            s.close()
    assert "ringsmb_requests_total" in scrape(admin_server)
    ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ctl.settimeout(5)
    ctl.connect(str(admin_server.tmp / "lock" / "smbd.ctl"))
    ctl.sendall(b"p" * 2000)
    assert closed_by_peer(ctl)
    ctl.close()
    rc, out, err = tool(admin_server, "smbcontrol", "smbd", "ping")
    assert rc == 0, err
