"""Share browsing over IPC$ (issue 13): `smbclient -L`, `rpcclient` and
raw DCE/RPC over smbprotocol against one smb.conf, as data.  Every
expectation below is what Debian's Samba 4.17 answers for the same
configuration (run this file with RINGSMB_TARGET=samba to check that).

Shares: [share] (conftest's), [data] with a comment, [hidden$],
[nobrowse] (browseable = no), [bobonly] (valid users = bob, access based
share enum = yes).  Users: alice and bob (real Unix accounts), guest and
anonymous.
"""
import re
import struct
import subprocess

import pytest

import accounts as A
from conftest import SMBCLIENT, finish_server, make_scratch_dir, make_server

CALL_LIMIT = 30
SERVER_STRING = "ringsmb ipc test"
NETBIOS_NAME = "RSMBIPCTEST"
ROOT_PASSWORD = "Root-ipc-pw-1"


@pytest.fixture(scope="module")
def ipc_server(share_tree, accounts):
    base, d = make_scratch_dir("ringsmb-ipc-")
    shares = [
        {"name": "data", "path": str(d), "params": {"comment": "Data files"}},
        {"name": "hidden$", "path": str(d),
         "params": {"comment": "Hidden share"}},
        {"name": "nobrowse", "path": str(d),
         "params": {"browseable": "no", "comment": "Not listed"}},
        {"name": "bobonly", "path": str(d),
         "params": {"valid users": A.name("bob"),
                    "access based share enum": "yes",
                    "comment": "Only bob"}},
    ]
    glob = {"server string": SERVER_STRING, "netbios name": NETBIOS_NAME,
            "workgroup": "RSMBWG"}
    glob.update(A.passdb_global(base))
    srv = make_server(share_tree, "default", glob, shares)
    for u in ("alice", "bob"):
        A.add_smb_user(srv, u)
    A.add_smb_user(srv, "root", ROOT_PASSWORD)
    yield srv
    finish_server(srv)


def user_args(who):
    if who == "anonymous":
        return ["-N"]
    if who == "guest":
        return ["-U", "guest%"]
    if who == "root":
        return ["-U", "root%" + ROOT_PASSWORD]
    return ["-U", "%s%%%s" % (A.name(who), A.PASSWORDS[who])]


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=CALL_LIMIT)
    return p.returncode, p.stdout.decode(errors="replace")


def smbclient_list(srv, who):
    """smbclient -L -g: [(type, name, comment)] of the share list."""
    rc, out = run([SMBCLIENT, "-s", str(srv.client_conf), "-g", "-L",
                   "//%s" % srv.host, "-p", str(srv.port)] + user_args(who))
    shares = []
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0] in ("Disk", "IPC", "Printer"):
            shares.append(tuple(parts))
    return rc, shares, out


IPC = ("IPC", "IPC$", "IPC Service (%s)" % SERVER_STRING)
SHARE = ("Disk", "share", "")
DATA = ("Disk", "data", "Data files")
HIDDEN = ("Disk", "hidden$", "Hidden share")
BOBONLY = ("Disk", "bobonly", "Only bob")


@pytest.mark.parametrize("who,expected", [
    ("alice", [SHARE, DATA, HIDDEN, IPC]),
    ("bob", [SHARE, DATA, HIDDEN, BOBONLY, IPC]),
    ("guest", [SHARE, DATA, HIDDEN, IPC]),
    ("anonymous", [SHARE, DATA, HIDDEN, IPC]),
])
def test_smbclient_list(ipc_server, who, expected):
    rc, shares, out = smbclient_list(ipc_server, who)
    assert sorted(shares) == sorted(expected), out


def rpcclient(srv, who, commands):
    return run(["rpcclient", "-s", str(srv.client_conf), "-p", str(srv.port)]
               + user_args(who) + [srv.host, "-c", commands])


def parse_netnames(out):
    """rpcclient's netshareenum output: [(netname, remark)]."""
    names = re.findall(r"^netname: (.*)$", out, re.M)
    remarks = re.findall(r"^\tremark:\t(.*)$", out, re.M)
    return list(zip(names, remarks))


@pytest.mark.parametrize("cmd,who,expected", [
    # opnum 15 lists hidden$ shares, opnum 36 does not
    ("netshareenumall 1", "alice",
     [("share", ""), ("data", "Data files"), ("hidden$", "Hidden share"),
      ("IPC$", "IPC Service (%s)" % SERVER_STRING)]),
    ("netshareenum 1", "alice",
     [("share", ""), ("data", "Data files")]),
    ("netshareenum 1", "bob",
     [("share", ""), ("data", "Data files"), ("bobonly", "Only bob")]),
    # rpcclient requires signing on IPC$ ("client ipc signing"), which a
    # guest or anonymous session cannot do, against Samba too
])
def test_rpcclient_enum(ipc_server, cmd, who, expected):
    rc, out = rpcclient(ipc_server, who, cmd)
    assert rc == 0, out
    got = parse_netnames(out) if " 0" not in cmd else [
        (n, "") for n in re.findall(r"^netname: (.*)$", out, re.M)]
    assert sorted(got) == sorted(expected), out


def test_rpcclient_getinfo(ipc_server):
    rc, out = rpcclient(ipc_server, "alice",
                        "netsharegetinfo data 1; netsharegetinfo nobrowse 1")
    assert rc == 0, out
    assert parse_netnames(out) == [("data", "Data files"),
                                   ("nobrowse", "Not listed")], out


def test_rpcclient_srvinfo(ipc_server):
    rc, out = rpcclient(ipc_server, "alice", "srvinfo")
    assert rc == 0, out
    assert re.search(r"^\t%s\s" % NETBIOS_NAME, out, re.M), out
    assert SERVER_STRING in out, out
    assert re.search(r"platform_id\s*:\s*500", out), out


def parse_paths(out):
    return dict(zip(re.findall(r"^netname: (.*)$", out, re.M),
                    re.findall(r"^\tpath:\t(.*)$", out, re.M)))


def test_rpcclient_enum_level2_admin(ipc_server):
    """rpcclient's default level (2) shows paths: to root, on both."""
    rc, out = rpcclient(ipc_server, "root", "netshareenumall")
    assert rc == 0, out
    paths = parse_paths(out)
    data = "C:" + ipc_server.shares[0]["path"].replace("/", "\\")
    assert paths == {"share": "C:" + str(ipc_server.tree.share).replace(
        "/", "\\"), "data": data, "hidden$": data, "IPC$": "C:\\tmp"}, out


def test_rpcclient_enum_level2_user(ipc_server, target):
    """Departure (docs/dcerpc.md): Samba shows share paths (levels 2 and
    502) to every user; ringsmb, as Windows, to administrators only."""
    rc, out = rpcclient(ipc_server, "bob", "netshareenumall 2")
    if target == "samba":
        assert rc == 0 and "bobonly" in parse_paths(out), out
    else:
        assert "WERR_ACCESS_DENIED" in out, out


@pytest.mark.parametrize("who", ["alice", "bob"])
def test_impacket_list_shares(ipc_server, who):
    """impacket's SMBConnection.listShares (srvsvc NetShareEnumAll 1)."""
    smbconnection = pytest.importorskip("impacket.smbconnection")
    conn = smbconnection.SMBConnection(
        ipc_server.host, ipc_server.host, sess_port=ipc_server.port,
        timeout=CALL_LIMIT)
    try:
        conn.login(A.name(who), A.PASSWORDS[who])
        got = sorted((s["shi1_netname"][:-1], s["shi1_type"],
                      s["shi1_remark"][:-1]) for s in conn.listShares())
    finally:
        conn.close()
    expected = [("share", 0, ""), ("data", 0, "Data files"),
                ("hidden$", 0, "Hidden share"),
                ("IPC$", 0x80000003, "IPC Service (%s)" % SERVER_STRING)]
    if who == "bob":
        expected.append(("bobonly", 0, "Only bob"))
    assert got == sorted(expected)


# ------------------------------------------------ named pipes, DCE/RPC

dc = pytest.importorskip("dcerpc_client")
STATUS_OK, BUFFER_OVERFLOW = 0, 0x80000005


@pytest.fixture
def pipe_client(ipc_server):
    c = dc.PipeClient(ipc_server.host, ipc_server.port, A.name("alice"),
                      A.PASSWORDS["alice"], timeout=CALL_LIMIT).connect()
    t = c.tree_connect("IPC$")
    assert t["status"] == "STATUS_SUCCESS", t
    yield c, t
    c.close()


def open_pipe(c, name="srvsvc"):
    op = c.create(name)
    assert op["status"] == "STATUS_SUCCESS", op
    return op


def test_ipc_tree_connect(pipe_client):
    c, t = pipe_client
    assert (t["share_type"], t["share_flags"], t["maximal_access"]) == \
        (2, "0x00000000", "0x001F00A9")


@pytest.mark.parametrize("name,status", [
    ("srvsvc", "STATUS_SUCCESS"), ("wkssvc", "STATUS_SUCCESS"),
    ("SRVSVC", "STATUS_SUCCESS"),
    ("\\srvsvc", "STATUS_OBJECT_NAME_NOT_FOUND"),
    ("nosuchpipe", "STATUS_OBJECT_NAME_NOT_FOUND"),
    ("srvsvc:stream", "STATUS_OBJECT_NAME_NOT_FOUND"),
])
def test_pipe_create(pipe_client, name, status):
    c, _ = pipe_client
    op = c.create(name)
    assert op["status"] == status, op
    if status == "STATUS_SUCCESS":
        assert (op["create_action"], op["file_attributes"],
                op["oplock_level"], op["end_of_file"],
                op["creation_time_nonzero"]) == (1, "0x00000080", 0, 0,
                                                 True), op
        assert c.close_file(op["file_id"]) == "STATUS_SUCCESS"


def test_pipe_create_lsarpc(pipe_client, target):
    """Samba serves lsarpc; ringsmb only srvsvc and wkssvc (issue 13)."""
    c, _ = pipe_client
    want = "STATUS_SUCCESS" if target == "samba" else \
        "STATUS_OBJECT_NAME_NOT_FOUND"
    assert c.create("lsarpc")["status"] == want


def test_pipe_file_ops(pipe_client):
    c, _ = pipe_client
    fid = open_pipe(c)["file_id"]
    r, data = c.query_info(fid, 1, 5, out_len=4096)    # Standard
    assert r.status == STATUS_OK
    assert data == bytes.fromhex("0010000000000000" "0000000000000000"
                                 "01000000" "01" "00" "0000")
    for info_type, cls in ((1, 4), (1, 18), (2, 1), (3, 0)):
        r, _ = c.query_info(fid, info_type, cls, out_len=4096)
        assert r.name == "STATUS_NOT_SUPPORTED", (info_type, cls)
    assert c.set_info(fid, 1, 4, b"\0" * 40).name == "STATUS_NOT_SUPPORTED"
    assert c.query_directory(fid, timeout=5).name == "STATUS_NOT_SUPPORTED"
    w, count = c.write(fid, b"")
    assert (w.status, count) == (STATUS_OK, 0)


def test_pipe_read_waits_for_data(pipe_client):
    """A READ of an empty pipe is held (STATUS_PENDING) until the client
    writes; the bind it then writes completes it with the bind_ack."""
    c, _ = pipe_client
    fid = open_pipe(c)["file_id"]
    req = c.read_send(fid, 1024)
    r, data = c.wait_read(req, 1.0)
    assert r.status is None and r.interim
    w, _ = c.write(fid, dc.bind_pdu([(0, dc.SRVSVC, [dc.NDR])]))
    assert w.status == STATUS_OK
    r, data = c.wait_read(req, 10.0)
    assert r.status == STATUS_OK
    assert dc.parse_pdu(data)["type"] == "bind_ack"


def test_pipe_transceive_overflow(pipe_client):
    """A response larger than MaxOutputResponse: BUFFER_OVERFLOW with the
    first bytes, READ for the rest; the stub decodes whole."""
    c, _ = pipe_client
    p = dc.RpcPipe(c, open_pipe(c)["file_id"], max_read=64)
    assert p.bind(dc.SRVSVC)["type"] == "bind_ack"
    out = p.call(dc.OP_SHARE_ENUM_ALL, dc.srvsvc_share_enum_req(
        dc.server_unc(c.host), 1))
    assert ("IOCTL", "STATUS_BUFFER_OVERFLOW") in out["smb"], out
    res = dc.srvsvc_share_enum_res(out["stub"])
    assert res["werror"] == "WERR_OK" and res["trailing"] == 0, res
    assert "data" in [s["netname"] for s in res["shares"]]


def bound_pipe(c, **kw):
    p = dc.RpcPipe(c, open_pipe(c)["file_id"])
    ack = p.bind(dc.SRVSVC, **kw)
    assert ack["type"] == "bind_ack", ack
    return p, ack


def test_bind_results(pipe_client):
    c, _ = pipe_client
    p, ack = bound_pipe(c)
    assert ack["max_xmit_frag"] <= 5840 and ack["max_recv_frag"] <= 5840
    assert ack["sec_addr"].lower() == "\\pipe\\srvsvc", ack
    p = dc.RpcPipe(c, open_pipe(c)["file_id"])
    ack = p.bind(contexts=[(0, dc.SRVSVC, [dc.NDR64]),
                           (1, dc.SRVSVC, [dc.NDR]),
                           (2, dc.WKSSVC, [dc.NDR])])
    assert [(r["result"], r["reason"]) for r in ack["results"]] == [
        ("provider_rejection", "proposed_transfer_syntaxes_not_supported"),
        ("acceptance", ack["results"][1]["reason"]),
        ("provider_rejection", "abstract_syntax_not_supported")], ack


@pytest.mark.parametrize("opnum,level,field,want", [
    (dc.OP_SERVER_GET_INFO, 101, "name", NETBIOS_NAME),
    (dc.OP_SERVER_GET_INFO, 101, "comment", SERVER_STRING),
    (dc.OP_SERVER_GET_INFO, 101, "platform_id", 500),
    (dc.OP_SERVER_GET_INFO, 101, "version_major", 6),
    (dc.OP_SERVER_GET_INFO, 103, "werror", "WERR_INVALID_LEVEL"),
])
def test_srvsvc_server_info(pipe_client, opnum, level, field, want):
    c, _ = pipe_client
    p, _ = bound_pipe(c)
    out = p.call(opnum, dc.srvsvc_server_get_info_req(
        dc.server_unc(c.host), level))
    res = dc.srvsvc_server_get_info_res(out["stub"])
    got = res["werror"] if field == "werror" else res["info"][field]
    assert got == want, res


@pytest.mark.parametrize("name,level,werror,netname", [
    ("data", 1, "WERR_OK", "data"),
    ("DATA", 1, "WERR_OK", "data"),
    ("nobrowse", 501, "WERR_OK", "nobrowse"),
    ("IPC$", 0, "WERR_OK", "IPC$"),
    ("nosuch", 1, "WERR_INVALID_NAME", None),
    ("data", 7, "WERR_INVALID_LEVEL", None),
])
def test_srvsvc_share_get_info(pipe_client, name, level, werror, netname):
    c, _ = pipe_client
    p, _ = bound_pipe(c)
    out = p.call(dc.OP_SHARE_GET_INFO, dc.srvsvc_share_get_info_req(
        dc.server_unc(c.host), name, level))
    res = dc.srvsvc_share_get_info_res(out["stub"])
    assert res["werror"] == werror, res
    if netname:
        assert res["info"]["netname"] == netname, res


def test_wkssvc_info(pipe_client):
    c, _ = pipe_client
    p = dc.RpcPipe(c, open_pipe(c, "wkssvc")["file_id"])
    assert p.bind(dc.WKSSVC)["type"] == "bind_ack"
    out = p.call(dc.OP_WKSTA_GET_INFO, dc.wkssvc_get_info_req(
        dc.server_unc(c.host), 100))
    res = dc.wkssvc_get_info_res(out["stub"])
    assert res["werror"] == "WERR_OK", res
    assert (res["info"]["platform_id"], res["info"]["computername"],
            res["info"]["langroup"]) == (500, NETBIOS_NAME, "RSMBWG"), res


@pytest.mark.parametrize("case", ["unknown_opnum", "unknown_context",
                                  "bad_stub", "three_fragments"])
def test_rpc_call_errors(pipe_client, case):
    c, _ = pipe_client
    p, _ = bound_pipe(c)
    unc = dc.server_unc(c.host)
    if case == "unknown_opnum":
        out = p.call(200, b"")
        assert (out["status"], out["pfc_flags"]) == ("0x1C010002",
                                                      ["0x23"]), out
    elif case == "unknown_context":
        out = p.call(dc.OP_SERVER_GET_INFO,
                     dc.srvsvc_server_get_info_req(unc, 101), ctx_id=5)
        assert (out["status"], out["pfc_flags"]) == ("0x1C010003",
                                                      ["0x23"]), out
    elif case == "bad_stub":
        out = p.call(dc.OP_SERVER_GET_INFO, b"\x01\x00")
        assert out["status"] == "0x000006F7", out
    else:
        out = p.call(dc.OP_SHARE_ENUM_ALL,
                     dc.srvsvc_share_enum_req(unc, 1), nfrags=3)
        assert dc.srvsvc_share_enum_res(out["stub"])["werror"] == "WERR_OK"
    # the association goes on after a call's fault
    out = p.call(dc.OP_SERVER_GET_INFO,
                 dc.srvsvc_server_get_info_req(unc, 100))
    assert out["type"] == "response", out


# ------------------------------------------- malformed DCE/RPC (issue 13)

def _huge_count_stub(unc):
    """NetShareEnumAll whose container claims 0xFFFFFFFF entries."""
    w = dc.NdrWriter()
    w.unique_wstr(unc)
    w.u32(1)
    w.u32(1)
    w.ptr()
    w.u32(0xFFFFFFFF)          # EntriesRead
    w.ptr()                    # Buffer, non-NULL
    w.u32(0xFFFFFFFF)          # conformance
    return w.bytes()


def _bad_string_stub():
    """NetSrvGetInfo whose ServerName has actual_count > max_count."""
    return struct.pack("<IIII", 0x00020000, 4, 0, 9) + b"A\0" * 9 + \
        struct.pack("<I", 101)


def _bad_inputs(unc):
    req = dc.request_pdus(dc.OP_SERVER_GET_INFO,
                          dc.srvsvc_server_get_info_req(unc, 101),
                          call_id=7)[0]
    many = b"".join(
        dc.pdu_header(0, (dc.PFC_FIRST if i == 0 else 0) |
                      (dc.PFC_LAST if i == 9999 else 0), 8 + 32, 9) +
        struct.pack("<IHH", 0, 0, dc.OP_SERVER_GET_INFO) + b"\0" * 32
        for i in range(10000))
    return {
        # header says 8 bytes: shorter than a header
        "short_fragment": dc.pdu_header(0, 3, -8, 1),
        # frag_length 24 bytes short of what follows / past it
        "frag_length_short": req[:8] + struct.pack("<H", len(req) - 24) +
        req[10:],
        "auth_length_past_end": req[:10] + struct.pack("<H", 4000) +
        req[12:],
        "ten_thousand_fragments": many,
        "huge_ndr_count": dc.request_pdus(
            dc.OP_SHARE_ENUM_ALL, _huge_count_stub(unc), call_id=8)[0],
        "bad_string": dc.request_pdus(
            dc.OP_SERVER_GET_INFO, _bad_string_stub(), call_id=8)[0],
    }


BAD_INPUTS = ["short_fragment", "frag_length_short", "auth_length_past_end",
              "ten_thousand_fragments", "huge_ndr_count", "bad_string"]


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_rpc_bad_input(ipc_server, pipe_client, target, case):
    """Each gets a fault, a bind_nak or a closed pipe; never a crash, and
    the server goes on serving (conftest checks the log for sanitizer
    reports when the module's server stops)."""
    c, _ = pipe_client
    p, _ = bound_pipe(c)
    data = _bad_inputs(dc.server_unc(c.host))[case]
    w, _ = c.write(p.fid, data, timeout=CALL_LIMIT)
    replies, info = p.read_reply(timeout=3.0) if w.status == STATUS_OK \
        else ([], {"smb": [("WRITE", w.name)]})
    kinds = [r["type"] for r in replies]
    smb = [s for _, s in info["smb"]]
    answered = (kinds[:1] in (["fault"], ["bind_nak"]) or
                "STATUS_PIPE_DISCONNECTED" in smb or
                (not kinds and target == "samba"))
    assert answered, (kinds, info)
    if target == "ringsmb":
        want = {"huge_ndr_count": "0x000006F7", "bad_string": "0x000006F7"}
        if case in want:
            assert replies[0]["status"] == want[case], replies
    # a new pipe on the same connection still works
    p2, _ = bound_pipe(c)
    out = p2.call(dc.OP_SERVER_GET_INFO,
                  dc.srvsvc_server_get_info_req(dc.server_unc(c.host), 100))
    assert out["type"] == "response", out


def test_reauth_with_ipc_tree_connect(ipc_server):
    """An anonymous session with an IPC$ tree connect re-authenticates
    (a second anonymous SESSION_SETUP on the same session): the IPC$ tree
    connect has no VFS identity to follow.  This crashed ringsmb (NULL
    dereference, found by fuzz_server); the server must answer it, keep
    the tree connect usable and serve the next client."""
    import rawsmb as R
    with R.Conn(ipc_server.host, ipc_server.port, timeout=10) as c:
        c.negotiate()
        c.session_setup_anonymous()
        c.tree_connect("IPC$")
        r = c.request("SESSION_SETUP", R.session_setup_body(
            R.spnego_init(R.ntlm_negotiate())))
        c.expect(r, "STATUS_MORE_PROCESSING_REQUIRED")
        r = c.request("SESSION_SETUP", R.session_setup_body(
            R.spnego_resp(R.ntlm_authenticate())))
        c.expect(r)
        c.expect(c.request("ECHO"))
        r = c.request("CREATE", R.create_body("srvsvc",
                                              desired_access=0x0012019F))
        assert r.status_name in ("STATUS_SUCCESS", "STATUS_ACCESS_DENIED"), r
    assert ipc_server.alive()
    with R.Conn(ipc_server.host, ipc_server.port, timeout=10) as c:
        c.negotiate()
        c.session_setup_anonymous()
        c.tree_connect("IPC$")
