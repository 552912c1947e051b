"""G2, G8, G9: the figures of the checks `make test` already runs.

These goals are about rules, not load: the bad-input catalogue (G2), the
io_uring fallbacks and faults from the ring (G8, T11) and the
authentication and signing rules (G9).  This part runs those pytest
files against the release smbd and records what they counted, so the
report carries a figure for each goal and not "see make test":

  G2  tests/integration/test_badinput.py with its slow cases
      (RINGSMB_SLOW=1): cases run, cases with the right status or a
      clean disconnect and a good health probe after them, the expected
      failures, and the server's RSS before and after the catalogue
  G8  test_faults.py's ring-refused cases (seccomp, RLIMIT_MEMLOCK,
      `io_uring = no`, RINGSMB_NO_IO_URING; kernel.io_uring_disabled=2
      only with RINGSMB_FAULTS_SYSCTL=1, as it is machine-wide) and
      test_ring_faults.py (EAGAIN and a hung CQE from the ring)
  G9  test_wire_security.py (signatures, MIC, NTLMv2 proof, preauth
      hash, plaintext on encrypted shares and sessions, credits,
      nonces), test_users.py (passwords, signed and encrypted logons),
      test_untrusted.py (signing by default, limits of anonymous and
      guest sessions), test_access.py (share access rules, guest only
      where configured)

Each file's passed, failed and skipped tests come from pytest's JUnit
XML; a failed or errored test is a problem of this part.
"""
import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from common import REPO

GROUPS = [
    ("G2", ["tests/integration/test_badinput.py"], None),
    ("G8", ["tests/integration/test_faults.py",
            "tests/integration/test_ring_faults.py"],
     "ring_refused or ring_disabled or test_ring_faults"),
    ("G9", ["tests/integration/test_wire_security.py",
            "tests/integration/test_users.py",
            "tests/integration/test_untrusted.py",
            "tests/integration/test_access.py"], None),
]


def junit_counts(path):
    """{file: {passed, failed, skipped}} and the failed test names."""
    counts, failed = {}, []
    for tc in ET.parse(path).getroot().iter("testcase"):
        f = tc.get("file") or tc.get("classname", "?").replace(".", "/")
        f = os.path.basename(f.split("::")[0])
        if not f.endswith(".py"):
            f += ".py"
        c = counts.setdefault(f, {"passed": 0, "failed": 0, "skipped": 0,
                                  "xfailed": 0})
        kinds = {child.tag: child for child in tc}
        if kinds.keys() & {"failure", "error"}:
            c["failed"] += 1
            failed.append("%s::%s" % (f, tc.get("name")))
        elif "skipped" in kinds and \
                kinds["skipped"].get("type") == "pytest.xfail":
            c["xfailed"] += 1
            c.setdefault("xfail_names", []).append(tc.get("name"))
        elif "skipped" in kinds:
            c["skipped"] += 1
        else:
            c["passed"] += 1
    return counts, failed


def run_group(goal, files, select, binary, figures_file):
    with tempfile.NamedTemporaryFile(suffix=".xml") as xml:
        cmd = [str(REPO / ".venv" / "bin" / "python3"), "-m", "pytest",
               "-q", "-p", "no:cacheprovider", "--junitxml", xml.name]
        if select:
            cmd += ["-k", select]
        # RINGSMB_SLOW: the catalogue's slow cases (drip-fed NEGOTIATE,
        # stalls) run too
        env = dict(os.environ, RINGSMB_SMBD=str(binary),
                   RINGSMB_FIGURES=figures_file, RINGSMB_SLOW="1")
        p = subprocess.run(cmd + files, cwd=str(REPO), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=3600)
        tail = p.stdout.decode(errors="replace").strip().splitlines()[-1:]
        counts, failed = junit_counts(xml.name)
    return {"goal": goal, "files": counts, "select": select,
            "summary": tail[0] if tail else "",
            "failed": failed, "exit": p.returncode}


def run(tree, long_mode, binary):
    problems, groups = [], []
    fd, figures_file = tempfile.mkstemp(prefix="ringsmb-figures-")
    os.close(fd)
    try:
        for goal, files, select in GROUPS:
            g = run_group(goal, files, select, binary, figures_file)
            groups.append(g)
            print("  %s: %s" % (goal, g["summary"]))
            if g["failed"] or g["exit"] not in (0, 5):
                problems.append("%s: %s" % (goal, ", ".join(
                    g["failed"][:5]) or g["summary"]))
        extra = {}
        with open(figures_file) as f:
            for line in f:
                try:
                    extra.update(json.loads(line))
                except ValueError:
                    pass
    finally:
        os.unlink(figures_file)
    fig = {"groups": groups, "figures": extra,
           "sysctl": os.environ.get("RINGSMB_FAULTS_SYSCTL") == "1"}
    return fig, problems
