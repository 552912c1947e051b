"""A scripted SMB 2.1 server for one smb2bench connection, for what real
servers rarely do on demand: every READ is answered first with an
interim STATUS_PENDING response (which carries the credits) and later
with its final response, the finals of a batch in reverse order.  The
logon is NTLMSSP anonymous against a CHALLENGE captured from Samba
(tests/unit/data/auth/); the file holds --verify=pattern data."""
import select
import socket
import struct
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHALLENGE = (HERE.parents[0] / "unit" / "data" / "auth" /
             "samba_challenge_N.spnego").read_bytes()
HDR = struct.Struct("<IHHIHHIIQQQ16s")      # async form: AsyncId at 0x20
STATUS_PENDING = 0x00000103
MORE_PROCESSING = 0xC0000016
SERVER_TO_REDIR, ASYNC = 0x1, 0x2


def header(cmd, mid, status=0, credit=1, flags=SERVER_TO_REDIR,
           async_id=0, tree=5, session=0x1234):
    if flags & ASYNC:
        return HDR.pack(0x424D53FE, 64, 1, status, cmd, credit, flags, 0,
                        mid, async_id, session, b"\0" * 16)
    return HDR.pack(0x424D53FE, 64, 1, status, cmd, credit, flags, 0, mid,
                    tree << 32, session, b"\0" * 16)


class FakeServer:
    def __init__(self, data):
        self.data = data
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.interims = 0
        self.reordered = 0
        self.error = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def recv_exact(self, conn, n):
        b = b""
        while len(b) < n:
            chunk = conn.recv(n - len(b))
            if not chunk:
                raise EOFError
            b += chunk
        return b

    def send(self, conn, msg):
        conn.sendall(struct.pack(">I", len(msg)) + msg)

    def run(self):
        try:
            conn, _ = self.sock.accept()
            with conn:
                self.serve(conn)
        except EOFError:
            pass
        except Exception as e:      # reported by the test
            self.error = repr(e)

    def serve(self, conn):
        finals = []
        while True:
            if finals and not select.select([conn], [], [], 0.01)[0]:
                self.reordered += len(finals) > 1
                for m in reversed(finals):
                    self.send(conn, m)
                finals = []
            n = struct.unpack(">I", self.recv_exact(conn, 4))[0]
            req = self.recv_exact(conn, n)
            cmd, ask = struct.unpack_from("<HH", req, 12)
            mid = struct.unpack_from("<Q", req, 24)[0]
            if cmd == 8:
                self.read(conn, req, mid, ask, finals)
            else:
                self.send(conn, self.answer(cmd, mid, ask, req))

    def read(self, conn, req, mid, ask, finals):
        length, offset = struct.unpack_from("<IQ", req, 64 + 4)
        self.interims += 1
        self.send(conn, header(8, mid, STATUS_PENDING, ask,
                               SERVER_TO_REDIR | ASYNC, mid + 100) +
                  struct.pack("<HHI", 9, 0, 0) + b"\0")
        data = self.data[offset:offset + length]
        finals.append(header(8, mid, 0, 0, SERVER_TO_REDIR | ASYNC,
                             mid + 100) +
                      struct.pack("<HBBIII", 17, 0x50, 0, len(data), 0, 0) +
                      data)

    def answer(self, cmd, mid, ask, req):
        if cmd == 0:        # NEGOTIATE: 2.1, no signing required
            return header(0, mid, credit=ask) + struct.pack(
                "<HHHH16sIIIIQQHHI", 65, 1, 0x0210, 0, b"F" * 16, 4,
                1 << 20, 1 << 20, 1 << 20, 0, 0, 128, 0, 0)
        if cmd == 1:        # SESSION_SETUP: CHALLENGE, then anonymous OK
            if req[64 + 12:64 + 14] != b"\0\0" and \
                    b"NTLMSSP\0\x03" in req:
                return header(1, mid, credit=ask) + struct.pack(
                    "<HHHH", 9, 2, 72, 0)
            return header(1, mid, MORE_PROCESSING, ask) + struct.pack(
                "<HHHH", 9, 0, 72, len(CHALLENGE)) + CHALLENGE
        if cmd == 3:        # TREE_CONNECT
            return header(3, mid, credit=ask) + struct.pack(
                "<HBBIII", 16, 1, 0, 0, 0, 0x1F01FF)
        if cmd == 5:        # CREATE: the file, EndOfFile = len(data)
            return header(5, mid, credit=ask) + struct.pack(
                "<HBBIQQQQQQIIQQII", 89, 0, 0, 1, 0, 0, 0, 0,
                len(self.data), len(self.data), 0x80, 0, 7, 8, 0, 0)
        if cmd == 6:        # CLOSE
            return header(6, mid, credit=ask) + struct.pack(
                "<HHI", 60, 0, 0) + b"\0" * 52
        return header(cmd, mid, credit=ask) + struct.pack("<HH", 4, 0)
