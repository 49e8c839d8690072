import Foundation
import PulsarAudio
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar follow` from a file onto the simulated device, its log replayed, and bad command
/// lines. The PipeWire runs (a capture followed onto a sink) are in the ALSA suite.
@Suite("pulsar follow")
struct FollowCLITests {
    /// 2 s at 48 kHz: a 50 Hz hum at -30 dBFS and five kicks (a sine swept from 150 to 55 Hz,
    /// decaying over 120 ms) at known times.
    static let kicks = [0.3, 0.62, 0.95, 1.31, 1.7]
    static func sound() -> [Float] {
        (0..<96_000).map { i in
            let t = Double(i) / 48_000
            var x = 0.0316 * sin(2 * Double.pi * 50 * t)
            for k in kicks where t >= k {
                let u = t - k
                x += 0.6 * sin(2 * Double.pi * (55 * u + 95 * 0.03 * (1 - exp(-u / 0.03)))) * exp(-u / 0.12)
            }
            return Float(x)
        }
    }

    @Test("A file followed onto sim:record with --mix and --log: the sound on L and R as it is, the touch on H; the replay of the log equals the recording bit for bit")
    func fileReplaysBitForBit() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = dir.file("in.wav"), out = dir.file("out.wav"), log = dir.file("f.json"), json = dir.file("figures.json"), replay = dir.file("r.wav")
        _ = try WAVExporter().export(Self.sound(), to: input, sampleRate: SampleRate(48_000)!, channels: 1)
        let r = try CLI.run(["follow", "--from", input, "--to", "sim:record=" + out, "--mix", "--layout", "stereo+haptic", "--log", log, "--json", json])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("followed") && r.stderr.contains("onsets"), "\(r)")
        let figures = try DriftCLITests.json(json)
        // The hum's start out of silence and the five kicks.
        #expect(figures["onsets"] as? Int == 6 && figures["missingFrames"] as? Int == 0 && figures["lookAheadMs"] as? Double == 0, "\(figures)")
        #expect(FileManager.default.fileExists(atPath: dir.file("f.input.wav")))
        let replayed = try CLI.run(["render", "--replay", log, "-o", replay, "--quiet"])
        #expect(replayed.status == 0, "\(replayed)")
        let recorded = try AudioFileContents(contentsOf: out), rebuilt = try AudioFileContents(contentsOf: replay)
        try #require(recorded.channels == 3 && rebuilt.channels == 3)
        #expect(recorded.frameCount >= 96_000 && rebuilt.frameCount >= recorded.frameCount, "\(recorded.frameCount) recorded, \(rebuilt.frameCount) replayed")
        #expect(Array(rebuilt.samples.prefix(recorded.samples.count)) == recorded.samples, "the replay differs from the recording")
        let sound = Self.sound()
        let samples: [Float] = recorded.samples
        let soundOnBoth = (0..<96_000).allSatisfy { (i: Int) -> Bool in samples[3 * i] == sound[i] && samples[3 * i + 1] == sound[i] }
        #expect(soundOnBoth, "L and R are the sound")
        let touch: [Float] = (0..<96_000).map { (i: Int) -> Float in samples[3 * i + 2] }
        #expect((touch.map(abs).max() ?? 0) > 0.3, "the kicks are felt")
    }

    @Test("Bad command lines: one line each, the documented exit code, nothing written",
          arguments: [
              ([], 64, "needs --from"),
              (["--from", "/nonexistent/x.wav"], 66, "x.wav"),
              (["--from", "IN", "--band", "120:30"], 64, "--band '120:30': LO:HI"),
              (["--from", "IN", "--gate", "5"], 64, "gate 5 is out of range: must be in -90...0 dBFS"),
              (["--from", "IN", "--method", "loud"], 64, "--method is envelope or android"),
              (["--from", "IN", "--seconds", "0"], 64, "--seconds '0'"),
              (["--from", "IN", "--log", "IN"], 64, "is the input"),
              (["--from", "IN", "--layout", "nine"], 64, "--layout 'nine'"),
              (["--from", "alsa:hw:CARD=NoSuchCard,DEV=0"], 69, "--from alsa:hw:CARD=NoSuchCard,DEV=0"),
              (["--from", "hw:CARD=NoSuchCard"], 69, "--from hw:CARD=NoSuchCard"),
          ] as [([String], Int32, String)])
    func badCommandLines(_ arguments: [String], _ status: Int32, _ says: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = dir.file("in.wav")
        _ = try WAVExporter().export(Self.sound(), to: input, sampleRate: SampleRate(48_000)!, channels: 1)
        let r = try CLI.run(["follow"] + arguments.map { $0 == "IN" ? input : $0 } + ["--to", "sim"])
        #expect(r.status == status && r.stderrLines.count == 1 && r.stderr.contains(says), "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.wav"])
    }
}
