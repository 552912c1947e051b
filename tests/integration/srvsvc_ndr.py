"""NDR20 for the IPC$ tests: a writer and reader for stub data, and the
srvsvc (MS-SRVS) and wkssvc (MS-WKST) calls the tests make, request
builders and response decoders.  dcerpc_client.py re-exports all of it.
"""
import struct


def _utf16(s):
    return s.encode("utf-16-le")


def _werror_name(v):
    """dcerpc_client's names (imported late: it imports this module)."""
    import dcerpc_client
    return dcerpc_client.werror_name(v)


# ------------------------------------------------------------------ NDR20

class NdrWriter:
    def __init__(self):
        self.b = bytearray()
        self.ref = 0x00020000

    def align(self, n):
        self.b += b"\0" * ((-len(self.b)) % n)

    def u32(self, v):
        self.align(4)
        self.b += struct.pack("<I", v & 0xFFFFFFFF)

    def ptr(self, present=True):
        if present:
            self.u32(self.ref)
            self.ref += 4
        else:
            self.u32(0)

    def wstr(self, s):
        """[string] wchar_t conformant varying string, NUL included."""
        n = len(s) + 1
        self.u32(n)
        self.u32(0)
        self.u32(n)
        self.b += _utf16(s) + b"\0\0"

    def unique_wstr(self, s):
        if s is None:
            self.ptr(False)
        else:
            self.ptr()
            self.wstr(s)

    def bytes(self):
        return bytes(self.b)


class NdrError(Exception):
    pass


class NdrReader:
    def __init__(self, b):
        self.b = b
        self.o = 0

    def align(self, n):
        self.o += (-self.o) % n

    def u32(self):
        self.align(4)
        if self.o + 4 > len(self.b):
            raise NdrError("stub ends at %d reading u32" % self.o)
        v = struct.unpack_from("<I", self.b, self.o)[0]
        self.o += 4
        return v

    def wstr(self):
        mx, off, act = self.u32(), self.u32(), self.u32()
        if act > mx or off != 0:
            raise NdrError("bad string header %d/%d/%d" % (mx, off, act))
        raw = self.b[self.o:self.o + 2 * act]
        self.o += 2 * act
        s = raw.decode("utf-16-le", errors="replace")
        return s[:-1] if s.endswith("\0") else s

    def byte_array(self):
        n = self.u32()
        raw = self.b[self.o:self.o + n]
        self.o += n
        return raw

    def structs(self, spec, count):
        """count structs of spec [(name, kind)], kinds 'u32', 'str' (unique
        pointer to string), 'bytes' (pointer to conformant byte array);
        pointees deferred after all inline parts (NDR rule for arrays)."""
        items = []
        for _ in range(count):
            d = {}
            for name, kind in spec:
                d[name] = self.u32()          # value or referent id
            items.append(d)
        for d in items:
            for name, kind in spec:
                if kind == "u32":
                    continue
                if d[name] == 0:
                    d[name] = None
                elif kind == "str":
                    d[name] = self.wstr()
                else:
                    d[name] = self.byte_array().hex()
        return items


SHARE_INFO = {
    0: [("netname", "str")],
    1: [("netname", "str"), ("type", "u32"), ("remark", "str")],
    2: [("netname", "str"), ("type", "u32"), ("remark", "str"),
        ("permissions", "u32"), ("max_uses", "u32"),
        ("current_uses", "u32"), ("path", "str"), ("passwd", "str")],
    501: [("netname", "str"), ("type", "u32"), ("remark", "str"),
          ("flags", "u32")],
    502: [("netname", "str"), ("type", "u32"), ("remark", "str"),
          ("permissions", "u32"), ("max_uses", "u32"),
          ("current_uses", "u32"), ("path", "str"), ("passwd", "str"),
          ("sd_size", "u32"), ("sd", "bytes")],
    1005: [("flags", "u32")],
}
SHARE_ENUM_LEVELS = (0, 1, 2, 501, 502)

SERVER_INFO = {
    100: [("platform_id", "u32"), ("name", "str")],
    101: [("platform_id", "u32"), ("name", "str"), ("version_major", "u32"),
          ("version_minor", "u32"), ("type", "u32"), ("comment", "str")],
    102: [("platform_id", "u32"), ("name", "str"), ("version_major", "u32"),
          ("version_minor", "u32"), ("type", "u32"), ("comment", "str"),
          ("users", "u32"), ("disc", "u32"), ("hidden", "u32"),
          ("announce", "u32"), ("anndelta", "u32"), ("licenses", "u32"),
          ("userpath", "str")],
}

WKSTA_INFO = {
    100: [("platform_id", "u32"), ("computername", "str"),
          ("langroup", "str"), ("ver_major", "u32"), ("ver_minor", "u32")],
    101: [("platform_id", "u32"), ("computername", "str"),
          ("langroup", "str"), ("ver_major", "u32"), ("ver_minor", "u32"),
          ("lanroot", "str")],
    102: [("platform_id", "u32"), ("computername", "str"),
          ("langroup", "str"), ("ver_major", "u32"), ("ver_minor", "u32"),
          ("lanroot", "str"), ("logged_on_users", "u32")],
}

OP_SHARE_ENUM_ALL = 15      # NetrShareEnum (Samba: NetShareEnumAll)
OP_SHARE_GET_INFO = 16
OP_SERVER_GET_INFO = 21
OP_SHARE_ENUM = 36          # NetrShareEnumSticky (Samba: NetShareEnum)
OP_WKSTA_GET_INFO = 0


def server_unc(host):
    return "\\\\" + host


def srvsvc_share_enum_req(server, level, max_len=0xFFFFFFFF, resume=0):
    """NetrShareEnum / NetrShareEnumSticky request stub."""
    w = NdrWriter()
    w.unique_wstr(server)
    w.u32(level)                   # SHARE_ENUM_STRUCT.Level
    w.u32(level)                   # union discriminant
    if level in SHARE_ENUM_LEVELS:
        w.ptr()                    # -> SHARE_INFO_n_CONTAINER
        w.u32(0)                   # EntriesRead
        w.ptr(False)               # Buffer = NULL
    w.u32(max_len)
    w.ptr()                        # ResumeHandle
    w.u32(resume)
    return w.bytes()


def srvsvc_share_enum_res(stub, level=None):
    r = NdrReader(stub)
    out = {}
    try:
        lv = r.u32()
        disc = r.u32()
        out.update(level=lv, switch=disc)
        if disc in SHARE_ENUM_LEVELS:
            if r.u32():
                n = r.u32()
                out["entries_read"] = n
                if r.u32():
                    cnt = r.u32()
                    out["shares"] = r.structs(SHARE_INFO[disc], cnt)
                else:
                    out["shares"] = None
            else:
                out["container"] = None
        out["total_entries"] = r.u32()
        out["resume_handle"] = r.u32() and r.u32()
        out["werror"] = _werror_name(r.u32())
        out["trailing"] = len(stub) - r.o
    except NdrError as e:
        out["decode_error"] = str(e)
    return out


def srvsvc_share_get_info_req(server, name, level):
    w = NdrWriter()
    w.unique_wstr(server)
    w.wstr(name)
    w.u32(level)
    return w.bytes()


def _info_res(stub, table):
    r = NdrReader(stub)
    out = {}
    try:
        disc = r.u32()
        out["switch"] = disc
        if disc in table:
            if r.u32():
                out["info"] = r.structs(table[disc], 1)[0]
            else:
                out["info"] = None
        out["werror"] = _werror_name(r.u32())
        out["trailing"] = len(stub) - r.o
    except NdrError as e:
        out["decode_error"] = str(e)
    return out


def srvsvc_share_get_info_res(stub):
    return _info_res(stub, SHARE_INFO)


def srvsvc_server_get_info_req(server, level):
    w = NdrWriter()
    w.unique_wstr(server)
    w.u32(level)
    return w.bytes()


def srvsvc_server_get_info_res(stub):
    return _info_res(stub, SERVER_INFO)


def wkssvc_get_info_req(server, level):
    return srvsvc_server_get_info_req(server, level)


def wkssvc_get_info_res(stub):
    return _info_res(stub, WKSTA_INFO)
