"""IPC$ / named pipe / DCE/RPC srvsvc+wkssvc probe: what a server answers.

  ipc_probe.py --host H --port P --user U --password W [--anonymous]
               [--guest] --out FILE.json
      run every case against a running server as one identity

  ipc_probe.py --samba --out tests/compat/ipc-samba-4.17.json
      start Debian's Samba (/usr/sbin/smbd) on an ephemeral port with the
      reference smb.conf (see samba_conf()), create the Unix accounts
      rsmbipcuser / rsmbipcadm (deleted again at the end), run the probe as
      the ordinary user, the admin user and anonymously, plus the
      smbclient / rpcclient / impacket witnesses, and write one JSON

The JSON of a ringsmb run and of the Samba run have the same shape, so
they can be diffed.  Statuses are NTSTATUS / WERROR names (or hex); RPC
responses also carry their raw stub hex.
"""
import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))

import dcerpc_client as dc  # noqa: E402

SMBD = os.environ.get("RINGSMB_SAMBA_SMBD", "/usr/sbin/smbd")
USERS = {"user": ("rsmbipcuser", "Ipc-user-pw1"),
         "admin": ("rsmbipcadm", "Ipc-adm-pw2")}

# ------------------------------------------------------------------ cases

PIPE_NAMES = ["srvsvc", "wkssvc", "\\srvsvc", "SRVSVC", "lsarpc",
              "nosuchpipe", "srvsvc:stream"]

FILE_CLASSES = [(4, "FileBasicInformation"), (5, "FileStandardInformation"),
                (6, "FileInternalInformation"), (7, "FileEaInformation"),
                (8, "FileAccessInformation"), (14, "FilePositionInformation"),
                (16, "FileModeInformation"), (17, "FileAlignmentInformation"),
                (18, "FileAllInformation"), (22, "FileStreamInformation"),
                (23, "FilePipeInformation"),
                (24, "FilePipeLocalInformation"),
                (25, "FilePipeRemoteInformation"),
                (34, "FileNetworkOpenInformation")]


def ok(st):
    return st == "STATUS_SUCCESS"


def case_pipes(c):
    out = {}
    for name in PIPE_NAMES:
        r = c.create(name)
        fid = r.pop("file_id", None)
        if fid:
            r["close"] = c.close_file(fid)
        out[name] = r
    return out


def case_handle_ops(c):
    """QUERY_INFO / SET_INFO / FLUSH / LOCK / ... on an open srvsvc."""
    op = c.create("srvsvc")
    if not ok(op["status"]):
        return {"create": op["status"]}
    fid = op["file_id"]
    out = {"query_info": {}}
    for cls, name in FILE_CLASSES:
        r, data = c.query_info(fid, 1, cls, out_len=4096)
        out["query_info"]["%d %s" % (cls, name)] = {
            "status": r.name, "hex": data.hex()}
    r, data = c.query_info(fid, 2, 1, out_len=4096)
    out["query_info"]["fs 1 FileFsVolumeInformation"] = {
        "status": r.name, "hex": data.hex()}
    r, data = c.query_info(fid, 2, 4, out_len=4096)
    out["query_info"]["fs 4 FileFsDeviceInformation"] = {
        "status": r.name, "hex": data.hex()}
    r, data = c.query_info(fid, 3, 0, out_len=4096, additional=0x7)
    out["query_info"]["security owner|group|dacl"] = {
        "status": r.name, "hex": data.hex()}
    # FilePipeInformation: ReadMode=message(1), CompletionMode=queue(0),
    # what Windows clients set right after opening a pipe
    out["set_info FilePipeInformation message/queue"] = c.set_info(
        fid, 1, 23, struct.pack("<II", 1, 0)).name
    out["set_info FilePipeInformation byte/queue"] = c.set_info(
        fid, 1, 23, struct.pack("<II", 0, 0)).name
    out["set_info FileBasicInformation zeros"] = c.set_info(
        fid, 1, 4, b"\0" * 40).name
    out["set_info FileEndOfFileInformation 0"] = c.set_info(
        fid, 1, 20, b"\0" * 8).name
    out["flush"] = c.flush(fid).name
    out["lock"] = c.lock(fid).name
    out["query_directory"] = c.query_directory(fid, timeout=3.0).name
    out["change_notify"] = c.change_notify(fid, timeout=3.0,
                                           cancel_after=2.0).name
    r, data = c.ioctl(fid, dc.FSCTL_PIPE_PEEK, max_out=16, timeout=3.0)
    out["fsctl_pipe_peek"] = {"status": r.name, "hex": data.hex()}
    r, data = c.ioctl(fid, dc.FSCTL_PIPE_PEEK, max_out=64, timeout=3.0)
    out["fsctl_pipe_peek max_out 64"] = {"status": r.name, "hex": data.hex()}
    nm = dc.utf16("srvsvc")
    wait_in = struct.pack("<qIBB", -10000000, len(nm), 1, 0) + nm
    r, data = c.ioctl(fid, dc.FSCTL_PIPE_WAIT, wait_in, max_out=0,
                      timeout=3.0, cancel_after=3.0)
    out["fsctl_pipe_wait on pipe handle"] = r.name
    r, data = c.ioctl(b"\xff" * 16, dc.FSCTL_PIPE_WAIT, wait_in, max_out=0,
                      timeout=3.0, cancel_after=3.0)
    out["fsctl_pipe_wait fileid all-ones"] = r.name
    r, data = c.ioctl(fid, 0x0011FFFC, b"", max_out=64, timeout=3.0)
    out["fsctl unknown 0x0011FFFC"] = r.name
    r, data = c.ioctl(fid, 0x00090078, b"", max_out=64, timeout=3.0)
    out["fsctl FSCTL_GET_REPARSE_POINT-ish 0x00090078"] = r.name
    r, data = c.ioctl(fid, 0x00140204, b"", max_out=1024, timeout=3.0)
    out["fsctl FSCTL_VALIDATE_NEGOTIATE_INFO (no input) 0x00140204"] = \
        r.name
    r, cnt = c.write(fid, b"")
    out["write 0 bytes"] = {"status": r.name, "count": cnt}
    out["close"] = c.close_file(fid)
    # an empty transceive: Samba waits for a reply that never comes; its
    # own pipe, cancelled after 2 s
    op = c.create("srvsvc")
    if ok(op["status"]):
        r, data = c.transceive(op["file_id"], b"", max_out=1024,
                               timeout=3.0, cancel_after=2.0)
        out["fsctl_pipe_transceive empty input"] = {
            "status": r.name, "interim_pending": r.interim,
            "cancelled_after_2s": getattr(r, "cancelled", False)}
        out["fsctl_pipe_transceive empty input: close after"] = \
            c.close_file(op["file_id"])
    return out


def case_read_fresh(c, reconnect):
    """READ with nothing queued: answered at once, or held?  Then a WRITE
    of a bind while that READ is outstanding, and a CANCEL of another."""
    op = c.create("srvsvc")
    if not ok(op["status"]):
        return {"create": op["status"]}
    fid = op["file_id"]
    out = {}
    req = c.read_send(fid, 1024)
    r, data = c.wait_read(req, 2.0)
    out["READ, nothing written (2 s)"] = {"status": r.name,
                                          "interim_pending": r.interim}
    if r.status is None:
        w, cnt = c.write(fid, dc.bind_pdu([(0, dc.SRVSVC, [dc.NDR])]),
                         timeout=3.0)
        out["WRITE bind while READ outstanding"] = w.name
        r, data = c.wait_read(req, 3.0)
        out["the outstanding READ then"] = {
            "status": r.name,
            "pdu": dc.parse_pdu(data).get("type") if data else None}
    out["close"] = c.close_file(fid)
    # CANCEL of an outstanding READ, on a connection of its own (Samba may
    # leave the handle busy)
    c2 = reconnect()
    op = c2.create("srvsvc")
    if ok(op["status"]):
        t0 = time.monotonic()
        r, data = c2.read(op["file_id"], 1024, timeout=5.0,
                          cancel_after=2.0)
        out["READ cancelled after 2 s"] = {
            "status": r.name, "interim_pending": r.interim,
            "seconds": round(time.monotonic() - t0, 1)}
        out["READ cancelled: close after"] = c2.close_file(op["file_id"])
    c2.close()
    return out


def strip(d):
    """JSON-friendly copy of an RPC result."""
    d = dict(d)
    if isinstance(d.get("stub"), bytes):
        d["stub_hex"] = d.pop("stub").hex()
    d["smb"] = ["%s:%s" % x for x in d.get("smb", [])]
    return d


def fresh(c, pipe="srvsvc"):
    op = c.create(pipe)
    if not ok(op["status"]):
        return None
    return dc.RpcPipe(c, op["file_id"])


def case_rpc_protocol(c, host):
    out = {}

    def with_pipe(fn):
        p = fresh(c)
        if p is None:
            return {"create": "failed"}
        try:
            return fn(p)
        finally:
            c.close_file(p.fid)

    out["bind srvsvc NDR"] = with_pipe(lambda p: p.bind(dc.SRVSVC))
    out["bind srvsvc NDR via WRITE+READ"] = with_pipe(
        lambda p: (setattr(p, "use_transceive", False),
                   p.bind(dc.SRVSVC))[1])
    out["bind srvsvc NDR64 only"] = with_pipe(lambda p: p.bind(
        contexts=[(0, dc.SRVSVC, [dc.NDR64])]))
    out["bind srvsvc NDR64+NDR two contexts"] = with_pipe(lambda p: p.bind(
        contexts=[(0, dc.SRVSVC, [dc.NDR64]), (1, dc.SRVSVC, [dc.NDR])]))
    out["bind srvsvc NDR+NDR64 one context"] = with_pipe(lambda p: p.bind(
        contexts=[(0, dc.SRVSVC, [dc.NDR, dc.NDR64])]))
    out["bind srvsvc NDR + bind time feature negotiation"] = with_pipe(
        lambda p: p.bind(contexts=[(0, dc.SRVSVC, [dc.NDR]),
                                   (1, dc.SRVSVC, [dc.BTFN])]))
    out["bind unknown interface"] = with_pipe(lambda p: p.bind(
        ("11111111-2222-3333-4444-555555555555", 1, 0)))
    out["bind wkssvc on srvsvc pipe"] = with_pipe(lambda p: p.bind(
        dc.WKSSVC))
    out["bind srvsvc wrong version 2.0"] = with_pipe(lambda p: p.bind(
        ("4b324fc8-1670-01d3-1278-5a47bf6ee188", 2, 0)))
    out["bind max_frag 1024"] = with_pipe(lambda p: p.bind(
        dc.SRVSVC, max_xmit=1024, max_recv=1024))
    out["bind max_frag 65535"] = with_pipe(lambda p: p.bind(
        dc.SRVSVC, max_xmit=65535, max_recv=65535))

    req = dc.srvsvc_server_get_info_req(dc.server_unc(host), 101)

    def before_bind(p):
        r = strip(p.call(dc.OP_SERVER_GET_INFO, req))
        return r
    out["request before bind"] = with_pipe(before_bind)

    def after(p, fn):
        ack = p.bind(dc.SRVSVC)
        if ack.get("type") != "bind_ack":
            return {"bind": ack.get("type")}
        return fn(p)

    out["request unknown context id 5"] = with_pipe(lambda p: after(
        p, lambda q: strip(q.call(dc.OP_SERVER_GET_INFO, req, ctx_id=5))))
    out["request unknown opnum 200"] = with_pipe(lambda p: after(
        p, lambda q: strip(q.call(200, req))))
    out["request opnum 21 garbage stub"] = with_pipe(lambda p: after(
        p, lambda q: strip(q.call(21, b"\x01\x02\x03"))))

    def split3(q):
        r = strip(q.call(dc.OP_SERVER_GET_INFO, req, nfrags=3))
        r["decoded"] = dc.srvsvc_server_get_info_res(
            bytes.fromhex(r.get("stub_hex", "")))
        return r
    out["request split into 3 fragments"] = with_pipe(lambda p: after(
        p, split3))

    def alter(q):
        a = q.alter([(1, dc.WKSSVC, [dc.NDR])])
        r = strip(q.call(dc.OP_WKSTA_GET_INFO,
                         dc.wkssvc_get_info_req(dc.server_unc(host), 100),
                         ctx_id=1))
        r["decoded"] = dc.wkssvc_get_info_res(
            bytes.fromhex(r.get("stub_hex", "")))
        return {"alter_context_resp": a, "wkssvc call on ctx 1": r}
    out["alter_context to wkssvc on srvsvc pipe"] = with_pipe(lambda p:
                                                              after(p, alter))

    def alter_same(q):
        return q.alter([(0, dc.SRVSVC, [dc.NDR])])
    out["alter_context same ctx 0 srvsvc"] = with_pipe(
        lambda p: after(p, alter_same))

    def second_bind(q):
        return q.bind(dc.SRVSVC)
    out["second bind on bound pipe"] = with_pipe(
        lambda p: after(p, second_bind))

    def small_frag(q):
        # a large response cut into max_recv 1024 fragments
        q.max_read = 65536
        r = strip(q.call(dc.OP_SHARE_ENUM_ALL, dc.srvsvc_share_enum_req(
            dc.server_unc(host), 502)))
        r["decoded_ok"] = "shares" in dc.srvsvc_share_enum_res(
            bytes.fromhex(r.get("stub_hex", "")))
        return r

    def small(p):
        ack = p.bind(dc.SRVSVC, max_xmit=1024, max_recv=1024)
        if ack.get("type") != "bind_ack":
            return {"bind": ack.get("type")}
        return small_frag(p)
    out["enum 502 with max_frag 1024 (multi-fragment response)"] = \
        with_pipe(small)

    def small_read(p):
        ack = p.bind(dc.SRVSVC)
        p.max_read = 64       # transceive/READ of 64 bytes: BUFFER_OVERFLOW
        r = strip(p.call(dc.OP_SERVER_GET_INFO, req))
        r["decoded"] = dc.srvsvc_server_get_info_res(
            bytes.fromhex(r.get("stub_hex", "")))
        r["bind"] = ack.get("type")
        return r
    out["call with 64-byte transceive/read (BUFFER_OVERFLOW)"] = \
        with_pipe(small_read)

    def bad_vers(p):
        pdu = dc.bind_pdu([(0, dc.SRVSVC, [dc.NDR])], vers=4)
        pdus, info = p.send_recv([pdu])
        res = {"reply": [{k: v for k, v in x.items() if k != "_raw"}
                         for x in pdus],
               "smb": ["%s:%s" % x for x in info["smb"]]}
        r, cnt = c.write(p.fid, dc.bind_pdu([(0, dc.SRVSVC, [dc.NDR])]))
        res["next WRITE"] = r.name
        r, data = c.read(p.fid, 4280, timeout=3.0, cancel_after=2.0)
        res["next READ"] = r.name
        res["next READ data"] = dc.parse_pdu(data).get("type") if data \
            else None
        return res
    out["bind rpc_vers 4"] = with_pipe(bad_vers)

    def bad_minor(p):
        return p.bind(contexts=[(0, dc.SRVSVC, [dc.NDR])], minor=1)
    out["bind rpc_vers_minor 1"] = with_pipe(bad_minor)

    def garbage(p):
        r, cnt = c.write(p.fid, b"\xde\xad\xbe\xef" * 8)
        res = {"WRITE": r.name}
        r, data = c.read(p.fid, 4280, timeout=3.0, cancel_after=2.0)
        res["READ"] = r.name
        res["READ data"] = dc.parse_pdu(data) if data else None
        if isinstance(res["READ data"], dict):
            res["READ data"].pop("stub", None)
        return res
    out["garbage PDU"] = with_pipe(garbage)
    return out


def call_and_decode(p, opnum, stub, decoder):
    r = strip(p.call(opnum, stub))
    if r.get("type") == "response":
        r["decoded"] = decoder(bytes.fromhex(r["stub_hex"]))
    return r


def case_srvsvc(c, host):
    out = {}
    p = fresh(c)
    if p is None:
        return {"create": "failed"}
    ack = p.bind(dc.SRVSVC)
    out["bind"] = ack.get("type")
    unc = dc.server_unc(host)
    for lv in (0, 1, 2, 501, 502, 3):
        out["NetShareEnumAll(15) level %d" % lv] = call_and_decode(
            p, dc.OP_SHARE_ENUM_ALL, dc.srvsvc_share_enum_req(unc, lv),
            dc.srvsvc_share_enum_res)
    for lv in (1, 2):
        out["NetShareEnum(36) level %d" % lv] = call_and_decode(
            p, dc.OP_SHARE_ENUM, dc.srvsvc_share_enum_req(unc, lv),
            dc.srvsvc_share_enum_res)
    out["NetShareEnumAll(15) level 1 server NULL"] = call_and_decode(
        p, dc.OP_SHARE_ENUM_ALL, dc.srvsvc_share_enum_req(None, 1),
        dc.srvsvc_share_enum_res)
    for share in ("data", "nobrowse", "hidden$", "IPC$", "nosuch", "DATA",
                  "private"):
        for lv in (0, 1, 2, 501, 502, 1005, 7):
            out["NetShareGetInfo(16) %s level %d" % (share, lv)] = \
                call_and_decode(p, dc.OP_SHARE_GET_INFO,
                                dc.srvsvc_share_get_info_req(unc, share, lv),
                                dc.srvsvc_share_get_info_res)
    for lv in (100, 101, 102, 103):
        out["NetSrvGetInfo(21) level %d" % lv] = call_and_decode(
            p, dc.OP_SERVER_GET_INFO, dc.srvsvc_server_get_info_req(unc, lv),
            dc.srvsvc_server_get_info_res)
    c.close_file(p.fid)
    w = fresh(c, "wkssvc")
    if w is None:
        out["wkssvc"] = "create failed"
        return out
    out["wkssvc bind"] = w.bind(dc.WKSSVC).get("type")
    for lv in (100, 101, 102):
        out["NetWkstaGetInfo(0) level %d" % lv] = call_and_decode(
            w, dc.OP_WKSTA_GET_INFO, dc.wkssvc_get_info_req(unc, lv),
            dc.wkssvc_get_info_res)
    c.close_file(w.fid)
    return out


def probe(host, port, user=None, password=None, anonymous=False,
          guest=False):
    res = {"identity": {"user": user, "anonymous": anonymous,
                        "guest": guest}}
    try:
        c = dc.PipeClient(host, port, user, password, anonymous,
                          guest).connect()
    except Exception as e:   # noqa: BLE001
        res["connect"] = "failed: %s" % e
        return res
    res["session_flags"] = c.session_flags

    def reconnect():
        n = dc.PipeClient(host, port, user, password, anonymous, guest,
                          timeout=5.0).connect()
        n.tree_connect("IPC$")
        return n
    try:
        tc = c.tree_connect("IPC$")
        res["tree_connect IPC$"] = tc
        if not ok(tc["status"]):
            return res
        steps = [("1 create pipes", lambda: case_pipes(c)),
                 ("2 handle ops on srvsvc", lambda: case_handle_ops(c)),
                 ("3 read on fresh pipe",
                  lambda: case_read_fresh(c, reconnect)),
                 ("4 rpc protocol", lambda: case_rpc_protocol(c, host)),
                 ("5 srvsvc/wkssvc calls", lambda: case_srvsvc(c, host))]
        for name, fn in steps:
            try:
                res[name] = fn()
            except Exception as e:   # noqa: BLE001
                res[name] = {"error": "%s: %s" % (type(e).__name__, e)}
                # the connection may be gone: start again
                c.close()
                c = dc.PipeClient(host, port, user, password, anonymous,
                                  guest).connect()
                c.tree_connect("IPC$")
    finally:
        c.close()
    return res


# ------------------------------------------------------------------ Samba

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def samba_conf(tmp, port, shares_dir, extra_global="", data_extra=""):
    d = {}
    for key, sub in (("private dir", "private"), ("lock directory", "lock"),
                     ("state directory", "state"),
                     ("cache directory", "cache"), ("pid directory", "pid"),
                     ("ncalrpc dir", "ncalrpc"), ("binddns dir", "binddns")):
        (tmp / sub).mkdir(exist_ok=True)
        d[key] = tmp / sub
    g = ("[global]\n"
         "  smb ports = %d\n"
         "  interfaces = 127.0.0.1\n"
         "  bind interfaces only = yes\n"
         "  server role = standalone server\n"
         "  disable netbios = yes\n"
         "  map to guest = Bad User\n"
         "  log level = 1\n"
         "  server min protocol = SMB2_02\n"
         "  load printers = no\n"
         "  printing = bsd\n"
         "  printcap name = /dev/null\n"
         "  disable spoolss = yes\n"
         "  passdb backend = tdbsam:%s/passdb.tdb\n"
         "  server string = ringsmb test\n"
         "  netbios name = RINGSMBTEST\n"
         "  workgroup = WORKGROUP\n"
         "  vfs objects = acl_xattr streams_xattr\n"
         "  store dos attributes = yes\n"
         % (port, d["private dir"]))
    g += "".join("  %s = %s\n" % kv for kv in d.items())
    g += extra_global
    adm = USERS["admin"][0]
    s = ("\n[public]\n  path = %(p)s/public\n  comment = Public files\n"
         "  guest ok = yes\n  read only = no\n"
         "\n[data]\n  path = %(p)s/data\n  comment = Data\n"
         "  read only = no\n%(data_extra)s"
         "\n[hidden$]\n  path = %(p)s/hidden\n  comment = Hidden share\n"
         "\n[nobrowse]\n  path = %(p)s/nobrowse\n  browseable = no\n"
         "\n[private]\n  path = %(p)s/private\n  valid users = %(adm)s\n"
         "  access based share enum = yes\n"
         % {"p": shares_dir, "adm": adm, "data_extra": data_extra})
    return g + s


class Samba:
    def __init__(self, extra_global="", data_extra=""):
        self.tmp = Path(tempfile.mkdtemp(prefix="rsmbipc-samba-"))
        self.shares = self.tmp / "shares"
        for s in ("public", "data", "hidden", "nobrowse", "private"):
            (self.shares / s).mkdir(parents=True)
            os.chmod(self.shares / s, 0o777)
        os.chmod(self.tmp, 0o755)
        os.chmod(self.shares, 0o755)
        self.extra_global = extra_global
        self.data_extra = data_extra
        self.conf = self.tmp / "smb.conf"
        self.port = None
        self.proc = None

    def write_conf(self, port):
        self.conf.write_text(samba_conf(self.tmp, port, self.shares,
                                        self.extra_global, self.data_extra))

    def add_users(self):
        self.write_conf(1)
        for name, pw in USERS.values():
            subprocess.run(["smbpasswd", "-c", str(self.conf), "-s", "-a",
                            name], input=("%s\n%s\n" % (pw, pw)).encode(),
                           check=True, capture_output=True)

    def start(self):
        self.port = free_port()
        self.write_conf(self.port)
        self.log = open(self.tmp / "smbd.log", "ab")
        self.proc = subprocess.Popen(
            [SMBD, "-F", "--debug-stdout", "--no-process-group",
             "--configfile=%s" % self.conf], stdout=self.log,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, cwd=str(self.tmp))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("smbd did not start")

    def helpers(self):
        """Pids of samba-dcerpcd and its rpcd_* workers started for this
        configuration (they run in their own process group)."""
        pids = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if ("--configfile=%s" % self.conf).encode() in cmd:
                pids.append(int(d.name))
        return pids

    def stop(self):
        for pid in self.helpers():
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                pass
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 15)
                self.proc.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
            self.log.close()
            self.proc = None

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def create_unix_users():
    for name, _pw in USERS.values():
        subprocess.run(["userdel", name], capture_output=True)
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", name],
                       check=True, capture_output=True)


def delete_unix_users():
    for name, _pw in USERS.values():
        subprocess.run(["userdel", name], capture_output=True)


def run_cmd(cmd, timeout=60, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout,
                           env=env, stdin=subprocess.DEVNULL)
        return {"cmd": " ".join(cmd), "rc": p.returncode,
                "stdout": p.stdout.decode(errors="replace").splitlines(),
                "stderr": p.stderr.decode(errors="replace").splitlines()}
    except subprocess.TimeoutExpired:
        return {"cmd": " ".join(cmd), "rc": "timeout"}


def client_conf(tmp):
    d = tmp / "client"
    for sub in ("cache", "lock", "state", "private"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    cc = tmp / "client.conf"
    cc.write_text("[global]\n  client min protocol = SMB2_02\n"
                  "  cache directory = %s\n  lock directory = %s\n"
                  "  state directory = %s\n  private dir = %s\n"
                  % (d / "cache", d / "lock", d / "state", d / "private"))
    return cc


def witnesses(host, port, tmp):
    cc = str(client_conf(tmp))
    u, pw = USERS["user"]
    a, apw = USERS["admin"]
    w = {}
    w["smbclient -L user"] = run_cmd(
        ["smbclient", "-s", cc, "-L", "//%s" % host, "-p", str(port),
         "-U", "%s%%%s" % (u, pw)])
    w["smbclient -L -N"] = run_cmd(
        ["smbclient", "-s", cc, "-L", "//%s" % host, "-p", str(port), "-N"])
    cmds = "netshareenumall; netshareenum; srvinfo; netsharegetinfo data"
    for label, cred in (("user", "%s%%%s" % (u, pw)),
                        ("admin", "%s%%%s" % (a, apw))):
        w["rpcclient %s" % label] = run_cmd(
            ["rpcclient", "-s", cc, "-p", str(port), "-U", cred, host,
             "-c", cmds])
    w["rpcclient -N"] = run_cmd(
        ["rpcclient", "-s", cc, "-p", str(port), "-N", host, "-c", cmds])
    w["rpcclient user netshareenumall 2 / 502"] = run_cmd(
        ["rpcclient", "-s", cc, "-p", str(port), "-U", "%s%%%s" % (u, pw),
         host, "-c", "netshareenumall 2; netshareenumall 502"])
    w["rpcclient admin netshareenumall 2 / 502"] = run_cmd(
        ["rpcclient", "-s", cc, "-p", str(port), "-U", "%s%%%s" % (a, apw),
         host, "-c", "netshareenumall 2; netshareenumall 502"])
    # what rpcclient's bind carries: its debug output at level 10
    r = run_cmd(["rpcclient", "-s", cc, "-d", "10", "-p", str(port), "-U",
                 "%s%%%s" % (u, pw), host, "-c", "srvinfo"])
    keys = ("auth_type", "auth_level", "auth_length", "ptype",
            "rpc_pipe_bind", "bind_ack", "DCERPC_AUTH", "transfer_syntax",
            "abstract_syntax", "max_xmit_frag", "assoc_group_id")
    w["rpcclient -d 10 srvinfo (bind/auth lines)"] = [
        ln.strip() for ln in r.get("stdout", []) + r.get("stderr", [])
        if any(k in ln for k in keys)][:80]
    try:
        from impacket.smbconnection import SMBConnection
        for label, (uu, pp) in (("user", (u, pw)), ("anonymous", ("", ""))):
            try:
                conn = SMBConnection(host, host, sess_port=port)
                conn.login(uu, pp)
                shares = [{"name": s["shi1_netname"][:-1],
                           "type": s["shi1_type"],
                           "remark": s["shi1_remark"][:-1]}
                          for s in conn.listShares()]
                w["impacket listShares %s" % label] = shares
                conn.logoff()
            except Exception as e:   # noqa: BLE001
                w["impacket listShares %s" % label] = "error: %s" % e
    except ImportError:
        w["impacket"] = "not installed"
    return w


def run_samba(args):
    create_unix_users()
    out = {"server": subprocess.run(
        [SMBD, "--version"], capture_output=True).stdout.decode().strip()}
    samba = Samba(extra_global=args.extra_global or "",
                  data_extra="  admin users = %s\n" % USERS["admin"][0])
    try:
        samba.add_users()
        samba.start()
        out["smb.conf"] = samba.conf.read_text().splitlines()
        host, port = "127.0.0.1", samba.port
        out["identities"] = {}
        for label in ("user", "admin"):
            u, pw = USERS[label]
            out["identities"][label] = probe(host, port, u, pw)
        out["identities"]["anonymous"] = probe(host, port, anonymous=True)
        out["identities"]["guest"] = probe(host, port, guest=True)
        out["witnesses"] = witnesses(host, port, samba.tmp)
    finally:
        samba.stop()
        if args.keep:
            print("kept", samba.tmp)
        else:
            samba.cleanup()
        delete_unix_users()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=445)
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--anonymous", action="store_true")
    ap.add_argument("--guest", action="store_true")
    ap.add_argument("--samba", action="store_true",
                    help="start Debian's Samba and probe it as user, admin "
                    "and anonymous")
    ap.add_argument("--extra-global", help="more [global] lines (--samba)")
    ap.add_argument("--keep", action="store_true",
                    help="keep Samba's temp dir (--samba)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.samba:
        res = run_samba(a)
    else:
        res = probe(a.host, a.port, a.user, a.password, a.anonymous,
                    a.guest)
    Path(a.out).write_text(json.dumps(res, indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
