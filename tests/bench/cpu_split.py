#!/usr/bin/env python3
"""Where a server's CPU goes during one smbclient get or put (perf).

Samples the server's process tree (`perf record -g -p PID`, cpu-clock
at 4000 Hz: its threads, the io_uring workers `iou-wrk-*` that run its
punted requests, and Samba's forked per-client children) while one
`smbclient -c 'get F /dev/null'` (or `put`) runs against it, then
attributes the samples to kernel paths, in CPU seconds per GiB moved:

    tests/bench/cpu_split.py --pid PID --port 4470 --share st --op get \
        --file big.bin --size-mib 1024
    tests/bench/cpu_split.py --pid PID --port 4471 --share st --op put \
        --src /dev/shm/src.bin --size-mib 1024

A path's seconds include everything it calls (perf's "children"), so
the rows overlap (tcp send includes the loopback receive work the sender
does in softirq).  Used for docs/performance.md "Where the server CPU
goes"; it measures, it does not judge, and it is not part of make test.
Needs perf (linux-perf) and root.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HZ = 4000

# label -> kernel symbols whose inclusive samples count for it
PATHS = [
    ("TCP send (tcp_sendmsg, incl. loopback rx softirq)", ["tcp_sendmsg"]),
    ("  copy user -> socket (_copy_from_iter, self)", ["=_copy_from_iter"]),
    ("  loopback receive side (net_rx_action)", ["net_rx_action"]),
    ("TCP receive (tcp_recvmsg + tcp_splice_read)",
     ["tcp_recvmsg", "tcp_splice_read"]),
    ("  copy socket -> user (_copy_to_iter under tcp_recvmsg)",
     ["skb_copy_datagram_iter"]),
    ("file read (shmem read_iter + splice_read)",
     ["shmem_file_read_iter", "shmem_file_splice_read"]),
    ("file write (generic_perform_write)", ["generic_perform_write"]),
    ("  page allocation (shmem_write_begin)", ["shmem_write_begin"]),
    ("  copy into page cache (copy_folio_from_iter_atomic)",
     ["copy_folio_from_iter_atomic"]),
    ("splice pipe -> socket (splice_to_socket)", ["splice_to_socket"]),
    ("epoll_wait + io_uring_enter (syscalls of the loop)",
     ["__x64_sys_epoll_wait", "__x64_sys_io_uring_enter"]),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw)


def record(args, data):
    if args.op == "get":
        cmd = f"get {args.file} /dev/null"
    else:
        cmd = f"put {args.src} cpu_split-{args.port}.bin"
    client = ["smbclient", "-N", f"//127.0.0.1/{args.share}", "-p",
              str(args.port), "-m", args.proto, "-c", cmd]
    subprocess.run(client, check=True, capture_output=True)   # warm up
    out = run(["perf", "record", "-q", "-g", "-F", str(HZ), "-p",
               str(args.pid), "-e", "cpu-clock", "-o", data, "--"] + client)
    speed = re.search(r"\(([0-9.]+) (?:kb/s|KiloBytes/sec)\)",
                      out.stdout + out.stderr)
    return float(speed.group(1)) / 1024 if speed else 0.0


def rows(data):
    out = run(["perf", "report", "-i", data, "--children", "-n",
               "--sort", "comm,dso,sym", "-g", "none", "--stdio", "-t", "|"])
    total = 0
    parsed = []
    for line in out.stdout.splitlines():
        if line.startswith("#") or "|" not in line:
            continue
        f = [x.strip() for x in line.split("|")]
        if len(f) < 6:
            continue
        children = float(f[0].rstrip("%"))
        samples = int(f[2])
        sym = f[5].split("] ", 1)[-1]
        total += samples
        parsed.append((f[4], sym, children, samples, f[5].startswith("[.]")))
    return total, parsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--share", required=True)
    ap.add_argument("--op", choices=("get", "put"), required=True)
    ap.add_argument("--file", default="big.bin", help="get: name on share")
    ap.add_argument("--src", help="put: local file to upload")
    ap.add_argument("--size-mib", type=float, required=True,
                    help="bytes moved, for the per-GiB figures")
    ap.add_argument("--proto", default="SMB3_11")
    ap.add_argument("--pid", type=int, required=True,
                    help="the server's (main) process id")
    args = ap.parse_args()
    if args.op == "put" and not args.src:
        ap.error("--src is needed for put")
    gib = args.size_mib / 1024
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        mibs = record(args, data)
        total, parsed = rows(data)
    per_gib = 1.0 / HZ / gib
    server = sum(s for _, _, _, s, _ in parsed)
    print(f"{args.op} port {args.port}: {mibs:.0f} MiB/s; "
          f"server CPU {server * per_gib:.3f} s/GiB")
    for label, syms in PATHS:
        n = 0.0
        for _, sym, children, self_n, _ in parsed:
            for s in syms:
                if s.startswith("="):
                    n += self_n if sym == s[1:] else 0
                elif sym == s:
                    n += children / 100.0 * total
        print(f"  {label}: {n * per_gib:.3f}")
    userspace = sum(s for _, _, _, s, user in parsed if user)
    crypto = sum(s for dso, _, _, s, user in parsed
                 if user and ("gnutls" in dso or "nettle" in dso))
    print(f"  user space (self samples in [.] symbols): "
          f"{userspace * per_gib:.3f}, of which gnutls/nettle "
          f"{crypto * per_gib:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
