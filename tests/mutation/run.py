#!/usr/bin/env python3
"""Mutation testing (issue 17, "Tests that must be able to fail"): put one
small bug at a time into the daemon, run the test suite against it, and
count the mutants some test kills.  A mutant that survives is a test that
is missing.

Each mutant is an exact text replacement in one file (the text must occur
exactly once, so a mutant that no longer applies is reported, not
silently skipped).  The work happens in a git worktree of HEAD under a
temporary directory with its own build dir, so the checkout and its
build/ are never touched.

    tests/mutation/run.py [--suite quick|full] [--only ID,...] [--list]
                          [--write-doc] [--integration-only]

--suite quick (default): every unit test, then the integration files in
QUICK; full: every integration file.  A mutant is killed by the first
failing step (the build counts: a mutant that does not compile is
reported as such, not as killed).  --write-doc replaces the section
between the mutation markers in docs/reliability.md with the table.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

QUICK = [
    "tests/integration/test_wire_security.py",
    "tests/integration/test_users.py",
    "tests/integration/test_write.py",
    "tests/integration/test_lock.py",
    "tests/integration/test_create.py",
    "tests/integration/test_access.py",
    "tests/integration/test_admin.py",
    "tests/integration/test_faults.py",
    "tests/integration/test_limits.py",
    "tests/integration/test_session.py",
    "tests/integration/test_casefold.py",
]

# (id, what the bug is, file, text, replacement)
MUTANTS = [
    ("write-through-no-sync",
     "a WRITE_THROUGH is acknowledged without an fsync",
     "source3/smbd/commands/write.c",
     "state->sync = (state->w.flags & SMB2_WRITEFLAG_WRITE_THROUGH) ||",
     "state->sync = false && (state->w.flags & "
     "SMB2_WRITEFLAG_WRITE_THROUGH) ||"),
    ("encrypt-required-plaintext",
     "a share or session that requires encryption accepts plaintext",
     "source3/smbd/pipeline/encryption.c",
     "\tif (encrypted) {\n\t\treturn NT_STATUS_OK;\n\t}",
     "\tif (encrypted || true) {\n\t\treturn NT_STATUS_OK;\n\t}"),
    ("bad-signature-accepted",
     "a request whose signature does not match is accepted",
     "lib/crypto/sign.c",
     "\t\treturn -EACCES;\n\t}\n\treturn 0;",
     "\t\treturn 0;\n\t}\n\treturn 0;"),
    ("ntlmv2-proof-not-compared",
     "the NTLMv2 NTProofStr is not compared (a wrong password logs on)",
     "lib/auth/ntlmv2.c",
     "if (!nettle_memeql_sec(expect, nt.data, NTLMV2_PROOF_LEN)) {",
     "if (false && !nettle_memeql_sec(expect, nt.data, "
     "NTLMV2_PROOF_LEN)) {"),
    ("credit-window-off-by-one",
     "one MessageId past the credit window is accepted",
     "source3/smbd/pipeline/credits.c",
     "if (mid < c->low || mid - c->low > c->range ||\n"
     "\t    charge > c->range - (mid - c->low)) {",
     "if (mid < c->low || mid - c->low > c->range + 1 ||\n"
     "\t    charge > c->range + 1 - (mid - c->low)) {"),
    ("nonce-never-advances",
     "every encrypted message reuses the same nonce",
     "lib/crypto/nonce.c",
     "\tng->counter++;\n\treturn 0;",
     "\treturn 0;"),
    ("share-escape-resolve",
     "paths are resolved without RESOLVE_BENEATH (symlinks may leave "
     "the share)",
     "source3/modules/vfs_default.c",
     "#define VFS_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)",
     "#define VFS_RESOLVE (RESOLVE_NO_MAGICLINKS)"),
    ("read-only-share-truncates",
     "a read-only share lets a CREATE truncate a file (one of two checks: "
     "the share's maximum access denies it too, so this one is expected "
     "to survive)",
     "source3/smbd/files/create_open.c",
     "if (p->read_only_share && disp_truncates(p->disposition)) {",
     "if (false && p->read_only_share && "
     "disp_truncates(p->disposition)) {"),
    ("read-only-share-writable",
     "a read-only share grants write access",
     "source3/smbd/commands/create.c",
     "\ta->max_access = tcon->read_only ? SMBD_MAX_ACCESS_READ_ONLY :",
     "\ta->max_access = false ? SMBD_MAX_ACCESS_READ_ONLY :"),
    ("brlock-io-unchecked",
     "READ and WRITE ignore other opens' byte-range locks",
     "source3/smbd/files/brlock.c",
     "\tif (t == NULL || length == 0) {\n\t\treturn false;\n\t}\n"
     "\tfor (l = t->locks;",
     "\tif (t == NULL || length == 0 || true) {\n\t\treturn false;\n\t}\n"
     "\tfor (l = t->locks;"),
    ("share-modes-ignored",
     "share access never conflicts (no SHARING_VIOLATION)",
     "source3/smbd/files/share_mode.c",
     "\tif ((a1 & SMBD_SHARE_MODE_ACCESS) == 0 ||\n"
     "\t    (a2 & SMBD_SHARE_MODE_ACCESS) == 0) {\n\t\treturn false;",
     "\tif (true || (a1 & SMBD_SHARE_MODE_ACCESS) == 0 ||\n"
     "\t    (a2 & SMBD_SHARE_MODE_ACCESS) == 0) {\n\t\treturn false;"),
    ("control-socket-anyone",
     "the control socket answers any local user",
     "source3/smbd/server/control.c",
     "return cred.uid == 0 || cred.uid == geteuid();",
     "return true;"),
    ("metrics-no-write-bytes",
     "WRITE's bytes are not counted in the metrics",
     "source3/smbd/pipeline/pipeline_response.c",
     "\t\tst->bytes_written += pull_le32(pdu->body + 4);",
     "\t\t(void)pull_le32(pdu->body + 4);"),
    ("close-share-noop",
     "smbcontrol close-share disconnects nobody",
     "source3/smbd/server/control.c",
     "\t\tif (hit && !conn->terminating) {",
     "\t\tif (false && hit && !conn->terminating) {"),
    ("flush-no-sync",
     "a FLUSH is answered without an fsync although `strict sync` is on",
     "source3/smbd/commands/flush.c",
     "\tif (!req->tcon->share->strict_sync) {",
     "\tif (true || !req->tcon->share->strict_sync) {"),
    ("strict-sync-default-no",
     "`strict sync` defaults to no (G6 wants yes)",
     "lib/param/param_table.c",
     '{ "strict sync", LP_BOOL, S(strict_sync), .def = "yes" },',
     '{ "strict sync", LP_BOOL, S(strict_sync), .def = "no" },'),
    ("mic-not-compared",
     "an NTLMSSP AUTHENTICATE with a wrong MIC is accepted",
     "lib/auth/ntlmssp_server.c",
     "\treturn ok ? NT_STATUS_OK : NT_STATUS_LOGON_FAILURE;\n}",
     "\treturn ok || true ? NT_STATUS_OK : NT_STATUS_LOGON_FAILURE;\n}"),
    ("guest-on-any-share",
     "a guest session connects to a share without `guest ok`",
     "source3/smbd/session/share_access.c",
     "\tif (guest && !share->guest_ok) {",
     "\tif (false && guest && !share->guest_ok) {"),
    ("pre-auth-pdu-unbounded",
     "a PDU larger than the connection's limit is read",
     "source3/smbd/transport/transport.c",
     "\tif (len < 32 || len > t->max_pdu) {",
     "\tif (len < 32) {"),
]


def run(cmd, cwd, env=None, timeout=3600, log=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=str(cwd), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    if log is not None:
        log.write(("\n$ %s  (%.0f s, exit %d)\n" % (" ".join(cmd),
                   time.monotonic() - t0, p.returncode)).encode())
        log.write(p.stdout)
        log.flush()
    return p.returncode, p.stdout.decode(errors="replace")


class Worktree:
    """A worktree of HEAD with its own build dir (build-mut)."""

    def __init__(self, base):
        self.path = base / "wt"
        self.env = dict(os.environ, WAFLOCK=".lock-waf_mutation")
        self.env.pop("RINGSMB_SMBD", None)

    def __enter__(self):
        subprocess.run(["git", "worktree", "add", "--detach", "-q",
                        str(self.path), "HEAD"], cwd=str(REPO), check=True)
        os.symlink(REPO / ".venv", self.path / ".venv")
        return self

    def __exit__(self, *exc):
        subprocess.run(["git", "worktree", "remove", "--force",
                        str(self.path)], cwd=str(REPO))

    def waf(self, *args, log=None):
        return run([str(self.path / "buildtools" / "bin" / "waf")] +
                   list(args), self.path, self.env, log=log)

    def smbd(self):
        return self.path / "build-mut" / "source3" / "smbd" / "smbd"


def unit_tests(wt, log):
    """Every unit test program of the build; (ok, first failure)."""
    for prog in sorted((wt.path / "build-mut" / "tests" / "unit").glob(
            "test_*")):
        if not os.access(prog, os.X_OK) or prog.suffix:
            continue
        code, out = run([str(prog)], wt.path, wt.env, timeout=600,
                        log=log)
        if code != 0:
            return False, "unit " + prog.name
    return True, None


def integration(wt, files, log):
    env = dict(wt.env, RINGSMB_SMBD=str(wt.smbd()))
    for f in files:
        if not (wt.path / f).exists():
            continue
        code, out = run([str(wt.path / ".venv" / "bin" / "python3"), "-m",
                         "pytest", "-x", "-q", "-p", "no:cacheprovider", f],
                        wt.path, env, timeout=1800, log=log)
        if code not in (0, 5):          # 5: nothing collected
            failed = [l for l in out.splitlines()
                      if l.startswith("FAILED") or l.startswith("ERROR")]
            return False, (failed[0] if failed else f)
    return True, None


def apply(wt, m):
    """The mutant put in; the file's original text, or None when the
    text to replace is not there exactly once."""
    _, _, path, old, new = m
    f = wt.path / path
    text = f.read_text()
    if text.count(old) != 1:
        return None
    f.write_text(text.replace(old, new))
    return text


def write_doc(results, suite, seconds, integration_only=False):
    doc = REPO / "docs" / "reliability.md"
    tag = "mutation-wire" if integration_only else "mutation"
    begin, end = "<!-- %s:begin -->" % tag, "<!-- %s:end -->" % tag
    killed = sum(1 for r in results if r["outcome"] == "killed")
    lines = [begin, "## Mutation testing" +
             (" through the wire alone" if integration_only else ""), "",
             "`tests/mutation/run.py --suite %s%s` on %s (git %s, %.0f "
             "min): "
             "**%d of %d mutants killed**. Each mutant is one small bug put "
             "into the daemon; the suite runs against it in a worktree of "
             "its own; the first failing step kills it%s." % (
                 suite, " --integration-only" if integration_only else "",
                 time.strftime("%Y-%m-%d"),
                 subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                cwd=str(REPO), stdout=subprocess.PIPE,
                                text=True).stdout.strip(),
                 seconds / 60, killed, len(results),
                 "; unit tests skipped (--integration-only), so each kill is "
                 "a test through the wire" if integration_only else ""), "",
             "| mutant | the bug | outcome | killed by |", "|---|---|---|---|"]
    for r in results:
        lines.append("| %s | %s | %s | %s |" % (
            r["id"], r["what"], r["outcome"],
            (r.get("by") or "").replace("|", "\\|")))
    lines += ["", "A mutant that survives is a test that is missing, "
              "unless another check makes the bug harmless (its row says "
              "so).", end]
    block = "\n".join(lines) + "\n"
    text = doc.read_text() if doc.exists() else "# Reliability\n\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + block + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    doc.write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=("quick", "full"), default="quick")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("--integration-only", action="store_true",
                    help="skip the unit tests: does the wire catch it?")
    a = ap.parse_args()
    mutants = [m for m in MUTANTS
               if not a.only or m[0] in a.only.split(",")]
    if a.list:
        for m in mutants:
            print("%-28s %s (%s)" % (m[0], m[1], m[2]))
        return 0
    files = QUICK if a.suite == "quick" else sorted(
        str(p.relative_to(REPO))
        for p in (REPO / "tests" / "integration").glob("test_*.py"))
    base = Path(tempfile.mkdtemp(prefix="ringsmb-mutation-"))
    log = open(base / "mutation.log", "wb")
    print("mutation: work in %s (log: mutation.log)" % base, flush=True)
    results = []
    t0 = time.monotonic()
    with Worktree(base) as wt:
        code, out = wt.waf("configure", "-o", "build-mut", log=log)
        if code != 0 or wt.waf("build", log=log)[0] != 0:
            print("mutation: the unmutated tree does not build; see log")
            return 1
        for m in mutants:
            r = {"id": m[0], "what": m[1], "file": m[2]}
            t1 = time.monotonic()
            original = apply(wt, m)
            if original is None:
                r["outcome"] = "does not apply"
            elif wt.waf("build", log=log)[0] != 0:
                r["outcome"] = "does not build"
            else:
                ok, by = (True, None) if a.integration_only else \
                    unit_tests(wt, log)
                if ok:
                    ok, by = integration(wt, files, log)
                r["outcome"] = "survived" if ok else "killed"
                r["by"] = by
            if original is not None:
                (wt.path / m[2]).write_text(original)
            r["seconds"] = round(time.monotonic() - t1)
            results.append(r)
            print("mutation: %-28s %-14s %s" % (r["id"], r["outcome"],
                                                 r.get("by") or ""),
                  flush=True)
    seconds = time.monotonic() - t0
    killed = sum(1 for r in results if r["outcome"] == "killed")
    print("mutation: %d of %d killed in %.0f s" % (killed, len(results),
                                                    seconds))
    (base / "results.json").write_text(json.dumps(results, indent=1))
    if a.write_doc:
        write_doc(results, a.suite, seconds, a.integration_only)
    shutil.rmtree(base / "wt", ignore_errors=True)
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
