#!/usr/bin/env python3
"""Rendering the corpus `.haptic` clips through each actuator config beside today's model.

usage: Benchmarks/scripts/actuator-bench.py [PULSAR] [RUNS]

PULSAR defaults to .build/release/pulsar (`swift build -c release --static-swift-stdlib
--product pulsar`), RUNS to 3. Every clip of ../shared/corpus/lofelt/clips is rendered at 48 kHz
to a float WAV of its haptic channel, once with today's model (`--layout haptic`, the wideband
profile, the clip imported as docs/formats.md says) and once through each shipped config: the
envelope model's `wideband` (today's, as a file: the same samples) and `lra`, the same model with
linear laws (a config this script writes: the clip's values read as written), and the burst
model's `meta-console`, `meta-quest`, and this project's `dualsense` and `bass-shaker`, whose
bursts are band-limited and risen (docs/actuators.md). Runs alternate between
the ways; the median of RUNS wall times of the whole corpus is reported with the seconds of
haptics rendered per second of wall time (process start-up included: one process per clip).

Then, per clip, how far the two renders of one design are apart: the correlation of their 10 ms
RMS envelopes (over the shorter length), the ratio of their RMS levels in dB, and the frequency
of their strongest spectral peak — the figures issue 39 starts from. Last, `pulsar lint` of every
clip on each device: its findings by rule over the corpus, and how many clips are clean.
"""
import collections, glob, json, os, statistics, subprocess, sys, tempfile, time
import numpy as np

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pulsar = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/release/pulsar")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
clips = sorted(glob.glob(os.path.join(root, "../shared/corpus/lofelt/clips/*/*.haptic")))
work = tempfile.mkdtemp(prefix="pulsar-actuator-bench-")
RATE = 48000
linear = os.path.join(work, "linear.acf")
with open(linear, "w") as f:
    f.write("{model: 'envelope', continuous: {frequency_min: 60, frequency_max: 300}, laws: {amplitude: 'linear', frequency: 'linear'}}\n")
ways = {"today (wideband)": ["--layout", "haptic"], "wideband": ["--actuator", "wideband"], "linear": ["--actuator", linear],
        "lra": ["--actuator", "lra"], "meta-console": ["--actuator", "meta-console"],
        "meta-quest": ["--actuator", "meta-quest"], "dualsense": ["--actuator", "dualsense"],
        "bass-shaker": ["--actuator", "bass-shaker"]}


def out_path(way, clip):
    return os.path.join(work, way.split()[0] + "-" + os.path.basename(clip) + ".wav")


def render_all(way):
    start = time.perf_counter()
    for clip in clips:
        subprocess.run([pulsar, "render", clip, *ways[way], "--rate", str(RATE), "-o", out_path(way, clip), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def samples(path):
    data = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(data, np.float32).astype(np.float64)


def envelope(x, hop=RATE // 100):
    n = len(x) // hop
    return np.sqrt(np.mean(x[: n * hop].reshape(n, hop) ** 2, axis=1)) if n else np.zeros(0)


def peak_hz(x):
    if len(x) < 1024:
        return float("nan")
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.argmax(spectrum[1:]) + 1) * RATE / len(x)


times = {way: [] for way in ways}
for _ in range(runs):
    for way in ways:
        times[way].append(render_all(way))
seconds = {way: sum(len(samples(out_path(way, c))) for c in clips) / RATE for way in ways}

print(f"pulsar: {pulsar}; {len(clips)} clips; {runs} runs each, alternating; median wall seconds of the corpus")
print()
print("| way | corpus wall time | haptics rendered | rendered s per wall s |")
print("| --- | ---: | ---: | ---: |")
for way in ways:
    t = statistics.median(times[way])
    print(f"| {way} | {t:.2f} s | {seconds[way]:.1f} s | {seconds[way] / t:.1f} |")

print()
print("| config | envelope correlation with today's (min / median / max) | RMS level, config − today (median) | strongest peak, today → config (median Hz) |")
print("| --- | ---: | ---: | ---: |")
for way in list(ways)[1:]:
    corr, level, today_hz, config_hz = [], [], [], []
    for clip in clips:
        a, b = samples(out_path("today (wideband)", clip)), samples(out_path(way, clip))
        ea, eb = envelope(a), envelope(b)
        n = min(len(ea), len(eb))
        if n > 2 and ea[:n].std() > 0 and eb[:n].std() > 0:
            corr.append(float(np.corrcoef(ea[:n], eb[:n])[0, 1]))
        ra, rb = np.sqrt(np.mean(a ** 2)), np.sqrt(np.mean(b ** 2))
        if ra > 0 and rb > 0:
            level.append(20 * np.log10(rb / ra))
        today_hz.append(peak_hz(a))
        config_hz.append(peak_hz(b))
    print(f"| {way} | {min(corr):.3f} / {statistics.median(corr):.3f} / {max(corr):.3f} | {statistics.median(level):+.1f} dB | "
          f"{np.nanmedian(today_hz):.0f} → {np.nanmedian(config_hz):.0f} Hz |")

print()
identical = sum(open(out_path("today (wideband)", c), "rb").read() == open(out_path("wideband", c), "rb").read() for c in clips)
print()
print(f"wideband.acf against no option: {identical} of {len(clips)} renders byte-identical")
print()
names = ["transients-merge", "transients-close", "transient-short", "transient-shape", "response", "sustained-drive", "energy-above-1khz", "outside-band", "step"]
print("| device | clean clips | " + " | ".join(names) + " | lint wall time |")
print("| --- | ---: | " + " | ".join("---:" for _ in names) + " | ---: |")
devices = {"today (wideband)": [], **{w: ways[w] for w in list(ways)[1:]}}
for device, option in devices.items():
    rules, clean = collections.Counter(), 0
    start = time.perf_counter()
    for clip in clips:
        out = subprocess.run([pulsar, "lint", clip, *option, "--json", "--quiet"], capture_output=True, check=True).stdout
        found = json.loads(out)["findings"]
        clean += not found
        rules.update(f["rule"] for f in found)
    wall = time.perf_counter() - start
    print(f"| {device} | {clean} of {len(clips)} | " + " | ".join(str(rules[n]) for n in names) + f" | {wall:.2f} s |")
