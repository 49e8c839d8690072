import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// `pulsar render … -o OUT.ogg`: Android's haptic-coupled audio, an Ogg Vorbis file whose last
/// N channels vibrate and whose comments say `ANDROID_HAPTIC=N`. The file is decoded by
/// libsndfile (not the encoder's code) and compared with the WAV render of the same work.
@Suite("pulsar render to Android haptic OGG")
struct AndroidOggCLITests {
    /// A swell with transients: 600 ms.
    static let pattern = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.2},{"time":300,"value":0.8},{"time":600,"value":0.3}],"frequency":[{"time":0,"value":0.3},{"time":600,"value":0.7}]},"discretePattern":[{"time":100,"amplitude":0.9,"frequency":0.5},{"time":400,"amplitude":0.7,"frequency":0.8}]}"#

    /// The Vorbis comment header's `TAG=value` strings, found in the file's bytes.
    static func comments(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4096), as: UTF8.self)
    }

    static func rms(_ x: [Float]) -> Double { (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(x.count, 1))).squareRoot() }

    @Test("--layout android: 3 channels, ANDROID_HAPTIC=1, the haptic channel within the codec's error of the haptic render, silence on 1–2")
    func android() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let ogg = dir.file("p.ogg"), wav = dir.file("h.wav")
        let r = try CLI.run(["render", input, "--layout", "android", "-o", ogg])
        #expect(r.status == 0, "\(r)")
        #expect(try CLI.run(["render", input, "--layout", "haptic", "-o", wav, "--quiet"]).status == 0)
        let decoded = try AudioFileContents(contentsOf: ogg), haptic = try AudioFileContents(contentsOf: wav)
        #expect(decoded.channels == 3 && decoded.sampleRate == 48_000)
        #expect(decoded.formatCode & 0x0FFF_0000 == 0x20_0000, "SF_FORMAT_OGG, not 0x\(String(decoded.formatCode, radix: 16))")
        #expect(decoded.frameCount == haptic.frameCount)
        #expect(try Self.comments(ogg).contains("ANDROID_HAPTIC=1"))
        let n = min(decoded.frameCount, haptic.frameCount)
        let channel3 = (0..<n).map { decoded.samples[$0 * 3 + 2] }
        let error = (0..<n).map { channel3[$0] - haptic.samples[$0] }
        let snr = 20 * log10(Self.rms(Array(haptic.samples[0..<n])) / Self.rms(error))
        // Vorbis at quality 0.6 keeps this band 30 dB or more above its error (38 dB measured
        // on the corpus demo preset).
        #expect(snr > 30, "haptic channel SNR \(snr) dB")
        let audio = (0..<n).flatMap { [decoded.samples[$0 * 3], decoded.samples[$0 * 3 + 1]] }
        #expect(Self.rms(audio) < 1e-3, "a pattern has no audio: channels 1–2 are silent")
    }

    @Test("ANDROID_HAPTIC counts the trailing haptic channels: 2 for L,R,H,H; none for a layout that ends in audio or is haptic alone")
    func counts() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        for (layout, expected) in [("L,R,H,H", "ANDROID_HAPTIC=2"), ("mix", nil), ("haptic", nil), ("H,L", nil)] as [(String, String?)] {
            let ogg = dir.file("o.ogg")
            let r = try CLI.run(["render", input, "--layout", layout, "-o", ogg, "--quiet"])
            #expect(r.status == 0, "\(layout): \(r)")
            let text = try Self.comments(ogg)
            if let expected { #expect(text.contains(expected), "\(layout)") } else { #expect(!text.contains("ANDROID_HAPTIC"), "\(layout)") }
            try FileManager.default.removeItem(atPath: ogg)
        }
    }

    @Test("Past 8 channels, or into a folder that does not exist: one line, exit 74 (the output cannot be written), nothing left behind")
    func refused() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let wide = try CLI.run(["render", input, "--layout", "H,H,H,H,H,H,H,H,H", "-o", dir.file("w.ogg")])
        #expect(wide.status == 74 && wide.stderrLines.count == 1 && wide.stderr.contains("1 to 8 channels"), "\(wide)")
        let missing = try CLI.run(["render", input, "--layout", "android", "-o", dir.file("none/x.ogg")])
        #expect(missing.status == 74 && missing.stderrLines.count == 1, "\(missing)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["p.json"])
    }

    @Test("The corpus demo preset with its MP3 audio: a 3-channel Ogg with ANDROID_HAPTIC=1, its audio near the stereo+haptic render",
          .enabled(if: SharedCorpus.available("bundles/demo.pulsar"), "needs ../shared/corpus"))
    func corpusPreset() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = try SharedCorpus.path("bundles/demo.pulsar")
        let ogg = dir.file("v.ogg"), wav = dir.file("v.wav")
        #expect(try CLI.run(["render", bundle, "--preset", "verified", "--layout", "android", "-o", ogg, "--quiet"]).status == 0)
        #expect(try CLI.run(["render", bundle, "--preset", "verified", "--layout", "stereo+haptic", "-o", wav, "--quiet"]).status == 0)
        let decoded = try AudioFileContents(contentsOf: ogg), reference = try AudioFileContents(contentsOf: wav)
        #expect(decoded.channels == 3 && decoded.frameCount == reference.frameCount)
        #expect(try Self.comments(ogg).contains("ANDROID_HAPTIC=1"))
        for c in 0..<3 {
            let x = (0..<reference.frameCount).map { reference.samples[$0 * 3 + c] }
            let e = (0..<reference.frameCount).map { decoded.samples[$0 * 3 + c] - reference.samples[$0 * 3 + c] }
            let snr = 20 * log10(Self.rms(x) / Self.rms(e))
            // Measured: 28.6 dB on the audio, 38.1 dB on the haptic channel.
            print("measured: demo.pulsar verified as Ogg Vorbis, channel \(c + 1): SNR \(snr) dB against the WAV render")
            #expect(snr > (c == 2 ? 30 : 20), "channel \(c + 1): SNR \(snr) dB")
        }
    }

    @Test("render --replay to .ogg: the logged play as Ogg Vorbis with ANDROID_HAPTIC, the same length as the WAV replay; --format with .ogg is refused (exit 64)")
    func replayAndFormat() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let log = dir.file("l.jsonl"), ogg = dir.file("r.ogg"), wav = dir.file("r.wav")
        #expect(try CLI.run(["play", input, "--layout", "android", "--device", "sim", "--log", log, "--quiet"]).status == 0)
        #expect(try CLI.run(["render", "--replay", log, "-o", ogg, "--quiet"]).status == 0)
        #expect(try CLI.run(["render", "--replay", log, "-o", wav, "--quiet"]).status == 0)
        let decoded = try AudioFileContents(contentsOf: ogg), reference = try AudioFileContents(contentsOf: wav)
        #expect(decoded.channels == 3 && decoded.frameCount == reference.frameCount && decoded.frameCount > 0)
        #expect(try Self.comments(ogg).contains("ANDROID_HAPTIC=1"))
        let refused = try CLI.run(["render", input, "--format", "s16", "-o", dir.file("f.ogg")])
        #expect(refused.status == 64 && refused.stderrLines.count == 1 && refused.stderr.contains("--format"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("f.ogg")))
    }

    @Test("Reading Android haptic OGG: info names the haptic channels; render --layout haptic extracts them within the codec's error; M leaves them out; a WAV has none (exit 65, nothing written)")
    func reading() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let ogg = dir.file("a.ogg"), wide = dir.file("w.ogg"), haptic = dir.file("h.wav"), extracted = dir.file("x.wav")
        // Audio silent, the haptic channel last: the audio's M must stay silent.
        #expect(try CLI.run(["render", input, "--layout", "0,0,H", "-o", ogg, "--quiet"]).status == 0)
        #expect(try CLI.run(["render", input, "--layout", "haptic", "-o", haptic, "--quiet"]).status == 0)
        let info = try CLI.run(["info", ogg])
        #expect(info.status == 0 && info.stdout.contains("3 channels") && info.stdout.contains("ANDROID_HAPTIC=1") && info.stdout.contains("channel 3 vibrates"), "\(info)")
        let json = try CLI.run(["info", ogg, "--json"])
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(doc?["androidHapticChannels"] as? Int == 1 && doc?["channels"] as? Int == 3)
        #expect(try CLI.run(["render", ogg, "--layout", "haptic", "-o", extracted, "--quiet"]).status == 0)
        let x = try AudioFileContents(contentsOf: extracted), h = try AudioFileContents(contentsOf: haptic)
        #expect(x.channels == 1 && x.frameCount == h.frameCount)
        let snr = 20 * log10(Self.rms(h.samples) / Self.rms(zip(x.samples, h.samples).map { $0 - $1 }))
        print("measured: the haptic channel extracted from an Android OGG: SNR \(snr) dB against the haptic render")
        #expect(snr > 30, "SNR \(snr) dB")
        let mono = dir.file("m.wav")
        #expect(try CLI.run(["render", ogg, "--layout", "M", "-o", mono, "--quiet"]).status == 0)
        #expect(Self.rms(try AudioFileContents(contentsOf: mono).samples) < 1e-4, "the audio's mean leaves the haptic channel out")
        // Two haptic channels.
        #expect(try CLI.run(["render", input, "--layout", "L,R,H,H", "-o", wide, "--quiet"]).status == 0)
        #expect(try CLI.run(["info", wide]).stdout.contains("channels 3–4 vibrate"))
        let refused = try CLI.run(["render", haptic, "--layout", "haptic", "-o", dir.file("n.wav")])
        #expect(refused.status == 65 && refused.stderrLines.count == 1 && refused.stderr.contains("no-haptic-channels"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("n.wav")))
        let plain = try CLI.run(["info", haptic])
        #expect(plain.status == 0 && plain.stdout.contains("haptic channels: none"), "\(plain)")
    }

    @Test("ffprobe reads the Android OGG: 3 channels, Vorbis, the ANDROID_HAPTIC=1 tag", .enabled(if: AndroidOggCLITests.ffprobe != nil, "needs ffprobe (Debian: ffmpeg)"))
    func ffprobeReadsIt() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let ogg = dir.file("v.ogg")
        #expect(try CLI.run(["render", input, "--layout", "android", "-o", ogg, "--quiet"]).status == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.ffprobe!)
        p.arguments = ["-v", "error", "-show_streams", "-show_format", "-of", "json", ogg]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let doc = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let stream = (doc?["streams"] as? [[String: Any]])?.first
        #expect(stream?["channels"] as? Int == 3 && stream?["codec_name"] as? String == "vorbis", "\(stream ?? [:])")
        let tags = ((stream?["tags"] as? [String: Any]) ?? [:]).merging((doc?["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]) { a, _ in a }
        #expect(tags.contains { $0.key.uppercased() == "ANDROID_HAPTIC" && "\($0.value)" == "1" }, "\(tags)")
    }

    /// ffprobe on this machine, if installed.
    static let ffprobe: String? = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) }
}
