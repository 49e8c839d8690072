import Foundation
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSession
import PulsarTestSupport
import Testing

/// A Swift app that asks the session layer for content (`ContentRequest`) plays what `pulsar
/// render` writes, sample for sample, for every kind of input: a bundle's presets on the actuators
/// their manifests name, `.haptic` clips through shipped configs, AHAP files, and audio alone with
/// its haptics derived. Both go through one content layer; this test is what keeps it one.
@Suite(.serialized)
struct ContentParityTests {
    /// Every sample of `request`'s content, as the session layer mixes it.
    static func library(_ request: ContentRequest) throws -> (samples: [Float], channels: Int) {
        let mixer = try request.resolve().content.mixer
        var samples = [Float](repeating: 0, count: Int(mixer.frameCount) * mixer.channelCount)
        _ = try samples.withUnsafeMutableBufferPointer { try mixer.render(into: $0, from: TimelineFrame(0)) }
        return (samples, mixer.channelCount)
    }

    /// `pulsar render ARGS -o OUT` (float WAV), read back.
    static func command(_ arguments: [String], in dir: TempDir) throws -> (samples: [Float], channels: Int) {
        let output = dir.file("cli-\(UUID().uuidString).wav")
        let r = try CLI.run(["render"] + arguments + ["-o", output, "--quiet"])
        #expect(r.status == 0, "\(arguments): \(r)")
        let file = try AudioFileContents(contentsOf: output)
        return (file.samples, file.channels)
    }

    static func expectEqual(_ a: (samples: [Float], channels: Int), _ b: (samples: [Float], channels: Int), _ what: String) {
        #expect(a.channels == b.channels, "\(what): channels \(a.channels) vs \(b.channels)")
        #expect(a.samples.count == b.samples.count, "\(what): \(a.samples.count) vs \(b.samples.count) samples")
        let first = zip(a.samples, b.samples).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
        #expect(first == nil, "\(what): first difference at sample \(first?.offset ?? -1)")
        // Not silence: a comparison of two empty renders proves nothing.
        #expect(a.samples.contains { $0 != 0 }, "\(what): silent")
    }

    @Test("Bundle presets on the actuators their manifests name (envelope and burst), and a named device overriding them",
          .enabled(if: SharedCorpus.available("bundles/demo-unpacked")), .timeLimit(.minutes(5)))
    func bundlePresets() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let folder = dir.file("b")
        try FileManager.default.copyItem(atPath: try SharedCorpus.path("bundles/demo-unpacked"), toPath: folder)
        var manifest = try String(contentsOfFile: folder + "/manifest.json", encoding: .utf8)
        manifest = manifest.replacingOccurrences(of: #""haptics": "haptics/verified.json","#, with: #""haptics": "haptics/verified.json", "actuator": "lra","#)
        manifest = manifest.replacingOccurrences(of: #""haptics": "haptics/heartbeat.json""#, with: #""haptics": "haptics/heartbeat.json", "actuator": "meta-console""#)
        #expect(manifest.contains(#""actuator": "lra""#) && manifest.contains(#""actuator": "meta-console""#), "the corpus manifest changed")
        try manifest.write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
        for id in ["verified", "heartbeat"] {
            let resolved = try ContentRequest(input: folder, preset: id).resolve()
            #expect(resolved.device.actuator?.name == (id == "verified" ? "lra" : "meta-console"), "\(id): its manifest's actuator")
            Self.expectEqual(try Self.library(ContentRequest(input: folder, preset: id)), try Self.command([folder, "--preset", id], in: dir), id)
            var named = ContentRequest(input: folder, preset: id)
            named.profile = "wideband"
            Self.expectEqual(try Self.library(named), try Self.command([folder, "--preset", id, "--profile", "wideband"], in: dir), "\(id) wideband")
        }
        // The older entry points agree with the request: the preset's own actuator is played.
        let old = try SessionContent.preset("heartbeat", inBundle: folder).mixer
        #expect(old.settings.actuator?.name == "meta-console")
    }

    @Test(".haptic clips through shipped configs by name and by path, and as written",
          .enabled(if: SharedCorpus.available("lofelt/clips")), .timeLimit(.minutes(5)))
    func hapticClips() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let clips = try SharedCorpus.requiredFiles(in: "lofelt/clips", ext: "haptic").sorted().enumerated().filter { $0.offset % 40 == 0 }.map(\.element)
        let lra = CLI.resources + "/actuators/lra.acf"
        for clip in clips.prefix(4) {
            for (actuator, arguments) in [("meta-quest", ["--actuator", "meta-quest"]), (lra, ["--actuator", lra]), (nil, [String]())] {
                var request = ContentRequest(input: clip)
                request.actuator = actuator
                Self.expectEqual(try Self.library(request), try Self.command([clip] + arguments, in: dir), "\(clip) \(actuator ?? "as written")")
            }
        }
    }

    @Test("AHAP files (with and without AudioCustom events) as pulsar render plays them",
          .enabled(if: SharedCorpus.available("ahap/apple")), .timeLimit(.minutes(5)))
    func ahapFiles() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let files = try SharedCorpus.requiredFiles(in: "ahap/apple", ext: "ahap").sorted()
        let chosen = files.filter { $0.contains("/Ricochet/") }.prefix(2) + files.filter { !$0.contains("/Ricochet/") }.prefix(2)
        for file in chosen {
            Self.expectEqual(try Self.library(ContentRequest(input: file)), try Self.command([file], in: dir), file)
            var request = ContentRequest(input: file, rate: SampleRate(44_100)!)
            request.layout = .stereoHaptic
            Self.expectEqual(try Self.library(request), try Self.command([file, "--rate", "44100", "--layout", "stereo+haptic"], in: dir), "\(file) 44.1 kHz")
        }
    }

    @Test("Audio alone with its haptics derived: an MP3 as render --haptics-from-audio envelope writes it",
          .enabled(if: SharedCorpus.available("bundles/demo-unpacked/audio/sample-3s.mp3")), .timeLimit(.minutes(5)))
    func audioWithDerive() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let mp3 = try SharedCorpus.path("bundles/demo-unpacked/audio/sample-3s.mp3")
        var request = ContentRequest(input: mp3)
        request.derive = true
        let resolved = try request.resolve()
        #expect(resolved.derived != nil && resolved.preset.pattern.pointCount > 0)
        Self.expectEqual(try Self.library(request), try Self.command([mp3, "--haptics-from-audio", "envelope"], in: dir), "derived")
        // Without derive: audio with silent haptics, and a warning saying so.
        let silent = try ContentRequest(input: mp3).resolve()
        #expect(silent.warnings.contains { $0.rule == "no-haptics" })
    }

    @Test("Refusals name their rule and kind: no preset, an actuator not shipped, a missing input, two devices")
    func refusals() throws {
        let demo = CLI.resources + "/patterns/demo.json"
        func kind(_ request: ContentRequest) -> SessionError.Kind? {
            do {
                _ = try request.resolve()
                return nil
            } catch {
                return error.kind
            }
        }
        var request = ContentRequest(input: demo)
        request.actuator = "no-such-actuator"
        #expect(kind(request) == .usage)
        request.actuator = "lra"
        request.profile = "wideband"
        #expect(kind(request) == .usage)
        #expect(kind(ContentRequest(input: "/nonexistent/p.json")) == .missing)
        #expect(kind(ContentRequest(input: demo, preset: "nope")) == .usage)
        #expect(kind(ContentRequest(input: demo)) == nil)
    }

    @Test("A session's defaults are every front end's (auto, the haptic channel, 48 kHz); content whose layout was left to its default plays in the session's",
          .enabled(if: SharedCorpus.available("bundles/demo.pulsar")), .timeLimit(.minutes(2)))
    func sessionLayout() throws {
        let bundle = try SharedCorpus.path("bundles/demo.pulsar")
        let session = try Session(device: "sim")
        defer { try? session.stop() }
        #expect(session.layout == .haptic && session.engine.mainChannels == 1)
        let content = try SessionContent.preset("verified", inBundle: bundle)
        #expect(content.mixer.channelCount == 2 && !content.layoutChosen)
        let voice = try session.voice(content)
        #expect(voice.mixer.channelCount == 1, "the preset plays in the session's layout")
        let chosen = try SessionContent.preset("verified", inBundle: bundle, settings: MixSettings(layout: .mix))
        #expect(throws: VoiceError.self) { _ = try session.voice(chosen) }
        var request = ContentRequest(input: bundle, preset: "verified")
        #expect(try session.voice(request.resolve().content).mixer.channelCount == 1)
        request.layout = .stereoHaptic
        #expect(throws: VoiceError.self) { _ = try session.voice(request.resolve().content) }
    }
}
