// `pulsar follow` from a capture on one crystal onto a device on another, for a simulated hour:
// the capture at +150 ppm and the device at −150 ppm (then the other way round), the device's
// position readings jittered by ±0.3 ms, on a driven clock, the follower's envelope method at
// work on a looped second of kicks over noise. Every 0.1 s the delay from a frame being
// captured to it being heard is measured from the twins' own truth (the device frame heard, the
// capture frame it read by the reported segments, when that was captured); the figure is its
// worst move from its value at 1 s, and the real-time steps' CPU time per simulated hour.
// Also the frames that read silence for want of input (missing) and the device's underruns.
//
// With --check it exits 1 when the delay moved more than 1 ms, or anything went missing — as
// `make test` runs it.
//
//   swift run -c release follow-clock [--seconds S] [--check]
import Foundation
import PulsarAudio
import PulsarCore
import PulsarDerive
@_spi(Internals) import PulsarEngine
import PulsarSession
import PulsarSimulation

let arguments = CommandLine.arguments
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 3600
let check = arguments.contains("--check")
let rate = 48_000

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
}

let signal: [Float] = {
    var state: UInt64 = 0xF011_0C10
    return (0..<rate).map { (i: Int) -> Float in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Float(Double(state >> 11) / Double(1 << 53) - 0.5) * 0.01
        let phase = i % 12_000
        return noise + (phase < 2400 ? Float(sin(2 * Double.pi * 60 * Double(phase) / 48_000) * exp(-Double(phase) / 600)) * 0.7 : 0)
    }
}()

struct Result {
    var start = 0.0, end = 0.0, worst = 0.0, cpu = 0.0
    var counters: FollowPlayer.Counters
}

func run(capturePPM: Double, devicePPM: Double) throws -> Result {
    let clock = ManualClock()
    let capture = SimulatedCapture(clock: clock, signal: signal, channels: 1, sampleRate: rate, rateErrorPPM: capturePPM, periodFrames: 256)
    var b = SimulatedDevice.Behaviour()
    b.rateErrorPPM = devicePPM
    b.jitterSeconds = 0.0003
    let device = SimulatedDevice(clock: clock, behaviour: b)
    _ = try device.open(DeviceConfiguration(sampleRate: SampleRate(rate)!, channels: 1, periodFrames: 256, bufferFrames: 1024))
    let player = FollowPlayer(device: device, source: .capture(capture), follower: try HapticFollower(sampleRate: rate, settings: FollowSettings()),
                              layout: .haptic, mix: false, period: 256)
    let step = 128.0 / Double(rate)
    var segments: [FeedSegment] = []
    var elapsed = 0.0, next = 0.1, cpu = 0.0
    var first: Double?, last = 0.0, worst = 0.0
    while elapsed < seconds {
        let before = cpuSeconds()
        player.guardedStep()
        cpu += cpuSeconds() - before
        clock.advance(seconds: step)
        elapsed += step
        guard elapsed >= next else { continue }
        next += 0.1
        for case .segment(let s) in player.events().events {
            segments.append(s)
            if segments.count > 64 { segments.removeFirst(32) }
        }
        let now = clock.now()
        guard elapsed >= 1, let heard = device.exactStreamFrame(at: now),
              let read = FeedSegment.streamPosition(atDevicePosition: heard, in: segments) else { continue }
        let delay = Double(now.nanoseconds) / 1e9 - capture.captureTime(ofFrame: read)
        if first == nil { first = delay }
        last = delay
        worst = max(worst, abs(delay - first!))
    }
    return Result(start: first ?? .nan, end: last, worst: worst, cpu: cpu, counters: player.snapshot)
}

var failed = false
for (c, d) in [(150.0, -150.0), (-150.0, 150.0)] {
    let r = try run(capturePPM: c, devicePPM: d)
    let perHour = r.cpu / seconds * 3600
    print(String(format: "follow-clock: capture %+.0f ppm, device %+.0f ppm, %.0f s: delay %.3f ms at 1 s, %.3f ms at the end, worst move %.4f ms; missing %lld, underruns %d; steps' CPU %.1f s per hour (%.2f %% of a core)",
                 c, d, seconds, r.start * 1000, r.end * 1000, r.worst * 1000, r.counters.missing, r.counters.underruns, perHour, perHour / 36))
    failed = failed || !(r.worst <= 0.001) || r.counters.missing != 0 || r.counters.underruns != 0
}
exit(check && failed ? 1 : 0)
