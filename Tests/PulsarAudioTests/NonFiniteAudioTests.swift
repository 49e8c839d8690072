import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarTestSupport
import Testing

/// A float WAV holding NaN, +∞ and −∞ in a bundle: decoding turns each into 0 and counts it once,
/// and nothing non-finite reaches a mix, a limiter, a peak or an integer WAV.
@Suite struct NonFiniteAudioTests {
    static let rate = SampleRate(48_000)!

    /// A temporary directory holding the fixture bundle; remove it with `FileManager.removeItem`.
    static func bundle() throws -> (directory: String, bundle: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-nan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let bundle = try NonFiniteFixture.writeBundle(in: dir) { path, samples, rate, channels in
            _ = try WAVExporter(format: .float).export(samples, to: path, sampleRate: SampleRate(rate)!, channels: channels)
        }
        return (dir, bundle)
    }

    static func preset(_ bundle: String) throws -> PresetHandle {
        try #require(try PresetBundle.open(bundle).preset(id: "nan"))
    }

    static func renderAll(_ mixer: PresetMixer) throws -> [Float] {
        var out = [Float](repeating: 0, count: Int(mixer.frameCount) * mixer.channelCount)
        _ = try out.withUnsafeMutableBufferPointer { try mixer.render(into: $0, from: 0) }
        return out
    }

    static func channel(_ samples: [Float], _ c: Int, of channels: Int) -> [Float] {
        stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }

    @Test("The fixture's WAV really holds the non-finite samples (libsndfile writes and reads them back as they are)")
    func fixtureHoldsNonFinite() throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let raw = try AudioFileContents(contentsOf: bundle + "/audio/nan.wav")
        #expect(raw.samples.count == NonFiniteFixture.frames * 2)
        #expect(raw.samples.indices.filter { !raw.samples[$0].isFinite } == NonFiniteFixture.nonFinitePositions)
    }

    @Test("Every layout renders only finite samples, and an audio-only channel is 0 where the file was not finite",
          arguments: ["mix", "stereo+haptic", "quad", "haptic", "M+H", "L,R,M"])
    func everyLayout(layoutName: String) throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let layout = try #require(ChannelLayout(parsing: layoutName))
        let mixer = try PresetMixer(preset: Self.preset(bundle), settings: MixSettings(layout: layout))
        #expect(mixer.frameCount == 4_800 || !layout.usesHaptics)
        let out = try Self.renderAll(mixer)
        let bad = out.filter { !$0.isFinite || abs($0) > 1 }
        #expect(bad.isEmpty, "\(bad.count) samples non-finite or beyond full scale, e.g. \(bad.prefix(4))")
        let n = layout.channelCount
        let sanitized = NonFiniteFixture.sanitized
        for (c, sources) in layout.channels.enumerated() where sources == [.left] || sources == [.right] {
            let k = sources == [.left] ? 0 : 1
            let expected = Self.channel(sanitized, k, of: 2)
            #expect(Self.channel(out, c, of: n) == Array(expected.prefix(Int(mixer.frameCount))), "channel \(c + 1)")
            for p in NonFiniteFixture.nonFinitePositions where p % 2 == k && p / 2 < Int(mixer.frameCount) {
                #expect(out[(p / 2) * n + c] == 0, "channel \(c + 1), frame \(p / 2)")
            }
        }
    }

    @Test("In the mix layout a non-finite audio sample leaves the haptics alone: the haptic-only render's sample")
    func mixKeepsHaptics() throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preset = try Self.preset(bundle)
        let mix = try Self.renderAll(PresetMixer(preset: preset, settings: MixSettings(layout: .mix)))
        let haptic = try Self.renderAll(PresetMixer(preset: preset, settings: MixSettings(layout: .haptic)))
        // Frame 50 is NaN in both channels, frame 4799 +∞ and −∞: L + H = 0 + H there.
        for frame in [50, 4_799] {
            #expect(mix[2 * frame] == haptic[frame] && mix[2 * frame + 1] == haptic[frame], "frame \(frame)")
        }
    }

    @Test("s16 and s24 renders of the bundle: silence where the file was not finite, no full-scale noise, an honest peak",
          arguments: [SampleFormat.s16, .s24, .float])
    func integerRender(format: SampleFormat) throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mixer = try PresetMixer(preset: Self.preset(bundle), settings: MixSettings(layout: .stereoHaptic))
        let report = try WAVExporter(format: format).export(mixer, to: dir + "/out.wav")
        let file = try AudioFileContents(contentsOf: dir + "/out.wav")
        #expect(file.samples.allSatisfy { $0.isFinite && abs($0) < 1 })
        for p in NonFiniteFixture.nonFinitePositions {
            #expect(file.samples[(p / 2) * 3 + p % 2] == 0, "frame \(p / 2), channel \(p % 2 + 1)")
        }
        // The peak is the largest magnitude of the float render (the export's own peak is taken
        // before conversion), not 0 and not NaN.
        let rendered = try Self.renderAll(PresetMixer(preset: Self.preset(bundle), settings: MixSettings(layout: .stereoHaptic)))
        #expect(report.peak == rendered.map { abs($0) }.max(), "peak \(report.peak)")
        #expect(report.peak >= 0.5 && report.peak < 1, "peak \(report.peak)")
    }

    @Test("Integer WAV files saturate and write NaN as 0", arguments: [(SampleFormat.s16, Float(32_768)), (.s24, Float(8_388_608))])
    func integerSaturation(format: SampleFormat, scale: Float) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-nan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input: [Float] = [.nan, .infinity, -.infinity, 1, -1, 2, -2, 0.5, 1e-30, -1e-30, -.nan, 0]
        let report = try WAVExporter(format: format).export(input, to: dir + "/out.wav", sampleRate: Self.rate, channels: 1)
        let back = try AudioFileContents(contentsOf: dir + "/out.wav").samples
        let top = (scale - 1) / scale
        #expect(back == [0, top, -1, top, -1, top, -1, 0.5, 0, 0, 0, 0])
        #expect(report.peak.isNaN, "a peak over samples holding NaN says so, not 0")
    }

    @Test("Decoding turns each non-finite sample into 0 and counts each once, seeks and re-reads included")
    func decodeCounts() throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = bundle + "/audio/nan.wav"
        let stream = try AudioStream(bytes: FileByteSource(path: path), name: path, outputRate: Self.rate, channels: 2)
        var all = [Float](repeating: 1, count: NonFiniteFixture.frames * 2)
        var n = try all.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: 1_000) }
        // The first 4096-frame block decoded holds 8: frames 50 (both channels), 500, 1000, 2000,
        // 2501 and 3500 (both channels).
        #expect(stream.nonFiniteSamples == 8)
        n += try all.withUnsafeMutableBufferPointer { try stream.read(into: UnsafeMutableBufferPointer(rebasing: $0[2_000...]), frames: 3_800) }
        #expect(n == NonFiniteFixture.frames)
        #expect(all == NonFiniteFixture.sanitized)
        #expect(stream.nonFiniteSamples == Int64(NonFiniteFixture.nonFiniteCount))
        // Back to the start and through again: the same samples, counted once.
        try stream.seek(to: 0)
        var again = [Float](repeating: 1, count: NonFiniteFixture.frames * 2)
        _ = try again.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: NonFiniteFixture.frames) }
        #expect(again == NonFiniteFixture.sanitized)
        #expect(stream.nonFiniteSamples == Int64(NonFiniteFixture.nonFiniteCount))
        let reports = NonFiniteSamples.drain().filter { $0.source == path }
        #expect(reports.map(\.count) == [Int64(NonFiniteFixture.nonFiniteCount)])
    }

    @Test("Resampled and down-mixed, a file with non-finite samples still decodes to finite samples only",
          arguments: [(44_100, 2), (96_000, 1), (48_000, 1)])
    func resampledStaysFinite(hz: Int, channels: Int) throws {
        let (dir, bundle) = try Self.bundle()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = bundle + "/audio/nan.wav"
        let stream = try AudioStream(bytes: FileByteSource(path: path), name: path, outputRate: SampleRate(hz)!, channels: channels)
        var out = [Float](repeating: .nan, count: Int(stream.frameCount) * channels)
        let n = try out.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: Int(stream.frameCount)) }
        #expect(n == Int(stream.frameCount))
        #expect(out.allSatisfy { $0.isFinite && abs($0) <= 1 })
        #expect(stream.nonFiniteSamples == Int64(NonFiniteFixture.nonFiniteCount))
    }
}
