#!/usr/bin/env python3
"""make bench: ringsmb and Debian's Samba smbd side by side, in one run on
one machine, over the same share directory (docs/bench.md).

For each security mode every server configuration runs at once, each on
its own port; runs alternate between them round by round so that drift of
the machine hits all of them.  Measured per run: throughput of 1 or N
concurrent smbclient processes (total bytes / wall time of the slowest),
the server's CPU (its whole process tree, from /proc) and the clients' CPU
(wait4 rusage), both per GiB moved.  The report gives medians.

    bench.py [--op get,put] [--mode guest,sign,encrypt] [--clients 1,4]
             [--configs copy,...,samba] [--size-mib N] [--runs N]
             [--quick] [--out FILE] [--json FILE]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import clients
import report
import servers

GET_MIB, PUT_MIB = 2048, 1024
DEFAULT_RUNS = 5
GET_CONFIGS = ('copy', 'splice', 'zerocopy', 'auto', 'noop', 'io_uring',
               'samba')
PUT_CONFIGS = ('default', 'noop', 'io_uring', 'wsplice', 'samba')
LAST_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'last-run.md')


def csv(choices=None, conv=str):
    def parse(text):
        vals = [conv(v) for v in text.split(',') if v]
        bad = [v for v in vals if choices and v not in choices]
        if bad or not vals:
            raise argparse.ArgumentTypeError('choose from %s' %
                                             ','.join(map(str, choices)))
        return vals
    return parse


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    names = [c.name for c in servers.all_configs(False)]
    ap.add_argument('--op', type=csv(('get', 'put')), action='append',
                    help='get and/or put (default both)')
    ap.add_argument('--mode', type=csv(tuple(servers.SECURITY)),
                    action='append', help='guest,sign,encrypt (default all)')
    ap.add_argument('--clients', type=csv(None, int), action='append',
                    help='concurrent smbclients per run (default 1,4)')
    ap.add_argument('--configs', type=csv(names), action='append',
                    help='server configurations (default: get %s; put %s)'
                    % (','.join(GET_CONFIGS), ','.join(PUT_CONFIGS)))
    ap.add_argument('--size-mib', type=int,
                    help='file size for get and put (default %d / %d)' %
                    (GET_MIB, PUT_MIB))
    ap.add_argument('--runs', type=int, help='measured runs per server '
                    'and cell (default %d)' % DEFAULT_RUNS)
    ap.add_argument('--quick', action='store_true', help='smoke matrix: '
                    '256 MiB, 1 run, guest only, iperf3 2 s')
    ap.add_argument('--dir', default='/dev/shm')
    ap.add_argument('--proto', default='SMB3_11')
    ap.add_argument('--ringsmb-extra', default='',
                    help='extra [global] lines for every ringsmb')
    ap.add_argument('--iperf-secs', type=int, default=5)
    ap.add_argument('--timeout', type=int, default=600,
                    help='seconds allowed for one run of the clients')
    ap.add_argument('--out', help='report file (default: stdout and %s)' %
                    os.path.relpath(LAST_RUN))
    ap.add_argument('--json', help='also write the raw per-run numbers')
    a = ap.parse_args(argv)
    flat = lambda v, d: [x for part in v for x in part] if v else list(d)
    a.op = flat(a.op, ('get', 'put'))
    a.mode = flat(a.mode, ('guest',) if a.quick else servers.SECURITY)
    a.clients = flat(a.clients, (1, 4))
    a.configs = flat(a.configs, ())
    if a.quick:
        a.size_mib = a.size_mib or 256
        a.runs = a.runs or 1
        a.iperf_secs = 2
    a.ringsmb_extra = a.ringsmb_extra.replace('\\n', '\n')
    if a.ringsmb_extra and not a.ringsmb_extra.endswith('\n'):
        a.ringsmb_extra += '\n'
    return a


def say(msg):
    print('[%s] %s' % (time.strftime('%H:%M:%S'), msg), file=sys.stderr,
          flush=True)


class Bench:
    """One run of the matrix; results[(op, clients, mode, cfg)] holds the
    per-run samples, errors[...] the first error of that cell."""

    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        self.share = os.path.join(tmp, 'share')
        self.size = {op: (a.size_mib or d) << 20
                     for op, d in (('get', GET_MIB), ('put', PUT_MIB))}
        self.src = {'get': 'get.bin',
                    'put': os.path.join(tmp, 'put-src.bin')}
        self.results, self.errors, self.notes = {}, {}, []
        self.iperf = {}
        self.io_uring = servers.samba_io_uring_module()
        every = servers.all_configs(self.io_uring)
        self.cfgs = {op: [c for c in every if c.name in
                          (a.configs or (GET_CONFIGS if op == 'get'
                                         else PUT_CONFIGS))]
                     for op in a.op}

    def runs(self, clients):
        return self.a.runs or DEFAULT_RUNS

    # -- setup ----------------------------------------------------------

    def prepare(self):
        os.makedirs(self.share)
        # Samba maps guests to 'nobody': world-readable, and writable
        # by everyone for put (Samba's guest and the bench user)
        os.chmod(self.tmp, 0o755)
        os.chmod(self.share, 0o777)
        self.check_space()
        chunk = os.urandom(1 << 20)
        for op in self.a.op:
            path = os.path.join(self.share, self.src['get']) \
                if op == 'get' else self.src['put']
            with open(path, 'wb') as f:
                for _ in range(self.size[op] >> 20):
                    f.write(chunk)
            os.chmod(path, 0o644)
        if set(self.a.mode) - {'guest'}:
            servers.add_users(self.tmp, self.share)

    def check_space(self):
        need = self.size['get'] if 'get' in self.a.op else 0
        if 'put' in self.a.op:
            need += self.size['put'] * (1 + max(self.a.clients))
        st = os.statvfs(self.tmp)
        have = st.f_bavail * st.f_frsize
        if have < need + (256 << 20):
            raise SystemExit('bench: %s has %d MiB free, needs %d MiB' %
                             (self.a.dir, have >> 20, (need >> 20) + 256))

    def describe(self):
        if self.io_uring:
            self.notes.append('Samba runs with `vfs objects = io_uring` (%s).'
                              % self.io_uring)
        else:
            self.notes.append(
                'Samba\'s io_uring VFS module is missing (%s; Debian ships '
                'it in samba-vfs-modules): Samba runs without it.' %
                servers.SAMBA_IO_URING)
        known = servers.ringsmb_knows(self.tmp, self.share, 'smb2 read mode')
        if known is False:
            self.notes.append(
                'This ringsmb does not know `smb2 read mode` (testparm: '
                'unknown parameter, ignored): the rows "read mode copy/'
                'splice/zerocopy/auto" all run its default read path.')
        for n in self.notes:
            say(n)

    def measure_iperf(self, when):
        for n in sorted(self.a.clients):
            try:
                v = clients.iperf3(n, self.a.iperf_secs)
            except (RuntimeError, OSError, ValueError, KeyError,
                    subprocess.TimeoutExpired) as e:
                say('iperf3 -P %d failed: %s' % (n, e))
                v = None
            self.iperf.setdefault(n, []).append(v)
            say('iperf3 %s, %d stream(s): %s MiB/s' %
                (when, n, report.fmt(v)))
        if all(v is None for v in sum(self.iperf.values(), [])):
            self.notes.append('iperf3 did not run (not installed?): no '
                              'ceiling, the iperf3 column is empty.')

    # -- one run --------------------------------------------------------

    def commands(self, server, op, n, security):
        tag = '%s-%s' % (server.cfg.name, security)
        logs = [os.path.join(self.tmp, 'client-%s-%d.log' % (tag, i))
                for i in range(n)]
        if op == 'get':
            cmds = ['get %s /dev/null' % self.src['get']] * n
            targets = []
        else:
            targets = ['put-%s-%d.bin' % (tag, i) for i in range(n)]
            cmds = ['put %s %s' % (self.src['put'], t) for t in targets]
        argvs = [clients.smbclient_argv(server.port, security,
                                        self.a.proto, c) for c in cmds]
        return argvs, logs, [os.path.join(self.share, t) for t in targets]

    def one_run(self, server, op, n, security):
        argvs, logs, targets = self.commands(server, op, n, security)
        self.remove(targets)
        kids = server.descendants()
        cpu0 = server.cpu()
        wall, ccpu = clients.run_clients(argvs, logs, self.a.timeout)
        server.settle(kids)
        cpu1 = server.cpu()
        try:
            self.verify(server, op, logs, targets)
        finally:
            self.remove(targets)
        gib = n * self.size[op] / 2**30
        return {'mib_s': gib * 1024 / wall, 'srv': (cpu1 - cpu0) / gib,
                'cli': ccpu / gib, 'wall': wall}

    def verify(self, server, op, logs, targets):
        for i, log in enumerate(logs):
            if op == 'get':
                clients.check_get(log, self.size['get'])
            else:
                clients.check_put(log, targets[i], self.size['put'],
                                  server.cfg.name == 'noop')

    @staticmethod
    def remove(paths):
        for p in paths:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass

    # -- the matrix -----------------------------------------------------

    def start_all(self, security, live):
        names = {c.name for cfgs in self.cfgs.values() for c in cfgs}
        every = servers.all_configs(self.io_uring)
        for cfg in [c for c in every if c.name in names]:
            try:
                s = servers.start(self.tmp, self.share, cfg, security,
                                  self.a.ringsmb_extra)
                live[cfg.name] = s
                warm = self.one_run(s, 'get' if 'get' in self.a.op
                                    else 'put', 1, security)
                say('%s %s: started on port %d, warm-up %.0f MiB/s' %
                    (security, cfg.label, s.port, warm['mib_s']))
            except (RuntimeError, TimeoutError, OSError) as e:
                self.fail_all(security, cfg.name, 'start/warm-up: %s' % e)
                if cfg.name in live:
                    s = live.pop(cfg.name)
                    s.stop()
                    say(s.log_tail())

    def fail_all(self, security, name, err):
        say('%s %s: %s' % (security, name, err))
        for op in self.a.op:
            for n in self.a.clients:
                self.errors.setdefault((op, n, security, name), err)

    def rounds(self, live, op, n, security):
        cfgs = [c for c in self.cfgs[op] if c.name in live]
        runs = self.runs(n)
        for r in range(runs):
            k = r % len(cfgs) if cfgs else 0
            for cfg in cfgs[k:] + cfgs[:k]:
                self.run_cell(live, cfg, op, n, security, '%d/%d' %
                              (r + 1, runs))

    def run_cell(self, live, cfg, op, n, security, which):
        key = (op, n, security, cfg.name)
        server = live.get(cfg.name)
        if server is None or not server.alive():
            self.errors.setdefault(key, 'server exited')
            return
        try:
            s = self.one_run(server, op, n, security)
        except (RuntimeError, TimeoutError, OSError) as e:
            self.errors.setdefault(key, str(e)[:300])
            say('%s %s %dx %s run %s FAILED: %s' %
                (security, op, n, cfg.label, which, e))
            return
        self.results.setdefault(key, []).append(s)
        say('%s %s %dx %s run %s: %.0f MiB/s, server %.3f, client %.3f '
            'CPU s/GiB' % (security, op, n, cfg.label, which, s['mib_s'],
                           s['srv'], s['cli']))

    def security_mode(self, security):
        live = {}
        try:
            self.start_all(security, live)
            for op in self.a.op:
                for n in self.a.clients:
                    self.rounds(live, op, n, security)
        finally:
            for s in live.values():
                try:
                    s.stop()
                except (OSError, subprocess.SubprocessError) as e:
                    say('stopping %s: %s' % (s.cfg.label, e))

    def run(self):
        t0 = time.monotonic()
        self.machine = report.machine()
        self.prepare()
        self.describe()
        self.measure_iperf('at start')
        for security in self.a.mode:
            self.security_mode(security)
        if not self.a.quick:
            self.measure_iperf('at end')
        self.minutes = (time.monotonic() - t0) / 60

    def settings(self):
        a = self.a
        runs = ', '.join('%d with %d client%s' % (self.runs(n), n,
                                                    '' if n == 1 else 's')
                         for n in a.clients)
        return [
            'command: `%s`' % ' '.join(sys.argv),
            'get: %d MiB file to /dev/null; put: %d MiB file from %s; '
            'share directory on %s' % (self.size['get'] >> 20,
                                       self.size['put'] >> 20, a.dir, a.dir),
            'smbclient -m %s; N clients start together, each getting the '
            'same file or putting to its own name; MiB/s = total bytes / '
            'wall time until the last client ended' % a.proto,
            'measured runs per server: %s (after one warm-up get per '
            'server); medians; the servers take turns run by run' % runs,
            'server CPU: utime+stime of the server\'s process tree '
            '(live processes + reaped children) from /proc; client CPU: '
            'smbclient\'s rusage (wait4); both per GiB moved',
            'ratios: ringsmb/Samba of the medians; iperf3 column: MiB/s '
            'over the loopback ceiling with as many streams as clients',
        ]

    def report_dict(self):
        matrix = [(op, n, sec) for op in self.a.op for n in self.a.clients
                  for sec in self.a.mode]
        return {'machine': self.machine, 'settings': self.settings(),
                'notes': self.notes, 'iperf': self.iperf,
                'cfgs': self.cfgs, 'results': self.results,
                'errors': self.errors, 'matrix': matrix,
                'size_mib': {op: self.size[op] >> 20 for op in self.size},
                'minutes': self.minutes}


def write_json(path, b):
    data = {'machine': dict(b.machine), 'notes': b.notes,
            'iperf_mib_s': b.iperf,
            'runs': [{'op': k[0], 'clients': k[1], 'mode': k[2],
                      'config': k[3], 'samples': v}
                     for k, v in b.results.items()],
            'errors': [{'op': k[0], 'clients': k[1], 'mode': k[2],
                        'config': k[3], 'error': v}
                       for k, v in b.errors.items()]}
    with open(path, 'w') as f:
        json.dump(data, f, indent=1)


def on_signal(signum, frame):
    raise SystemExit(128 + signum)


def main():
    a = parse_args()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    tmp = tempfile.mkdtemp(prefix='ringsmb-bench-', dir=a.dir)
    try:
        b = Bench(a, tmp)
        b.run()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = report.render(b.report_dict())
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
        say('report written to %s' % a.out)
    else:
        print(text)
        with open(LAST_RUN, 'w') as f:
            f.write(text)
        say('report written to %s' % LAST_RUN)
    if a.json:
        write_json(a.json, b)


if __name__ == '__main__':
    main()
