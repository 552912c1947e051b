"""G1: fuzz CPU time per harness.

Short mode: nothing is run here; `make test` replays every corpus (the
fuzz-replay step), so the report says "see make test".  Long mode: each
libFuzzer harness of the ASan+UBSan build runs for a fixed time through
tests/fuzz/run-fuzzers.sh (FUZZ_ONLY=<name>, FUZZ_SECONDS), and the
CPU-seconds it used (user + system of the fuzzer process) and its
findings (a failed run: crash, leak, sanitizer report) are recorded.

Environment:
  STRESS_FUZZ_SECONDS         time per harness (default 120)
  STRESS_FUZZ_SERVER_SECONDS  time for the stateful harness fuzz_server
                              (default STRESS_FUZZ_SECONDS)
  STRESS_FUZZ_ONLY            "server ntlmssp": only these harnesses; the
                              report keeps the others' earlier figures
  STRESS_FUZZ_JOBS            harnesses run at once (default 1); G1's
                              release budget (8 CPU-h per harness, 24 h
                              stateful) wants a machine with many cores:
                              STRESS_FUZZ_SECONDS=28800
                              STRESS_FUZZ_SERVER_SECONDS=86400
                              STRESS_FUZZ_JOBS=<cores>
Each harness runs on one core (one libFuzzer job); its new inputs stay
in build-asan/fuzz-out/<name>/new for the next run to start from.
"""
import datetime
import os
import re
import subprocess
import tempfile
import time

from common import REPO

SCRIPT = REPO / "tests" / "fuzz" / "run-fuzzers.sh"
BIN = REPO / "build-asan" / "tests" / "fuzz"


def harnesses():
    return sorted(p.name[len("fuzz_"):] for p in BIN.glob("fuzz_*")
                  if p.is_file() and os.access(p, os.X_OK)
                  and not p.name.endswith(".o"))


def start(name, secs):
    """One harness through run-fuzzers.sh, its output to a temporary
    file (a pipe nobody reads could fill and stop it)."""
    env = dict(os.environ, FUZZ_ONLY=name, FUZZ_SECONDS=str(secs))
    log = tempfile.TemporaryFile()
    p = subprocess.Popen(["sh", str(SCRIPT)], env=env, stdout=log,
                         stderr=subprocess.STDOUT)
    return {"name": name, "secs": secs, "p": p, "log": log,
            "t0": time.monotonic()}


def finish(job, status, usage):
    """The record of a harness whose script exited (wait4's status and
    rusage: the fuzzer's CPU time, as the script waited for it)."""
    job["log"].seek(0)
    text = job["log"].read().decode(errors="replace")
    job["log"].close()
    m = re.search(r"ok \((\S+) runs\)", text)
    ok = os.waitstatus_to_exitcode(status) == 0
    cpu = usage.ru_utime + usage.ru_stime
    rec = {"name": job["name"],
           "seconds": round(time.monotonic() - job["t0"]),
           "cpu_s": round(cpu, 1), "runs": m.group(1) if m else "?",
           "result": "ok" if ok else "FINDING",
           "date": datetime.date.today().isoformat()}
    print("  fuzz %-16s %5d s, %8.1f CPU-s, %s runs, %s"
          % (rec["name"], job["secs"], cpu, rec["runs"], rec["result"]))
    return rec, (None if ok else "fuzz %s: %s" % (job["name"],
                                                  text.strip()[-400:]))


def run(tree, long_mode, binary):
    if not long_mode:
        print("  fuzz: short mode: the corpora are replayed by make test")
        return {"harnesses": [], "findings": 0, "short": True}, []
    secs = int(os.environ.get("STRESS_FUZZ_SECONDS", "120"))
    server_secs = int(os.environ.get("STRESS_FUZZ_SERVER_SECONDS",
                                     str(secs)))
    jobs = max(1, int(os.environ.get("STRESS_FUZZ_JOBS", "1")))
    only = os.environ.get("STRESS_FUZZ_ONLY", "").split()
    todo = [n for n in harnesses() if not only or n in only]
    # the longest first, so that the jobs end together
    todo.sort(key=lambda n: n != "server")
    out, problems, running, late = [], [], {}, False
    deadline = time.monotonic() + max([secs, server_secs]) * \
        (len(todo) // jobs + 1) + 600
    while todo or running:
        while todo and len(running) < jobs:
            name = todo.pop(0)
            job = start(name, server_secs if name == "server" else secs)
            running[job["p"].pid] = job
        if time.monotonic() > deadline and not late:
            for job in running.values():
                job["p"].kill()
            problems.append("fuzz: did not finish in time")
            late = True
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        job = running.pop(pid, None)
        if job is None:
            time.sleep(1)
            continue
        job["p"].returncode = os.waitstatus_to_exitcode(status)
        rec, problem = finish(job, status, usage)
        out.append(rec)
        if problem:
            problems.append(problem)
    out.sort(key=lambda h: h["name"])
    return {"harnesses": out, "seconds_each": secs,
            "server_seconds": server_secs, "jobs": jobs,
            "findings": sum(h["result"] != "ok" for h in out)}, problems
