#!/usr/bin/env bash
# Builds the demo bundle from Resources/demo-bundle with the pulsar binary only:
#
#   scripts/make-demo-bundle.sh OUTDIR PULSAR
#
#   OUTDIR/demo-bundle/   the unpacked bundle: manifest, haptics, animation, and the audio
#                         synthesized here from the recipes of Resources/demo-bundle-src/*.audio
#   OUTDIR/demo.pulsar    the packed bundle (`pulsar pack`, which fills in the manifest hash)
#
# Every audio file is made by `pulsar render`: a recipe's first layer is a pattern rendered on its
# own; every further layer is mixed over the previous result by rendering a throw-away bundle whose
# audio is that result and whose haptics are the layer, in the one-channel layout `L+H`.
# Writes nothing outside OUTDIR; running it again rebuilds the same files.
set -euo pipefail

usage() {
    echo "usage: $0 OUTDIR PULSAR" >&2
    echo "  OUTDIR  where demo-bundle/ and demo.pulsar are written (created if missing)" >&2
    echo "  PULSAR  the pulsar binary to use, e.g. .build/release/pulsar" >&2
    exit 64
}
die() {
    echo "make-demo-bundle: error: $*" >&2
    exit 1
}

[ $# -eq 2 ] || usage
OUT_ARG=$1
PULSAR_ARG=$2

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/Resources/demo-bundle"
RECIPES="$ROOT/Resources/demo-bundle-src"
[ -f "$SRC/manifest.json" ] || die "no bundle source: $SRC/manifest.json is missing"
[ -d "$RECIPES" ] || die "no audio recipes: $RECIPES is missing"

case "$PULSAR_ARG" in
    */*) PULSAR=$(cd "$(dirname "$PULSAR_ARG")" 2>/dev/null && pwd)/$(basename "$PULSAR_ARG") \
             || die "pulsar binary not found: $PULSAR_ARG" ;;
    *) PULSAR=$(command -v "$PULSAR_ARG") || die "pulsar binary not found on PATH: $PULSAR_ARG" ;;
esac
[ -f "$PULSAR" ] && [ -x "$PULSAR" ] || die "not an executable file: $PULSAR_ARG (build it with: swift build --product pulsar)"
"$PULSAR" --version >/dev/null 2>&1 || die "$PULSAR does not run (\`$PULSAR --version\` failed)"

OUT=$(realpath -m -- "$OUT_ARG") || die "bad output folder: $OUT_ARG"
case "$OUT/" in
    "$(realpath -m -- "$ROOT/Resources")/"*)
        die "OUTDIR must not be inside $ROOT/Resources (the sources would be overwritten)" ;;
esac
mkdir -p "$OUT" || die "cannot create the output folder $OUT"

BUNDLE="$OUT/demo-bundle"
ARCHIVE="$OUT/demo.pulsar"
WORK="$OUT/.demo-bundle-work"
RATE=48000
trap 'rm -rf "$WORK"' EXIT

# Runs pulsar, and names the step that failed.
run_pulsar() {
    local what=$1
    shift
    "$PULSAR" "$@" || die "$what failed (exit $?): pulsar $*"
}

# 1. The bundle's own files (manifest, haptics, animation); README.md is not part of the bundle.
rm -rf "$BUNDLE" "$WORK"
mkdir -p "$BUNDLE/audio" "$WORK"
cp "$SRC/manifest.json" "$BUNDLE/"
for dir in haptics animation; do
    [ -d "$SRC/$dir" ] || die "missing folder $SRC/$dir"
    cp -R "$SRC/$dir" "$BUNDLE/"
done

# 2. The audio, one recipe (Resources/demo-bundle-src/NAME.audio) per file.
synthesize() {
    local recipe=$1 output="" duration="" n=0 kind a b c extra
    local -a patterns=() profiles=() gains=()
    while read -r kind a b c extra || [ -n "$kind" ]; do
        case "$kind" in
            "" | "#"*) continue ;;
            output)
                [ -n "$a" ] && [ -n "$b" ] && [ -z "$c" ] || die "$recipe: expected 'output PATH DURATION-MS'"
                output=$a duration=$b ;;
            layer)
                [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && [ -z "$extra" ] \
                    || die "$recipe: expected 'layer PATTERN PROFILE GAIN'"
                [ -f "$RECIPES/$a" ] || die "$recipe: layer pattern $RECIPES/$a is missing"
                patterns+=("$a") profiles+=("$b") gains+=("$c") ;;
            *) die "$recipe: unknown line '$kind' (expected output or layer)" ;;
        esac
    done <"$recipe"
    [ -n "$output" ] || die "$recipe: no 'output' line"
    case "$output" in
        audio/*.wav) ;;
        *) die "$recipe: output must be audio/NAME.wav, not $output" ;;
    esac
    case "$output" in
        */../* | */./* | *//*) die "$recipe: output path $output is not a plain path" ;;
    esac
    case "$duration" in
        "" | *[!0-9]*) die "$recipe: duration must be whole milliseconds, not '$duration'" ;;
    esac
    n=${#patterns[@]}
    [ "$n" -gt 0 ] || die "$recipe: no 'layer' line"

    local target="$BUNDLE/$output" prev="" format stage i
    mkdir -p "$(dirname "$target")"
    for ((i = 0; i < n; i++)); do
        if [ "$i" -eq $((n - 1)) ]; then format=s16; else format=float; fi
        stage="$WORK/$(basename "$recipe" .audio)-$i"
        mkdir -p "$stage"
        if [ "$i" -eq 0 ]; then
            run_pulsar "rendering layer ${patterns[$i]} of $recipe" render "$RECIPES/${patterns[$i]}" \
                --profile "${profiles[$i]}" --gain "${gains[$i]}" --duration "$duration" \
                --rate "$RATE" --format "$format" -o "$stage/out.wav"
        else
            mkdir -p "$stage/b/audio" "$stage/b/haptics"
            mv "$prev" "$stage/b/audio/below.wav"
            cp "$RECIPES/${patterns[$i]}" "$stage/b/haptics/layer.json"
            cat >"$stage/b/manifest.json" <<EOF
{
  "schema": "pulsar.bundle/1",
  "id": "dev.pulsar.linux.demo-layer",
  "name": "layer $i of $(basename "$recipe")",
  "presets": [
    {"id": "layer", "name": "layer", "duration": $duration, "haptics": "haptics/layer.json",
     "audio": {"src": "audio/below.wav"}}
  ]
}
EOF
            run_pulsar "mixing layer ${patterns[$i]} of $recipe" render "$stage/b" --preset layer \
                --layout L+H --profile "${profiles[$i]}" --gain "${gains[$i]}" \
                --rate "$RATE" --format "$format" -o "$stage/out.wav"
        fi
        prev="$stage/out.wav"
    done
    mv "$prev" "$target"
    echo "synthesized $output ($n layers, $duration ms) from $(basename "$recipe")"
}

shopt -s nullglob
recipes=("$RECIPES"/*.audio)
shopt -u nullglob
[ ${#recipes[@]} -gt 0 ] || die "no audio recipe (*.audio) in $RECIPES"
for recipe in "${recipes[@]}"; do
    synthesize "$recipe"
done

# Every audio file the manifest names must now exist.
while read -r src; do
    [ -f "$BUNDLE/$src" ] || die "the manifest names $src, but no recipe in $RECIPES makes it"
done < <(grep -o '"src"[[:space:]]*:[[:space:]]*"audio/[^"]*"' "$BUNDLE/manifest.json" | sed 's/.*"\(audio\/[^"]*\)"$/\1/')

# 3. Pack (fills in the hash) and check the archive.
run_pulsar "packing $BUNDLE" pack "$BUNDLE" -o "$ARCHIVE"
run_pulsar "checking $ARCHIVE" info "$ARCHIVE" --strict
