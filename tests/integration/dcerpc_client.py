"""A small DCE/RPC-over-SMB2 named-pipe client for the IPC$ tests.

Only smbprotocol is needed.  smbprotocol supplies the transport, NEGOTIATE,
NTLM session setup, signing and the worker thread that matches responses to
requests; every request after the session setup is built here byte by byte
and sent through Connection.send(), and every answer is reported as an
NTSTATUS value instead of an exception, so a test can assert on a refusal
as easily as on a success.

    c = PipeClient("127.0.0.1", 445, "user", "pw")   # or anonymous=True,
    c.connect()                                      # or guest=True
    tc = c.tree_connect("IPC$")          # share_type, share_flags, ...
    op = c.create("srvsvc")              # status, oplock_level, ...
    rpc = RpcPipe(c, op["file_id"])
    ack = rpc.bind(SRVSVC)               # bind_ack / bind_nak as a dict
    r = rpc.call(15, srvsvc_share_enum_req("127.0.0.1", 1))
    shares = srvsvc_share_enum_res(r["stub"], 1)

The DCE/RPC layer (C706 chapter 12, connection-oriented PDUs as MS-RPCE
2.2.2 uses them) builds bind / alter_context / request PDUs, fragments a
large stub, reassembles multi-fragment responses (reading on after
STATUS_BUFFER_OVERFLOW) and decodes bind_ack, bind_nak, response and
fault.  The NDR20 coders cover the srvsvc and wkssvc calls the share
browser uses (MS-SRVS, MS-WKST IDL): NetrShareEnum (15),
NetrShareEnumSticky (36), NetrShareGetInfo (16), NetrServerGetInfo (21)
and NetrWkstaGetInfo (0).
"""
import struct
import time
import uuid

from smbprotocol.connection import Connection
from smbprotocol.session import Session
from smbprotocol.tree import TreeConnect

# ------------------------------------------------------------------ statuses

NTSTATUS = {
    0x00000000: "STATUS_SUCCESS",
    0x00000103: "STATUS_PENDING",
    0x0000010B: "STATUS_NOTIFY_CLEANUP",
    0x0000010C: "STATUS_NOTIFY_ENUM_DIR",
    0x80000005: "STATUS_BUFFER_OVERFLOW",
    0x80000006: "STATUS_NO_MORE_FILES",
    0xC0000001: "STATUS_UNSUCCESSFUL",
    0xC0000002: "STATUS_NOT_IMPLEMENTED",
    0xC0000003: "STATUS_INVALID_INFO_CLASS",
    0xC0000004: "STATUS_INFO_LENGTH_MISMATCH",
    0xC0000008: "STATUS_INVALID_HANDLE",
    0xC000000D: "STATUS_INVALID_PARAMETER",
    0xC000000F: "STATUS_NO_SUCH_FILE",
    0xC0000010: "STATUS_INVALID_DEVICE_REQUEST",
    0xC0000011: "STATUS_END_OF_FILE",
    0xC0000016: "STATUS_MORE_PROCESSING_REQUIRED",
    0xC0000017: "STATUS_NO_MEMORY",
    0xC0000022: "STATUS_ACCESS_DENIED",
    0xC0000023: "STATUS_BUFFER_TOO_SMALL",
    0xC0000033: "STATUS_OBJECT_NAME_INVALID",
    0xC0000034: "STATUS_OBJECT_NAME_NOT_FOUND",
    0xC000003A: "STATUS_OBJECT_PATH_NOT_FOUND",
    0xC000003B: "STATUS_OBJECT_PATH_SYNTAX_BAD",
    0xC0000043: "STATUS_SHARING_VIOLATION",
    0xC000004F: "STATUS_EAS_NOT_SUPPORTED",
    0xC0000055: "STATUS_LOCK_NOT_GRANTED",
    0xC000006D: "STATUS_LOGON_FAILURE",
    0xC000007E: "STATUS_RANGE_NOT_LOCKED",
    0xC00000AC: "STATUS_PIPE_NOT_AVAILABLE",
    0xC00000AD: "STATUS_INVALID_PIPE_STATE",
    0xC00000AE: "STATUS_PIPE_BUSY",
    0xC00000B0: "STATUS_PIPE_DISCONNECTED",
    0xC00000B1: "STATUS_PIPE_CLOSING",
    0xC00000B3: "STATUS_PIPE_LISTENING",
    0xC00000B5: "STATUS_IO_TIMEOUT",
    0xC00000BA: "STATUS_FILE_IS_A_DIRECTORY",
    0xC00000BB: "STATUS_NOT_SUPPORTED",
    0xC00000C3: "STATUS_INVALID_NETWORK_RESPONSE",
    0xC00000C9: "STATUS_NETWORK_NAME_DELETED",
    0xC00000CC: "STATUS_BAD_NETWORK_NAME",
    0xC0000103: "STATUS_NOT_A_DIRECTORY",
    0xC0000120: "STATUS_CANCELLED",
    0xC0000128: "STATUS_FILE_CLOSED",
    0xC0000148: "STATUS_INVALID_LEVEL",
    0xC000014B: "STATUS_PIPE_BROKEN",
    0xC000019C: "STATUS_FS_DRIVER_REQUIRED",
    0xC0000184: "STATUS_INVALID_DEVICE_STATE",
    0xC00001A1: "STATUS_INVALID_LOCK_RANGE",
    0xC0000203: "STATUS_USER_SESSION_DELETED",
    0xC0000225: "STATUS_NOT_FOUND",
    0xC0000275: "STATUS_NOT_A_REPARSE_POINT",
    0xC000035C: "STATUS_NETWORK_SESSION_EXPIRED",
}

WERROR = {
    0x00000000: "WERR_OK",
    0x00000005: "WERR_ACCESS_DENIED",
    0x00000008: "WERR_NOT_ENOUGH_MEMORY",
    0x00000032: "WERR_NOT_SUPPORTED",
    0x00000057: "WERR_INVALID_PARAMETER",
    0x0000007B: "WERR_INVALID_NAME",
    0x0000007C: "WERR_INVALID_LEVEL",
    0x000000EA: "WERR_MORE_DATA",
    0x00000906: "WERR_NERR_NETNAMENOTFOUND",  # 2310 NERR_NetNameNotFound
    0x0000084B: "WERR_NERR_BUFTOOSMALL",
}

# DCE/RPC fault codes (C706 appendix E, MS-RPCE 2.3.1)
FAULT = {
    0x1C010002: "nca_op_rng_error",
    0x1C010003: "nca_unk_if",
    0x1C000008: "nca_proto_error",
    0x1C010013: "nca_out_args_too_big",
    0x1C00001C: "nca_s_fault_remote_no_memory",
    0x1C00001A: "nca_unsupported_type",
    0x00000005: "access_denied",
    0x000006F7: "rpc_x_bad_stub_data",
    0x000006D8: "rpc_s_cannot_support",
    0x00000721: "rpc_s_sec_pkg_error",
    0x1C000003: "nca_s_unspec_reject",
}


def status_name(v):
    if v is None:
        return None
    return NTSTATUS.get(v, "0x%08X" % v)


def werror_name(v):
    return WERROR.get(v, "0x%08X" % v)


def fault_name(v):
    return FAULT.get(v, "0x%08X" % v)


def hexs(v):
    return None if v is None else "0x%08X" % v


# ------------------------------------------------------------------ SMB2

CMD = {"TREE_CONNECT": 3, "CREATE": 5, "CLOSE": 6, "FLUSH": 7, "READ": 8,
       "WRITE": 9, "LOCK": 10, "IOCTL": 11, "QUERY_DIRECTORY": 14,
       "CHANGE_NOTIFY": 15, "QUERY_INFO": 16, "SET_INFO": 17,
       "SESSION_SETUP": 1}

FSCTL_PIPE_PEEK = 0x0011400C
FSCTL_PIPE_TRANSCEIVE = 0x0011C017
FSCTL_PIPE_WAIT = 0x00110018


class _Field:
    def __init__(self, v):
        self.v = v

    def get_value(self):
        return self.v


class RawMessage:
    """A request body smbprotocol's Connection.send() accepts: COMMAND,
    pack(), len() and the few fields its credit charge looks at."""

    def __init__(self, command, body, payload=1):
        self.COMMAND = command
        self.body = body
        self.payload = payload

    def pack(self):
        return self.body

    def __len__(self):
        return len(self.body)

    def __getitem__(self, key):
        # credit charge: READ length/WRITE length etc.; one credit per 64K
        if key in ("length", "max_output_response", "output_buffer_length"):
            return _Field(self.payload)
        if key == "buffer":
            return b""
        return _Field(0)


class Reply:
    """One SMB2 response: status, header fields, body bytes.  status None
    means no final answer within the timeout (interim says whether a
    STATUS_PENDING interim response came)."""

    def __init__(self, status=None, body=b"", header=None, interim=False,
                 disconnected=False):
        self.status = status
        self.body = body
        self.header = header
        self.interim = interim
        self.disconnected = disconnected

    @property
    def name(self):
        if self.disconnected:
            return "DISCONNECTED"
        if self.status is None:
            return "NO_RESPONSE" + ("(PENDING)" if self.interim else "")
        return status_name(self.status)

    def u16(self, o):
        return struct.unpack_from("<H", self.body, o)[0]

    def u32(self, o):
        return struct.unpack_from("<I", self.body, o)[0]

    def u64(self, o):
        return struct.unpack_from("<Q", self.body, o)[0]

    def blob(self, off_field, len_field, off_size=2):
        """Bytes at a (header-relative) offset/length pair in the body."""
        if off_size == 2:
            off = self.u16(off_field)
        else:
            off = self.u32(off_field)
        ln = self.u32(len_field)
        off -= 64
        return self.body[off:off + ln] if off >= 0 else b""


def utf16(s):
    return s.encode("utf-16-le")


def filetime_nonzero(v):
    return v != 0


# anonymous NTLMSSP in SPNEGO, hand-encoded DER (smbprotocol has no
# anonymous mode)

def _der_len(n):
    if n < 0x80:
        return bytes([n])
    if n < 0x100:
        return bytes([0x81, n])
    return bytes([0x82]) + struct.pack(">H", n)


def _der(tag, content):
    return bytes([tag]) + _der_len(len(content)) + content


_OID_SPNEGO = _der(0x06, bytes.fromhex("2b0601050502"))
_OID_NTLM = _der(0x06, bytes.fromhex("2b06010401823702020a"))
_NTLM_FLAGS = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | \
    0x00080000 | 0x20000000 | 0x80000000


def _anon_negotiate_token():
    tok = b"NTLMSSP\0" + struct.pack("<II", 1, _NTLM_FLAGS) + b"\0" * 16
    inner = _der(0x30, _der(0xA0, _der(0x30, _OID_NTLM)) +
                 _der(0xA2, _der(0x04, tok)))
    return _der(0x60, _OID_SPNEGO + _der(0xA0, inner))


def _anon_authenticate_token():
    # six empty security buffers (LM, NT, domain, user, workstation, key);
    # one zero byte of LM response marks the anonymous logon
    fields = struct.pack("<HHI", 1, 1, 64)
    fields += struct.pack("<HHI", 0, 0, 65) * 5
    tok = (b"NTLMSSP\0" + struct.pack("<I", 3) + fields +
           struct.pack("<I", _NTLM_FLAGS | 0x00000800) + b"\0")
    return _der(0xA1, _der(0x30, _der(0xA2, _der(0x04, tok))))


class PipeClient:
    """One SMB2 connection + session + IPC$ tree, raw requests."""

    def __init__(self, host, port=445, user=None, password=None,
                 anonymous=False, guest=False, timeout=10.0,
                 dialect=None):
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.anonymous = anonymous
        self.guest = guest
        self.timeout = timeout
        self.dialect = dialect
        self.conn = None
        self.session = None
        self.session_flags = None
        self.tree_id = None
        self.tree = None

    # ---- setup
    def connect(self):
        unsigned = self.anonymous or self.guest
        self.conn = Connection(uuid.uuid4(), self.host, self.port,
                               require_signing=not unsigned)
        self.conn.connect(dialect=self.dialect, timeout=self.timeout)
        if self.anonymous:
            self._anonymous_session()
        else:
            user = "guest" if self.guest else self.user
            pw = "" if self.guest else self.password
            self.session = Session(self.conn, username=user, password=pw,
                                   require_encryption=False,
                                   auth_protocol="ntlm")
            self.session.connect()
            self.session_flags = None
        return self

    def _anonymous_session(self):
        s = Session(self.conn, username="", password="",
                    require_encryption=False)
        s.signing_required = False
        s.encrypt_data = False
        s.session_id = 0
        for i, tok in enumerate((_anon_negotiate_token(),
                                 _anon_authenticate_token())):
            body = struct.pack("<HBBIIHHQ", 25, 0, 1, 1, 0, 88, len(tok),
                               0) + tok
            r = self.raw("SESSION_SETUP", body, sid=s.session_id)
            if i == 0:
                if r.status != 0xC0000016:
                    raise RuntimeError("anonymous setup: %s" % r.name)
                s.session_id = r.header["session_id"].get_value()
                self.conn.session_table[s.session_id] = s
            elif r.status != 0:
                raise RuntimeError("anonymous setup: %s" % r.name)
            else:
                self.session_flags = r.u16(2)
        s._connected = True
        self.session = s

    def close(self):
        try:
            if self.conn is not None:
                self.conn.disconnect(False)
        except Exception:   # noqa: BLE001 - best effort teardown
            pass

    # ---- generic request
    def raw(self, command, body, sid=None, tid=None, timeout=None,
            payload=1, cancel_after=None):
        """Send one request; wait for the final response.  cancel_after:
        seconds after which an unanswered request is cancelled (then wait
        up to timeout more for the final answer)."""
        cmd = CMD[command] if isinstance(command, str) else command
        if sid is None:
            sid = self.session.session_id if self.session else 0
        if tid is None:
            tid = self.tree_id if command not in ("SESSION_SETUP",
                                                  "TREE_CONNECT") else 0
        try:
            req = self.conn.send(RawMessage(cmd, body, payload), sid=sid,
                                 tid=tid)
        except Exception:   # noqa: BLE001 - connection gone
            return Reply(disconnected=True)
        timeout = self.timeout if timeout is None else timeout
        r = self._wait(req, cancel_after if cancel_after is not None
                       else timeout)
        if r.status is None and not r.disconnected and \
                cancel_after is not None:
            try:
                req.cancel()
            except Exception:   # noqa: BLE001
                pass
            r2 = self._wait(req, timeout)
            r2.interim = r2.interim or r.interim
            r2.cancelled = True
            return r2
        return r

    def _wait(self, req, timeout):
        deadline = time.monotonic() + timeout
        interim = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not req.response_event.wait(left):
                try:
                    self.conn._check_worker_running()
                except Exception:   # noqa: BLE001
                    return Reply(disconnected=True, interim=interim)
                return Reply(None, interim=interim)
            with req.response_event_lock:
                resp = req.response
                if resp is None:        # the connection went
                    return Reply(disconnected=True, interim=interim)
                st = resp["status"].get_value()
                if st == 0x103:
                    interim = True
                    req.response_event.clear()
                    continue
                self.conn.outstanding_requests.pop(
                    req.message["message_id"].get_value(), None)
                return Reply(st, resp["data"].get_value(), resp, interim)

    # ---- commands
    def tree_connect(self, share="IPC$"):
        path = "\\\\%s\\%s" % (self.host, share)
        p = utf16(path)
        body = struct.pack("<HHHH", 9, 0, 72, len(p)) + p
        r = self.raw("TREE_CONNECT", body, tid=0)
        out = {"status": status_name(r.status)}
        if r.status == 0:
            self.tree_id = r.header["tree_id"].get_value()
            t = TreeConnect(self.session, path)
            t.tree_connect_id = self.tree_id
            t.is_dfs_share = False
            t.encrypt_data = False
            t._connected = True
            self.session.tree_connect_table[self.tree_id] = t
            self.tree = t
            out.update({
                "share_type": r.body[2],
                "share_flags": hexs(r.u32(4)),
                "capabilities": hexs(r.u32(8)),
                "maximal_access": hexs(r.u32(12)),
            })
        return out

    def create(self, name, desired_access=0x0012019F, share_access=3,
               disposition=1, options=0, impersonation=2, oplock=0,
               attributes=0):
        n = utf16(name)
        body = struct.pack("<HBBIQQIIIIIHHII", 57, 0, oplock, impersonation,
                           0, 0, desired_access, attributes, share_access,
                           disposition, options, 120, len(n), 0, 0)
        body += n or b"\0"
        r = self.raw("CREATE", body)
        out = {"status": status_name(r.status)}
        if r.status == 0:
            b = r.body
            (_, olock, flags, action, ctime, atime, wtime, chtime, alloc,
             eof, attrs, _res, fid) = struct.unpack_from(
                "<HBBIQQQQQQII16s", b, 0)
            out.update({
                "oplock_level": olock, "flags": flags,
                "create_action": action,
                "creation_time_nonzero": ctime != 0,
                "last_access_time_nonzero": atime != 0,
                "last_write_time_nonzero": wtime != 0,
                "change_time_nonzero": chtime != 0,
                "allocation_size": alloc, "end_of_file": eof,
                "file_attributes": hexs(attrs),
                "create_contexts_length": struct.unpack_from("<I", b, 84)[0],
                "file_id": fid,
            })
        return out

    def close_file(self, fid, flags=0):
        r = self.raw("CLOSE", struct.pack("<HHI16s", 24, flags, 0, fid))
        return r.name

    def write(self, fid, data, timeout=None):
        body = struct.pack("<HHIQ16sIIHHI", 49, 112, len(data), 0, fid, 0,
                           0, 0, 0, 0) + (data or b"\0")
        r = self.raw("WRITE", body, payload=max(len(data), 1),
                     timeout=timeout)
        cnt = r.u32(4) if r.status == 0 else None
        return r, cnt

    def read(self, fid, length=65536, timeout=None, cancel_after=None):
        body = struct.pack("<HBBIQ16sIIIHH", 49, 0, 0, length, 0, fid, 0, 0,
                           0, 0, 0) + b"\0"
        r = self.raw("READ", body, payload=length, timeout=timeout,
                     cancel_after=cancel_after)
        data = b""
        if r.status in (0, 0x80000005):
            off = r.body[2] - 64
            data = r.body[off:off + r.u32(4)]
        return r, data

    def read_send(self, fid, length=65536):
        """Send a READ without waiting; wait on it with wait_read()."""
        body = struct.pack("<HBBIQ16sIIIHH", 49, 0, 0, length, 0, fid, 0, 0,
                           0, 0, 0) + b"\0"
        return self.conn.send(RawMessage(CMD["READ"], body, length),
                              sid=self.session.session_id, tid=self.tree_id)

    def wait_read(self, req, timeout):
        r = self._wait(req, timeout)
        data = b""
        if r.status in (0, 0x80000005):
            off = r.body[2] - 64
            data = r.body[off:off + r.u32(4)]
        return r, data

    def ioctl(self, fid, ctl, data=b"", max_out=65536, flags=1,
              timeout=None, cancel_after=None):
        body = struct.pack("<HHI16sIIIIIIII", 57, 0, ctl, fid,
                           120 if data else 0, len(data), 0, 0, 0,
                           max_out, flags, 0) + (data or b"\0")
        r = self.raw("IOCTL", body, payload=max(max_out, len(data), 1),
                     timeout=timeout, cancel_after=cancel_after)
        out = b""
        if r.status in (0, 0x80000005) and len(r.body) >= 48:
            off, ln = r.u32(32), r.u32(36)
            out = r.body[off - 64:off - 64 + ln]
        return r, out

    def transceive(self, fid, data, max_out=65536, timeout=None,
                   cancel_after=None):
        return self.ioctl(fid, FSCTL_PIPE_TRANSCEIVE, data, max_out,
                          timeout=timeout, cancel_after=cancel_after)

    def query_info(self, fid, info_type, info_class, out_len=65536,
                   additional=0, input_=b""):
        body = struct.pack("<HBBIHHIII16s", 41, info_type, info_class,
                           out_len, 104 if input_ else 0, 0, len(input_),
                           additional, 0, fid) + (input_ or b"\0")
        r = self.raw("QUERY_INFO", body, payload=out_len)
        data = b""
        if r.status in (0, 0x80000005):
            off, ln = r.u16(2), r.u32(4)
            data = r.body[off - 64:off - 64 + ln]
        return r, data

    def set_info(self, fid, info_type, info_class, buf, additional=0):
        body = struct.pack("<HBBIHHI16s", 33, info_type, info_class,
                           len(buf), 96, 0, additional, fid) + buf
        return self.raw("SET_INFO", body)

    def flush(self, fid):
        return self.raw("FLUSH", struct.pack("<HHI16s", 24, 0, 0, fid))

    def lock(self, fid, offset=0, length=1, flags=0x12):
        body = struct.pack("<HHI16sQQII", 48, 1, 0, fid, offset, length,
                           flags, 0)
        return self.raw("LOCK", body)

    def query_directory(self, fid, pattern="*", info_class=1, timeout=None):
        p = utf16(pattern)
        body = struct.pack("<HBBI16sHHI", 33, info_class, 0, 0, fid, 96,
                           len(p), 65536) + p
        return self.raw("QUERY_DIRECTORY", body, payload=65536,
                        timeout=timeout)

    def change_notify(self, fid, timeout=2.0, cancel_after=2.0):
        body = struct.pack("<HHI16sII", 32, 0, 4096, fid, 0x17, 0)
        return self.raw("CHANGE_NOTIFY", body, payload=4096,
                        timeout=timeout, cancel_after=cancel_after)


# ------------------------------------------------------------------ DCE/RPC

PTYPE = {0: "request", 2: "response", 3: "fault", 11: "bind",
         12: "bind_ack", 13: "bind_nak", 14: "alter_context",
         15: "alter_context_resp", 16: "auth3", 17: "shutdown",
         18: "co_cancel", 19: "orphaned"}
PFC_FIRST, PFC_LAST = 0x01, 0x02

NDR = ("8a885d04-1ceb-11c9-9fe8-08002b104860", 2, 0)
NDR64 = ("71710533-beba-4937-8319-b5dbef9ccc36", 1, 0)
# bind time feature negotiation (MS-RPCE 3.3.1.5.3): 6cb71c2c-9812-4540-
# followed by the flag bits in the last 8 bytes, version 1.0
BTFN = ("6cb71c2c-9812-4540-0300-000000000000", 1, 0)
SRVSVC = ("4b324fc8-1670-01d3-1278-5a47bf6ee188", 3, 0)
WKSSVC = ("6bffd098-a112-3610-9833-46c3f87e345a", 1, 0)
LSARPC = ("12345778-1234-abcd-ef00-0123456789ab", 0, 0)

ACK_RESULT = {0: "acceptance", 1: "user_rejection", 2: "provider_rejection",
              3: "negotiate_ack"}
ACK_REASON = {0: "reason_not_specified",
              1: "abstract_syntax_not_supported",
              2: "proposed_transfer_syntaxes_not_supported",
              3: "local_limit_exceeded"}
NAK_REASON = {0: "reason_not_specified", 1: "temporary_congestion",
              2: "local_limit_exceeded", 3: "called_paddr_unknown",
              4: "protocol_version_not_supported",
              5: "default_context_not_supported",
              6: "user_data_not_readable", 7: "no_psap_available",
              8: "authentication_type_not_recognized",
              9: "invalid_checksum"}


def syntax_id(s):
    u, major, minor = s
    return uuid.UUID(u).bytes_le + struct.pack("<HH", major, minor)


def parse_syntax(b):
    return "%s v%d.%d" % (uuid.UUID(bytes_le=bytes(b[:16])),
                          *struct.unpack_from("<HH", b, 16))


def pdu_header(ptype, flags, body_len, call_id, auth_len=0, vers=5,
               minor=0, drep=b"\x10\0\0\0"):
    return struct.pack("<BBBB4sHHI", vers, minor, ptype, flags, drep,
                       16 + body_len, auth_len, call_id)


def bind_pdu(contexts, call_id=1, max_xmit=4280, max_recv=4280,
             assoc_group=0, ptype=11, vers=5, minor=0, flags=None,
             auth=b""):
    """contexts: [(ctx_id, abstract, [transfer, ...]), ...]"""
    body = struct.pack("<HHI", max_xmit, max_recv, assoc_group)
    body += struct.pack("<BBH", len(contexts), 0, 0)
    for cid, abstract, transfers in contexts:
        body += struct.pack("<HBB", cid, len(transfers), 0)
        body += syntax_id(abstract)
        for t in transfers:
            body += syntax_id(t)
    if flags is None:
        flags = PFC_FIRST | PFC_LAST
    return pdu_header(ptype, flags, len(body) + len(auth), call_id,
                      len(auth) - 8 if auth else 0, vers, minor) + body + auth


def request_pdus(opnum, stub, ctx_id=0, call_id=1, max_frag=4280,
                 nfrags=None):
    """The request PDU(s) carrying stub: split into fragments of at most
    max_frag bytes, or into nfrags nearly equal pieces."""
    room = max_frag - 24
    if nfrags:
        size = -(-len(stub) // nfrags)
        pieces = [stub[i:i + size] for i in range(0, len(stub), size)]
    else:
        pieces = [stub[i:i + room] for i in range(0, len(stub), room)] \
            or [b""]
    out = []
    for i, p in enumerate(pieces):
        fl = (PFC_FIRST if i == 0 else 0) | \
            (PFC_LAST if i == len(pieces) - 1 else 0)
        body = struct.pack("<IHH", len(stub) - sum(
            len(x) for x in pieces[:i]), ctx_id, opnum) + p
        out.append(pdu_header(0, fl, len(body), call_id) + body)
    return out


def parse_pdu(pdu):
    """Decode one PDU into a dict (common header + the type's fields)."""
    if len(pdu) < 16:
        return {"type": "short", "raw": pdu.hex()}
    vers, minor, ptype, flags, drep, flen, alen, call_id = \
        struct.unpack_from("<BBBB4sHHI", pdu, 0)
    d = {"type": PTYPE.get(ptype, "ptype_%d" % ptype), "rpc_vers": vers,
         "rpc_vers_minor": minor, "pfc_flags": "0x%02X" % flags,
         "drep": drep.hex(), "frag_length": flen, "auth_length": alen,
         "call_id": call_id}
    b = pdu[16:flen]
    if ptype in (12, 15):            # bind_ack, alter_context_resp
        mx, mr, ag, sl = struct.unpack_from("<HHIH", b, 0)
        sec = b[10:10 + sl]
        o = 10 + sl
        o += (-(o + 16)) % 4         # align the result list on the PDU
        n = b[o]
        o += 4
        res = []
        for _ in range(n):
            r, reason = struct.unpack_from("<HH", b, o)
            res.append({"result": ACK_RESULT.get(r, r),
                        "reason": ACK_REASON.get(reason, reason)
                        if r != 3 else "0x%04X" % reason,
                        "transfer_syntax": parse_syntax(b[o + 4:o + 24])})
            o += 24
        d.update({"max_xmit_frag": mx, "max_recv_frag": mr,
                  "assoc_group_id": "0x%08X" % ag,
                  "sec_addr": sec.rstrip(b"\0").decode(errors="replace"),
                  "sec_addr_len": sl, "results": res})
    elif ptype == 13:                # bind_nak
        reason = struct.unpack_from("<H", b, 0)[0]
        d["reject_reason"] = NAK_REASON.get(reason, reason)
        if len(b) > 2:
            n = b[2]
            d["versions"] = ["%d.%d" % (b[3 + 2 * i], b[4 + 2 * i])
                             for i in range(n) if 4 + 2 * i < len(b)]
        d["body_hex"] = b.hex()
    elif ptype == 2:                 # response
        hint, ctx, cc = struct.unpack_from("<IHB", b, 0)
        d.update({"alloc_hint": hint, "p_cont_id": ctx, "cancel_count": cc,
                  "stub": b[8:flen - 16 - (alen + 8 if alen else 0)]})
    elif ptype == 3:                 # fault
        hint, ctx, cc, fl, st = struct.unpack_from("<IHBBI", b, 0)
        d.update({"alloc_hint": hint, "p_cont_id": ctx, "cancel_count": cc,
                  "fault_flags": "0x%02X" % fl, "status": "0x%08X" % st,
                  "fault": fault_name(st)})
    else:
        d["body_hex"] = b.hex()
    return d


class RpcPipe:
    """DCE/RPC over one open pipe of a PipeClient."""

    def __init__(self, client, fid, use_transceive=True, max_read=4280):
        self.c = client
        self.fid = fid
        self.use_transceive = use_transceive
        self.max_read = max_read
        self.call_id = 0
        self.max_xmit = 4280
        self.buf = b""
        self.last_status = []        # SMB statuses seen on the last call

    def next_call_id(self):
        self.call_id += 1
        return self.call_id

    # ---- raw PDU exchange
    def send_recv(self, pdus, expect_reply=True, read_timeout=None):
        """Write all PDUs (the last one by transceive when use_transceive),
        then read one complete reply (all fragments of it).  Returns
        (list of parsed PDUs, info dict of SMB statuses)."""
        info = {"smb": []}
        self.buf = b""
        for i, pdu in enumerate(pdus):
            last = i == len(pdus) - 1
            if last and self.use_transceive and expect_reply:
                r, out = self.c.transceive(self.fid, pdu, self.max_read,
                                           timeout=read_timeout)
                info["smb"].append(("IOCTL", r.name))
                if r.status not in (0, 0x80000005):
                    return [], info
                self.buf += out
            else:
                r, cnt = self.c.write(self.fid, pdu)
                info["smb"].append(("WRITE", r.name))
                if r.status != 0:
                    return [], info
        if not expect_reply:
            return [], info
        return self.read_reply(info, read_timeout)

    def read_pdu(self, info, timeout=None):
        while True:
            if len(self.buf) >= 10:
                flen = struct.unpack_from("<H", self.buf, 8)[0]
                if flen >= 16 and len(self.buf) >= flen:
                    pdu, self.buf = self.buf[:flen], self.buf[flen:]
                    return pdu
            r, data = self.c.read(self.fid, self.max_read,
                                  timeout=timeout or 5.0,
                                  cancel_after=timeout or 5.0)
            info["smb"].append(("READ", r.name))
            if r.status not in (0, 0x80000005) or not data:
                return None
            self.buf += data

    def read_reply(self, info=None, timeout=None):
        info = info if info is not None else {"smb": []}
        pdus = []
        while True:
            raw = self.read_pdu(info, timeout)
            if raw is None:
                break
            p = parse_pdu(raw)
            p["_raw"] = raw
            pdus.append(p)
            if int(p["pfc_flags"], 16) & PFC_LAST or \
                    p["type"] not in ("response",):
                break
        return pdus, info

    # ---- bind / alter
    def bind(self, *abstracts, contexts=None, ptype=11, **kw):
        """bind(SRVSVC) binds context 0 with NDR; contexts=[(id, abs,
        [transfers])] for anything else.  Returns the parsed reply."""
        if contexts is None:
            contexts = [(i, a, [NDR]) for i, a in enumerate(abstracts)]
        pdu = bind_pdu(contexts, call_id=self.next_call_id(), ptype=ptype,
                       **kw)
        pdus, info = self.send_recv([pdu])
        out = dict(pdus[0]) if pdus else {"type": "none"}
        out.pop("_raw", None)
        out["smb"] = info["smb"]
        if out.get("max_xmit_frag"):
            self.max_xmit = out["max_xmit_frag"]
        return out

    def alter(self, contexts, **kw):
        return self.bind(contexts=contexts, ptype=14, **kw)

    def call(self, opnum, stub, ctx_id=0, nfrags=None, call_id=None):
        """One request; the reassembled response stub or the fault."""
        cid = call_id if call_id is not None else self.next_call_id()
        pdus = request_pdus(opnum, stub, ctx_id, cid, self.max_xmit, nfrags)
        replies, info = self.send_recv(pdus)
        out = {"smb": info["smb"], "fragments": len(replies)}
        if not replies:
            out["type"] = "none"
            return out
        first = replies[0]
        out["type"] = first["type"]
        out["call_id"] = first["call_id"]
        out["pfc_flags"] = [p["pfc_flags"] for p in replies]
        if first["type"] == "response":
            out["stub"] = b"".join(p["stub"] for p in replies
                                   if p["type"] == "response")
            out["alloc_hint"] = first["alloc_hint"]
            out["frag_lengths"] = [p["frag_length"] for p in replies]
        elif first["type"] == "fault":
            out.update({k: first[k] for k in ("status", "fault",
                                              "fault_flags", "p_cont_id")})
        else:
            out.update({k: v for k, v in first.items() if k != "_raw"})
        return out


from srvsvc_ndr import *  # noqa: E402,F401,F403  (NDR, srvsvc, wkssvc)


# ------------------------------------------------------------------ helpers

def open_rpc(host, port, user=None, password=None, anonymous=False,
             guest=False, pipe="srvsvc", iface=SRVSVC):
    """Connect, tree-connect IPC$, open the pipe and bind iface with NDR.
    Returns (client, RpcPipe, bind reply); raises RuntimeError on a
    failure before the bind."""
    c = PipeClient(host, port, user, password, anonymous, guest).connect()
    tc = c.tree_connect("IPC$")
    if tc["status"] != "STATUS_SUCCESS":
        c.close()
        raise RuntimeError("tree connect IPC$: %s" % tc["status"])
    op = c.create(pipe)
    if op["status"] != "STATUS_SUCCESS":
        c.close()
        raise RuntimeError("create %s: %s" % (pipe, op["status"]))
    rpc = RpcPipe(c, op["file_id"])
    ack = rpc.bind(iface)
    return c, rpc, ack

