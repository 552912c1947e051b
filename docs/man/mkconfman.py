#!/usr/bin/env python3
"""Builds smb.conf(5) from the parameter table and docs/smb.conf.md.

    mkconfman.py PARAMLIST SMBCONF_MD TEMPLATE OUT

PARAMLIST is `testparm --parameter-list` (name, scope, default, synonyms,
inverted synonyms, type; tab-separated), the table smbd parses with.
Each parameter's description is its row in docs/smb.conf.md's
"Global parameters" / "Share parameters" tables; name, scope, type,
default and synonyms come from the table, so the page cannot say
something the table does not.  A table parameter without a row is
still listed, marked, and named on stderr (tests/integration/
test_service.py fails on it).  TEMPLATE holds the hand-written
sections and a line @PARAMETERS@.
"""
import re
import sys

SECTIONS = {"## Global parameters": "global", "## Share parameters": "share"}


def md_rows(md_text):
    """{name: (md default cell, meaning cell)} from the two tables."""
    rows = {}
    section = None
    for line in md_text.splitlines():
        if line.startswith("#"):
            section = SECTIONS.get(line.strip())
            continue
        if section is None or not line.startswith("| "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|", 4)]
        if len(cells) < 5 or cells[0] in ("parameter", "") or \
                set(cells[0]) <= set("-"):
            continue
        rows[cells[0]] = (cells[3], cells[4])
    return rows


def table(paramlist_text):
    out = []
    for line in paramlist_text.splitlines():
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) != 6:
            sys.exit("mkconfman: bad --parameter-list line: %r" % line)
        out.append(dict(name=f[0], scope=f[1], default=f[2],
                        synonyms=f[3], inverted=f[4], type=f[5]))
    return out


def roff_text(s):
    """Markdown-ish cell text as roff running text."""
    s = s.replace("\\", "\\e")
    s = re.sub(r"`([^`]*)`", r"\\fB\1\\fR", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", s)
    s = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in s)
    # a line must not start with a control character
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def roff_value(s):
    return "\\fB%s\\fR" % roff_text(s.replace("`", ""))


def entry(p, rows):
    lines = [".TP", '.B "%s"' % p["name"].replace('"', '\\(dq')]
    md = rows.get(p["name"])
    facts = ["Type: %s." % roff_text(p["type"])]
    if p["default"] not in ("", "(computed)"):
        facts.append("Default: %s." % roff_value(p["default"]))
    elif md is not None and md[0]:
        facts.append("Default: %s." % roff_text(md[0]))
    if p["synonyms"]:
        facts.append("Synonyms: %s." % roff_text(p["synonyms"]))
    if p["inverted"]:
        facts.append("Inverted synonyms: %s." % roff_text(p["inverted"]))
    lines.append(" ".join(facts))
    lines.append(".br")
    if md is None:
        lines.append("(not described in docs/smb.conf.md)")
    elif md[1]:
        lines.append(roff_text(md[1]))
    else:
        lines.append("As in Samba.")
    return lines


def parameters(params, rows):
    out = []
    for scope, title in (("global", "GLOBAL PARAMETERS"),
                         ("share", "SHARE PARAMETERS")):
        out.append('.SH "%s"' % title)
        if scope == "share":
            out.append("Set in a share, or in \\fB[global]\\fR as the "
                       "default of every share.")
        else:
            out.append("Only in \\fB[global]\\fR.")
        for p in params:
            if p["scope"] == scope:
                out.extend(entry(p, rows))
    return out


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    params = table(open(argv[1], encoding="utf-8").read())
    rows = md_rows(open(argv[2], encoding="utf-8").read())
    missing = [p["name"] for p in params if p["name"] not in rows]
    for name in missing:
        sys.stderr.write("mkconfman: parameter %r has no row in %s\n"
                         % (name, argv[2]))
    template = open(argv[3], encoding="utf-8").read()
    if "@PARAMETERS@\n" not in template:
        sys.exit("mkconfman: no @PARAMETERS@ line in %s" % argv[3])
    body = "\n".join(parameters(params, rows)) + "\n"
    with open(argv[4], "w", encoding="utf-8") as f:
        f.write(template.replace("@PARAMETERS@\n", body))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
