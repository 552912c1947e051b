"""Logging as Samba admins expect (issue 16; docs/logging.md): %I and %U
in 'log file' with real smbclient logons, rotation at 'max log size',
debug classes ('log level = 0 auth_audit:1'), and 'logging = systemd'
against a journal socket of the test's own (RINGSMB_JOURNAL_SOCKET).

The server here logs as a daemon does: to 'log file' at the configured
level (no --debug-stdout, no -d), so the assertions read the files."""
import os
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

import accounts
from conftest import (SMBCLIENT, TARGET, RingsmbServer, finish_server,
                      ringsmb_binary, tool_binary)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's log files and smbpasswd")

USER, PASSWORD = accounts.name("alice"), "S3cret-pw"
AUTH = "Auth: [SMB2,(null)]"


class FileLogServer(RingsmbServer):
    """Logs to 'log file' as configured; env adds to the environment."""

    def __init__(self, tree, extra_global, shares=None, env=None):
        super().__init__(tree, "default", extra_global, shares)
        self.extra_env = dict(env or {})

    def command(self):
        return [str(ringsmb_binary()), "-F", "-s", str(self.conf)]

    def env(self):
        env = super().env()
        env.update(self.extra_env)
        return env


def start(share_tree, extra, shares=None, env=None):
    passwd = Path(tempfile.mkdtemp(prefix="ringsmb-passdb-")) / "smbpasswd"
    extra = dict(extra)
    extra["smb passwd file"] = str(passwd)
    srv = FileLogServer(share_tree, extra, shares, env).start()
    p = subprocess.run([str(tool_binary("smbpasswd")), "-c", str(srv.conf),
                        "-s", "-a", USER],
                       input=("%s\n%s\n" % (PASSWORD, PASSWORD)).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=30)
    assert p.returncode == 0, p.stdout
    return srv


def smbclient(srv, creds, cmd="ls", share="share"):
    p = subprocess.run([SMBCLIENT, "//127.0.0.1/%s" % share, "-p",
                        str(srv.port), "-U", creds, "-m", "SMB3_11",
                        "--option=client min protocol=SMB2_02", "-c", cmd],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


def read(path):
    return Path(path).read_text(errors="replace")


def files(d):
    return sorted(p.name for p in Path(d).iterdir())


def stop(srv):
    """Stops the server: every line is written once it has exited."""
    finish_server(srv)


def test_log_file_per_client_address(share_tree, accounts, tmp_path):
    """log.%I: a client's lines go to log.<its address>, the daemon's to
    the file named with Samba's parent-smbd values (%I = 0.0.0.0)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    srv = start(share_tree, {"log file": "%s/log.%%I" % logs})
    try:
        rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD))
        assert rc == 0, out
        rc, out = smbclient(srv, "%s%%wrong" % USER)
        assert rc != 0
    finally:
        stop(srv)
    assert files(logs) == ["log.0.0.0.0", "log.127.0.0.1"]
    client = read(logs / "log.127.0.0.1")
    ok = [l for l in client.splitlines()
          if AUTH in l and "status [NT_STATUS_OK]" in l]
    bad = [l for l in client.splitlines()
           if AUTH in l and "status [NT_STATUS_LOGON_FAILURE]" in l]
    assert len(ok) == 1 and len(bad) == 1, client
    assert "\\[%s] with [NTLMv2]" % USER in ok[0]
    assert "remote host [127.0.0.1:" in ok[0]
    assert AUTH not in read(logs / "log.0.0.0.0")


def test_log_file_per_user(share_tree, accounts, tmp_path):
    """log.%U: after a logon the connection's lines go to log.<user>;
    a failed logon names no file, a guest logon is filed under the guest
    account, and no name a client sends leaves the log directory."""
    logs = tmp_path / "logs"
    logs.mkdir()
    srv = start(share_tree, {"log file": "%s/log.%%U" % logs})
    try:
        rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD))
        assert rc == 0, out
        rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD),
                            share="nosuchshare")
        assert rc != 0
        rc, out = smbclient(srv, "%s%%wrong" % USER)
        assert rc != 0
        # unknown users, with names that would climb out of the
        # directory, become the guest (map to guest = Bad User)
        rc, out = smbclient(srv, "../../escaped%wrong")
        assert rc == 0, out
        rc, out = smbclient(srv, "../Guestlike%x")
        assert rc == 0, out
    finally:
        stop(srv)
    assert files(logs) == sorted(["log.", "log.%s" % USER.lower(),
                                  "log.nobody"])
    assert not any("escaped" in p.name or "uestlike" in p.name
                   for p in tmp_path.rglob("*"))
    user_log = read(logs / ("log.%s" % USER.lower()))
    assert "status [NT_STATUS_OK]" in user_log
    assert "tree connect to [nosuchshare] by user [%s]" % USER in user_log
    assert "NT_STATUS_LOGON_FAILURE" not in user_log
    # a failed logon sets no name: the file of no user
    failed = read(logs / "log.")
    assert "\\[%s] with [NTLMv2] status [NT_STATUS_LOGON_FAILURE]" \
        % USER in failed, failed
    guest = read(logs / "log.nobody")
    assert "escaped] with [NTLMv2] status [NT_STATUS_OK]" in guest, guest
    assert "Guestlike] with [NTLMv2] status [NT_STATUS_OK]" in guest
    assert guest.count("mapped to guest") == 2, guest


def test_max_log_size_rotates(share_tree, accounts, tmp_path):
    """max log size = 1 (KiB) at log level 3: the file becomes
    log.smbd.old past 1 KiB and a new log.smbd starts."""
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "log.smbd"
    old = logs / "log.smbd.old"
    srv = start(share_tree, {"log file": str(log), "log level": "3",
                             "max log size": "1"})
    try:
        for _ in range(30):
            rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD))
            assert rc == 0, out
            # between the rename and the new file, log.smbd is missing
            if old.exists() and log.exists():
                break
    finally:
        stop(srv)
    assert files(logs) == ["log.smbd", "log.smbd.old"]
    assert old.stat().st_size >= 1024
    # rotated after the line that crossed 1 KiB: under 2 KiB each
    assert old.stat().st_size < 2048
    assert log.stat().st_size < 2048
    text = read(old)
    assert text.endswith("\n")
    assert all(l.startswith("[") for l in text.splitlines()), text


def test_max_log_size_zero_is_unlimited(share_tree, accounts, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "log.smbd"
    srv = start(share_tree, {"log file": str(log), "log level": "3",
                             "max log size": "0"})
    try:
        for _ in range(8):
            rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD))
            assert rc == 0, out
    finally:
        stop(srv)
    assert files(logs) == ["log.smbd"]
    assert log.stat().st_size > 2048


FG_SHARE = [{"name": "fg", "path": None, "read_only": True,
             "params": {"force group": "rsmbt-no-such-group"}}]


@pytest.mark.parametrize("level,want_plain", [("0 auth_audit:1", False),
                                              ("1", True)])
def test_audit_class_level(share_tree, accounts, tmp_path, level,
                           want_plain):
    """log level = 0 auth_audit:1: the audit lines (a wrong password, a
    refused tree connect) are written, a level-1 line of another class
    (the missing 'force group') is not; at log level 1 both are."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shares = [dict(FG_SHARE[0], path=str(share_tree.share))]
    srv = start(share_tree, {"log file": str(logs / "log.smbd"),
                             "log level": level}, shares)
    try:
        rc, out = smbclient(srv, "%s%%wrong" % USER)
        assert rc != 0
        rc, out = smbclient(srv, "%s%%%s" % (USER, PASSWORD), share="fg")
        assert rc != 0, out
    finally:
        stop(srv)
    text = read(logs / "log.smbd")
    assert "status [NT_STATUS_LOGON_FAILURE]" in text, text
    assert "tree connect to [fg] by user [%s]" % USER in text, text
    plain = 'force group "rsmbt-no-such-group": no such group'
    assert (plain in text) == want_plain, text


def test_logging_systemd_journal_fields(share_tree, accounts, tmp_path):
    """logging = systemd: each line is a journald datagram with MESSAGE,
    PRIORITY, SYSLOG_IDENTIFIER=smbd, CODE_FILE, CODE_LINE; the file
    backend is off, so the log file gets none of them."""
    logs = tmp_path / "logs"
    logs.mkdir()
    sock_path = str(tmp_path / "journal.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(5)
    srv = start(share_tree, {"log file": str(logs / "log.smbd"),
                             "logging": "systemd"},
                env={"RINGSMB_JOURNAL_SOCKET": sock_path})
    try:
        rc, out = smbclient(srv, "%s%%wrong" % USER)
        assert rc != 0
        grams = []
        while not any(b"NT_STATUS_LOGON_FAILURE" in g for g in grams):
            grams.append(sock.recv(65536))
    finally:
        sock.close()
        stop(srv)
    g = [g for g in grams if b"NT_STATUS_LOGON_FAILURE" in g][0]
    fields = dict(l.split(b"=", 1) for l in g.rstrip(b"\n").split(b"\n"))
    assert fields[b"MESSAGE"].startswith(AUTH.encode()), g
    assert fields[b"PRIORITY"] == b"4"          # level 1: LOG_WARNING
    assert fields[b"SYSLOG_IDENTIFIER"] == b"smbd"
    assert fields[b"CODE_FILE"].endswith(b"commands/sesssetup.c"), g
    assert int(fields[b"CODE_LINE"]) > 0
    assert set(fields) == {b"MESSAGE", b"PRIORITY", b"SYSLOG_IDENTIFIER",
                           b"CODE_FILE", b"CODE_LINE"}
    assert AUTH not in read(logs / "log.smbd")


def test_logging_systemd_without_journal(share_tree, accounts, tmp_path):
    """No journald: the lines go to standard error, saying so once."""
    missing = str(tmp_path / "no-journal.sock")
    srv = start(share_tree, {"logging": "systemd"},
                env={"RINGSMB_JOURNAL_SOCKET": missing})
    try:
        rc, out = smbclient(srv, "%s%%wrong" % USER)
        assert rc != 0
    finally:
        srv.stop()
        text = srv.log_text()
        srv.cleanup()
    assert text.count("logging = systemd: cannot send to %s" % missing) \
        == 1, text
    assert "NT_STATUS_LOGON_FAILURE" in text, text


def test_testparm_shows_logging_parameters(tmp_path):
    """testparm -v lists the new parameters; a bad backend is an error
    naming file, line and parameter; an unknown class a warning."""
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n  log level = 1 auth_audit:3\n"
                    "  max log size = 10\n  logging = syslog@1 file\n")
    p = subprocess.run([str(tool_binary("testparm")), "-s", "-v",
                        str(conf)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    out = p.stdout.decode()
    assert p.returncode == 0, out
    assert "log level = 1 auth_audit:3" in out
    assert "max log size = 10" in out
    assert "logging = syslog@1 file" in out
    conf.write_text("[global]\n  log level = 1 nosuchclass:3\n"
                    "  logging = file journal\n")
    p = subprocess.run([str(tool_binary("testparm")), "-s", str(conf)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=30)
    out = p.stdout.decode()
    assert p.returncode != 0, out
    assert ('%s:2: parameter "log level": unknown debug class' % conf) \
        in out, out
    assert ('%s:3: invalid value "file journal" for parameter "logging"'
            % conf) in out, out
