"""Samba's smbclient against the server: ls, allinfo, get (sha256), a large
directory, and path confinement, for every SMB2/3 dialect and for the
server variants default / vfs_io_uring / no_io_uring (see conftest)."""
import re
import subprocess

import pytest

from conftest import (DATA_FILES, MANY_COUNT, PROBE_DATA, PROBE_NAME,
                      SECRET_DATA, SMBCLIENT, ShareTree, sha256_file)

DIALECTS = ("SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02", "SMB3_11")
SMALL_FILES = [n for n, size in DATA_FILES.items() if size <= (1 << 20)]
REFUSED = ("NT_STATUS_OBJECT_NAME_NOT_FOUND", "NT_STATUS_OBJECT_PATH_NOT_FOUND",
           "NT_STATUS_ACCESS_DENIED", "NT_STATUS_OBJECT_NAME_INVALID")

# "  name    ATTRS   size  Sun Nov 22 22:05:19 2026"
LS_LINE = re.compile(r"^  (.+?)\s+([A-Z]*)\s+(\d+)\s+"
                     r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$")


def smbclient(srv, commands, dialect="SMB3_11", timeout=60):
    argv = [SMBCLIENT, "-N", "//%s/share" % srv.host, "-p", str(srv.port),
            "-s", str(srv.client_conf), "-m", dialect,
            "--option=client min protocol=SMB2_02", "-c", commands]
    try:
        r = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail("smbclient timed out after %ss: %s\n%s"
                    % (timeout, commands, e.stdout))
    r.output = r.stdout + r.stderr
    return r


def check_ok(r, what):
    assert r.returncode == 0, "%s failed (rc %d):\n%s" % (what, r.returncode,
                                                          r.output[-3000:])
    assert "NT_STATUS_" not in r.output, "%s:\n%s" % (what, r.output[-3000:])


def parse_ls(output):
    entries = {}
    for line in output.splitlines():
        m = LS_LINE.match(line)
        if m:
            entries[m.group(1)] = (m.group(2), int(m.group(3)))
    return entries


@pytest.mark.parametrize("dialect", DIALECTS)
def test_ls(server, dialect):
    r = smbclient(server, "ls", dialect)
    check_ok(r, "ls")
    entries = parse_ls(r.stdout)
    expected = dict(DATA_FILES)
    expected[PROBE_NAME] = len(PROBE_DATA)
    expected["link_inside"] = len(PROBE_DATA)   # in-share symlink: followed
    for name, size in expected.items():
        assert name in entries, "%s missing from ls:\n%s" % (name, r.stdout)
        attrs, got = entries[name]
        assert got == size, "%s: size %d, expected %d" % (name, got, size)
        assert "D" not in attrs, "%s listed as a directory" % name
    for name in ("sub", "many"):
        assert name in entries and "D" in entries[name][0], r.stdout
    assert "secret.txt" not in entries


@pytest.mark.parametrize("dialect", DIALECTS)
def test_allinfo(server, dialect):
    r = smbclient(server, "allinfo k64p1.bin; allinfo empty.bin; allinfo sub",
                  dialect)
    # FileAlternateNameInformation (8.3 names) is outside this slice:
    # smbclient reports its failure and goes on; every other query counts.
    r.output = "\n".join(l for l in r.output.splitlines()
                         if "getting alt name" not in l)
    check_ok(r, "allinfo")
    blocks = re.split(r"(?m)^altname:", r.stdout)[1:]
    assert len(blocks) == 3, r.stdout
    info = {}
    for name, b in zip(("k64p1.bin", "empty.bin", "sub"), blocks):
        m = re.search(r"(?m)^attributes: ([A-Z]*) \(([0-9a-f]+)\)", b)
        assert m, "no attributes for %s:\n%s" % (name, b)
        info[name] = (int(m.group(2), 16), b)
    for name, size in (("k64p1.bin", 64 * 1024 + 1), ("empty.bin", 0)):
        attrs, text = info[name]
        assert not attrs & 0x10, "%s has FILE_ATTRIBUTE_DIRECTORY" % name
        assert "stream: [::$DATA], %d bytes" % size in text, text
        for t in ("create_time:", "write_time:", "change_time:"):
            assert t in text
    assert info["sub"][0] & 0x10, "sub lacks FILE_ATTRIBUTE_DIRECTORY"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_get_small(server, dialect, share_tree, tmp_path):
    names = SMALL_FILES + [PROBE_NAME, "link_inside", "sub\\inner.txt"]
    cmds = ["lcd %s" % tmp_path] + [
        "get %s %s" % (n, n.replace("\\", "_")) for n in names]
    r = smbclient(server, "; ".join(cmds), dialect)
    check_ok(r, "get")
    for n in names:
        got = tmp_path / n.replace("\\", "_")
        assert got.exists(), "%s not downloaded:\n%s" % (n, r.output)
        src = share_tree.share / n.replace("\\", "/")
        assert sha256_file(got) == sha256_file(src), "%s differs" % n


@pytest.mark.parametrize("dialect", DIALECTS)
def test_get_100m(server, dialect, share_tree, tmp_path):
    r = smbclient(server, "lcd %s; get m100.bin" % tmp_path, dialect,
                  timeout=120)
    check_ok(r, "get m100.bin")
    got = tmp_path / "m100.bin"
    assert got.stat().st_size == DATA_FILES["m100.bin"]
    assert sha256_file(got) == share_tree.hashes["m100.bin"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_many_files(server, dialect):
    r = smbclient(server, "ls many\\*", dialect, timeout=90)
    check_ok(r, "ls many")
    entries = parse_ls(r.stdout)
    want = {ShareTree.many_name(i) for i in range(MANY_COUNT)}
    missing = want - set(entries)
    assert not missing, "%d of %d names missing, e.g. %s" % (
        len(missing), MANY_COUNT, sorted(missing)[:5])
    extra = set(entries) - want - {".", ".."}
    assert not extra, "unexpected names %s" % sorted(extra)[:5]
    assert entries["f01234.txt"][1] == len(b"1234\n")


def escape_paths(tree):
    abs_secret = str(tree.secret).lstrip("/").replace("/", "\\")
    return {
        "dotdot": "../secret.txt",
        "sub-dotdot": "sub\\..\\..\\secret.txt",
        "link-relative": "link_secret",
        "link-absolute": "link_secret_abs",
        "link-root-secret": "link_root\\" + abs_secret,
        "link-root-passwd": "link_root\\etc\\passwd",
        "link-sibling-dir": "link_sibling\\secret2.txt",
        "link-sibling-file": "link_sibling_file",
    }


@pytest.mark.parametrize("dialect", ("SMB2_02", "SMB3_11"))
@pytest.mark.parametrize("case", ["dotdot", "sub-dotdot", "link-relative",
                                  "link-absolute", "link-root-secret",
                                  "link-root-passwd", "link-sibling-dir",
                                  "link-sibling-file"])
def test_confinement(server, share_tree, tmp_path, case, dialect):
    """Nothing outside the share is served (CVE-2015-5252, CVE-2017-2619).
    Note: smbclient folds '..' itself before sending, so the '..' forms
    here test the client+server pair; tests/integration/test_badinput.py
    sends the raw '..' names to the server."""
    remote = escape_paths(share_tree)[case]
    r = smbclient(server, "lcd %s; get %s out" % (tmp_path, remote), dialect)
    out = tmp_path / "out"
    leaked = out.exists() and (SECRET_DATA in out.read_bytes()
                               or out.stat().st_size > 0)
    assert not leaked, "%s: bytes outside the share were served" % remote
    assert r.returncode != 0, "get %s succeeded:\n%s" % (remote, r.output)
    assert any(s in r.output for s in REFUSED), (
        "get %s not refused with one of %s:\n%s" % (remote, REFUSED,
                                                     r.output))
