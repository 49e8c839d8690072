#!/usr/bin/env bash
# Installs what `make install` installs, or removes it again.
#
#   scripts/install.sh install   BUILD_DIR PREFIX [DESTDIR]
#   scripts/install.sh uninstall PREFIX [DESTDIR]
#
# BUILD_DIR holds the release `pulsar` and `libPulsarC.so`. Files land under DESTDIR/PREFIX:
#   bin/pulsar
#   lib/libpulsar.so.VERSION, lib/libpulsar.so.0 and lib/libpulsar.so (links)
#     (both carry the Swift runtime linked in: nothing of Swift is installed or needed beside them)
#   include/pulsar.h, lib/pkgconfig/pulsar.pc
#   share/man/man1/       pulsar.1 and pulsar-COMMAND.1, printed by `pulsar --man-page`
#   share/bash-completion/completions/pulsar, $ZSH_COMPLETIONS/_pulsar   (`pulsar --completion`)
#   share/doc/pulsar/     README, docs, examples
#   share/pulsar/actuators/   the actuator configs shipped (Meta's console and Quest ACFs)
#   lib/python3/dist-packages/pulsar/   the Python package (it loads this libpulsar)
#   share/pulsar/install-manifest   every file above: what uninstall removes, and nothing else
#
# ZSH_COMPLETIONS (relative to PREFIX) defaults to share/zsh/site-functions.
# The binary and the library are installed stripped; STRIP=0 keeps their symbols and debug info.
# GZIP_MAN=1 compresses the man pages (a Debian package's way).
set -euo pipefail

die() { echo "install.sh: $*" >&2; exit 1; }

# The directories the dynamic linker searches without being told: a pkg-config file for a
# prefix elsewhere adds a RUNPATH so programs linked against it run as they are.
is_system_libdir() {
    case "$1" in
        /usr/lib|/lib|/usr/lib64|/lib64|/usr/lib/*-linux-gnu|/lib/*-linux-gnu) return 0 ;;
        *) return 1 ;;
    esac
}

# Fails when $1 still needs a Swift library at run time (a build without --static-swift-stdlib).
refuse_swift_runtime() {
    if ldd "$1" | grep -Eq 'libswift|libFoundation|libdispatch|libBlocksRuntime'; then
        die "$1 links the Swift runtime dynamically: build it with 'swift build -c release --static-swift-stdlib' (make release-products)"
    fi
}

install_files() {
    local build=$1 prefix=$2 destdir=${3:-}
    local root="$destdir$prefix"
    [ -x "$build/pulsar" ] || die "$build/pulsar is not built (make build)"
    [ -f "$build/libPulsarC.so" ] || die "$build/libPulsarC.so is not built (make release-products)"
    case "$prefix" in /*) ;; *) die "PREFIX must be an absolute path, not '$prefix'" ;; esac
    local version
    version=$("$build/pulsar" --version | awk '{ print $2 }')
    [ -n "$version" ] || die "cannot read the version from $build/pulsar --version"
    local zsh_dir=${ZSH_COMPLETIONS:-share/zsh/site-functions}
    local manifest=()
    put() { # put MODE SOURCE RELATIVE-DESTINATION
        install -D -m "$1" "$2" "$root/$3"
        manifest+=("$3")
    }
    link() { # link TARGET RELATIVE-NAME
        ln -sfn "$1" "$root/$2"
        manifest+=("$2")
    }

    put 0755 "$build/pulsar" bin/pulsar
    put 0755 "$build/libPulsarC.so" "lib/libpulsar.so.$version"
    link "libpulsar.so.$version" lib/libpulsar.so.0
    link libpulsar.so.0 lib/libpulsar.so
    refuse_swift_runtime "$build/pulsar"
    refuse_swift_runtime "$build/libPulsarC.so"
    command -v patchelf >/dev/null || die "patchelf is missing (apt-get install patchelf)"
    # The linker's RUNPATH ($ORIGIN) goes: the two need no library of their own beside them.
    patchelf --remove-rpath "$root/bin/pulsar"
    patchelf --remove-rpath "$root/lib/libpulsar.so.$version"
    if [ "${STRIP:-1}" != 0 ]; then
        strip --strip-all "$root/bin/pulsar"
        strip --strip-unneeded "$root/lib/libpulsar.so.$version"
    fi

    put 0644 include/pulsar.h include/pulsar.h
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    local rpath=""
    is_system_libdir "$prefix/lib" || rpath=" -Wl,-rpath,\${libdir}"
    cat >"$tmp/pulsar.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: pulsar
Description: Haptic patterns and presets rendered as audio-rate waveforms and played in step with their sound
Version: $version
Libs: -L\${libdir} -lpulsar$rpath
Cflags: -I\${includedir}
EOF
    put 0644 "$tmp/pulsar.pc" lib/pkgconfig/pulsar.pc

    # Man pages and completions come from the binary's own help text and option tables.
    local pages=(pulsar)
    for command in $("$build/pulsar" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
        pages+=("pulsar-$command")
    done
    for page in "${pages[@]}"; do
        if [ "$page" = pulsar ]; then "$build/pulsar" --man-page >"$tmp/$page.1"; else "$build/pulsar" --man-page "${page#pulsar-}" >"$tmp/$page.1"; fi
        if [ "${GZIP_MAN:-0}" = 1 ]; then
            gzip -9n "$tmp/$page.1"
            put 0644 "$tmp/$page.1.gz" "share/man/man1/$page.1.gz"
        else
            put 0644 "$tmp/$page.1" "share/man/man1/$page.1"
        fi
    done
    "$build/pulsar" --completion bash >"$tmp/pulsar.bash"
    "$build/pulsar" --completion zsh >"$tmp/_pulsar"
    put 0644 "$tmp/pulsar.bash" share/bash-completion/completions/pulsar
    put 0644 "$tmp/_pulsar" "$zsh_dir/_pulsar"

    put 0644 README.md share/doc/pulsar/README.md
    put 0644 BENCHMARKS.md share/doc/pulsar/BENCHMARKS.md
    for doc in docs/*.md docs/images/*.png; do put 0644 "$doc" "share/doc/pulsar/$doc"; done
    for example in examples/c/*.c examples/python/*.py examples/csharp/*.cs bindings/csharp/*.cs; do put 0644 "$example" "share/doc/pulsar/$example"; done
    for config in Resources/actuators/*.acf; do put 0644 "$config" "share/pulsar/actuators/${config##*/}"; done
    # The Python package (python/pulsar), where Debian's python3 looks for a /usr install.
    for module in python/pulsar/*.py python/pulsar/py.typed; do put 0644 "$module" "lib/python3/dist-packages/pulsar/$(basename "$module")"; done

    manifest+=(share/pulsar/install-manifest)
    mkdir -p "$root/share/pulsar"
    printf '%s\n' "${manifest[@]}" >"$root/share/pulsar/install-manifest"
    echo "installed pulsar $version under $root (${#manifest[@]} files)"
    if ! is_system_libdir "$prefix/lib"; then
        echo "libpulsar is in $prefix/lib: pkg-config --cflags --libs pulsar needs PKG_CONFIG_PATH=$prefix/lib/pkgconfig, Python PYTHONPATH=$prefix/lib/python3/dist-packages and LD_LIBRARY_PATH=$prefix/lib (or run ldconfig with $prefix/lib in /etc/ld.so.conf.d)"
    fi
}

uninstall_files() {
    local prefix=$1 destdir=${2:-}
    local root="$destdir$prefix"
    local manifest="$root/share/pulsar/install-manifest"
    [ -f "$manifest" ] || die "nothing installed under $root: $manifest is missing"
    local dirs=() count=0
    while IFS= read -r relative; do
        case "$relative" in ""|/*|*..*) die "$manifest: refusing the entry '$relative'" ;; esac
        if [ -e "$root/$relative" ] || [ -L "$root/$relative" ]; then rm -f "$root/$relative"; count=$((count + 1)); fi
        # Running an installed Python example leaves its byte code beside it.
        case "$relative" in *.py) rm -rf "$root/$(dirname "$relative")/__pycache__" ;; esac
        dirs+=("$(dirname "$relative")")
    done <"$manifest"
    # Folders the install made, deepest first, while empty; never the prefix itself.
    for dir in $(printf '%s\n' "${dirs[@]}" | sort -u | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-); do
        while [ "$dir" != . ] && rmdir "$root/$dir" 2>/dev/null; do dir=$(dirname "$dir"); done
    done
    echo "removed $count files of pulsar from $root"
}

case "${1:-}" in
    install) [ $# -ge 3 ] || die "usage: install.sh install BUILD_DIR PREFIX [DESTDIR]"; install_files "$2" "$3" "${4:-}" ;;
    uninstall) [ $# -ge 2 ] || die "usage: install.sh uninstall PREFIX [DESTDIR]"; uninstall_files "$2" "${3:-}" ;;
    *) die "usage: install.sh install BUILD_DIR PREFIX [DESTDIR] | uninstall PREFIX [DESTDIR]" ;;
esac
