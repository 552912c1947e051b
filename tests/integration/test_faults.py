"""Faults under the VFS (docs/reliability.md, "Faults under the VFS"):
vfs_error (docs/vfs.md) makes the disk fail under the server, and counts
fsyncs, so that these tests can fail when the server is wrong.

- ENOSPC / EDQUOT on a WRITE: the client gets STATUS_DISK_FULL, the bytes
  acknowledged before are on disk exactly, the file's size is theirs.
- EIO on a READ or an fsync: STATUS_IO_DEVICE_ERROR, and the connection
  goes on working.
- Short pwrite / pread from the VFS: never acknowledged as whole; a short
  READ hands the client exactly what was read.
- fsync before the reply: the share logs a line per completed fsync
  (error:log) after holding it back (error:delay), so a WRITE_THROUGH or
  FLUSH answered before its fsync finished sees one line too few.  Checked
  after every reply, not at the end.

- The ring refused (RELIABILITY T11): io_uring_setup answered EPERM by a
  seccomp filter, RLIMIT_MEMLOCK at 64 KiB, `io_uring = no`,
  RINGSMB_NO_IO_URING: a 1 MiB put and get with identical checksums, the
  reason logged once.  kernel.io_uring_disabled only on request
  (RINGSMB_FAULTS_SYSCTL=1): it is machine-wide.

The VFS tests run under the three server variants: the syscall path
(default, no_io_uring) and the ring path (vfs_io_uring: vfs_error above
vfs_io_uring) differ.  ringsmb only: vfs_error is ringsmb's module.
"""
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from conftest import (TARGET, VARIANTS, finish_server, make_scratch_dir,
                      make_server, scratch_file, sha256_file)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.exceptions import SMBResponseException  # noqa: E402
from smbprotocol.open import CreateOptions  # noqa: E402

from test_write import Client, status_of  # noqa: E402

if TARGET != "ringsmb":
    pytest.skip("vfs_error is ringsmb's module", allow_module_level=True)

STATUS_DISK_FULL = 0xC000007F
STATUS_IO_DEVICE_ERROR = 0xC0000185
STATUS_SUCCESS = 0
KiB = 1024
DELAY_MS = 150          # error:delay on the counting shares


def data_of(n, seed):
    return hashlib.sha256(b"%d" % seed).digest() * (n // 32) + \
        b"x" * (n % 32)


def fault_shares(d, base):
    """The shares, each with its own vfs_error configuration."""
    def share(name, extra=None, **params):
        p = {"error:%s" % k.replace("_", " "): v for k, v in params.items()}
        p.update(extra or {})
        return {"name": name, "path": d, "read_only": False, "params": p}
    return [
        share("enospc", ops="pwrite", errno="ENOSPC", nth="3"),
        share("edquot", ops="pwrite", errno="EDQUOT", nth="2"),
        share("eioread", ops="pread", errno="EIO", nth="2", times="1"),
        share("eiosync", ops="fsync", errno="EIO"),
        share("short", ops="pwrite pread", short="yes"),
        share("random", ops="pwrite", errno="ENOSPC", probability="0.5",
              seed="7"),
        share("count", log=str(base / "count.log"), delay=str(DELAY_MS)),
        share("nosync", {"strict sync": "no"},
              log=str(base / "nosync.log"), delay=str(DELAY_MS)),
        share("bad", errno="ENOTANERRNO"),
    ]


@pytest.fixture(scope="module", params=VARIANTS)
def fsrv(request, share_tree):
    base, d = make_scratch_dir("ringsmb-faults-")
    # vfs_error opens its log as the connecting user (the guest's nobody)
    for name in ("count.log", "nosync.log"):
        scratch_file(base, name)
    shares = fault_shares(d, base)
    # vfs_error on top; under vfs_io_uring the ring module below it
    stack = "error io_uring" if request.param == "vfs_io_uring" else "error"
    for sh in shares:
        sh["params"]["vfs objects"] = stack
    srv = make_server(share_tree, request.param, shares=shares)
    srv.wdir = d
    srv.base = base
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def fsyncs(path):
    """fsyncs vfs_error saw complete (error:log), all connections."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return 0
    return sum(1 for ln in lines if ln.startswith("fsync "))


def healthy(srv, share="count"):
    """A fresh connection still works: write, read back."""
    p = scratch_file(srv.wdir, "probe-%s.bin" % share)
    with Client(srv.port, share=share) as c:
        f = c.open(p.name)
        f.write(b"alive", 0)
        assert f.read(0, 5) == b"alive"
        f.close()


# ---------------------------------------------------------- ENOSPC, EDQUOT

@pytest.mark.parametrize("share,good", [("enospc", 2), ("edquot", 1)])
def test_disk_full_keeps_acked_data(fsrv, share, good):
    """error:nth = good + 1: the first `good` WRITEs reach the disk, every
    later one fails (a full disk stays full).  EDQUOT answers DISK_FULL
    as Samba's errmap does ("Windows apps need this, not
    QUOTA_EXCEEDED")."""
    p = scratch_file(fsrv.wdir, "full-%s.bin" % share)
    chunks = [data_of(64 * KiB + i * 333, i) for i in range(good + 2)]
    acked = b""
    with Client(fsrv.port, share=share) as c:
        f = c.open(p.name)
        for i, chunk in enumerate(chunks):
            if i < good:
                assert f.write(chunk, len(acked)) == len(chunk)
                acked += chunk
            else:
                assert status_of(lambda: f.write(chunk, len(acked))) == \
                    STATUS_DISK_FULL
        # the same connection still reads what is there
        assert f.read(0, len(acked)) == acked
        f.close()
    assert os.path.getsize(p) == len(acked)
    assert sha256_file(p) == hashlib.sha256(acked).hexdigest()
    healthy(fsrv)


# ------------------------------------------------------------------- EIO

def test_eio_on_read(fsrv):
    """The 2nd pread fails once (error:nth = 2, error:times = 1)."""
    data = data_of(100 * KiB, 3)
    p = scratch_file(fsrv.wdir, "eio.bin", data)
    with Client(fsrv.port, share="eioread") as c:
        f = c.open(p.name)
        assert f.read(0, 4096) == data[:4096]
        assert status_of(lambda: f.read(4096, 4096)) == \
            STATUS_IO_DEVICE_ERROR
        assert f.read(4096, 4096) == data[4096:8192]
        assert f.read(0, len(data)) == data
        c.conn.echo(sid=c.sess.session_id)
        f.close()
    healthy(fsrv)


def test_eio_on_fsync(fsrv):
    """FLUSH and a WRITE_THROUGH WRITE answer the fsync's error."""
    p = scratch_file(fsrv.wdir, "eiosync.bin")
    with Client(fsrv.port, share="eiosync") as c:
        f = c.open(p.name)
        assert f.write(b"plain", 0) == 5       # no fsync, no error
        assert status_of(f.flush) == STATUS_IO_DEVICE_ERROR
        assert status_of(lambda: f.write(b"sync", 5, write_through=True)) \
            == STATUS_IO_DEVICE_ERROR
        assert f.read(0, 5) == b"plain"
        f.close()
    healthy(fsrv)


# ------------------------------------------------------------- short I/O

def test_short_write_never_acked(fsrv):
    """A pwrite that took half the bytes: WRITE answers DISK_FULL (never
    a count the disk does not hold); the half is on disk exactly."""
    p = scratch_file(fsrv.wdir, "short-w.bin")
    data = data_of(64 * KiB + 1, 4)
    with Client(fsrv.port, share="short") as c:
        f = c.open(p.name)
        assert status_of(lambda: f.write(data, 0)) == STATUS_DISK_FULL
        f.close()
    assert p.read_bytes() == data[:len(data) // 2]


def test_short_read_is_exact(fsrv):
    """Every pread gives half of what was asked: each READ answers what
    was read, and a client reading on gets the file exactly."""
    data = data_of(200 * KiB + 7, 5)
    p = scratch_file(fsrv.wdir, "short-r.bin", data)
    got = b""
    shorter = 0
    with Client(fsrv.port, share="short") as c:
        f = c.open(p.name)
        while len(got) < len(data):
            want = min(64 * KiB, len(data) - len(got))
            chunk = f.read(len(got), want)
            assert chunk, "empty READ at %d" % len(got)
            assert chunk == data[len(got):len(got) + len(chunk)]
            shorter += len(chunk) < want
            got += chunk
        f.close()
    assert got == data
    assert shorter > 0


def test_random_faults_are_deterministic(fsrv):
    """error:probability with error:seed: each connection (a new counter)
    fails the same WRITEs, some but not all; the file holds exactly the
    acknowledged ones."""
    patterns = []
    for run in range(2):
        p = scratch_file(fsrv.wdir, "random-%d.bin" % run, b"\0" * 40 * 16)
        expect = bytearray(b"\0" * 40 * 16)
        outcome = []
        with Client(fsrv.port, share="random") as c:
            f = c.open(p.name)
            for i in range(40):
                chunk = bytes([i + 1]) * 16
                try:
                    f.write(chunk, i * 16)
                    expect[i * 16:i * 16 + 16] = chunk
                    outcome.append(True)
                except SMBResponseException as e:
                    assert e.status == STATUS_DISK_FULL
                    outcome.append(False)
            f.close()
        assert p.read_bytes() == bytes(expect)
        patterns.append(outcome)
    assert patterns[0] == patterns[1]
    assert 0 < sum(patterns[0]) < 40


def test_bad_option_refuses_the_share(fsrv):
    """A vfs_error option it cannot read fails the tree connect and says
    which, rather than running without the fault."""
    with pytest.raises(SMBResponseException):
        Client(fsrv.port, share="bad")
    assert "error:errno = ENOTANERRNO: bad value" in fsrv.log_text()
    healthy(fsrv)


# --------------------------------------------------- fsync before reply

def test_write_through_fsyncs_before_reply(fsrv):
    """Each WRITE_THROUGH reply comes after its fsync completed: the count
    is checked after every reply.  Plain WRITEs cause no fsync."""
    log = fsrv.base / "count.log"
    p = scratch_file(fsrv.wdir, "wt.bin")
    with Client(fsrv.port, share="count") as c:
        f = c.open(p.name)
        n0 = fsyncs(log)
        off = 0
        for i in range(4):
            chunk = data_of(4 * KiB + i, i)
            assert f.write(chunk, off, write_through=True) == len(chunk)
            off += len(chunk)
            assert fsyncs(log) == n0 + i + 1, "WRITE_THROUGH %d" % i
        for i in range(3):
            assert f.write(b"plain", off) == 5
            off += 5
        assert fsyncs(log) == n0 + 4, "a plain WRITE fsynced"
        f.close()
    assert fsyncs(log) == n0 + 4


def test_write_through_open_fsyncs_before_reply(fsrv):
    """FILE_WRITE_THROUGH on the CREATE: every WRITE of that open."""
    log = fsrv.base / "count.log"
    p = scratch_file(fsrv.wdir, "wt-open.bin")
    with Client(fsrv.port, share="count") as c:
        f = c.open(p.name, options=CreateOptions.FILE_WRITE_THROUGH)
        n0 = fsyncs(log)
        for i in range(3):
            assert f.write(b"abcd", i * 4) == 4
            assert fsyncs(log) == n0 + i + 1, "WRITE %d" % i
        f.close()


def test_flush_fsyncs_before_reply(fsrv):
    """strict sync = yes (the default): each FLUSH after its fsync."""
    log = fsrv.base / "count.log"
    p = scratch_file(fsrv.wdir, "flush.bin")
    with Client(fsrv.port, share="count") as c:
        f = c.open(p.name)
        n0 = fsyncs(log)
        for i in range(3):
            assert f.write(b"data", i * 4) == 4
            assert fsyncs(log) == n0 + i
            f.flush()
            assert fsyncs(log) == n0 + i + 1, "FLUSH %d" % i
        f.close()


def test_no_fsync_without_strict_sync(fsrv):
    """strict sync = no: neither FLUSH nor a plain WRITE fsyncs.  A
    WRITE_THROUGH still does (ringsmb; Samba skips it there too)."""
    log = fsrv.base / "nosync.log"
    p = scratch_file(fsrv.wdir, "nosync.bin")
    with Client(fsrv.port, share="nosync") as c:
        f = c.open(p.name)
        n0 = fsyncs(log)
        assert f.write(b"data", 0) == 4
        f.flush()
        f.flush()
        assert fsyncs(log) == n0
        assert f.write(b"sync", 4, write_through=True) == 4
        assert fsyncs(log) == n0 + 1
        f.close()
    assert p.read_bytes() == b"datasync"


# ------------------------------------------- the ring refused (RELIABILITY T11)

# Runs smbd (argv[2:]) after making io_uring unavailable the way argv[1]
# says, without privileges: "seccomp" installs a filter answering EPERM to
# io_uring_setup (425 on x86-64 and arm64), "memlock" lowers
# RLIMIT_MEMLOCK to 64 KiB.  Both hold across the exec.
LAUNCHER = r'''
import ctypes, os, resource, struct, sys
if sys.argv[1] == "seccomp":
    code = [(0x20, 0, 0, 0),                    # A = seccomp_data.nr
            (0x15, 0, 1, 425),                  # A == io_uring_setup?
            (0x06, 0, 0, 0x00050000 | 1),       # SECCOMP_RET_ERRNO|EPERM
            (0x06, 0, 0, 0x7FFF0000)]           # SECCOMP_RET_ALLOW
    filt = ctypes.create_string_buffer(
        b"".join(struct.pack("HBBI", *c) for c in code))

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    prog = Prog(len(code), ctypes.addressof(filt))
    libc = ctypes.CDLL(None, use_errno=True)
    U = ctypes.c_ulong
    if libc.prctl(38, U(1), U(0), U(0), U(0)) != 0 or \
            libc.prctl(22, U(2), ctypes.byref(prog), U(0), U(0)) != 0:
        sys.exit("seccomp: " + os.strerror(ctypes.get_errno()))
elif sys.argv[1] == "memlock":
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (65536, 65536))
os.execv(sys.argv[2], sys.argv[2:])
'''


def ring_refused_server(tree, how, shares):
    import platform
    import sys
    from conftest import RingsmbServer
    if how == "seccomp" and platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("io_uring_setup's number is known here for x86-64 "
                    "and arm64 only, not %s" % platform.machine())

    class Server(RingsmbServer):
        def command(self):
            return [sys.executable, "-c", LAUNCHER, how] + \
                super().command()

        def env(self):
            env = super().env()
            if how == "env":
                env["RINGSMB_NO_IO_URING"] = "1"
            return env
    conf = "no" if how == "conf" else "yes"
    return Server(tree, "default", {"io_uring": conf}, shares).start()


def put_get_1mib(srv, d):
    data = os.urandom(1024 * KiB)
    p = scratch_file(d, "ring-off.bin")
    with Client(srv.port, share="w") as c:
        f = c.open(p.name)
        for off in range(0, len(data), 256 * KiB):
            assert f.write(data[off:off + 256 * KiB], off) == 256 * KiB
        assert sha256_file(p) == hashlib.sha256(data).hexdigest()
        got = b"".join(f.read(off, 256 * KiB)
                       for off in range(0, len(data), 256 * KiB))
        f.close()
    assert hashlib.sha256(got).hexdigest() == hashlib.sha256(data).hexdigest()


def ring_state_lines(text):
    return [ln for ln in text.splitlines()
            if "io_uring unavailable" in ln or "io_uring disabled" in ln]


@pytest.mark.parametrize("how", ["seccomp", "memlock", "conf", "env"])
def test_ring_refused_falls_back(share_tree, how):
    """io_uring_setup refused (seccomp: EPERM), RLIMIT_MEMLOCK at 64 KiB
    (which kernels since 5.12 no longer charge rings to: there the ring
    may well come up), `io_uring = no`, RINGSMB_NO_IO_URING=1: the server
    serves a 1 MiB put and get with identical checksums, and when the
    ring is off the log says why exactly once."""
    base, d = make_scratch_dir("ringsmb-ringoff-")
    srv = ring_refused_server(share_tree, how, [
        {"name": "w", "path": d, "read_only": False}])
    try:
        put_get_1mib(srv, d)
        text = srv.log_text()
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)
    why = ring_state_lines(text)
    if how == "seccomp":
        assert "io_uring: off" in text
        assert len(why) == 1, why
        assert "Operation not permitted" in why[0]
        assert "seccomp" in why[0]
    elif how in ("conf", "env"):
        assert "io_uring: off" in text
        assert len(why) == 1, why
        assert "disabled by configuration" in why[0]
    elif "io_uring: off" in text:
        assert len(why) == 1, why
    else:
        assert "io_uring: on" in text and why == []


def test_ring_disabled_by_sysctl(share_tree):
    """kernel.io_uring_disabled = 2: the kernel refuses every ring."""
    knob = Path("/proc/sys/kernel/io_uring_disabled")
    if not knob.exists():
        pytest.skip("this kernel has no kernel.io_uring_disabled (< 6.6)")
    if os.environ.get("RINGSMB_FAULTS_SYSCTL") != "1":
        pytest.skip("kernel.io_uring_disabled is machine-wide and would "
                    "take io_uring from everything else running here; "
                    "set RINGSMB_FAULTS_SYSCTL=1 on a machine of its own")
    if not os.access(knob, os.W_OK):
        pytest.skip("kernel.io_uring_disabled is not writable (needs root)")
    old = knob.read_text().strip()
    base, d = make_scratch_dir("ringsmb-ringoff-")
    try:
        knob.write_text("2\n")
        srv = ring_refused_server(share_tree, "none", [
            {"name": "w", "path": d, "read_only": False}])
        try:
            put_get_1mib(srv, d)
            text = srv.log_text()
        finally:
            finish_server(srv)
    finally:
        knob.write_text(old + "\n")
        shutil.rmtree(base, ignore_errors=True)
    assert "io_uring: off" in text
    assert len(ring_state_lines(text)) == 1, ring_state_lines(text)
