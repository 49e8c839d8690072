import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore

/// What the live benchmarks share: audio made from the demo's own pattern in Resources/, so they
/// never run without audio and never need the corpus.
public enum DemoContent {
    /// The project's root, from this file's place in Benchmarks/Sources/BenchSupport.
    public static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The demo heartbeat's tone layer rendered at 44.1 kHz as a float WAV, held in memory, so a
    /// mixer at 48 kHz decodes and resamples real audio.
    public static func audio() throws -> AudioAsset {
        let source = projectRoot + "/Resources/demo-bundle-src/heartbeat-tone.json"
        let tone = try PatternLoader().load(contentsOf: source).pattern
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-bench-\(getpid()).wav").path
        defer { unlink(path) }
        _ = try WAVExporter(format: .float).export(try PatternRenderer(pattern: tone, sampleRate: SampleRate(44_100)!), to: path)
        let bytes = MemoryByteSource(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return AudioAsset(source: "audio/heartbeat-tone.wav", bytes: bytes)
    }

    /// A stereo+haptic mixer of an 800 ms pattern (a rising curve and a transient every 40 ms)
    /// over that audio, preloaded (real-time safe).
    public static func mixer(range: PlaybackRange = PlaybackRange()) throws -> PresetMixer {
        let pattern = PatternData(
            continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.4), ValuePoint(time: 800, value: 0.6)],
                                                 frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 800, value: 1)]),
            discretePattern: stride(from: 20.0, to: 800, by: 40).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.5) })
        var settings = MixSettings(layout: .stereoHaptic)
        settings.preloadAudio = true
        let preset = PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern, audio: try audio())
        return try PresetMixer(preset: preset, settings: settings, range: range)
    }

    /// Resident memory of this process, bytes (/proc/self/statm).
    public static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
