"""What one misbehaving client may cost the server (docs/architecture.md,
"Limits"): a client that sends without reading its responses is
throttled by not being read, so the server's memory stays bounded.  ringsmb only."""
import socket
import struct
import time

import pytest

import rawsmb as R
from conftest import TARGET

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="measures ringsmb's single process")


def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def is_asan(srv):
    with open(srv.command()[0], "rb") as f:
        return b"AddressSanitizer" in f.read()


def echo_compound(mid, n):
    out = b""
    for i in range(n):
        p = R.build_header(13, message_id=mid + i, credit_request=1) + \
            R.body_for("ECHO")
        if i < n - 1:
            p += b"\0" * R.pad8(len(p))
            p = p[:20] + struct.pack("<I", len(p)) + p[24:]
        out += p
    return out


def test_client_not_reading_is_throttled(default_server):
    """Compounds of 255 ECHOs, never reading a response, for up to 3 s
    (or 2,000 compounds): the server stops reading the socket, so the
    send blocks, and its RSS stays bounded (it grew to 750 MB in 3 s
    before the send queue was capped)."""
    srv = default_server
    pid = srv.proc.pid
    c = R.Conn(srv.host, srv.port, timeout=1.0)
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.negotiate()
    start = rss_kib(pid)
    mid = c.next_mid
    blocked = False
    end = time.time() + 3.0
    for _ in range(2000):
        if time.time() > end:
            break
        try:
            c.send(R.nbt(echo_compound(mid, 255)))
        except (socket.timeout, TimeoutError):
            blocked = True
            break
        mid += 255
    grown = rss_kib(pid) - start
    c.close()
    assert blocked, "the server kept reading a client that never reads"
    # ASan's quarantine holds freed memory (256 MiB): RSS says nothing
    # there; tests/runner.py runs this file against the normal build too
    if not is_asan(srv):
        assert grown < 64 * 1024, "RSS grew by %d KiB" % grown
    # and the server still serves others
    with R.Conn(srv.host, srv.port) as c2:
        assert c2.negotiate().status_name == "STATUS_SUCCESS"


def closed_within(s, seconds):
    """True when the server closes s within seconds (EOF or reset)."""
    s.settimeout(seconds)
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (socket.timeout, TimeoutError):
        return False


@pytest.mark.parametrize("when", ["before-negotiate", "after-anonymous"])
def test_oversized_pdu_closed_at_header(default_server, when):
    """RELIABILITY G4: an NBT header declaring one byte more than the
    connection may send is refused at the header: the server closes the
    connection without waiting for a body it would have to buffer.
    Before a logon the limit is `smb2 untrusted max pdu` (69,632 by
    default); after an anonymous logon the size NEGOTIATE promised
    (docs/architecture.md, "Untrusted PDU size").  A server that waited
    for the body would keep the connection open until its 30-second
    partial-PDU timeout."""
    if when == "after-anonymous":
        c = R.Conn("127.0.0.1", default_server.port, timeout=10)
        c.negotiate()
        c.session_setup_anonymous()
        s = c.sock
        limit = max(c.max_read, c.max_write, c.max_transact) + 65536
    else:
        s = socket.create_connection(("127.0.0.1", default_server.port), 10)
        limit = 69632
    try:
        s.sendall(struct.pack(">I", limit + 1))
        assert closed_within(s, 10), "still open: the body was awaited"
    finally:
        s.close()
    # the limit itself is accepted: the server waits for the body
    s = socket.create_connection(("127.0.0.1", default_server.port), 10)
    try:
        s.sendall(struct.pack(">I", 69632))
        assert not closed_within(s, 1)
    finally:
        s.close()
