#!/usr/bin/env bash
# Builds the Debian package of what `make install` installs, with PREFIX=/usr.
#
#   scripts/make-deb.sh BUILD_DIR OUT_DIR
#
# Depends lists the Debian packages of the shared libraries the binary and libpulsar actually link
# (dpkg-shlibdeps reads their NEEDED entries); both carry the Swift runtime linked in. Writes OUT_DIR/pulsar_VERSION_ARCH.deb and prints its path.
set -euo pipefail

die() { echo "make-deb.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: make-deb.sh BUILD_DIR OUT_DIR"
build=$1 out=$2
for tool in dpkg-deb dpkg-shlibdeps patchelf; do command -v "$tool" >/dev/null || die "$tool is missing"; done

version=$("$build/pulsar" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/stage"

ZSH_COMPLETIONS=share/zsh/vendor-completions GZIP_MAN=1 \
    bash "$(dirname "$0")/install.sh" install "$build" /usr "$stage" >/dev/null

# dpkg-shlibdeps wants a source package around the files it reads.
mkdir -p "$work/debian"
printf 'Source: pulsar\n\nPackage: pulsar\nArchitecture: any\n' >"$work/debian/control"
objects=("$stage/usr/bin/pulsar" "$stage/usr/lib/libpulsar.so.$version")
depends=$(cd "$work" && dpkg-shlibdeps -O --ignore-missing-info -l"$stage/usr/lib" \
    "${objects[@]}" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') \
    || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
[ -n "$depends" ] || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps found no dependencies"; }
# Packed relative relocations (DT_RELR) need glibc 2.36, which the objects name as the version
# GLIBC_ABI_DT_RELR; libc6's symbols file does not map that version to a package version.
if readelf -V "${objects[@]}" | grep GLIBC_ABI_DT_RELR >/dev/null; then
    depends=$(sed -E 's/libc6 \(>= [^)]*\)/libc6 (>= 2.36)/' <<<"$depends")
fi

size=$(du -sk "$stage/usr" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<EOF
Package: pulsar
Version: $version
Architecture: $arch
Maintainer: Pulsar for Linux <pulsar@localhost>
Installed-Size: $size
Depends: $depends
Section: sound
Priority: optional
Description: haptic patterns played as audio-rate waveforms, in step with their sound
 Pulsar renders haptic patterns (Pulsar JSON, AHAP, Lofelt .haptic) and preset bundles as
 audio-rate waveforms mixed with their audio, plays them through ALSA with an animation clock
 slaved to the device, and ships libpulsar, a C library for games and apps.
EOF
# libpulsar for other packages' dpkg-shlibdeps, and the linker cache refreshed on install/remove.
echo "libpulsar 0 pulsar (>= $version)" >"$stage/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$stage/DEBIAN/triggers"
# Running the installed Python example imports the pulsar package, which leaves byte code beside
# it that dpkg does not own: removed before the package's files are.
cat >"$stage/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
rm -rf /usr/share/doc/pulsar/examples/python/__pycache__ /usr/lib/python3/dist-packages/pulsar/__pycache__
PRERM
chmod 0755 "$stage/DEBIAN/prerm"

mkdir -p "$out"
deb="$out/pulsar_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
