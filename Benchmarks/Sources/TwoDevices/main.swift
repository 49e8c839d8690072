// Sound on one device, touch on another: one simulated hour on two simulated devices whose
// crystals differ by 300 ppm (+150 and −150) with ±0.3 ms of position jitter, on a driven clock.
// The skew is the content time really felt on the haptic device minus the content time really
// heard on the main one (each device's exact position, `SimulatedDevice.exactStreamFrame`, read
// through the segments the haptic device was fed by), sampled at 60 Hz; lock-in is the time after
// which it stays within 0.25 ms. Beside it, in the same run, the reference: the same two devices
// each under its own single-device engine, started together (two players without a shared clock).
// Also the real-time steps' cost of both set-ups over the hour.
//
// With `--graph Q`, the two are the two streams of one PipeWire graph instead: one clock (no rate
// error, no jitter), positions reported in steps of the quantum Q, the touch's stream starting
// three cycles after the sound's, the engine stepped once a quantum with period Q; the bound is
// 0.1 ms (5 samples) and the reference is left out.
//
//   swift run -c release two-devices [--seconds S] [--graph Q]
import BenchSupport
import Foundation
import PulsarAudio
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation

let arguments = CommandLine.arguments
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 3600
let rate = SampleRate(48_000)!
let graph = arguments.firstIndex(of: "--graph").flatMap { Int(arguments[$0 + 1]) }
let periodFrames = graph ?? 256
let period = Double(periodFrames) / 48_000
let bound = graph == nil ? 0.25 : 0.1

func behaviour(_ ppm: Double, seed: UInt64) -> SimulatedDevice.Behaviour {
    var b = SimulatedDevice.Behaviour()
    b.rateErrorPPM = graph == nil ? ppm : 0
    b.jitterSeconds = graph == nil ? 0.0003 : 0
    b.granularityFrames = graph ?? 1
    b.latencyFrames = graph.map { seed == 2 ? 3 * $0 : 0 } ?? 0
    b.seed = seed
    return b
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
}

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[Int(Double(sorted.count - 1) * p)] }

/// One engine, two devices.
func shared(_ mixer: PresetMixer) throws -> (skews: [(Double, Double)], cpu: Double) {
    let clock = ManualClock()
    let main = SimulatedDevice(clock: clock, behaviour: behaviour(150, seed: 1))
    let haptic = SimulatedDevice(clock: clock, behaviour: behaviour(-150, seed: 2))
    let engine = try HapticEngine(device: main, sampleRate: rate, channels: 3, monotonic: clock,
                                  periodFrames: periodFrames, bufferFrames: max(1024, 4 * periodFrames),
                                  hapticDevice: HapticDeviceOutput(device: haptic, layout: .haptic, sampleRate: rate))
    let voice = try engine.makeVoice(mixer)
    voice.play()
    var skews: [(Double, Double)] = []
    var elapsed = 0.0, next = 1.0 / 60
    let start = cpuSeconds()
    while elapsed < seconds {
        try engine.step()
        engine.poll()
        clock.advance(seconds: period)
        elapsed += period
        guard elapsed >= next else { continue }
        next += 1.0 / 60
        let now = clock.now()
        guard let a = main.exactStreamFrame(at: now), let b = haptic.exactStreamFrame(at: now),
              let s = engine.hapticDeviceStreamPosition(atDevicePosition: b) else { continue }
        skews.append((elapsed, (s - a) / 48))
    }
    return (skews, cpuSeconds() - start)
}

/// Two single-device engines started together: the reference without a shared clock.
func separate(_ mixer: PresetMixer) throws -> (skews: [(Double, Double)], cpu: Double) {
    let clock = ManualClock()
    let main = SimulatedDevice(clock: clock, behaviour: behaviour(150, seed: 1))
    let haptic = SimulatedDevice(clock: clock, behaviour: behaviour(-150, seed: 2))
    let a = try HapticEngine(device: main, sampleRate: rate, channels: 3, monotonic: clock)
    let b = try HapticEngine(device: haptic, sampleRate: rate, channels: 3, monotonic: clock)
    let va = try a.makeVoice(mixer), vb = try b.makeVoice(mixer)
    va.play()
    vb.play()
    var skews: [(Double, Double)] = []
    var elapsed = 0.0, next = 1.0 / 60
    let start = cpuSeconds()
    while elapsed < seconds {
        try a.step()
        try b.step()
        a.poll()
        b.poll()
        clock.advance(seconds: period)
        elapsed += period
        guard elapsed >= next else { continue }
        next += 1.0 / 60
        let now = clock.now()
        guard let x = main.exactStreamFrame(at: now), let y = haptic.exactStreamFrame(at: now) else { continue }
        // Both voices started at the first frame of their streams: stream skew is content skew.
        skews.append((elapsed, (y - x) / 48))
    }
    return (skews, cpuSeconds() - start)
}

func report(_ name: String, _ run: (skews: [(Double, Double)], cpu: Double)) {
    let lastOut = run.skews.lastIndex { abs($0.1) > bound }
    let lock = lastOut.map { $0 + 1 < run.skews.count ? String(format: "%.2f s", run.skews[$0 + 1].0) : "never" } ?? "at once"
    let after = run.skews[((lastOut ?? -1) + 1)...].map { abs($0.1) }.sorted()
    let all = run.skews.map { abs($0.1) }.sorted()
    let figures = after.isEmpty
        ? String(format: "|skew| p50 %.4f p99 %.4f max %.4f ms over the whole run", percentile(all, 0.5), percentile(all, 0.99), all.last!)
        : String(format: "|skew| after lock-in p50 %.4f p99 %.4f max %.4f ms", percentile(after, 0.5), percentile(after, 0.99), after.last!)
    let settled = run.skews.filter { $0.0 >= 2 }.map { abs($0.1) }.sorted()
    let late = settled.isEmpty ? "" : String(format: "; from 2 s on p99 %.4f max %.4f ms", percentile(settled, 0.99), settled.last!)
    print(String(format: "%@: %.0f s simulated, lock-in %@, %@%@; final skew %+.3f ms; %.1f s CPU (%.0f× real time)",
                 name, seconds, lock, figures, late, run.skews.last!.1, run.cpu, seconds / run.cpu))
}

let mixer = try DemoContent.mixer(range: PlaybackRange(loopCount: PlaybackTimeline.endless))
if let graph {
    report("two-devices, one graph at quantum \(graph) (one clock, positions in quantum steps)", try shared(mixer))
} else {
    report("two-devices, one engine (touch fed at the main clock's content time)", try shared(mixer))
    report("two-devices, reference: two single-device engines started together", try separate(mixer))
}
