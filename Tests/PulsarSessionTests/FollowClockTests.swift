import Foundation
import PulsarAudio
import PulsarCore
import PulsarDerive
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import Testing
@testable import PulsarSession

/// `pulsar follow` from a capture on another crystal: the capture's delay to the device stays
/// where it started (no drift, no growing queue), and the log replays the live stream bit for bit.
@Suite struct FollowClockTests {
    static let rate = 48_000

    /// A second of sound to capture, looped: a kick-like burst every 250 ms over quiet noise.
    static func signal() -> [Float] {
        var random = SplitMix(seed: 0xF011_0C10)
        return (0..<rate).map { (i: Int) -> Float in
            let phase = i % 12_000
            let kick = phase < 2400 ? Float(sin(2 * Double.pi * 60 * Double(phase) / 48_000) * exp(-Double(phase) / 600)) * 0.7 : 0
            return kick + Float(random.uniform() - 0.5) * 0.01
        }
    }

    struct Rig {
        let clock: ManualClock
        let capture: SimulatedCapture
        let device: SimulatedDevice
        let player: FollowPlayer
    }

    static func rig(capturePPM: Double, devicePPM: Double, seconds: Double, record: FollowRecorder? = nil, captureCapacity: Int = 1 << 16) throws -> Rig {
        let clock = ManualClock()
        let capture = SimulatedCapture(clock: clock, signal: signal(), channels: 1, sampleRate: rate, rateErrorPPM: capturePPM, periodFrames: 256,
                                       capacity: captureCapacity)
        var b = SimulatedDevice.Behaviour()
        b.rateErrorPPM = devicePPM
        b.jitterSeconds = 0.0003
        b.recordingCapacity = record == nil ? 0 : Int(seconds * Double(rate)) + 4096
        let device = SimulatedDevice(clock: clock, behaviour: b)
        _ = try device.open(DeviceConfiguration(sampleRate: SampleRate(rate)!, channels: 1, periodFrames: 256, bufferFrames: 1024))
        let follower = try HapticFollower(sampleRate: rate, settings: FollowSettings())
        let player = FollowPlayer(device: device, source: .capture(capture), follower: follower, layout: .haptic, mix: false, period: 256, record: record)
        return Rig(clock: clock, capture: capture, device: device, player: player)
    }

    /// Steps the player twice a period for `seconds` of simulated time; every 0.1 s, the delay
    /// from a frame being captured to it being heard, by the twins' own truth: the device frame
    /// heard now, the capture frame it read (by the reported segments), when that was captured.
    static func run(_ rig: Rig, seconds: Double, stallAt: Double? = nil) -> [(t: Double, delay: Double)] {
        let step = 128.0 / Double(rate)
        var segments: [FeedSegment] = []
        var out: [(t: Double, delay: Double)] = []
        var elapsed = 0.0, next = 0.1
        var stall = stallAt
        while elapsed < seconds {
            if let at = stall, elapsed >= at {
                // Nobody steps for 0.4 s: the device runs dry, the capture drops what its ring cannot hold.
                stall = nil
                rig.clock.advance(seconds: 0.4)
                elapsed += 0.4
            }
            rig.player.guardedStep()
            rig.clock.advance(seconds: step)
            elapsed += step
            guard elapsed >= next else { continue }
            next += 0.1
            for case .segment(let s) in rig.player.events().events { segments.append(s) }
            let now = rig.clock.now()
            guard let heard = rig.device.exactStreamFrame(at: now), heard > 0,
                  let read = FeedSegment.streamPosition(atDevicePosition: heard, in: segments) else { continue }
            out.append((elapsed, Double(now.nanoseconds) / 1e9 - rig.capture.captureTime(ofFrame: read)))
        }
        return out
    }

    @Test("Capture and device 300 ppm apart, either way: the delay stays within ±1 ms of where it started, the queue does not grow",
          arguments: [(150.0, -150.0), (-150.0, 150.0)])
    func delayHeld(_ ppm: (capture: Double, device: Double)) throws {
        let seconds = 120.0
        let rig = try Self.rig(capturePPM: ppm.capture, devicePPM: ppm.device, seconds: seconds)
        let delays = Self.run(rig, seconds: seconds)
        let counters = rig.player.snapshot
        let fixed = try #require(counters.delay, "the delay was never fixed")
        let start = try #require(delays.first { $0.t >= 1 }, "no delay measured")
        let worst = delays.filter { $0.t >= 1 }.map { abs($0.delay - start.delay) }.max() ?? .infinity
        let end = try #require(delays.last)
        print("measured: capture \(ppm.capture) ppm, device \(ppm.device) ppm, \(Int(seconds)) s: delay \(String(format: "%.3f", start.delay * 1000)) ms at 1 s, \(String(format: "%.3f", end.delay * 1000)) ms at the end, worst move \(String(format: "%.3f", worst * 1000)) ms; the clocks' delay \(String(format: "%.3f", fixed * 1000)) ms; missing \(counters.missing), lost \(counters.captureLost), underruns \(counters.underruns)")
        // Unsteered, 300 ppm is 36 ms over the run: the bound can fail.
        #expect(worst <= 0.001)
        #expect(counters.missing == 0 && counters.captureLost == 0 && counters.underruns == 0)
        #expect(start.delay > 0 && start.delay < 0.05, "delay \(start.delay) s")
    }

    @Test("A live capture on another crystal, logged, through a stall (an underrun, frames the capture dropped): the replay of the log equals what the device played, bit for bit")
    func liveReplay() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follow-clock-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/run.input.wav"
        let seconds = 12.0
        let recorder = try FollowRecorder(path: input, sampleRate: Self.rate, channels: 1)
        let rig = try Self.rig(capturePPM: 230, devicePPM: -70, seconds: seconds, record: recorder, captureCapacity: 8192)
        _ = Self.run(rig, seconds: seconds, stallAt: 5)
        let recorded = try recorder.finish()
        let played = rig.device.recording
        let counters = rig.player.snapshot
        #expect(recorder.dropped == 0 && recorded == counters.frames)
        #expect(counters.underruns >= 1 && counters.captureLost > 0, "underruns \(counters.underruns), lost \(counters.captureLost)")
        print("measured: the stalled live run: \(counters.underruns) underruns, \(counters.captureLost) capture frames lost, \(counters.missing) missing")
        let log = FollowLog(sampleRate: Self.rate, channels: 1, layout: .haptic, mix: false, settings: FollowSettings(), input: "run.input.wav",
                            frames: counters.frames, device: "sim", live: true, delay: counters.delay)
        let again = try FollowLog(text: log.json)
        let replayed = try again.replay(input: try AudioFileContents(contentsOf: input).samples)
        #expect(played.count > Self.rate * 10)
        #expect(Array(replayed.prefix(played.count)) == played, "replay differs from the live stream")
        let energy = played.reduce(0) { $0 + $1 * $1 }
        #expect(energy > 1, "the haptic stream is silent: \(energy)")
    }
}

/// A small seeded generator for test material.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
