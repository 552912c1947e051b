#!/usr/bin/env python3
"""What per-user identity costs on the data path: two ringsmb smbd
binaries side by side in one run, --before (a build without identity
support: every client acts on disk as root) and --after (every session
acts as its Unix account: io_uring personalities on the ring, a
per-thread credential switch around synchronous VFS calls).

    tests/bench/identity.py --before /work/before/build/source3/smbd/smbd \
        --after build/source3/smbd/smbd [--runs 3] [--size-mib 512] \
        [--ops get,put,read4k] [--vfs default,io_uring] [--reads 20000] \
        [--out tests/bench/identity-last-run.md]

Needs root: it adds the Unix accounts rsmbid1 and rsmbid2 (useradd -M -s
/usr/sbin/nologin) when they are missing and deletes them at the end only
if it created them; each binary gets its own passdb, written by the
`smbpasswd` built with it (next to smbd, or in ../utils/ of a build tree).

Both servers get the same smb.conf apart from port and paths: `server
signing = auto` (signing enabled, not required, so the sessions below are
unsigned and signing cost does not hide identity cost), log level 0, one
share [share] on a fresh directory in --dir (/dev/shm), mode 1777, `read
only = no`, and `vfs objects = io_uring` for the io_uring cells (the
default cells have no vfs objects line: vfs_default, synchronous
pread/pwrite, one credential switch pair per call in --after).  Each
binary's testparm reads the configuration first; a parameter one of them
calls unknown is left out of both, and the report says so.  The servers of
one --vfs value run at the same time, each on its own port; they are
always stopped (SIGTERM, then SIGKILL), also on error and ^C.

Measured, per --vfs value, each op --runs times, alternating before/after
(ABAB...), all on the same files:

- get: rsmbid1 and rsmbid2 at once, each `smbclient //127.0.0.1/share -p
  PORT -U user%pass -m SMB3_11 -c 'get big.bin /dev/null'` of the same
  world-readable --size-mib file.  MiB/s = both files' bytes / wall time
  from starting the two smbclients until the last exited; server CPU
  seconds (the server's process tree, /proc) per GiB moved.  smbclient
  does not sign here: on the wire only its TREE_CONNECT is signed (SMB
  3.1.1 requires that), READ and WRITE are not (checked on loopback with
  smbclient 4.17).
- put: the same two users at once, each `put` of a --size-mib file from
  /dev/shm to its own name on the share; each file's size on disk is
  checked (and its owner reported); MiB/s and CPU s/GiB as for get.
- read4k: 4 KiB READs at queue depth --depth (32), the two users at
  once, --reads each (20000).  Each user is one process with one raw
  SMB 3.1.1 connection (tests/integration/rawsmb.py framing, as
  depth.py) and one NTLMv2 user session: the SPNEGO/NTLM tokens come
  from pyspnego (the library smbprotocol logs on with), so the sessions
  are the real accounts rsmbid1 and rsmbid2 (the script checks the
  SESSION_SETUP answer is neither guest nor anonymous), unsigned, not
  encrypted.  Each sends DEPTH READs, waits for all DEPTH answers,
  checks status, length and bytes against the file, repeats.  READs/s =
  both users' READs / wall time from the first READ sent to the last
  answer; server CPU microseconds per READ.  The Python clients share
  the machine's CPUs with the server, so READs/s is partly the clients'
  limit; the server's CPU per READ is the steadier number.

Not part of `make test` or `make bench`: it measures, it does not judge.
"""
import argparse
import json
import mmap
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'tests', 'integration'))
sys.path.insert(0, HERE)

try:
    import spnego  # noqa: F401  (pyspnego, from the project's .venv)
except ImportError:
    # run by the system python3 (the #! line): again with the venv's
    VENV_PY = os.path.join(TOP, '.venv', 'bin', 'python3')
    if os.path.exists(VENV_PY) and 'RINGSMB_IDENTITY_REEXEC' not in \
            os.environ:
        os.environ['RINGSMB_IDENTITY_REEXEC'] = '1'
        os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] +
                 sys.argv[1:])
    raise

import clients  # noqa: E402
import rawsmb  # noqa: E402
import servers  # noqa: E402

USERS = (('rsmbid1', 'Ident-pw-1'), ('rsmbid2', 'Ident-pw-2'))
SIDES = ('before', 'after')
OPS = ('get', 'put', 'read4k')
VFS = ('default', 'io_uring')
GET_FILE = 'big.bin'
READ_SIZE = 4096
CMD_TIMEOUT = 60
LAST_RUN = os.path.join(HERE, 'identity-last-run.md')
SESSION_FLAG_IS_GUEST, SESSION_FLAG_IS_NULL = 0x1, 0x2


def say(msg):
    print('[%s] %s' % (time.strftime('%H:%M:%S'), msg), file=sys.stderr,
          flush=True)


def csv(choices):
    def parse(text):
        vals = [v for v in text.split(',') if v]
        if not vals or any(v not in choices for v in vals):
            raise argparse.ArgumentTypeError('choose from %s' %
                                             ','.join(choices))
        return vals
    return parse


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--before', required=True, help='smbd without identity')
    ap.add_argument('--after', required=True, help='smbd with identity')
    ap.add_argument('--runs', type=int, default=3,
                    help='measured runs per binary, op and vfs (default 3)')
    ap.add_argument('--size-mib', type=int, default=512,
                    help='get and put file size (default 512)')
    ap.add_argument('--ops', type=csv(OPS), default=list(OPS),
                    help='default get,put,read4k')
    ap.add_argument('--vfs', type=csv(VFS), default=list(VFS),
                    help='share stacks: default (no vfs objects) and/or '
                    'io_uring (default both)')
    ap.add_argument('--reads', type=int, default=20000,
                    help='4 KiB READs per user and run (default 20000)')
    ap.add_argument('--depth', type=int, default=32)
    ap.add_argument('--dir', default='/dev/shm')
    ap.add_argument('--proto', default='SMB3_11', help='smbclient -m')
    ap.add_argument('--timeout', type=int, default=600,
                    help='seconds allowed for one run of the clients')
    ap.add_argument('--out', default=LAST_RUN,
                    help='report file (default %s)' % os.path.relpath(
                        LAST_RUN))
    ap.add_argument('--worker', help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if not 1 <= a.runs <= 100 or not 1 <= a.size_mib <= 65536:
        ap.error('--runs 1..100, --size-mib 1..65536')
    if not 1 <= a.depth <= 256 or not 1 <= a.reads <= 10 ** 7:
        ap.error('--depth 1..256, --reads 1..10000000')
    for side in SIDES:
        path = os.path.abspath(getattr(a, side))
        if not os.access(path, os.X_OK):
            ap.error('--%s %s is not an executable' % (side, path))
        setattr(a, side, path)
    return a


# ------------------------------------------------------------ read4k worker

def secbuf(r):
    """The security buffer of a SESSION_SETUP response."""
    off, ln = r.u16(4), r.u16(6)
    return r.pdu[off:off + ln]


def user_logon(c, user, password):
    """NTLMv2 in SPNEGO (pyspnego) on a rawsmb connection; unsigned."""
    ctx = spnego.client(user, password, hostname='127.0.0.1',
                        service='cifs', protocol='negotiate')
    token = None
    for _ in range(4):
        out = ctx.step(token)
        if not out:
            break
        r = c.request('SESSION_SETUP', rawsmb.session_setup_body(out),
                      timeout=30)
        if not c.session_id:
            c.session_id = r.session_id
        token = secbuf(r)
        if r.status == rawsmb.STATUS['STATUS_MORE_PROCESSING_REQUIRED']:
            continue
        c.expect(r)
        if token and not ctx.complete:
            ctx.step(token)     # the server's mechListMIC
        flags = r.u16(2)
        if flags & (SESSION_FLAG_IS_GUEST | SESSION_FLAG_IS_NULL):
            raise RuntimeError('%s logged on as guest/anonymous (session '
                               'flags 0x%x)' % (user, flags))
        return
    raise RuntimeError('SESSION_SETUP for %s did not complete' % user)


def worker(spec):
    """One user's 4 KiB READs; prints 'ready', waits for 'go' on stdin,
    prints 'done READS START END' (CLOCK_MONOTONIC, shared by processes)."""
    w = json.loads(spec)
    c = rawsmb.Conn('127.0.0.1', w['port'], timeout=30)
    c.negotiate(dialects=[rawsmb.D311])
    user_logon(c, w['user'], w['password'])
    c.tree_connect('share')
    fid = c.create(GET_FILE, desired_access=0x00120089)
    with open(w['path'], 'rb') as f:
        data = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    nblocks = len(data) // READ_SIZE
    block = w['first_block'] % nblocks
    print('ready', flush=True)
    if sys.stdin.readline().strip() != 'go':
        return 1
    done, depth, reads = 0, w['depth'], w['reads']
    t0 = time.monotonic()
    while done < reads:
        n = min(depth, reads - done)
        frames, want = [], {}
        for _ in range(n):
            off = (block % nblocks) * READ_SIZE
            block += 1
            pdu = c.pdu('READ', rawsmb.read_body(file_id=fid, offset=off,
                                                 length=READ_SIZE))
            want[int.from_bytes(pdu[24:32], 'little')] = off
            frames.append(rawsmb.nbt(pdu))
        c.send(b''.join(frames))
        got = 0
        while got < n:
            for r in c.recv():
                c.expect(r)
                off = want.pop(r.message_id)
                body_off = r.u8(2) - 64
                if r.body[body_off:body_off + r.u32(4)] != \
                        data[off:off + READ_SIZE]:
                    raise RuntimeError('READ at %d: wrong bytes' % off)
                got += 1
        done += n
    t1 = time.monotonic()
    print('done %d %.6f %.6f' % (done, t0, t1), flush=True)
    c.close_file(fid)
    c.close()
    return 0


# ------------------------------------------------------------------ setup

def run(argv, data=None, check=True):
    p = subprocess.run(argv, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=CMD_TIMEOUT)
    out = p.stdout.decode(errors='replace').strip()
    if check and p.returncode != 0:
        raise RuntimeError('%s failed: %s' % (' '.join(argv[:2]), out))
    return p.returncode, out


def ensure_users(created):
    """The two accounts; appends the names this run creates to created."""
    for user, _ in USERS:
        if run(['id', '-u', user], check=False)[0] != 0:
            run(['useradd', '-M', '-s', '/usr/sbin/nologin', user])
            created.append(user)


def remove_users(names):
    for user in names:
        try:
            rc, out = run(['userdel', user], check=False)
            if rc != 0:
                say('userdel %s: %s' % (user, out))
        except (OSError, subprocess.TimeoutExpired) as e:
            say('userdel %s: %s' % (user, e))


def tool(smbd, name):
    """smbpasswd/testparm built with this smbd: next to it (bin/) or in
    ../utils (a waf build tree: build/source3/{smbd,utils})."""
    d = os.path.dirname(smbd)
    for cand in (os.path.join(d, name),
                 os.path.join(os.path.dirname(d), 'utils', name)):
        if os.access(cand, os.X_OK):
            return cand
    raise SystemExit('identity: no %s next to %s (nor in ../utils)' %
                     (name, smbd))


def global_lines(d, port):
    return [('smb ports', str(port)), ('interfaces', '127.0.0.1'),
            ('bind interfaces only', 'yes'),
            ('smb passwd file', os.path.join(d, 'smbpasswd')),
            ('pid directory', d), ('lock directory', d), ('private dir', d),
            ('log level', '0'), ('server signing', 'auto')]


def share_lines(share, vfs):
    lines = [('path', share), ('read only', 'no')]
    if vfs != 'default':
        lines.append(('vfs objects', vfs))
    return lines


def write_conf(path, glob, shr, drop):
    with open(path, 'w') as f:
        f.write('[global]\n')
        f.writelines('%s = %s\n' % kv for kv in glob if kv[0] not in drop)
        f.write('[share]\n')
        f.writelines('%s = %s\n' % kv for kv in shr if kv[0] not in drop)


def git_rev(smbd):
    d = os.path.dirname(os.path.realpath(smbd))
    try:
        rev = subprocess.run(['git', '-C', d, 'rev-parse', '--short',
                              'HEAD'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=CMD_TIMEOUT,
                             text=True).stdout.strip()
        top = subprocess.run(['git', '-C', d, 'rev-parse',
                              '--show-toplevel'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=CMD_TIMEOUT,
                             text=True).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return '?'
    return '%s (%s)' % (rev, top) if rev else '?'


class Side:
    """One binary: its tools, passdb and configuration directory."""

    def __init__(self, name, smbd, tmp):
        self.name, self.smbd = name, smbd
        self.smbpasswd = tool(smbd, 'smbpasswd')
        self.testparm = tool(smbd, 'testparm')
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)

    def unknown_params(self, conf):
        rc, out = run([self.testparm, '-s', conf], check=False)
        bad = set()
        for line in out.splitlines():
            if 'unknown parameter "' in line:
                bad.add(line.split('unknown parameter "', 1)[1]
                        .split('"', 1)[0].lower())
        return bad

    def add_users(self, conf):
        for user, pw in USERS:
            run([self.smbpasswd, '-c', conf, '-s', '-a', user],
                ('%s\n%s\n' % (pw, pw)).encode())

    def start(self, share, vfs, drop):
        port = servers.free_port()
        conf = os.path.join(self.dir, 'smb-%s.conf' % vfs)
        write_conf(conf, global_lines(self.dir, port),
                   share_lines(share, vfs), drop)
        log = os.path.join(self.dir, 'server-%s.log' % vfs)
        with open(log, 'wb') as out:
            proc = subprocess.Popen([self.smbd, '-F', '--debug-stdout', '-s',
                                     conf], stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        cfg = servers.Config(self.name, 'ringsmb', self.name)
        server = servers.Server(cfg, port, proc, log)
        try:
            servers.wait_port(port, proc)
        except RuntimeError as e:
            server.stop()
            raise RuntimeError('%s: %s; log: %s' % (self.name, e,
                                                    server.log_tail(5)))
        except BaseException:
            server.stop()
            raise
        return server


# ------------------------------------------------------------------ bench

class Bench:

    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        self.share = os.path.join(tmp, 'share')
        self.size = a.size_mib << 20
        self.put_src = os.path.join(tmp, 'put-src.bin')
        self.sides = {s: Side(s, getattr(a, s), tmp) for s in SIDES}
        self.results = {}   # (vfs, op, side) -> [sample]
        self.errors = {}    # (vfs, op, side) -> first error
        self.owners = {}    # (vfs, side) -> set of put file owners
        self.notes, self.drop = [], set()

    # -- setup
    def prepare(self):
        os.chmod(self.tmp, 0o755)
        os.makedirs(self.share)
        os.chmod(self.share, 0o1777)
        need = self.size * (4 if 'put' in self.a.ops else 1) + (256 << 20)
        st = os.statvfs(self.tmp)
        if st.f_bavail * st.f_frsize < need:
            raise SystemExit('identity: %s has %d MiB free, needs %d MiB' %
                             (self.a.dir, st.f_bavail * st.f_frsize >> 20,
                              need >> 20))
        chunk = os.urandom(1 << 20)
        paths = [os.path.join(self.share, GET_FILE)]
        if 'put' in self.a.ops:
            paths.append(self.put_src)
        for path in paths:
            with open(path, 'wb') as f:
                for _ in range(self.a.size_mib):
                    f.write(chunk)
            os.chmod(path, 0o644)
        # the configuration both testparms accept, then the passdbs
        for side in self.sides.values():
            conf = os.path.join(side.dir, 'check.conf')
            for vfs in self.a.vfs:
                write_conf(conf, global_lines(side.dir, 1),
                           share_lines(self.share, vfs), set())
                self.drop |= side.unknown_params(conf)
        for p in sorted(self.drop):
            self.notes.append('`%s` is unknown to one of the binaries '
                              '(testparm): left out of both '
                              'configurations.' % p)
        for side in self.sides.values():
            conf = os.path.join(side.dir, 'passdb.conf')
            write_conf(conf, global_lines(side.dir, 1),
                       share_lines(self.share, 'default'), self.drop)
            side.add_users(conf)

    # -- one run of each op
    def smbclient(self, server, user, pw, cmd):
        return ['smbclient', '//127.0.0.1/share', '-p', str(server.port),
                '-U', '%s%%%s' % (user, pw), '-m', self.a.proto, '-c', cmd]

    def run_smbclients(self, server, op):
        tag = '%s-%s' % (server.cfg.name, op)
        logs = [os.path.join(self.tmp, 'client-%s-%s.log' % (tag, u))
                for u, _ in USERS]
        if op == 'get':
            targets = []
            argvs = [self.smbclient(server, u, pw,
                                    'get %s /dev/null' % GET_FILE)
                     for u, pw in USERS]
        else:
            names = ['put-%s.bin' % u for u, _ in USERS]
            targets = [os.path.join(self.share, n) for n in names]
            argvs = [self.smbclient(server, u, pw, 'put %s %s' %
                                    (self.put_src, n))
                     for (u, pw), n in zip(USERS, names)]
        remove(targets)
        kids = server.descendants()
        cpu0 = server.cpu()
        try:
            wall, _ = clients.run_clients(argvs, logs, self.a.timeout)
            server.settle(kids)
            cpu1 = server.cpu()
            owners = set()
            for i, log in enumerate(logs):
                if op == 'get':
                    clients.check_get(log, self.size)
                else:
                    clients.check_put(log, targets[i], self.size, False)
                    owners.add(owner(targets[i]))
        finally:
            remove(targets)
        gib = len(USERS) * self.size / 2**30
        return {'rate': gib * 1024 / wall, 'cpu': (cpu1 - cpu0) / gib,
                'wall': wall}, owners

    def run_read4k(self, server):
        procs = []
        try:
            for i, (user, pw) in enumerate(USERS):
                spec = json.dumps({
                    'port': server.port, 'user': user, 'password': pw,
                    'path': os.path.join(self.share, GET_FILE),
                    'reads': self.a.reads, 'depth': self.a.depth,
                    'first_block': i * (self.size // READ_SIZE //
                                        len(USERS))})
                procs.append(subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), '--before',
                     self.a.before, '--after', self.a.after, '--worker',
                     spec], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True))
            deadline = time.monotonic() + self.a.timeout
            for p in procs:
                expect_line(p, 'ready', deadline)
            kids = server.descendants()
            cpu0 = server.cpu()
            for p in procs:
                p.stdin.write('go\n')
                p.stdin.flush()
            spans, total = [], 0
            for p in procs:
                words = expect_line(p, 'done', deadline).split()
                total += int(words[1])
                spans.append((float(words[2]), float(words[3])))
            server.settle(kids)
            cpu1 = server.cpu()
            for p in procs:
                p.stdin.close()
                p.wait(max(1, deadline - time.monotonic()))
                if p.returncode != 0:
                    raise RuntimeError('read4k worker exited %d: %s' %
                                       (p.returncode, p.stderr.read()[-400:]))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait(10)
                for f in (p.stdin, p.stdout, p.stderr):
                    try:
                        f.close()
                    except OSError:
                        pass
        wall = max(e for _, e in spans) - min(s for s, _ in spans)
        if total != len(USERS) * self.a.reads:
            raise RuntimeError('%d READs of %d' % (total,
                                                   len(USERS) * self.a.reads))
        return {'rate': total / wall, 'cpu': (cpu1 - cpu0) / total * 1e6,
                'wall': wall}

    def one_run(self, server, vfs, op, which):
        key = (vfs, op, server.cfg.name)
        if not server.alive():
            self.errors.setdefault(key, 'server exited: %s' %
                                   server.log_tail(3))
            return
        try:
            if op == 'read4k':
                s = self.run_read4k(server)
            else:
                s, owners = self.run_smbclients(server, op)
                self.owners.setdefault((vfs, server.cfg.name),
                                       set()).update(owners)
        except (RuntimeError, TimeoutError, OSError, ValueError,
                subprocess.SubprocessError) as e:
            self.errors.setdefault(key, str(e)[:400])
            say('%s %s %s run %s FAILED: %s' % (vfs, op, server.cfg.name,
                                                which, e))
            return
        self.results.setdefault(key, []).append(s)
        unit = UNITS[op]
        say('%s %s %s run %s: %.0f %s, server %.3f %s' % (
            vfs, op, server.cfg.name, which, s['rate'], unit[0], s['cpu'],
            unit[1]))

    def one_vfs(self, vfs):
        live = {}
        try:
            for name, side in self.sides.items():
                try:
                    live[name] = side.start(self.share, vfs, self.drop)
                    warm, _ = self.run_smbclients(live[name], 'get')
                    say('%s %s: port %d, warm-up get %.0f MiB/s' %
                        (vfs, name, live[name].port, warm['rate']))
                except (RuntimeError, TimeoutError, OSError,
                        subprocess.SubprocessError) as e:
                    say('%s %s: start/warm-up failed: %s' % (vfs, name, e))
                    for op in self.a.ops:
                        self.errors.setdefault((vfs, op, name),
                                               'start/warm-up: %s' % e)
                    if name in live:
                        live.pop(name).stop()
            for op in self.a.ops:
                for r in range(self.a.runs):
                    for name in SIDES:
                        if name in live:
                            self.one_run(live[name], vfs, op, '%d/%d' %
                                         (r + 1, self.a.runs))
        finally:
            for s in live.values():
                try:
                    s.stop()
                except (OSError, subprocess.SubprocessError) as e:
                    say('stopping %s: %s' % (s.cfg.name, e))

    def run(self):
        t0 = time.monotonic()
        self.load0 = os.getloadavg()
        self.prepare()
        for vfs in self.a.vfs:
            self.one_vfs(vfs)
        self.minutes = (time.monotonic() - t0) / 60


UNITS = {'get': ('MiB/s', 'CPU s/GiB'), 'put': ('MiB/s', 'CPU s/GiB'),
         'read4k': ('READs/s', 'CPU us/READ')}


def expect_line(p, word, deadline):
    """The next stdout line of a worker, which must start with word."""
    left = deadline - time.monotonic()
    if left <= 0 or not select.select([p.stdout], [], [], left)[0]:
        raise TimeoutError('read4k worker: no %r in time' % word)
    line = p.stdout.readline()
    if not line.startswith(word):
        p.kill()
        raise RuntimeError('read4k worker: %s' % (
            line.strip() or p.stderr.read()[-400:].strip()))
    return line


def remove(paths):
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def owner(path):
    import pwd
    uid = os.stat(path).st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


# ----------------------------------------------------------------- report

def fmt(x, digits):
    return '—' if x is None else '{:,.{}f}'.format(x, digits)


def median(samples, k):
    return statistics.median(s[k] for s in samples) if samples else None


def render(b):
    a = b.a
    out = ['# Identity on the data path: before/after (`identity.py`)', '',
           '| | |', '|---|---|']
    out += ['| date | %s |' % time.strftime('%Y-%m-%d %H:%M %Z'),
            '| CPUs (nproc) | %d |' % os.cpu_count(),
            '| kernel | %s |' % os.uname().release,
            '| load average at start / end | %.2f %.2f %.2f / '
            '%.2f %.2f %.2f |' % (b.load0 + os.getloadavg())]
    for name, side in b.sides.items():
        out.append('| %s | `%s`, git %s |' % (name, side.smbd,
                                               git_rev(side.smbd)))
    out += ['', '## Settings', '',
            '- command: `%s`' % ' '.join(sys.argv),
            '- both servers: same smb.conf apart from port and paths: '
            '`server signing = auto` (sessions unsigned), log level 0, '
            '`[share]` on a new directory in %s (mode 1777), `read only = '
            'no`; vfs cells: '
            '`default` = no `vfs objects` line, `io_uring` = '
            '`vfs objects = io_uring`' % a.dir,
            '- users: %s, two at once in every run (Unix accounts, each '
            'binary\'s own passdb)' % ', '.join(u for u, _ in USERS),
            '- get: both users `smbclient -m %s -c \'get %s /dev/null\'` '
            'of the same %d MiB file; put: both users put a %d MiB file '
            'from %s to their own names, sizes checked; MiB/s = both '
            'users\' bytes / wall time from starting the two smbclients '
            'until the last exited' % (a.proto, GET_FILE, a.size_mib,
                                       a.size_mib, a.dir),
            '- read4k: per user one raw SMB 3.1.1 connection with an '
            'NTLMv2 user session (rawsmb framing, pyspnego tokens; '
            'neither guest nor anonymous, unsigned), %d READs of 4 KiB at '
            'queue depth %d, every answer checked against the file; '
            'READs/s = both users\' READs / wall time from the first READ '
            'sent to the last answer' % (a.reads, a.depth),
            '- server CPU: utime+stime of the server\'s process tree from '
            '/proc (resolution one clock tick, 10 ms), per GiB moved '
            '(get, put) or per READ (read4k)',
            '- %d measured run(s) per binary, op and vfs after one warm-up '
            'get (both users) per server; runs alternate before, after, '
            'before, after...; medians; ratio = after median / before '
            'median (MiB/s, READs/s: below 1 is slower; CPU: above 1 is '
            'more CPU)' % a.runs]
    for (vfs, side), names in sorted(b.owners.items()):
        b.notes.append('%s, vfs %s: put files on disk owned by %s' % (
            side, vfs, ', '.join(sorted(names))))
    if b.notes:
        out += ['', '## Notes', ''] + ['- %s' % n for n in b.notes]
    for vfs in a.vfs:
        for op in a.ops:
            rate_u, cpu_u = UNITS[op]
            what = ('%d MiB per user' % a.size_mib if op != 'read4k' else
                    '%d READs per user, depth %d' % (a.reads, a.depth))
            out += ['', '## %s, vfs %s (2 users at once, %s)' % (
                op, vfs, what), '',
                '| metric | before | after | after/before | before runs '
                '| after runs |', '|---|---:|---:|---:|---|---|']
            res = {s: b.results.get((vfs, op, s), []) for s in SIDES}
            for k, label, digits in (('rate', rate_u, 0),
                                     ('cpu', 'server ' + cpu_u, 3)):
                med = {s: median(res[s], k) for s in SIDES}
                ratio = med['after'] / med['before'] \
                    if med['after'] is not None and med['before'] else None
                out.append('| %s | %s | %s | %s | %s | %s |' % (
                    label, fmt(med['before'], digits),
                    fmt(med['after'], digits), fmt(ratio, 3),
                    ', '.join(fmt(x[k], digits) for x in res['before']),
                    ', '.join(fmt(x[k], digits) for x in res['after'])))
            for s in SIDES:
                err = b.errors.get((vfs, op, s))
                if err:
                    out.append('\n%s: a run failed: %s' % (
                        s, ' '.join(err.replace('|', '/').split())[:300]))
    out += ['', 'The whole run took %.1f minutes.' % b.minutes, '']
    return '\n'.join(out)


def on_signal(signum, frame):
    raise SystemExit(128 + signum)


def main():
    a = parse_args()
    if a.worker:
        return worker(a.worker)
    if os.geteuid() != 0:
        raise SystemExit('identity: needs root (useradd, and smbd switches '
                         'to each user only as root)')
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    created, tmp = [], None
    try:
        ensure_users(created)
        tmp = tempfile.mkdtemp(prefix='ringsmb-identity-', dir=a.dir)
        b = Bench(a, tmp)
        b.run()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        remove_users(created)
    text = render(b)
    print(text)
    with open(a.out, 'w') as f:
        f.write(text)
    say('report written to %s' % a.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
