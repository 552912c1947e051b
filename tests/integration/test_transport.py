"""Transport details real clients rely on: the NetBIOS session request
(smbclient sends one when the port is not 445) and keep-alives."""
import socket
import struct

import pytest

import rawsmb
from conftest import TARGET


def connect(srv):
    return socket.create_connection((srv.host, srv.port), timeout=5)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


NAMES = b"\x20" + b"CACACACACACACACACACACACACACACAAA" + b"\x00" \
        + b"\x20" + b"EMEJENEKEPEMEJEOEFCACACACACACAAA" + b"\x00"


def test_nbt_session_request_answered_then_smb2(default_server):
    with rawsmb.Conn(default_server.host, default_server.port) as c:
        c.send(struct.pack(">I", 0x81000000 | len(NAMES)) + NAMES)
        assert c.recv_frame(any_type=True) == b"\x82\x00\x00\x00"
        c.send(b"\x85\x00\x00\x00")     # keep-alive: ignored
        r = c.negotiate()
        assert r.status_name == "STATUS_SUCCESS"
        assert r.u16(4) in (0x0202, 0x0210, 0x0300, 0x0302, 0x0311)


@pytest.mark.skipif(TARGET == "samba",
                    reason="Samba answers every session request")
def test_second_nbt_session_request_disconnects(default_server):
    s = connect(default_server)
    s.sendall(struct.pack(">I", 0x81000000 | len(NAMES)) + NAMES)
    assert recv_exact(s, 4) == b"\x82\x00\x00\x00"
    s.sendall(struct.pack(">I", 0x81000000 | len(NAMES)) + NAMES)
    assert recv_exact(s, 4) == b""
    s.close()
