#!/usr/bin/env python3
"""Where ringsmb's CPU goes with and without the crypto pool: 4 smbclient
processes put (or get) 256 MiB each, signed or encrypted, against one
ringsmb; the CPU seconds of the event loop thread and of the other
threads (the crypto pool) are read from /proc/PID/task/*/stat, per GiB
moved.  Configurations take turns within a round.  Needs root (it adds
the bench user to a private smbpasswd file only), smbclient, /dev/shm.

  tests/bench/cryptocpu.py [--rounds N] [--modes encrypt,sign]
                           [--ops put,get] [--offload all,decrypt,none]

--offload names a 'smb2 crypto offload' value per configuration; "none"
is 'smb2 crypto threads = 0'.  docs/performance.md, "Crypto off the
event loop", has results.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402

TICK = os.sysconf('SC_CLK_TCK')
MIB = 1024 * 1024
PER_CLIENT_MIB = 256
SECURITY = {'encrypt': 'server smb encrypt = required',
            'sign': 'server signing = mandatory'}


def thread_cpu(pid):
    """{tid: utime + stime seconds} of every thread of pid."""
    out = {}
    for tid in os.listdir('/proc/%d/task' % pid):
        with open('/proc/%d/task/%s/stat' % (pid, tid)) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def write_conf(d, port, mode, offload):
    crypto = ('smb2 crypto threads = 0\n' if offload == 'none' else
              'smb2 crypto offload = %s\n' % offload)
    conf = os.path.join(d, 'smb.conf')
    with open(conf, 'w') as f:
        f.write('[global]\nsmb ports = %d\ninterfaces = 127.0.0.1\n'
                'bind interfaces only = yes\nsmb passwd file = %s/pw\n'
                'pid directory = %s\nlock directory = %s\n'
                'private dir = %s\nlog level = 0\n%s\n%s'
                '[share]\npath = %s/share\nread only = no\n'
                % (port, d, d, d, d, SECURITY[mode], crypto, d))
    subprocess.run([os.path.join(os.path.dirname(servers.RINGSMB_SMBD),
                                 'smbpasswd'), '-c', conf, '-s', '-a',
                    servers.BENCH_USER],
                   input=('%s\n%s\n' % (servers.BENCH_PASS,
                                        servers.BENCH_PASS)).encode(),
                   check=True, capture_output=True,
                   timeout=servers.CMD_TIMEOUT)
    return conf


def one_run(d, src, mode, op, offload):
    port = servers.free_port()
    conf = write_conf(d, port, mode, offload)
    p = subprocess.Popen([servers.RINGSMB_SMBD, '-F', '-s', conf],
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        servers.wait_port(port, p)
        before = thread_cpu(p.pid)
        t0 = time.monotonic()
        cmds = ['put %s out%d' % (src, i) if op == 'put' else
                'get in%d /dev/null' % i for i in range(4)]
        clients = [subprocess.Popen(
            ['smbclient', '//127.0.0.1/share', '-p', str(port), '-U',
             '%s%%%s' % (servers.BENCH_USER, servers.BENCH_PASS),
             '-m', 'SMB3_11', '-c', c], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL) for c in cmds]
        for c in clients:
            if c.wait(timeout=600) != 0:
                raise RuntimeError('smbclient failed: %s' % c.args)
        wall = time.monotonic() - t0
        after = thread_cpu(p.pid)
    finally:
        p.terminate()
        p.wait(timeout=30)
    gib = 4 * PER_CLIENT_MIB / 1024
    loop = (after[p.pid] - before.get(p.pid, 0)) / gib
    pool = sum(after[t] - before.get(t, 0) for t in after
               if t != p.pid) / gib
    print('%-7s %-3s offload %-8s %6.0f MiB/s  loop thread %.2f s/GiB  '
          'other threads %.2f s/GiB'
          % (mode, op, offload, 4 * PER_CLIENT_MIB / wall, loop, pool),
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--modes', default='encrypt,sign')
    ap.add_argument('--ops', default='put,get')
    ap.add_argument('--offload', default='all,decrypt,none')
    a = ap.parse_args()
    subprocess.run(['useradd', '-M', servers.BENCH_USER],
                   capture_output=True)
    d = tempfile.mkdtemp(prefix='cryptocpu-', dir='/dev/shm')
    try:
        os.mkdir(os.path.join(d, 'share'))
        src = os.path.join(d, 'src.bin')
        with open(src, 'wb') as f:
            for _ in range(PER_CLIENT_MIB):
                f.write(os.urandom(MIB))
        for i in range(4):
            shutil.copy(src, os.path.join(d, 'share', 'in%d' % i))
        for _ in range(a.rounds):
            for mode in a.modes.split(','):
                for op in a.ops.split(','):
                    for offload in a.offload.split(','):
                        one_run(d, src, mode, op, offload)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == '__main__':
    main()
