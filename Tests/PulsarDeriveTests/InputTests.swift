import Foundation
import PulsarAudio
import PulsarCore
import Testing
@testable import PulsarDerive

/// What the input may be: silence, a part, any channel count and rate, a file of any format.
@Suite struct InputTests {
    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-derive-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("silence gives an empty pattern and a silence warning, not an error", arguments: [0, 1, 480, 48_000])
    func silence(count: Int) throws {
        let result = try EnvelopeDeriver().derive([Float](repeating: 0, count: count), sampleRate: 48_000)
        #expect(result.pattern.isEmpty)
        #expect(result.warnings.map(\.rule) == [.silence])
        #expect(result.warnings.allSatisfy { $0.severity == .warning })
        // Below −80 dBFS is silence too; through the entry point as well.
        let quiet = (0..<48_000).map { Float(5e-5 * sin(Double($0) * 0.02)) }
        guard case .pattern(let p) = try AudioDeriver.derive(samples: quiet, sampleRate: 48_000, settings: DeriveSettings()) else {
            Issue.record("not a pattern"); return
        }
        #expect(p.pattern.isEmpty && p.warnings.map(\.rule) == [.silence])
    }

    @Test("a sound with nothing in the band: transients only, with a warning")
    func silentBand() throws {
        let rate = 48_000
        var x = [Float](repeating: 0, count: rate * 2)
        for onset in [0.3, 0.8, 1.4] {
            let start = Int(onset * Double(rate))
            for i in 0..<960 {   // 20 ms of 6 kHz under a Hann window: nothing near 80–200 Hz
                let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / 960)
                x[start + i] = Float(0.5 * w * sin(2 * Double.pi * 6000 * Double(i) / Double(rate)))
            }
        }
        let result = try EnvelopeDeriver(settings: DeriveSettings(band: 80...200)).derive(x, sampleRate: rate)
        #expect(result.pattern.continuousPattern.isEmpty)
        #expect(result.warnings.map(\.rule) == [.silentBand])
        let times = result.pattern.discretePattern.map(\.time)
        #expect(times.count == 3 && zip(times, [300.0, 800, 1400]).allSatisfy { abs($0 - $1) <= 10 }, "\(times)")
    }

    @Test("NaN samples are read as 0 with a warning")
    func nonFinite() throws {
        var x = TestSignals.track(rate: 48_000, seconds: 2, seed: 3).samples
        x[1000] = .nan
        x[2000] = .infinity
        let result = try EnvelopeDeriver().derive(x, sampleRate: 48_000)
        #expect(result.warnings.map(\.rule) == [.nonFiniteSamples])
        #expect(try PatternValidator().validate(result.pattern).isEmpty)
    }

    @Test("a part: times from `from`, `to` past the end cut with a warning, `from` past the end an error")
    func part() throws {
        let rate = 48_000
        let track = TestSignals.track(rate: rate, seconds: 10, seed: 31)
        let whole = try EnvelopeDeriver().derive(track.samples, sampleRate: rate).pattern.discretePattern.map(\.time)
        let part = try EnvelopeDeriver(settings: DeriveSettings(fromMilliseconds: 3000, toMilliseconds: 7000)).derive(track.samples, sampleRate: rate)
        let inside = whole.filter { $0 > 3050 && $0 < 6950 }.map { $0 - 3000 }
        let found = part.pattern.discretePattern.map(\.time)
        #expect(inside.allSatisfy { t in found.contains { abs($0 - t) < 1 } }, "\(inside) vs \(found)")
        #expect(abs(part.durationMilliseconds - 4000) < 1e-9)
        #expect(part.pattern.lastPointTime <= 4000)
        let cut = try EnvelopeDeriver(settings: DeriveSettings(fromMilliseconds: 9000, toMilliseconds: 20_000)).derive(track.samples, sampleRate: rate)
        #expect(cut.warnings.map(\.rule) == [.partClipped])
        #expect(abs(cut.durationMilliseconds - 1000) < 1e-9)
        let error = thrown { _ = try EnvelopeDeriver(settings: DeriveSettings(fromMilliseconds: 10_000)).derive(track.samples, sampleRate: rate) }
        #expect(error?.rule == .badPart)
        #expect(error?.description.contains("from 10000 ms is out of range") == true, "\(String(describing: error))")
    }

    @Test("192 kHz is analysed at its own rate")
    func highRate() throws {
        let rate = 192_000
        let track = TestSignals.track(rate: rate, seconds: 6, seed: 41)
        let result = try EnvelopeDeriver().derive(track.samples, sampleRate: rate)
        let m = TestSignals.match(detected: result.pattern.discretePattern.map { $0.time / 1000 }, truth: track.onsets, tolerance: 0.010)
        print("note: onsets at 192 kHz: precision \(m.precision), recall \(m.recall), F1 \(m.f1)")
        #expect(m.f1 >= 0.9)
        #expect(try PatternValidator().validate(result.pattern).isEmpty)
        // The same sound at 48 kHz gives nearly the same continuous part.
        let envelope = TestSignals.Envelope(seconds: 4, seed: 6)
        let high = try EnvelopeDeriver().derive(TestSignals.modulated(envelope, hertz: 150, rate: rate, seconds: 4, level: 0.5), sampleRate: rate)
        let low = try EnvelopeDeriver().derive(TestSignals.modulated(envelope, hertz: 150, rate: 48_000, seconds: 4, level: 0.5), sampleRate: 48_000)
        let a = Curve(high.pattern.continuousPattern.amplitude), b = Curve(low.pattern.continuousPattern.amplitude)
        let worst = stride(from: 0.0, to: 4000, by: 5).map { abs(a.value(at: $0) - b.value(at: $0)) }.max()!
        #expect(worst < 0.03, "\(worst)")
        let haptics = try HapticGenerator.process(track.samples, sampleRate: rate)
        #expect(haptics.count == track.samples.count && haptics.allSatisfy { abs($0) <= 1 } && haptics.contains { abs($0) > 0.1 })
    }

    @Test("an 8-channel file: envelope from the mean of its channels, android from channel 0")
    func eightChannels() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48_000
        let track = TestSignals.track(rate: rate, seconds: 4, seed: 51)
        let frames = track.samples.count
        var interleaved = [Float](repeating: 0, count: frames * 8)
        for f in 0..<frames {
            interleaved[f * 8] = track.samples[f]
            for c in 1..<8 { interleaved[f * 8 + c] = Float(c) * 0.01 * sin(Float(f) * 0.001 * Float(c)) }
        }
        let path = dir + "/eight.wav"
        _ = try WAVExporter(format: .float).export(interleaved, to: path, sampleRate: SampleRate(rate)!, channels: 8)

        guard case .haptics(let h) = try AudioDeriver.derive(contentsOf: path, settings: DeriveSettings(method: .android)) else {
            Issue.record("not haptics"); return
        }
        #expect(h.sampleRate == rate)
        #expect(h.samples == (try HapticGenerator.process(track.samples, sampleRate: rate)))

        guard case .pattern(let p) = try AudioDeriver.derive(contentsOf: path, settings: DeriveSettings()) else {
            Issue.record("not a pattern"); return
        }
        var mean = [Float](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum: Float = 0
            for c in 0..<8 { sum += interleaved[f * 8 + c] }
            mean[f] = sum * (1 / 8)
        }
        let expected = try EnvelopeDeriver().derive(mean, sampleRate: rate)
        #expect(RoundTripTests.differences(p.pattern, expected.pattern, tolerance: 1e-6).isEmpty)
        #expect(p.warnings.isEmpty)
    }

    @Test("a 192 kHz file keeps its rate; a part of a file decodes only that part")
    func files() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let track = TestSignals.track(rate: 192_000, seconds: 3, seed: 61)
        let path = dir + "/high.flac.wav"
        _ = try WAVExporter(format: .float).export(track.samples, to: path, sampleRate: SampleRate(192_000)!, channels: 1)
        let decoded = try DeriveAudio.read(path, channels: .mean, fromMilliseconds: 1000, toMilliseconds: 2000)
        #expect(decoded.sampleRate == 192_000)
        #expect(decoded.samples == Array(track.samples[192_000..<384_000]))
        guard case .pattern(let p) = try AudioDeriver.derive(contentsOf: path, settings: DeriveSettings(fromMilliseconds: 1000, toMilliseconds: 2000)) else {
            Issue.record("not a pattern"); return
        }
        let direct = try EnvelopeDeriver(settings: DeriveSettings(fromMilliseconds: 1000, toMilliseconds: 2000)).derive(track.samples, sampleRate: 192_000)
        #expect(RoundTripTests.differences(p.pattern, direct.pattern, tolerance: 0).isEmpty)
        // Not a file, not audio.
        #expect(thrown { _ = try AudioDeriver.derive(contentsOf: dir + "/missing.wav", settings: DeriveSettings()) }?.rule == .missingAudio)
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: dir + "/text.wav"))
        let error = thrown { _ = try AudioDeriver.derive(contentsOf: dir + "/text.wav", settings: DeriveSettings()) }
        #expect(error?.rule == .unreadableAudio)
        #expect(error?.file == dir + "/text.wav")
    }
}
