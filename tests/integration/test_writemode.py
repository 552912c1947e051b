"""WRITE in the splice write mode ("smb2 write mode = splice",
docs/architecture.md, "Data path modes"): the transport receives a lone
unsigned WRITE's payload socket -> pipes and WRITE moves it pipes -> file.  The bytes on disk must
be exactly what was written for sizes around every boundary, the mode
must fall back to memory where it does not apply (io_uring off, vfs_noop,
compounds), and a client that disconnects inside a payload loses only
that WRITE: everything acknowledged before is on disk, the server frees
the connection (ASan/LeakSanitizer checked when the server stops) and
serves others.
"""
import hashlib
import os
import random
import shutil
import socket
import subprocess
import time

import pytest

from conftest import (SMBCLIENT, TARGET, VARIANTS, finish_server,
                      make_scratch_dir, make_server)
import rawsmb

smbprotocol = pytest.importorskip("smbprotocol")

from test_write import Client  # noqa: E402

if TARGET != "ringsmb":
    pytest.skip("ringsmb's write modes", allow_module_level=True)

MiB = 1024 * 1024
PAGE = 4096
MIN_SPLICE = 8192               # "min splice size" (global) below
CHUNK = MiB - PAGE              # one splice pipe's worth (splice_pipe.c)


_RND = random.Random(5).randbytes(40 * MiB)


def pattern(off, n, seed=0):
    """Deterministic bytes, different for each (offset, seed)."""
    start = (off + seed * 4099) % (16 * MiB)
    assert n <= len(_RND) - start
    return _RND[start:start + n]


@pytest.fixture(scope="module", params=VARIANTS)
def wmserver(request, share_tree):
    base, d = make_scratch_dir("ringsmb-writemode-")
    srv = make_server(share_tree, request.param,
                      {"smb2 write mode": "splice",
                       "min splice size": str(MIN_SPLICE),
                       "log level": "3"},
                      shares=[{"name": "wshare", "path": d,
                               "read_only": False, "guest_ok": True},
                              {"name": "noop", "path": d,
                               "read_only": False, "guest_ok": True,
                               "params": {"vfs objects": "noop"}}])
    srv.wdir = d
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def sizes():
    return [1, MIN_SPLICE - 1, MIN_SPLICE, MIN_SPLICE + 1, 65536,
            CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 1, 8 * MiB]


def test_write_boundaries(wmserver):
    path = wmserver.wdir / "bounds.bin"
    path.write_bytes(b"")
    os.chmod(path, 0o666)
    expect = bytearray()
    with Client(wmserver.port) as c:
        f = c.open("bounds.bin")
        off = 0
        for i, n in enumerate(sizes()):
            data = pattern(off, n, i)
            assert f.write(data, off) == n
            if len(expect) < off:
                expect.extend(b"\0" * (off - len(expect)))
            expect[off:off + n] = data
            off += n + (PAGE - 1 if i % 2 else 0)   # unaligned starts
        # read back over SMB too
        assert f.read(0, 3 * MiB) == bytes(expect[:3 * MiB])
        f.close()
    on_disk = path.read_bytes()
    assert len(on_disk) == len(expect)
    assert hashlib.sha256(on_disk).hexdigest() == \
        hashlib.sha256(bytes(expect)).hexdigest()


def test_splice_used_where_possible(wmserver):
    with Client(wmserver.port) as c:
        f = c.open("bounds.bin")
        f.write(pattern(0, 2 * MiB), 0)
        f.close()
    log = wmserver.log_path.read_text(errors="replace")
    if wmserver.variant == "no_io_uring":
        assert "splice pipes of" not in log
    else:
        assert "splice pipes of" in log


def test_noop_share_drains_the_pipes(wmserver):
    """vfs_noop cannot splice: the pipes are read into memory and the
    "write" discarded; the next WRITE on the connection is intact."""
    before = (wmserver.wdir / "bounds.bin").read_bytes()
    with Client(wmserver.port, share="noop") as c:
        f = c.open("bounds.bin")
        for i in range(5):
            assert f.write(pattern(0, MiB + 5, 50 + i), 7) == MiB + 5
        f.close()
    assert (wmserver.wdir / "bounds.bin").read_bytes() == before
    with Client(wmserver.port) as c:
        f = c.open("bounds.bin")
        data = pattern(0, 3 * MiB, 99)
        assert f.write(data, 0) == len(data)
        assert f.read(0, len(data)) == data
        f.close()


def test_smbclient_put(wmserver, tmp_path):
    src = tmp_path / "up.bin"
    src.write_bytes(os.urandom(20 * MiB + 123))
    p = subprocess.run([SMBCLIENT, "-N", "//127.0.0.1/wshare", "-p",
                        str(wmserver.port), "-m", "SMB3_11",
                        "-c", "put %s up.bin" % src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    assert p.returncode == 0, p.stdout
    assert (wmserver.wdir / "up.bin").read_bytes() == src.read_bytes()


def raw_session(srv):
    c = rawsmb.Conn("127.0.0.1", srv.port, timeout=10)
    c.negotiate()
    c.session_setup_anonymous()
    c.tree_connect("wshare")
    return c


def test_disconnect_inside_payload(wmserver):
    """A WRITE cut off in the middle of its payload: the WRITEs answered
    before it are on disk, the connection goes, the server stays."""
    path = wmserver.wdir / "cut.bin"
    path.write_bytes(b"")
    os.chmod(path, 0o666)
    first = pattern(0, 60000, 1)
    with raw_session(wmserver) as c:
        fid = c.create("cut.bin", desired_access=0x0012019F)
        r = c.request("WRITE", rawsmb.write_body(first, file_id=fid))
        c.expect(r)
        body = rawsmb.write_body(pattern(60000, 60000, 2), file_id=fid,
                                 offset=60000)
        frame = rawsmb.nbt(c.pdu("WRITE", body))
        c.send(frame[:len(frame) - 40000])      # head + part of the data
    # the server must notice, drop it, and go on serving
    assert path.read_bytes()[:60000] == first
    with raw_session(wmserver) as c2:
        fid = c2.create("cut.bin", desired_access=0x0012019F)
        assert c2.read(fid, 0, 60000) == first


def test_payload_in_small_segments(wmserver):
    """A pipe takes one slot per socket buffer fragment: a WRITE whose
    payload arrives in many small TCP segments fills the pipes before
    its bytes.  The transport then moves what the pipes hold to memory
    and receives the rest there: the WRITE succeeds with exact bytes on
    disk and the connection stays (before: a retry loop, then a dropped
    connection)."""
    path = wmserver.wdir / "frag.bin"
    path.write_bytes(b"")
    os.chmod(path, 0o666)
    data = pattern(0, 65536, 7)         # one credit
    with raw_session(wmserver) as c:
        fid = c.create("frag.bin", desired_access=0x0012019F)
        body = rawsmb.write_body(data, file_id=fid)
        frame = rawsmb.nbt(c.pdu("WRITE", body))
        sock = c.sock
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        head = len(frame) - len(data)
        sock.sendall(frame[:head + 4096])
        time.sleep(0.05)                # the server is splicing now
        deadline = time.monotonic() + 60
        for n, i in enumerate(range(head + 4096, len(frame), 64)):
            sock.sendall(frame[i:i + 64])
            if n % 32 == 0:
                time.sleep(0.001)       # separate segments, not one
            assert time.monotonic() < deadline
        rsp = c.recv(timeout=30)[0]
        c.expect(rsp)
        # the connection still serves
        assert c.read(fid, 0, len(data)) == data
    assert path.read_bytes() == data
    if wmserver.variant != "no_io_uring":
        log = wmserver.log_path.read_text(errors="replace")
        assert "filled the pipes after" in log
