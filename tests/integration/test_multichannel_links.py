"""Multichannel across links (issue 14): the server runs in a network
namespace made by this test, joined to the test's namespace by two veth
pairs, one subnet each (10.77.1.0/24 and 10.77.2.0/24; the addresses
exist only inside this test's links).  `interfaces` names both server
ends with Samba's keys: the network-interface FSCTL gives the client
each link with its speed and RSS, a second channel binds over the other
link, and when the first link goes down mid-run the session goes on over
the second with nothing lost: with raw requests, and with smb2bench
--channels=2 (its JSON counts each channel's requests).  ringsmb only
(its smbpasswd users); root and `ip netns` needed, else skipped."""
import hashlib
import json
import os
import random
import shutil
import subprocess
import time

import pytest

import rawsmb as R
from conftest import RingsmbServer, TARGET, finish_server, make_scratch_dir
from test_ioctl import parse_ifaces
from test_multichannel import (CAP_MULTI_CHANNEL, D302, Channel, open_data,
                               signed_with)
from test_session import ALICE, USERS, add_user, file_id

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="accounts are ringsmb's smbpasswd")

NS = "rsmbt-mc%d" % os.getpid()
# (server address, client address, the client-side device, speed, label)
LINKS = [("10.77.1.1", "10.77.1.2", "rmc%da" % os.getpid(), 10 ** 10),
         ("10.77.2.1", "10.77.2.2", "rmc%db" % os.getpid(), 25 * 10 ** 9)]
FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC
CHUNK = 60000                   # under the smallest max_write
TIMEOUT = 30


def ip(*args):
    subprocess.run(["ip"] + list(args), check=True, timeout=TIMEOUT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_links():
    """The namespace and its two links; False when this machine cannot."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    try:
        ip("netns", "add", NS)
    except subprocess.CalledProcessError:
        return False
    ip("-n", NS, "link", "set", "lo", "up")
    for i, (srv_addr, cli_addr, dev, _) in enumerate(LINKS):
        peer = "%ss" % dev
        ip("link", "add", dev, "type", "veth", "peer", "name", peer)
        ip("link", "set", peer, "netns", NS)
        ip("-n", NS, "addr", "add", srv_addr + "/24", "dev", peer)
        ip("-n", NS, "link", "set", peer, "up")
        ip("addr", "add", cli_addr + "/24", "dev", dev)
        ip("link", "set", dev, "up")
    return True


def drop_links():
    for _, _, dev, _ in LINKS:
        subprocess.run(["ip", "link", "del", dev], timeout=TIMEOUT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["ip", "netns", "del", NS], timeout=TIMEOUT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class NetnsServer(RingsmbServer):
    """ringsmb inside NS, reached over the first link."""

    def command(self):
        return ["ip", "netns", "exec", NS] + super().command()


class LinkChannel(Channel):
    """test_multichannel's SMB 3.0.2 channel, to an address of a link."""

    def __init__(self, host, port):
        R.Conn.__init__(self, host, port, timeout=10)
        self.key = None
        self.neg = self.negotiate(dialects=[D302],
                                  capabilities=CAP_MULTI_CHANNEL)


@pytest.fixture(scope="module")
def links():
    drop_links()                # what a killed run may have left
    try:
        if not make_links():
            pytest.skip("needs root and ip netns")
    except subprocess.CalledProcessError as e:
        drop_links()
        pytest.skip("cannot make veth links here: %s" % e.stderr)
    yield
    drop_links()


@pytest.fixture(scope="module")
def srv(share_tree, accounts, links):
    base, d = make_scratch_dir()
    (d / "data.txt").write_bytes(b"multichannel data")
    os.chmod(d / "data.txt", 0o666)
    ifaces = " ".join('"%s;speed=%d,capability=RSS"' % (a, speed)
                      for a, _, _, speed in LINKS)
    s = NetnsServer(share_tree, "default", {
        "smb passwd file": str(base / "smbpasswd"),
        "server signing": "mandatory",
        "interfaces": ifaces,
        "bind interfaces only": "yes",
        # the channels of the scaling run land on both (worker.c)
        "smb2 workers": "2"},
        [{"name": "rw", "path": str(d), "read_only": False}])
    s.host = LINKS[0][0]
    s.wdir = d
    s.start()
    for user, pw in USERS.items():
        add_user(s, user, pw)
    yield s
    finish_server(s)
    shutil.rmtree(base, ignore_errors=True)


def query_interfaces(c):
    body = R.body_for("IOCTL", ctl_code=FSCTL_QUERY_NETWORK_INTERFACE_INFO,
                      max_output_response=65536)
    r = c.call("IOCTL", body)
    c.expect(r)
    off, n = r.u32(32) - 64, r.u32(36)
    return parse_ifaces(r.body[off:off + n])


def test_interfaces_advertised_per_link(srv):
    with LinkChannel(LINKS[0][0], srv.port) as a:
        a.login()
        got = {(addr, speed, cap) for _, cap, speed, _, addr in
               query_interfaces(a)}
    # both links, as configured; nothing else (not the namespace's lo)
    assert got == {(addr, speed, 1) for addr, _, _, speed in LINKS}


def write_all(c, fid, data):
    for off in range(0, len(data), CHUNK):
        r = c.call("WRITE", R.write_body(data[off:off + CHUNK],
                                         file_id=fid, offset=off))
        c.expect(r)


def read_all(c, fid, n):
    out = b""
    while len(out) < n:
        r = c.call("READ", R.read_body(file_id=fid, offset=len(out),
                                       length=min(CHUNK, n - len(out))))
        c.expect(r)
        off = r.u8(2) - 64
        out += r.body[off:off + r.u32(4)]
    return out


def test_link_down_second_channel_goes_on(srv):
    """Channel 1 over link 1, channel 2 bound over link 2; a file written
    half through each; link 1 goes down; channel 2 finishes the file,
    reads all of it back and closes it: every byte is there."""
    data = random.Random(14).randbytes(8 * CHUNK)
    half = len(data) // 2
    with LinkChannel(LINKS[0][0], srv.port) as a, \
            LinkChannel(LINKS[1][0], srv.port) as b:
        a.login()
        b.expect(b.bind(a))
        r = a.call("CREATE", R.create_body("links.bin", disposition=5,
                                           desired_access=0x0012019F))
        a.expect(r)
        fid = file_id(r)
        write_all(a, fid, data[:half])
        ip("link", "set", LINKS[0][2], "down")
        try:
            for off in range(half, len(data), CHUNK):
                r = b.call("WRITE", R.write_body(data[off:off + CHUNK],
                                                 file_id=fid, offset=off))
                b.expect(r)
                assert signed_with(b.key, r)
            got = read_all(b, fid, len(data))
            b.expect(b.call("CLOSE", R.body_for("CLOSE", file_id=fid)))
        finally:
            ip("link", "set", LINKS[0][2], "up")
    assert hashlib.sha256(got).hexdigest() == \
        hashlib.sha256(data).hexdigest()
    on_disk = srv.wdir / "links.bin"
    assert on_disk.read_bytes() == data
    # the data file of the module is still served over link 2 alone
    with LinkChannel(LINKS[1][0], srv.port) as c:
        c.login()
        fid = open_data(c)
        assert c.read_file(fid) == b"multichannel data"


# ------------------------------------------------- smb2bench over the links

def bench_links(srv, *args):
    """smb2bench as ALICE over link 1, --channels=2 to what the server
    advertises; a Popen with its JSON on stdout.  args come last: they
    override the defaults here (the last value of an option wins)."""
    from test_smb2bench import smb2bench_binary
    return subprocess.Popen(
        [str(smb2bench_binary()), "//%s/rw" % LINKS[0][0], "-p",
         str(srv.port), "-U", "%s%%%s" % (ALICE, USERS[ALICE]),
         "--channels=2", "--output-format=json", "--bs=64k",
         "--iodepth=8", "--size=8m", "--verify=pattern"] + list(args),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def bench_done(p):
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err.decode(errors="replace")
    out = json.loads(out)
    job = out["jobs"][0]
    assert job["error"] == 0 and job["verify_errors"] == 0
    return job, out["smb2bench"]["channels"]


def pattern_on_disk(srv, name, size):
    from test_smb2bench import pattern
    with open(srv.wdir / name, "rb") as f:
        return hashlib.sha256(f.read(size)).digest() == \
            hashlib.sha256(pattern(size)).digest()


def test_smb2bench_two_channels_over_two_links(srv):
    """The second channel goes to the other advertised link; both carry
    requests; every byte written and read back is the pattern."""
    job, chans = bench_done(bench_links(srv, "--rw=write",
                                        "--filename=mc2.bin"))
    assert job["verify_bytes"] == 8 * 2 ** 20
    assert [c["address"] for c in chans] == [LINKS[0][0], LINKS[1][0]]
    assert all(c["requests"] > 0 and not c["lost"] for c in chans)
    assert pattern_on_disk(srv, "mc2.bin", 8 * 2 ** 20)
    job, chans = bench_done(bench_links(srv, "--rw=randread",
                                        "--filename=mc2.bin"))
    assert job["read"]["io_bytes"] == 8 * 2 ** 20
    assert sum(c["requests"] for c in chans) == 128
    assert all(c["requests"] > 0 for c in chans)


def test_smb2bench_link_down_mid_run(srv):
    """Link 1 (the first channel's, which opened the file) goes down in
    the middle of a 10 s checked read/write run: its requests move to the
    second channel, the run ends without an error and the file is still
    the pattern."""
    p = bench_links(srv, "--rw=randrw", "--time_based", "--runtime=10",
                    "--filename=down.bin")
    try:
        time.sleep(3)
        ip("link", "set", LINKS[0][2], "down")
        job, chans = bench_done(p)
    finally:
        ip("link", "set", LINKS[0][2], "up")
        if p.poll() is None:
            p.kill()
            p.wait()
    assert [c["lost"] for c in chans] == [True, False]
    assert chans[1]["requests"] > chans[0]["requests"] > 0
    assert job["read"]["io_bytes"] > 0 and job["write"]["io_bytes"] > 0
    assert job["verify_bytes"] == job["read"]["io_bytes"]
    assert pattern_on_disk(srv, "down.bin", 8 * 2 ** 20)


def test_smb2bench_scaling_over_links(srv, capsys):
    """1, 2 and 4 channels of one session over the two links (4: two per
    link), 1 MiB reads of one file, on two workers: all correct; the MB/s
    of each are printed (pytest -s) for docs/performance.md, not judged
    (2 cores run client and server)."""
    rates = {}
    for ch in (1, 2, 4):
        p = bench_links(srv, "--rw=read", "--bs=1m", "--iodepth=8",
                        "--size=256m", "--filename=scale.bin",
                        "--time_based", "--runtime=3", "--verify=0",
                        "--channels=%d" % ch)
        job, chans = bench_done(p)
        assert len(chans) == ch and all(c["requests"] > 0 for c in chans)
        rates[ch] = job["read"]["bw_bytes"] / 1e6
    with capsys.disabled():
        print("\nsmb2bench over the links, 1 MiB reads, iodepth 8: "
              "1 channel %.0f MB/s, 2 channels %.0f MB/s (%.2fx), "
              "4 channels %.0f MB/s (%.2fx)" %
              (rates[1], rates[2], rates[2] / rates[1], rates[4],
               rates[4] / rates[1]))
