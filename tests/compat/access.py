"""The access matrix (tests/integration/test_access.py) against ringsmb and
Samba, side by side, for docs/compatibility.md (`make compat`).

pytest runs the file once per target with RINGSMB_ACCESS_REPORT set; the
test writes one JSON line per case (id, description, expectation, observed
outcome).  A failing case is what we want to see here, not an error: the
table shows both outcomes whatever pytest's exit code.

  access.py [--out-dir DIR]   run both and print the section (debugging)
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TEST_FILE = REPO / "tests" / "integration" / "test_access.py"
TARGETS = ("ringsmb", "samba")
RUN_TIMEOUT = 900.0      # seconds per target (Samba needs ~15 s)


def report_path(out_dir, target):
    return Path(out_dir) / ("access-%s.jsonl" % target)


def run(out_dir):
    """pytest test_access.py per target; returns load(out_dir) and a list
    of problems (pytest that could not run, timeouts)."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    problems = []
    for target in TARGETS:
        rp = report_path(out_dir, target)
        if rp.exists():
            rp.unlink()
        env = dict(os.environ, RINGSMB_TARGET=target,
                   RINGSMB_ACCESS_REPORT=str(rp))
        log = Path(out_dir) / ("access-%s.log" % target)
        with open(log, "wb") as f:
            try:
                p = subprocess.run(
                    [sys.executable, "-m", "pytest", "-q", "-p",
                     "no:cacheprovider", str(TEST_FILE)], cwd=str(REPO),
                    env=env, stdout=f, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT)
                # 0 all passed, 1 some failed: both give a table
                if p.returncode not in (0, 1):
                    problems.append("access matrix, %s: pytest exit %d "
                                    "(see %s)" % (target, p.returncode, log))
            except subprocess.TimeoutExpired:
                problems.append("access matrix, %s: pytest took over %.0f s"
                                % (target, RUN_TIMEOUT))
    return load(out_dir), problems


def load(out_dir):
    """target -> {case id: record}, in the matrix's order."""
    out = {}
    for target in TARGETS:
        recs = {}
        rp = report_path(out_dir, target)
        if rp.exists():
            for line in rp.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    recs[r["id"]] = r
        out[target] = recs
    return out


def cell(text):
    return "`%s`" % text.replace("`", "'").replace("|", "/") if text \
        else "not run"


def section(results):
    """Markdown lines of the side-by-side table."""
    rs, sa = results.get("ringsmb", {}), results.get("samba", {})
    ids = list(sa) + [i for i in rs if i not in sa]
    same = sum(1 for i in ids if i in rs and i in sa and
               rs[i]["outcome"] == sa[i]["outcome"])
    off = [i for i in ids if i in sa and sa[i]["outcome"] != sa[i]["expect"]]
    L = ["## Access matrix: ringsmb against Samba\n",
         "`tests/integration/test_access.py` (issue 11) run against each "
         "server with the same smb.conf: real Unix accounts `rsmbtalice`, "
         "`rsmbtbob` (group `rsmbtstaff`), `rsmbtcarol` (`rsmbtother`) "
         "and the guest, one share per case, SMB 3.1.1 through "
         "smbprotocol (smbclient for `smbclient` operations). Outcome: "
         "the NTSTATUS (`STATUS_` dropped), `tree:`/`logon:` when the tree "
         "connect or session setup failed, owner:group mode of a new file "
         "(without the `rsmbt` prefix), names a listing shows ((H) = "
         "hidden attribute). The expectations in the test are Samba's "
         "outcomes; goal: the two columns identical.\n",
         "%d cases; ringsmb answers as Samba in %d.\n" % (len(ids), same)]
    if off:
        L.append("**Samba differs from the recorded expectation in: %s**\n"
                 % ", ".join(off))
    L.append("| case | setup: who does what | Samba | ringsmb | |")
    L.append("|---|---|---|---|---|")
    for i in ids:
        r, s = rs.get(i), sa.get(i)
        desc = (s or r)["describe"]
        ro, so = r and r["outcome"], s and s["outcome"]
        mark = "" if ro is not None and ro == so else "**differs**"
        L.append("| %s | %s | %s | %s | %s |" % (
            i, desc.replace("|", "/"), cell(so), cell(ro), mark))
    L.append("")
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=str(REPO / "build" / "torture"))
    ap.add_argument("--reuse", action="store_true",
                    help="print from the last run's JSON lines")
    a = ap.parse_args()
    if a.reuse:
        results, problems = load(a.out_dir), []
    else:
        results, problems = run(a.out_dir)
    print("\n".join(section(results)))
    for p in problems:
        print("problem: %s" % p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
