"""Lone READs and WRITEs run side by side (pipeline.c): a client at queue
depth > 1 sends many in one segment and the server starts them together,
so that their file I/O goes to the ring in one submission.  What must not
change: I/O that overlaps a WRITE keeps its order, anything else behind
them (a CLOSE) waits until every request ahead of it is done, as it
waited for one (RELIABILITY.md item 41), and every READ returns exactly
the file's bytes.
"""
import os
import random
import shutil

import pytest

from conftest import TARGET, VARIANTS, finish_server, make_scratch_dir, \
    make_server
import rawsmb

if TARGET != "ringsmb":
    pytest.skip("ringsmb's pipeline", allow_module_level=True)

KiB = 1024
SIZE = 4 * 1024 * KiB
BLOCK = 64 * KiB


@pytest.fixture(scope="module", params=VARIANTS)
def psrv(request, share_tree):
    base, d = make_scratch_dir("ringsmb-parallel-")
    srv = make_server(share_tree, request.param, {},
                      shares=[{"name": "pshare", "path": d,
                               "read_only": False, "guest_ok": True}])
    srv.pdir = d
    yield srv
    finish_server(srv)
    shutil.rmtree(base, ignore_errors=True)


def session(srv):
    c = rawsmb.Conn("127.0.0.1", srv.port, timeout=20)
    c.negotiate()
    c.session_setup_anonymous()
    c.tree_connect("pshare")
    return c


def make_file(srv, name, seed):
    data = random.Random(seed).randbytes(SIZE)
    path = srv.pdir / name
    path.write_bytes(data)
    os.chmod(path, 0o666)
    return data


def read_pdu(c, fid, off, n=BLOCK):
    return c.pdu("READ", rawsmb.read_body(file_id=fid, offset=off,
                                          length=n))


def mid_of(pdu):
    return int.from_bytes(pdu[24:32], "little")


def collect(c, n):
    """The next n responses, in the order they arrive."""
    out = []
    while len(out) < n:
        out.extend(c.recv())
    return out


def payload(r):
    off = r.u8(2) - 64
    return r.body[off:off + r.u32(4)]


def test_burst_of_reads_then_close(psrv):
    """32 READs and a CLOSE in one segment: every READ gets its bytes,
    the CLOSE is answered after all of them and succeeds."""
    data = make_file(psrv, "burst.bin", 1)
    with session(psrv) as c:
        fid = c.create("burst.bin", desired_access=0x00120089)
        offs = [(i * 7 % 64) * BLOCK for i in range(32)]
        pdus = [read_pdu(c, fid, o) for o in offs]
        close = c.pdu("CLOSE", rawsmb._pack(rawsmb.CLOSE_FIELDS,
                                            {"file_id": fid}))
        c.send(b"".join(rawsmb.nbt(p) for p in pdus + [close]))
        rsps = collect(c, 33)
        want = {mid_of(p): o for p, o in zip(pdus, offs)}
        assert rsps[-1].message_id == mid_of(close)
        assert rsps[-1].status_name == "STATUS_SUCCESS"
        for r in rsps[:-1]:
            assert r.status_name == "STATUS_SUCCESS", r
            o = want.pop(r.message_id)
            assert payload(r) == data[o:o + BLOCK], o
        assert not want
        # the handle is gone: a READ on it now fails
        r = c.request("READ", rawsmb.read_body(file_id=fid, length=10))
        assert r.status_name == "STATUS_FILE_CLOSED"


def test_write_waits_for_reads_ahead(psrv):
    """READs, then a WRITE over the same bytes, then READs again, all in
    one segment: the first READs see the old bytes, the WRITE is answered
    after them, the READs behind it see the new bytes."""
    data = make_file(psrv, "order.bin", 2)
    new = random.Random(3).randbytes(BLOCK)
    with session(psrv) as c:
        fid = c.create("order.bin", desired_access=0x0012019F)
        before = [read_pdu(c, fid, 0) for _ in range(16)]
        write = c.pdu("WRITE", rawsmb.write_body(new, file_id=fid))
        after = [read_pdu(c, fid, 0) for _ in range(16)]
        c.send(b"".join(rawsmb.nbt(p) for p in before + [write] + after))
        rsps = collect(c, 33)
        pos = {r.message_id: i for i, r in enumerate(rsps)}
        wpos = pos[mid_of(write)]
        assert rsps[wpos].status_name == "STATUS_SUCCESS"
        for p in before:
            r = rsps[pos[mid_of(p)]]
            assert pos[mid_of(p)] < wpos
            # "smb2 read mode = auto" (every variant) does not splice a
            # READ of a file that an open can write (this one can): the
            # bytes are the ones before the WRITE
            assert payload(r) == data[:BLOCK]
        for p in after:
            r = rsps[pos[mid_of(p)]]
            assert pos[mid_of(p)] > wpos
            assert payload(r) == new
    assert (psrv.pdir / "order.bin").read_bytes()[:BLOCK] == new


def test_reads_past_eof_and_bad_handle_in_a_burst(psrv):
    """Errors in the middle of a burst answer only their own READ."""
    data = make_file(psrv, "mixed.bin", 4)
    with session(psrv) as c:
        fid = c.create("mixed.bin", desired_access=0x00120089)
        bad = b"\x01" * 16
        plan = []
        for i in range(24):
            if i % 6 == 3:
                plan.append(("eof", read_pdu(c, fid, SIZE + BLOCK)))
            elif i % 6 == 5:
                plan.append(("bad", read_pdu(c, bad, 0)))
            else:
                plan.append(("ok", read_pdu(c, fid, i * BLOCK)))
        c.send(b"".join(rawsmb.nbt(p) for _, p in plan))
        by_mid = {r.message_id: r for r in collect(c, len(plan))}
        for i, (kind, p) in enumerate(plan):
            r = by_mid[mid_of(p)]
            if kind == "eof":
                assert r.status_name == "STATUS_END_OF_FILE"
            elif kind == "bad":
                assert r.status_name == "STATUS_FILE_CLOSED"
            else:
                assert r.status_name == "STATUS_SUCCESS"
                assert payload(r) == data[i * BLOCK:(i + 1) * BLOCK]
        # and the connection goes on
        assert c.read(fid, 0, 100) == data[:100]


def test_burst_of_writes(psrv):
    """64 WRITEs in one segment: disjoint ones (in any order of
    completion) and overlapping ones (which must apply in order), then
    READs of everything: the file is what the WRITEs say, in order."""
    data = bytearray(make_file(psrv, "wburst.bin", 5))
    rnd = random.Random(6)
    with session(psrv) as c:
        fid = c.create("wburst.bin", desired_access=0x0012019F)
        pdus = []
        for i in range(64):
            if i % 4 == 3:
                off = (i // 4) * 1000          # overlaps the ones before
            else:
                off = rnd.randrange(0, SIZE - BLOCK)
            n = rnd.randrange(1, BLOCK)
            chunk = rnd.randbytes(n)
            data[off:off + n] = chunk
            pdus.append(c.pdu("WRITE", rawsmb.write_body(
                chunk, file_id=fid, offset=off)))
        reads = [read_pdu(c, fid, o) for o in range(0, 32 * BLOCK, BLOCK)]
        c.send(b"".join(rawsmb.nbt(p) for p in pdus + reads))
        by_mid = {r.message_id: r for r in collect(c, len(pdus) + 32)}
        for p in pdus:
            assert by_mid[mid_of(p)].status_name == "STATUS_SUCCESS"
        for i, p in enumerate(reads):
            r = by_mid[mid_of(p)]
            assert r.status_name == "STATUS_SUCCESS"
            assert payload(r) == bytes(data[i * BLOCK:(i + 1) * BLOCK]), i
    assert (psrv.pdir / "wburst.bin").read_bytes() == bytes(data)
