"""smbd as a systemd service (docs/service.md): the sd_notify messages a
Type=notify unit relies on, received on a socket of our own as systemd
would receive them; and the unit file judged by systemd-analyze.
ringsmb only."""
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (REPO, TARGET, RingsmbServer, finish_server, free_port,
                      ringsmb_binary)

pytestmark = pytest.mark.skipif(TARGET != "ringsmb",
                                reason="ringsmb's own service behaviour")

NOTIFY_TIMEOUT = 20.0


class Notifications:
    """An AF_UNIX datagram socket standing in for systemd's notify
    socket: a path, or an abstract name (NOTIFY_SOCKET=@name)."""

    def __init__(self, tmp, abstract=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = "ringsmb-test-notify-%d-%d" % (os.getpid(),
                                                   time.monotonic_ns())
            self.sock.bind("\0" + name)
            self.env_value = "@" + name
        else:
            path = str(Path(tmp) / "notify.sock")
            self.sock.bind(path)
            self.env_value = path
        self.messages = []

    def next(self, timeout=NOTIFY_TIMEOUT):
        """The next message as a dict of its assignments."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            pytest.fail("no sd_notify message within %.0f s (got so far: "
                        "%r)" % (timeout, self.messages))
        self.messages.append(data)
        fields = {}
        for line in data.decode().split("\n"):
            if line:
                k, _, v = line.partition("=")
                fields[k] = v
        return fields

    def none_pending(self):
        self.sock.settimeout(0.3)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            return True
        self.messages.append(data)
        return False

    def close(self):
        self.sock.close()


class NotifyServer(RingsmbServer):
    """smbd -F with NOTIFY_SOCKET set; ready when READY=1 arrives, and
    the port must accept at that moment (not merely later)."""

    notifications = None

    def env(self):
        env = super().env()
        env["NOTIFY_SOCKET"] = self.notifications.env_value
        return env

    def wait_ready(self):
        msg = self.notifications.next()
        if self.proc.poll() is not None:
            raise RuntimeError("exited with %d" % self.proc.returncode)
        assert msg.get("READY") == "1", msg
        assert "STATUS" in msg, msg
        try:
            with socket.create_connection((self.host, self.port), 2):
                pass
        except OSError as e:
            pytest.fail("READY=1 before the port accepts: %s" % e)


def start_notify_server(tree, notif):
    srv = NotifyServer(tree)
    srv.notifications = notif
    return srv.start()


@pytest.mark.parametrize("abstract", [False, True],
                         ids=["path", "abstract"])
def test_notify_ready_reload_stopping(share_tree, tmp_path, abstract):
    notif = Notifications(tmp_path, abstract)
    srv = None
    try:
        srv = start_notify_server(share_tree, notif)
        srv.proc.send_signal(signal.SIGHUP)
        msg = notif.next()
        assert msg.get("RELOADING") == "1", msg
        # CLOCK_MONOTONIC in microseconds, as systemd 253 compares it
        usec = int(msg["MONOTONIC_USEC"])
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        assert 0 < usec <= now and now - usec < 60 * 10**6, (usec, now)
        msg = notif.next()
        assert msg.get("READY") == "1", msg
        assert srv.alive()
        with socket.create_connection((srv.host, srv.port), 2):
            pass
        # SIGTERM, exit 0, no sanitizer report
        srv_stopped, srv = srv, None
        finish_server(srv_stopped)
        msg = notif.next()
        assert msg.get("STOPPING") == "1", msg
    finally:
        if srv is not None:
            finish_server(srv)
        notif.close()


def test_notify_failed_reload_still_ready(share_tree, tmp_path):
    """A configuration that no longer loads keeps the old one; the
    service manager must still hear READY=1 after RELOADING=1, or it
    would wait for the reload until its timeout."""
    notif = Notifications(tmp_path)
    srv = None
    try:
        srv = start_notify_server(share_tree, notif)
        srv.conf.write_text(srv.conf.read_text() +
                            "\n[broken]\n  read only = maybe\n")
        srv.proc.send_signal(signal.SIGHUP)
        assert notif.next().get("RELOADING") == "1"
        assert notif.next().get("READY") == "1"
        assert srv.alive()
        assert "keeping the old configuration" in srv.log_text()
    finally:
        if srv is not None:
            finish_server(srv)
        notif.close()


def test_no_notify_socket_no_messages(tmp_path):
    """Without NOTIFY_SOCKET nothing is sent and nothing fails; with a
    daemon (no -F) nothing is sent either: its child is not the main
    process a service manager would accept messages from."""
    notif = Notifications(tmp_path)
    conf = tmp_path / "smb.conf"
    port = free_port()
    conf.write_text("[global]\n  smb ports = %d\n  interfaces = 127.0.0.1\n"
                    "  bind interfaces only = yes\n"
                    "  pid directory = %s\n  private dir = %s\n"
                    "  log file = %s\n  log level = 2\n"
                    % (port, tmp_path / "run", tmp_path / "private",
                       tmp_path / "log.smbd"))
    env = dict(os.environ, NOTIFY_SOCKET=notif.env_value,
               ASAN_OPTIONS="detect_leaks=0")
    try:
        p = subprocess.run([str(ringsmb_binary()), "-D", "-s", str(conf)],
                           env=env, timeout=30)
        assert p.returncode == 0
        pidfile = tmp_path / "run" / "smbd.pid"
        end = time.time() + 15
        while not pidfile.exists() and time.time() < end:
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        os.kill(pid, signal.SIGHUP)
        end = time.time() + 15
        while time.time() < end and "configuration reloaded" not in \
                (tmp_path / "log.smbd").read_text():
            time.sleep(0.05)
        assert "configuration reloaded" in (tmp_path / "log.smbd").read_text()
        os.kill(pid, signal.SIGTERM)
        end = time.time() + 15
        while pidfile.exists() and time.time() < end:
            time.sleep(0.05)
        assert not pidfile.exists()
        assert notif.none_pending(), notif.messages
    finally:
        notif.close()
