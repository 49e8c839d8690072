import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar render`, `info` and `pack` on real bundles: what reaches the WAV is the preset's audio
/// and haptics in the requested layout, and bad bundles leave nothing behind.
@Suite("Bundle CLI")
struct BundleCLITests {
    /// Whether the tests of the corpus bundles run: present, or required (`CI=true`).
    static let bundlesAvailable = SharedCorpus.available("bundles/demo.pulsar")

    /// `../shared/corpus/bundles`; throws when the corpus is absent.
    static var bundles: String {
        get throws { URL(fileURLWithPath: try SharedCorpus.path("bundles/demo.pulsar")).deletingLastPathComponent().path }
    }

    static func channel(_ samples: [Float], _ c: Int, of channels: Int) -> [Float] {
        stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }

    @Test("render demo.pulsar --preset verified --layout stereo+haptic: 3 channels, 48 kHz, 3.000 s, audio in 1–2, haptics in 3",
          .enabled(if: bundlesAvailable, "needs ../shared/corpus"))
    func verifiedStereoHaptic() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("v.wav")
        let r = try CLI.run(["render", (try Self.bundles) + "/demo.pulsar", "--preset", "verified", "--layout", "stereo+haptic", "-o", out])
        #expect(r.status == 0, "\(r)")
        let wav = try AudioFileContents(contentsOf: out)
        #expect(wav.channels == 3 && wav.sampleRate == 48_000 && wav.frameCount == 144_000)

        // Independent parts: the bundle's MP3 through AudioStream, the pattern through the renderer.
        let bundle = try PresetBundle.open((try Self.bundles) + "/demo.pulsar")
        let preset = try #require(bundle.preset(id: "verified"))
        let audio = try #require(preset.audio)
        let stream = try AudioStream(bytes: audio.bytes, name: audio.source, outputRate: SampleRate(48_000)!, channels: 2)
        var decoded = [Float](repeating: 0, count: 144_000 * 2)
        let n = try decoded.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: 144_000) }
        #expect(n == 144_000)
        let haptics = try PatternRenderer(pattern: preset.pattern, sampleRate: SampleRate(48_000)!).render(frames: 0..<144_000)
        for c in 0..<2 {
            let expected = Self.channel(decoded, c, of: 2).map { $0 * Float(audio.volume) }
            let worst = zip(Self.channel(wav.samples, c, of: 3), expected).map { abs($0 - $1) }.max() ?? 1
            #expect(worst <= 1e-6, "audio channel \(c + 1): \(worst)")
        }
        #expect(Self.channel(wav.samples, 2, of: 3) == haptics)
    }

    @Test("demo.pulsar and its unpacked twin render identically, in every layout",
          .enabled(if: bundlesAvailable, "needs ../shared/corpus"), arguments: ["mix", "quad", "haptic"])
    func zipEqualsFolder(layout: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        for (input, name) in [("demo.pulsar", "a.wav"), ("demo-unpacked", "b.wav")] {
            let r = try CLI.run(["render", (try Self.bundles) + "/" + input, "--preset", "verified", "--layout", layout, "-o", dir.file(name)])
            #expect(r.status == 0, "\(r)")
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: dir.file("a.wav")))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir.file("b.wav")))
        #expect(a == b)
        #expect(try AudioFileContents(contentsOf: dir.file("a.wav")).channels == ChannelLayout(parsing: layout)!.channelCount)
    }

    @Test("a bundle with several presets needs --preset; an unknown one is a usage error",
          .enabled(if: bundlesAvailable, "needs ../shared/corpus"))
    func presetChoice() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        for extra in [[], ["--preset", "nope"]] {
            let r = try CLI.run(["render", (try Self.bundles) + "/demo.pulsar", "-o", dir.file("x.wav")] + extra)
            #expect(r.status == 64, "\(r)")
            #expect(r.stderr.contains("verified") && r.stderr.contains("heartbeat"))
        }
        #expect(dir.contents().isEmpty)
    }

    @Test("info lists presets with durations, audio format and animation timing",
          .enabled(if: bundlesAvailable, "needs ../shared/corpus"))
    func info() throws {
        let r = try CLI.run(["info", (try Self.bundles) + "/demo.pulsar", "--json"])
        #expect(r.status == 0, "\(r)")
        let doc = try JSONParser().parse(Array(r.stdout.utf8))
        let presets = try #require(doc["presets"]?.array)
        #expect(presets.map { $0["id"]?.string } == ["verified", "heartbeat"])
        let verified = presets[0]
        #expect(verified["durationMs"]?.number == 3000 && verified["durationRule"]?.string == "preset")
        #expect(verified["audio"]?["sampleRate"]?.number == 44_100 && verified["audio"]?["channels"]?.number == 2)
        // verified.json: "fr": 29.9700012207031, "ip": 0, "op": 73.000002973351.
        #expect(abs((verified["animation"]?["frameRate"]?.number ?? 0) - 29.97) < 1e-5)
        #expect(abs((verified["animation"]?["durationMs"]?.number ?? 0) - 73.000002973351 / 29.9700012207031 * 1000) < 1e-9)
        #expect(presets[1]["audio"]?.kind != nil && presets[1]["audio"]?.object == nil, "heartbeat has no audio")
        let text = try CLI.run(["info", (try Self.bundles) + "/demo-unpacked"])
        #expect(text.status == 0 && text.stdout.contains("preset verified") && text.stdout.contains("MPEG"))
    }

    @Test("pack → strict info → render round trip, and a bad folder leaves nothing",
          .enabled(if: bundlesAvailable, "needs ../shared/corpus"))
    func pack() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let packed = dir.file("demo.pulsar")
        let r = try CLI.run(["pack", (try Self.bundles) + "/demo-unpacked", "-o", packed])
        #expect(r.status == 0, "\(r)")
        #expect(try CLI.run(["info", packed, "--strict"]).status == 0)
        #expect(try CLI.run(["render", packed, "--preset", "heartbeat", "-o", dir.file("h.wav")]).status == 0)

        let bad = try dir.directory("bad")
        _ = try dir.write(#"{"schema": "pulsar.bundle/2", "id": "a.b", "name": "x", "presets": []}"#, to: "bad/manifest.json")
        let failed = try CLI.run(["pack", bad, "-o", dir.file("bad.pulsar")])
        #expect(failed.status == 65, "\(failed)")
        #expect(failed.stderrLines.count == 1 && failed.stderr.contains("manifest.json"))
        #expect(!dir.exists(dir.file("bad.pulsar")))
        #expect(dir.contents().sorted() == ["bad", "demo.pulsar", "h.wav"])
    }

    @Test("a hostile or broken bundle exits 65 with one line and writes nothing")
    func hostile() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let junk = try dir.write("PK\u{3}\u{4} this is not really a zip", to: "junk.pulsar")
        let r = try CLI.run(["render", junk, "-o", dir.file("out.wav")])
        #expect(r.status == 65, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("pulsar: error: \(junk)"))
        #expect(dir.contents() == ["junk.pulsar"])
        let missing = try CLI.run(["render", dir.file("none.pulsar"), "-o", dir.file("out.wav")])
        #expect(missing.status == 66, "\(missing)")
    }

    @Test("timeline options reach the mixer: loops, segments, bad ranges")
    func timelineOptions() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"discretePattern": [{"time": 10, "amplitude": 0.5, "frequency": 0.5}]}"#, to: "p.json")
        let r = try CLI.run(["render", pattern, "-o", dir.file("l.wav"), "--from", "5", "--to", "25", "--loop", "3", "--reverse"])
        #expect(r.status == 0, "\(r)")
        let wav = try AudioFileContents(contentsOf: dir.file("l.wav"))
        #expect(wav.channels == 1 && wav.frameCount == 3 * 960)
        #expect(abs(wav.samples[240 + 192] - 0.5) < 1e-5, "the click 5 ms into the forward segment, at its peak 4 ms later")
        #expect(abs(wav.samples[960 + 720 + 192] - 0.5) < 1e-5, "mirrored: 15 ms into the backward one, peak 4 ms later")
        let bad = try CLI.run(["render", pattern, "-o", dir.file("bad.wav"), "--from", "30", "--to", "20"])
        #expect(bad.status == 64, "\(bad)")
        #expect(!dir.exists(dir.file("bad.wav")))
    }
}
