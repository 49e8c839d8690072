import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarViewer
import Testing

/// The audio outline the curve views draw behind the haptic curves.
@Suite struct AudioPeaksTests {
    /// A mixer of 1 s of mono audio at 48 kHz: silent for 500 ms, then a steady 0.5.
    static func mixer(in dir: URL) throws -> PresetMixer {
        let samples = [Float](repeating: 0, count: 24_000) + [Float](repeating: 0.5, count: 24_000)
        let path = dir.appendingPathComponent("half.wav").path
        _ = try WAVExporter(format: .float).export(samples, to: path, sampleRate: SampleRate(48_000)!, channels: 1)
        let audio = AudioAsset(source: "half.wav", bytes: try FileByteSource(path: path), volume: 1)
        var settings = MixSettings(layout: .mix)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "a", name: "a", duration: 0, pattern: ViewerRig.pattern(ms: 1_000), audio: audio),
                               settings: settings)
    }

    @Test("Peaks follow the audio alone (haptics off): silent then 0.5, over the whole content")
    func peaks() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-peaks-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mixer = try Self.mixer(in: dir)
        let peaks = try #require(AudioPeaks(mixer: mixer, buckets: 100))
        #expect(abs(peaks.coveredMs - mixer.durationMilliseconds) < 0.05)
        #expect(peaks.peak(fromMs: 0, toMs: 480) < 1e-6, "the haptic pattern is not in it")
        #expect(abs(peaks.peak(fromMs: 520, toMs: 990) - 0.5) < 1e-3)
        #expect(peaks.peak(fromMs: 2_000, toMs: 3_000) == 0, "nothing past what is covered")
        // The curve view draws the band where there is audio, nothing where there is none.
        let with = HapticCurveView(pattern: PatternData(), durationMs: 1_000, width: 200, height: 100, audio: peaks)
        let without = HapticCurveView(pattern: PatternData(), durationMs: 1_000, width: 200, height: 100)
        let a = with.image(playheadMs: nil), b = without.image(playheadMs: nil)
        let middle = with.plot.y + with.plot.height / 2
        #expect(a[Int(with.x(atMs: 750)), middle] != b[Int(with.x(atMs: 750)), middle])
        #expect(a[Int(with.x(atMs: 250)), middle] == b[Int(with.x(atMs: 250)), middle])
        // A preset without audio has none.
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        let hapticOnly = try PresetMixer(preset: PresetHandle(id: "h", name: "h", duration: 0, pattern: ViewerRig.pattern(ms: 500)), settings: settings)
        #expect(AudioPeaks(mixer: hapticOnly) == nil)
    }
}
