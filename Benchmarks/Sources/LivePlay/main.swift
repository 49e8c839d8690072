// Live play on a real audio server: a private PipeWire session with a timer-driven null sink
// (scripts/pipewire-session.sh), measured side by side in one run:
//   1. CPU time of `pulsar play` of the demo bundle looped for about 60 s against `aplay` playing
//      the same mix, pre-rendered, on the same ALSA device (target ≤ 2×);
//   2. process start → first frame written to the device (target ≤ 100 ms), from the event log's
//      `firstWriteNs` and the monotonic time just before the process was spawned;
//   3. seek and pause latency on PipeWire: the effective frame minus the frame being heard when
//      the command was sent (target p99 ≤ 10 ms), with the engine driving the ALSA device.
// Needs the Debian packages pipewire pipewire-bin pipewire-alsa wireplumber dbus alsa-utils, and
// a release build of pulsar (`swift build -c release` at the project root).
//
//   swift run -c release live-play [--seconds 60] [--commands 300]
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Foundation
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine

let options = numericOptions(["seconds": 60, "commands": 300])
let seconds = options["seconds"]!, commandCount = Int(options["commands"]!)
let (root, pulsar) = releasePulsar(from: #filePath, name: "live-play")
var bundle = root + "/../shared/corpus/bundles/demo.pulsar"
var presetID = "verified"
if !FileManager.default.fileExists(atPath: bundle) {
    print("note: corpus absent: using the project's own demo bundle")
    bundle = root + "/out/demo.pulsar"
    presetID = "heartbeat"
}
let work = NSTemporaryDirectory() + "pulsar-live-play-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)

// The audio server, stopped whatever happens.
let session = work + "/pipewire"
try PipeWireSession.start(root: root, in: session, name: "live-play")

// 1. CPU time, side by side.
let presetSeconds = 3.0
let loops = max(1, Int((seconds / presetSeconds).rounded()))
let mix = work + "/mix.wav"
try runProcess(pulsar, ["render", bundle, "--preset", presetID, "--layout", "mix", "--loop", String(loops), "-o", mix, "--quiet"])
let ours = try runProcess(pulsar, ["play", bundle, "--preset", presetID, "--layout", "mix", "--loop", String(loops), "--device", "pipewire", "--quiet"])
let theirs = try runProcess("/usr/bin/aplay", ["-q", "-D", "pipewire", "--period-size=128", "--buffer-size=512", mix])
let theirsDefault = try runProcess("/usr/bin/aplay", ["-q", "-D", "pipewire", mix])
guard ours.status == 0, theirs.status == 0, theirsDefault.status == 0 else {
    print("live-play: a player failed (pulsar \(ours.status), aplay \(theirs.status))")
    exit(1)
}

// 2. Process start → first frame written.
var startups: [Double] = []
for k in 0..<10 {
    let log = work + "/start-\(k).jsonl"
    let spawn = monotonicNow()
    try runProcess(pulsar, ["play", bundle, "--preset", presetID, "--device", "pipewire", "--to", "100", "--quiet", "--log", log])
    let end = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").last { $0.contains("\"end\"") } ?? ""
    if let range = end.range(of: "\"firstWriteNs\": "), let ns = Double(end[range.upperBound...].prefix { "0123456789.e+".contains($0) }) {
        startups.append((ns - Double(spawn)) / 1e6)
    }
}
startups.sort()

// 3. Seek and pause latency: a HapticPlayer on ALSA `pipewire` (its real-time thread, woken by
// each command), commands sent at random instants from this thread; the frame heard at the
// request comes from the player's device clock (within tens of µs of ALSA's own positions).
func commandLatencies(_ commands: [TransportCommand], period: Int = 256) throws -> [Double] {
    let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: 5000, value: 0.3)]))
    var settings = MixSettings(layout: .mix)
    settings.preloadAudio = true
    let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                                range: PlaybackRange(loopCount: 1000))
    let player = try HapticPlayer(mixer: mixer, device: ALSADevice(name: "pipewire"), periodFrames: period, bufferFrames: period * 4, realtime: true)
    player.start()
    player.play()
    defer { player.shutdown() }
    usleep(500_000)
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func unit() -> Double {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
        return Double(seed >> 11) / Double(UInt64(1) << 53)
    }
    var latencies: [Double] = []
    var sent = 0
    while latencies.count < commandCount {
        usleep(UInt32(20_000 + unit() * 10_000))
        player.poll()
        let now = player.now()
        guard let heard = player.streamFrame(at: now) else { continue }
        player.send(commands[sent % commands.count])
        sent += 1
        usleep(15_000)
        player.poll()
        let applied = player.loggedEvents.compactMap { e -> FrameIndex? in
            if case let .command(_, _, _, effective, _) = e { return effective.index }
            return nil
        }
        // The first logged command is the initial play; command k is logged k-th after it.
        if applied.count >= sent + 1 {
            latencies.append((Double(applied[sent]) - heard) / 48)
        }
    }
    return latencies.sorted()
}
let seekLatency = try commandLatencies([.seek(toTimelineFrame: 12_345), .seek(toTimelineFrame: 99_999)], period: 128)
let pauseLatency = try commandLatencies([.pause, .resume], period: 128).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).sorted()
let seekLatency256 = try commandLatencies([.seek(toTimelineFrame: 12_345), .seek(toTimelineFrame: 99_999)], period: 256)

print("Live play on PipeWire 0.3 (private session, timer-driven null sink, 48 kHz), one run:")
print("")
print("| measure | pulsar | reference | ratio / target |")
print("| --- | ---: | ---: | ---: |")
print("| CPU time, demo bundle looped \(loops)× (\(fmt(ours.wall, 1)) s, its defaults: period 128, buffer 512) vs aplay of the same mix, same period and buffer (\(fmt(theirs.wall, 1)) s) | \(fmt(ours.cpu)) s | \(fmt(theirs.cpu)) s | \(fmt(ours.cpu / max(theirs.cpu, 1e-3)))× (≤ 2×) |")
print("| the same, aplay with its defaults (\(fmt(theirsDefault.wall, 1)) s) | \(fmt(ours.cpu)) s | \(fmt(theirsDefault.cpu)) s | \(fmt(ours.cpu / max(theirsDefault.cpu, 1e-3)))× |")
if !startups.isEmpty {
    print("| process start → first frame written, 10 runs: p50 / max | \(fmt(percentile(startups, 0.5), 1)) / \(fmt(startups.last!, 1)) ms | | ≤ 100 ms |")
}
print("| seek latency (effective − heard at request), \(seekLatency.count) seeks, period 128 (play's default): p50 / p99 / max | \(fmt(percentile(seekLatency, 0.5))) / \(fmt(percentile(seekLatency, 0.99))) / \(fmt(seekLatency.last!)) ms | | p99 ≤ 10 ms |")
print("| pause latency, \(pauseLatency.count) pauses, period 128: p50 / p99 / max | \(fmt(percentile(pauseLatency, 0.5))) / \(fmt(percentile(pauseLatency, 0.99))) / \(fmt(pauseLatency.last!)) ms | | p99 ≤ 10 ms |")
print("| seek latency, \(seekLatency256.count) seeks, period 256 (`--period 256`): p50 / p99 / max | \(fmt(percentile(seekLatency256, 0.5))) / \(fmt(percentile(seekLatency256, 0.99))) / \(fmt(seekLatency256.last!)) ms | | p99 ≤ 10 ms |")
PipeWireSession.stop()
try? FileManager.default.removeItem(atPath: work)
