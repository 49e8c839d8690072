import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// A bundle whose float audio holds NaN and ±∞, played on the simulated device taking float,
/// 32-bit and 16-bit samples (the integer ones through the converter an ALSA device uses): the
/// player runs to the end, and every sample the device played is finite, in range, and 0 where
/// the file was not finite.
@Suite struct NonFinitePlayTests {
    static func bundle() throws -> (directory: String, bundle: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-nanplay-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let bundle = try NonFiniteFixture.writeBundle(in: dir) { path, samples, rate, channels in
            _ = try WAVExporter(format: .float).export(samples, to: path, sampleRate: SampleRate(rate)!, channels: channels)
        }
        return (dir, bundle)
    }

    /// Plays the whole preset on a manual clock; returns the recording (3 channels) from the
    /// frame the play took effect at.
    static func play(_ bundle: String, format: SimulatedDevice.SampleFormat) throws -> [Float] {
        let preset = try #require(try PresetBundle.open(bundle).preset(id: "nan"))
        var settings = MixSettings(layout: .stereoHaptic)
        settings.preloadAudio = true
        let mixer = try PresetMixer(preset: preset, settings: settings)
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = 48_000
        behaviour.sampleFormat = format
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let player = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3,
                                                                       periodFrames: 256, bufferFrames: 1024))
        player.send(.play(fromTimelineFrame: 0))
        var start: StreamFrame?
        for _ in 0..<40 {
            try player.step()
            while let e = player.events.pop() {
                if case .command(_, _, _, let frame, _) = e, start == nil { start = frame }
            }
            clock.advance(seconds: 256.0 / 48_000)
        }
        clock.advance(seconds: 1)
        _ = try? device.availableFrames()
        let first = Int(try #require(start)) * 3
        return Array(device.recording[first...])
    }

    @Test("Played on a float, S32 or S16 device: finite, in range, silent where the file was not, no trap",
          arguments: SimulatedDevice.SampleFormat.allCases)
    func playsClean(format: SimulatedDevice.SampleFormat) throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let played = try Self.play(bundle, format: format)
        #expect(played.count >= NonFiniteFixture.frames * 3)
        #expect(played.allSatisfy { $0.isFinite && abs($0) <= 1 })
        // One step of the format: a device sample is within half a step of the float sample
        // (float: exact; 32-bit: the float of the integer keeps 24 bits, within 2⁻²⁵ here).
        let step: Float = format == .int16 ? 1.0 / 32_768 : 0
        let tolerance: Float = format == .int16 ? step / 2 : format == .int32 ? 1.0 / 33_554_432 : 0
        var worst: Float = 0
        for i in 0..<NonFiniteFixture.frames {
            for c in 0..<2 {
                let expected = NonFiniteFixture.sanitized[2 * i + c]
                let got = played[3 * i + c]
                worst = max(worst, abs(got - expected))
                if format == .int16 { #expect((got * 32_768).rounded() == got * 32_768, "frame \(i): not a 16-bit step") }
            }
        }
        #expect(worst <= tolerance, "largest difference \(worst)")
        for p in NonFiniteFixture.nonFinitePositions {
            #expect(played[3 * (p / 2) + p % 2] == 0, "frame \(p / 2), channel \(p % 2 + 1)")
        }
    }
}
