"""Replay protection for multichannel clients, with raw PDUs (rawsmb):

- channel sequence (MS-SMB2 3.3.5.2.10): once a request with a newer
  ChannelSequence used an open, a WRITE, SET_INFO or IOCTL still carrying
  the older one (sent before the client failed over) is refused with
  STATUS_FILE_NOT_AVAILABLE and its data never reaches the file; a READ
  with the old number still runs;
- replayed CREATE with DH2Q (3.3.5.9.10): the same CreateGuid with
  SMB2_FLAGS_REPLAY_OPERATION answers the open it made (same FileId),
  durable or not, until another request used that open; without the flag
  it is STATUS_DUPLICATE_OBJECTID; while the original CREATE still waits
  for an oplock break, STATUS_FILE_NOT_AVAILABLE at once (as Samba).

ringsmb only (the servers of test_durable.py).  smbtorture smb2.replay
(tests/compat) covers the same against Samba's expectations.
"""
import struct
import uuid

import pytest

import rawsmb as R
from conftest import TARGET
from test_durable import (BATCH, dsrv, raw_client,  # noqa: F401
                          raw_dh2q_create, rsp_fields)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="the servers of test_durable.py")

FLAGS_REPLAY = 0x20000000
NOT_AVAILABLE = 0xC0000467
DUPLICATE_OBJECTID = 0xC000022A
FILE_CREATED, FILE_OPENED = 2, 1


def close(c, fid):
    c.expect(c.request("CLOSE", struct.pack("<HHI16s", 24, 0, 0, fid)))


def write(c, fid, data, csn, **hdr):
    return c.request("WRITE", R.write_body(data, file_id=fid), status=csn,
                     **hdr)


def read(c, fid, n, csn):
    r = c.expect(c.request("READ", R.read_body(file_id=fid, length=n),
                           status=csn))
    off = r.u8(2) - 64
    return r.body[off:off + r.u32(4)]


def set_position(c, fid, pos, csn):
    return c.request("SET_INFO", R.set_info_body(
        struct.pack("<Q", pos), info_class=14, file_id=fid), status=csn)


def test_stale_channel_sequence_write_refused(dsrv):
    name = "r1-%s.bin" % uuid.uuid4().hex[:8]
    with raw_client(dsrv) as c:
        r = c.expect(raw_dh2q_create(c, name, uuid.uuid4(), oplock=0,
                                     status=0))
        fid = rsp_fields(r)[2]
        c.expect(write(c, fid, b"AAAA", 0))
        # the client fails over: its requests now carry 1
        c.expect(write(c, fid, b"BBBB", 1))
        # a WRITE from before the failover arrives late: refused
        assert write(c, fid, b"CCCC", 0).status == NOT_AVAILABLE
        assert write(c, fid, b"CCCC", 0, flags=FLAGS_REPLAY).status == \
            NOT_AVAILABLE
        assert set_position(c, fid, 7, 0).status == NOT_AVAILABLE
        # 0x8000 ahead is not "newer" in 16-bit arithmetic either
        assert write(c, fid, b"DDDD", 0x8001).status == NOT_AVAILABLE
        # a READ with the old number runs, and sees the newer data
        assert read(c, fid, 4, 0) == b"BBBB"
        # the replay of a WRITE at the current number is accepted
        c.expect(write(c, fid, b"EEEE", 1, flags=FLAGS_REPLAY))
        c.expect(set_position(c, fid, 7, 1))
        assert read(c, fid, 4, 1) == b"EEEE"
        close(c, fid)
    assert (dsrv.share_dir / name).read_bytes() == b"EEEE"
    (dsrv.share_dir / name).unlink()


def test_replayed_create_returns_same_file_id(dsrv):
    name = "r2-%s.bin" % uuid.uuid4().hex[:8]
    guid = uuid.uuid4()
    with raw_client(dsrv) as c:
        # no oplock: not durable, still replayable by its CreateGuid
        r1 = c.expect(raw_dh2q_create(c, name, guid, oplock=0, share=7))
        level, action, fid, dh = rsp_fields(r1)
        assert (level, action, dh) == (0, FILE_CREATED, False)
        r2 = c.expect(raw_dh2q_create(c, name, guid, oplock=0, share=7,
                                      flags=FLAGS_REPLAY))
        assert rsp_fields(r2) == (0, FILE_CREATED, fid, False)
        # without the replay flag the CreateGuid is taken
        r3 = raw_dh2q_create(c, name, guid, oplock=0, share=7)
        assert r3.status == DUPLICATE_OBJECTID
        # once the open was used, a replay is a new CREATE
        c.expect(write(c, fid, b"used", 0))
        r4 = c.expect(raw_dh2q_create(c, name, guid, oplock=0, share=7,
                                      flags=FLAGS_REPLAY))
        level, action, fid4, dh = rsp_fields(r4)
        assert action == FILE_OPENED and fid4 != fid
        close(c, fid4)
        close(c, fid)
    (dsrv.share_dir / name).unlink()


def test_replay_of_pending_create_not_available(dsrv):
    """c2's CREATE waits for c1's batch oplock to break: its replay is
    told FILE_NOT_AVAILABLE at once; once c1 closes, the CREATE completes
    and a replay answers its FileId."""
    name = "r3-%s.bin" % uuid.uuid4().hex[:8]
    guid = uuid.uuid4()
    with raw_client(dsrv) as c1, raw_client(dsrv) as c2:
        r1 = c1.expect(raw_dh2q_create(c1, name, uuid.uuid4(), share=7))
        fid1 = rsp_fields(r1)[2]
        body = R.create_body(name, contexts=[R.create_context(
            b"DH2Q", struct.pack("<IIQ16s", 0, 0, 0, guid.bytes_le))],
            oplock=0, disposition=3, desired_access=0x0012019F,
            share_access=7, options=0x40)
        c2.send(R.nbt(c2.pdu("CREATE", body)))
        interim = c2.recv(skip_pending=False)[0]
        assert interim.status == R.STATUS["STATUS_PENDING"]
        brk = c1.recv()[0]
        assert brk.command == R.CMD["OPLOCK_BREAK"]
        replay = c2.request("CREATE", body, flags=FLAGS_REPLAY)
        assert replay.status == NOT_AVAILABLE
        close(c1, fid1)
        done = c2.expect(c2.recv()[0])
        level, action, fid2, _ = rsp_fields(done)
        assert action == FILE_OPENED
        again = c2.expect(c2.request("CREATE", body, flags=FLAGS_REPLAY))
        assert rsp_fields(again)[2] == fid2
        close(c2, fid2)
    (dsrv.share_dir / name).unlink()


def test_durable_reconnect_restarts_channel_sequence(dsrv):
    """A durable open reconnected (DH2C) on a new session takes the
    reconnect's ChannelSequence: a client that starts again at 0 is not
    refused as stale."""
    name = "r4-%s.bin" % uuid.uuid4().hex[:8]
    guid = uuid.uuid4()
    c1 = raw_client(dsrv)
    r = c1.expect(raw_dh2q_create(c1, name, guid, status=5))
    level, _, fid, dh = rsp_fields(r)
    assert (level, dh) == (BATCH, True)
    c1.expect(write(c1, fid, b"at 5", 5))
    assert write(c1, fid, b"at 4", 4).status == NOT_AVAILABLE
    c1.close()                          # no CLOSE: the open is kept
    with raw_client(dsrv) as c2:
        dh2c = R.create_context(b"DH2C", struct.pack(
            "<16s16sI", fid, guid.bytes_le, 0))
        c2.expect(c2.request("CREATE", R.create_body(
            name, contexts=[dh2c], oplock=BATCH, disposition=1,
            desired_access=0x0012019F, options=0x40), status=0))
        c2.expect(write(c2, fid, b"at 0", 0))
        assert read(c2, fid, 4, 0) == b"at 0"
        close(c2, fid)
    (dsrv.share_dir / name).unlink()
