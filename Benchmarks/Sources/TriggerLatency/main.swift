// Trigger latency and CPU on PipeWire at a 64-frame quantum, three ways in one run: the native
// stream rendered in its process callback (what `--device pw:` does), the native stream fed
// through its ring from the engine's own thread, and PipeWire's ALSA plugin (`--device
// pipewire`, the path before the native one). In a private PipeWire session with a timer-driven
// null sink (scripts/pipewire-session.sh), the graph's quantum forced to 64 frames.
//
// Each way: an engine (period 64, buffer 256) playing a long dense voice; `--triggers` clicks,
// each `makeVoice` + `play` 20–30 ms apart (`TriggerProbe`, as `pulsar latency` measures: the
// play's effective frame less the frame the device clock says is heard when the call begins);
// the process's CPU time over the run. Target: p99 ≤ 3 ms, max ≤ 5 ms on the native stream.
//
//   swift build -c release && cd Benchmarks && swift build -c release && .build/release/trigger-latency [--triggers 300] [--rounds 2]
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Foundation
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarDrift
import PulsarEngine
import PulsarPipeWire

let options = numericOptions(["triggers": 300, "rounds": 2])
let triggerCount = Int(options["triggers"]!), rounds = Int(options["rounds"]!)
let (root, _) = releasePulsar(from: #filePath, name: "trigger-latency")
let work = NSTemporaryDirectory() + "pulsar-trigger-latency-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
try PipeWireSession.start(root: root, in: work + "/pipewire", name: "trigger-latency")
try runProcess("/usr/bin/pw-metadata", ["-n", "settings", "0", "clock.force-quantum", "64"])

/// A continuous swell under transients every 60 ms, 1 s long, looped: the engine's load.
let dense = PatternData(
    continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: 1000, value: 0.4)],
                                         frequency: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 1000, value: 0.5)]),
    discretePattern: stride(from: 10.0, to: 1000, by: 60).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.6) })
var settings = MixSettings(layout: .mix)
settings.preloadAudio = true
let long = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: dense), settings: settings,
                           range: PlaybackRange(loopCount: PlaybackTimeline.endless))
let click = try TriggerProbe.click(layout: .mix, rate: SampleRate(48_000)!)

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

struct Result {
    var latencies: [Double]
    var cpuShare: Double
    var underruns: Int
    var quantum: Int?
}

@MainActor
func measure(_ device: OutputDevice, wake: HapticEngine.WakeSource) throws -> Result {
    let engine = try HapticEngine(device: device, sampleRate: SampleRate(48_000)!, channels: 2, periodFrames: 64, bufferFrames: 256,
                                  voiceLimit: 16, realtime: true, wake: wake)
    engine.keepsEventLog = false
    let probe = TriggerProbe(engine: engine, click: click)
    engine.start()
    try engine.makeVoice(long, priority: 10).play()
    for _ in 0..<50 { usleep(10_000); engine.poll() }
    var rng = SplitMix64(seed: 0x9E37_79B9)
    let cpu0 = cpuSeconds(), wall0 = monotonicNow()
    var attempts = 0
    while probe.triggers.count < triggerCount, attempts < triggerCount * 3 {
        attempts += 1
        usleep(UInt32(20_000 + rng.unit() * 10_000))
        probe.fire()
    }
    for _ in 0..<20 { usleep(10_000); engine.poll() }
    let share = (cpuSeconds() - cpu0) / (Double(monotonicNow() - wall0) / 1e9)
    engine.shutdown()
    engine.poll()
    return Result(latencies: probe.latenciesMs(), cpuShare: share, underruns: engine.underruns, quantum: (device as? PipeWireDevice)?.quantum)
}

let ways: [(String, () -> OutputDevice, HapticEngine.WakeSource)] = [
    ("native stream, rendered in the process callback (`pw:`)", { PipeWireDevice(target: "test-sink") }, .callback),
    ("native stream, fed through its ring by the engine's thread", { PipeWireDevice(target: "test-sink") }, .timer),
    ("PipeWire's ALSA plugin (`pipewire`)", { ALSADevice(name: "pipewire") }, .timer),
]
print("Trigger latency on PipeWire (private session, timer-driven null sink, quantum forced to 64 frames, 48 kHz; engine period 64, buffer 256, one dense voice playing), \(triggerCount) triggers a way, \(rounds) rounds in one run:")
print("")
print("| way | round | latency p50 / p99 / max | CPU of the process | underruns |")
print("| --- | ---: | ---: | ---: | ---: |")
for round in 1...rounds {
    for (name, make, wake) in ways {
        let r = try measure(make(), wake: wake)
        let l = r.latencies
        let figures = l.isEmpty ? "none" : "\(fmt(percentile(l, 0.5))) / \(fmt(percentile(l, 0.99))) / \(fmt(l.last!)) ms"
        print("| \(name)\(r.quantum.map { " (quantum \($0))" } ?? "") | \(round) | \(figures) | \(fmt(100 * r.cpuShare, 1)) % of a core | \(r.underruns) |")
    }
}
PipeWireSession.stop()
try? FileManager.default.removeItem(atPath: work)
