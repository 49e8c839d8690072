import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarDrift
import PulsarEngine
import PulsarSimulation
import Testing

/// `pulsar drift`'s measurement through the real engine — a `HapticPlayer` stepping on the
/// simulated device, on simulated time — against the device's configured truth.
@Suite struct DriftSessionTests {
    /// A second of silence in two channels, looped without end: what `pulsar drift` plays.
    static func silence() throws -> PresetMixer {
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 1000, value: 0)]))
        var settings = MixSettings(layout: ChannelLayout(name: "silence", channels: [[.silence], [.silence]]))
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "s", name: "s", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(loopCount: PlaybackTimeline.endless))
    }

    /// A probe on a simulated device with `behaviour`, driven by `clock`.
    static func probe(_ behaviour: SimulatedDevice.Behaviour, clock: ManualClock, name: String = "sim") throws -> DriftProbe {
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let player = try HapticPlayer(mixer: try silence(), device: device, monotonic: clock, periodFrames: 256, bufferFrames: 1024)
        return DriftProbe(name: name, player: player, simulated: device)
    }

    static func behaviour(ppm: Double, jitterMs: Double, seed: UInt64 = 7) -> SimulatedDevice.Behaviour {
        var b = SimulatedDevice.Behaviour()
        b.rateErrorPPM = ppm
        b.jitterSeconds = jitterMs / 1000
        b.seed = seed
        b.canRewind = false
        return b
    }

    @Test("120 simulated seconds: ppm within ±1 of the truth, the wall-clock figure ppm × 3.6 within 1 %, the jitter within 25 % of its spread, the clock within a sample of the truth after lock-in",
          arguments: [-300.0, 0, 250, 500], [0.0, 0.3, 0.5])
    func simulatedMatrix(ppm: Double, jitterMs: Double) throws {
        let clock = ManualClock()
        let probe = try Self.probe(Self.behaviour(ppm: ppm, jitterMs: jitterMs), clock: clock)
        var session = DriftSession(probes: [probe], pacing: .simulated(clock), seconds: 120)
        guard case .complete = session.run() else { Issue.record("the run did not complete"); return }
        let result = probe.result(complete: true)
        let report = try #require(result.report)
        #expect(abs(report.ppm - ppm) <= 1, "measured \(report.ppm) ppm")
        #expect(report.ppmInterval95.low <= report.ppm && report.ppm <= report.ppmInterval95.high)
        #expect(abs(report.wallClockDriftMsPerHour - report.ppm * 3.6) <= max(0.01 * abs(report.ppm * 3.6), 1e-9))
        #expect(report.seconds > 119 && report.seconds <= 120.1)
        let spread = jitterMs * 1000
        if spread > 0 {
            #expect(abs(report.jitterMicroseconds.p99 - spread) <= 0.25 * spread, "jitter p99 \(report.jitterMicroseconds.p99) µs")
        } else {
            // Only the device's whole frames are left (20.8 µs at 48 kHz).
            #expect(report.jitterMicroseconds.p99 <= 21)
        }
        let lockIn = try #require(report.lockInSeconds, "the clock never stayed within one sample")
        #expect(lockIn < 60)
        let truth = try #require(report.trueClockErrorSamples)
        #expect(truth.p99 <= 1, "true clock error p99 \(truth.p99) samples")
        #expect(result.truePpm == ppm)
        #expect(result.underruns == 0)
        #expect(report.slips.isEmpty, "a simulated device never slips: \(report.slips)")
        #expect(report.granularityFrames == 1)
    }

    @Test("Two simulated devices in one run: their ratio is the ratio of their true rates, ±1 ppm")
    func twoDevices() throws {
        let clock = ManualClock()
        let a = try Self.probe(Self.behaviour(ppm: 250, jitterMs: 0.3, seed: 3), clock: clock, name: "a")
        let b = try Self.probe(Self.behaviour(ppm: -120, jitterMs: 0.5, seed: 4), clock: clock, name: "b")
        var session = DriftSession(probes: [a, b], pacing: .simulated(clock), seconds: 60)
        guard case .complete = session.run() else { Issue.record("the run did not complete"); return }
        let ra = try #require(a.result(complete: true).report), rb = try #require(b.result(complete: true).report)
        let ratio = DriftSession.ratio(ra, rb)
        let expected = ((1 + 250e-6) / (1 - 120e-6) - 1) * 1e6
        #expect(abs(ratio.ppm - expected) <= 1, "ratio \(ratio.ppm), expected \(expected)")
        #expect(ratio.interval95.low < ratio.ppm && ratio.ppm < ratio.interval95.high)
    }

    @Test("A device that vanishes mid-run ends it with its name and the error, and what was measured stays")
    func vanishingDevice() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(clock: clock, behaviour: Self.behaviour(ppm: 100, jitterMs: 0.1))
        let player = try HapticPlayer(mixer: try Self.silence(), device: device, monotonic: clock, periodFrames: 256, bufferFrames: 1024)
        let probe = DriftProbe(name: "gone", player: player, simulated: device)
        var session = DriftSession(probes: [probe], pacing: .simulated(clock), seconds: 60)
        let outcome = session.run(progress: { seconds in if seconds >= 10 { device.disconnect() } })
        guard case let .deviceFailed(name, error) = outcome else {
            Issue.record("expected the device to fail, got \(outcome)")
            return
        }
        #expect(name == "gone")
        guard case .disconnected = error else { Issue.record("expected disconnected, got \(error)"); return }
        let report = try #require(probe.result(complete: false).report)
        #expect(report.seconds > 9 && report.seconds < 11)
        #expect(abs(report.ppm - 100) < 2)
    }

    @Test("Granularity of the simulated device's reports is what it was set to")
    func reportedGranularity() throws {
        let clock = ManualClock()
        var behaviour = Self.behaviour(ppm: 50, jitterMs: 0)
        behaviour.granularityFrames = 32
        let probe = try Self.probe(behaviour, clock: clock)
        var session = DriftSession(probes: [probe], pacing: .simulated(clock), seconds: 20)
        guard case .complete = session.run() else { Issue.record("the run did not complete"); return }
        let report = try #require(probe.result(complete: true).report)
        #expect(report.granularityFrames == 32)
        #expect(abs(report.ppm - 50) <= 1)
    }
}
