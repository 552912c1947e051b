"""The daemon as an admin runs it: daemon mode with a pid file and a log
file, SIGHUP reloading the shares, SIGTERM stopping it; and testparm
judging configurations.  ringsmb only."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SMBCLIENT, TARGET, free_port, ringsmb_binary, tool_binary

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's own daemon behaviour")

CONF = """[global]
smb ports = {port}
interfaces = 127.0.0.1
bind interfaces only = yes
map to guest = Bad User
pid directory = {tmp}/run/nested
log file = {tmp}/log.smbd
log level = 2
[a]
path = {tmp}/a
guest ok = yes
"""

CONF_B = """[b]
path = {tmp}/b
guest ok = yes
"""


def wait_for(pred, secs=15.0):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purpose
    stat = Path("/proc/%d/stat" % pid).read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def ls(port, share):
    p = subprocess.run([SMBCLIENT, "-N", "//127.0.0.1/" + share, "-p",
                        str(port), "-c", "ls"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    return p.returncode, p.stdout.decode(errors="replace")


def test_daemon_pidfile_sighup_sigterm(tmp_path):
    # the guest acts as nobody (issue 11): it must be able to reach the
    # shares below pytest's 0700 temporary directories
    for d in (tmp_path, tmp_path.parent, tmp_path.parent.parent):
        os.chmod(d, os.stat(d).st_mode | 0o011)
    port = free_port()
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / (d + ".txt")).write_bytes(b"x")
    conf = tmp_path / "smb.conf"
    conf.write_text(CONF.format(port=port, tmp=tmp_path))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    p = subprocess.run([str(ringsmb_binary()), "-s", str(conf)], env=env,
                       timeout=30)
    assert p.returncode == 0            # the parent exits at once
    pidfile = tmp_path / "run" / "nested" / "smbd.pid"
    assert wait_for(pidfile.exists)
    pid = int(pidfile.read_text())
    try:
        assert alive(pid)
        rc, out = ls(port, "a")
        assert rc == 0 and "a.txt" in out, out
        rc, out = ls(port, "b")
        assert "NT_STATUS_BAD_NETWORK_NAME" in out, out
        conf.write_text(CONF.format(port=port, tmp=tmp_path) +
                        CONF_B.format(tmp=tmp_path))
        os.kill(pid, signal.SIGHUP)
        assert wait_for(lambda: "configuration reloaded" in
                        (tmp_path / "log.smbd").read_text())
        rc, out = ls(port, "b")
        assert rc == 0 and "b.txt" in out, out
    finally:
        os.kill(pid, signal.SIGTERM)
    assert wait_for(lambda: not alive(pid))
    log = (tmp_path / "log.smbd").read_text()
    assert "shutting down" in log
    assert "AddressSanitizer" not in log and "runtime error:" not in log


    assert not pidfile.exists()         # removed at exit


def smbd(*args, timeout=30):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    return subprocess.run([str(ringsmb_binary())] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout)


def test_pidfile_foreground_and_second_instance(tmp_path):
    """The pid file is written in the foreground too, held while the
    server runs: a second smbd, in the foreground or as a daemon, says
    on the terminal who holds it and exits 1; at SIGTERM the file goes."""
    port = free_port()
    (tmp_path / "a").mkdir()
    conf = tmp_path / "smb.conf"
    conf.write_text(CONF.format(port=port, tmp=tmp_path))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    proc = subprocess.Popen([str(ringsmb_binary()), "-F", "-s", str(conf)],
                            env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    pidfile = tmp_path / "run" / "nested" / "smbd.pid"
    try:
        assert wait_for(lambda: pidfile.exists() and
                        pidfile.read_text().strip() == str(proc.pid))
        for mode in (["-F"], []):
            p = smbd(*mode, "-s", str(conf))
            err = p.stderr.decode()
            assert p.returncode == 1, err
            assert "already running: process %d holds %s" % (
                proc.pid, pidfile) in err, err
        assert alive(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert proc.returncode == 0
    assert not pidfile.exists()


def test_samba_command_line_options(tmp_path):
    """-D, -l DIR, --no-process-group and --option=name=value as Samba's
    smbd takes them: --option wins over the file (here the port), -l
    puts the log in DIR/log.smbd; a malformed --option is refused."""
    for d in (tmp_path, tmp_path.parent, tmp_path.parent.parent):
        os.chmod(d, os.stat(d).st_mode | 0o011)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "a.txt").write_bytes(b"x")
    conf = tmp_path / "smb.conf"
    conf.write_text(CONF.format(port=1, tmp=tmp_path))
    port = free_port()
    logs = tmp_path / "logs"
    p = smbd("-D", "--no-process-group", "-s", str(conf), "-l", str(logs),
             "--option=smb ports=%d" % port, "--option", "log level = 3")
    assert p.returncode == 0, p.stderr.decode()
    pidfile = tmp_path / "run" / "nested" / "smbd.pid"
    assert wait_for(pidfile.exists)
    pid = int(pidfile.read_text())
    try:
        rc, out = ls(port, "a")
        assert rc == 0 and "a.txt" in out, out
        assert wait_for(lambda: (logs / "log.smbd").exists())
    finally:
        os.kill(pid, signal.SIGTERM)
    assert wait_for(lambda: not alive(pid))
    assert not (tmp_path / "log.smbd").exists()     # -l won
    for bad in ("--option=nonsense", "--option=smb ports=notaport"):
        p = smbd("-F", "-s", str(conf), bad)
        err = p.stderr.decode()
        assert p.returncode == 1, err
        assert "--option" in err and "cannot start" in err, err


def run_testparm(*args):
    tp = tool_binary("testparm")
    return subprocess.run([str(tp), "-s"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=30)


def test_testparm_ok(tmp_path):
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n  smb ports = 4450\n[x]\n  path = /tmp\n"
                    "  read only = no\n")
    p = run_testparm(str(conf))
    out = p.stdout.decode() + p.stderr.decode()
    assert p.returncode == 0, out
    assert "Loaded services file OK." in out
    assert "[x]" in out and "read only = No" in out.replace("no", "No")


def test_testparm_bad_value_names_file_line_parameter(tmp_path):
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n  smb ports = 4450\n[x]\n  path = /tmp\n"
                    "  read only = maybe\n")
    p = run_testparm(str(conf))
    err = p.stderr.decode()
    assert p.returncode == 1
    assert "%s:5" % conf in err and "read only" in err and "maybe" in err


def test_smbd_refuses_bad_config(tmp_path):
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n  smb ports = notaport\n")
    p = subprocess.run([str(ringsmb_binary()), "-F", "--debug-stdout", "-s",
                        str(conf)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    out = p.stdout.decode()
    assert p.returncode != 0
    assert "%s:2" % conf in out and "smb ports" in out, out
