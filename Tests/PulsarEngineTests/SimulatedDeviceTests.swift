import Foundation
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Testing

/// The twin behaves like the hardware it stands for, exactly and repeatably under a driven clock.
@Suite struct SimulatedDeviceTests {
    static let rate = SampleRate(48_000)!

    static func device(_ configure: (inout SimulatedDevice.Behaviour) -> Void = { _ in },
                       channels: Int = 1, buffer: Int = 4800) throws -> (SimulatedDevice, ManualClock) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        configure(&behaviour)
        let d = SimulatedDevice(clock: clock, behaviour: behaviour)
        _ = try d.open(DeviceConfiguration(sampleRate: rate, channels: channels, periodFrames: 240, bufferFrames: buffer))
        return (d, clock)
    }

    /// Frames whose samples count up from `start` (channel c adds c / 10).
    static func ramp(_ start: Int, _ frames: Int, channels: Int = 1) -> [Float] {
        (0..<(frames * channels)).map { Float(start + $0 / channels) + Float($0 % channels) / 10 }
    }

    static func write(_ d: SimulatedDevice, _ samples: [Float]) throws -> Int {
        try samples.withUnsafeBufferPointer { try d.write($0) }
    }

    @Test("Consumes at its rate as the clock advances; nothing before the first write")
    func pacing() throws {
        let (d, clock) = try Self.device()
        clock.advance(seconds: 1)
        #expect(try d.position().framesPlayed == 0, "not started")
        #expect(try Self.write(d, Self.ramp(0, 1000)) == 1000)
        clock.advance(seconds: 0.010)
        #expect(try d.position().framesPlayed == 480)
        #expect(try d.availableFrames() == 4800 - 520)
        #expect(d.framesWritten == 1000)
        #expect(try Self.write(d, Self.ramp(1000, 5000)) == 4280, "only what fits")
    }

    @Test("A rate error of +200 ppm plays 200 ppm more frames per second of clock")
    func rateError() throws {
        let (d, clock) = try Self.device({ $0.rateErrorPPM = 200 }, buffer: 200_000)
        _ = try Self.write(d, [Float](repeating: 0, count: 100_000))
        clock.advance(seconds: 1)
        #expect(try d.position().framesPlayed == 48_009)  // floor(48 000 · 1.0002)
    }

    @Test("Running dry is an underrun until prepare, which restarts the counters")
    func underrun() throws {
        let (d, clock) = try Self.device()
        _ = try Self.write(d, Self.ramp(0, 100))
        clock.advance(seconds: 0.010)
        #expect(throws: DeviceError.underrun) { try d.availableFrames() }
        #expect(throws: DeviceError.underrun) { try Self.write(d, Self.ramp(0, 10)) }
        #expect(d.underrunCount == 1)
        try d.prepare()
        #expect(d.framesWritten == 0)
        #expect(try d.position().framesPlayed == 0)
        #expect(try Self.write(d, Self.ramp(0, 10)) == 10)
        // Injected: the queue is lost at once.
        d.injectUnderrun()
        #expect(d.queued == 0 && d.underrunCount == 2)
        #expect(throws: DeviceError.underrun) { try d.availableFrames() }
    }

    @Test("The recording keeps what was played; a rewound tail is replaced, as on hardware")
    func recordingAndRewind() throws {
        let (d, clock) = try Self.device({ $0.recordingCapacity = 10_000 }, channels: 2)
        _ = try Self.write(d, Self.ramp(0, 1000, channels: 2))
        clock.advance(seconds: 0.005)  // 240 frames played
        #expect(try d.rewind(500) == 500)
        #expect(d.framesWritten == 500)
        _ = try Self.write(d, Self.ramp(5000, 500, channels: 2))  // replaces frames 500..<1000
        clock.advance(seconds: 1)  // plays everything, then runs dry
        #expect(throws: DeviceError.underrun) { try d.availableFrames() }  // the device looks at the clock
        let expected = Self.ramp(0, 500, channels: 2) + Self.ramp(5000, 500, channels: 2)
        #expect(d.recording.count == expected.count)
        #expect(d.recording == expected, "first difference at \(zip(d.recording, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
        #expect(d.timeline.last?.consumed == 1000)
        #expect(zip(d.timeline, d.timeline.dropFirst()).allSatisfy { $0.consumed <= $1.consumed && $0.time <= $1.time })
    }

    @Test("Latency and granularity shape the reported position; jitter moves its timestamp, repeatably")
    func reporting() throws {
        let (d, clock) = try Self.device({ $0.latencyFrames = 100; $0.granularityFrames = 64; $0.jitterSeconds = 0.0005 })
        _ = try Self.write(d, Self.ramp(0, 4000))
        clock.advance(seconds: 0.050)  // 2400 consumed
        let p = try d.position()
        #expect(p.framesPlayed == (2400 - 100) / 64 * 64)
        #expect(abs(p.timestamp.seconds(since: clock.now())) <= 0.0005)
        var stamps: [Int64] = []
        for _ in 0..<50 { stamps.append(try d.position().timestamp.nanoseconds) }
        #expect(Set(stamps).count > 10, "jitter varies")
        let (twin, twinClock) = try Self.device({ $0.latencyFrames = 100; $0.granularityFrames = 64; $0.jitterSeconds = 0.0005 })
        _ = try Self.write(twin, Self.ramp(0, 4000))
        twinClock.advance(seconds: 0.050)
        _ = try twin.position()
        var twinStamps: [Int64] = []
        for _ in 0..<50 { twinStamps.append(try twin.position().timestamp.nanoseconds) }
        #expect(stamps == twinStamps, "same seed, same jitter")
    }

    @Test("Pause holds the queue; capability switches refuse or no-op")
    func capabilities() throws {
        let (d, clock) = try Self.device()
        _ = try Self.write(d, Self.ramp(0, 2000))
        clock.advance(seconds: 0.010)
        try d.pause(true)
        clock.advance(seconds: 1)
        #expect(try d.position().framesPlayed == 480)
        try d.pause(false)
        clock.advance(seconds: 0.010)
        #expect(try d.position().framesPlayed == 960)

        let (fixed, fixedClock) = try Self.device({ $0.canPause = false; $0.canRewind = false })
        #expect(fixed.capabilities == DeviceCapabilities(canPause: false, canRewind: false))
        _ = try Self.write(fixed, Self.ramp(0, 2000))
        fixedClock.advance(seconds: 0.001)
        #expect(throws: DeviceError.self) { try fixed.pause(true) }
        #expect(try fixed.rewind(1000) == 0)
        #expect(try fixed.position().framesPlayed == 48)
        #expect(fixed.framesWritten == 2000 && fixed.queued == 2000 - 48)
    }

    @Test("Paced by the real monotonic clock it plays, but never more than was written")
    func realClock() throws {
        let d = SimulatedDevice(clock: SystemMonotonicClock())
        _ = try d.open(DeviceConfiguration(sampleRate: Self.rate, channels: 1, periodFrames: 256, bufferFrames: 48_000))
        _ = try Self.write(d, Self.ramp(0, 48_000))
        let first = try d.position()
        Thread.sleep(forTimeInterval: 0.02)
        let second = try d.position()
        #expect(second.framesPlayed > first.framesPlayed)
        #expect(second.framesPlayed <= 48_000)
        #expect(second.timestamp > first.timestamp)
    }

    @Test("Bad configurations are refused")
    func badOpen() {
        let d = SimulatedDevice(clock: ManualClock())
        #expect(throws: DeviceError.self) { try d.open(DeviceConfiguration(sampleRate: Self.rate, channels: 0)) }
        #expect(throws: DeviceError.self) { try d.open(DeviceConfiguration(sampleRate: Self.rate, channels: 2, periodFrames: 512, bufferFrames: 256)) }
        #expect(throws: DeviceError.self) { try d.availableFrames() }
    }
}
