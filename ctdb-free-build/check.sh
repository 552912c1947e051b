#!/bin/sh
# ctdb-free-build/check.sh: build ringsmb from a clean clone of this
# repository (the last commit) with only the Debian packages README.md
# and buildtools/install-deps.sh name, then show that smbd links no
# CTDB, tdb, ldb or Samba library, and list what it does link, with the
# Debian package and version of each.  Exit 0 when all holds.
#
#   ctdb-free-build/check.sh            # clone HEAD into a temp dir
#   KEEP=1 ctdb-free-build/check.sh     # keep the temp dir
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/ringsmb-ctdb-free.XXXXXX)
cleanup() { [ "${KEEP:-}" = 1 ] || rm -rf "$tmp"; }
trap cleanup EXIT
fail=0

echo "== 1. the packages: buildtools/install-deps.sh"
"$top/buildtools/install-deps.sh"
debs=$(sed -n '/^DEBS="/,/"$/p' "$top/buildtools/install-deps.sh" |
	tr -d '"' | sed 's/^DEBS=//' | tr -s ' \n' '\n' | grep -v '^$')

echo "== 2. a clean clone of $(git -C "$top" rev-parse --short HEAD), built"
git clone -q --no-hardlinks "$top" "$tmp/src"
# the pinned waf: the project venv, as install-deps.sh made it (no
# network needed a second time)
ln -s "$top/.venv" "$tmp/src/.venv"
cd "$tmp/src"
WAFLOCK=.lock-waf_ctdbfree buildtools/bin/waf configure -o build >/dev/null
WAFLOCK=.lock-waf_ctdbfree buildtools/bin/waf build -j2 >/dev/null
smbd="$tmp/src/build/source3/smbd/smbd"
"$smbd" -V

echo "== 3. what smbd links (readelf -d: NEEDED)"
needed=$(readelf -d "$smbd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "$needed" | sed 's/^/   /'
# CTDB, tdb, ldb, and Samba's own libraries (libsamba-*, libsmbconf,
# libndr*, libwbclient, libsmbclient, anything in Samba's private
# library directory)
bad='ctdb|(^|/)libtdb|(^|/)libldb|libsamba|libsmbconf|libndr|libwbclient|libsmbclient|/samba/'
echo "== 4. the whole closure (ldd), searched for: $bad"
ldd "$smbd" | sed 's/^\t*/   /'
if ldd "$smbd" | grep -E "$bad"; then
	echo "FAIL: smbd links a CTDB/tdb/ldb/Samba library (above)"
	fail=1
elif echo "$needed" | grep -E "$bad"; then
	echo "FAIL: smbd needs a CTDB/tdb/ldb/Samba library (above)"
	fail=1
else
	echo "   none"
fi
if nm -D "$smbd" | grep -E ' U (tdb_|ctdb|ldb_)'; then
	echo "FAIL: smbd calls tdb/ctdb/ldb functions"
	fail=1
fi

echo "== 5. run-time dependencies: library, Debian package, version"
ldd "$smbd" | awk '/=> \//{print $3}' | while read -r lib; do
	real=$(readlink -f "$lib")
	pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null ||
		echo "?: ")
	pkg=${pkg%%:*}
	ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo "?")
	printf '   %-22s %-22s %s\n' "$(basename "$lib")" "$pkg" "$ver"
done

echo "== 6. build dependencies (install-deps.sh), installed versions"
for p in $debs; do
	printf '   %-22s %s\n' "$p" \
		"$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo missing)"
done
echo "   (smbclient, samba, samba-testsuite, samba-vfs-modules are for the"
echo "    tests' reference server and clients: nothing of them is linked)"

if [ "$fail" = 0 ]; then
	echo "OK: smbd builds and links with no CTDB, tdb, ldb or Samba library"
fi
exit "$fail"
