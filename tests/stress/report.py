"""docs/reliability.md: the part between the stress markers is written
here; everything else in the file (other sections, e.g. "Faults under the
VFS") is kept as it is.  The figures of every part ever run are kept in a
JSON comment inside the block, so a run of one part does not erase the
others."""
import json
import re

BEGIN = "<!-- stress:begin (written by tests/stress/run.py; edit outside) -->"
END = "<!-- stress:end -->"
DATA_RE = re.compile(r"<!-- stress:data\n(.*?)\n-->", re.S)
TITLE = "# Reliability: what is measured"

GOALS = [
    ("G1", "Fuzzing"), ("G2", "Bad input"), ("G3", "Crash = CVE"),
    ("G4", "Memory"), ("G5", "Timeouts"), ("G6", "Durability"),
    ("G7", "Cleanup"), ("G8", "Fallback parity"), ("G9", "Auth"),
    ("G10", "Confinement"), ("G11", "Soak"),
]


# where a goal make stress does not measure is partly tested elsewhere
# (those tests pass or fail; they record no figure here)
NOT_HERE = {
    "G2": " by make stress (make test replays the bad-input catalogue: "
          "tests/integration/test_badinput.py)",
    "G6": " by make stress (T8 kill -9 not run; fsync-before-reply is "
          "tested by test_faults.py, see \"Faults under the VFS\")",
    "G8": " by make stress (T11 ring-refused fallbacks: test_faults.py, "
          "see \"Faults under the VFS\")",
    "G9": " by make stress; make test checks each rule: SMB1 refused "
          "(bad-input cases smb1-*), NTLMv1 and LM refused "
          "(test_auth_ntlmssp), guest only where configured "
          "(test_users.py), user sessions signed by default "
          "(test_untrusted.py::test_signing_default), bad or missing "
          "signatures and an AUTHENTICATE without MIC refused, plaintext on "
          "encrypt-required shares and sessions ACCESS_DENIED "
          "(test_wire_security.py)",
}


def _old_data(text):
    m = DATA_RE.search(text)
    if not m:
        return {}
    try:
        return json.loads(m.group(1))
    except ValueError:
        return {}


def _keep_other_harnesses(old, new):
    """A fuzz run of some harnesses (STRESS_FUZZ_ONLY) keeps the earlier
    figures of the others, each with its own date."""
    ran = {h["name"] for h in new["figures"].get("harnesses", [])}
    if not ran:
        return
    for h in old["figures"].get("harnesses", []):
        if h["name"] not in ran:
            h.setdefault("date", old["date"])
            new["figures"]["harnesses"].append(h)
    new["figures"]["harnesses"].sort(key=lambda h: h["name"])
    new["figures"]["findings"] = sum(
        h["result"] != "ok" for h in new["figures"]["harnesses"])


def update(path, results):
    text = path.read_text() if path.exists() else ""
    data = _old_data(text)
    for name, r in results.items():
        key = name + (".long" if r["mode"] == "long" else "")
        if name == "fuzz" and key in data:
            _keep_other_harnesses(data[key], r)
        data[key] = r
    block = render(data)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + block + tail
    elif text.strip():
        # after the title line if there is one, else at the top
        lines = text.split("\n")
        if lines[0].startswith("# "):
            text = lines[0] + "\n\n" + block + "\n" + "\n".join(lines[1:])
        else:
            text = TITLE + "\n\n" + block + "\n\n" + text
    else:
        text = TITLE + "\n\n" + block + "\n"
    path.write_text(text)


def _when(r):
    return r["command"], r["date"]


def _trailer(r):
    """(command, date; load; note) under a part's section."""
    t = "(`%s`, %s" % _when(r)
    if r.get("load1") is not None:
        t += "; load average %.1f when the part started" % r["load1"]
    if r.get("note"):
        t += "; %s" % r["note"]
    return t + ")\n"


def _tally(g):
    n = {k: sum(c.get(k, 0) for c in g["files"].values())
         for k in ("passed", "failed", "skipped", "xfailed")}
    files = ", ".join(sorted(g["files"]))
    return n, files


def _catalogue_rows(ca):
    """G2, G8, G9 from the catalogue part (tests/stress/catalogue.py)."""
    rows = {}
    f = ca["figures"]
    for g in f["groups"]:
        n, files = _tally(g)
        xf = [x for c in g["files"].values()
              for x in c.get("xfail_names", [])]
        base = "%d passed, %d failed, %d skipped%s (%s%s)" % (
            n["passed"], n["failed"], n["skipped"],
            ", %d expected failure%s: %s (docs/protocol.md)"
            % (len(xf), "" if len(xf) == 1 else "s", ", ".join(xf))
            if xf else "", files,
            "; -k '%s'" % g["select"] if g.get("select") else "")
        x = f.get("figures", {})
        if g["goal"] == "G2" and "badinput_cases" in x:
            text = ("%d bad-input cases (and the case-count and RSS "
                    "checks); a pass is the right status or a clean "
                    "disconnect and a good health probe after the case: "
                    "%s; server RSS %.1f -> %.1f MiB over the catalogue "
                    "(%+.1f MiB)" % (
                        x["badinput_cases"], base,
                        x["badinput_rss_start_kib"] / 1024,
                        x["badinput_rss_end_kib"] / 1024,
                        (x["badinput_rss_end_kib"] -
                         x["badinput_rss_start_kib"]) / 1024))
        elif g["goal"] == "G8":
            text = ("ring refused (seccomp, RLIMIT_MEMLOCK, `io_uring = "
                    "no`, RINGSMB_NO_IO_URING%s) and faults from the ring "
                    "(EAGAIN, a CQE that never comes): 1 MiB put/get with "
                    "identical sha256, the reason logged once: %s" % (
                        ", kernel.io_uring_disabled=2" if f.get("sysctl")
                        else "; kernel.io_uring_disabled=2 skipped: "
                        "machine-wide, RINGSMB_FAULTS_SYSCTL=1", base))
        elif g["goal"] == "G9":
            text = ("SMB1 refused (bad-input cases smb1-*), NTLMv1/LM "
                    "refused (unit test_auth_ntlmssp), and through the "
                    "wire: bad and missing signatures, a wrong MIC and "
                    "none, a wrong NTLMv2 proof, a wrong password, a "
                    "preauth-hash mismatch, plaintext on encrypt-required "
                    "shares and sessions, credit window edges, unique "
                    "nonces, guest only where configured (test_access), "
                    "signing by default (test_untrusted): %s" % base)
        else:
            text = base
        rows[g["goal"]] = (text,) + _when(ca)
    return rows


def goal_rows(d):
    """(goal, figure, command, date) for G1..G11."""
    rows = {}
    fz = d.get("fuzz")
    if fz and fz["figures"].get("harnesses"):
        f = fz["figures"]
        hs = f["harnesses"]
        cpu = [h["cpu_s"] for h in hs if h["name"] != "server"]
        srv = [h for h in hs if h["name"] == "server"]
        text = ("%d single-message harnesses, %.0f-%.0f CPU-s each"
                % (len(cpu), min(cpu), max(cpu)) if cpu else "")
        if srv:
            text += "%sthe stateful fuzz_server %.2f CPU-h (%s runs)" % (
                "; " if text else "", srv[0]["cpu_s"] / 3600, srv[0]["runs"])
        short = [h for h in hs if h["cpu_s"] < (86400 if h["name"] ==
                                                  "server" else 28800)]
        text += "; %d findings" % f["findings"]
        if short:
            text += ("; the release budget (8 CPU-h per harness, 24 h "
                     "stateful) is not met: %d of %d harnesses below it "
                     "(this machine has 2 cores)" % (len(short), len(hs)))
        dates = sorted({h.get("date", fz["date"]) for h in hs})
        rows["G1"] = (text, fz["command"], dates[-1])
    elif fz:
        rows["G1"] = ("short mode: corpora replayed by `make test` (see "
                      "make test); no CPU time measured",) + _when(fz)
    ca = d.get("catalogue")
    if ca:
        rows.update(_catalogue_rows(ca))
    sy = d.get("symlink")
    if sy:
        f = sy["figures"]
        per = "; ".join("io_uring %s: %d" % (
            "off" if v["variant"] == "no_io_uring" else "on", v["attempts"])
            for v in f["variants"])
        rows["G10"] = ("%d symlink-swap attempts (%s), %d escapes; the 30 "
                       "path forms: not measured here (make test, "
                       "test_badinput.py)" % (f["attempts"], per,
                                              f["escapes"]),) + _when(sy)
    ch = d.get("churn")
    if ch:
        f = ch["figures"]
        rows["G7"] = ("fds only: %d connect/close (%d/s, half closed by "
                      "RST) left fds %d -> %d (delta %d) after settling; "
                      "RSS %+.1f MiB. Freed-within-1-s and durable "
                      "timeouts not measured"
                      % (f["connections"], f["rate"], f["fds_before"],
                         f["fds_settled"], f["fd_delta"],
                         f["rss_delta_mib"]),) + _when(ch)
    ra = d.get("races")
    if ra:
        f = ra["figures"]
        rows["G3"] = ("partly: %d race iterations (item 41) against the "
                      "ASan+UBSan build: %d crashes, %d sanitizer reports, "
                      "%d unanswered requests; SECURITY.md exists"
                      % (f["iterations"], f["crashes"],
                         f["sanitizer_reports"], f["unanswered"]),) + \
            _when(ra)
    li = d.get("limits")
    if li:
        f = li["figures"]
        rows["G4"] = ("%d idle negotiated connections +%.1f MiB (%.1f KiB "
                      "each), %d idle signed user sessions +%.1f MiB (%.1f "
                      "KiB each); a PDU over the pre-auth limit (%d bytes: "
                      "64 KiB and headers) or, after an anonymous logon, "
                      "over the negotiated size: closed at its header"
                      % (f["idle_negotiated"], f["idle_neg_delta_mib"],
                         f["idle_neg_kib_each"], f["idle_sessions"],
                         f["idle_sess_delta_mib"], f["idle_sess_kib_each"],
                         f["pdu_cap"]),) + _when(li)
        cleanup = ("after an RST: a deny-all open and its byte-range lock "
                   "free for another client in %s s, half an 8 MiB WRITE "
                   "left %s bytes on disk, a durable v2 open (3 s) closed "
                   "after %s s" % (f["open_lock_freed_s"],
                                   f["half_write_bytes"],
                                   f["durable_closed_s"]))
        g7 = rows.get("G7")
        if g7:
            rows["G7"] = (g7[0].replace(". Freed-within-1-s and durable "
                                        "timeouts not measured", "") +
                          "; " + cleanup, "make stress", max(g7[2],
                                                             li["date"]))
        else:
            rows["G7"] = (cleanup,) + _when(li)
        rows["G5"] = ("closed after: partial NBT length %s s, partial PDU "
                      "%s s, NEGOTIATE only %s s, anonymous session %s s; "
                      "%d slowloris connections all closed; ECHO p99 %s ms "
                      "meanwhile (%d ECHOs)"
                      % (f.get("partial_header"), f.get("partial_pdu"),
                         f.get("negotiated"), f.get("anonymous"),
                         f["slowloris"], f["echo_p99_ms"], f["echo_n"]),
                      ) + _when(li)
    td = d.get("teardown")
    if td:
        f = td["figures"]
        text = ("%d connections reset with a blocking LOCK, a "
                "CHANGE_NOTIFY, a READ and half a WRITE pending (ASan "
                "build): in-flight ring operations %s -> %s, open files "
                "%s -> %s, fds %d -> %d, %d sanitizer reports"
                % (f["iterations"],
                   f["before"]["ringsmb_uring_inflight"],
                   f["after"]["ringsmb_uring_inflight"],
                   f["before"]["ringsmb_open_files"],
                   f["after"]["ringsmb_open_files"], f["fds_before"],
                   f["fds_after"], f["sanitizer_reports"]))
        g7 = rows.get("G7")
        rows["G7"] = ((g7[0] + "; " + text, "make stress",
                       max(g7[2], td["date"])) if g7 else
                      (text,) + _when(td))
    so = d.get("soak")
    if so:
        f = so["figures"]
        rows["G11"] = ("%d connections x %d min: RSS slope %+.2f MiB per "
                       "10 min, fds %d..%d (%s), sanitizer reports: %s"
                       % (f["connections"], f["minutes"],
                          f["rss_slope_mib_per_10min"], f["fds_min"],
                          f["fds_max"], "flat" if f["fds_flat"]
                          else "NOT flat",
                          f.get("sanitizer_reports", "n/a (release build)")),
                       ) + _when(so)
    sa = d.get("soak-asan")
    if sa:
        f = sa["figures"]
        text = ("under ASan+UBSan: %d connections x %d min, %d sanitizer "
                "reports, fds %d..%d (%s), %d operations"
                % (f["connections"], f["minutes"], f["sanitizer_reports"],
                   f["fds_min"], f["fds_max"],
                   "flat" if f["fds_flat"] else "NOT flat",
                   f["operations"]))
        g11 = rows.get("G11")
        rows["G11"] = ((g11[0] + "; " + text,
                        g11[1] + "; " + sa["command"],
                        max(g11[2], sa["date"])) if g11 else
                       (text,) + _when(sa))
    du = d.get("durability")
    if du:
        rows["G6"] = (_g6_figure(du["figures"]),) + _when(du)
    out = []
    for g, name in GOALS:
        fig, cmd, date = rows.get(g, ("not measured" + NOT_HERE.get(g, ""),
                                      "", ""))
        out.append((g, name, fig, cmd, date))
    return out


def _sync_sum(ms, how):
    """'WRITE_THROUGH a/b and FLUSH c/d' over the modes that ran how."""
    ss = [m[how] for m in ms if m.get(how)]
    return "WRITE_THROUGH %d/%d and FLUSH %d/%d" % (
        sum(s["write_through"] for s in ss), sum(s["of"] for s in ss),
        sum(s["flush"] for s in ss), sum(s["of"] for s in ss)), len(ss)


def _g6_figure(f):
    ms = f["modes"]
    lost = sum(m["lost_disk"] + m["lost_smb"] for m in ms)
    bad = sum(v for m in ms for what in ("rename", "doc")
              for k, v in m[what].items() if k.startswith("BAD"))
    by_log, n_log = _sync_sum(ms, "sync_log")
    by_trace, n_trace = _sync_sum(ms, "sync_strace")
    return ("%d ACKed bytes lost in %d kill -9 with WRITEs in flight (%s; "
            "%d MiB of ACKed 1 MiB WRITEs checked on disk and over SMB); "
            "renames and delete-on-close at the kill: %d wrong. %s replies "
            "after a completed sync (vfs_error log, %d modes), %s (strace, "
            "fsync delayed, %d modes); the FLUSHes ran with `strict sync` "
            "at its default" % (
                lost, sum(m["kills"] for m in ms),
                ", ".join("%s %d" % (m["mode"], m["kills"]) for m in ms),
                sum(m["acked_mib"] for m in ms), bad, by_log, n_log,
                by_trace, n_trace))


def _soak_section(so, title):
    f = so["figures"]
    s = [title]
    s.append("%s\n" % f["traffic"])
    s.append("| connections | minutes | RSS start / end (MiB) | RSS "
             "slope (MiB per 10 min) | fds min / max | errors |")
    s.append("|---|---|---|---|---|---|")
    s.append("| %d | %d | %s / %s | %+.2f | %d / %d | %s |" % (
        f["connections"], f["minutes"], f["rss_start_mib"],
        f["rss_end_mib"], f["rss_slope_mib_per_10min"], f["fds_min"],
        f["fds_max"], f["errors"]))
    b = f.get("burst")
    if b:
        s.append("\nHeap after a burst (%s): RSS %s MiB before "
                 "(after %d quiet seconds), %s MiB at the peak, %s MiB "
                 "5 s after the burst ended, %s MiB %d s after. smbd "
                 "also trims the heap once no connection has sent a "
                 "PDU for a 30-second check interval "
                 "(source3/smbd/server/server.c, idle_trim); a fall "
                 "within 5 s is the allocator's own return of freed "
                 "memory, before any idle trim.\n"
                 % (b["what"], b["before_mib"], b["after_s"],
                    b["peak_mib"], b.get("at5_mib", "?"),
                    b["after_mib"], b["after_s"]))
    if not f.get("slope_judged", True):
        s.append("The short mode's 3 minutes cannot tell a leak from "
                 "caches still filling: its slope is reported, not "
                 "held to G11; `make stress LONG=1` holds it.\n")
    if f.get("asan"):
        s.append("Sanitizer reports in the server's log: %d. RSS here is "
                 "the ASan build's (freed memory waits in ASan's "
                 "quarantine), so its slope is not held to G11.\n"
                 % f["sanitizer_reports"])
    s.append(_trailer(so))
    return s


def _durability_section(du):
    f = du["figures"]
    s = ["### Kill -9 durability (T8, G6)\n"]
    s.append("tests/stress/durability.py. Per mode, %(kills_per_mode)d "
             "times: %(writers)d threads on one connection write a fresh "
             "%(file_mib)d MiB file as 1 MiB WRITEs at random offsets "
             "(each slot once, shuffled; data from a seeded PRNG), "
             "logging (offset, sha256) only after the WRITE response "
             "arrived; a second connection renames a 64 KiB file back and "
             "forth through its handle; a third writes 64 KiB files, "
             "closes them, opens them with FILE_DELETE_ON_CLOSE and "
             "closes them. After a random number of ACKed WRITEs (1/8 to "
             "3/4 of the file) smbd's process group gets SIGKILL with the "
             "other requests in flight; the share directory is checked on "
             "disk, smbd is restarted with the same configuration and "
             "every ACKed range is read again over SMB.\n" % f)
    s.append("Asserted: every ACKed 1 MiB has its sha256 on disk and over "
             "SMB (lost bytes = bytes of ACKed ranges that differ); "
             "exactly one of the two rename names exists, holding the "
             "64 KiB exactly, and it is the last ACKed rename's name "
             "unless a rename was in flight at the kill (then either); a "
             "delete-on-close file whose CLOSE was ACKed is gone, one "
             "whose data WRITE was ACKed but whose CLOSE was not is gone "
             "or whole, never partial (files whose data WRITE was not "
             "ACKed are not judged).\n")
    s.append("Modes:\n")
    for m in f["modes"]:
        s.append("- **%s**: %s" % (m["mode"], m["config"]))
    s.append("")
    s.append("| mode | kills (WRITEs in flight at the kill / most) | ACKed "
             "MiB checked | lost bytes disk / SMB | unACKed WRITEs found "
             "whole | rename at the kill | delete-on-close files | s |")
    s.append("|---|---|---|---|---|---|---|---|")
    for m in f["modes"]:
        s.append("| %s | %d (%d / %d) | %d | %d / %d | %d | %s | %s | %s |"
                 % (m["mode"], m["kills"], m["kills_in_flight"],
                    m["in_flight_max"], m["acked_mib"], m["lost_disk"],
                    m["lost_smb"], m["unacked_whole"],
                    ", ".join("%s %d" % kv for kv in sorted(
                        m["rename"].items())),
                    ", ".join("%s %d" % kv for kv in sorted(
                        m["doc"].items())), m["seconds"]))
    s.append("\n**Replies after a completed sync.** Per mode %d "
             "WRITE_THROUGH WRITEs and %d FLUSHes (each after a plain "
             "WRITE), checked two ways. *vfs_error log*: on a share with "
             "`vfs objects = error`, `error:log` and `error:delay = %d` "
             "(test_faults.py's method), the log must hold one more "
             "completed fsync after each reply, and none after a plain "
             "WRITE; vfs_error turns splice off on its share, so in the "
             "splice mode this checks the copy path's fsync step. "
             "*strace*: smbd traced with `strace -f -e "
             "trace=fsync,fdatasync,splice -e "
             "inject=fsync,fdatasync:delay_exit=%d` on the plain share "
             "(1 MiB WRITE_THROUGHs, spliced in the splice mode); each "
             "reply must have exactly one fsync that began after its "
             "request was sent, and arrive at least the injected delay "
             "after that fsync returned.\n"
             % (f["sync_k"], f["sync_k"], f["sync_delay_ms"],
                f["sync_delay_ms"] * 1000))
    s.append("| mode | vfs_error log: WRITE_THROUGH / FLUSH | plain WRITEs "
             "without fsync | strace: WRITE_THROUGH / FLUSH | fsyncs seen "
             "| splice(2) pipe -> file |")
    s.append("|---|---|---|---|---|---|")
    for m in f["modes"]:
        lg, st = m["sync_log"], m.get("sync_strace")
        s.append("| %s | %d/%d / %d/%d | %d/%d | %s | %s | %s |" % (
            m["mode"], lg["write_through"], lg["of"], lg["flush"],
            lg["of"], lg["plain_unsynced"], lg["of"],
            "%d/%d / %d/%d" % (st["write_through"], st["of"], st["flush"],
                               st["of"]) if st else "not run",
            st["fsyncs"] if st else "", "%d calls, %s MiB" % (
                st["splice_calls"], st["spliced_mib"]) if st else ""))
    losses = [dict(l, mode=m["mode"]) for m in f["modes"]
              for l in m["losses"]]
    if losses:
        s.append("\nLosses: %s\n" % losses)
    s.append("\nNot covered: power loss or a crashed kernel (SIGKILL "
             "leaves the page cache, so this tests what smbd "
             "acknowledges, not what the disk keeps; RELIABILITY's "
             "dm-flakey run needs root and a device); signed or encrypted "
             "WRITEs (the guest session is neither, so splice mode "
             "splices every 1 MiB WRITE); the fsync of `vfs objects = "
             "io_uring` under strace (a ring operation, no syscall).\n")
    s.append(_trailer(du))
    return s


def _sections(d):
    s = []
    sy = d.get("symlink")
    if sy:
        s.append("### Symlink-swap race (G10, item 44)\n")
        s.append("A local process swaps `d` inside the share with a "
                 "symlink to a directory outside it holding `secret.txt`, "
                 "and with a symlink to `/`, by renameat2(RENAME_EXCHANGE) "
                 "as fast as it can; 3 client processes, 8 related "
                 "compounds (CREATE + READ + CLOSE) in flight each, open "
                 "`d\\secret.txt` and `d\\<outside path>\\secret.txt`. An "
                 "escape is a READ returning the outside secret.\n")
        s.append("| io_uring | attempts | s | per s | escapes | inside "
                 "reads | refused | swaps |")
        s.append("|---|---|---|---|---|---|---|---|")
        for v in sy["figures"]["variants"]:
            s.append("| %s | %d | %s | %d | %d | %d | %d | %d |" % (
                "off" if v["variant"] == "no_io_uring" else "on",
                v["attempts"], v["seconds"], v["rate"], v["escapes"],
                v["inside_reads"], v["refused"], v["swaps"]))
        ans = sorted({k for v in sy["figures"]["variants"]
                      for k in v["answers"]})
        s.append("\nRefusal statuses seen: %s.\n"
                 % (", ".join(a.replace("refused ", "") for a in ans)
                    or "none"))
        s.append(_trailer(sy))
    ch = d.get("churn")
    if ch:
        f = ch["figures"]
        s.append("### Connection churn (T5)\n")
        s.append("3 client processes connect, NEGOTIATE and close for "
                 "%(seconds)s s; every 4th connection also sets up an "
                 "anonymous session and a tree connect; half the closes "
                 "are RSTs.\n" % f)
        s.append("| connections | per s | with a session | fds before / "
                 "after / settled | RSS before / after / settled (MiB) | "
                 "client errors |")
        s.append("|---|---|---|---|---|---|")
        s.append("| %d | %d | %d | %d / %d / %d | %s / %s / %s | %s |" % (
            f["connections"], f["rate"], f["with_session"], f["fds_before"],
            f["fds_after"], f["fds_settled"], f["rss_before_mib"],
            f["rss_after_mib"], f["rss_settled_mib"],
            sum(f["errors"].values())))
        s.append("")
        s.append(_trailer(ch))
    ra = d.get("races")
    if ra:
        f = ra["figures"]
        s.append("### Races (item 41), ASan+UBSan build\n")
        s.append("Two connections bound to one user session (SMB 3.0.2, "
                 "signed) send the two sides of each race at once; every "
                 "request must be answered (or its connection closed), "
                 "the server must stay up and its log free of sanitizer "
                 "reports; a health probe follows each race.\n")
        s.append("| race | iterations | s | answers seen | unanswered |")
        s.append("|---|---|---|---|---|")
        for r in f["races"]:
            s.append("| %s | %d | %s | %s | %d |" % (
                r["name"].replace("||", "\u2225"), r["iterations"], r["seconds"],
                ", ".join("%s %d" % kv for kv in sorted(
                    r["answers"].items())), r["unanswered"]))
        s.append("\nServer crashes: %d; sanitizer reports: %d.\n"
                 % (f["crashes"], f["sanitizer_reports"]))
        s.append(_trailer(ra))
    for key, title in (("soak", "### Soak (T13, G11) and heap after a "
                               "burst\n"),
                       ("soak-asan", "### Soak under ASan+UBSan (G11's "
                                     "sanitizer count)\n")):
        so = d.get(key)
        if so:
            s += _soak_section(so, title)
    du = d.get("durability")
    if du:
        s += _durability_section(du)
    li = d.get("limits")
    if li:
        f = li["figures"]
        s.append("### Idle, stalled and vanished clients (G4, G5, G7, T4, "
                 "T9)\n")
        s.append("One release server. PDU caps: only an NBT header "
                 "declaring one byte more than allowed, before NEGOTIATE "
                 "(`smb2 untrusted max pdu`, %d) and after an anonymous "
                 "logon (the negotiated size plus 64 KiB: "
                 "docs/architecture.md, \"Untrusted PDU size\"). Memory: "
                 "RSS before and with %d idle connections after NEGOTIATE, "
                 "then with %d idle user sessions (NTLMv2, signed). "
                 "Timeouts: four lone stalls and %d slowloris connections "
                 "(3 bytes of an NBT length each) at once, an ECHO every "
                 "50 ms from a good client meanwhile.\n"
                 % (f["pdu_cap"], f["idle_negotiated"], f["idle_sessions"],
                    f["slowloris"]))
        s.append("| measured | figure |")
        s.append("|---|---|")
        s.append("| over-size PDU header, before NEGOTIATE / after an "
                 "anonymous logon | closed after %s s / %s s |"
                 % (f["pdu_pre_negotiate_s"], f["pdu_anonymous_s"]))
        s.append("| %d idle negotiated connections | +%.1f MiB (%.1f KiB "
                 "each) |" % (f["idle_negotiated"], f["idle_neg_delta_mib"],
                              f["idle_neg_kib_each"]))
        s.append("| %d idle signed user sessions | +%.1f MiB (%.1f KiB "
                 "each), %d failed |" % (f["idle_sessions"],
                                        f["idle_sess_delta_mib"],
                                        f["idle_sess_kib_each"],
                                        f["idle_session_errors"]))
        s.append("| closed after: 2 bytes of an NBT length / a partial PDU "
                 "/ NEGOTIATE then nothing / an anonymous session then "
                 "nothing | %s / %s / %s / %s s (bounds 30 / 30 / 60 / 60) |"
                 % (f.get("partial_header"), f.get("partial_pdu"),
                    f.get("negotiated"), f.get("anonymous")))
        s.append("| slowloris connections still open at the end | %d of "
                 "%d |" % (f["slowloris_open_after"], f["slowloris"]))
        s.append("| ECHO round trips meanwhile | %d: p50 %s ms, p99 %s ms, "
                 "max %s ms |" % (f["echo_n"], f["echo_p50_ms"],
                                  f["echo_p99_ms"], f["echo_max_ms"]))
        s.append("| after an RST: a deny-all open with a byte-range lock "
                 "/ half an 8 MiB WRITE / a durable v2 open asking 3 s | "
                 "another client opens and locks after %s s / %s bytes of "
                 "it on disk / closed after %s s |"
                 % (f["open_lock_freed_s"], f["half_write_bytes"],
                    f["durable_closed_s"]))
        s.append("| the slow bad-input cases (`RINGSMB_SLOW=1`) | %s |"
                 % f["slow_badinput"])
        s.append("")
        s.append(_trailer(li))
    td = d.get("teardown")
    if td:
        f = td["figures"]
        s.append("### Teardown with work pending (T10, item 42), ASan+UBSan "
                 "build\n")
        s.append("Each iteration: an anonymous connection opens a file, "
                 "sends a blocking LOCK on a byte another connection holds "
                 "and a CHANGE_NOTIFY on the share's root (both answered "
                 "STATUS_PENDING), a CANCEL of a MessageId never sent, a 1 "
                 "MiB READ and the first half of a 1 MiB WRITE, then "
                 "resets the connection.\n")
        s.append("| iterations | s | interim answers | in-flight ring ops "
                 "before / after | open files before / after | fds before "
                 "/ after | sanitizer reports |")
        s.append("|---|---|---|---|---|---|---|")
        s.append("| %d | %s | %s | %s / %s | %s / %s | %d / %d | %d |" % (
            f["iterations"], f["seconds"], ", ".join(
                "%s %d" % kv for kv in sorted(f["answers"].items())),
            f["before"]["ringsmb_uring_inflight"],
            f["after"]["ringsmb_uring_inflight"],
            f["before"]["ringsmb_open_files"],
            f["after"]["ringsmb_open_files"], f["fds_before"],
            f["fds_after"], f["sanitizer_reports"]))
        s.append("")
        s.append(_trailer(td))
    fz = d.get("fuzz")
    if fz and fz["figures"].get("harnesses"):
        f = fz["figures"]
        s.append("### Fuzz CPU time (G1)\n")
        s.append("| harness | s | CPU-s | runs | result | date |")
        s.append("|---|---|---|---|---|---|")
        for h in f["harnesses"]:
            s.append("| %s | %d | %.0f | %s | %s | %s |" % (
                h["name"], h["seconds"], h["cpu_s"], h["runs"],
                h["result"], h.get("date", fz["date"])))
        s.append("")
        s.append(_trailer(fz))
    return s


def latest(data):
    """Per part the record shown: the newer of its short and long runs;
    on the same day the long one."""
    view = {}
    for key, r in data.items():
        name = key.split(".")[0]
        old = view.get(name)
        if old is None or (r["date"], r["mode"] == "long") > \
                (old["date"], old["mode"] == "long"):
            view[name] = r
    return view


def render(data):
    d = latest(data)
    lines = [BEGIN, ""]
    lines.append("## Goals G1-G11 as measured by `make stress`\n")
    lines.append("Written by `tests/stress/run.py` (`make stress`, short "
                 "mode ~20 minutes; `make stress LONG=1`, ~2.5 hours: "
                 "30-minute soaks of the release and the ASan+UBSan "
                 "builds, longer races, 50 kills per durability mode, "
                 "fuzz CPU time per harness). Rows from several runs keep "
                 "each run's command and date. The goals are "
                 "RELIABILITY.md section 3. \"not measured\" means nothing "
                 "in `make stress` measures that goal yet; some are "
                 "partly covered by `make test`, which records no "
                 "figures here.\n")
    # the machine of the newest run
    machines = sorted({(r["date"], r["machine"]) for r in d.values()})
    if machines:
        lines.append("Machine: %s. Client and server run on the same "
                     "cores, so rates are lower bounds of the server's.\n"
                     % machines[-1][1])
    lines.append("| goal | | figure measured | command | date |")
    lines.append("|---|---|---|---|---|")
    for g, name, fig, cmd, date in goal_rows(d):
        lines.append("| %s | %s | %s | %s | %s |" % (
            g, name, fig, "`%s`" % cmd if cmd else "", date))
    bad = [(k, r) for k, r in sorted(d.items()) if not r.get("ok", True)]
    if bad:
        lines.append("\nProblems found in the last run of: %s.\n"
                     % ", ".join(k for k, _ in bad))
    lines.append("")
    lines.append("## Stress parts\n")
    lines += _sections(d)
    # one line per run record: small diffs, still JSON
    lines.append("<!-- stress:data\n{\n%s\n}\n-->" % ",\n".join(
        "%s: %s" % (json.dumps(k), json.dumps(v, sort_keys=True))
        for k, v in sorted(data.items())))
    lines.append(END)
    return "\n".join(lines)
