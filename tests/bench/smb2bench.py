#!/usr/bin/env python3
"""make bench-smb2bench: ringsmb and Debian's Samba side by side with
smb2bench as the client of both (docs/bench.md, issue 14).

One server of each kind per security mode (tests/bench/servers.py starts
them: ringsmb's defaults, Samba with `vfs objects = io_uring` when the
module is installed), over one share directory.  Runs alternate between
the two servers row by row; each row's value is the median of --runs.
Rows:

  get/put   --rw=read|write --bs=1m --iodepth=4, 1, 4 and 16 jobs (numjobs),
            guest / signed / encrypted: MB/s, server CPU s/GiB
  randread  --bs=4k --iodepth=32, 1 and 4 channels (signed, a user):
            IOPS, server CPU us/op
  metadata  create (CREATE+WRITE 4 KiB+CLOSE), stat, listdir (a folder
            of --listdir-files), connect (a user's logon): ops/s, server
            CPU us/op
  modules   create and stat again, both servers with `vfs objects =
            acl_xattr streams_xattr` (issue 15: what the modules cost)

Server CPU is the server's whole process tree (servers.Server.cpu, so
Samba's per-connection children count) over the whole smb2bench process,
set-up included; ratios are ringsmb / Samba.

    smb2bench.py [--runs N] [--get-mib N] [--put-mib N] [--secs S]
                 [--rows get,put,randread,meta,modules] [--out FILE]
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import report
import servers
from bench import on_signal

SMB2BENCH = os.path.join(os.path.dirname(servers.RINGSMB_SMBD), '..',
                         'utils', 'smb2bench', 'smb2bench')
MIB = 1 << 20


def smb2bench_binary():
    """Next to the smbd under test (build tree), else bin/smb2bench."""
    if os.path.exists(SMB2BENCH):
        return os.path.normpath(SMB2BENCH)
    return os.path.join(servers.TOP, 'bin', 'smb2bench')


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=3,
                    help='runs per row and server (median)')
    ap.add_argument('--get-mib', type=int, default=512,
                    help='file read by every get job')
    ap.add_argument('--put-mib', type=int, default=256,
                    help='bytes written by every put job')
    ap.add_argument('--secs', type=float, default=3,
                    help='runtime of the time based rows')
    ap.add_argument('--listdir-files', type=int, default=10000)
    ap.add_argument('--rows', default='get,put,randread,meta,modules')
    ap.add_argument('--dir', default='/dev/shm')
    ap.add_argument('--out', help='report file (default: stdout)')
    ap.add_argument('--json', help='also write the raw per-run numbers')
    return ap.parse_args(argv)


def say(msg):
    print('bench: %s' % msg, file=sys.stderr, flush=True)


def creds(security):
    if security == 'guest':
        return ['-N']
    c = ['-U', '%s%%%s' % (servers.BENCH_USER, servers.BENCH_PASS)]
    return c + (['--encrypt'] if security == 'encrypt' else [])


class Row:
    """One line of the report: what smb2bench is asked, how it is read,
    and the ringsmb and Samba configurations it compares."""

    def __init__(self, group, label, security, args, unit, prep=None,
                 pair=('default', 'samba')):
        self.group, self.label, self.security = group, label, security
        self.args, self.unit, self.prep = args, unit, prep
        self.pair = pair


def rows(a):
    out = []
    wants = a.rows.split(',')
    for op in ('get', 'put'):
        if op not in wants:
            continue
        for n in (1, 4, 16):
            for sec in ('guest', 'sign', 'encrypt'):
                args = ['--bs=1m', '--iodepth=4', '--numjobs=%d' % n]
                args += ['--rw=read', '--filename=get.bin'] if op == 'get' \
                    else ['--rw=write', '--size=%dm' % a.put_mib]
                out.append(Row(op, '%s, %d job%s, %s' % (
                    op, n, 's' if n > 1 else '', sec), sec, args, 'MB/s'))
    if 'randread' in wants:
        for ch in (1, 4):
            out.append(Row('randread', '4 KiB randread, iodepth 32, %d '
                           'channel%s, signed' % (ch, 's' if ch > 1 else ''),
                           'sign', ['--rw=randread', '--bs=4k',
                                    '--iodepth=32', '--filename=rand.bin',
                                    '--time_based', '--runtime=%g' % a.secs,
                                    '--channels=%d' % ch,
                                    '--channel-addrs=127.0.0.1'], 'IOPS'))
    if 'meta' in wants:
        out += [
            Row('meta', 'create + write 4 KiB + close', 'guest',
                ['--rw=create', '--nrfiles=1000', '--bs=4k'], 'ops/s',
                prep='folder'),
            Row('meta', 'stat (CREATE + QUERY_INFO + CLOSE)', 'guest',
                ['--rw=stat', '--nrfiles=1000', '--time_based',
                 '--runtime=%g' % a.secs], 'ops/s', prep='folder'),
            Row('meta', 'stat as one compound (as Windows sends it)',
                'guest', ['--rw=stat', '--compound', '--nrfiles=1000',
                          '--time_based', '--runtime=%g' % a.secs],
                'ops/s', prep='folder'),
            Row('meta', 'listdir of %d entries' % a.listdir_files, 'guest',
                ['--rw=listdir', '--nrfiles=%d' % a.listdir_files,
                 '--time_based', '--runtime=%g' % a.secs], 'ops/s',
                prep='folder'),
            Row('meta', 'connect (NEGOTIATE..TREE_CONNECT, LOGOFF), user',
                'sign', ['--rw=connect', '--time_based',
                         '--runtime=%g' % a.secs], 'ops/s'),
        ]
    if 'modules' in wants:
        # both servers with the modules of a Samba admin's share
        out += [
            Row('modules', 'create + write 4 KiB + close, acl_xattr '
                'streams_xattr', 'guest',
                ['--rw=create', '--nrfiles=1000', '--bs=4k'], 'ops/s',
                prep='folder', pair=('acl', 'samba-acl')),
            Row('modules', 'stat, acl_xattr streams_xattr', 'guest',
                ['--rw=stat', '--nrfiles=1000', '--time_based',
                 '--runtime=%g' % a.secs], 'ops/s', prep='folder',
                pair=('acl', 'samba-acl')),
        ]
    return out


class Bench:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        self.share = os.path.join(tmp, 'share')
        self.io_uring = servers.samba_io_uring_module()
        every = {c.name: c for c in servers.all_configs(self.io_uring)}
        self.rows = rows(a)
        names = []
        for r in self.rows:
            names += [n for n in r.pair if n not in names]
        self.cfgs = [every[n] for n in names]
        self.samples = {}       # (row index, cfg name) -> [dict]
        self.errors = {}
        self.machine = report.machine()

    def prepare(self):
        os.makedirs(self.share)
        os.chmod(self.tmp, 0o755)
        os.chmod(self.share, 0o777)
        chunk = os.urandom(MIB)
        for name, mib in (('get.bin', self.a.get_mib), ('rand.bin', 64)):
            with open(os.path.join(self.share, name), 'wb') as f:
                for _ in range(mib):
                    f.write(chunk)
            os.chmod(os.path.join(self.share, name), 0o666)
        servers.add_users(self.tmp, self.share)

    def folder(self, name):
        """A metadata row's folder, writable by Samba's anonymous guest
        (it cannot add files to a folder it made itself)."""
        d = os.path.join(self.share, name)
        shutil.rmtree(d, ignore_errors=True)
        os.mkdir(d)
        os.chmod(d, 0o777)
        return name

    def one(self, server, i, row, run):
        argv = [smb2bench_binary(), '//127.0.0.1/share', '-p',
                str(server.port), '--output-format=json', '--eta=never']
        argv += creds(row.security) + row.args
        if row.group == 'put':
            # new files each run: Samba's anonymous guest may not
            # overwrite what it wrote before (it is not the owner)
            argv.append('--name=put-%s-%d-%d' % (server.cfg.name, i, run))
        if row.prep == 'folder':
            argv.append('--filename=' + self.folder(
                'm-%s-%d-%d' % (server.cfg.name, i, run)))
        server.settle(server.idle)
        cpu0 = server.cpu()
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
        server.settle(server.idle)
        cpu = server.cpu() - cpu0
        for f in os.listdir(self.share):
            if f.startswith('put-'):
                os.unlink(os.path.join(self.share, f))
        if p.returncode != 0:
            raise RuntimeError(p.stderr.decode(errors='replace').strip())
        out = json.loads(p.stdout)['smb2bench']
        wall = out['wall_s'] or 1e-9
        ops = out['ops'] or 1
        return {'value': (out['bytes'] / wall / 1e6 if row.unit == 'MB/s'
                          else ops / wall),
                'srv_per': (cpu / (out['bytes'] / 2 ** 30)
                            if row.unit == 'MB/s' else cpu * 1e6 / ops),
                'cli_per': (out['client_cpu_s_per_gib']
                            if row.unit == 'MB/s'
                            else out['client_cpu_us_per_op'])}

    def run(self):
        self.prepare()
        for sec in ('guest', 'sign', 'encrypt'):
            todo = [(i, r) for i, r in enumerate(self.rows)
                    if r.security == sec]
            if not todo:
                continue
            started = []
            try:
                for cfg in self.cfgs:
                    started.append(servers.start(self.tmp, self.share, cfg,
                                                 sec))
                time.sleep(1)
                for s in started:
                    # Samba's helpers (notifyd, cleanupd) stay
                    s.idle = s.descendants()
                for i, row in todo:
                    for run in range(self.a.runs):
                        for server in started:
                            if server.cfg.name in row.pair:
                                self.sample(server, i, row, run)
            finally:
                for s in started:
                    s.stop()

    def sample(self, server, i, row, run):
        key = (i, server.cfg.name)
        try:
            v = self.one(server, i, row, run)
        except (RuntimeError, ValueError, KeyError, OSError,
                subprocess.TimeoutExpired) as e:
            self.errors.setdefault(key, str(e)[:200])
            say('%s, %s: %s' % (row.label, server.cfg.name, e))
            return
        self.samples.setdefault(key, []).append(v)
        say('%s, %s: %.1f %s, server %.3f' % (
            row.label, server.cfg.name, v['value'], row.unit, v['srv_per']))

    def median(self, i, name, field):
        s = self.samples.get((i, name))
        return statistics.median(x[field] for x in s) if s else None


def render(b, command):
    lines = ['| row | unit | ringsmb | Samba | ratio | server CPU ringsmb '
             '| Samba | ratio | smb2bench CPU |',
             '|---|---|---|---|---|---|---|---|---|']
    for i, row in enumerate(b.rows):
        r, s = (b.median(i, n, 'value') for n in row.pair)
        rc, sc = (b.median(i, n, 'srv_per') for n in row.pair)
        cli = b.median(i, row.pair[0], 'cli_per')
        per = 's/GiB' if row.unit == 'MB/s' else 'us/op'
        lines.append('| %s | %s | %s | %s | %s | %s %s | %s | %s | %s |' % (
            row.label, row.unit, report.fmt(r, 0), report.fmt(s, 0),
            report.fmt(report.ratio(r, s), 2), report.fmt(rc, 3), per,
            report.fmt(sc, 3), report.fmt(report.ratio(rc, sc), 2),
            report.fmt(cli, 3)))
    head = ['## smb2bench: ringsmb and Samba, smb2bench as the client', '',
            '`%s`' % command, '']
    head += ['- %s: %s' % kv for kv in b.machine]
    head.append('- Samba: %s' % ('`vfs objects = io_uring`' if b.io_uring
                                 else 'without vfs_io_uring (not installed)'))
    head.append('- medians of %d runs; ratio = ringsmb / Samba; server CPU '
                'is the whole process tree over the whole smb2bench run '
                '(set-up included)' % b.a.runs)
    tail = ['', 'Errors: %s' % '; '.join(
        '%s (%s): %s' % (b.rows[i].label, n, e)
        for (i, n), e in b.errors.items())] if b.errors else []
    return '\n'.join(head + [''] + lines + tail) + '\n'


def main():
    a = parse_args()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    tmp = tempfile.mkdtemp(prefix='ringsmb-bench2-', dir=a.dir)
    t0 = time.monotonic()
    try:
        b = Bench(a, tmp)
        b.run()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    say('done in %.0f s' % (time.monotonic() - t0))
    text = render(b, 'tests/bench/smb2bench.py ' + ' '.join(sys.argv[1:]))
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
    else:
        print(text)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'%s|%s' % (b.rows[i].label, n): v
                       for (i, n), v in b.samples.items()}, f, indent=1)
    if b.errors:
        sys.exit(1)


if __name__ == '__main__':
    main()
