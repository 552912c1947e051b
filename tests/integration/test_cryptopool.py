"""Signing and encryption on the crypto pool ("smb2 crypto threads",
source3/smbd/pipeline/pipeline_crypto.c): large signed and encrypted WRITEs and
READs over several connections at once, WRITEs sent back to back so that
several decrypt in parallel and must still run in order, and clients that
go away while their large messages are on the pool.  Each runs with the
default pool (decryption of requests from 64 KiB), with every pass of
every signed or encrypted message on the pool (offload all, min size 1)
and with no pool (0 threads, all inline), and checks sha256 of the data
both ways.  The server's log is checked for
sanitizer reports when it stops (conftest.finish_server)."""
import hashlib
import random
import shutil
import socket
import threading

import pytest

from conftest import TARGET, finish_server, scratch_file, sha256_file

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.open import (SMB2ReadRequest, SMB2WriteRequest,  # noqa: E402
                              SMB2WriteResponse)

from test_write import (MiB, PASSWORD, READ_DATA, USER, Client,  # noqa: E402
                        read_back, user_server)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's smbpasswd users and "
                                "crypto pool parameters")

POOLS = {
    "default": {},
    "all": {"smb2 crypto threads": "2", "smb2 crypto offload": "all",
            "smb2 crypto min size": "1"},
    "inline": {"smb2 crypto threads": "0"},
}
MODES = {
    "signed": {"server signing": "mandatory"},
    "encrypted": {"server smb encrypt": "required"},
}
TIMEOUT = 60
NCONN = 3
STATUS_SUCCESS = 0


@pytest.fixture(scope="module", params=sorted(MODES))
def mode(request):
    return request.param


@pytest.fixture(scope="module", params=sorted(POOLS))
def cserver(request, share_tree, accounts, mode):
    settings = dict(MODES[mode], **POOLS[request.param])
    srv = user_server(share_tree, settings)
    srv.mode = mode
    yield srv
    finish_server(srv)
    shutil.rmtree(srv.base, ignore_errors=True)


def connect(srv):
    return Client(srv.port, user=USER, password=PASSWORD,
                  signing=srv.mode == "signed",
                  encryption=srv.mode == "encrypted")


def write_req(f, data, offset):
    w = SMB2WriteRequest()
    w["length"] = len(data)
    w["offset"] = offset
    w["file_id"] = f.file_id
    w["buffer"] = data
    tc = f.tree_connect
    return f.connection.send(w, tc.session.session_id, tc.tree_connect_id)


def write_pipelined(f, data, chunk, depth):
    """WRITEs of chunk bytes, depth of them sent before the first answer
    is read: the server has several large messages to decrypt or verify
    at once."""
    off = 0
    while off < len(data):
        reqs = []
        for _ in range(depth):
            if off >= len(data):
                break
            reqs.append((write_req(f, data[off:off + chunk], off),
                         min(chunk, len(data) - off)))
            off += chunk
        for req, n in reqs:
            rsp = f.connection.receive(req, timeout=TIMEOUT)
            assert rsp["status"].get_value() == STATUS_SUCCESS
            w = SMB2WriteResponse()
            w.unpack(rsp["data"].get_value())
            assert w["count"].get_value() == n


def one_client(srv, idx, size, errors):
    try:
        data = random.Random(100 + idx).randbytes(size)
        path = scratch_file(srv.wdir, "pool-%s-%d.bin" % (srv.mode, idx))
        expect = hashlib.sha256(data).hexdigest()
        with connect(srv) as c:
            f = c.open(path.name)
            write_pipelined(f, data, MiB, 8)
            f.close()
            assert sha256_file(path) == expect
            f = c.open(path.name, READ_DATA)
            assert read_back(f, size) == expect
            f.close()
    except Exception as e:  # reported by the main thread
        errors.append("client %d: %r" % (idx, e))


def test_parallel_large_writes_and_reads(cserver):
    """NCONN clients at once, 12 MiB each, 8 WRITEs of 1 MiB in flight."""
    errors = []
    threads = [threading.Thread(target=one_client,
                                args=(cserver, i, 12 * MiB, errors))
               for i in range(NCONN)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT * 4)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


def test_overlapping_writes_keep_their_order(cserver):
    """Eight 1 MiB WRITEs to the same range sent back to back: whichever
    decrypts first, they run in arrival order and the last one wins."""
    path = scratch_file(cserver.wdir, "pool-order-%s.bin" % cserver.mode)
    blobs = [random.Random(7 + i).randbytes(MiB) for i in range(8)]
    with connect(cserver) as c:
        f = c.open(path.name)
        reqs = [write_req(f, b, 0) for b in blobs]
        for req in reqs:
            rsp = f.connection.receive(req, timeout=TIMEOUT)
            assert rsp["status"].get_value() == STATUS_SUCCESS
        f.close()
    assert sha256_file(path) == hashlib.sha256(blobs[-1]).hexdigest()


def abandon(srv, name, send):
    """Sends large requests and drops the connection without waiting
    (four of 2 MiB: 128 credits, what the client's window holds)."""
    c = connect(srv)
    f = c.open(name)
    for i in range(4):
        send(f, i)
    sock = c.conn.transport._sock
    # RST rather than FIN: the server sees the end at once
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    b"\x01\x00\x00\x00\x00\x00\x00\x00")
    c.conn.disconnect(False)


def test_client_gone_while_its_messages_are_on_the_pool(cserver):
    """A client sends four 2 MiB WRITEs (decrypted or verified on the
    pool) or asks for four 2 MiB READs (encrypted or signed on the pool),
    and vanishes without reading an answer.  The WRITEs rewrite what the
    file holds, so whether they ran or not, its content stays the same.
    The server drops the jobs' results, frees their buffers (ASan) and
    serves the next client."""
    path = scratch_file(cserver.wdir, "pool-gone-%s.bin" % cserver.mode)
    data = random.Random(3).randbytes(8 * MiB)
    with connect(cserver) as c:
        f = c.open(path.name)
        write_pipelined(f, data, 8 * MiB, 1)
        f.close()
    for _ in range(3):
        abandon(cserver, path.name,
                lambda f, i: write_req(f, data[2 * MiB * i:2 * MiB * (i + 1)],
                                       2 * MiB * i))
        abandon(cserver, path.name,
                lambda f, i: f.connection.send(
                    read_request(f, 2 * MiB, 2 * MiB * i),
                    f.tree_connect.session.session_id,
                    f.tree_connect.tree_connect_id))
    assert cserver.alive()
    with connect(cserver) as c:
        f = c.open(path.name, READ_DATA)
        assert read_back(f, len(data)) == hashlib.sha256(data).hexdigest()
        f.close()


def read_request(f, length, offset):
    r = SMB2ReadRequest()
    r["length"] = length
    r["offset"] = offset
    r["file_id"] = f.file_id
    return r
