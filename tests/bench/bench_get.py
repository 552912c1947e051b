#!/usr/bin/env python3
"""smbclient get (or put) of one large file against ringsmb and Debian's
Samba smbd, same file, same run; prints throughput, server CPU seconds per
GiB and the ratios.  Usage: bench_get.py [--op get|put] [--size-mib 2048]
                 [--runs 3] [--dir /dev/shm] [--mode guest|sign|encrypt]

put uploads a file from --dir into the share (both servers: a writable
share); the uploaded file is replaced on every run.

sign/encrypt log on as a user (created for both servers: a Unix account
'ringsmbbench' for Samba, made with useradd if missing, and an smbpasswd
entry for each) with 'server signing = mandatory' or 'server smb encrypt =
required' on both servers.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, secs=20):
    end = time.time() + secs
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError('server exited with %d' % proc.returncode)
        try:
            socket.create_connection(('127.0.0.1', port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError('server did not listen on %d' % port)


def cpu_seconds(pid):
    """utime+stime of pid and its children that were waited for."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    tick = os.sysconf('SC_CLK_TCK')
    return sum(int(x) for x in fields[11:15]) / tick


BENCH_USER, BENCH_PASS = 'ringsmbbench', 'Bench-pw-1'

MODE_GLOBAL = {
    'guest': '',
    'sign': 'server signing = mandatory\n',
    'encrypt': 'server smb encrypt = required\n',
}


def ringsmb_conf(tmp, share, port, extra, mode):
    conf = os.path.join(tmp, 'ringsmb.conf')
    with open(conf, 'w') as f:
        f.write('[global]\nsmb ports = %d\ninterfaces = 127.0.0.1\n'
                'bind interfaces only = yes\nmap to guest = Bad User\n'
                'smb passwd file = %s/ringsmb.smbpasswd\n'
                'log level = 0\n%s%s\n[share]\npath = %s\nguest ok = yes\n'
                'read only = no\n'
                % (port, tmp, MODE_GLOBAL[mode], extra, share))
    return conf


def add_users(tmp, share, mode):
    """The bench user for both servers (sign/encrypt modes)."""
    if subprocess.run(['id', BENCH_USER], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        subprocess.run(['useradd', '-M', '-s', '/usr/sbin/nologin',
                        BENCH_USER], check=True)
    pw = ('%s\n%s\n' % (BENCH_PASS, BENCH_PASS)).encode()
    conf = ringsmb_conf(tmp, share, 1, '', mode)
    tool = os.path.join(os.path.dirname(os.environ.get(
        'RINGSMB_SMBD', os.path.join(TOP, 'bin', 'smbd'))), 'smbpasswd')
    if not os.path.exists(tool):
        tool = os.path.join(TOP, 'bin', 'smbpasswd')
    subprocess.run([tool, '-c', conf, '-s', '-a', BENCH_USER], input=pw,
                   check=True, stdout=subprocess.DEVNULL)
    sconf = samba_conf(tmp, share, 1, mode)
    subprocess.run(['/usr/bin/smbpasswd', '-c', sconf, '-s', '-a',
                    BENCH_USER], input=pw, check=True,
                   stdout=subprocess.DEVNULL)


def start_ringsmb(tmp, share, port, extra, mode='guest'):
    conf = ringsmb_conf(tmp, share, port, extra, mode)
    smbd = os.environ.get('RINGSMB_SMBD', os.path.join(TOP, 'bin', 'smbd'))
    return subprocess.Popen([smbd, '-F', '--debug-stdout', '-s', conf],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def samba_conf(tmp, share, port, mode):
    d = os.path.join(tmp, 'samba')
    for sub in ('private', 'lock', 'state', 'cache', 'pid', 'ncalrpc'):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    conf = os.path.join(d, 'smb.conf')
    with open(conf, 'w') as f:
        f.write('[global]\nsmb ports = %d\ninterfaces = 127.0.0.1\n'
                'bind interfaces only = yes\nmap to guest = Bad User\n'
                'server role = standalone server\ndisable netbios = yes\n'
                'private dir = {d}/private\nlock directory = {d}/lock\n'
                'state directory = {d}/state\ncache directory = {d}/cache\n'
                'pid directory = {d}/pid\nncalrpc dir = {d}/ncalrpc\n'
                'passdb backend = smbpasswd:{d}/private/smbpasswd\n'
                'log level = 0\nload printers = no\n%s'
                '[share]\npath = %s\nguest ok = yes\nread only = no\n'.format(d=d)
                % (port, MODE_GLOBAL[mode], share))
    return conf


def start_samba(tmp, share, port, mode='guest'):
    conf = samba_conf(tmp, share, port, mode)
    return subprocess.Popen(['/usr/sbin/smbd', '-F', '--debug-stdout',
                             '--configfile=' + conf],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def server_cpu(proc):
    """CPU of the server: the master and (Samba) its forked children."""
    total = 0.0
    pids = [proc.pid]
    try:
        out = subprocess.run(['pgrep', '-P', str(proc.pid)],
                             stdout=subprocess.PIPE).stdout.split()
        pids += [int(p) for p in out]
    except OSError:
        pass
    for p in pids:
        try:
            total += cpu_seconds(p)
        except OSError:
            pass
    return total


def get_once(port, name, proto, mode='guest', cmd=None):
    t0 = time.time()
    smbclient_get(port, name, proto, mode, cmd)
    return time.time() - t0


def smbclient_get(port, name, proto, mode='guest', cmd=None):
    creds = ['-N'] if mode == 'guest' else \
        ['-U', '%s%%%s' % (BENCH_USER, BENCH_PASS)]
    cmd = cmd or 'get %s /dev/null' % name
    p = subprocess.run(['smbclient'] + creds + ['//127.0.0.1/share', '-p', str(port),
                    '-m', proto, '-c', cmd],
                   stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, timeout=600)
    if p.returncode != 0:
        raise RuntimeError('smbclient failed on port %d: %s' %
                           (port, p.stdout.decode(errors='replace')))
    return p


def measure(proc, port, name, size, runs, proto, mode, cmd=None):
    best = None
    cpu0 = server_cpu(proc)
    for _ in range(runs):
        t = get_once(port, name, proto, mode, cmd)
        best = t if best is None else min(best, t)
    cpu = server_cpu(proc) - cpu0
    gib = size / 2**30
    return {'mib_s': size / 2**20 / best,
            'cpu_per_gib': cpu / (gib * runs)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--size-mib', type=int, default=2048)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--dir', default='/dev/shm')
    ap.add_argument('--proto', default='SMB3_11')
    ap.add_argument('--ringsmb-extra', default='',
                    help='extra [global] lines for ringsmb')
    ap.add_argument('--mode', choices=sorted(MODE_GLOBAL), default='guest')
    ap.add_argument('--op', choices=('get', 'put'), default='get')
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='ringsmb-bench-', dir=a.dir)
    share = os.path.join(tmp, 'share')
    os.makedirs(share)
    # Samba maps guests to 'nobody': the share must be world-readable
    os.chmod(tmp, 0o755)
    # and writable by everyone for put (Samba's guest and bench user)
    os.chmod(share, 0o777)
    name = 'big.bin'
    src = os.path.join(share if a.op == 'get' else tmp, name)
    cmd = None if a.op == 'get' else 'put %s put.bin' % src
    with open(src, 'wb') as f:
        chunk = os.urandom(1 << 20)
        for _ in range(a.size_mib):
            f.write(chunk)
    os.chmod(src, 0o644)
    size = a.size_mib << 20
    results = {}
    if a.mode != 'guest':
        add_users(tmp, share, a.mode)
    try:
        for kind in ('ringsmb', 'samba'):
            port = free_port()
            # the other server's upload may not be writable for this one
            if os.path.exists(os.path.join(share, 'put.bin')):
                os.unlink(os.path.join(share, 'put.bin'))
            proc = (start_ringsmb(tmp, share, port, a.ringsmb_extra, a.mode)
                    if kind == 'ringsmb' else
                    start_samba(tmp, share, port, a.mode))
            try:
                wait_port(port, proc)
                get_once(port, name, a.proto, a.mode, cmd)  # warm up
                results[kind] = measure(proc, port, name, size, a.runs,
                                        a.proto, a.mode, cmd)
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r, s = results['ringsmb'], results['samba']
    print('smbclient %s %d MiB (%s, %s, %s), best of %d:' %
          (a.op, a.size_mib, a.proto, a.mode, a.dir, a.runs))
    for k in ('ringsmb', 'samba'):
        print('  %-8s %8.1f MiB/s  %6.3f server CPU s/GiB' %
              (k, results[k]['mib_s'], results[k]['cpu_per_gib']))
    print('  ratio ringsmb/samba: throughput %.2f, CPU per GiB %.2f' %
          (r['mib_s'] / s['mib_s'],
           r['cpu_per_gib'] / s['cpu_per_gib'] if s['cpu_per_gib'] else 0))


if __name__ == '__main__':
    main()
