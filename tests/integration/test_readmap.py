"""Mapped reads (source3/smbd/files/read_map.h): signed READs on an
"smb2 read mode = auto" share answered from a read-only mapping of the
file held under a Linux read lease.

The bytes must be the file's whatever happens around them: a local
process opening the file for writing or truncating it (the lease breaks,
the writer goes on at once, no READ faults), an SMB client opening it for
writing (our own lease is given up, the CREATE is not kept waiting),
encrypted sessions (the ciphertext is written elsewhere), kernel oplocks
shares (never mapped).  Whether a
READ was mapped is read from the server's log (level 2).  ringsmb only.
"""
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import (SMBCLIENT, TARGET, VARIANTS, finish_server,
                      make_scratch_dir, make_server)

smbprotocol = pytest.importorskip("smbprotocol")
from smbprotocol.exceptions import SMBResponseException  # noqa: E402

from test_admin import PASSWORD, USER, add_user  # noqa: E402
from test_write import READ_DATA, RW, Client  # noqa: E402
import rawsmb  # noqa: E402

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's mapped reads")

MiB = 1024 * 1024
MIN = 16384                     # "min splice size" of the shares
SIZE = 9 * MiB + 12345
READ_ONLY = READ_DATA | 0x80    # FILE_READ_ATTRIBUTES
STATUS_END_OF_FILE = 0xC0000011
MAPPED = "bytes mapped under a read lease"
RELEASED = "read lease released"
# file systems where the server maps (source3/smbd/files/local_fs.c)
LOCAL_FS = {"ef53", "58465342", "9123683e", "1021994", "f2f52010"}


def pattern(n, seed=0):
    """n bytes whose every 4 KiB page differs (seed shifts them all)."""
    page = bytes((7 * j) & 0xFF for j in range(4096))
    out = bytearray()
    k = seed
    while len(out) < n:
        out += bytes((b + k) & 0xFF for b in page[:64]) * 64
        k += 1
    return bytes(out[:n])


def local_fs(path):
    t = subprocess.run(["stat", "-f", "-c", "%t", str(path)],
                       stdout=subprocess.PIPE, text=True).stdout.strip()
    return t.lower() in LOCAL_FS


@pytest.fixture(scope="module", params=VARIANTS)
def mserver(request, share_tree, accounts):
    base, d = make_scratch_dir("ringsmb-readmap-")
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    params = {"min splice size": str(MIN)}
    srv = make_server(share_tree, request.param, {
        "smb passwd file": str(passwd)}, shares=[
        {"name": "rmap", "path": d, "read_only": False, "params": params},
        {"name": "rmap_copy", "path": d, "read_only": False,
         "params": dict(params, **{"smb2 read mode": "copy"})},
        {"name": "rmap_ko", "path": d, "read_only": False,
         "params": dict(params, **{"kernel oplocks": "yes"})},
        {"name": "rmap_noop", "path": d, "read_only": False,
         "params": dict(params, **{"vfs objects": "noop"})}])
    add_user(srv)
    srv.wdir = d
    srv.maps = local_fs(d)
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(passwd.parent, ignore_errors=True)


def put(srv, name, data):
    p = srv.wdir / name
    p.write_bytes(data)
    os.chmod(p, 0o666)
    return p


def signed(srv, share="rmap", encryption=False):
    return Client(srv.port, share=share, user=USER, password=PASSWORD,
                  signing=True, encryption=encryption)


def count(srv, what):
    return srv.log_path.read_text(errors="replace").count(what)


def wait_count(srv, what, n, timeout=10):
    """The count of what once it reaches n, or after timeout seconds
    (the line may be written just after what the test waited for)."""
    deadline = time.monotonic() + timeout
    while count(srv, what) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    return count(srv, what)


def cases():
    lens = [MIN - 1, MIN, MIN + 1, MiB - 1, MiB, 3 * MiB + 7, 8 * MiB]
    out = [(0, n) for n in lens] + [(1, n) for n in (MIN, MiB, 8 * MiB)]
    out += [(4095, 2 * MiB + 2), (MiB + 17, 5 * MiB)]
    # the file ends inside the request
    out += [(SIZE - 1, MiB), (SIZE - 100, MIN), (SIZE - MiB - 5, 3 * MiB)]
    return out


@pytest.mark.parametrize("share", ("rmap", "rmap_copy", "rmap_ko"))
def test_signed_reads_same_bytes(mserver, share):
    """Every boundary gives the file's bytes, mapped (auto) or not (copy,
    kernel oplocks), and only auto maps."""
    data = pattern(SIZE)
    put(mserver, "same-%s.bin" % share, data)
    before = count(mserver, MAPPED)
    with signed(mserver, share) as c:
        f = c.open("same-%s.bin" % share, access=READ_ONLY)
        for off, n in cases():
            assert f.read(off, n) == data[off:off + n], (off, n)
        for off in (SIZE, SIZE + MIN):
            with pytest.raises(SMBResponseException) as ei:
                f.read(off, 2 * MIN)
            assert ei.value.status == STATUS_END_OF_FILE
        f.close()
    mapped = count(mserver, MAPPED) - before
    assert mapped == (1 if share == "rmap" and mserver.maps else 0)


def test_stack_that_cannot_map(mserver):
    """vfs_noop's bytes are zeros, not the file's pages: its READs are
    never mapped (the stack answers ENOSYS once) and read zeros."""
    put(mserver, "noop.bin", pattern(2 * MiB, seed=23))
    before = count(mserver, MAPPED)
    with signed(mserver, "rmap_noop") as c:
        f = c.open("noop.bin", access=READ_ONLY)
        for i in range(12):
            assert f.read(i * 4096, MiB) == bytes(MiB)
        f.close()
    assert count(mserver, MAPPED) == before


def test_small_reads_map_from_the_eighth(mserver):
    """READs under "min splice size" copy until the open's eighth: a
    file read once in small pieces is not worth a lease and a mapping;
    one read in many is.  The bytes are the same either way."""
    data = pattern(MiB, seed=17)
    put(mserver, "small.bin", data)
    with signed(mserver) as c:
        f = c.open("small.bin", access=READ_ONLY)
        before = count(mserver, MAPPED)
        for i in range(7):
            off = i * 4096 * 3 + i
            assert f.read(off, 4096) == data[off:off + 4096]
        assert count(mserver, MAPPED) == before
        for i in range(7, 40):
            off = (i * 37 * 4096 + 5 * i) % (MiB - 4096)
            assert f.read(off, 4096) == data[off:off + 4096]
        assert f.read(MiB - 10, 4096) == data[MiB - 10:]
        assert count(mserver, MAPPED) == before + (1 if mserver.maps else 0)
        f.close()


def test_encrypted_reads_mapped(mserver):
    """Encrypted READs are mapped too: the ciphertext goes to a buffer of
    its own and the mapping is only read (a write to it would fault)."""
    data = pattern(3 * MiB, seed=5)
    put(mserver, "enc.bin", data)
    before = count(mserver, MAPPED)
    with signed(mserver, encryption=True) as c:
        f = c.open("enc.bin", access=READ_ONLY)
        assert f.read(0, 3 * MiB) == data
        assert f.read(MiB + 1, MiB) == data[MiB + 1:2 * MiB + 1]
        assert f.read(3 * MiB - MIN, MiB) == data[3 * MiB - MIN:]
        f.close()
    assert count(mserver, MAPPED) == before + (1 if mserver.maps else 0)
    assert (mserver.wdir / "enc.bin").read_bytes() == data


@pytest.mark.parametrize("cipher", ("AES-128-CCM", "AES-128-GCM",
                                    "AES-256-CCM", "AES-256-GCM"))
def test_smbclient_encrypted_get(mserver, tmp_path, cipher):
    """smbclient's encrypted get of a mapped file, every cipher: the same
    bytes as on disk."""
    data = pattern(5 * MiB + 3, seed=7)
    put(mserver, "encget.bin", data)
    dst = tmp_path / "encget.bin"
    p = subprocess.run(
        [SMBCLIENT, "//127.0.0.1/rmap", "-p", str(mserver.port), "-U",
         "%s%%%s" % (USER, PASSWORD), "--option=client smb encrypt=required",
         "--option=client smb3 encryption algorithms=%s" % cipher,
         "-c", "get encget.bin %s" % dst],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    assert p.returncode == 0, p.stdout
    assert dst.read_bytes() == data


def _local_open_for_writing(path, out):
    t0 = time.monotonic()
    with open(path, "r+b") as fp:
        out["waited"] = time.monotonic() - t0
        fp.write(b"L" * 4096)


def test_local_writer_breaks_the_lease(mserver):
    """A local process opening the file for writing waits only until the
    server has released its lease (not the kernel's 45 s lease break
    time), and the next READs see what it wrote."""
    if not mserver.maps:
        pytest.skip("the scratch directory is not on a local file system")
    data = pattern(2 * MiB, seed=9)
    p = put(mserver, "local.bin", data)
    released = count(mserver, RELEASED)
    with signed(mserver) as c:
        f = c.open("local.bin", access=READ_ONLY)
        assert f.read(0, MiB) == data[:MiB]
        mapped = count(mserver, MAPPED)
        out = {}
        t = threading.Thread(target=_local_open_for_writing, args=(p, out))
        t.start()
        t.join(30)
        assert not t.is_alive(), "the local open still waits"
        assert out["waited"] < 10, out
        assert wait_count(mserver, RELEASED, released + 1) == released + 1
        want = b"L" * 4096 + data[4096:]
        assert f.read(0, MiB) == want[:MiB]
        time.sleep(1.2)          # the open may take a lease again
        assert f.read(0, 2 * MiB) == want
        # mapped again once, by this READ or the one before
        assert count(mserver, MAPPED) == mapped + 1
        f.close()


def _held(got, head, tail):
    """got is what the file held: head (below the half, never cut), then
    a prefix of its old tail and zeros (a copied READ may meet the cut
    and the growth page by page), or less (the cut itself)."""
    if got[:len(head)] != head or len(got) < len(head):
        return False
    rest = got[len(head):]
    k = len(os.path.commonprefix([rest, tail[:len(rest)]]))
    return rest[k:] == bytes(len(rest) - k)


def test_client_that_does_not_read(mserver):
    """A client that stops taking its responses cannot hold a local
    writer for the kernel's lease-break-time (45 s): 5 s after the break
    its connection is dropped, the writer goes on, and the file serves
    the next client as before."""
    if not mserver.maps:
        pytest.skip("the scratch directory is not on a local file system")
    data = pattern(2 * MiB, seed=19)
    p = put(mserver, "stall.bin", data)
    with rawsmb.Conn("127.0.0.1", mserver.port, timeout=20) as c:
        c.negotiate()
        c.session_setup_anonymous()
        c.tree_connect("rmap")
        fid = c.create("stall.bin", desired_access=0x00120089)
        # compounds of two 1 MiB READs: not spliced, so mapped; 24 MiB
        # in all, more than both sockets' buffers hold (loopback: about
        # 6 + 4 MiB at most)
        body = rawsmb.read_body(file_id=fid, offset=0, length=MiB)
        body += b"\0" * rawsmb.pad8(64 + len(body))
        for _ in range(12):
            first = c.pdu("READ", body, credit_charge=16,
                          next_command=64 + len(body))
            second = c.pdu("READ", body, credit_charge=16)
            c.send(rawsmb.nbt(first + second))
        time.sleep(1)            # the server's sends are stuck now
        out = {}
        t = threading.Thread(target=_local_open_for_writing, args=(p, out))
        t.start()
        t.join(40)
        assert not t.is_alive(), "the local open still waits"
        assert 4 <= out["waited"] < 20, out
        assert wait_count(mserver, "hold a writer off the file", 1) == 1
        with pytest.raises(rawsmb.Disconnected):
            for _ in range(64):
                c.recv_frame(timeout=5)
    with signed(mserver) as r:
        f = r.open("stall.bin", access=READ_ONLY)
        assert f.read(0, MiB) == b"L" * 4096 + data[4096:MiB]
        f.close()


def test_local_truncate_while_reading(mserver):
    """The file is truncated to half and grown back again and again by a
    local process while a signed client reads across the half: every
    truncate goes through, every READ has bytes the file held (_held),
    and the server is still there (no SIGBUS on a page that went)."""
    data = pattern(4 * MiB, seed=3)
    p = put(mserver, "trunc.bin", data)
    stop = threading.Event()
    errors = []
    reads = [0]

    def reader():
        try:
            with signed(mserver) as c:
                f = c.open("trunc.bin", access=READ_ONLY)
                i = 0
                while not stop.is_set() and i < 5000:
                    off = 2 * MiB - (i % 8 + 1) * 65536
                    n = MiB
                    head = data[off:2 * MiB]
                    got = f.read(off, n)
                    if not _held(got, head, data[2 * MiB:off + n]):
                        errors.append(("bytes", off, len(got)))
                        return
                    i += 1
                    reads[0] += 1
                f.close()
        except Exception as e:      # noqa: BLE001 -- reported below
            errors.append(repr(e))

    t = threading.Thread(target=reader)
    t.start()
    try:
        for i in range(20):
            t0 = time.monotonic()
            os.truncate(p, 2 * MiB)
            os.truncate(p, 4 * MiB)
            assert time.monotonic() - t0 < 10, i
            time.sleep(0.05)
    finally:
        stop.set()
        t.join(60)
    assert not t.is_alive()
    assert errors == []
    assert reads[0] > 0
    # grown back with zeros
    with signed(mserver) as c:
        f = c.open("trunc.bin", access=READ_ONLY)
        assert f.read(0, 2 * MiB) == data[:2 * MiB]
        assert f.read(3 * MiB, MiB) == bytes(MiB)
        f.close()


def test_smb_writer_takes_over(mserver):
    """Another client opening the file for writing gets it at once (our
    own lease is given up, not waited out), writes, and the reader sees
    the new bytes; once the writer closes, READs map again."""
    data = pattern(2 * MiB, seed=11)
    put(mserver, "smbw.bin", data)
    with signed(mserver) as r, signed(mserver) as w:
        f = r.open("smbw.bin", access=READ_ONLY)
        assert f.read(0, MiB) == data[:MiB]
        given_up = count(mserver, "given up for our own open")
        h = w.open("smbw.bin", access=RW)
        if mserver.maps:
            assert count(mserver, "given up for our own open") == \
                given_up + 1
        h.write(b"W" * 8192, 0)
        want = b"W" * 8192 + data[8192:]
        assert f.read(0, MiB) == want[:MiB]
        h.close()
        time.sleep(1.2)
        before = count(mserver, MAPPED)
        assert f.read(0, 2 * MiB) == want
        assert count(mserver, MAPPED) == before + (1 if mserver.maps else 0)
        f.close()


def test_close_on_another_connection(mserver):
    """Two opens of one file, both mapped; one closes while the other
    keeps reading."""
    data = pattern(3 * MiB, seed=13)
    put(mserver, "two.bin", data)
    with signed(mserver) as a, signed(mserver) as b:
        fa = a.open("two.bin", access=READ_ONLY)
        fb = b.open("two.bin", access=READ_ONLY)
        assert fa.read(0, 3 * MiB) == data
        assert fb.read(MiB, MiB) == data[MiB:2 * MiB]
        fa.close()
        for off in range(0, 3 * MiB, MiB):
            assert fb.read(off, MiB) == data[off:off + MiB]
        fb.close()
