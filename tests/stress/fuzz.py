"""G1: fuzz CPU time per harness.

Short mode: nothing is run here; `make test` replays every corpus (the
fuzz-replay step), so the report says "see make test".  Long mode: each
libFuzzer harness of the ASan+UBSan build runs for a fixed time through
tests/fuzz/run-fuzzers.sh (FUZZ_ONLY=<name>, FUZZ_SECONDS), and the
CPU-seconds it used (user + system of the fuzzer process) and its
findings (a failed run: crash, leak, sanitizer report) are recorded.
STRESS_FUZZ_SECONDS changes the time per harness (default 120).
"""
import os
import re
import resource
import subprocess
import time

from common import REPO

SCRIPT = REPO / "tests" / "fuzz" / "run-fuzzers.sh"
BIN = REPO / "build-asan" / "tests" / "fuzz"


def harnesses():
    return sorted(p.name[len("fuzz_"):] for p in BIN.glob("fuzz_*")
                  if p.is_file() and os.access(p, os.X_OK)
                  and not p.name.endswith(".o"))


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(tree, long_mode, binary):
    if not long_mode:
        print("  fuzz: short mode: the corpora are replayed by make test")
        return {"harnesses": [], "findings": 0, "short": True}, []
    secs = int(os.environ.get("STRESS_FUZZ_SECONDS", "120"))
    out, problems = [], []
    for name in harnesses():
        env = dict(os.environ, FUZZ_ONLY=name, FUZZ_SECONDS=str(secs))
        c0, t0 = children_cpu(), time.monotonic()
        p = subprocess.run(["sh", str(SCRIPT)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=secs + 600)
        cpu = children_cpu() - c0
        text = p.stdout.decode(errors="replace")
        m = re.search(r"ok \((\S+) runs\)", text)
        ok = p.returncode == 0
        out.append({"name": name, "seconds": round(time.monotonic() - t0),
                    "cpu_s": round(cpu, 1), "runs": m.group(1) if m else "?",
                    "result": "ok" if ok else "FINDING"})
        print("  fuzz %-16s %4d s, %6.1f CPU-s, %s runs, %s"
              % (name, secs, cpu, out[-1]["runs"], out[-1]["result"]))
        if not ok:
            problems.append("fuzz %s: %s" % (name, text.strip()[-400:]))
    return {"harnesses": out, "seconds_each": secs,
            "findings": sum(h["result"] != "ok" for h in out)}, problems
