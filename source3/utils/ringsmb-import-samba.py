#!/usr/bin/python3
"""ringsmb-import-samba: take over an existing Samba's users and SIDs.

Reads, through Samba's own tools (`net`, `pdbedit` from the samba
package), what the Samba configured by SAMBA_CONF knows:

  - its domain SID (`net getlocalsid`) and the SID of every user of its
    passdb (`pdbedit -L -v`, tdbsam by default): written to ringsmb's SID
    file, `private dir`/sids (docs/accounts.md "SIDs"), replacing it, so
    the NT ACLs Samba stored name the same users on ringsmb;
  - its users' password hashes (`pdbedit -L -w`, smbpasswd lines): added
    to ringsmb's smbpasswd file; a user ringsmb has already keeps its
    line.  (Not `pdbedit -e smbpasswd:`: that backend derives each uid
    from the RID, which for tdbsam's RIDs gives uid 0 or nothing.)

ringsmb's smbd reads the SID file at start and at SIGHUP.  Nothing of
Samba is linked into ringsmb: this script is the only place that reads
Samba's databases, and only through Samba's tools.

usage: ringsmb-import-samba [-s SAMBA_CONF] [-c RINGSMB_CONF]
                            [--no-passwords] [-n]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
TIMEOUT = 120
RID_MIN = 1000


class Failed(Exception):
    pass


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    except FileNotFoundError:
        raise Failed("%s: not found (install the samba package)" % cmd[0])
    except subprocess.TimeoutExpired:
        raise Failed("%s: no answer in %d s" % (" ".join(cmd), TIMEOUT))
    if p.returncode != 0:
        raise Failed("%s failed: %s" % (" ".join(cmd),
                                         p.stderr.decode(errors="replace")
                                         .strip()))
    return p.stdout.decode(errors="replace")


def samba_domain_sid(samba_conf):
    out = run(["net", "-s", samba_conf, "getlocalsid"])
    m = re.search(r"\bis:\s*(S-1-5-21-\d+-\d+-\d+)\s*$", out, re.M)
    if not m:
        raise Failed("net getlocalsid: no domain SID in %r" % out.strip())
    return m.group(1)


def samba_users(samba_conf, domain):
    """[(unix name, RID)] of the passdb users in domain, in order."""
    out = run(["pdbedit", "-s", samba_conf, "-L", "-v"])
    users, name = [], None
    for line in out.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "Unix username":
            name = value
        elif key == "User SID" and name:
            prefix, _, rid = value.rpartition("-")
            if prefix == domain and rid.isdigit() and \
                    int(rid) >= RID_MIN and not re.search(r"\s", name):
                users.append((name, int(rid)))
            else:
                print("skipped %s: SID %s is not a user of %s"
                      % (name, value, domain), file=sys.stderr)
            name = None
    return users


def ringsmb_paths(ringsmb_conf):
    """(private dir, smb passwd file) as ringsmb's testparm reads them."""
    testparm = os.path.join(HERE, "testparm")
    cmd = [testparm, "-s", "-v"] + ([ringsmb_conf] if ringsmb_conf else [])
    out = run(cmd)
    vals = {}
    for line in out.splitlines():
        key, eq, value = line.strip().partition(" = ")
        if eq:
            vals[key] = value
    private = vals.get("private dir")
    passwd = vals.get("smb passwd file")
    if not private or not passwd:
        raise Failed("%s printed no private dir / smb passwd file" % testparm)
    return private, passwd


def write_atomic(path, text):
    d = os.path.dirname(path) or "."
    os.makedirs(d, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp",
                               dir=d)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.rename(tmp, path)
    finally:
        if fd >= 0:
            os.close(fd)
        if os.path.exists(tmp):
            os.unlink(tmp)


def sid_file_text(domain, users):
    return ("# ringsmb: the users' SIDs (docs/accounts.md \"SIDs\"),\n"
            "# imported from Samba by ringsmb-import-samba\n"
            "domain %s\n" % domain +
            "".join("user %s %d\n" % u for u in users))


def merge_passwords(samba_conf, passwd_path, dry_run):
    """Samba's users' smbpasswd lines into passwd_path: names it has
    already (compared case-insensitively, as logons are) keep theirs."""
    out = run(["pdbedit", "-s", samba_conf, "-L", "-w"])
    theirs = [l.rstrip() for l in out.splitlines()
              if l.count(":") >= 6 and not l.startswith("#")]
    try:
        with open(passwd_path) as f:
            ours = f.read()
    except FileNotFoundError:
        ours = ""
    have = {l.split(":", 1)[0].upper() for l in ours.splitlines()
            if ":" in l and not l.lstrip().startswith("#")}
    added = [l for l in theirs if l.split(":", 1)[0].upper() not in have]
    kept = len(theirs) - len(added)
    if added and not dry_run:
        if ours and not ours.endswith("\n"):
            ours += "\n"
        write_atomic(passwd_path, ours + "".join(l + "\n" for l in added))
    return [l.split(":", 1)[0] for l in added], kept


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="ringsmb-import-samba",
        description="Import an existing Samba's domain SID, users' RIDs "
        "and password hashes into ringsmb.")
    ap.add_argument("-s", "--samba-conf", default="/etc/samba/smb.conf",
                    help="the Samba's smb.conf (default %(default)s)")
    ap.add_argument("-c", "--ringsmb-conf", default=None,
                    help="ringsmb's smb.conf (default: its testparm's)")
    ap.add_argument("--no-passwords", action="store_true",
                    help="only the SIDs, not the password hashes")
    ap.add_argument("-n", "--dry-run", action="store_true",
                    help="print what would be written, write nothing")
    a = ap.parse_args(argv)
    try:
        domain = samba_domain_sid(a.samba_conf)
        users = samba_users(a.samba_conf, domain)
        private, passwd = ringsmb_paths(a.ringsmb_conf)
        sid_path = os.path.join(private, "sids")
        text = sid_file_text(domain, users)
        if a.dry_run:
            sys.stdout.write(text)
        else:
            write_atomic(sid_path, text)
        print("%s %s: domain %s, %d users' RIDs"
              % ("would write" if a.dry_run else "wrote", sid_path, domain,
                 len(users)))
        if not a.no_passwords:
            added, kept = merge_passwords(a.samba_conf, passwd, a.dry_run)
            print("%s %s: %d users added (%s), %d already there"
                  % ("would update" if a.dry_run else "updated", passwd,
                     len(added), ", ".join(added) or "none", kept))
        if not a.dry_run:
            print("restart smbd or send it SIGHUP to use the new SIDs")
    except (Failed, OSError) as e:
        print("ringsmb-import-samba: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
