#!/usr/bin/env bash
# Builds the Python package's wheel with the self-contained libpulsar inside.
#
#   scripts/make-wheel.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR holds the release libPulsarC.so (make release-products); it goes into the package as
# pulsar/libpulsar.so.0, stripped, and the shipped actuator configs as pulsar/actuators/*.acf (the
# library finds them there by name), for the wheel only (the source tree keeps no copy). pip builds
# the wheel (setuptools, fetched into an isolated build environment); writes
# OUT_DIR/pulsar_haptics-VERSION-py3-none-linux_ARCH.whl and prints its path.
set -euo pipefail

die() { echo "make-wheel.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: make-wheel.sh BUILD_DIR OUT_DIR"
build=$1 out=$2
cd "$(dirname "$0")/.."
python=${PYTHON:-/usr/bin/python3}
[ -f "$build/libPulsarC.so" ] || die "$build/libPulsarC.so is not built (make release-products)"
if ldd "$build/libPulsarC.so" | grep -Eq 'libswift|libFoundation'; then die "$build/libPulsarC.so needs the Swift runtime: build it with make release-products"; fi
"$python" -m pip --version >/dev/null 2>&1 || die "python3's pip is missing (apt-get install python3-pip python3-venv)"

library=python/pulsar/libpulsar.so.0
actuators=python/pulsar/actuators
trap 'rm -rf "$library" "$actuators" python/build python/*.egg-info' EXIT
install -m 0755 "$build/libPulsarC.so" "$library"
mkdir -p "$actuators"
install -m 0644 Resources/actuators/*.acf "$actuators"/
strip --strip-unneeded "$library"
mkdir -p "$out"
rm -f "$out"/pulsar_haptics-*.whl
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$out" ./python >&2
wheel=$(ls "$out"/pulsar_haptics-*.whl)
"$python" - "$wheel" <<'PY' || die "$wheel does not carry libpulsar"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
sys.exit(0 if "pulsar/libpulsar.so.0" in names and "pulsar/__init__.py" in names and "pulsar/actuators/meta-console.acf" in names else 1)
PY
echo "$wheel"
