"""The servers of the benchmark: smb.conf for ringsmb and for Debian's
Samba smbd, the bench user, start and stop, and the CPU time of a server's
whole process tree read from /proc.
"""
import os
import signal
import socket
import subprocess
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RINGSMB_SMBD = os.environ.get('RINGSMB_SMBD',
                              os.path.join(TOP, 'bin', 'smbd'))
SAMBA_SMBD = '/usr/sbin/smbd'
SAMBA_IO_URING = '/usr/lib/x86_64-linux-gnu/samba/vfs/io_uring.so'
TICK = os.sysconf('SC_CLK_TCK')
CMD_TIMEOUT = 60

BENCH_USER, BENCH_PASS = 'ringsmbbench', 'Bench-pw-1'

SECURITY = {
    'guest': '',
    'sign': 'server signing = mandatory\n',
    'encrypt': 'server smb encrypt = required\n',
}
SECURITY_LABEL = {
    'guest': 'guest (unsigned)',
    'sign': 'signed (server signing = mandatory, user)',
    'encrypt': 'encrypted (server smb encrypt = required, user)',
}
READ_MODES = ('copy', 'splice', 'zerocopy', 'auto')


class Config:
    """One server configuration: a row of the report's tables."""

    def __init__(self, name, kind, label, glob='', share=''):
        self.name, self.kind, self.label = name, kind, label
        self.glob, self.share = glob, share


def all_configs(samba_io_uring):
    # the read modes on the fast VFS path (vfs_io_uring)
    cfgs = [Config(m, 'ringsmb', 'ringsmb io_uring, read mode %s' % m,
                   glob='smb2 read mode = %s\n' % m,
                   share='vfs objects = io_uring\n') for m in READ_MODES]
    cfgs += [
        Config('wsplice', 'ringsmb', 'ringsmb io_uring, write mode splice',
               glob='smb2 write mode = splice\n',
               share='vfs objects = io_uring\n'),
        Config('default', 'ringsmb', 'ringsmb (defaults)'),
        # the crypto pool off: every AES pass in the event loop
        Config('inline', 'ringsmb', 'ringsmb, smb2 crypto threads = 0',
               glob='smb2 crypto threads = 0\n'),
        Config('noop', 'ringsmb', 'ringsmb, vfs objects = noop',
               share='vfs objects = noop\n'),
        Config('io_uring', 'ringsmb', 'ringsmb, vfs objects = io_uring',
               share='vfs objects = io_uring\n'),
        # knobs measured in docs/performance.md, not in the default matrix
        Config('regbuf', 'ringsmb', 'ringsmb io_uring, read mode zerocopy, '
               'registered buffers 8',
               glob='smb2 read mode = zerocopy\n',
               share='vfs objects = io_uring\n'
               'io_uring:registered buffers = 8\n'),
    ]
    if samba_io_uring:
        cfgs.append(Config('samba', 'samba', 'Samba, vfs objects = io_uring',
                           share='vfs objects = io_uring\n'))
    else:
        cfgs.append(Config('samba', 'samba', 'Samba (no io_uring module)'))
    # the modules a Samba admin's share has (issue 15): their cost
    cfgs.append(Config('acl', 'ringsmb', 'ringsmb, vfs objects = acl_xattr '
                       'streams_xattr',
                       share='vfs objects = acl_xattr streams_xattr\n'))
    cfgs.append(Config('samba-acl', 'samba', 'Samba, vfs objects = acl_xattr '
                       'streams_xattr%s' % (' io_uring' if samba_io_uring
                                            else ''),
                       share='vfs objects = acl_xattr streams_xattr%s\n'
                       % (' io_uring' if samba_io_uring else '')))
    return cfgs


def samba_io_uring_module():
    """Path of Samba's vfs_io_uring module, or None."""
    path = SAMBA_IO_URING
    try:
        out = subprocess.run([SAMBA_SMBD, '-b'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=CMD_TIMEOUT,
                             text=True).stdout
        for line in out.splitlines():
            if line.strip().startswith('MODULESDIR:'):
                path = os.path.join(line.split(':', 1)[1].strip(), 'vfs',
                                    'io_uring.so')
    except (OSError, subprocess.TimeoutExpired):
        pass
    return path if os.path.exists(path) else None


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, secs=20):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError('server exited with %d' % proc.returncode)
        try:
            socket.create_connection(('127.0.0.1', port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError('server did not listen on %d within %d s' %
                       (port, secs))


def ringsmb_conf(tmp, share, port, cfg, security, extra=''):
    d = os.path.join(tmp, 'ringsmb-' + cfg.name)
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, 'smb.conf')
    with open(conf, 'w') as f:
        f.write('[global]\nsmb ports = %d\ninterfaces = 127.0.0.1\n'
                'bind interfaces only = yes\nmap to guest = Bad User\n'
                'smb passwd file = %s/ringsmb.smbpasswd\n'
                'pid directory = %s\nlock directory = %s\n'
                'private dir = %s\nlog level = 0\n%s%s%s'
                '[share]\npath = %s\nguest ok = yes\nread only = no\n%s'
                % (port, tmp, d, d, d, SECURITY[security], cfg.glob, extra,
                   share, cfg.share))
    return conf


def samba_conf(tmp, share, port, cfg, security):
    d = os.path.join(tmp, 'samba' if cfg.name == 'samba' else
                     'samba-' + cfg.name)
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
                'passdb backend = smbpasswd:{tmp}/samba.smbpasswd\n'
                'log level = 0\nload printers = no\n%s'
                '[share]\npath = %s\nguest ok = yes\nread only = no\n%s'
                .format(d=d, tmp=tmp) % (port, SECURITY[security], share,
                                       cfg.share))
    return conf


def tool_next_to_smbd(name):
    tool = os.path.join(os.path.dirname(RINGSMB_SMBD), name)
    return tool if os.path.exists(tool) else os.path.join(TOP, 'bin', name)


def run_quiet(argv, data=None):
    """Run a setup command; its output only shows when it fails."""
    p = subprocess.run(argv, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=CMD_TIMEOUT)
    if p.returncode != 0:
        raise RuntimeError('%s failed: %s' % (
            ' '.join(argv[:2]), p.stdout.decode(errors='replace').strip()))


def add_users(tmp, share):
    """The bench user for both servers (sign/encrypt log on as a user)."""
    if subprocess.run(['id', BENCH_USER], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL,
                      timeout=CMD_TIMEOUT).returncode != 0:
        run_quiet(['useradd', '-M', '-s', '/usr/sbin/nologin', BENCH_USER])
    pw = ('%s\n%s\n' % (BENCH_PASS, BENCH_PASS)).encode()
    cfg = Config('passwd', 'ringsmb', '')
    conf = ringsmb_conf(tmp, share, 1, cfg, 'guest')
    run_quiet([tool_next_to_smbd('smbpasswd'), '-c', conf, '-s', '-a',
               BENCH_USER], pw)
    sconf = samba_conf(tmp, share, 1, cfg, 'guest')
    run_quiet(['/usr/bin/smbpasswd', '-c', sconf, '-s', '-a', BENCH_USER],
              pw)


def ringsmb_knows(tmp, share, param):
    """False when ringsmb's testparm calls param unknown; None if unsure."""
    cfg = Config('testparm', 'ringsmb', '', glob='%s = auto\n' % param)
    conf = ringsmb_conf(tmp, share, 1, cfg, 'guest')
    try:
        p = subprocess.run([tool_next_to_smbd('testparm'), '-s', conf],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=CMD_TIMEOUT, text=True)
    except OSError:
        return None
    return 'unknown parameter "%s"' % param not in p.stdout


def proc_table():
    """pid -> (ppid, start time, utime+stime+cutime+cstime in ticks)."""
    table = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                rest = f.read().rsplit(')', 1)[1].split()
        except (OSError, IndexError):
            continue
        # rest[0] is field 3 (state): ppid 4, utime..cstime 14-17, start 22
        table[int(d)] = (int(rest[1]), int(rest[19]),
                         sum(int(x) for x in rest[11:15]))
    return table


def tree_pids(root, table):
    """root and its live descendants in the snapshot table."""
    kids = {}
    for pid, (ppid, _, _) in table.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo, seen = [], [root], set()
    while todo:
        p = todo.pop()
        if p in seen or p not in table:
            continue
        seen.add(p)
        out.append(p)
        todo.extend(kids.get(p, ()))
    return out


class Server:
    """A running server.  cpu() is the CPU time of its whole tree: every
    live process's utime+stime plus the cutime+cstime of the children it
    has waited for, so Samba's per-connection children count even after
    they exited."""

    def __init__(self, cfg, port, proc, log):
        self.cfg, self.port, self.proc, self.log = cfg, port, proc, log

    def cpu(self):
        table = proc_table()
        return sum(table[p][2] for p in tree_pids(self.proc.pid, table)) \
            / TICK

    def descendants(self):
        return len(tree_pids(self.proc.pid, proc_table())) - 1

    def settle(self, count, secs=10):
        """Wait (bounded) until per-connection children have exited."""
        end = time.monotonic() + secs
        while self.descendants() > count and time.monotonic() < end:
            time.sleep(0.02)

    def alive(self):
        return self.proc.poll() is None

    def log_tail(self, n=15):
        try:
            with open(self.log, errors='replace') as f:
                return ''.join(f.readlines()[-n:])
        except OSError:
            return ''

    def stop(self):
        """SIGTERM, then SIGKILL; then any descendant left behind."""
        table = proc_table()
        left = [(p, table[p][1]) for p in tree_pids(self.proc.pid, table)
                if p != self.proc.pid]
        end_process(self.proc)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            left = [(p, st) for p, st in left if signal_same(p, st, sig)]
            if left:
                time.sleep(1)


def end_process(proc):
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def signal_same(pid, start, sig):
    """Signal pid if it is still the process we saw; True if it was."""
    entry = proc_table().get(pid)
    if entry is None or entry[1] != start:
        return False
    try:
        os.kill(pid, sig)
    except OSError:
        return False
    return True


def start(tmp, share, cfg, security, extra=''):
    port = free_port()
    if cfg.kind == 'samba':
        conf = samba_conf(tmp, share, port, cfg, security)
        argv = [SAMBA_SMBD, '-F', '--debug-stdout', '--configfile=' + conf]
    else:
        conf = ringsmb_conf(tmp, share, port, cfg, security, extra)
        argv = [RINGSMB_SMBD, '-F', '--debug-stdout', '-s', conf]
    log = os.path.join(tmp, 'server-%s-%s.log' % (cfg.name, security))
    with open(log, 'wb') as out:
        # Samba's smbd -F calls setsid() itself and fails in a new session
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT,
                                start_new_session=cfg.kind != 'samba')
    server = Server(cfg, port, proc, log)
    try:
        wait_port(port, proc)
    except RuntimeError as e:
        server.stop()
        raise RuntimeError('%s; log: %s' % (e, server.log_tail(3)))
    except BaseException:
        server.stop()
        raise
    return server
