#!/usr/bin/env python3
"""make bench-connmem: the memory an idle authenticated connection costs
the server, ringsmb against Debian's Samba (issue 14 asks for at most
1/20 of Samba's).

Each server (tests/bench/servers.py: ringsmb's defaults, Samba with
`vfs objects = io_uring` when installed, signing as a user) gets --conns
smbprotocol connections, each NEGOTIATE, SESSION_SETUP as the bench user
(signed), TREE_CONNECT, then idle.  Memory is the proportional set size
(Pss, /proc/PID/smaps_rollup) summed over the server's process tree, so
Samba's process per connection counts with its private pages and its
share of the libraries; the figure is (after - before) / connections,
with the connections still open.  --rounds rounds, each on a fresh
server (a server that had connections before reuses their freed heap),
the median.

    connmem.py [--conns N] [--rounds N] [--out FILE]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid

import servers


def pss_kib(server):
    """Pss of the server's whole process tree, KiB."""
    table = servers.proc_table()
    total = 0
    for pid in servers.tree_pids(server.proc.pid, table):
        try:
            with open('/proc/%d/smaps_rollup' % pid) as f:
                for line in f:
                    if line.startswith('Pss:'):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass                        # it exited meanwhile
    return total


def open_idle(port, n):
    from smbprotocol.connection import Connection
    from smbprotocol.session import Session
    from smbprotocol.tree import TreeConnect

    conns = []
    for _ in range(n):
        c = Connection(uuid.uuid4(), '127.0.0.1', port,
                       require_signing=True)
        c.connect(timeout=30)
        conns.append(c)
        s = Session(c, servers.BENCH_USER, servers.BENCH_PASS,
                    require_encryption=False, auth_protocol='ntlm')
        s.connect()
        TreeConnect(s, r'\\127.0.0.1\share').connect()
    return conns


def close_all(conns):
    for c in conns:
        try:
            c.disconnect(True)
        except Exception:               # noqa: BLE001 -- best effort
            pass


def measure(server, n):
    server.settle(server.idle)
    time.sleep(1)
    before = pss_kib(server)
    conns = open_idle(server.port, n)
    try:
        time.sleep(2)                   # Samba's children settle
        after = pss_kib(server)
    finally:
        close_all(conns)
    server.settle(server.idle)
    return (after - before) / n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--conns', type=int, default=100)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--out', help='also write the Markdown table here')
    a = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix='ringsmb-connmem-')
    share = os.path.join(tmp, 'share')
    os.makedirs(share)
    os.chmod(tmp, 0o755)
    os.chmod(share, 0o777)
    servers.add_users(tmp, share)
    cfgs = {c.name: c for c in
            servers.all_configs(servers.samba_io_uring_module())}
    per = {}
    try:
        for name in ('default', 'samba'):
            per[name] = []
            # a fresh server each round: one that already had connections
            # reuses their freed heap, and looks cheaper than it is
            for _ in range(a.rounds):
                s = servers.start(tmp, share, cfgs[name], 'sign')
                try:
                    time.sleep(1)
                    s.idle = s.descendants()
                    per[name].append(measure(s, a.conns))
                finally:
                    s.stop()
            print('connmem: %s: %s KiB per connection' % (
                name, ', '.join('%.1f' % v for v in per[name])),
                file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r, s = (statistics.median(per['default']),
            statistics.median(per['samba']))
    lines = [
        '| idle authenticated connections | ringsmb | Samba | ratio |',
        '|---|---:|---:|---:|',
        '| %d, Pss per connection (median of %d) | %.1f KiB | %.1f KiB '
        '| %.3f |' % (a.conns, a.rounds, r, s, r / s if s else 0),
    ]
    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
