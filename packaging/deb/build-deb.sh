#!/bin/sh
# make deb: a Debian package of ringsmb, built with dpkg-deb from a
# DESTDIR install (docs/service.md, "The Debian package"), then checked:
# its file list, its conffiles, and an unpack into a scratch dpkg root
# twice over an admin's edited smb.conf and passdb, which must survive.
#
# Layout: the programs keep their one-prefix tree in /usr/lib/ringsmb
# (Samba's package owns /usr/sbin/smbd, /usr/bin/testparm and their man
# pages, so nothing goes on PATH); the prefix's etc, private and var are
# symlinks into /etc/ringsmb (the conffile), /var/lib/ringsmb; the log
# goes to /var/log/ringsmb; the unit is /lib/systemd/system/ringsmb.service.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/build-deb}
prefix=/usr/lib/ringsmb
export WAFLOCK=.lock-waf_deb
cd "$top"

version=$(sed -n "s/^VERSION = '\(.*\)'/\1/p" wscript)-1
arch=$(dpkg --print-architecture)
deb="$out/ringsmb_${version}_${arch}.deb"

if [ ! -f "$out/c4che/_cache.py" ] || [ wscript -nt "$out/c4che/_cache.py" ]
then
	buildtools/bin/waf configure -o "$out" --prefix=$prefix \
		--systemd-unit-dir=/lib/systemd/system >/dev/null
fi
buildtools/bin/waf build >/dev/null
stage="$out/stage"
rm -rf "$stage"
buildtools/bin/waf install --destdir="$stage" >/dev/null

# ---- from the prefix tree to Debian's places
p="$stage$prefix"
mkdir -p "$stage/etc/ringsmb" "$stage/var/lib/ringsmb/var/run" \
	"$stage/var/lib/ringsmb/var/lock" "$stage/var/log/ringsmb" \
	"$stage/usr/share/doc"
# the configuration: the example, with the log where Debian keeps logs
sed 's|^\t# log file = .*|\tlog file = /var/log/ringsmb/log.smbd|' \
	"$p/etc/smb.conf.example" > "$stage/etc/ringsmb/smb.conf"
rm -rf "$p/etc" "$p/private" "$p/var"
ln -s /etc/ringsmb "$p/etc"
ln -s /var/lib/ringsmb/private "$p/private"
ln -s /var/lib/ringsmb/var "$p/var"
# private/ is made by postinst (0700), never shipped: dpkg must not own
# the passdb in it
# one unit, where Debian's are; the paths it may write are the real ones
rm -rf "$p/lib"
sed -i -e "s|^ReadWritePaths=.*|ReadWritePaths=/var/lib/ringsmb /var/log/ringsmb -/srv|" \
	-e "s|^\(Documentation=.*/man8/smbd.8\)$|\1.gz|" \
	"$stage/lib/systemd/system/ringsmb.service"
# documentation in /usr/share/doc, the prefix's copy a link to it
mv "$p/share/doc/ringsmb" "$stage/usr/share/doc/ringsmb"
ln -s ../../../../share/doc/ringsmb "$p/share/doc/ringsmb"
doc="$stage/usr/share/doc/ringsmb"
mkdir -p "$doc/examples"
cp "$top/packaging/smb.conf.example" "$doc/examples/smb.conf.example"
cat > "$doc/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ringsmb
Comment: the repository does not name a licence yet.

Files: *
Copyright: 2026 the ringsmb authors
License: unknown
 No licence has been chosen yet; this package is for testing only.
EOT
printf 'ringsmb (%s) unstable; urgency=medium\n\n  * Package built by make deb.\n\n -- ringsmb developers <ringsmb@example.org>  %s\n' \
	"$version" "$(date -R)" | gzip -9n > "$doc/changelog.Debian.gz"
gzip -9n "$p"/share/man/man*/*
for f in "$p"/sbin/* "$p"/bin/*; do
	if head -c4 "$f" | grep -q ELF; then
		strip --strip-unneeded --remove-section=.comment \
			--remove-section=.note "$f"
	fi
done

# ---- control files
mkdir -p "$stage/DEBIAN"
depends=$(for lib in $(readelf -d "$p/sbin/smbd" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
	pkg=$( (dpkg -S "$path" || dpkg -S "$(readlink -f "$path")" ||
		dpkg -S "/usr$path") 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$pkg" ] || continue
	v=$(dpkg-query -W -f='${Version}' "$pkg" | sed 's/-[^-]*$//')
	printf '%s (>= %s), ' "$pkg" "$v"
done)
cat > "$stage/DEBIAN/control" <<EOT
Package: ringsmb
Version: $version
Architecture: $arch
Maintainer: ringsmb developers <ringsmb@example.org>
Installed-Size: $(du -sk "$stage" | cut -f1)
Depends: ${depends}python3
Suggests: samba-common-bin
Section: net
Priority: optional
Description: SMB3 file server with an io_uring data path
 ringsmb's smbd serves SMB 2.0.2 to 3.1.1 on Linux, reading Samba's
 smb.conf syntax and parameter names, with every client acting on disk
 as its own Unix account.
 .
 It installs into /usr/lib/ringsmb beside Samba and runs as
 ringsmb.service; only one of the two can have port 445.
EOT
echo /etc/ringsmb/smb.conf > "$stage/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	install -m 0755 "$top/packaging/deb/$s" "$stage/DEBIAN/$s"
done
find "$stage" -path "$stage/DEBIAN" -prune -o -type d -exec chmod 0755 {} +

dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "built $deb"

# ---- checks
list=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/lib/ringsmb/sbin/smbd ./usr/lib/ringsmb/bin/testparm \
	./usr/lib/ringsmb/bin/smbpasswd ./usr/lib/ringsmb/bin/smb2bench \
	./usr/lib/ringsmb/bin/ringsmb-import-samba \
	./etc/ringsmb/smb.conf ./lib/systemd/system/ringsmb.service \
	./usr/lib/ringsmb/share/man/man8/smbd.8.gz \
	./usr/lib/ringsmb/share/man/man5/smb.conf.5.gz \
	./usr/share/doc/ringsmb/copyright ./usr/share/doc/ringsmb/service.md \
	./usr/share/doc/ringsmb/examples/smb.conf.example \
	./var/log/ringsmb/ ./var/lib/ringsmb/var/run/; do
	echo "$list" | grep -qxF "$f" || { echo "FAIL: $f not in $deb"; exit 1; }
done
echo "$list" | grep -q "private/." && { echo "FAIL: the package ships private/"; exit 1; }
[ "$(dpkg-deb -f "$deb" Package)" = ringsmb ]
dpkg-deb -I "$deb" conffiles | grep -qxF /etc/ringsmb/smb.conf

# an upgrade keeps smb.conf and the passdb: unpack (no maintainer
# scripts run outside a real install) into a scratch dpkg root, edit
# both, unpack again
root=$(mktemp -d /tmp/ringsmb-deb-root.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: > "$root/var/lib/dpkg/status"
dpkg_root() {
	dpkg --root="$root" --force-not-root --force-depends \
		--force-script-chrootless --force-confold --log=/dev/null \
		--unpack "$deb" >/dev/null
}
dpkg_root
mkdir -p "$root/var/lib/ringsmb/private"
echo "[global]
	workgroup = MINE" > "$root/etc/ringsmb/smb.conf"
echo "alice:1000:X:HASH:[U          ]:LCT-00000000:" \
	> "$root/var/lib/ringsmb/private/smbpasswd"
dpkg_root
grep -q MINE "$root/etc/ringsmb/smb.conf" ||
	{ echo "FAIL: the upgrade replaced the admin's smb.conf"; exit 1; }
[ -s "$root/var/lib/ringsmb/private/smbpasswd" ] ||
	{ echo "FAIL: the upgrade lost the passdb"; exit 1; }
[ "$(readlink "$root$prefix/etc")" = /etc/ringsmb ]
"$root$prefix/sbin/smbd" -V >/dev/null
echo "checked: file list, conffiles, an upgrade keeps smb.conf and the passdb"
