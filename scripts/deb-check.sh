#!/usr/bin/env bash
# Installs the package with dpkg -i, checks it, and removes it with apt-get remove, leaving no
# file behind. Run by hand as root (it changes the system): `make deb && bash scripts/deb-check.sh
# out/pulsar_*.deb`. Refuses when a pulsar package is already installed.
set -euo pipefail

die() { echo "deb-check.sh: $*" >&2; exit 1; }
[ $# -eq 1 ] && [ -f "$1" ] || die "usage: deb-check.sh PULSAR.deb"
deb=$(readlink -f "$1")
[ "$(id -u)" = 0 ] || die "run as root: it installs and removes a package"
if dpkg-query -W -f='${Status}' pulsar 2>/dev/null | grep -q "install ok installed"; then
    die "a pulsar package is installed already; remove it first"
fi

# What the package holds (files and links, not folders).
mapfile -t paths < <(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print p }')
[ "${#paths[@]}" -gt 0 ] || die "$deb lists no files"
for p in "${paths[@]}"; do [ ! -e "$p" ] || die "$p exists before the install: it would be taken over"; done

dpkg -i "$deb"
version=$(/usr/bin/pulsar --version)
echo "installed: $version"
[ "$(dpkg-deb --field "$deb" Version)" = "${version#pulsar }" ] || die "/usr/bin/pulsar says '$version'"
page=$(man -w pulsar) || die "man -w pulsar found no page"
echo "man page: $page"
man -w pulsar-play >/dev/null || die "man -w pulsar-play found no page"
ldconfig -p | grep -q 'libpulsar.so.0 ' || die "libpulsar.so.0 is not in the linker cache"
pkg-config --modversion pulsar >/dev/null || die "pkg-config does not find pulsar"
# Nothing of the toolchain: the runtime is the package's own.
if ldd /usr/bin/pulsar /usr/lib/libpulsar.so.0 | grep -E 'not found|/swift'; then die "ldd resolves outside the package"; fi
# The installed Python example, run as root as a user might: it finds libpulsar.so.0 through the
# linker cache, and leaves byte code beside the pulsar package that the removal must take too.
examples=/usr/share/doc/pulsar/examples/python
env -i PATH=/usr/bin:/bin python3 "$examples/demo.py" --device sim >/dev/null || die "$examples/demo.py failed"
[ -d /usr/lib/python3/dist-packages/pulsar/__pycache__ ] || die "demo.py left no byte code: the removal's check of it would prove nothing"

apt-get remove -y pulsar
left=0
for p in "${paths[@]}"; do
    if [ -e "$p" ] || [ -L "$p" ]; then echo "left behind: $p" >&2; left=$((left + 1)); fi
done
for d in /usr/lib/pulsar /usr/share/pulsar /usr/share/doc/pulsar; do
    [ -e "$d" ] && { echo "left behind: $d/" >&2; left=$((left + 1)); }
done
ldconfig -p | grep -q 'libpulsar.so.0 ' && { echo "left behind: libpulsar.so.0 in the linker cache" >&2; left=$((left + 1)); }
[ "$left" = 0 ] || die "$left files left behind after apt-get remove"
dpkg-query -W -f='${Status}' pulsar 2>/dev/null | grep -q "install ok installed" && die "still installed"
echo "removed cleanly: ${#paths[@]} files installed and gone"
