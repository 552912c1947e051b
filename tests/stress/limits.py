"""G4 (memory), G5 (timeouts), G7 (cleanup): what idle, stalled and
vanished clients cost.

- PDU caps: an NBT header declaring one byte more than `smb2 untrusted
  max pdu` (68 KiB by default: a 64 KiB WRITE and its headers) before
  NEGOTIATE, and after an anonymous logon: the server must close the
  connection without taking the body.
- 1,000 idle connections after NEGOTIATE, then 1,000 idle user sessions
  (a real Unix account, NTLMv2, signed, through smbprotocol): the
  server's RSS before and with them open, per connection.
- Timeouts, all at once: a partial NBT header, a partial PDU, a
  NEGOTIATE with nothing after it, an anonymous session with nothing
  after it: the time until the server closes each.  Meanwhile 1,000
  slowloris connections stall mid-header (T4) and a good client sends
  an ECHO every 50 ms: its round-trip percentiles.
- Cleanup after an RST (T9, G7): a deny-all open with a byte-range lock
  (another client must get both within 1 s), half of an 8 MiB WRITE
  (nothing of it on disk), a durable v2 open with a 3 s timeout (closed
  at 3 +- 1 s).
- The four slow bad-input cases (drip-fed NEGOTIATE; a partial PDU, a
  partial SMB2 header or half the NBT length, then silence:
  tests/integration/badinput/transport.json) run beside it with
  RINGSMB_SLOW=1, against their own server.
"""
import os
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from common import (R, REPO, probe, rss_kib, start_server, stop_server)

IDLE = 1000
SLOWLORIS = 1000
TIMEOUT_BOUND = 90          # seconds: every wait below ends by then
USER, PASSWORD = "rsmbstress", "Stress-pw-17"


def raise_nofile(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))


def closed(sock, wait):
    """Whether the peer closed sock within wait seconds."""
    sock.settimeout(wait)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (socket.timeout, TimeoutError):
        return False


def pdu_cap(port, limit, after_logon):
    """Only an NBT header declaring one byte more than allowed: the
    seconds until the server closes the connection (it must not wait for
    the body), or None when it was still open after 5 s.  Before a logon
    the limit is `limit`; after an anonymous logon it is the size
    NEGOTIATE promised (docs/architecture.md, "Untrusted PDU size"): the
    largest of MaxRead, MaxWrite, MaxTransact, plus 64 KiB."""
    if after_logon:
        c = R.Conn("127.0.0.1", port, timeout=10)
        c.negotiate()
        c.session_setup_anonymous()
        s = c.sock
        limit = max(c.max_read, c.max_write, c.max_transact) + 65536
    else:
        s = socket.create_connection(("127.0.0.1", port), 10)
    try:
        t = time.monotonic()
        s.sendall(struct.pack(">I", limit + 1))
        return round(time.monotonic() - t, 3) if closed(s, 5) else None
    finally:
        s.close()


def negotiated(port):
    c = R.Conn("127.0.0.1", port, timeout=10)
    c.negotiate()
    return c


def idle_negotiated(srv):
    """RSS with IDLE connections after NEGOTIATE, per connection."""
    conns = []
    time.sleep(1)
    rss0 = rss_kib(srv.pid)
    try:
        for _ in range(IDLE):
            conns.append(negotiated(srv.port))
        time.sleep(2)
        rss1 = rss_kib(srv.pid)
    finally:
        for c in conns:
            c.close()
    return len(conns), rss0, rss1


def add_user(srv):
    made = subprocess.run(["id", USER], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0
    if made:
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", USER],
                       check=True, capture_output=True)
    from conftest import tool_binary
    p = subprocess.run([str(tool_binary("smbpasswd")), "-c", str(srv.conf),
                        "-s", "-a", USER],
                       input=("%s\n%s\n" % (PASSWORD, PASSWORD)).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=30)
    if p.returncode != 0:
        raise RuntimeError("smbpasswd -a: %s" % p.stdout.decode())
    return made


def idle_sessions(srv):
    """RSS with IDLE signed user sessions (smbprotocol), per connection."""
    import uuid
    from smbprotocol.connection import Connection, Dialects
    from smbprotocol.session import Session
    conns = []
    time.sleep(1)
    rss0 = rss_kib(srv.pid)
    errors = 0
    try:
        for _ in range(IDLE):
            c = Connection(uuid.uuid4(), "127.0.0.1", srv.port,
                           require_signing=True)
            try:
                c.connect(Dialects.SMB_3_1_1, timeout=10)
                Session(c, username=USER, password=PASSWORD,
                        auth_protocol="ntlm").connect()
                conns.append(c)
            except Exception:              # noqa: BLE001 (counted)
                errors += 1
                c.disconnect(False)
        time.sleep(2)
        rss1 = rss_kib(srv.pid)
    finally:
        for c in conns:
            try:
                c.disconnect(False)
            except Exception:              # noqa: BLE001
                pass
    return len(conns), errors, rss0, rss1


# ------------------------------------------------ cleanup after an RST (G7)

RW_SHARE = "rw"
GENERIC_RW = 0x0012019F
STATUS_SHARING_VIOLATION = 0xC0000043
STATUS_LOCK_NOT_GRANTED = 0xC0000055


def rst(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    struct.pack("ii", 1, 0))
    sock.close()


def anon_rw(port):
    c = R.Conn("127.0.0.1", port, timeout=10)
    c.negotiate()
    c.session_setup_anonymous()
    c.tree_connect(RW_SHARE)
    return c


def lock_x_fi(c, fid):
    """An exclusive, fail-immediately lock of byte 0: its status."""
    return c.request("LOCK", R.body_for("LOCK", file_id=fid, lock_offset=0,
                                        lock_length=1,
                                        lock_flags=0x02 | 0x10)).status


def open_lock_freed(port):
    """A deny-all open holding a byte-range lock, its connection reset:
    seconds until another client opens the file for writing and takes
    the same lock (polled every 10 ms), or None after 5 s."""
    a = anon_rw(port)
    fid = a.create("held.bin", desired_access=GENERIC_RW, share_access=0,
                   disposition=5)
    if lock_x_fi(a, fid) != 0:
        raise RuntimeError("the first lock was not granted")
    b = anon_rw(port)
    r = b.request("CREATE", R.create_body(
        "held.bin", desired_access=GENERIC_RW, share_access=7,
        disposition=1))
    if r.status != STATUS_SHARING_VIOLATION:
        raise RuntimeError("the deny-all open did not hold: 0x%08x"
                           % r.status)
    t0 = time.monotonic()
    rst(a.sock)
    try:
        while time.monotonic() - t0 < 5:
            r = b.request("CREATE", R.create_body(
                "held.bin", desired_access=GENERIC_RW, share_access=7,
                disposition=1))
            if r.status == 0:
                fid = r.body[64:80]
                while time.monotonic() - t0 < 5:
                    if lock_x_fi(b, fid) == 0:
                        return round(time.monotonic() - t0, 3)
                    time.sleep(0.01)
                return None
            if r.status != STATUS_SHARING_VIOLATION:
                raise RuntimeError("CREATE answered 0x%08x" % r.status)
            time.sleep(0.01)
        return None
    finally:
        b.close()


def half_write_rst(port, d):
    """Half of an 8 MiB WRITE, then an RST: the bytes of the file (copy
    mode writes nothing of a WRITE that did not arrive whole)."""
    c = anon_rw(port)
    c.expect(c.request("ECHO", credit_request=256))
    fid = c.create("half.bin", desired_access=GENERIC_RW, disposition=5)

    def write_pdu(offset, size):
        hdr = c.header(R.CMD["WRITE"], credit_charge=(size + 65535) // 65536)
        body = R._pack(R.WRITE_FIELDS, {"length": size, "offset": offset,
                                        "file_id": fid})
        c.next_mid += (size + 65535) // 65536
        return struct.pack(">I", 64 + len(body) + size) + hdr + body
    # the same construction, whole: it must land (else the check below
    # would pass for a malformed PDU)
    c.send(write_pdu(0, 65536) + b"\xcd" * 65536)
    c.expect(c.recv()[0])
    c.send(write_pdu(65536, 8 << 20))
    chunk = b"\xab" * (1 << 20)
    for _ in range(4):
        c.send(chunk)
    time.sleep(0.2)
    rst(c.sock)
    time.sleep(1)
    return os.path.getsize(os.path.join(d, "half.bin")) - 65536


def durable_timeout(srv, seconds):
    """A durable v2 open (batch oplock, delete-on-close) of a user whose
    connection is reset: seconds until the server closes it (the file,
    delete-on-close, disappears; polled every 20 ms), or None."""
    import uuid
    from smbprotocol.connection import Connection, Dialects
    from smbprotocol.open import CreateOptions
    from smbprotocol.session import Session
    from smbprotocol.tree import TreeConnect
    from test_durable import dh2q, durable_open

    class C:
        pass
    c = C()
    c.conn = Connection(uuid.uuid4(), "127.0.0.1", srv.port,
                        require_signing=True)
    c.conn.connect(Dialects.SMB_3_1_1, timeout=10)
    c.sess = Session(c.conn, username=USER, password=PASSWORD,
                     auth_protocol="ntlm")
    c.sess.connect()
    c.tree = TreeConnect(c.sess, r"\\127.0.0.1\%s" % RW_SHARE)
    c.tree.connect()
    name = "durable-%s.bin" % uuid.uuid4().hex[:8]
    f, _ = durable_open(c, name, [dh2q(uuid.uuid4(), int(seconds * 1000))],
                        CreateOptions.FILE_DELETE_ON_CLOSE)
    f.write(b"held", 0)
    path = os.path.join(srv.rw_dir, name)
    t0 = time.monotonic()
    # RST: linger 0, then smbprotocol's own shutdown and close (a bare
    # close would wait for its receive thread's recv on the socket)
    c.conn.transport._sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
    c.conn.disconnect(False)
    while time.monotonic() - t0 < seconds + 10:
        if not os.path.exists(path):
            return round(time.monotonic() - t0, 2)
        time.sleep(0.02)
    return None


def time_to_close(start, sock, out, key):
    ok = closed(sock, TIMEOUT_BOUND)
    out[key] = round(time.monotonic() - start, 1) if ok else None
    sock.close()


def echo_rtts(port, stop, out):
    c = R.Conn("127.0.0.1", port, timeout=5)
    c.negotiate()
    c.session_setup_anonymous()
    rtts = []
    while not stop.is_set():
        t = time.monotonic()
        try:
            c.request("ECHO")
        except Exception as e:             # noqa: BLE001
            out["echo_error"] = "%s: %s" % (type(e).__name__, e)
            break
        rtts.append((time.monotonic() - t) * 1000)
        time.sleep(0.05)
    c.close()
    out["rtts"] = rtts


def pct(xs, p):
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(len(xs) * p / 100))], 2) \
        if xs else None


def timeouts_and_slowloris(srv):
    """Four lone stalls and SLOWLORIS stalled headers; ECHO meanwhile."""
    out = {}
    threads = []
    t0 = time.monotonic()
    # a partial NBT header; a header and part of its PDU
    for key, data in (("partial_header", b"\x00\x00"),
                      ("partial_pdu", struct.pack(">I", 200) + b"\xfeSMB")):
        s = socket.create_connection(("127.0.0.1", srv.port), 10)
        s.sendall(data)
        threads.append(threading.Thread(target=time_to_close,
                                        args=(t0, s, out, key)))
    c = negotiated(srv.port)
    threads.append(threading.Thread(target=time_to_close,
                                    args=(t0, c.sock, out, "negotiated")))
    a = negotiated(srv.port)
    a.session_setup_anonymous()
    threads.append(threading.Thread(target=time_to_close,
                                    args=(t0, a.sock, out, "anonymous")))
    stalled = []
    for i in range(SLOWLORIS):
        try:
            s = socket.create_connection(("127.0.0.1", srv.port), 10)
            s.sendall(b"\x00\x00\x01")
            stalled.append(s)
        except OSError:
            out["slowloris_refused"] = out.get("slowloris_refused", 0) + 1
    stop = threading.Event()
    echo = threading.Thread(target=echo_rtts, args=(srv.port, stop, out))
    for t in threads + [echo]:
        t.start()
    for t in threads:
        t.join(TIMEOUT_BOUND + 10)
    # the stalled ones: closed by now?
    still = sum(1 for s in stalled if not closed(s, 0.01))
    stop.set()
    echo.join(15)
    for s in stalled:
        s.close()
    out["slowloris_open_after"] = still
    out["slowloris"] = len(stalled)
    return out


def slow_badinput(binary):
    """The three slow bad-input cases, against their own server."""
    env = dict(os.environ, RINGSMB_SLOW="1", RINGSMB_SMBD=str(binary))
    p = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/integration/test_badinput.py", "-k",
         "drip-whole-negotiate-50ms or partial-pdu-then-silence or "
         "partial-header-then-silence or partial-nbt-length-then-silence"],
        cwd=str(REPO), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    return p


def run(tree, long_mode, binary):
    problems = []
    raise_nofile(8192)
    bad = slow_badinput(binary)
    scratch = tempfile.mkdtemp(prefix="ringsmb-limits-")
    os.chmod(scratch, 0o755)            # the guest reaches rw through it
    passwd = os.path.join(scratch, "smbpasswd")
    rw = os.path.join(scratch, "rw")
    os.mkdir(rw)
    os.chmod(rw, 0o777)
    srv = start_server(tree, binary, "default",
                       {"smb passwd file": passwd},
                       shares=[{"name": RW_SHARE, "path": rw,
                                "read_only": False}])
    srv.rw_dir = rw
    fig = {}
    made_user = False
    try:
        limit = 69632
        fig["pdu_cap"] = limit
        fig["pdu_pre_negotiate_s"] = pdu_cap(srv.port, limit, False)
        fig["pdu_anonymous_s"] = pdu_cap(srv.port, limit, True)
        n, r0, r1 = idle_negotiated(srv)
        fig.update(idle_negotiated=n, idle_neg_rss0_mib=round(r0 / 1024, 1),
                   idle_neg_delta_mib=round((r1 - r0) / 1024, 1),
                   idle_neg_kib_each=round((r1 - r0) / max(n, 1), 1))
        made_user = add_user(srv)
        n, errs, r0, r1 = idle_sessions(srv)
        fig.update(idle_sessions=n, idle_session_errors=errs,
                   idle_sess_delta_mib=round((r1 - r0) / 1024, 1),
                   idle_sess_kib_each=round((r1 - r0) / max(n, 1), 1))
        fig["open_lock_freed_s"] = open_lock_freed(srv.port)
        fig["half_write_bytes"] = half_write_rst(srv.port, rw)
        fig["durable_timeout_asked_s"] = 3
        fig["durable_closed_s"] = durable_timeout(srv, 3)
        fig.update(timeouts_and_slowloris(srv))
        err = probe(srv.port, tree)
        if err:
            problems.append(err)
    finally:
        stop_server(srv, problems)
        if made_user:
            subprocess.run(["userdel", USER], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        out, _ = bad.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        bad.kill()
        out, _ = bad.communicate()
    last = out.decode(errors="replace").strip().splitlines()[-1:]
    fig["slow_badinput"] = last[0] if last else "no output"
    if bad.returncode != 0:
        problems.append("slow bad-input cases: %s" % fig["slow_badinput"])
    rtts = fig.pop("rtts", [])
    fig.update(echo_n=len(rtts), echo_p50_ms=pct(rtts, 50),
               echo_p99_ms=pct(rtts, 99),
               echo_max_ms=round(max(rtts), 1) if rtts else None)
    print("  a header declaring one byte more than allowed, no body: "
          "closed after %(pdu_pre_negotiate_s)s s before NEGOTIATE (limit "
          "%(pdu_cap)d), %(pdu_anonymous_s)s s after an anonymous logon "
          "(limit: the negotiated size + 64 KiB)" % fig)
    print("  %(idle_negotiated)d idle negotiated connections: +%(idle_neg_"
          "delta_mib)s MiB (%(idle_neg_kib_each)s KiB each); "
          "%(idle_sessions)d idle signed user sessions: +%(idle_sess_delta"
          "_mib)s MiB (%(idle_sess_kib_each)s KiB each)" % fig)
    print("  closed after (s): partial header %s, partial PDU %s, "
          "NEGOTIATE only %s, anonymous session %s; slowloris %d stalled, "
          "%d still open at the end" % (
              fig.get("partial_header"), fig.get("partial_pdu"),
              fig.get("negotiated"), fig.get("anonymous"),
              fig["slowloris"], fig["slowloris_open_after"]))
    print("  ECHO meanwhile: %(echo_n)d, p50 %(echo_p50_ms)s ms, p99 "
          "%(echo_p99_ms)s ms, max %(echo_max_ms)s ms" % fig)
    print("  slow bad-input cases: %s" % fig["slow_badinput"])
    print("  after an RST: a deny-all open and its lock freed in %s s; "
          "half an 8 MiB WRITE left %s bytes; a durable open (3 s) closed "
          "after %s s" % (fig["open_lock_freed_s"],
                          fig["half_write_bytes"], fig["durable_closed_s"]))
    if fig["open_lock_freed_s"] is None or fig["open_lock_freed_s"] > 1:
        problems.append("open and lock freed after %s s, bound 1 s"
                        % fig["open_lock_freed_s"])
    if fig["half_write_bytes"] != 0:
        problems.append("half a WRITE left %d bytes on disk"
                        % fig["half_write_bytes"])
    dur = fig["durable_closed_s"]
    if dur is None or abs(dur - 3) > 1:
        problems.append("durable open closed after %s s, asked 3 s" % dur)
    for k, bound in (("partial_header", 30), ("partial_pdu", 30),
                     ("negotiated", 60), ("anonymous", 60)):
        v = fig.get(k)
        if v is None or v > bound + 2:
            problems.append("%s: closed after %s s, bound %d s"
                            % (k, v, bound))
    for k in ("pdu_pre_negotiate_s", "pdu_anonymous_s"):
        if fig[k] is None:
            problems.append("%s: the connection stayed open" % k)
    if fig["slowloris_open_after"]:
        problems.append("%d slowloris connections still open"
                        % fig["slowloris_open_after"])
    if fig["idle_session_errors"]:
        problems.append("%d user sessions failed"
                        % fig["idle_session_errors"])
    if "echo_error" in fig:
        problems.append("ECHO client: %s" % fig["echo_error"])
    return fig, problems
