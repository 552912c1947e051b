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
