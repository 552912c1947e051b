"""T8 / G6: kill -9 durability, and fsync before the reply.

Three server configurations as T8 names them (copy, splice,
io_uring-off), and vfs_io_uring as a fourth (MODES).  In each, 10 times
(short mode) or 50 (long mode):

- 4 threads on one connection write a fresh file (64 MiB; 256 in long
  mode) as 1 MiB WRITEs at random offsets (every 1 MiB slot once, in a
  shuffled order, the data a seeded PRNG's and so known by slot).  A
  slot's (offset, sha256) is logged as acknowledged only once its WRITE
  response arrived, with the full count.
- Meanwhile a second connection renames one 64 KiB file back and forth
  between two names through its open handle (SET_INFO
  FileRenameInformation), and a third creates 64 KiB files, closes them,
  opens each with FILE_DELETE_ON_CLOSE and closes it again.
- After a random number of acknowledged WRITEs (an eighth to three
  quarters of the slots) the main thread SIGKILLs smbd's process group
  with the other threads' requests in flight, then checks the share
  directory on disk, restarts smbd with the same configuration and
  reads every acknowledged slot again over SMB.

Asserted (each failure is a problem; the figures count them):

- every acknowledged WRITE's 1 MiB is on disk and read over SMB with its
  sha256: lost bytes = bytes of acknowledged slots that differ, must be 0;
- rename: exactly one of the two names exists, holding the file's
  64 KiB exactly; when no rename was in flight at the kill it is the name
  the last acknowledged rename gave; when one was, either name;
- delete-on-close: a file whose DELETE_ON_CLOSE open was closed with an
  acknowledged CLOSE is gone; one whose data WRITE was acknowledged but
  whose CLOSE was not is either gone or there with its 64 KiB exactly,
  never partial; a file whose data WRITE was not acknowledged is not
  judged.

Then, per mode, that WRITE_THROUGH and FLUSH replies follow a completed
sync, two ways:

- vfs_error's log (tests/integration/test_faults.py's method and its
  fsyncs() helper): a share with `vfs objects = error`, `error:log` and
  `error:delay`; after each reply the log must hold one more fsync line.
  vfs_error watching pwrite turns splice off on that share, so in the
  splice mode this covers the fsync step after a copied WRITE;
- strace on the plain share: `strace -f -e trace=fsync,fdatasync,splice
  -e inject=fsync,fdatasync:delay_exit=...` attached to smbd; each
  WRITE_THROUGH (1 MiB, spliced in the splice mode: counted by the
  splice(2) calls seen) and each FLUSH must have exactly one fsync, and
  its reply must reach the client at least the injected delay after the
  fsync returned in the kernel (the delay is added at syscall exit, so a
  reply that did not wait for the fsync comes too early).
"""
import hashlib
import logging
import os
import random
import re
import signal
import shutil
import struct
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

from common import StressServer, stop_server
from test_faults import fsyncs
from test_write import RW, SHARE_ALL, Client
from smbprotocol.open import (CreateDisposition, CreateOptions,
                              FilePipePrinterAccessMask as A,
                              ImpersonationLevel, Open,
                              SMB2SetInfoRequest)


MiB = 1 << 20
SMALL = 64 * 1024
WRITERS = 4
SYNC_DELAY_MS = 20          # error:delay and strace's delay_exit
FILE_RENAME_INFORMATION = 10

MODES = (
    ("copy", "default", {},
     "ringsmb's defaults: io_uring on, `smb2 write mode = copy` (the "
     "default), vfs_default"),
    ("splice", "default", {"smb2 write mode": "splice"},
     "`smb2 write mode = splice`, `min splice size` at its default "
     "(64 KiB, so every 1 MiB WRITE of the unsigned guest session is "
     "received socket -> pipe and written pipe -> file), io_uring on, "
     "vfs_default"),
    ("io_uring-off", "no_io_uring", {},
     "`io_uring = no` in [global] and RINGSMB_NO_IO_URING=1 in the "
     "environment (the integration suite's no_io_uring variant): "
     "syscalls only, `smb2 write mode = copy`, vfs_default"),
    # not one of T8's three: the ring's own pwrite and fsync, where an
    # answer sent before the CQE would lose data
    ("vfs_io_uring", "vfs_io_uring", {},
     "not one of T8's three: `vfs objects = io_uring` (file pwrite and "
     "fsync as ring operations; `error io_uring` on the vfs_error share), "
     "io_uring on, `smb2 write mode = copy`; strace cannot see the ring's "
     "fsyncs, so only the vfs_error log checks them"),
)


def slot_data(seed, slot):
    return random.Random(seed * 1000003 + slot).randbytes(MiB)


def small_data(seed, tag):
    return random.Random("%d-%s" % (seed, tag)).randbytes(SMALL)


def sha(b):
    return hashlib.sha256(b).hexdigest()


# ------------------------------------------------------------ SMB helpers

def create(c, name, disp, access=RW, options=0):
    f = Open(c.tree, name)
    f.create(ImpersonationLevel.Impersonation, access, 0, SHARE_ALL, disp,
             CreateOptions.FILE_NON_DIRECTORY_FILE | options)
    return f


def rename(c, f, new):
    n = new.encode("utf-16-le")
    req = SMB2SetInfoRequest()
    req["info_type"] = 1
    req.fields["file_info_class"].enum_strict = False
    req["file_info_class"] = FILE_RENAME_INFORMATION
    req["file_id"] = f.file_id
    req["buffer"] = struct.pack("<B7xQI", 0, 0, len(n)) + n
    sent = c.conn.send(req, c.sess.session_id, c.tree.tree_connect_id)
    c.conn.receive(sent, timeout=60)


def drop(c):
    """Close a client whose server may be dead, without waiting on it."""
    try:
        c.conn.disconnect(False)
    except Exception:                      # noqa: BLE001
        pass


# ------------------------------------------------------------- one kill

class Cycle:
    """What one kill's clients sent and had acknowledged."""

    def __init__(self, index, slots, seed, name):
        self.index, self.seed, self.name = index, seed, name
        self.lock = threading.Lock()
        self.order = random.Random(seed).sample(range(slots), slots)
        self.next = 0
        self.sent, self.acked = set(), {}        # slot -> sha256
        self.errors = Counter()
        self.ren = {"ready": False, "name": None, "pending": False,
                    "acked": 0, "names": ("ren-%d-a.bin" % index,
                                          "ren-%d-b.bin" % index)}
        self.doc = []


def writer(cy, f):
    while True:
        with cy.lock:
            if cy.next >= len(cy.order):
                return
            slot = cy.order[cy.next]
            cy.next += 1
            cy.sent.add(slot)
        data = slot_data(cy.seed, slot)
        try:
            n = f.write(data, slot * MiB)
        except Exception as e:             # noqa: BLE001 (the kill)
            cy.errors["write " + type(e).__name__] += 1
            return
        if n == MiB:
            with cy.lock:
                cy.acked[slot] = sha(data)


def renamer(cy, c):
    r = cy.ren
    cur, other = r["names"]
    try:
        f = create(c, cur, CreateDisposition.FILE_OVERWRITE_IF,
                   RW | A.DELETE)
        f.write(small_data(cy.seed, "ren"), 0)
        r["name"], r["ready"] = cur, True
        while True:
            r["pending"] = True
            rename(c, f, other)
            r["name"], r["pending"] = other, False
            r["acked"] += 1
            cur, other = other, cur
            # now and then idle, so that some kills find no rename in
            # flight and the acknowledged name can be held to
            time.sleep(random.random() * 0.002)
    except Exception as e:                 # noqa: BLE001 (the kill)
        cy.errors["rename " + type(e).__name__] += 1


def deleter(cy, c):
    j = 0
    try:
        while True:
            rec = {"name": "doc-%d-%d.bin" % (cy.index, j), "tag": j,
                   "data": False, "closed": False}
            cy.doc.append(rec)
            f = create(c, rec["name"], CreateDisposition.FILE_OVERWRITE_IF)
            f.write(small_data(cy.seed, j), 0)
            rec["data"] = True
            f.close()
            g = create(c, rec["name"], CreateDisposition.FILE_OPEN,
                       A.DELETE | A.FILE_READ_DATA,
                       CreateOptions.FILE_DELETE_ON_CLOSE)
            g.close()
            rec["closed"] = True
            j += 1
    except Exception as e:                 # noqa: BLE001 (the kill)
        cy.errors["delete " + type(e).__name__] += 1


def start_clients(srv, cy):
    """The three connections and their threads."""
    cw, cr, cd = (Client(srv.port, share="w") for _ in range(3))
    f = create(cw, cy.name, CreateDisposition.FILE_OVERWRITE_IF)
    threads = [threading.Thread(target=writer, args=(cy, f))
               for _ in range(WRITERS)]
    threads += [threading.Thread(target=renamer, args=(cy, cr)),
                threading.Thread(target=deleter, args=(cy, cd))]
    for t in threads:
        t.daemon = True
        t.start()
    return [cw, cr, cd], threads


def kill_when_due(srv, cy, rng):
    """SIGKILL after a random number of acknowledged WRITEs, once the
    rename and delete-on-close loops run; returns the WRITEs in flight."""
    slots = len(cy.order)
    due = rng.randint(max(1, slots // 8), slots * 3 // 4)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with cy.lock:
            n = len(cy.acked)
        if n >= due and cy.ren["ready"] and len(cy.doc) > 1:
            break
        time.sleep(0.001)
    time.sleep(rng.random() * 0.003)
    with cy.lock:
        in_flight = len(cy.sent) - len(cy.acked)
        os.killpg(srv.proc.pid, signal.SIGKILL)
        renaming = cy.ren["pending"]
    srv.proc.wait(30)
    return in_flight, renaming


def one_kill(srv, d, index, rng, slots):
    """One kill: write, kill, check on disk, restart, check over SMB."""
    cy = Cycle(index, slots, rng.getrandbits(32), "dur-%d.bin" % index)
    clients, threads = start_clients(srv, cy)
    in_flight, renaming = kill_when_due(srv, cy, rng)
    for t in threads:
        t.join(30)
    hung = sum(t.is_alive() for t in threads)
    for c in clients:
        drop(c)
    srv._reap()
    res = {"in_flight": in_flight, "acked": len(cy.acked), "hung": hung,
           "errors": dict(cy.errors)}
    res.update(check_file_on_disk(cy, d / cy.name))
    res["rename"] = check_rename(cy, d, renaming)
    res["doc"] = check_doc(cy, d)
    srv.start()
    res.update(check_file_over_smb(srv, cy))
    cleanup(cy, d)
    return res


# ----------------------------------------------------------- the checks

def lost_in(cy, slot, got):
    """Bytes of an acknowledged slot that are not what was written."""
    want = slot_data(cy.seed, slot)
    diff = sum(1 for a, b in zip(got, want) if a != b)
    return diff + MiB - len(got)


def check_file_on_disk(cy, path):
    lost, losses, whole = 0, [], 0
    with open(path, "rb") as fh:
        for slot in sorted(cy.sent):
            fh.seek(slot * MiB)
            got = fh.read(MiB)
            if slot not in cy.acked:
                whole += sha(got) == sha(slot_data(cy.seed, slot))
            elif sha(got) != cy.acked[slot]:
                n = lost_in(cy, slot, got)
                lost += n
                losses.append({"offset": slot * MiB, "bytes": n,
                               "zero": got.count(0)})
    return {"lost_disk": lost, "losses": losses[:10],
            "unacked_whole": whole}


def check_file_over_smb(srv, cy):
    lost, losses = 0, []
    c = Client(srv.port, share="w")
    try:
        f = create(c, cy.name, CreateDisposition.FILE_OPEN, A.FILE_READ_DATA)
        for slot in sorted(cy.acked):
            got = f.read(slot * MiB, MiB)
            if sha(got) != cy.acked[slot]:
                n = lost_in(cy, slot, got)
                lost += n
                losses.append({"offset": slot * MiB, "bytes": n,
                               "over": "smb"})
        f.close()
    finally:
        c.close()
    return {"lost_smb": lost, "losses_smb": losses[:10]}


def check_rename(cy, d, renaming):
    """An outcome name, or 'BAD: ...'."""
    r = cy.ren
    if not r["ready"]:
        return "not started"
    there = [n for n in r["names"] if (d / n).exists()]
    if len(there) != 1:
        return "BAD: names present: %s" % (there or "none")
    name = there[0]
    if (d / name).read_bytes() != small_data(cy.seed, "ren"):
        return "BAD: %s does not hold its 64 KiB" % name
    if renaming:
        return "in flight, %s name" % ("new" if name != r["name"]
                                       else "old")
    if name != r["name"]:
        return "BAD: acknowledged rename to %s undone" % r["name"]
    return "acknowledged, new name"


def check_doc(cy, d):
    """Outcome counts of the delete-on-close files."""
    out = Counter()
    for rec in cy.doc:
        p = d / rec["name"]
        if not rec["data"]:
            out["data not acknowledged (not judged)"] += 1
        elif rec["closed"]:
            out["closed: gone" if not p.exists()
                else "BAD: closed, still there"] += 1
        elif not p.exists():
            out["in flight: gone"] += 1
        elif p.read_bytes() == small_data(cy.seed, rec["tag"]):
            out["in flight: there, intact"] += 1
        else:
            out["BAD: in flight, partial"] += 1
    return dict(out)


def cleanup(cy, d):
    for n in [cy.name] + list(cy.ren["names"]) + [r["name"]
                                                  for r in cy.doc]:
        try:
            (d / n).unlink()
        except FileNotFoundError:
            pass


# ------------------------------------------------- fsync before the reply

def sync_by_log(srv, log, k):
    """K WRITE_THROUGH and K FLUSH on the vfs_error share: the log holds
    one more completed fsync after each reply (and none after a plain
    WRITE)."""
    wt = fl = plain = 0
    with Client(srv.port, share="sync") as c:
        f = create(c, "sync-log.bin", CreateDisposition.FILE_OVERWRITE_IF)
        for i in range(k):
            n0 = fsyncs(log)
            f.write(b"t" * 4096, i * 4096, write_through=True)
            wt += fsyncs(log) == n0 + 1
        for i in range(k):
            n0 = fsyncs(log)
            f.write(b"p" * 4096, i * 4096)
            plain += fsyncs(log) == n0
            f.flush()
            fl += fsyncs(log) == n0 + 1
        f.close()
    return {"write_through": wt, "flush": fl, "plain_unsynced": plain,
            "of": k}


STRACE_LINE = re.compile(
    r"^(\d+)\s+([\d.]+)\s+(?:<\.\.\. )?(fsync|fdatasync|splice)"
    r"(?:\(| resumed>)(.*)$")


def parse_strace(text):
    """[(entry, end)] of the fsyncs, and (calls, bytes) of splice(2)."""
    syncs, begun, splices, spliced = [], {}, 0, 0
    for line in text.splitlines():
        m = STRACE_LINE.match(line)
        if not m:
            continue
        pid, ts, call, rest = m.group(1), float(m.group(2)), m.group(3), \
            m.group(4)
        if rest.endswith("<unfinished ...>"):
            begun[(pid, call)] = ts
            continue
        entry = begun.pop((pid, call), ts)
        dur = re.search(r"<([\d.]+)>$", rest)
        res = re.search(r"\)?\s+=\s+(-?\d+)", rest)
        if call == "splice":
            splices += 1
            spliced += max(int(res.group(1)), 0) if res else 0
        else:
            end = (ts if "resumed" in line else entry) + \
                (float(dur.group(1)) if dur else 0)
            syncs.append((entry, end))
    return sorted(syncs), (splices, spliced)


def traced(pid, out):
    """strace attached to every thread of pid, fsyncs delayed at exit."""
    st = subprocess.Popen(
        ["strace", "-f", "-qq", "-ttt", "-T", "-o", str(out),
         "-e", "trace=fsync,fdatasync,splice",
         "-e", "inject=fsync,fdatasync:delay_exit=%d"
         % (SYNC_DELAY_MS * 1000), "-p", str(pid)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        tasks = os.listdir("/proc/%d/task" % pid)
        if all(tracer(pid, t) for t in tasks):
            return st
        time.sleep(0.05)
    st.kill()
    raise RuntimeError("strace did not attach: %s" % st.stderr.read()[:300])


def tracer(pid, tid):
    with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
        for line in f:
            if line.startswith("TracerPid:"):
                return int(line.split()[1]) != 0
    return False


def sync_by_strace(srv, d, k):
    """K 1 MiB WRITE_THROUGH and K FLUSH on the plain share with smbd
    under strace: one fsync each, the reply at least the injected delay
    after the fsync returned."""
    if not shutil.which("strace"):
        return None
    out = srv.tmp / "strace.out"
    try:
        st = traced(srv.pid, out)
    except RuntimeError as e:          # ptrace not permitted here
        print("  %s" % e)
        return None
    replies = []
    try:
        with Client(srv.port, share="w") as c:
            f = create(c, "sync-strace.bin",
                       CreateDisposition.FILE_OVERWRITE_IF)
            for i in range(k):
                t0 = time.time()
                f.write(slot_data(i, 0), i * MiB, write_through=True)
                replies.append(("write_through", t0, time.time()))
            for i in range(k):
                f.write(b"p" * 4096, i * 4096)
                t0 = time.time()
                f.flush()
                replies.append(("flush", t0, time.time()))
            f.close()
    finally:
        st.send_signal(signal.SIGINT)
        st.wait(30)
    (d / "sync-strace.bin").unlink()
    syncs, (splices, spliced) = parse_strace(out.read_text())
    return judge_strace(replies, syncs, splices, spliced, k)


def judge_strace(replies, syncs, splices, spliced, k):
    ok = Counter()
    delay = SYNC_DELAY_MS / 1000.0
    for kind, t0, t1 in replies:
        mine = [s for s in syncs if t0 - 0.005 <= s[0] <= t1]
        if len(mine) == 1 and t1 >= mine[0][1] + 0.9 * delay:
            ok[kind] += 1
    return {"write_through": ok["write_through"], "flush": ok["flush"],
            "of": k, "fsyncs": len(syncs), "splice_calls": splices,
            "spliced_mib": round(spliced / MiB, 1)}


# ------------------------------------------------------------- the modes

def mode_shares(d, log, variant):
    stack = "error io_uring" if variant == "vfs_io_uring" else "error"
    return [{"name": "w", "path": str(d), "read_only": False},
            {"name": "sync", "path": str(d), "read_only": False,
             "params": {"vfs objects": stack, "error:log": str(log),
                        "error:delay": str(SYNC_DELAY_MS)}}]


def run_mode(tree, binary, mode, kills, slots, k, problems):
    name, variant, extra, _ = mode
    base = Path(tree.base) / ("durability-" + name)
    d = base / "w"
    d.mkdir(parents=True)
    os.chmod(base, 0o755)
    os.chmod(d, 0o777)
    log = base / "sync.log"
    log.write_text("")
    os.chmod(log, 0o666)
    srv = StressServer(tree, binary, variant, extra,
                       mode_shares(d, log, variant)).start()
    rng = random.Random()
    runs = []
    try:
        for i in range(kills):
            runs.append(one_kill(srv, d, i, rng, slots))
        sync_log = sync_by_log(srv, log, k)
        sync_trace = None if variant == "vfs_io_uring" else \
            sync_by_strace(srv, d, k)
    finally:
        stop_server(srv, problems)
        shutil.rmtree(base, ignore_errors=True)
    return summarise(mode, runs, sync_log, sync_trace, problems)


def summarise(mode, runs, sync_log, sync_trace, problems):
    name = mode[0]
    ren, doc, errors = Counter(), Counter(), Counter()
    for r in runs:
        ren[r["rename"]] += 1
        doc.update(r["doc"])
        errors.update(r["errors"])
    f = {"mode": name, "config": mode[3], "kills": len(runs),
         "kills_in_flight": sum(r["in_flight"] > 0 for r in runs),
         "in_flight_max": max((r["in_flight"] for r in runs), default=0),
         "acked_mib": sum(r["acked"] for r in runs),
         "lost_disk": sum(r["lost_disk"] for r in runs),
         "lost_smb": sum(r["lost_smb"] for r in runs),
         "unacked_whole": sum(r["unacked_whole"] for r in runs),
         "hung_threads": sum(r["hung"] for r in runs),
         "rename": dict(ren), "doc": dict(doc), "client_errors": dict(errors),
         "losses": [dict(l, kill=i) for i, r in enumerate(runs)
                    for l in r["losses"] + r["losses_smb"]][:10],
         "sync_log": sync_log, "sync_strace": sync_trace}
    judge(f, problems)
    return f


def judge(f, problems):
    m = f["mode"]
    if f["lost_disk"] or f["lost_smb"]:
        problems.append("%s: %d acknowledged bytes lost on disk, %d over "
                        "SMB: %s" % (m, f["lost_disk"], f["lost_smb"],
                                     f["losses"]))
    for what in ("rename", "doc"):
        bad = {k: v for k, v in f[what].items() if k.startswith("BAD")}
        if bad:
            problems.append("%s: %s: %s" % (m, what, bad))
    if f["hung_threads"]:
        problems.append("%s: %d client threads still waiting 30 s after "
                        "the kill" % (m, f["hung_threads"]))
    for how in ("sync_log", "sync_strace"):
        s = f[how]
        if s is None:
            continue
        for kind in ("write_through", "flush"):
            if s[kind] != s["of"]:
                problems.append("%s: %s: only %d of %d %s replies after a "
                                "completed sync" % (m, how, s[kind],
                                                    s["of"], kind))
    if f["sync_log"]["plain_unsynced"] != f["sync_log"]["of"]:
        problems.append("%s: a plain WRITE fsynced" % m)


def run(tree, long_mode, binary):
    kills = 50 if long_mode else 10
    slots = 256 if long_mode else 64           # the file, in MiB
    k = 200 if long_mode else 50               # sync checks per kind
    problems, modes = [], []
    # each kill makes smbprotocol warn of the reset connections
    logging.getLogger("smbprotocol").setLevel(logging.ERROR)
    for mode in MODES:
        t0 = time.monotonic()
        f = run_mode(tree, binary, mode, kills, slots, k, problems)
        f["seconds"] = round(time.monotonic() - t0, 1)
        modes.append(f)
        print("  %s: %d kills (%d with WRITEs in flight, up to %d), %d MiB "
              "acknowledged, lost %d bytes on disk / %d over SMB; rename "
              "%s; delete-on-close %s; sync (log) WRITE_THROUGH %d/%d "
              "FLUSH %d/%d; %s s"
              % (mode[0], f["kills"], f["kills_in_flight"],
                 f["in_flight_max"], f["acked_mib"], f["lost_disk"],
                 f["lost_smb"], f["rename"], f["doc"],
                 f["sync_log"]["write_through"], f["sync_log"]["of"],
                 f["sync_log"]["flush"], f["sync_log"]["of"], f["seconds"]))
        if f["sync_strace"]:
            print("    strace: %s" % f["sync_strace"])
    fig = {"modes": modes, "kills_per_mode": kills, "file_mib": slots,
           "writers": WRITERS, "sync_k": k, "sync_delay_ms": SYNC_DELAY_MS}
    return fig, problems
