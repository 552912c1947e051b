#!/usr/bin/env python3
"""How much of a server's CPU is its own code, for one smb2bench cell.

Runs smb2bench under `perf record -a` against a running server (ringsmb
or Samba, given by port) and splits the samples of every thread that is
neither smb2bench nor idle/kernel housekeeping (so the server's workers,
Samba's forked children and the io_uring workers `iou-wrk-*` of either)
into the kernel, gnutls/nettle (AES) and everything else in user space
("own code": the server, libc, talloc, tevent):

    tests/bench/dso_split.py --port 4470 --cell get:sign
    tests/bench/dso_split.py --port 4471 --cell put:guest --jobs 4

Cells are get|put : guest|sign|encrypt, 1 MiB blocks, iodepth 4; a get
reads --file (time-based), a put writes new files of --put-mib each.
Used for docs/performance.md "Where the server's CPU goes in the cells
still under 1.2×": if own code is a few per cent, no protocol change
can move that cell by more.  It measures, it does not judge, and it is
not part of make test.  Needs perf (linux-perf), root, and no other
busy process on the machine.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SMB2BENCH = os.path.join(HERE, '..', '..', 'bin', 'smb2bench')
HOUSEKEEPING = ('swapper', 'perf', 'kdamond', 'kworker', 'ksoftirqd',
                'rcu_', 'migration', 'python')


def split(data):
    """(server share of all samples, {kernel, crypto, own}: % of server,
    client share of all samples)."""
    out = subprocess.run(['perf', 'report', '-i', data, '--no-children',
                          '--sort', 'comm,dso', '--stdio', '-g', 'none'],
                         capture_output=True, text=True, check=True).stdout
    srv = collections.Counter()
    cli = 0.0
    for line in out.splitlines():
        m = re.match(r'\s+([0-9.]+)%\s+(\S+)\s+(\S+)', line)
        if not m:
            continue
        pct, comm, dso = float(m.group(1)), m.group(2), m.group(3)
        if comm == 'smb2bench':
            cli += pct
        elif not comm.startswith(HOUSEKEEPING):
            if 'kernel' in dso:
                srv['kernel'] += pct
            elif 'gnutls' in dso or 'nettle' in dso or 'hogweed' in dso:
                srv['crypto'] += pct
            else:
                srv['own'] += pct
    total = sum(srv.values()) or 1.0
    return (total, {k: 100.0 * srv[k] / total
                    for k in ('kernel', 'crypto', 'own')}, cli)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--share', default='share')
    ap.add_argument('--cell', default='get:sign')
    ap.add_argument('--jobs', type=int, default=4)
    ap.add_argument('--user', default='ringsmbbench%Bench-pw-1')
    ap.add_argument('--file', default='get.bin')
    ap.add_argument('--put-mib', type=int, default=512)
    ap.add_argument('--secs', type=int, default=4)
    a = ap.parse_args()
    op, sec = a.cell.split(':')
    argv = [SMB2BENCH, '//127.0.0.1/' + a.share, '-p', str(a.port),
            '--bs=1m', '--iodepth=4', '--numjobs=%d' % a.jobs,
            '--eta=never']
    argv += ['-N'] if sec == 'guest' else ['-U', a.user]
    if sec == 'encrypt':
        argv.append('--encrypt')
    if op == 'get':
        argv += ['--rw=read', '--filename=' + a.file, '--time_based',
                 '--runtime=%d' % a.secs]
    else:
        argv += ['--rw=write', '--size=%dm' % a.put_mib,
                 '--name=dso-split-%d' % os.getpid()]
    with tempfile.TemporaryDirectory(prefix='dso-split-') as tmp:
        data = os.path.join(tmp, 'perf.data')
        subprocess.run(['perf', 'record', '-a', '-q', '-o', data, '--']
                       + argv, check=True, stdout=subprocess.DEVNULL)
        total, parts, cli = split(data)
    print('%s, %d jobs: server %.1f %% of samples: kernel %.1f %%, '
          'gnutls %.1f %%, own code %.1f %% (smb2bench %.1f %%)' % (
              a.cell, a.jobs, total, parts['kernel'], parts['crypto'],
              parts['own'], cli))
    return 0


if __name__ == '__main__':
    sys.exit(main())
