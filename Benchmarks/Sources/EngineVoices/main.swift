// The engine's voices on a real audio server: a private PipeWire session with a timer-driven null
// sink (scripts/pipewire-session.sh), measured side by side in one run:
//   1. trigger latency: `makeVoice` + `play` called on a running engine (a long voice already
//      playing) to the voice's first sample being heard — its play's effective frame minus the
//      frame the device clock says is heard when the call begins — at period 128 (target
//      p99 ≤ 5 ms);
//   2. capacity: CPU time of `pulsar play` with 1, 8 and 64 dense voices, and 64 with a live
//      sharpness each (every one on its own oscillator) (looping patterns,
//      every voice sounding throughout) for `--seconds` each, beside `aplay` of a WAV of the same
//      format and length on the same device (target: 64 voices ≤ 10 % of one core);
//   3. the device clock under load: its prediction for each position reading, asked before the
//      clock takes the reading in, against the reading, with 1 voice and with 64.
// Needs the Debian packages pipewire pipewire-bin pipewire-alsa wireplumber dbus alsa-utils, and
// a release build of pulsar (`swift build -c release` at the project root).
//
//   swift run -c release engine-voices [--seconds 60] [--triggers 300]
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

let options = numericOptions(["seconds": 60, "triggers": 300])
let seconds = options["seconds"]!, triggerCount = Int(options["triggers"]!)
let (root, pulsar) = releasePulsar(from: #filePath, name: "engine-voices")
let work = NSTemporaryDirectory() + "pulsar-engine-voices-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)

// The audio server, stopped whatever happens.
let session = work + "/pipewire"
try PipeWireSession.start(root: root, in: session, name: "engine-voices")

/// A dense pattern: a continuous swell under transients every `gap` ms, 1 s long.
func densePattern(_ k: Int) -> PatternData {
    let gap = 60.0 + Double(k % 5) * 15
    return PatternData(
        continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2 + Double(k % 4) * 0.05), ValuePoint(time: 1000, value: 0.4)],
                                             frequency: [ValuePoint(time: 0, value: Double(k % 8) / 8), ValuePoint(time: 1000, value: 0.5)]),
        discretePattern: stride(from: 10.0, to: 1000, by: gap).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.6) })
}

func mixer(_ pattern: PatternData, loops: Int) throws -> PresetMixer {
    var settings = MixSettings(layout: .mix)
    settings.preloadAudio = true
    return try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                           range: PlaybackRange(loopCount: loops))
}

// 1. Trigger latency on a running engine.
func triggerLatencies() throws -> [Double] {
    let engine = try HapticEngine(device: ALSADevice(name: "pipewire"), sampleRate: SampleRate(48_000)!, channels: 2,
                                  periodFrames: 128, bufferFrames: 512, voiceLimit: 16, realtime: true)
    engine.start()
    defer { engine.shutdown() }
    let long = try engine.makeVoice(try mixer(densePattern(0), loops: PlaybackTimeline.endless), priority: 10)
    long.play()
    let short = try mixer(PatternData(discretePattern: [DiscretePoint(time: 0, amplitude: 0.8, frequency: 0.5)]), loops: 1)
    usleep(500_000)
    var rng = SplitMix64(seed: 0x9E37_79B9)
    var latencies: [Double] = []
    var attempts = 0
    while latencies.count < triggerCount, attempts < triggerCount * 3 {
        attempts += 1
        usleep(UInt32(20_000 + rng.unit() * 10_000))
        engine.poll()
        guard let heard = engine.streamFrame(at: engine.now()) else { continue }
        guard let voice = try? engine.makeVoice(short) else { continue }
        voice.play()
        usleep(15_000)
        engine.poll()
        let play = engine.loggedEvents.last { e in
            if case .command(.play, voice.slot, _, _, _) = e { return true }
            return false
        }
        if case let .command(_, _, _, effective, _)? = play {
            latencies.append((Double(effective.index) - heard) / 48)
        }
    }
    return latencies.sorted()
}
let triggers = try triggerLatencies()

// 2. Capacity: `pulsar play` with N dense looping voices for `seconds`, stopped by its script.
let patterns: [String] = (0..<8).map { work + "/v\($0).json" }
for (k, path) in patterns.enumerated() { try PatternWriter.write(densePattern(k), as: .pulsarJSON, to: path) }
func capacity(voices n: Int, sharpness: Bool = false) throws -> (cpu: Double, wall: Double, underruns: Int) {
    let script = work + "/stop-\(n)\(sharpness ? "-s" : "").txt"
    // With `sharpness`, every voice glides to a sharpness of 0.3 over its first second: each then
    // renders on its own oscillator (a sine per sample) instead of the shared, cached render.
    let glides = sharpness ? (1...n).map { "at 0 sharpness \($0) 0.3 over 1000" } : []
    let stops = (1...n).map { "at \(Int(seconds * 1000)) stop \($0)" }
    try ((glides + stops).joined(separator: "\n") + "\n").write(toFile: script, atomically: true, encoding: .utf8)
    let inputs = (0..<n).map { patterns[$0 % patterns.count] }
    let log = work + "/cap-\(n)\(sharpness ? "-s" : "").jsonl"
    let result = try runProcess(pulsar, ["play"] + inputs + ["--loop", "forever", "--layout", "mix", "--device", "pipewire", "--voices", "64",
                                                        "--script", script, "--log", log, "--quiet"])
    guard result.status == 0 else {
        print("engine-voices: pulsar play with \(n) voices exited \(result.status)")
        exit(1)
    }
    let underruns = (try String(contentsOfFile: log, encoding: .utf8)).components(separatedBy: "\"underrun\"").count - 1
    return (result.cpu, result.wall, underruns)
}
let one = try capacity(voices: 1), eight = try capacity(voices: 8), sixtyFour = try capacity(voices: 64)
let sharpened = try capacity(voices: 64, sharpness: true)
let loopsForAplay = Int(seconds.rounded(.up))
let wav = work + "/same-length.wav"
try runProcess(pulsar, ["render", patterns[0], "--layout", "mix", "--loop", String(loopsForAplay), "-o", wav, "--quiet"])
let aplay = try runProcess("/usr/bin/aplay", ["-q", "-D", "pipewire", "--period-size=128", "--buffer-size=512", wav])

// 3. The device clock's prediction for each reading, with 1 and 64 voices playing.
func clockErrors(voices n: Int, seconds: Double) throws -> [Double] {
    let engine = try HapticEngine(device: ALSADevice(name: "pipewire"), sampleRate: SampleRate(48_000)!, channels: 2,
                                  periodFrames: 128, bufferFrames: 512, voiceLimit: 64, realtime: true)
    var errors: [Double] = []
    var readings = 0
    engine.onEvent = { event in
        guard case let .position(frame, time) = event else { return }
        readings += 1
        // Skip the first second: the clock locks in.
        if readings > 375, let predicted = engine.streamFrame(at: time) {
            errors.append(abs(predicted - Double(frame.index)) / 48 * 1000)  // µs
        }
    }
    engine.start()
    defer { engine.shutdown() }
    for k in 0..<n { try engine.makeVoice(try mixer(densePattern(k), loops: PlaybackTimeline.endless)).play() }
    let end = monotonicNow() + Int64(seconds * 1e9)
    while monotonicNow() < end {
        usleep(10_000)
        engine.poll()
    }
    return errors.sorted()
}
let clockOne = try clockErrors(voices: 1, seconds: min(seconds, 20))
let clockSixtyFour = try clockErrors(voices: 64, seconds: min(seconds, 20))

print("Engine voices on PipeWire 0.3 (private session, timer-driven null sink, 48 kHz, period 128), one run:")
print("")
print("| measure | pulsar | reference | target |")
print("| --- | ---: | ---: | ---: |")
print("| trigger latency (makeVoice + play on a running engine → first sample heard), \(triggers.count) triggers: p50 / p99 / max | \(fmt(percentile(triggers, 0.5))) / \(fmt(percentile(triggers, 0.99))) / \(fmt(triggers.last ?? .nan)) ms | | p99 ≤ 5 ms |")
func share(_ c: (cpu: Double, wall: Double, underruns: Int)) -> String { "\(fmt(c.cpu)) s CPU in \(fmt(c.wall, 1)) s = \(fmt(100 * c.cpu / c.wall, 1)) % of a core, \(c.underruns) underruns" }
print("| CPU, 1 dense voice (`pulsar play`, the single player's work) | \(share(one)) | aplay of a WAV of the same format and length: \(fmt(aplay.cpu)) s in \(fmt(aplay.wall, 1)) s = \(fmt(100 * aplay.cpu / aplay.wall, 1)) % | |")
print("| CPU, 8 dense voices | \(share(eight)) | | |")
print("| CPU, 64 dense voices | \(share(sixtyFour)) | | ≤ 10 % of one core |")
print("| CPU, 64 dense voices, each with a live sharpness (its own oscillator) | \(share(sharpened)) | | |")
if !clockOne.isEmpty, !clockSixtyFour.isEmpty {
    print("| device clock's prediction vs each reading, 1 voice (\(clockOne.count) readings): p50 / p99 | \(fmt(percentile(clockOne, 0.5), 1)) / \(fmt(percentile(clockOne, 0.99), 1)) µs | | |")
    print("| the same with 64 voices (\(clockSixtyFour.count) readings): p50 / p99 | \(fmt(percentile(clockSixtyFour, 0.5), 1)) / \(fmt(percentile(clockSixtyFour, 0.99), 1)) µs | | unchanged |")
}
PipeWireSession.stop()
try? FileManager.default.removeItem(atPath: work)
