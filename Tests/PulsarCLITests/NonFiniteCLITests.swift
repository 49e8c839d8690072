import Foundation
import PulsarAudio
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar render` and `pulsar play` on a bundle whose float audio holds NaN and ±∞: the output is
/// finite in every layout and format, and the user is told once, with the count, under
/// `[non-finite-sample]`.
@Suite("Non-finite audio in the CLI")
struct NonFiniteCLITests {
    static func bundle(in dir: TempDir) throws -> String {
        try NonFiniteFixture.writeBundle(in: dir.path) { path, samples, rate, channels in
            _ = try WAVExporter(format: .float).export(samples, to: path, sampleRate: SampleRate(rate)!, channels: channels)
        }
    }

    /// The `[non-finite-sample]` lines of a run's stderr.
    static func warnings(_ r: CLIResult) -> [String] {
        r.stderrLines.filter { $0.contains("[non-finite-sample]") }
    }

    @Test("render in every layout and format: finite output, 0 where the file was not finite, one warning with the count",
          arguments: ["mix", "stereo+haptic", "quad", "haptic", "L,R,M"], ["float", "s16", "s24"])
    func render(layout: String, format: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = try Self.bundle(in: dir)
        let out = dir.file("out.wav")
        let r = try CLI.run(["render", bundle, "--layout", layout, "--format", format, "-o", out])
        #expect(r.status == 0, "\(r)")
        let wav = try AudioFileContents(contentsOf: out)
        #expect(wav.samples.allSatisfy { $0.isFinite && abs($0) < 1 })
        let channels = try #require(ChannelLayout(parsing: layout)).channels
        for (c, sources) in channels.enumerated() where sources == [.left] || sources == [.right] {
            let k = sources == [.left] ? 0 : 1
            for p in NonFiniteFixture.nonFinitePositions where p % 2 == k {
                #expect(wav.samples[(p / 2) * channels.count + c] == 0, "channel \(c + 1), frame \(p / 2)")
            }
        }
        let summary = r.stderrLines.first { $0.hasPrefix("wrote ") } ?? ""
        #expect(!summary.contains("peak 0.000") && !summary.contains("nan"), "\(summary)")
        if layout == "haptic" {
            // The haptic layout takes no audio: nothing is decoded, so nothing to warn about.
            #expect(Self.warnings(r).isEmpty, "\(r)")
        } else {
            #expect(Self.warnings(r) == ["pulsar: warning: audio/nan.wav: 11 non-finite samples (NaN or infinity) decoded as silence [non-finite-sample]"],
                    "\(r)")
        }
    }

    @Test("render --quiet prints no warning")
    func quiet() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["render", try Self.bundle(in: dir), "--quiet", "-o", dir.file("out.wav")])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
    }

    @Test("play on the simulated device taking float, s32 or s16: plays to the end, records only finite samples, warns once",
          arguments: ["float", "s32", "s16"])
    func play(format: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = try Self.bundle(in: dir)
        let recording = dir.file("rec.wav")
        let r = try CLI.run(["play", bundle, "--layout", "stereo+haptic", "--device", "sim:format=\(format),record=\(recording)"])
        #expect(r.status == 0, "\(r)")
        #expect(Self.warnings(r).count == 1 && Self.warnings(r).first?.contains(": 11 non-finite samples") == true, "\(r)")
        let wav = try AudioFileContents(contentsOf: recording)
        #expect(wav.channels == 3 && wav.frameCount >= NonFiniteFixture.frames)
        #expect(wav.samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
        if format == "s16" {
            #expect(wav.samples.allSatisfy { ($0 * 32_768).rounded() == $0 * 32_768 }, "every sample a 16-bit step")
        }
    }

    @Test("an unknown simulated sample format is a usage error")
    func unknownFormat() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["play", try Self.bundle(in: dir), "--device", "sim:format=s8"])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains("float, s32 or s16"))
    }
}
