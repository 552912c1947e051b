#!/bin/sh
# Installs everything the build and the tests need: Debian packages and a
# project venv (.venv) with pinned waf and the Python test packages.
# Fast and silent when everything is already there.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)

DEBS="build-essential pkg-config python3 python3-venv
liburing-dev libtalloc-dev libtevent-dev libgnutls28-dev nettle-dev
libtasn1-6-dev libcmocka-dev clang libclang-rt-14-dev llvm
smbclient samba-testsuite samba samba-vfs-modules procps iproute2 acl
systemd man-db groff-base"

missing=""
for p in $DEBS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -n "$missing" ]; then
	echo "install-deps: installing Debian packages:$missing"
	if [ "$(id -u)" != 0 ]; then
		SUDO=sudo
	fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

venv="$top/.venv"
stamp="$venv/.ringsmb-deps"
want=$(cat "$top/buildtools/waf-requirements.txt" \
	"$top/tests/requirements.txt" | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
echo "install-deps: setting up $venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check \
	--require-hashes -r "$top/buildtools/waf-requirements.txt"
"$venv/bin/pip" install -q --disable-pip-version-check \
	-r "$top/tests/requirements.txt"
echo "$want" > "$stamp"
