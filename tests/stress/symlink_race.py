"""G10 / RELIABILITY.md item 44: the symlink-swap race.

A local process swaps a directory inside the share, `d`, with a symlink
that leaves the share, and back, as fast as it can: renameat2(2) with
RENAME_EXCHANGE, so `d` always exists and is, at any instant, either the
real directory or one of two symlinks:

    d -> <base>/outside          (outside holds secret.txt)
    d -> /                       (the whole file system)

Meanwhile clients open, read and close, in one related compound each,

    d\\secret.txt                  real d: an inside file; via the first
                                  link: outside/secret.txt
    d\\<path of outside>\\secret.txt   real d: the same path built inside;
                                  via the second link: the outside file

The inside files say INSIDE; the outside ones hold the secret.  An
escape is any READ that returns the secret.  Both kinds of answer must be
seen (inside reads and refusals), or the race did not happen.
"""
import ctypes
import multiprocessing as mp
import os
import struct
import time
from collections import Counter
from pathlib import Path

from common import R, probe, start_server, stop_server

RENAME_EXCHANGE = 2
AT_FDCWD = -100
INSIDE = b"INSIDE: a file in the share, nothing secret\n"
DEPTH = 8            # compounds in flight per connection
CLIENTS = 3          # client processes (one connection each)


def _renameat2():
    libc = ctypes.CDLL(None, use_errno=True)
    fn = libc.renameat2
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                   ctypes.c_char_p, ctypes.c_uint]
    return fn


def swapper(d, stages, deadline, stop, counter):
    """Exchange d with each stage entry and back until told to stop."""
    exch = _renameat2()
    d = os.fsencode(d)
    stages = [os.fsencode(s) for s in stages]
    n = 0
    while not stop.is_set() and time.monotonic() < deadline:
        for s in stages:
            for _ in range(2):
                if exch(AT_FDCWD, d, AT_FDCWD, s, RENAME_EXCHANGE) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, "renameat2: %s" % os.strerror(err))
                n += 1
    counter.value = n


class Layout:
    """<base>/share/d (real), <base>/outside/secret.txt, two staged
    symlinks outside the share."""

    def __init__(self, tree, secret):
        self.base = tree.base
        self.secret = secret
        self.d = tree.share / "d"
        self.outside = tree.base / "outside"
        self.stage_out = tree.base / "stage-out"
        self.stage_root = tree.base / "stage-root"

    def build(self):
        self.outside.mkdir()
        (self.outside / "secret.txt").write_bytes(self.secret)
        self.d.mkdir()
        (self.d / "secret.txt").write_bytes(INSIDE)
        # the outside file's absolute path, rebuilt inside the real d
        rel = self.outside.relative_to("/")
        inner = self.d / rel
        inner.mkdir(parents=True)
        (inner / "secret.txt").write_bytes(INSIDE)
        os.symlink(str(self.outside), self.stage_out)
        os.symlink("/", self.stage_root)
        for root, dirs, files in os.walk(self.base):
            for x in dirs:
                os.chmod(os.path.join(root, x), 0o755)
            for x in files:
                os.chmod(os.path.join(root, x), 0o644)
        self.paths = ["d\\secret.txt",
                      "d\\" + "\\".join(rel.parts) + "\\secret.txt"]

    def restore(self):
        """After the run d must be the real directory again."""
        if self.d.is_symlink():
            for s in (self.stage_out, self.stage_root):
                if not s.is_symlink():
                    exch = _renameat2()
                    exch(AT_FDCWD, os.fsencode(self.d), AT_FDCWD,
                         os.fsencode(s), RENAME_EXCHANGE)


def compound(conn, name):
    """CREATE name + related READ + related CLOSE, one NBT frame."""
    parts = []
    bodies = [("CREATE", R.create_body(name)),
              ("READ", R.read_body(file_id=R.RELATED_FID, length=4096)),
              ("CLOSE", R.body_for("CLOSE", file_id=R.RELATED_FID))]
    for i, (cmd, body) in enumerate(bodies):
        flags = R.FLAG_RELATED if i else 0
        p = conn.pdu(cmd, body, flags=flags)
        if i != len(bodies) - 1:
            p += b"\0" * R.pad8(len(p))
            p = p[:20] + struct.pack("<I", len(p)) + p[24:]
        parts.append(p)
    return R.nbt(b"".join(parts))


def client(port, paths, secret, deadline, max_attempts, out):
    """One connection, DEPTH compounds in flight, until the deadline or
    max_attempts.  Puts its counters on out."""
    res = Counter()
    escapes = []
    try:
        with R.Conn("127.0.0.1", port, timeout=10) as c:
            c.negotiate()
            c.session_setup_anonymous()
            c.tree_connect("share")
            i = 0
            while time.monotonic() < deadline and \
                    res["attempts"] < max_attempts:
                batch = b"".join(compound(c, paths[(i + k) % len(paths)])
                                 for k in range(DEPTH))
                c.send(batch)
                for k in range(DEPTH):
                    rs = c.recv()
                    create, read = rs[0], rs[1]
                    res["attempts"] += 1
                    if create.status != 0:
                        res["refused " + create.status_name] += 1
                        continue
                    off = read.u8(2) - 64
                    data = read.body[off:off + read.u32(4)] \
                        if read.status == 0 else b""
                    if data == INSIDE:
                        res["inside read"] += 1
                    elif data == secret or secret[:16] in data:
                        res["ESCAPE"] += 1
                        escapes.append(paths[(i + k) % len(paths)])
                    else:
                        res["other " + read.status_name] += 1
                i += DEPTH
    except Exception as e:                 # noqa: BLE001
        res["client error %s: %s" % (type(e).__name__, e)] += 1
    out.put((dict(res), escapes[:10]))


def run_variant(tree, binary, variant, seconds, max_attempts, secret,
                layout):
    problems = []
    srv = start_server(tree, binary, variant)
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    swaps = ctx.Value("q", 0)
    out = ctx.Queue()
    t0 = time.monotonic()
    deadline = t0 + seconds
    sw = ctx.Process(target=swapper, args=(
        str(layout.d), [str(layout.stage_out), str(layout.stage_root)],
        deadline + 5, stop, swaps))
    sw.start()
    per_client = -(-max_attempts // CLIENTS)
    cl = [ctx.Process(target=client, args=(
        srv.port, layout.paths, secret, deadline, per_client, out))
        for _ in range(CLIENTS)]
    for p in cl:
        p.start()
    total = Counter()
    escapes = []
    for _ in cl:
        res, esc = out.get(timeout=seconds + 120)
        total.update(res)
        escapes += esc
    for p in cl:
        p.join(30)
    elapsed = time.monotonic() - t0
    stop.set()
    sw.join(30)
    if sw.exitcode != 0:
        problems.append("swapper exited with %s" % sw.exitcode)
    layout.restore()
    if not srv.alive():
        problems.append("server died during the race")
    else:
        err = probe(srv.port, tree)
        if err:
            problems.append(err)
    stop_server(srv, problems)
    attempts = total["attempts"]
    refused = sum(v for k, v in total.items() if k.startswith("refused"))
    fig = {
        "variant": variant, "attempts": attempts,
        "escapes": total["ESCAPE"], "inside_reads": total["inside read"],
        "refused": refused, "seconds": round(elapsed, 1),
        "rate": round(attempts / elapsed) if elapsed else 0,
        "swaps": swaps.value,
        "answers": {k: v for k, v in total.items()
                    if k.startswith(("refused", "other", "client error"))},
    }
    if total["ESCAPE"]:
        problems.append("%d ESCAPES (%s): %s" % (total["ESCAPE"], variant,
                                                 escapes))
    errs = [k for k in total if k.startswith("client error")]
    if errs:
        problems.append("client errors (%s): %s" % (variant, errs))
    if not total["inside read"] or not refused:
        problems.append("race not exercised (%s): %d inside reads, %d "
                        "refusals" % (variant, total["inside read"], refused))
    return fig, problems


def run(tree, long_mode, binary):
    from conftest import SECRET_DATA
    layout = Layout(tree, SECRET_DATA)
    layout.build()
    # short: ~2 minutes in all; long: 5 minutes per variant, which must
    # reach G10's 100,000 attempts each
    seconds = 300 if long_mode else 60
    max_attempts = 10 ** 9
    figs, problems = [], []
    for variant in ("default", "no_io_uring"):
        print("  symlink race, io_uring %s: %s s"
              % ("off" if variant == "no_io_uring" else "on", seconds))
        fig, p = run_variant(tree, binary, variant, seconds, max_attempts,
                             SECRET_DATA, layout)
        print("    %(attempts)d attempts in %(seconds)s s (%(rate)d/s), "
              "%(escapes)d escapes, %(inside_reads)d inside reads, "
              "%(refused)d refused, %(swaps)d swaps" % fig)
        print("    answers: %s" % fig["answers"])
        figs.append(fig)
        problems += p
        if long_mode and fig["attempts"] < 100000:
            problems.append("only %d attempts with io_uring %s (G10: "
                            "100,000)" % (fig["attempts"], variant))
    return {"variants": figs,
            "attempts": sum(f["attempts"] for f in figs),
            "escapes": sum(f["escapes"] for f in figs)}, problems
