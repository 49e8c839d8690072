#!/bin/bash
# Runs every libFuzzer target built by `make fuzz` (Fuzz/.build/release/fuzz-*) for a given time
# or number of runs, seeded from Resources/ and ../shared/corpus when present. Findings (crash-,
# timeout-, oom-, leak-) are copied to Tests/Fixtures/fuzz/<target>/, which `make test` replays.
# A summary line per target: executions, coverage, findings; exit 1 when anything was found.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (FUZZ_RUNS=N runs N inputs instead)
set -u
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(pattern bundle lottie replay script arguments script-play ogg ahap-audio capi pw-dump actuator video-options)
bin=Fuzz/.build/release
work=.build/fuzz
corpus=../shared/corpus
pulsar=.build/release/pulsar
[[ -x $pulsar ]] || pulsar=.build/debug/pulsar
mkdir -p "$work"

seed() { # target
    local t=$1 dir=$work/corpus/$1
    mkdir -p "$dir"
    case $t in
    pattern)
        cp Resources/patterns/*.json Resources/demo-bundle/haptics/*.json Resources/demo-bundle-src/*.json "$dir"/ 2>/dev/null
        [[ -d $corpus ]] && find "$corpus/pulsar-presets" "$corpus/pulsar-docs-presets" "$corpus/ahap" "$corpus/lofelt" \
            -type f \( -name '*.json' -o -name '*.ahap' -o -name '*.haptic' \) -size -64k -exec cp {} "$dir"/ \; 2>/dev/null ;;
    bundle)
        python3 - "$dir" <<'PY'
import sys, zipfile, os
out = sys.argv[1]
with zipfile.ZipFile(os.path.join(out, 'resources.pulsar'), 'w', zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk('Resources/demo-bundle'):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, 'Resources/demo-bundle'))
PY
        [[ -f $corpus/bundles/demo.pulsar ]] && cp "$corpus/bundles/demo.pulsar" "$dir"/ ;;
    lottie)
        cp Resources/demo-bundle/animation/*.json "$dir"/
        python3 - "$dir" <<'PY'
import sys, zipfile, os, json
out = sys.argv[1]
with zipfile.ZipFile(os.path.join(out, 'pulse.lottie'), 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('manifest.json', json.dumps({"version": "2", "animations": [{"id": "pulse"}]}))
    z.write('Resources/demo-bundle/animation/pulse.json', 'a/pulse.json')
PY
        [[ -d $corpus/lottie ]] && find "$corpus/lottie" -name '*.json' -size -128k -exec cp {} "$dir"/ \; ;;
    replay)
        if [[ -x $pulsar ]]; then
            printf 'at 0 play\nat 50 seek 100\nat 80 pause\nat 120 resume\nat 150 loop 2 reverse\nat 200 gain audio 0.5\nat 250 offset 10\nat 300 stop\n' >"$work/seed-script.txt"
            "$pulsar" play Resources/patterns/demo.json --device sim --quiet --script "$work/seed-script.txt" --log "$dir/play.jsonl" >/dev/null 2>&1
            # Two devices: the haptic device's segments and underrun lines too.
            "$pulsar" play Resources/patterns/demo.json --layout H --device sim:ppm=100 --haptic-device sim:ppm=-100 --quiet \
                --script "$work/seed-script.txt" --log "$dir/two-devices.jsonl" >/dev/null 2>&1
            # Several voices (one realtime, two at once: a third start steals), alone and on two devices.
            voices_script "$work/seed-voices.txt"
            local three=(Resources/patterns/demo.json Resources/patterns/demo.json Resources/patterns/demo.json)
            "$pulsar" play "${three[@]}" --mode 3=realtime --voices 2 --device sim --quiet \
                --script "$work/seed-voices.txt" --log "$dir/voices.jsonl" >/dev/null 2>&1
            "$pulsar" play "${three[@]}" --mode 3=realtime --voices 2 --layout H --device sim:ppm=100 --haptic-device sim:ppm=-100 --quiet \
                --script "$work/seed-voices.txt" --log "$dir/voices-two-devices.jsonl" >/dev/null 2>&1
        fi ;;
    script)
        printf 'at 0 play\nat 150 loop 3 reverse\nat 300 seek 1200\nat 420 pause\nat 520 resume\nat 760 offset 30\nat 1150 haptics off\nat 2200 gain audio 0.7\nat 2600 loop off\nat 3100 stop\n' >"$dir/busy.txt"
        printf '# comment\r\nat 0 play 100\r\nat 10 loop forever\r\nat 20 gain haptic 2\r\n' >"$dir/crlf.txt" ;;
    script-play)
        voices_script "$dir/voices.txt"
        printf 'at 0 start 1\nat 0 start 2\nat 0 start 3\nat 5 start 1 40\nat 10 stop 2\nat 12 start 2\nat 300 stop 1\n' >"$dir/steals.txt"
        printf 'at 0 play\nat 0 start 3\nat 10 sharpness 3 0.5\n' >"$dir/refused.txt"
        printf 'at 0 play 2 100\nat 50 loop forever reverse\nat 90 intensity 0 over 86400000\nat 100 loop off\n' >"$dir/ramps.txt"
        printf 'at 0 play\nat 150 loop 3 reverse\nat 300 seek 1200\nat 420 pause\nat 520 resume\nat 760 offset 30\nat 1150 haptics off\nat 1800 gain audio 0.7\nat 1900 loop off\nat 2000 stop\n' >"$dir/busy.txt" ;;
    ogg)
        ogg_seeds "$dir" ;;
    ahap-audio)
        ahap_seeds "$dir" ;;
    actuator)
        cp Resources/actuators/*.acf "$dir"/ ;;
    video-options)
        # NUL-separated fields: -o, --fps, --size, --rate, --max-duration, --duration (ms), --loop,
        # an animation's fr, --reverse when not empty (see Sources/PulsarFuzzing/VideoOptionsEntry.swift).
        local n='\x00'
        printf "out.mp4$n$n$n$n$n$n$n$n" >"$dir/defaults"
        printf "out.mkv${n}30000/1001${n}640x360${n}96000${n}120${n}3412${n}3$n${n}r" >"$dir/ntsc-boomerang"
        printf "out.webm$n$n$n$n$n$n${n}29.97$n" >"$dir/animation-rate"
        printf "out.mp4${n}1/2147483648$n$n$n$n$n$n$n" >"$dir/fps-denominator"
        printf "out.mp4${n}1000000000000000000.5$n$n$n$n$n$n$n" >"$dir/fps-huge"
        printf "out.mp4${n}2147483647/2147483646${n}8192x2048${n}192000${n}86400${n}86340000$n$n$n" >"$dir/edges" ;;
    capi)
        # Bytes: engine options, two mixes' options, then calls (see Sources/PulsarFuzzing/CAPIEntry.swift).
        local calls='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x01\x00\x01\x00\x00\x08\x00\x04\x00\x00\x07\x09\x01\x01\x03\x0a\x03\x00\x00\x03\x00\x01\x05\x00\x04\x08\x09\x0a\x07\x08\x09\x07\x00\x00\x09\x00\x08\x07\x0a\x00\x00\x00\x40\x00\x0b\x00\x00\x0a\x00\x01\x01\x01\x00\x00\x00'
        printf "\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00$calls" >"$dir/one-device"
        printf "\x00\x01\x00\x00\x00\x00\x02\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00$calls" >"$dir/two-devices"
        printf "\x00\x00\x00\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00$calls" >"$dir/unplugged" ;;
    pw-dump)
        cp Tests/Fixtures/pipewire/*.json "$dir"/ ;;
    arguments)
        printf 'x.json\0--offset\0-12.5\0--duration\0900\0--loop\0003\0-o\0out.wav\0--quiet' >"$dir/render"
        printf 'b.pulsar\0--preset\0tap\0--from=100\0--to=900\0--reverse\0--\0-x' >"$dir/play" ;;
    esac
}

# A script of three voices and every command (voice 3 realtime; two play at once).
voices_script() { # file
    printf '%s\n' '# three voices' 'at 0 play' 'at 0 start 2' 'at 20 start 3 50' 'at 40 position 3 120' 'at 60 intensity 2 0.5 over 100' \
        'at 80 sharpness 0.3 over 50' 'at 100 gain master 0.8 over 200' 'at 120 pause 2' 'at 150 resume 2' 'at 160 seek 1 100' \
        'at 180 loop 2 3 reverse' 'at 200 loop off' 'at 220 offset 2 15' 'at 240 haptics 2 off' 'at 260 gain audio 0.5' \
        'at 280 gain 2 haptic 1.5' 'at 300 haptics 2 on' 'at 320 position 3 -40' 'at 400 stop 1' 'at 420 start 1' 'at 500 stop 2' \
        'at 500 stop 3' 'at 600 stop' >"$1"
}

# Ogg Vorbis with ANDROID_HAPTIC comments: the two headers alone, built by hand, and short
# tones encoded by sox when it is installed; and the shared corpus's small .ogg files.
ogg_seeds() { # dir
    python3 - "$1" <<'PY'
import struct, sys, zlib, os
out = sys.argv[1]
def crc(data):
    # Ogg's CRC-32 (polynomial 0x04c11db7, no reflection).
    r = 0
    for b in data:
        r ^= b << 24
        for _ in range(8):
            r = ((r << 1) ^ 0x04c11db7) if r & 0x80000000 else r << 1
            r &= 0xffffffff
    return r
def page(packet, seq, flags):
    segs = [255] * (len(packet) // 255) + [len(packet) % 255]
    head = b'OggS' + bytes([0, flags]) + struct.pack('<qIIIB', 0, 0x5EED, seq, 0, len(segs)) + bytes(segs)
    p = bytearray(head + packet)
    p[22:26] = struct.pack('<I', crc(p))
    return bytes(p)
def ident(channels):
    return b'\x01vorbis' + struct.pack('<IBIiii', 0, channels, 8000, 0, 32000, 0) + bytes([0xb8, 1])
def comments(tags):
    v = b'pulsar'
    body = b'\x03vorbis' + struct.pack('<I', len(v)) + v + struct.pack('<I', len(tags))
    for t in tags:
        t = t.encode()
        body += struct.pack('<I', len(t)) + t
    return body + b'\x01'
for name, ch, tags in [('haptic1', 3, ['ANDROID_HAPTIC=1']), ('haptic2', 4, ['android_haptic=2', 'TITLE=x']),
                       ('bad', 2, ['ANDROID_HAPTIC=999', 'ANDROID_HAPTIC=1']), ('no-audio', 1, ['ANDROID_HAPTIC=1'])]:
    with open(os.path.join(out, name + '-headers.ogg'), 'wb') as f:
        f.write(page(ident(ch), 0, 2) + page(comments(tags), 1, 0))
PY
    if command -v sox >/dev/null; then
        sox -n -r 8000 -c 3 --comment ANDROID_HAPTIC=1 "$1/tone-haptic1.ogg" synth 0.1 sine 200 sine 300 sine 170 2>/dev/null
        sox -n -r 8000 -c 4 --comment ANDROID_HAPTIC=2 "$1/tone-haptic2.ogg" synth 0.1 sine 200 sine 300 sine 170 sine 90 2>/dev/null
        sox -n -r 8000 -c 2 --comment ANDROID_HAPTIC=x "$1/tone-bad.ogg" synth 0.1 sine 200 sine 170 2>/dev/null
    fi
    [[ -d $corpus ]] && find "$corpus" -name '*.ogg' -size -64k -exec cp {} "$1"/ \; 2>/dev/null
}

# AHAPs whose AudioCustom events name every file around them (see AHAPAudioEntry.swift).
ahap_seeds() { # dir
    local path
    for path in s.wav link.wav sub/t.wav sub/../s.wav empty.wav passwd.wav away.wav away/o.wav ../away/o.wav /etc/passwd missing.wav \
        sub x.ahap . '' 'sub\\t.wav'; do
        printf '{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}},{"Event":{"Time":0.05,"EventType":"AudioCustom","EventWaveformPath":"%s","EventParameters":[{"ParameterID":"AudioVolume","ParameterValue":0.5}]}}]}' \
            "$path" >"$1/path$(printf '%s' "$path" | tr -c 'a-z0-9' '_').ahap"
    done
}

status=0
for t in "${targets[@]}"; do
    [[ -x $bin/fuzz-$t ]] || { echo "fuzz: $bin/fuzz-$t is not built (make fuzz builds it)"; exit 2; }
    seed "$t"
    # fuzz-capi is linked with libpulsar by its soname, which the build names libPulsarC.so.
    [[ $t == capi ]] && ln -sf libPulsarC.so "$bin/libpulsar.so.0"
    mkdir -p "$work/findings/$t" "Tests/Fixtures/fuzz/$t"
    limit=(-max_total_time="$seconds")
    [[ -n ${FUZZ_RUNS:-} ]] && limit=(-runs="$FUZZ_RUNS")
    log=$work/$t.log
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/fuzz-$t" "${limit[@]}" -timeout=10 -rss_limit_mb=1024 \
        -max_len=131072 -print_final_stats=1 -artifact_prefix="$work/findings/$t/" "$work/corpus/$t" >"$log" 2>&1
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    found=0
    for f in "$work/findings/$t"/*; do
        [[ -f $f ]] || continue
        cp "$f" "Tests/Fixtures/fuzz/$t/$(basename "$f")"
        found=$((found + 1))
    done
    rm -f "$work/findings/$t"/*
    echo "fuzz $t: ${runs:-?} executions, coverage ${cov:-?} edges, $found findings (log $log)"
    [[ $found -eq 0 ]] || status=1
done
exit $status
