"""The client side: concurrent smbclient processes with their rusage, and
the iperf3 loopback ceiling.
"""
import json
import os
import re
import signal
import subprocess
import threading
import time

from servers import BENCH_PASS, BENCH_USER, free_port

SMBCLIENT = 'smbclient'


def smbclient_argv(port, security, proto, cmd):
    creds = ['-N'] if security == 'guest' else \
        ['-U', '%s%%%s' % (BENCH_USER, BENCH_PASS)]
    return [SMBCLIENT] + creds + ['//127.0.0.1/share', '-p', str(port),
                                  '-m', proto, '-c', cmd]


def spawn(argv, log):
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, '/dev/null', os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, log,
         os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    return os.posix_spawnp(argv[0], argv, os.environ,
                           file_actions=actions)


class Waiter(threading.Thread):
    """wait4() for one client: exit status, rusage, time it ended."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.status, self.rusage, self.end = pid, None, None, None

    def run(self):
        _, self.status, self.rusage = os.wait4(self.pid, 0)
        self.end = time.monotonic()


def kill_all(waiters):
    for w in waiters:
        if w.is_alive():
            os.kill(w.pid, signal.SIGKILL)
    for w in waiters:
        w.join(10)


def reap(waiters, deadline):
    """Join every waiter by the deadline; kill the clients still running."""
    for w in waiters:
        w.join(max(0.0, deadline - time.monotonic()))
    late = any(w.is_alive() for w in waiters)
    kill_all(waiters)
    return late


def run_clients(argvs, logs, timeout):
    """Start all clients together; returns (wall seconds until the last
    ended, client CPU seconds summed over all of them)."""
    waiters = []
    t0 = time.monotonic()
    try:
        for argv, log in zip(argvs, logs):
            w = Waiter(spawn(argv, log))
            w.start()
            waiters.append(w)
        late = reap(waiters, t0 + timeout)
    except BaseException:
        kill_all(waiters)   # a failed spawn, or SIGTERM/^C of the bench
        raise
    if late:
        raise TimeoutError('smbclient took longer than %d s' % timeout)
    for w, log in zip(waiters, logs):
        if os.waitstatus_to_exitcode(w.status) != 0:
            raise RuntimeError('smbclient failed: %s' % read_tail(log))
    wall = max(w.end for w in waiters) - t0
    cpu = sum(w.rusage.ru_utime + w.rusage.ru_stime for w in waiters)
    return wall, cpu


def read_tail(path, n=600):
    try:
        with open(path, errors='replace') as f:
            return f.read()[-n:].strip()
    except OSError:
        return '(no output)'


GOT = re.compile(r'getting file \S+ of size (\d+) as')


def check_get(log, size):
    m = GOT.search(read_tail(log, 4000))
    if m is None or int(m.group(1)) != size:
        raise RuntimeError('get did not move %d bytes: %s' %
                           (size, read_tail(log)))


def check_put(log, path, size, discarded):
    if 'putting file' not in read_tail(log, 4000):
        raise RuntimeError('put failed: %s' % read_tail(log))
    if not discarded and os.path.getsize(path) != size:
        raise RuntimeError('put left %d of %d bytes in %s' %
                           (os.path.getsize(path), size, path))


def iperf3_once(port, streams, secs):
    p = subprocess.run(['iperf3', '-c', '127.0.0.1', '-p', str(port),
                        '-t', str(secs), '-P', str(streams), '-J'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=secs + 60, text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {'error': p.stdout.strip()[-300:]}
    return doc


def iperf3(streams, secs):
    """Loopback TCP MiB/s with that many streams; None without iperf3."""
    port = free_port()
    try:
        srv = subprocess.Popen(['iperf3', '-s', '-B', '127.0.0.1', '-p',
                                str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               start_new_session=True)
    except OSError:
        return None
    try:
        for _ in range(50):
            doc = iperf3_once(port, streams, secs)
            if 'error' not in doc:
                bps = doc['end']['sum_received']['bits_per_second']
                return bps / 8 / 2**20
            if 'connect' not in doc['error']:
                raise RuntimeError('iperf3: %s' % doc['error'])
            time.sleep(0.1)
        raise RuntimeError('iperf3 server did not answer')
    finally:
        srv.terminate()
        try:
            srv.wait(10)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait(10)
