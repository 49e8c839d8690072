#!/usr/bin/env python3
"""`pulsar video` against real time and against the ffmpeg command line, and its A/V sync.

usage: Benchmarks/scripts/video-bench.py [PULSAR] [RUNS]

PULSAR defaults to .build/release/pulsar (`swift build -c release --static-swift-stdlib
--product pulsar`), RUNS to 3. For each case (the corpus bundle's `verified` preset looped to
30 s as the animation alone at its own 128x128, looped to 30 s as the default picture — the
animation at 480x480 with the status row and the timeline under it —, and looped to 6 s drawn
at 1280x720 with them):

- ours: wall time of `pulsar video ... -o ours.mp4` (render, mix, convert, H.264 CRF 20 veryfast,
  two AAC tracks), and that over the content's seconds (the real-time factor);
- ffmpeg: the same frames (our pictures after the yuv420p conversion, taken from a lossless
  `--quality 0` encode and decoded to raw yuv420p) and the same two WAVs (`pulsar render
  --layout L,R` and `--layout haptic`) encoded by `ffmpeg -f rawvideo ... -c:v libx264 -crf 20
  -preset veryfast -c:a aac`: the encode alone, no drawing or mixing;
- runs alternate between the two so that machine load falls on both alike; median of RUNS.

A/V sync of ours.mp4, measured by decoding it with ffprobe/ffmpeg: the largest distance between a
frame's pts and k / fps (the instant of slot k), and the lag of each decoded audio track against
its render found by cross-correlation (0 means the codec's priming is undone by the container).
"""
import os, statistics, subprocess, sys, tempfile, time
import numpy as np

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pulsar = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/release/pulsar")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
bundle = os.path.join(root, "../shared/corpus/bundles/demo.pulsar")
work = tempfile.mkdtemp(prefix="pulsar-video-bench-")
FPS, RATE = 29.97, 48000

cases = [("128×128 animation alone (--picture-only), 30 s", ["--loop", "10", "--picture-only"], 30.0),
         ("480×680 with status row and timeline (default), 30 s", ["--loop", "10"], 30.0),
         ("1280×720 with status row and timeline, 6 s", ["--loop", "2", "--size", "1280x720"], 6.0)]


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(command):
    start = time.perf_counter()
    run(command)
    return time.perf_counter() - start


def size_of(video):
    """WxH of the video stream of `video`."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0:s=x",
                          video], capture_output=True, text=True, check=True).stdout.strip()
    return out


def prepare(options):
    """The same frames as raw yuv420p and the same audio as two WAVs."""
    common = [bundle, "--preset", "verified", "--quiet"] + options
    lossless = os.path.join(work, "lossless.mkv")
    run([pulsar, "video"] + common + ["--quality", "0", "-o", lossless])
    raw = os.path.join(work, "frames.yuv")
    run(["ffmpeg", "-v", "error", "-y", "-i", lossless, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
    no_size = [o for i, o in enumerate(options)
               if o not in ("--size", "--picture-only") and (i == 0 or options[i - 1] != "--size")]
    render = [pulsar, "render", bundle, "--preset", "verified", "--quiet"] + no_size
    stereo, haptic = os.path.join(work, "audio.wav"), os.path.join(work, "haptic.wav")
    run(render + ["--layout", "L,R", "-o", stereo])
    run(render + ["--layout", "haptic", "-o", haptic])
    return common, raw, stereo, haptic, size_of(lossless)


def ffmpeg_command(raw, size, stereo, haptic, out):
    return ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-r", "2997/100", "-i", raw,
            "-i", stereo, "-i", haptic, "-map", "0:v", "-map", "1:a", "-map", "2:a",
            "-c:v", "libx264", "-crf", "20", "-preset", "veryfast", "-c:a", "aac", out]


def read_wav(path):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(out, np.float32)


def decoded(path, stream, channels):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", f"0:a:{stream}", "-f", "f32le", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(out, np.float32).reshape(-1, channels)[:, 0]


def lag(reference, signal, span=2048):
    n = min(len(reference), len(signal), 10 * RATE) - 2 * span
    best = max(range(-span, span + 1), key=lambda k: float(np.dot(reference[span:span + n], signal[span + k:span + k + n])))
    return best


def sync(out, stereo, haptic):
    pts = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", out],
                         capture_output=True, text=True, check=True).stdout.split()
    worst = max(abs(float(t.strip(",")) - k / FPS) for k, t in enumerate(pts))
    audio_ref = read_wav(stereo).reshape(-1, 2)[:, 0]
    lags = (lag(audio_ref, decoded(out, 0, 2)), lag(read_wav(haptic), decoded(out, 1, 1)))
    return len(pts), worst, lags


print(f"pulsar: {pulsar}; {runs} runs each, alternating; median wall seconds")
print()
print("| case | ours: pulsar video | real-time factor | ffmpeg CLI, same frames and WAVs (encode only) | frames | worst pts − k/fps | audio lag (audio, haptics) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for name, options, seconds in cases:
    common, raw, stereo, haptic, size = prepare(options)
    ours_out, theirs_out = os.path.join(work, "ours.mp4"), os.path.join(work, "theirs.mp4")
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(timed([pulsar, "video"] + common + ["-o", ours_out]))
        theirs.append(timed(ffmpeg_command(raw, size, stereo, haptic, theirs_out)))
    frames, worst, lags = sync(ours_out, stereo, haptic)
    o, t = statistics.median(ours), statistics.median(theirs)
    print(f"| {name} | {o:.2f} s | {o / seconds:.3f} | {t:.2f} s | {frames} | {worst * 1e6:.0f} µs | {lags[0]}, {lags[1]} samples |")
