"""Bursts of large WRITEs in one TCP send (transport.c, shared receive
buffers): one receive brings several WRITEs, handed to the pipeline by
reference into one buffer.  What must hold: every byte lands where its
WRITE says (sha256 of the file on disk), whatever the PDU sizes and
wherever buffer boundaries fall (PDUs larger than a shared buffer, PDUs
straddling its end, small PDUs between large ones, a compound behind
them); signed and encrypted bursts likewise (TRANSFORM decrypted in place
inside a shared buffer); a client that vanishes or stalls inside a burst
loses only what was not acknowledged, and other clients do not notice.
"""
import hashlib
import random
import shutil
import socket
import struct
import threading

import pytest

from conftest import (TARGET, finish_server, make_scratch_dir,
                      make_server, scratch_file, sha256_file)
import rawsmb
from test_parallel_reads import (  # noqa: F401  (psrv is a fixture)
    collect, mid_of, payload, psrv, session)

if TARGET != "ringsmb":
    pytest.skip("ringsmb's transport", allow_module_level=True)

KiB = 1024
MiB = 1024 * KiB
RW = 0x0012019F


def charge(n):
    return max(1, (n + 64 * KiB - 1) // (64 * KiB))


def write_pdu(c, fid, off, data):
    return c.pdu("WRITE", rawsmb.write_body(data, file_id=fid, offset=off),
                 credit_charge=charge(len(data)))


def compound(pdus):
    """Unrelated requests in one compound (MS-SMB2 3.2.4.1.4)."""
    out = b""
    for i, p in enumerate(pdus):
        if i < len(pdus) - 1:
            p += b"\0" * rawsmb.pad8(len(p))
            nxt = len(p)
        else:
            nxt = 0
        out += p[:20] + struct.pack("<I", nxt) + p[24:]
    return out


def burst_sizes(seed, total):
    """Sizes that put buffer boundaries in different places: small PDUs
    between large ones, 64 KiB ones, ones of several hundred KiB, one
    larger than a shared buffer can hold twice (a buffer of its own)."""
    rnd = random.Random(seed)
    sizes = [3 * MiB, 64 * KiB, 64 * KiB + 1]
    while sum(sizes) < total:
        sizes.append(rnd.choice([
            rnd.randrange(1, 4 * KiB), 64 * KiB, 64 * KiB,
            rnd.randrange(8 * KiB, 64 * KiB),
            rnd.randrange(64 * KiB, 700 * KiB), 1 * MiB]))
    rnd.shuffle(sizes)
    return sizes


def test_burst_then_compound(psrv):
    """About 10 MiB of WRITEs and a compound (WRITE, READ, FLUSH) behind
    them, all in one send: every WRITE succeeds with its count, the
    compound's READ sees the burst's bytes, the file on disk is exactly
    the concatenation."""
    path = scratch_file(psrv.pdir, "burst.bin")
    rnd = random.Random(1)
    sizes = burst_sizes(2, 10 * MiB)
    expect = bytearray()
    with session(psrv) as c:
        fid = c.create(path.name, desired_access=RW)
        pdus = []
        for n in sizes:
            pdus.append(write_pdu(c, fid, len(expect), rnd.randbytes(n)))
            expect += pdus[-1][64 + 48:]
        tail = rnd.randbytes(5000)
        cpd = [c.pdu("WRITE", rawsmb.write_body(tail, file_id=fid,
                                                offset=len(expect))),
               c.pdu("READ", rawsmb.read_body(file_id=fid, offset=100,
                                              length=60000)),
               c.pdu("FLUSH", rawsmb.body_for("FLUSH", file_id=fid))]
        expect += tail
        c.send(b"".join(rawsmb.nbt(p) for p in pdus) +
               rawsmb.nbt(compound(cpd)))
        got = {r.message_id: r for r in collect(c, len(pdus) + 3)}
        for p, n in zip(pdus, sizes):
            r = got[mid_of(p)]
            assert r.status_name == "STATUS_SUCCESS", n
            assert r.u32(4) == n
        assert got[mid_of(cpd[0])].u32(4) == len(tail)
        assert payload(got[mid_of(cpd[1])]) == bytes(expect[100:60100])
        assert got[mid_of(cpd[2])].status_name == "STATUS_SUCCESS"
        c.close_file(fid)
    assert sha256_file(path) == hashlib.sha256(expect).hexdigest()


def test_pdus_straddle_in_every_segment(psrv):
    """The same burst trickled in 100,000-byte segments: the receive
    ends inside a PDU again and again (heads, NBT headers, payloads)."""
    path = scratch_file(psrv.pdir, "trickle.bin")
    rnd = random.Random(3)
    expect = bytearray()
    with session(psrv) as c:
        fid = c.create(path.name, desired_access=RW)
        pdus = []
        for n in burst_sizes(4, 4 * MiB):
            pdus.append(write_pdu(c, fid, len(expect), rnd.randbytes(n)))
            expect += pdus[-1][64 + 48:]
        wire = b"".join(rawsmb.nbt(p) for p in pdus)
        for i in range(0, len(wire), 100000):
            c.send(wire[i:i + 100000])
        got = {r.message_id: r for r in collect(c, len(pdus))}
        assert all(got[mid_of(p)].status_name == "STATUS_SUCCESS"
                   for p in pdus)
        c.close_file(fid)
    assert sha256_file(path) == hashlib.sha256(expect).hexdigest()


def other_client_burst(srv, name, seed, errors):
    """A client beside the one under test: its burst must be served."""
    try:
        path = scratch_file(srv.pdir, name)
        data = random.Random(seed).randbytes(2 * MiB)
        with session(srv) as c:
            fid = c.create(path.name, desired_access=RW)
            pdus = [write_pdu(c, fid, o, data[o:o + 64 * KiB])
                    for o in range(0, len(data), 64 * KiB)]
            c.send(b"".join(rawsmb.nbt(p) for p in pdus))
            rs = collect(c, len(pdus))
            assert all(r.status_name == "STATUS_SUCCESS" for r in rs)
            c.close_file(fid)
        assert path.read_bytes() == data
    except Exception as e:              # reported by the main thread
        errors.append(e)


def test_disconnect_inside_third_write(psrv):
    """Two WRITEs and half of a third in one send; the client reads the
    two answers and vanishes.  Both acknowledged WRITEs are on disk, the
    third's range is untouched; a client beside it is served throughout."""
    old = bytes([0x55]) * (3 * 300 * KiB)
    path = scratch_file(psrv.pdir, "cut.bin", old)
    errors = []
    other = threading.Thread(target=other_client_burst,
                             args=(psrv, "beside.bin", 5, errors))
    rnd = random.Random(6)
    chunks = [rnd.randbytes(300 * KiB) for _ in range(3)]
    c = session(psrv)
    fid = c.create(path.name, desired_access=RW)
    pdus = [write_pdu(c, fid, i * 300 * KiB, chunks[i]) for i in range(3)]
    wire = b"".join(rawsmb.nbt(p) for p in pdus)
    other.start()
    c.send(wire[:len(wire) - 150 * KiB])
    rs = collect(c, 2)
    assert sorted(r.message_id for r in rs) == sorted(
        mid_of(p) for p in pdus[:2])
    assert all(r.status_name == "STATUS_SUCCESS" and
               r.u32(4) == 300 * KiB for r in rs)
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                      struct.pack("ii", 1, 0))  # a reset, not a FIN
    c.close()
    other.join(120)
    assert not other.is_alive() and not errors, errors
    on_disk = path.read_bytes()
    assert on_disk[:600 * KiB] == chunks[0] + chunks[1]
    assert on_disk[600 * KiB:] == old[600 * KiB:]
    # the server goes on
    other_client_burst(psrv, "after.bin", 7, errors)
    assert not errors, errors


def test_garbage_after_large_writes(psrv):
    """Two large WRITEs, then a frame longer than any PDU may be, in one
    send: the connection is dropped (RELIABILITY.md: bad NBT header),
    the server serves the next client."""
    path = scratch_file(psrv.pdir, "garbage.bin")
    c = session(psrv)
    fid = c.create(path.name, desired_access=RW)
    data = random.Random(8).randbytes(200 * KiB)
    pdus = [write_pdu(c, fid, 0, data[:100 * KiB]),
            write_pdu(c, fid, 100 * KiB, data[100 * KiB:])]
    c.send(b"".join(rawsmb.nbt(p) for p in pdus) +
           b"\0\xff\xff\xff" + b"\xfeSMB" * 1000)
    c.wait_closed(30)
    c.close()
    errors = []
    other_client_burst(psrv, "after-garbage.bin", 9, errors)
    assert not errors, errors


@pytest.mark.parametrize("variant", ["default"])
def test_stall_inside_shared_receive(share_tree, variant):
    """A client stops sending inside a large WRITE of a burst: it is
    disconnected after the partial-PDU timeout (30 s, G5), while a client
    beside it is served meanwhile."""
    base, d = make_scratch_dir("ringsmb-stall-")
    srv = make_server(share_tree, variant, {}, shares=[
        {"name": "pshare", "path": d, "read_only": False,
         "guest_ok": True}])
    srv.pdir = d
    try:
        path = scratch_file(d, "stall.bin")
        c = session(srv)
        fid = c.create(path.name, desired_access=RW)
        data = random.Random(10).randbytes(256 * KiB)
        pdus = [write_pdu(c, fid, 0, data[:128 * KiB]),
                write_pdu(c, fid, 128 * KiB, data[128 * KiB:])]
        wire = b"".join(rawsmb.nbt(p) for p in pdus)
        c.send(wire[:len(wire) - 1000])
        assert collect(c, 1)[0].status_name == "STATUS_SUCCESS"
        errors = []
        other_client_burst(srv, "beside-stall.bin", 11, errors)
        assert not errors, errors
        c.wait_closed(45)               # 30 s and the loop's slack
        c.close()
        assert path.read_bytes() == data[:128 * KiB]
    finally:
        finish_server(srv)
        shutil.rmtree(base, ignore_errors=True)


def send_as_one(conn, fn):
    """Runs fn with smbprotocol's sends gathered, then sends them in one
    sendall: a signed or encrypted burst in one segment."""
    from smbprotocol.transport import DirectTCPPacket
    frames = []
    real = conn.transport.send

    def gather(msg):
        frame = DirectTCPPacket()
        frame["smb2_message"] = msg     # bytes, or a TRANSFORM message
        frames.append(frame.pack())
    conn.transport.send = gather
    try:
        out = fn()
    finally:
        conn.transport.send = real
    conn.transport._sock.sendall(b"".join(frames))
    return out


@pytest.mark.parametrize("mode", ["signed", "encrypted"])
def test_signed_and_encrypted_bursts(share_tree, accounts, mode):
    """24 WRITEs of 4 KiB..1 MiB and a compound of two WRITEs, signed or
    sealed (TRANSFORM, decrypted in place in the shared buffer), in one
    send: every WRITE succeeds, the file's sha256 is the burst's."""
    from smbprotocol.open import SMB2WriteRequest
    from test_write import PASSWORD, USER, Client, user_server
    settings = {"server signing": "mandatory"} if mode == "signed" else \
        {"server smb encrypt": "required"}
    srv = user_server(share_tree, settings)
    try:
        path = scratch_file(srv.wdir, "sealed.bin")
        rnd = random.Random(12)
        sizes = [rnd.choice([4 * KiB, 64 * KiB, 64 * KiB, 200 * KiB,
                             1 * MiB]) for _ in range(24)] + [9000, 70000]
        chunks = [rnd.randbytes(n) for n in sizes]
        offs = [sum(sizes[:i]) for i in range(len(sizes))]
        with Client(srv.port, user=USER, password=PASSWORD,
                    signing=mode == "signed",
                    encryption=mode == "encrypted") as c:
            f = c.open(path.name)
            tc = f.tree_connect
            sid, tid = tc.session.session_id, tc.tree_connect_id

            def write_req(i):
                w = SMB2WriteRequest()
                w["length"], w["offset"] = sizes[i], offs[i]
                w["file_id"], w["buffer"] = f.file_id, chunks[i]
                return w

            def burst():
                reqs = [c.conn.send(write_req(i), sid, tid)
                        for i in range(24)]
                return reqs + c.conn.send_compound(
                    [write_req(24), write_req(25)], sid, tid)
            reqs = send_as_one(c.conn, burst)
            for i, req in enumerate(reqs):
                r = c.conn.receive(req, timeout=60)
                assert r["status"].get_value() == 0, i
            f.close()
        expect = hashlib.sha256(b"".join(chunks)).hexdigest()
        assert sha256_file(path) == expect
    finally:
        finish_server(srv)
        shutil.rmtree(srv.base, ignore_errors=True)
