"""RELIABILITY.md item 41 under the ASan+UBSan build: the two sides of a
race sent at once from two connections bound to one user session
(SMB 3.0.2 multichannel, signed; the Channel client of
tests/integration/test_multichannel.py):

    close_read     CLOSE of a handle on one channel, 4 READs of it on
                   the other
    tdis_create    TREE_DISCONNECT on one channel, 2 CREATEs in that tree
                   on the other; then the file must open exclusively
                   again (an open made in the race went with the tree)
    logoff_bind    LOGOFF on the first channel, the second leg of a
                   binding SESSION_SETUP on a new one; then the session
                   must be gone on the new channel too

Asserted: every request is answered (or its connection closed), the
answers are among the expected statuses, the server stays up, its log
has no sanitizer report, and the health probe passes after each race.
"""
import os
import random
import shutil
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from common import R, probe, start_server, stop_server

import accounts                                           # noqa: E402
import test_multichannel as MC                           # noqa: E402
from test_session import ALICE, USERS, ntlm_token         # noqa: E402

OK = R.STATUS["STATUS_SUCCESS"]
S = R.STATUS


class Unanswered(Exception):
    pass


def send_signed(ch, command, body, **hdr):
    p = ch.pdu(command, body, **hdr)
    mid = int.from_bytes(p[24:32], "little")
    ch.send(R.nbt(MC.sign(ch.key, p) if ch.key else p))
    return mid


def collect(ch, mids, timeout=30):
    """Statuses of the answers to mids (any order); 'closed' for all of
    them when the connection closes; Unanswered on a timeout."""
    got = {}
    try:
        while len(got) < len(mids):
            for r in ch.recv(timeout):
                got[r.message_id] = r
    except R.Disconnected:
        return {m: got.get(m) for m in mids}, True
    except R.NoResponse:
        raise Unanswered("no answer to %s within %d s"
                         % ([m for m in mids if m not in got], timeout))
    return got, False


def both(fa, fb):
    """Run fa and fb in two threads released together; returns their
    results (or raises the first exception)."""
    bar = threading.Barrier(2)
    res = [None, None]
    err = []

    def go(i, f):
        try:
            bar.wait(10)
            if i and random.random() < 0.5:
                time.sleep(random.random() * 0.002)
            res[i] = f()
        except Exception as e:             # noqa: BLE001
            err.append(e)

    ts = [threading.Thread(target=go, args=(i, f))
          for i, f in enumerate((fa, fb))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    if err:
        raise err[0]
    return res


def name_of(r):
    return "closed" if r is None else r.status_name.replace("STATUS_", "")


def pair(port):
    a = MC.Channel(port)
    a.login(ALICE)
    b = MC.Channel(port)
    b.expect(b.bind(a))
    return a, b


def open_data(ch, share_access=7):
    r = ch.call("CREATE", R.create_body("data.txt", disposition=1,
                                        share_access=share_access,
                                        desired_access=0x0012019F))
    return r


# ------------------------------------------------------------- the races

def race_close_read(state, tally):
    a, b = state.setdefault("pair", None) or pair(state["port"])
    state["pair"] = (a, b)
    r = open_data(a)
    a.expect(r)
    fid = MC.file_id(r)

    def reader():
        mids = [send_signed(b, "READ", R.read_body(file_id=fid, length=17))
                for _ in range(4)]
        return collect(b, mids)

    def closer():
        return collect(a, [send_signed(a, "CLOSE", R.body_for(
            "CLOSE", file_id=fid))])

    (reads, rclosed), (closes, cclosed) = both(reader, closer)
    for r in reads.values():
        tally["READ " + name_of(r)] += 1
        if r is not None and r.status not in (OK, S["STATUS_FILE_CLOSED"]):
            state["bad"].append("READ answered %s" % r.status_name)
    for r in closes.values():
        tally["CLOSE " + name_of(r)] += 1
        if r is not None and r.status != OK:
            state["bad"].append("CLOSE answered %s" % r.status_name)
    if rclosed or cclosed:
        state["pair"] = None


def race_tdis_create(state, tally):
    a, b = state.setdefault("pair", None) or pair(state["port"])
    state["pair"] = (a, b)
    r = a.call("TREE_CONNECT", R.tree_connect_body("\\\\127.0.0.1\\rw"))
    a.expect(r)
    a.tree_id = b.tree_id = r.tree_id
    # nothing left open by the previous iteration: an exclusive open works
    r = open_data(a, share_access=0)
    if r.status != OK:
        state["bad"].append("exclusive open after the race: %s"
                            % r.status_name)
    else:
        a.expect(a.call("CLOSE", R.body_for("CLOSE",
                                            file_id=MC.file_id(r))))

    def creator():
        mids = [send_signed(b, "CREATE", R.create_body(
            "data.txt", disposition=1, desired_access=0x0012019F))
            for _ in range(2)]
        return collect(b, mids)

    def disconnector():
        return collect(a, [send_signed(a, "TREE_DISCONNECT",
                                       R.body_for("TREE_DISCONNECT"))])

    (creates, c1), (tdis, c2) = both(creator, disconnector)
    for r in creates.values():
        tally["CREATE " + name_of(r)] += 1
        if r is not None and r.status not in (
                OK, S["STATUS_NETWORK_NAME_DELETED"]):
            state["bad"].append("CREATE answered %s" % r.status_name)
    for r in tdis.values():
        tally["TREE_DISCONNECT " + name_of(r)] += 1
        if r is not None and r.status != OK:
            state["bad"].append("TREE_DISCONNECT answered %s"
                                % r.status_name)
    if c1 or c2:
        state["pair"] = None


def race_logoff_bind(state, tally):
    import spnego
    port = state["port"]
    with MC.Channel(port) as a, MC.Channel(port) as b:
        a.login(ALICE)
        ctx = spnego.client(ALICE, USERS[ALICE], hostname="127.0.0.1",
                            service="cifs", protocol="ntlm",
                            options=spnego.NegotiateOptions.session_key)
        r = b.call("SESSION_SETUP", R.session_setup_body(
            R.spnego_init(ctx.step()), flags=MC.FLAG_BINDING), key=a.key,
            session_id=a.session_id)
        b.expect(r, "STATUS_MORE_PROCESSING_REQUIRED")
        blob = r.body[r.u16(4) - 64:][:r.u16(6)]
        tok = ctx.step(ntlm_token(blob))
        b.session_id = a.session_id
        b.key = a.key

        def binder():
            return collect(b, [send_signed(b, "SESSION_SETUP",
                                           R.session_setup_body(
                                               R.spnego_resp(tok),
                                               flags=MC.FLAG_BINDING))])

        def logoff():
            return collect(a, [send_signed(a, "LOGOFF",
                                           R.body_for("LOGOFF"))])

        (binds, c1), (offs, c2) = both(binder, logoff)
        bind = list(binds.values())[0]
        for r in binds.values():
            tally["bind " + name_of(r)] += 1
        for r in offs.values():
            tally["LOGOFF " + name_of(r)] += 1
            if r is not None and r.status != OK:
                state["bad"].append("LOGOFF answered %s" % r.status_name)
        if c1:
            return
        # whatever won, the session is gone on the new channel too
        if bind is not None and bind.status == OK:
            b.key = MC.signing_key_302(ctx.session_key)
        else:
            b.key = None
        r = b.call("TREE_CONNECT", R.tree_connect_body("\\\\127.0.0.1\\rw"),
                   session_id=a.session_id)
        tally["after: TREE_CONNECT " + name_of(r)] += 1
        if r.status == OK:
            state["bad"].append("session %x survived its LOGOFF on the "
                                "bound channel" % a.session_id)


RACES = [("CLOSE || READ", race_close_read),
         ("TREE_DISCONNECT || CREATE", race_tdis_create),
         ("LOGOFF || binding", race_logoff_bind)]


def run_race(srv, tree, name, fn, seconds, max_iter):
    state = {"port": srv.port, "bad": []}
    tally = Counter()
    n = unanswered = 0
    t0 = time.monotonic()
    while n < max_iter and time.monotonic() - t0 < seconds:
        try:
            fn(state, tally)
        except Unanswered as e:
            unanswered += 1
            state["bad"].append(str(e))
            state["pair"] = None
        except (R.Disconnected, OSError) as e:
            tally["connection closed"] += 1
            state["pair"] = None
            if not srv.alive():
                break
        n += 1
        if len(state["bad"]) > 20:
            break
    for ch in state.get("pair") or ():
        ch.close()
    took = time.monotonic() - t0
    problems = ["%s: %s" % (name, b) for b in state["bad"][:10]]
    if not srv.alive():
        problems.append("%s: the server died" % name)
    else:
        err = probe(srv.port, tree)
        if err:
            problems.append("%s: %s" % (name, err))
    fig = {"name": name, "iterations": n, "seconds": round(took, 1),
           "answers": dict(tally), "unanswered": unanswered}
    print("  %s: %d iterations in %.0f s, %s, %d unanswered"
          % (name, n, took, dict(tally), unanswered))
    return fig, problems


def run(tree, long_mode, binary):
    seconds, max_iter = (300, 100000) if long_mode else (40, 10000)
    # a quick look: STRESS_RACE_SECONDS=5 tests/stress/run.py --only races
    seconds = int(os.environ.get("STRESS_RACE_SECONDS", seconds))
    accounts.acquire()
    passdir = Path(tempfile.mkdtemp(prefix="ringsmb-stress-passdb-"))
    scratch = tree.base / "rw"
    scratch.mkdir()
    scratch.chmod(0o777)
    (scratch / "data.txt").write_bytes(b"multichannel data")
    (scratch / "data.txt").chmod(0o666)
    problems = []
    figs = []
    crashes = reports = 0
    try:
        srv = start_server(tree, binary, "default", {
            "smb passwd file": str(passdir / "smbpasswd"),
            "server signing": "mandatory"},
            shares=[{"name": "rw", "path": str(scratch),
                     "read_only": False}])
        tool = Path(binary).parent.parent / "utils" / "smbpasswd"
        if not tool.exists():
            tool = Path(binary).parents[3] / "bin" / "smbpasswd"
        import subprocess
        for user, pw in USERS.items():
            subprocess.run([str(tool), "-c", str(srv.conf), "-s", "-a",
                            user], input=("%s\n%s\n" % (pw, pw)).encode(),
                           check=True, stdout=subprocess.DEVNULL,
                           timeout=60)
        for name, fn in RACES:
            fig, p = run_race(srv, tree, name, fn, seconds, max_iter)
            figs.append(fig)
            problems += p
            if not srv.alive():
                crashes += 1
                break
        reports = srv.sanitizer_reports()
        stop_server(srv, problems)
    finally:
        shutil.rmtree(passdir, ignore_errors=True)
        accounts.release()
    return {"races": figs, "iterations": sum(f["iterations"] for f in figs),
            "unanswered": sum(f["unanswered"] for f in figs),
            "crashes": crashes, "sanitizer_reports": reports,
            "binary": str(binary)}, problems
