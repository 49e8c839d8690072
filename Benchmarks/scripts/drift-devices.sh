#!/usr/bin/env bash
# This machine's devices measured by `pulsar drift` itself: the simulated device at several rate
# errors and jitters (simulated time), and the PipeWire null sink of a private session (real
# time), one and two sinks. Prints a Markdown table for BENCHMARKS.md.
#
#   bash Benchmarks/scripts/drift-devices.sh [PULSAR] [SECONDS_SIM] [SECONDS_PIPEWIRE]
#
# PULSAR defaults to .build/release/pulsar (run from the project root, after `swift build -c
# release`). The PipeWire rows need pipewire, wireplumber and pipewire-alsa (`make deps-test`).
set -euo pipefail
cd "$(dirname "$0")/../.."
pulsar=${1:-.build/release/pulsar}
sim_seconds=${2:-120}
pw_seconds=${3:-60}
# SKIP_PIPEWIRE=1 prints the simulated rows only.
skip_pipewire=${SKIP_PIPEWIRE:-0}
work=$(mktemp -d)
trap 'bash scripts/pipewire-session.sh stop "$work/pw" >/dev/null 2>&1 || true; bash scripts/pipewire-session.sh stop "$work/pw2" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

row() {  # row LABEL JSON
    python3 - "$1" "$2" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
def p(key, scale=1, fmt="%.2f"):
    v = d.get(key)
    return "—" if v is None else "/".join(fmt % (v[k] * scale) for k in ("p50", "p99", "max"))
truth = d.get("trueClockErrorSamples")
true_ppm = d.get("truePpm")
lock = d.get("lockInSeconds")
print("| %s | %.0f | %s | %+.3f (%+.3f … %+.3f) | %.1f | %s | %s | %s | %s | %s | %d / %d / %d |" % (
    label, d["seconds"], "—" if true_ppm is None else "%+.0f" % true_ppm, d["ppm"], d["ppmInterval95"][0], d["ppmInterval95"][1],
    d["wallClockDriftMsPerHour"], p("jitterUs", fmt="%.1f"), d["granularityFrames"], p("clockErrorSamples"),
    "never" if lock is None else "%.2f s" % lock, p("trueClockErrorSamples", fmt="%.3f"), d["underruns"], d["lateWakeups"], d["slips"]))
PY
}

echo "| device | s | true ppm | measured ppm (95 %) | wall clock ms/h | jitter µs p50/p99/max | granularity | clock vs readings, samples p50/p99/max | lock-in | clock vs truth, samples p50/p99/max | underruns / late wake-ups / slips |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for ppm in -300 0 250 500; do
    for jitter in 0 0.3 0.5; do
        device="sim:ppm=$ppm,jitter=$jitter"
        "$pulsar" drift --device "$device" --seconds "$sim_seconds" --json "$work/d.json" --quiet
        row "\`$device\`" "$work/d.json"
    done
done
"$pulsar" drift --device sim:ppm=250,jitter=0.3 --seconds 3600 --json "$work/d.json" --quiet
row "\`sim:ppm=250,jitter=0.3\`, an hour" "$work/d.json"
"$pulsar" drift --device sim:ppm=-100,jitter=0.1,granularity=16 --seconds "$sim_seconds" --json "$work/d.json" --quiet
row "\`sim:ppm=-100,jitter=0.1,granularity=16\`" "$work/d.json"

[ "$skip_pipewire" = 1 ] && exit 0
bash scripts/pipewire-session.sh start "$work/pw" >/dev/null
bash scripts/pipewire-session.sh start "$work/pw2" >/dev/null
(
    set -a; . "$work/pw/env"; set +a
    "$pulsar" drift --device pipewire --seconds "$pw_seconds" --json "$work/p.json" --quiet
    row "PipeWire null sink (\`pipewire\`)" "$work/p.json"
    second="pipewire:SERVER=\"$(. "$work/pw2/env"; echo "$PIPEWIRE_RUNTIME_DIR")/pipewire-0\""
    "$pulsar" drift --device pipewire --device "$second" --seconds "$pw_seconds" --json "$work/two.json" --quiet
    python3 - "$work/two.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print()
print("Two null sinks of two PipeWire sessions in one run: ratio %+.3f ppm (95 %%: %+.3f … %+.3f); each %s ppm." % (
    d["ratioPpm"], d["ratioPpmInterval95"][0], d["ratioPpmInterval95"][1],
    " and ".join("%+.3f" % x["ppm"] for x in d["devices"])))
PY
)
