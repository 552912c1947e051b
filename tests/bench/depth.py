#!/usr/bin/env python3
"""READs at a fixed queue depth, for counting the server's syscalls per
request (docs/performance.md "Syscalls per READ").

smbclient keeps few READs in flight and sends the next one only when a
response arrives, so the server rarely has more than one request per
loop pass.  This client sends DEPTH READs in one segment, waits for all
DEPTH responses, checks each (status, length, bytes against the file on
disk) and repeats: the batching a client at queue depth DEPTH (fio,
Windows) gives the server.  Run it against a server under
`strace -c -f -p PID` and divide io_uring_enter by the READs printed.

    tests/bench/depth.py --port 4470 --share st --file big.bin \
        --path /dev/shm/st/big.bin --depth 32 --reads 16384

Anonymous (guest) session, SMB 2.1 (no signing): the share must allow
guests.  Not part of `make test`: it measures, it does not judge.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "integration"))
import rawsmb  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--share", required=True)
    ap.add_argument("--file", required=True, help="name on the share")
    ap.add_argument("--path", required=True, help="the same file on disk")
    ap.add_argument("--depth", type=int, default=32)
    ap.add_argument("--reads", type=int, default=16384)
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--op", choices=("read", "write"), default="read",
                    help="write: WRITEs of the file's own bytes at their "
                    "offsets (the file is unchanged; each answer checked)")
    a = ap.parse_args()
    if not 1 <= a.depth <= 256 or not 1 <= a.size <= 8 * 1048576:
        ap.error("depth 1..256, size 1..8 MiB")
    # MS-SMB2 3.1.5.2: one credit per 64 KiB started
    charge = (a.size + 65535) // 65536
    with open(a.path, "rb") as f:
        data = f.read()
    nblocks = len(data) // a.size
    if nblocks < 1:
        ap.error("file smaller than one READ")
    c = rawsmb.Conn("127.0.0.1", a.port, timeout=30)
    c.negotiate(dialects=[0x0210])
    c.session_setup_anonymous()
    c.tree_connect(a.share)
    if a.size > (c.max_write if a.op == "write" else c.max_read):
        sys.exit("size above the server's MaxWrite/MaxRead")
    fid = c.create(a.file, desired_access=0x0012019F if a.op == "write"
                   else 0x00120089)
    done = 0
    block = 0
    t0 = time.monotonic()
    while done < a.reads:
        n = min(a.depth, a.reads - done)
        frames = []
        want = {}
        for _ in range(n):
            off = (block % nblocks) * a.size
            block += 1
            if a.op == "write":
                pdu = c.pdu("WRITE", rawsmb.write_body(
                    data[off:off + a.size], file_id=fid, offset=off),
                    credit_charge=charge)
            else:
                pdu = c.pdu("READ", rawsmb.read_body(
                    file_id=fid, offset=off, length=a.size),
                    credit_charge=charge)
            mid = int.from_bytes(pdu[24:32], "little")
            want[mid] = off
            frames.append(rawsmb.nbt(pdu))
        c.send(b"".join(frames))
        got = 0
        while got < n:
            for r in c.recv():
                c.expect(r)
                off = want.pop(r.message_id)
                if a.op == "write":
                    if r.u32(4) != a.size:
                        sys.exit("WRITE at %d: count %d" % (off, r.u32(4)))
                    got += 1
                    continue
                body_off = r.u8(2) - 64
                payload = r.body[body_off:body_off + r.u32(4)]
                if payload != data[off:off + a.size]:
                    sys.exit("READ at %d: wrong bytes" % off)
                got += 1
        done += n
    dt = time.monotonic() - t0
    what = a.op.upper() + "s"
    print("%d %s of %d bytes at depth %d: %.2f s, %.0f %s/s, "
          "%.1f MiB/s" % (done, what, a.size, a.depth, dt, done / dt, what,
                          done * a.size / dt / 1048576))
    c.close()


if __name__ == "__main__":
    main()
