"""T13 / G11: the soak, and the heap after a burst.

Mixed traffic from bin/smb2bench (anonymous sessions, a writable share)
for a fixed time: three quarters of the connections do random 64 KiB
reads and writes (70 % reads, 4 in flight) on a file each, the rest one
operation at a time of create+write+close, open+query+close, directory
listing, and connect+logon+tree connect+logoff.  The server's RSS
(VmRSS) and fd count are sampled every 10 s; the RSS slope is the
least-squares slope after a warm-up, in MiB per 10 minutes.

Then the heap after a burst: the traffic stops, RSS is read after 65 s
of quiet (smbd trims the heap once no connection has sent a PDU for a
30-second check interval: source3/smbd/server/server.c idle_trim), a
burst of 64 connections doing 1 MiB random reads and writes (4 in
flight) follows, its peak RSS is sampled every 0.5 s, and RSS is read
again 5 s and 65 s after it ended.
"""
import json
import subprocess
import time

from common import (REPO, fd_count, probe, rss_kib, settle_fds,
                    slope_per_10min, start_server, stop_server)

SMB2BENCH = REPO / "bin" / "smb2bench"
SAMPLE_EVERY = 10
QUIET = 65


def bench(port, args, runtime):
    cmd = [str(SMB2BENCH), "//127.0.0.1/rw", "-p", str(port), "-N",
           "--runtime", str(runtime), "--time_based", "--output-format",
           "json", "--eta", "never"] + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def tally(p, timeout):
    """(operations, errors) of a finished smb2bench."""
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return 0, ["smb2bench did not finish"]
    errors = []
    if p.returncode != 0:
        errors.append("smb2bench exit %d: %s" % (
            p.returncode, err.decode(errors="replace").strip()[-300:]))
    ops = 0
    try:
        doc = json.loads(out.decode(errors="replace"))
        for j in doc.get("jobs", []):
            ops += j["read"]["total_ios"] + j["write"]["total_ios"]
            if j.get("error"):
                errors.append("job %s error %s" % (j["jobname"],
                                                   j["error"]))
    except (ValueError, KeyError) as e:
        errors.append("smb2bench output: %s" % e)
    return ops, errors


def mix(conns):
    """smb2bench argument lists adding up to conns connections."""
    small = max(1, conns // 16)
    io = conns - 4 * small
    return [
        ["--name", "io", "--rw", "randrw", "--rwmixread", "70", "--bs",
         "64k", "--iodepth", "4", "--size", "4m", "--numjobs", str(io)],
        ["--name", "create", "--rw", "create", "--nrfiles", "50", "--bs",
         "4k", "--numjobs", str(small)],
        ["--name", "stat", "--rw", "stat", "--nrfiles", "50", "--numjobs",
         str(small)],
        ["--name", "listdir", "--rw", "listdir", "--nrfiles", "200",
         "--numjobs", str(small)],
        ["--name", "connect", "--rw", "connect", "--numjobs", str(small)],
    ]


def soak(srv, conns, seconds, warmup):
    pid = srv.pid
    procs = [bench(srv.port, a, seconds) for a in mix(conns)]
    t0 = time.monotonic()
    samples = []
    while time.monotonic() - t0 < seconds + 1:
        samples.append((time.monotonic() - t0, rss_kib(pid) / 1024,
                        fd_count(pid)))
        if not srv.alive():
            break
        time.sleep(SAMPLE_EVERY)
    ops, errors = 0, []
    for p in procs:
        o, e = tally(p, seconds + 120)
        ops += o
        errors += e
    samples.append((time.monotonic() - t0, rss_kib(pid) / 1024,
                    fd_count(pid)))
    return samples, ops, errors


def burst(srv, seconds=15):
    pid = srv.pid
    time.sleep(QUIET)
    before = rss_kib(pid) / 1024
    p = bench(srv.port, ["--name", "burst", "--rw", "randrw", "--bs", "1m",
                         "--iodepth", "4", "--size", "8m", "--numjobs",
                         "64"], seconds)
    peak = before
    t0 = time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < seconds + 60:
        peak = max(peak, rss_kib(pid) / 1024)
        time.sleep(0.5)
    ops, errors = tally(p, 60)
    time.sleep(5)
    at5 = rss_kib(pid) / 1024
    time.sleep(QUIET - 5)
    after = rss_kib(pid) / 1024
    return {"what": "64 connections x 1 MiB random reads and writes, 4 in "
                    "flight, %d s (%d operations)" % (seconds, ops),
            "before_mib": round(before, 1), "peak_mib": round(peak, 1),
            "at5_mib": round(at5, 1), "after_s": QUIET,
            "after_mib": round(after, 1)}, errors


def run(tree, long_mode, binary, asan=False):
    """The soak on binary.  asan: binary is the ASan+UBSan build; its log
    is searched for sanitizer reports, and its RSS (ASan's quarantine
    holds freed memory up to 256 MiB) is reported, not held to G11."""
    conns, minutes = (64, 30) if long_mode else (16, 3)
    seconds = minutes * 60
    warmup = 120 if long_mode else 60
    scratch = tree.base / "rw"
    scratch.mkdir()
    scratch.chmod(0o777)
    problems = []
    srv = start_server(tree, binary, "default",
                       shares=[{"name": "rw", "path": str(scratch),
                                "read_only": False}])
    # the readiness check's connection may still be closing: baseline
    # after a moment
    time.sleep(2)
    fd_idle = fd_count(srv.pid)
    print("  soak: %d connections, %d min, samples every %d s"
          % (conns, minutes, SAMPLE_EVERY))
    samples, ops, errors = soak(srv, conns, seconds, warmup)
    problems += errors
    pts = [(t, r) for t, r, _ in samples if t >= warmup]
    slope = slope_per_10min(pts)
    fds = [f for t, _, f in samples[1:-1]]   # under load (not the ends)
    fds = fds or [samples[0][2]]
    fd_end = fd_count(srv.pid)
    print("    %d operations; RSS %.1f -> %.1f MiB, slope %+.2f MiB per "
          "10 min (after %d s warm-up); fds under load %d..%d, idle %d "
          "before, %d after" % (ops, samples[0][1], samples[-1][1], slope,
                                warmup, min(fds), max(fds), fd_idle,
                                fd_end))
    print("    samples (s, RSS MiB, fds): %s" % " ".join(
        "%d/%.1f/%d" % x for x in samples))
    b, berr = burst(srv)
    problems += berr
    fd_after = settle_fds(srv.pid, fd_idle, 30)
    print("    burst: RSS %(before_mib)s MiB before, %(peak_mib)s peak, "
          "%(at5_mib)s 5 s after, %(after_mib)s %(after_s)d s after" % b)
    if not srv.alive():
        problems.append("server died in the soak")
    else:
        err = probe(srv.port, tree)
        if err:
            problems.append(err)
    reports = srv.sanitizer_reports() if asan else None
    stop_server(srv, problems)
    fds_flat = max(fds) - min(fds) <= 4 * conns and fd_after == fd_idle
    fig = {"connections": conns, "minutes": minutes, "operations": ops,
           "traffic": "bin/smb2bench, anonymous, a writable share: %d "
                      "connections of 64 KiB random reads/writes (70 %% "
                      "reads, 4 in flight), the rest one each of create, "
                      "stat, listdir and connect loops; %d operations in "
                      "all. RSS slope after a %d s warm-up; samples every "
                      "%d s; fds idle %d before, %d after."
                      % (conns - 4 * max(1, conns // 16), ops, warmup,
                         SAMPLE_EVERY, fd_idle, fd_after),
           "rss_start_mib": round(samples[0][1], 1),
           "rss_end_mib": round(samples[-1][1], 1),
           "rss_slope_mib_per_10min": round(slope, 2),
           "fds_min": min(fds), "fds_max": max(fds), "fds_idle": fd_idle,
           "fds_after": fd_after, "fds_flat": fds_flat,
           "errors": len(errors), "burst": b,
           "samples": [(round(t), round(r, 1), f) for t, r, f in samples]}
    # 3 minutes cannot tell a leak from caches still filling: the short
    # mode reports the slope, the 30-minute long mode holds it to G11
    if asan:
        fig["sanitizer_reports"] = reports
        fig["asan"] = True
        print("    sanitizer reports: %d" % reports)
    if slope >= 1.0 and long_mode and not asan:
        problems.append("RSS slope %.2f MiB per 10 min (goal < 1)" % slope)
    elif slope >= 1.0:
        print("    note: slope above G11's 1 MiB per 10 min; the short "
              "mode does not judge it (make stress LONG=1 does)")
    fig["slope_judged"] = long_mode and not asan
    if fd_after != fd_idle:
        problems.append("fds %d idle before, %d after" % (fd_idle, fd_after))
    return fig, problems
