#!/usr/bin/env python3
"""Leases, measured (issue 13): opens/s of a create-read-close loop with
and without leases, what a caching client saves, and the lease break
latency; ringsmb and Debian's Samba side by side in the same run.

    tests/bench/lease.py [--smbd build/source3/smbd/smbd] [--iters 2000]
        [--breaks 50] [--no-samba] [--out FILE.md]

One raw SMB 3.1.1 client (tests/integration/rawsmb.py; anonymous, so
no signing) on 127.0.0.1, a 64 KiB file on a guest share:

- plain: CREATE (no oplock) + READ 64 KiB + CLOSE, per open;
- lease asked: the same with an RqLs v2 context asking for R+H (what a
  client pays for asking; the server grants and tracks it);
- caching client: it honours what it was granted.  With R+H the handle
  and the data stay cached, so an open-read-close of the application
  reaches the server only when the lease is lost; without a lease every
  one is three requests.  Reported as server requests per open and the
  client's opens/s (bounded by the client, not the server);
- break latency: connection A holds R+W+H, connection B opens the file
  for writing; time until A sees the LEASE_BREAK, and until B's CREATE
  is answered after A acknowledges at once.

Not part of `make test`: it measures, it does not judge.  Results go to
docs/performance.md by hand.
"""
import argparse
import os
import statistics
import struct
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[0] / "integration"))
import conftest  # noqa: E402  (the integration servers)
import rawsmb  # noqa: E402

FILE_SIZE = 64 * 1024
R, H, W = 0x1, 0x2, 0x4
OPLOCK_LEASE = 0xFF
OPLOCK_BREAK = 0x12
UNSOLICITED = 0xFFFFFFFFFFFFFFFF
READ_ACCESS, RW_ACCESS = 0x00120089, 0x0012019F


def share_section(srv, vfs=None):
    return ("[bench]\n  path = %s\n  guest ok = yes\n  read only = no\n"
            % srv.bench_dir)


def make(kind, smbd, base):
    cls = conftest.RingsmbServer if kind == "ringsmb" else \
        conftest.SambaServer
    cls = type("Lease" + cls.__name__, (cls,),
               {"share_section": share_section})
    if kind == "ringsmb":
        os.environ["RINGSMB_SMBD"] = str(smbd)
    srv = cls(None, "default", {"log level": "0"})
    srv.bench_dir = base
    # Samba's smbd reaches into its lock directory as the guest account:
    # behind a 0700 temporary directory its share modes look stale and
    # it sends no breaks (tests/compat/torture.py does the same)
    os.chmod(srv.tmp, 0o755)
    return srv.start()


class Client(rawsmb.Conn):
    """rawsmb.Conn that pairs each response with its request by
    MessageId and keeps lease breaks (and anything else unasked for)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.unsolicited = []

    def request(self, command, body=None, timeout=None, **hdr):
        if body is None:
            body = rawsmb.body_for(command)
        p = self.pdu(command, body, **hdr)
        mid = struct.unpack_from("<Q", p, 24)[0]
        self.send(rawsmb.nbt(p))
        return self.wait_for(mid, timeout)

    def wait_for(self, mid, timeout=None):
        for _ in range(64):
            for r in self.recv(timeout):
                if r.message_id == mid:
                    return r
                self.unsolicited.append(r)
        raise RuntimeError("no response to message %d" % mid)


def rqls(key, state):
    """RqLs v2 (MS-SMB2 2.2.13.2.10)."""
    data = struct.pack("<16sIIQ16sHH", key, state, 0, 0, b"\0" * 16, 0, 0)
    return rawsmb.create_context(b"RqLs", data)


def connect(srv):
    c = Client(srv.host, srv.port, timeout=30.0)
    c.negotiate()
    c.session_setup_anonymous()
    c.tree_connect("bench")
    return c


def granted_state(r):
    """The lease state of a CREATE response's RqLs (0: none)."""
    off, ln = r.u32(80), r.u32(84)
    if not ln:
        return 0, r.u8(2)
    ctx = r.body[off - 64:off - 64 + ln]
    doff = struct.unpack_from("<H", ctx, 10)[0]
    return struct.unpack_from("<I", ctx, doff + 16)[0], r.u8(2)


def open_read_close(c, name, ctx=None):
    fields = {"desired_access": READ_ACCESS}
    if ctx is not None:
        fields.update(oplock=OPLOCK_LEASE, contexts=[ctx])
    r = c.request("CREATE", rawsmb.create_body(name, **fields))
    c.expect(r)
    fid = r.body[64:80]
    assert len(c.read(fid, 0, FILE_SIZE)) == FILE_SIZE
    c.close_file(fid)
    return r


def loop(c, name, iters, ctx=None):
    t0 = time.perf_counter()
    for _ in range(iters):
        open_read_close(c, name, ctx)
    return iters / (time.perf_counter() - t0)


def caching_client(c, name, iters):
    """An application doing open-read-close iters times through a client
    that caches under an R+H lease: (server requests, opens/s, state)."""
    key = uuid.uuid4().bytes
    requests = 0
    cache = None
    fid = None
    t0 = time.perf_counter()
    for _ in range(iters):
        if cache is None:
            r = c.request("CREATE", rawsmb.create_body(
                name, desired_access=READ_ACCESS, oplock=OPLOCK_LEASE,
                contexts=[rqls(key, R | H)]))
            c.expect(r)
            fid = r.body[64:80]
            state = granted_state(r)[0]
            cache = c.read(fid, 0, FILE_SIZE)
            requests += 2
            if not (state & R and state & H):
                c.close_file(fid)
                requests += 1
                cache = None
        assert len(cache or b"x" * FILE_SIZE) == FILE_SIZE
    rate = iters / (time.perf_counter() - t0)
    if fid is not None and cache is not None:
        c.close_file(fid)
        requests += 1
    return requests, rate, state


def lease_ack(c, key, state):
    """Sends the acknowledgment; returns its MessageId."""
    body = struct.pack("<HHI16sIQ", 36, 0, 0, key, state, 0)
    p = c.pdu(OPLOCK_BREAK, body)
    c.send(rawsmb.nbt(p))
    return struct.unpack_from("<Q", p, 24)[0]


def recv_break(c):
    """The next LEASE_BREAK on c: (current, new, flags)."""
    for _ in range(16):
        pending = [r for r in c.unsolicited if r.message_id == UNSOLICITED
                   and r.command == OPLOCK_BREAK]
        if pending:
            c.unsolicited.remove(pending[0])
            _, _, flags, _, cur, new = struct.unpack_from(
                "<HHI16sII", pending[0].body, 0)
            return cur, new, flags
        c.unsolicited.extend(c.recv(30.0))
    raise RuntimeError("no lease break")


def break_latency(a, b, name, rounds):
    """A holds R+W+H; B opens for writing; ms until A sees the break and
    until B's CREATE is answered (A acks at once)."""
    to_break, to_open = [], []
    for _ in range(rounds):
        key = uuid.uuid4().bytes
        r = a.request("CREATE", rawsmb.create_body(
            name, desired_access=RW_ACCESS, oplock=OPLOCK_LEASE,
            contexts=[rqls(key, R | W | H)]))
        a.expect(r)
        fa = r.body[64:80]
        if granted_state(r)[0] != R | W | H:
            raise RuntimeError("R+W+H not granted: %x" % granted_state(r)[0])
        t0 = time.perf_counter()
        p = b.pdu("CREATE", rawsmb.create_body(name,
                                               desired_access=RW_ACCESS))
        b.send(rawsmb.nbt(p))
        cur, new, flags = recv_break(a)
        t1 = time.perf_counter()
        ack = lease_ack(a, key, new)
        rb = b.wait_for(struct.unpack_from("<Q", p, 24)[0])
        t2 = time.perf_counter()
        b.expect(rb)
        a.expect(a.wait_for(ack))
        b.close_file(rb.body[64:80])
        a.close_file(fa)
        to_break.append((t1 - t0) * 1000)
        to_open.append((t2 - t0) * 1000)
    return statistics.median(to_break), statistics.median(to_open)


def run(kind, smbd, base, iters, rounds):
    srv = make(kind, smbd, base)
    try:
        a, b = connect(srv), connect(srv)
        brk, opn = break_latency(a, b, "g.bin", rounds)
        c = connect(srv)
        name = "f.bin"
        loop(c, name, 50)                      # warm up
        plain = loop(c, name, iters)
        asked = loop(c, name, iters, rqls(uuid.uuid4().bytes, R | H))
        reqs, cached_rate, state = caching_client(c, name, iters)
        extra = len(c.unsolicited) + len(b.unsolicited)
        for x in (a, b, c):
            x.close()
        if extra:
            print("%s: %d messages nobody asked for" % (kind, extra),
                  file=sys.stderr)
        return {"plain": plain, "asked": asked, "cached_reqs": reqs,
                "cached_rate": cached_rate, "state": state,
                "break_ms": brk, "open_ms": opn}
    finally:
        problems = srv.stop()
        if problems:
            print("%s: %s" % (kind, "; ".join(problems)), file=sys.stderr)
        srv.cleanup()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smbd", default=str(HERE.parents[1] / "build" /
                                          "source3" / "smbd" / "smbd"))
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--breaks", type=int, default=50)
    ap.add_argument("--no-samba", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    base, d = conftest.make_scratch_dir("ringsmb-leasebench-")
    for n in ("f.bin", "g.bin"):
        (Path(d) / n).write_bytes(os.urandom(FILE_SIZE))
        os.chmod(Path(d) / n, 0o666)
    kinds = ["ringsmb"] + ([] if args.no_samba else ["samba"])
    res = {k: run(k, args.smbd, d, args.iters, args.breaks) for k in kinds}
    rows = [
        ("open+READ 64 KiB+close, no lease (opens/s)", "plain", "%.0f"),
        ("same, asking for an R+H lease (opens/s)", "asked", "%.0f"),
        ("caching client: server requests for %d opens" % args.iters,
         "cached_reqs", "%d"),
        ("caching client: opens/s (client-bound)", "cached_rate", "%.0f"),
        ("lease granted to the caching client", "state", "0x%x"),
        ("break latency: conflicting CREATE to LEASE_BREAK (ms, median)",
         "break_ms", "%.2f"),
        ("conflicting CREATE answered after the ack (ms, median)",
         "open_ms", "%.2f"),
    ]
    out = ["| %d iterations, %d breaks | %s |" % (
        args.iters, args.breaks, " | ".join(kinds)),
        "|---|" + "---:|" * len(kinds)]
    for label, key, fmt in rows:
        out.append("| %s | %s |" % (label, " | ".join(
            fmt % res[k][key] for k in kinds)))
    text = "\n".join(out)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
