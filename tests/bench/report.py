"""The Markdown report: machine description, the iperf3 ceiling, and one
table per op x clients x security mode with a row per server
configuration.
"""
import datetime
import os
import statistics
import subprocess

from servers import SAMBA_SMBD, SECURITY_LABEL, TOP


def run_text(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=60,
                              text=True).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return '?'


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return '?'


def machine():
    """Facts about the machine and the builds, as (name, value) rows."""
    head = run_text(['git', '-C', TOP, 'rev-parse', '--short', 'HEAD'])
    dirty = run_text(['git', '-C', TOP, 'status', '--porcelain',
                      '--untracked-files=no'])
    return [
        ('date', datetime.datetime.now().astimezone()
         .strftime('%Y-%m-%d %H:%M %Z')),
        ('CPUs (nproc)', str(os.cpu_count())),
        ('CPU', cpu_model()),
        ('kernel', os.uname().release),
        ('Samba', run_text([SAMBA_SMBD, '-V'])),
        ('ringsmb', head + (' (uncommitted changes)' if dirty else '')),
        ('load average at start', '%.2f %.2f %.2f' % os.getloadavg()),
    ]


def fmt(x, digits=1):
    return '—' if x is None else '%.*f' % (digits, x)


def ratio(a, b):
    return a / b if a is not None and b else None


def summary(samples):
    """Medians of the per-run values; None when the runs failed."""
    if not samples:
        return None
    return {k: statistics.median(s[k] for s in samples)
            for k in ('mib_s', 'srv', 'cli')} | {
        'lo': min(s['mib_s'] for s in samples),
        'hi': max(s['mib_s'] for s in samples), 'n': len(samples)}


def one_line(text, n=240):
    text = ' '.join(text.replace('|', '/').split())
    return text if len(text) <= n else text[:n] + '…'


HEADER = ('| server | MiB/s | server CPU s/GiB | client CPU s/GiB | '
          'MiB/s ringsmb/Samba | server CPU ringsmb/Samba | '
          'MiB/s / iperf3 | runs: MiB/s min–max |\n'
          '|---|---:|---:|---:|---:|---:|---:|---|')


def row(label, s, ref, ceiling, err):
    """One server's row; ref is Samba's summary (None on Samba's row)."""
    if s is None:
        return '| %s | failed: %s | | | | | | |' % (
            label, one_line(err or 'not run'))
    vs = lambda k: '' if ref is False else fmt(
        ratio(s[k], ref and ref[k]), 2)
    return '| %s | %s | %s | %s | %s | %s | %s | %d: %s–%s%s |' % (
        label, fmt(s['mib_s']), fmt(s['srv'], 3), fmt(s['cli'], 3),
        vs('mib_s'), vs('srv'), fmt(ratio(s['mib_s'], ceiling), 2),
        s['n'], fmt(s['lo']), fmt(s['hi']),
        ' (a run failed: %s)' % one_line(err) if err else '')


def table(cfgs, cell, ceiling):
    """cell(cfg) -> (samples, error).  Samba's row is the reference."""
    sums = {c.name: summary(cell(c)[0]) for c in cfgs}
    ref = sums.get('samba')
    rows = [HEADER]
    for c in cfgs:
        rows.append(row(c.label, sums[c.name],
                        False if c.name == 'samba' else ref, ceiling,
                        cell(c)[1]))
    return '\n'.join(rows)


def iperf_section(iperf):
    rows = ['| streams | start MiB/s | end MiB/s | ceiling used |',
            '|---|---:|---:|---:|']
    for n in sorted(iperf):
        vals = iperf[n]
        best = max((v for v in vals if v is not None), default=None)
        rows.append('| %d | %s | %s | %s |' % (
            n, fmt(vals[0]), fmt(vals[1] if len(vals) > 1 else None),
            fmt(best)))
    return '\n'.join(rows)


def ceiling(iperf, clients):
    vals = [v for v in iperf.get(clients, []) if v is not None]
    return max(vals) if vals else None


def render(r):
    """r: the run's dict (see bench.py: machine, settings, notes, iperf,
    cfgs per op, results)."""
    out = ['# ringsmb and Samba, side by side (`make bench`)', '']
    out += ['| | |', '|---|---|']
    out += ['| %s | %s |' % kv for kv in r['machine']]
    out += ['', '## Settings', '']
    out += ['- %s' % s for s in r['settings']]
    if r['notes']:
        out += ['', '## Notes', '']
        out += ['- %s' % n for n in r['notes']]
    out += ['', '## Loopback TCP ceiling (iperf3)', '',
            iperf_section(r['iperf'])]
    for op, clients, sec in r['matrix']:
        key = (op, clients, sec)
        out += ['', '## %s %d MiB, %d client%s, %s' % (
            op, r['size_mib'][op], clients, '' if clients == 1 else 's',
            SECURITY_LABEL[sec]), '',
            table(r['cfgs'][op],
                  lambda c: (r['results'].get(key + (c.name,), []),
                             r['errors'].get(key + (c.name,))),
                  ceiling(r['iperf'], clients))]
    out += ['', 'Load average at the end: %.2f %.2f %.2f; the whole run '
            'took %.1f minutes.' % (os.getloadavg() + (r['minutes'],)), '']
    return '\n'.join(out)
