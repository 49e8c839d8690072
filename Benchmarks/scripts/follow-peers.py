#!/usr/bin/env python3
"""Touch from live sound, side by side in one run, in a private PipeWire session.

Kicks with known onsets (a sweep from 150 to 55 Hz decaying over 50 ms, -12 ... -2 dB, 0.4-0.6 s
apart) over a quiet pad are played by pw-play into the null sink `music`; each contender follows
`music`'s monitor and plays onto the null sink `touch`; both sinks are captured together through
a third sink that drives the graph (FL the music, FR the touch). Contenders:

  pulsar envelope   pulsar follow --from pw:music.monitor --to pw:touch --period Q
  pulsar android    the same with --method android (Android's HapticGenerator chain, streaming)
  sox band-pass     pw-record (music's monitor) | sox sinc 80-400 | pw-play (touch): the chain
                    shaker rigs build by hand (a band-pass on the game's sound), --buffer 256

For each: capture-to-felt latency per kick (a kick's first sample above -40 dBFS in `music` to
the first 20 dB under the touch's own peak in `touch`, within 300 ms), F1 of felt onsets within +-10 ms of the heard ones once
the chain's median delay is taken off (how well it follows, apart from how late), the
energy of the touch above 1 kHz relative to all of it, the envelope correlation (5 ms RMS
windows, best lag 0-200 ms) with the offline rendering of the same sound (`pulsar derive` then
`pulsar render` for the envelope method; `pulsar derive --method android` for Android's chain),
and the contender's CPU time (user + system, GNU time) per second of sound. Offline, the two
derive chains' CPU time per second of sound.

    python3 Benchmarks/scripts/follow-peers.py [--quanta 128,64] [--pulsar .build/release/pulsar]

Run from the project root after `swift build -c release --product pulsar`; needs pipewire,
wireplumber, sox and GNU time (make deps-bench).
"""
import argparse, array, json, math, os, random, signal, struct, subprocess, sys, tempfile, time

RATE = 48_000


def write_wav(path, samples):
    data = array.array("f", samples).tobytes()
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 3, 1, RATE, RATE * 4, 4, 32))
        f.write(b"data" + struct.pack("<I", len(data)) + data)


def read_wav(path):
    """(channels, interleaved floats) of a float or 16-bit WAV."""
    d = open(path, "rb").read()
    at, fmt, payload = 12, None, None
    while at + 8 <= len(d):
        cid, size = d[at:at + 4], struct.unpack("<I", d[at + 4:at + 8])[0]
        body = at + 8
        if cid == b"data" and (size in (0, 0xFFFFFFFF) or body + size > len(d)):
            size = len(d) - body
        if cid == b"fmt ":
            tag, ch, _, _, _, bits = struct.unpack("<HHIIHH", d[body:body + 16])
            if tag == 0xFFFE:
                tag = struct.unpack("<H", d[body + 24:body + 26])[0]
            fmt = (tag, ch, bits)
        if cid == b"data":
            payload = d[body:body + size]
        at = body + size + (size & 1)
    tag, ch, bits = fmt
    if tag == 3:
        a = array.array("f")
        a.frombytes(payload[:len(payload) // 4 * 4])
        return ch, list(a)
    a = array.array("h")
    a.frombytes(payload[:len(payload) // 2 * 2])
    return ch, [x / 32768 for x in a]


def kick_track(seed):
    """7 s: kicks at known frames over a quiet pad (two detuned low notes)."""
    rnd = random.Random(seed)
    x = [0.003 * math.sin(2 * math.pi * 196 * i / RATE) + 0.003 * math.sin(2 * math.pi * 247 * i / RATE) for i in range(7 * RATE)]
    onsets, t = [], 0.4
    while t < 6.4:
        level, start = 10 ** ((-12 + 10 * rnd.random()) / 20), int(t * RATE)
        onsets.append(start)
        for i in range(int(0.3 * RATE)):
            if start + i >= len(x):
                break
            u = i / RATE
            x[start + i] += level * math.sin(2 * math.pi * (55 * u + 95 * 0.03 * (1 - math.exp(-u / 0.03)))) * math.exp(-u / 0.05)
        t += 0.4 + 0.2 * rnd.random()
    return x, onsets


def onsets(channel, threshold):
    """A sample above `threshold` with none in the 30 ms before; then 200 ms skipped."""
    out, k, quiet = [], 0, 0
    while k < len(channel):
        if abs(channel[k]) > threshold:
            if quiet >= 1440:
                out.append(k)
                k += 9600
                quiet = 0
                continue
            quiet = 0
        else:
            quiet += 1
        k += 1
    return out


def envelope(x, window=240):
    return [math.sqrt(sum(v * v for v in x[i:i + window]) / window) for i in range(0, len(x) - window, window)]


def correlation(a, b):
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    ma, mb = sum(a) / n, sum(b) / n
    sab = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    saa = sum((x - ma) ** 2 for x in a)
    sbb = sum((y - mb) ** 2 for y in b)
    return sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else 0.0


def biquad_highpass(x, cutoff):
    """RBJ's high-pass biquad (Q 1/sqrt 2) over `x`."""
    w = 2 * math.pi * cutoff / RATE
    alpha = math.sin(w) / math.sqrt(2)
    cw = math.cos(w)
    b0, b1, b2 = (1 + cw) / 2, -(1 + cw), (1 + cw) / 2
    a0, a1, a2 = 1 + alpha, -2 * cw, 1 - alpha
    b0, b1, b2, a1, a2 = b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0
    y, x1, x2, y1, y2 = [], 0.0, 0.0, 0.0, 0.0
    for v in x:
        out = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1, y2, y1 = x1, v, y1, out
        y.append(out)
    return y


def high_band_db(x):
    """Energy above 1 kHz relative to the whole: an 8th-order Butterworth-like high-pass (four
    biquads; -84 dB at 300 Hz)."""
    high = x
    for _ in range(4):
        high = biquad_highpass(high, 1000)
    total, above = sum(v * v for v in x), sum(v * v for v in high)
    return 10 * math.log10(above / total) if total > 0 and above > 0 else -math.inf


class Session:
    def __init__(self, root, work):
        self.root, self.dir = root, os.path.join(work, "pw")
        subprocess.run(["bash", os.path.join(root, "scripts/pipewire-session.sh"), "start", self.dir, "--watch", str(os.getpid())], check=True,
                       stdout=subprocess.DEVNULL)
        self.env = dict(os.environ)
        for line in open(os.path.join(self.dir, "env")):
            if line.startswith("export "):
                k, v = line[7:].strip().split("=", 1)
                self.env[k] = v.strip("'\"")
        self.env.pop("PIPEWIRE_REMOTE", None)

    def tool(self, *args):
        subprocess.run(list(args), env=self.env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sink(self, name, positions, driver):
        props = ("{ factory.name=support.null-audio-sink node.name=%s media.class=Audio/Sink audio.channels=%d audio.position=[%s] "
                 "audio.rate=48000 object.linger=true priority.driver=%d }") % (name, len(positions), " ".join(positions), 30000 if driver else 1)
        self.tool("pw-cli", "create-node", "adapter", props)

    def stop(self):
        subprocess.run(["bash", os.path.join(self.root, "scripts/pipewire-session.sh"), "stop", self.dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def contenders(pulsar, quantum, figures):
    lat = "%d" % quantum
    follow = [pulsar, "follow", "--from", "pw:music.monitor", "--to", "pw:touch", "--period", lat, "--seconds", "9", "--quiet", "--json", figures]
    sox = ("pw-record --target music -P '{ stream.capture.sink=true }' --latency %s --format f32 --rate 48000 --channels 1 - 2>/dev/null"
           " | sox -q --buffer 256 -t raw -r 48000 -e floating-point -b 32 -c 1 - -t raw -e floating-point -b 32 -c 1 - sinc 80-400"
           " | pw-play --target touch --latency %s --format f32 --rate 48000 --channels 1 - 2>/dev/null") % (lat, lat)
    return [("pulsar follow, envelope", follow), ("pulsar follow, android", follow + ["--method", "android"]),
            ("sox sinc 80-400 chain", ["timeout", "-s", "INT", "9", "bash", "-c", sox])]


def timed(command, env, cpu_file):
    return subprocess.Popen(["/usr/bin/time", "-f", "%U %S", "-o", cpu_file] + command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_of(path):
    try:
        user, system = open(path).read().split()[-2:]
        return float(user) + float(system)
    except (OSError, ValueError):
        return math.nan


def run_one(session, work, name, command, kicks_path):
    capture, cpu = os.path.join(work, "capture.wav"), os.path.join(work, "cpu.txt")
    for p in (capture, cpu):
        if os.path.exists(p):
            os.unlink(p)
    recorder = subprocess.Popen(["pw-record", "--target", "both", "-P", "{ stream.capture.sink=true }", "--format", "f32", "--rate", "48000",
                                 "--channels", "2", "--channel-map", "FL,FR", capture], env=session.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    contender = timed(command, session.env, cpu)
    time.sleep(1.0)
    subprocess.run(["pw-play", "--target", "music", kicks_path], env=session.env, check=True)
    contender.wait(timeout=30)
    recorder.send_signal(signal.SIGINT)
    recorder.wait(timeout=10)
    _, samples = read_wav(capture)
    return samples[0::2], samples[1::2], cpu_of(cpu)


def measure(music, touch, offline, known, cpu):
    heard = onsets(music, 0.01)
    # Felt: 20 dB under the touch's own peak (each chain has its own level).
    felt = onsets(touch, 0.1 * max(abs(v) for v in touch))
    lags = []
    for h in heard:
        f = next((f for f in felt if 0 <= f - h < RATE * 3 // 10), None)
        if f is not None:
            lags.append((f - h) / 48)
    # Fidelity apart from latency: a felt onset matches a heard one within 10 ms once the
    # chain's own delay (its median) is taken off.
    delay = int(round(sorted(lags)[len(lags) // 2] * 48)) if lags else 0
    matched = sum(1 for h in heard if any(abs(f - delay - h) <= 480 for f in felt))
    precision = matched / len(felt) if felt else 0
    recall = matched / len(heard) if heard else 0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0
    # The offline rendering on the capture's time line: the track's first known onset at the first heard one.
    start = heard[0] - known[0] if heard else 0
    window = 240
    live = envelope(touch[max(start, 0):])
    off = envelope(offline)
    best = max(((correlation(live[lag:], off), lag) for lag in range(0, 41)), default=(0, 0))
    seconds = len(music) / RATE
    return {"lags": sorted(lags), "f1": f1, "heard": len(heard), "felt": len(felt), "high": high_band_db(touch),
            "corr": best[0], "corrLagMs": best[1] * window / 48, "cpuPerSecond": cpu / 9}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quanta", default="128,64")
    parser.add_argument("--pulsar", default=".build/release/pulsar")
    args = parser.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
    pulsar = os.path.abspath(args.pulsar)
    work = tempfile.mkdtemp(prefix="follow-peers-")
    track, known = kick_track(0x5EED)
    kicks = os.path.join(work, "kicks.wav")
    write_wav(kicks, track)
    # Offline: the two derive chains on the same sound, timed.
    offline, offline_cpu = {}, {}
    t0 = os.times()
    subprocess.run([pulsar, "derive", kicks, "-o", os.path.join(work, "d.json"), "--quiet"], check=True)
    subprocess.run([pulsar, "render", os.path.join(work, "d.json"), "-o", os.path.join(work, "d.wav"), "--quiet"], check=True)
    t1 = os.times()
    subprocess.run([pulsar, "derive", kicks, "-o", os.path.join(work, "a.wav"), "--method", "android", "--quiet"], check=True)
    t2 = os.times()
    offline_cpu["envelope"] = (t1.children_user + t1.children_system - t0.children_user - t0.children_system) / 7
    offline_cpu["android"] = (t2.children_user + t2.children_system - t1.children_user - t1.children_system) / 7
    ch, d = read_wav(os.path.join(work, "d.wav"))
    offline["envelope"] = d[ch - 1::ch]
    ch, a = read_wav(os.path.join(work, "a.wav"))
    offline["android"] = a[0::ch]
    session = Session(root, work)
    rows = []
    try:
        session.sink("music", ["MONO"], False)
        session.sink("touch", ["MONO"], False)
        session.sink("both", ["FL", "FR"], True)
        time.sleep(0.3)
        session.tool("pw-link", "music:monitor_MONO", "both:playback_FL")
        session.tool("pw-link", "touch:monitor_MONO", "both:playback_FR")
        for quantum in [int(q) for q in args.quanta.split(",")]:
            session.tool("pw-metadata", "-n", "settings", "0", "clock.force-quantum", str(quantum))
            figures = os.path.join(work, "figures.json")
            for name, command in contenders(pulsar, quantum, figures):
                if os.path.exists(figures):
                    os.unlink(figures)
                music, touch, cpu = run_one(session, work, name, command, kicks)
                reference = offline["android" if "android" in name else "envelope"]
                m = measure(music, touch, reference, known, cpu)
                m["reported"] = json.load(open(figures)).get("delayMs") if os.path.exists(figures) else None
                rows.append((quantum, name, m))
    finally:
        session.stop()
    print("| quantum | contender | capture to felt: median (min–max) | delay it reports | F1 ±10 ms (delay off) | above 1 kHz | envelope r with offline (lag) | CPU per s of sound |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for quantum, name, m in rows:
        lags = m["lags"]
        lag = "%.2f ms (%.2f–%.2f), %d of %d kicks" % (lags[len(lags) // 2], lags[0], lags[-1], len(lags), m["heard"]) if lags else "none felt"
        reported = "—" if m["reported"] is None else "%.2f ms" % m["reported"]
        print("| %d | %s | %s | %s | %.2f | %.1f dB | %.2f (%.0f ms) | %.1f ms |" % (quantum, name, lag, reported, m["f1"], m["high"], m["corr"], m["corrLagMs"], m["cpuPerSecond"] * 1000))
    print()
    print("Offline, the same 7 s: `pulsar derive` + `pulsar render` (envelope) %.1f ms, `pulsar derive --method android` %.1f ms of CPU per second of sound (process start included)."
          % (offline_cpu["envelope"] * 1000, offline_cpu["android"] * 1000))


if __name__ == "__main__":
    main()
