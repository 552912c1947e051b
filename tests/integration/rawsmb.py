"""A small raw SMB2 client for the bad-input tests.

Just enough protocol to build any request byte by byte and to reach each
stage of a connection: NetBIOS session framing, the SMB2 header, NEGOTIATE
(with 3.1.1 negotiate contexts), an anonymous NTLMSSP-in-SPNEGO
SESSION_SETUP (hand-encoded DER), TREE_CONNECT, CREATE, READ, CLOSE,
QUERY_INFO, QUERY_DIRECTORY and the fixed-size bodies of every other
command.  Every body builder takes keyword overrides for each of its wire
fields, so a test can make any field lie.  No signing, no encryption:
anonymous sessions need neither.
"""
import errno
import os
import socket
import struct
import time

# ------------------------------------------------------------------ constants

STATUS = {
    "STATUS_SUCCESS": 0x00000000,
    "STATUS_PENDING": 0x00000103,
    "STATUS_NO_MORE_FILES": 0x80000006,
    "STATUS_BUFFER_OVERFLOW": 0x80000005,
    "STATUS_NOT_IMPLEMENTED": 0xC0000002,
    "STATUS_INVALID_INFO_CLASS": 0xC0000003,
    "STATUS_INFO_LENGTH_MISMATCH": 0xC0000004,
    "STATUS_INVALID_HANDLE": 0xC0000008,
    "STATUS_INVALID_PARAMETER": 0xC000000D,
    "STATUS_NO_SUCH_FILE": 0xC000000F,
    "STATUS_INVALID_DEVICE_REQUEST": 0xC0000010,
    "STATUS_END_OF_FILE": 0xC0000011,
    "STATUS_MORE_PROCESSING_REQUIRED": 0xC0000016,
    "STATUS_ACCESS_DENIED": 0xC0000022,
    "STATUS_BUFFER_TOO_SMALL": 0xC0000023,
    "STATUS_OBJECT_NAME_INVALID": 0xC0000033,
    "STATUS_OBJECT_NAME_NOT_FOUND": 0xC0000034,
    "STATUS_OBJECT_NAME_COLLISION": 0xC0000035,
    "STATUS_OBJECT_PATH_INVALID": 0xC0000039,
    "STATUS_OBJECT_PATH_NOT_FOUND": 0xC000003A,
    "STATUS_OBJECT_PATH_SYNTAX_BAD": 0xC000003B,
    "STATUS_SHARING_VIOLATION": 0xC0000043,
    "STATUS_LOGON_FAILURE": 0xC000006D,
    "STATUS_ACCOUNT_RESTRICTION": 0xC000006E,
    "STATUS_NONE_MAPPED": 0xC0000073,
    "STATUS_INSUFFICIENT_RESOURCES": 0xC000009A,
    "STATUS_FILE_IS_A_DIRECTORY": 0xC00000BA,
    "STATUS_NOT_SUPPORTED": 0xC00000BB,
    "STATUS_NETWORK_NAME_DELETED": 0xC00000C9,
    "STATUS_BAD_NETWORK_NAME": 0xC00000CC,
    "STATUS_REQUEST_NOT_ACCEPTED": 0xC00000D0,
    "STATUS_INTERNAL_ERROR": 0xC00000E5,
    "STATUS_NOT_A_DIRECTORY": 0xC0000103,
    "STATUS_CANCELLED": 0xC0000120,
    "STATUS_FILE_CLOSED": 0xC0000128,
    "STATUS_INVALID_LEVEL": 0xC0000148,
    "STATUS_USER_SESSION_DELETED": 0xC0000203,
    "STATUS_NETWORK_SESSION_EXPIRED": 0xC000035C,
    "STATUS_INVALID_NETWORK_RESPONSE": 0xC00000C3,
    "STATUS_FS_DRIVER_REQUIRED": 0xC000019C,
    "STATUS_NOT_A_REPARSE_POINT": 0xC0000275,
    "STATUS_STOPPED_ON_SYMLINK": 0x8000002D,
    "STATUS_NO_PREAUTH_INTEGRITY_HASH_OVERLAP": 0xC05D0000,
    "STATUS_FILE_LOCK_CONFLICT": 0xC0000054,
    "STATUS_LOCK_NOT_GRANTED": 0xC0000055,
    "STATUS_RANGE_NOT_LOCKED": 0xC000007E,
    "STATUS_INVALID_LOCK_RANGE": 0xC00001A1,
    "STATUS_ILLEGAL_CHARACTER": 0xC0000161,
    "STATUS_NO_EAS_ON_FILE": 0xC0000052,
    "STATUS_EA_TOO_LARGE": 0xC0000050,
    "STATUS_NONEXISTENT_EA_ENTRY": 0xC0000051,
    "STATUS_INVALID_EA_NAME": 0x80000013,
    "STATUS_EA_LIST_INCONSISTENT": 0x80000014,
    "STATUS_PRIVILEGE_NOT_HELD": 0xC0000061,
    "STATUS_INVALID_SECURITY_DESCR": 0xC0000079,
    "STATUS_EAS_NOT_SUPPORTED": 0xC000004F,
    "STATUS_BAD_IMPERSONATION_LEVEL": 0xC00000A5,
    "STATUS_NAME_TOO_LONG": 0xC0000106,
    "STATUS_OBJECT_NAME_EXISTS": 0x40000000,
    "STATUS_MEDIA_WRITE_PROTECTED": 0xC00000A2,
    "STATUS_INVALID_DEVICE_STATE": 0xC0000184,
    "STATUS_INVALID_OPLOCK_PROTOCOL": 0xC00000E3,
    "STATUS_NOT_SAME_DEVICE": 0xC00000D4,
    "STATUS_REQUEST_ABORTED": 0xC0000240,
    "STATUS_DATA_ERROR": 0xC000003E,
    "STATUS_INVALID_BUFFER_SIZE": 0xC0000206,
    "STATUS_NOT_FOUND": 0xC0000225,
}
STATUS_NAME = {v: k for k, v in STATUS.items()}


def status_name(v):
    return STATUS_NAME.get(v, "0x%08X" % v)


def status_value(name):
    if isinstance(name, int):
        return name
    if name.startswith("0x"):
        return int(name, 16)
    return STATUS[name]


CMD = {
    "NEGOTIATE": 0x00, "SESSION_SETUP": 0x01, "LOGOFF": 0x02,
    "TREE_CONNECT": 0x03, "TREE_DISCONNECT": 0x04, "CREATE": 0x05,
    "CLOSE": 0x06, "FLUSH": 0x07, "READ": 0x08, "WRITE": 0x09, "LOCK": 0x0A,
    "IOCTL": 0x0B, "CANCEL": 0x0C, "ECHO": 0x0D, "QUERY_DIRECTORY": 0x0E,
    "CHANGE_NOTIFY": 0x0F, "QUERY_INFO": 0x10, "SET_INFO": 0x11,
    "OPLOCK_BREAK": 0x12,
}
CMD_NAME = {v: k for k, v in CMD.items()}

FLAG_RESPONSE = 0x1
FLAG_ASYNC = 0x2
FLAG_RELATED = 0x4
FLAG_SIGNED = 0x8

D202, D210, D300, D302, D311 = 0x0202, 0x0210, 0x0300, 0x0302, 0x0311
ALL_DIALECTS = [D202, D210, D300, D302, D311]

CTX_PREAUTH = 0x0001
CTX_ENCRYPTION = 0x0002
CTX_COMPRESSION = 0x0003
CTX_NETNAME = 0x0005
CTX_SIGNING = 0x0008
HASH_SHA512 = 0x0001

SMB2_PROTOCOL_ID = b"\xfeSMB"
HDR = struct.Struct("<4sHHIHHIIQIIQ16s")
assert HDR.size == 64

RELATED_FID = b"\xff" * 16


class Disconnected(Exception):
    """The peer closed the connection (EOF or reset)."""


class NoResponse(Exception):
    """Nothing (complete) arrived within the timeout."""


class ProtocolError(Exception):
    """A reply we could not make sense of."""


# -------------------------------------------------------------- header/body

def build_header(command, message_id=0, session_id=0, tree_id=0, **kw):
    f = {
        "protocol_id": SMB2_PROTOCOL_ID, "structure_size": 64,
        "credit_charge": 0, "status": 0, "command": command,
        "credit_request": 256, "flags": 0, "next_command": 0,
        "message_id": message_id, "reserved": 0xFEFF, "tree_id": tree_id,
        "session_id": session_id, "signature": b"\0" * 16,
    }
    for k, v in kw.items():
        if k not in f:
            raise KeyError("unknown header field %r" % k)
        f[k] = v
    if isinstance(f["protocol_id"], str):
        f["protocol_id"] = bytes.fromhex(f["protocol_id"])
    return HDR.pack(f["protocol_id"], f["structure_size"], f["credit_charge"],
                    f["status"], f["command"], f["credit_request"], f["flags"],
                    f["next_command"], f["message_id"], f["reserved"],
                    f["tree_id"], f["session_id"], f["signature"])


class Response:
    """One SMB2 response PDU (header fields + body bytes)."""

    def __init__(self, pdu):
        if len(pdu) < 64:
            raise ProtocolError("short SMB2 response (%d bytes): %s"
                                % (len(pdu), pdu[:64].hex()))
        (self.protocol_id, self.structure_size, self.credit_charge,
         self.status, self.command, self.credit, self.flags,
         self.next_command, self.message_id, self.reserved, self.tree_id,
         self.session_id, self.signature) = HDR.unpack_from(pdu, 0)
        if self.protocol_id != SMB2_PROTOCOL_ID:
            raise ProtocolError("response protocol id %s"
                                % self.protocol_id.hex())
        self.async_id = None
        if self.flags & FLAG_ASYNC:
            self.async_id = struct.unpack_from("<Q", pdu, 32)[0]
        self.pdu = pdu
        end = self.next_command or len(pdu)
        self.body = pdu[64:end]

    @property
    def status_name(self):
        return status_name(self.status)

    def u8(self, off):
        return self.body[off]

    def u16(self, off):
        return struct.unpack_from("<H", self.body, off)[0]

    def u32(self, off):
        return struct.unpack_from("<I", self.body, off)[0]

    def u64(self, off):
        return struct.unpack_from("<Q", self.body, off)[0]

    def __repr__(self):
        return "<%s %s mid=%d>" % (CMD_NAME.get(self.command, self.command),
                                   self.status_name, self.message_id)


def split_compound(pdu):
    """Split a (possibly compounded) response into Response objects."""
    out = []
    off = 0
    for _ in range(64):
        r = Response(pdu[off:])
        if r.next_command:
            r.body = pdu[off + 64:off + r.next_command]
            out.append(r)
            off += r.next_command
        else:
            out.append(r)
            return out
    raise ProtocolError("compound response with more than 64 elements")


def _pack(fields, values):
    """fields: [(name, struct fmt, default)].  Unknown names in values
    are an error so a typo in a case file cannot pass silently."""
    unknown = set(values) - {f[0] for f in fields}
    if unknown:
        raise KeyError("unknown body field(s) %s" % sorted(unknown))
    out = b""
    for name, fmt, default in fields:
        v = values.get(name, default)
        if isinstance(v, str):
            v = bytes.fromhex(v)
        out += struct.pack("<" + fmt, v)
    return out


def utf16(s):
    return s.encode("utf-16-le")


def pad8(n):
    return (8 - n % 8) % 8


def _hex(v):
    """Bytes from hex; a list joins its parts, a [hex, n] part is
    repeated n times (10,000-entry lists stay short in the catalogue)."""
    if isinstance(v, list):
        return b"".join(bytes.fromhex(p[0]) * p[1] if isinstance(p, list)
                        else bytes.fromhex(p) for p in v)
    return bytes.fromhex(v) if isinstance(v, str) else v


# ---- NEGOTIATE

def ctx_preauth(hashes=(HASH_SHA512,), salt=None, hash_count=None,
                salt_length=None):
    salt = os.urandom(32) if salt is None else _hex(salt)
    hc = len(hashes) if hash_count is None else hash_count
    sl = len(salt) if salt_length is None else salt_length
    return struct.pack("<HH", hc, sl) + b"".join(
        struct.pack("<H", h) for h in hashes) + salt


def ctx_encryption(ciphers=(2, 1), count=None):
    n = len(ciphers) if count is None else count
    return struct.pack("<H", n) + b"".join(struct.pack("<H", c)
                                           for c in ciphers)


def ctx_signing(algs=(2, 1), count=None):
    n = len(algs) if count is None else count
    return struct.pack("<H", n) + b"".join(struct.pack("<H", a) for a in algs)


def default_contexts():
    return [(CTX_PREAUTH, ctx_preauth()), (CTX_ENCRYPTION, ctx_encryption())]


def encode_contexts(contexts):
    """contexts: list of (type, data) or dicts with type/data and optional
    data_length / reserved overrides and pad (bytes after it)."""
    out = b""
    for i, c in enumerate(contexts):
        if isinstance(c, dict):
            ctype, data = c["type"], _hex(c.get("data", b""))
            dlen = c.get("data_length", len(data))
            reserved = c.get("reserved", 0)
            pad = c.get("pad")
        else:
            (ctype, data), dlen, reserved, pad = c, len(c[1]), 0, None
        out += struct.pack("<HHI", ctype, dlen, reserved) + data
        if i != len(contexts) - 1:
            out += b"\0" * (pad8(len(out)) if pad is None else pad)
    return out


NEGOTIATE_FIELDS = [
    ("structure_size", "H", 36), ("dialect_count", "H", None),
    ("security_mode", "H", 1), ("reserved", "H", 0),
    ("capabilities", "I", 0x7F), ("client_guid", "16s", b"ringsmb-test-gd!"),
    ("context_offset", "I", 0), ("context_count", "H", 0),
    ("reserved2", "H", 0),
]


def negotiate_body(dialects=None, contexts=None, **fields):
    dialects = ALL_DIALECTS if dialects is None else dialects
    dl = b"".join(struct.pack("<H", d) for d in dialects)
    if contexts is None:
        contexts = default_contexts() if D311 in dialects else []
    ctx = encode_contexts(contexts)
    fields.setdefault("dialect_count", len(dialects))
    dyn = dl
    if contexts:
        gap = pad8(64 + 36 + len(dl))
        fields.setdefault("context_offset", 64 + 36 + len(dl) + gap)
        fields.setdefault("context_count", len(contexts))
        dyn = dl + b"\0" * gap + ctx
    return _pack(NEGOTIATE_FIELDS, fields) + dyn


# ---- SPNEGO / NTLMSSP (anonymous)

def der_len(n):
    if n < 0x80:
        return bytes([n])
    if n < 0x100:
        return bytes([0x81, n])
    if n < 0x10000:
        return bytes([0x82]) + struct.pack(">H", n)
    return bytes([0x83]) + struct.pack(">I", n)[1:]


def der(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


OID_SPNEGO = der(0x06, bytes.fromhex("2b0601050502"))
OID_NTLMSSP = der(0x06, bytes.fromhex("2b06010401823702020a"))

NTLM_FLAGS = (0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 |
              0x00080000 | 0x20000000 | 0x80000000)
NTLM_ANONYMOUS = 0x00000800


def spnego_init(mech_token, mech_oid=OID_NTLMSSP):
    inner = der(0x30, der(0xA0, der(0x30, mech_oid)) +
                der(0xA2, der(0x04, mech_token)))
    return der(0x60, OID_SPNEGO + der(0xA0, inner))


def spnego_resp(token):
    return der(0xA1, der(0x30, der(0xA2, der(0x04, token))))


def ntlm_negotiate(flags=NTLM_FLAGS, signature=b"NTLMSSP\0", msg_type=1):
    return signature + struct.pack("<II", msg_type, flags) + b"\0" * 16


def ntlm_authenticate(lm=b"", nt=b"", domain=b"", user=b"", workstation=b"",
                      session_key=b"", flags=NTLM_FLAGS | NTLM_ANONYMOUS,
                      signature=b"NTLMSSP\0", msg_type=3, **over):
    """AUTHENTICATE_MESSAGE without Version/MIC.  over: <field>_len,
    <field>_maxlen, <field>_offset for lm/nt/domain/user/workstation/key."""
    payload = [("lm", _hex(lm)), ("nt", _hex(nt)), ("domain", _hex(domain)),
               ("user", _hex(user)), ("workstation", _hex(workstation)),
               ("key", _hex(session_key))]
    off = 64
    fields = b""
    data = b""
    for name, blob in payload:
        ln = over.pop(name + "_len", len(blob))
        mx = over.pop(name + "_maxlen", ln)
        o = over.pop(name + "_offset", off)
        fields += struct.pack("<HHI", ln, mx, o)
        data += blob
        off += len(blob)
    if over:
        raise KeyError("unknown NTLM field(s) %s" % sorted(over))
    return (signature + struct.pack("<I", msg_type) + fields +
            struct.pack("<I", flags) + data)


SESSION_SETUP_FIELDS = [
    ("structure_size", "H", 25), ("flags", "B", 0), ("security_mode", "B", 1),
    ("capabilities", "I", 1), ("channel", "I", 0),
    ("security_offset", "H", 88), ("security_length", "H", None),
    ("previous_session_id", "Q", 0),
]


def session_setup_body(blob=b"", **fields):
    blob = _hex(blob)
    fields.setdefault("security_length", len(blob))
    return _pack(SESSION_SETUP_FIELDS, fields) + (blob or b"\0")


# ---- TREE_CONNECT, CREATE, READ, CLOSE, QUERY_*

TREE_CONNECT_FIELDS = [
    ("structure_size", "H", 9), ("flags", "H", 0),
    ("path_offset", "H", 72), ("path_length", "H", None),
]


def tree_connect_body(path="\\\\127.0.0.1\\share", raw_path=None, **fields):
    p = _hex(raw_path) if raw_path is not None else utf16(path)
    fields.setdefault("path_length", len(p))
    return _pack(TREE_CONNECT_FIELDS, fields) + (p or b"\0")


CREATE_FIELDS = [
    ("structure_size", "H", 57), ("security_flags", "B", 0),
    ("oplock", "B", 0), ("impersonation", "I", 2),
    ("create_flags", "Q", 0), ("reserved", "Q", 0),
    ("desired_access", "I", 0x00120089), ("file_attributes", "I", 0),
    ("share_access", "I", 7), ("disposition", "I", 1), ("options", "I", 0),
    ("name_offset", "H", 120), ("name_length", "H", None),
    ("contexts_offset", "I", 0), ("contexts_length", "I", 0),
]


def create_context(name, data=b"", next_=None, name_offset=None,
                   name_length=None, data_offset=None, data_length=None,
                   reserved=0):
    name, data = _hex(name), _hex(data)
    no = 16 if name_offset is None else name_offset
    doff = 0
    body = name
    if data:
        body += b"\0" * pad8(16 + len(name))
        doff = 16 + len(body)
        body += data
    if data_offset is not None:
        doff = data_offset
    return {"next": next_, "blob_tail": body, "head": (
        no, len(name) if name_length is None else name_length, reserved,
        doff, len(data) if data_length is None else data_length)}


def encode_create_contexts(ctxs):
    out = b""
    for i, c in enumerate(ctxs):
        if isinstance(c, dict) and "head" not in c:
            c = create_context(**c)
        no, nl, res, doff, dl = c["head"]
        elem = struct.pack("<IHHHHI", 0, no, nl, res, doff, dl) + c["blob_tail"]
        last = i == len(ctxs) - 1
        if not last:
            elem += b"\0" * pad8(len(elem))
        nxt = c["next"] if c["next"] is not None else (0 if last
                                                       else len(elem))
        out += struct.pack("<I", nxt) + elem[4:]
    return out


def create_body(name="", raw_name=None, contexts=None, **fields):
    n = _hex(raw_name) if raw_name is not None else utf16(name)
    fields.setdefault("name_length", len(n))
    dyn = n
    if contexts:
        dyn += b"\0" * pad8(120 + len(n))
        fields.setdefault("contexts_offset", 64 + 56 + len(dyn))
        c = encode_create_contexts(contexts)
        fields.setdefault("contexts_length", len(c))
        dyn += c
    return _pack(CREATE_FIELDS, fields) + (dyn or b"\0")


READ_FIELDS = [
    ("structure_size", "H", 49), ("padding", "B", 0x50), ("flags", "B", 0),
    ("length", "I", 4096), ("offset", "Q", 0), ("file_id", "16s", b"\0" * 16),
    ("minimum_count", "I", 0), ("channel", "I", 0), ("remaining", "I", 0),
    ("channel_info_offset", "H", 0), ("channel_info_length", "H", 0),
]


def read_body(**fields):
    return _pack(READ_FIELDS, fields) + b"\0"


CLOSE_FIELDS = [("structure_size", "H", 24), ("flags", "H", 0),
                ("reserved", "I", 0), ("file_id", "16s", b"\0" * 16)]
FLUSH_FIELDS = [("structure_size", "H", 24), ("reserved1", "H", 0),
                ("reserved2", "I", 0), ("file_id", "16s", b"\0" * 16)]

QUERY_INFO_FIELDS = [
    ("structure_size", "H", 41), ("info_type", "B", 1),
    ("info_class", "B", 5), ("output_length", "I", 4096),
    ("input_offset", "H", 0), ("reserved", "H", 0), ("input_length", "I", 0),
    ("additional", "I", 0), ("flags", "I", 0), ("file_id", "16s", b"\0" * 16),
]


def query_info_body(input=b"", **fields):
    inp = _hex(input)
    if inp:
        fields.setdefault("input_offset", 104)
        fields.setdefault("input_length", len(inp))
    return _pack(QUERY_INFO_FIELDS, fields) + (inp or b"\0")


QUERY_DIRECTORY_FIELDS = [
    ("structure_size", "H", 33), ("info_class", "B", 0x25), ("flags", "B", 0),
    ("file_index", "I", 0), ("file_id", "16s", b"\0" * 16),
    ("name_offset", "H", 96), ("name_length", "H", None),
    ("output_length", "I", 65536),
]


def query_directory_body(pattern="*", raw_pattern=None, **fields):
    p = _hex(raw_pattern) if raw_pattern is not None else utf16(pattern)
    fields.setdefault("name_length", len(p))
    return _pack(QUERY_DIRECTORY_FIELDS, fields) + (p or b"\0")


SMALL4_FIELDS = [("structure_size", "H", 4), ("reserved", "H", 0)]

WRITE_FIELDS = [
    ("structure_size", "H", 49), ("data_offset", "H", 112),
    ("length", "I", None), ("offset", "Q", 0), ("file_id", "16s", b"\0" * 16),
    ("channel", "I", 0), ("remaining", "I", 0),
    ("channel_info_offset", "H", 0), ("channel_info_length", "H", 0),
    ("flags", "I", 0),
]


def write_body(data=b"x", **fields):
    d = _hex(data)
    fields.setdefault("length", len(d))
    return _pack(WRITE_FIELDS, fields) + (d or b"\0")


LOCK_FIELDS = [("structure_size", "H", 48), ("lock_count", "H", 1),
               ("lock_sequence", "I", 0), ("file_id", "16s", b"\0" * 16),
               ("lock_offset", "Q", 0), ("lock_length", "Q", 1),
               ("lock_flags", "I", 2), ("lock_reserved", "I", 0)]
IOCTL_FIELDS = [
    ("structure_size", "H", 57), ("reserved", "H", 0),
    ("ctl_code", "I", 0x00060194), ("file_id", "16s", b"\xff" * 16),
    ("input_offset", "I", 0), ("input_count", "I", 0),
    ("max_input_response", "I", 0), ("output_offset", "I", 0),
    ("output_count", "I", 0), ("max_output_response", "I", 4096),
    ("flags", "I", 1), ("reserved2", "I", 0),
]
CHANGE_NOTIFY_FIELDS = [
    ("structure_size", "H", 32), ("flags", "H", 0),
    ("output_length", "I", 4096), ("file_id", "16s", b"\0" * 16),
    ("completion_filter", "I", 0x17), ("reserved", "I", 0)]
SET_INFO_FIELDS = [
    ("structure_size", "H", 33), ("info_type", "B", 1),
    ("info_class", "B", 4), ("buffer_length", "I", 40),
    ("buffer_offset", "H", 96), ("reserved", "H", 0),
    ("additional", "I", 0), ("file_id", "16s", b"\0" * 16)]


def set_info_body(buffer=None, **fields):
    """The default buffer is 40 zero bytes (FileBasicInformation)."""
    if buffer is None:
        return _pack(SET_INFO_FIELDS, fields) + b"\0" * 40
    b = _hex(buffer)
    fields.setdefault("buffer_length", len(b))
    return _pack(SET_INFO_FIELDS, fields) + (b or b"\0")


OPLOCK_BREAK_FIELDS = [
    ("structure_size", "H", 24), ("oplock_level", "B", 0),
    ("reserved", "B", 0), ("reserved2", "I", 0),
    ("file_id", "16s", b"\0" * 16)]


def body_for(cmd, **args):
    """Build the body of any command from builder args/field overrides."""
    c = CMD_NAME.get(cmd, cmd) if isinstance(cmd, int) else cmd
    if c == "NEGOTIATE":
        return negotiate_body(**args)
    if c == "SESSION_SETUP":
        return session_setup_body(**args)
    if c == "TREE_CONNECT":
        return tree_connect_body(**args)
    if c == "CREATE":
        return create_body(**args)
    if c == "READ":
        return read_body(**args)
    if c == "CLOSE":
        return _pack(CLOSE_FIELDS, args)
    if c == "FLUSH":
        return _pack(FLUSH_FIELDS, args)
    if c == "QUERY_INFO":
        return query_info_body(**args)
    if c == "QUERY_DIRECTORY":
        return query_directory_body(**args)
    if c in ("ECHO", "LOGOFF", "TREE_DISCONNECT", "CANCEL"):
        return _pack(SMALL4_FIELDS, args)
    if c == "WRITE":
        return write_body(**args)
    if c == "LOCK":
        return _pack(LOCK_FIELDS, args)
    if c == "IOCTL":
        return _pack(IOCTL_FIELDS, args) + b"\0" * 8
    if c == "CHANGE_NOTIFY":
        return _pack(CHANGE_NOTIFY_FIELDS, args)
    if c == "SET_INFO":
        return set_info_body(**args)
    if c == "OPLOCK_BREAK":
        return _pack(OPLOCK_BREAK_FIELDS, args)
    raise KeyError("no body builder for %r" % (cmd,))


# Fixed part length of each request body (StructureSize rounded down to
# even): what "every truncation" templates cut below.
FIXED_LEN = {
    "NEGOTIATE": 36, "SESSION_SETUP": 24, "LOGOFF": 4, "TREE_CONNECT": 8,
    "TREE_DISCONNECT": 4, "CREATE": 56, "CLOSE": 24, "FLUSH": 24, "READ": 48,
    "WRITE": 48, "LOCK": 48, "IOCTL": 56, "CANCEL": 4, "ECHO": 4,
    "QUERY_DIRECTORY": 32, "CHANGE_NOTIFY": 32, "QUERY_INFO": 40,
    "SET_INFO": 32, "OPLOCK_BREAK": 24,
}
STRUCTURE_SIZE = {
    "NEGOTIATE": 36, "SESSION_SETUP": 25, "LOGOFF": 4, "TREE_CONNECT": 9,
    "TREE_DISCONNECT": 4, "CREATE": 57, "CLOSE": 24, "FLUSH": 24, "READ": 49,
    "WRITE": 49, "LOCK": 48, "IOCTL": 57, "CANCEL": 4, "ECHO": 4,
    "QUERY_DIRECTORY": 33, "CHANGE_NOTIFY": 32, "QUERY_INFO": 41,
    "SET_INFO": 33, "OPLOCK_BREAK": 24,
}


def nbt(pdu, length=None, byte0=0):
    n = len(pdu) if length is None else length
    return bytes([byte0]) + struct.pack(">I", n)[1:] + pdu


# ---------------------------------------------------------------- connection

class Conn:
    """One TCP connection speaking raw SMB2."""

    def __init__(self, host, port, timeout=2.0):
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.next_mid = 0
        self.dialect = None
        self.session_id = 0
        self.tree_id = 0
        self.neg = None
        self.max_read = 65536
        self.max_write = 65536
        self.max_transact = 65536
        self.closed = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    # -- bytes
    def send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise Disconnected(str(e))

    def _recv_exact(self, n, deadline):
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoResponse("timeout with %d of %d bytes" % (len(buf), n))
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            except socket.timeout:
                raise NoResponse("timeout with %d of %d bytes"
                                 % (len(buf), n))
            except OSError as e:
                if e.errno in (errno.ECONNRESET, errno.EPIPE,
                               errno.ECONNABORTED):
                    raise Disconnected(str(e))
                raise
            if not chunk:
                raise Disconnected("EOF after %d of %d bytes" % (len(buf), n))
            buf += chunk
        return buf

    def recv_frame(self, timeout=None, any_type=False):
        """One NBT frame's payload (with any_type, NetBIOS session
        service frames of other types are returned too, header included)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        h = self._recv_exact(4, deadline)
        n = struct.unpack(">I", b"\0" + h[1:])[0]
        if any_type and h[0] != 0:
            return h + self._recv_exact(n & 0x1FFFF, deadline)
        if h[0] != 0:
            raise ProtocolError("NBT type 0x%02x from server" % h[0])
        return self._recv_exact(n, deadline)

    def recv(self, timeout=None, skip_pending=True):
        """Responses of the next frame, skipping interim STATUS_PENDING."""
        for _ in range(32):
            frame = self.recv_frame(timeout)
            if frame[:4] != SMB2_PROTOCOL_ID:
                raise ProtocolError("non-SMB2 frame from server: %s"
                                    % frame[:8].hex())
            rs = split_compound(frame)
            rs = [r for r in rs if not (skip_pending and
                                        r.status == STATUS["STATUS_PENDING"]
                                        and r.flags & FLAG_ASYNC)]
            if rs:
                return rs
        raise ProtocolError("too many interim responses")

    def wait_closed(self, timeout):
        """Read until EOF/reset; returns the frames received before it.
        Raises NoResponse if the connection is still open at timeout."""
        deadline = time.monotonic() + timeout
        frames = []
        for _ in range(256):
            try:
                frames.append(self.recv_frame(
                    max(0.01, deadline - time.monotonic()), any_type=True))
            except Disconnected:
                return frames
        raise ProtocolError("server kept talking")

    # -- PDUs
    def header(self, command, **kw):
        kw.setdefault("message_id", self.next_mid)
        kw.setdefault("session_id", self.session_id)
        kw.setdefault("tree_id", self.tree_id)
        if self.dialect and self.dialect >= D210 and command != 0:
            kw.setdefault("credit_charge", 1)
        return build_header(command, **kw)

    def pdu(self, command, body, **hdr):
        cmd = CMD[command] if isinstance(command, str) else command
        p = self.header(cmd, **hdr) + body
        mid = struct.unpack_from("<Q", p, 24)[0]
        charge = struct.unpack_from("<H", p, 6)[0] or 1
        self.next_mid = max(self.next_mid, mid + charge)
        return p

    def request(self, command, body=None, timeout=None, **hdr):
        if body is None:
            body = body_for(command)
        p = self.pdu(command, body, **hdr)
        self.send(nbt(p))
        return self.recv(timeout)[0]

    def expect(self, resp, status="STATUS_SUCCESS"):
        if resp.status != STATUS[status]:
            raise ProtocolError("%r: expected %s" % (resp, status))
        return resp

    # -- steps to each stage
    def negotiate(self, dialects=None, contexts=None, **fields):
        r = self.request("NEGOTIATE", negotiate_body(dialects, contexts,
                                                     **fields))
        self.expect(r)
        self.neg = r
        self.dialect = r.u16(4)
        self.max_transact = r.u32(28)
        self.max_read = r.u32(32)
        self.max_write = r.u32(36)
        return r

    def session_setup_first(self):
        r = self.request("SESSION_SETUP", session_setup_body(
            spnego_init(ntlm_negotiate())))
        self.expect(r, "STATUS_MORE_PROCESSING_REQUIRED")
        self.session_id = r.session_id
        return r

    def session_setup_anonymous(self):
        self.session_setup_first()
        r = self.request("SESSION_SETUP", session_setup_body(
            spnego_resp(ntlm_authenticate())))
        self.expect(r)
        return r

    def tree_connect(self, share="share"):
        r = self.request("TREE_CONNECT", tree_connect_body(
            "\\\\127.0.0.1\\%s" % share))
        self.expect(r)
        self.tree_id = r.tree_id
        return r

    def create(self, name, **fields):
        r = self.request("CREATE", create_body(name, **fields))
        self.expect(r)
        return r.body[64:80]

    def open_dir(self, name=""):
        return self.create(name, desired_access=0x00100081, options=1)

    def read(self, fid, offset=0, length=4096):
        r = self.request("READ", read_body(file_id=fid, offset=offset,
                                           length=length))
        self.expect(r)
        off = r.u8(2) - 64
        return r.body[off:off + r.u32(4)]

    def close_file(self, fid):
        return self.expect(self.request("CLOSE", _pack(CLOSE_FIELDS,
                                                       {"file_id": fid})))
