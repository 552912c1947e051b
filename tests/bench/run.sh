#!/bin/sh
# make bench: ringsmb and Debian's Samba smbd side by side (docs/bench.md).
# iperf3 measures the loopback ceiling; install it (only it) when missing.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)

install_iperf3() {
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
	echo "bench: installing iperf3 (Debian package) for the TCP ceiling" >&2
	# the package asks whether to start a daemon: answer no, never ask
	echo 'iperf3 iperf3/start_daemon boolean false' |
		$sudo debconf-set-selections 2>/dev/null || true
	apt="timeout 600 $sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq \
-o DPkg::Lock::Timeout=120"
	$apt install -y --no-install-recommends iperf3 </dev/null >/dev/null ||
		{ $apt update && $apt install -y --no-install-recommends \
			iperf3 </dev/null >/dev/null; } ||
		echo "bench: could not install iperf3; no TCP ceiling" >&2
}

command -v iperf3 >/dev/null 2>&1 || install_iperf3
# Samba's io_uring VFS module (the reference the issue asks for)
if ! dpkg-query -W -f='${Status}' samba-vfs-modules 2>/dev/null |
	grep -q "ok installed"; then
	echo "bench: installing samba-vfs-modules (Samba's vfs_io_uring)" >&2
	timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get -qq \
		-o DPkg::Lock::Timeout=120 install -y --no-install-recommends \
		samba-vfs-modules </dev/null >/dev/null ||
		echo "bench: could not install samba-vfs-modules" >&2
fi
py="$top/.venv/bin/python3"
[ -x "$py" ] || py=python3
# run.sh smb2bench ...: the smb2bench-driven rows (tests/bench/smb2bench.py)
if [ "${1:-}" = smb2bench ]; then
	shift
	exec "$py" "$top/tests/bench/smb2bench.py" "$@"
fi
# run.sh connmem ...: idle connections' memory (tests/bench/connmem.py)
if [ "${1:-}" = connmem ]; then
	shift
	exec "$py" "$top/tests/bench/connmem.py" "$@"
fi
exec "$py" "$top/tests/bench/bench.py" "$@"
