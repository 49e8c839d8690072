import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// Hostile inputs and options on what was added since the last round (actuator configs, follow
/// logs, `latency`, `follow`'s device recording, outputs that an input makes huge): each ends
/// with its documented code and one line of at most ~300 characters naming the rule, writes
/// nothing when it fails, and reserves memory as it goes, never by the theoretical maximum.
@Suite("Hostile inputs, round 4")
struct HostileRound4Tests {
    static let resources = CLI.resources
    static var pattern: String { resources + "/patterns/demo.json" }

    /// One line, at most 300 characters (the backstop `MessageText.line` keeps to).
    static func isOneShortLine(_ r: CLIResult) -> Bool {
        r.stderrLines.count == 1 && r.stderrLines[0].count <= 300
    }

    /// A follow log and its input, made by `pulsar follow` from a rendered pattern.
    static func followLog(in dir: TempDir) throws -> (log: String, text: String) {
        #expect(try CLI.run(["render", pattern, "-o", dir.file("a.wav"), "--quiet"]).status == 0)
        let r = try CLI.run(["follow", "--from", dir.file("a.wav"), "--to", "sim", "--log", dir.file("L.json"), "--quiet"])
        try #require(r.status == 0, "\(r)")
        return (dir.file("L.json"), try String(contentsOfFile: dir.file("L.json"), encoding: .utf8))
    }

    @Test("A follow log's numbers beyond every range (1e300, 2⁶³, a fraction) are one line naming the file, 65, never a signal")
    func followLogNumbers() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (_, text) = try Self.followLog(in: dir)
        for (key, value, words) in [("sampleRate", "1e300", "'sampleRate' 1e+300 must be in 8000...192000"),
                                    ("channels", "1e300", "'channels' 1e+300 must be in 1...64"),
                                    ("channels", "9223372036854775808", "'channels' 9.223372036854776e+18 must be in 1...64"),
                                    ("frames", "-1e300", "'frames' -1e+300 must be in 0..."),
                                    ("sampleRate", "48000.5", "'sampleRate' 48000.5 must be a whole number")] {
            let edited = text.replacingOccurrences(of: #""\#(key)": [0-9]+"#, with: #""\#(key)": \#(value)"#, options: .regularExpression)
            try #require(edited != text)
            let log = try dir.write(edited.replacingOccurrences(of: #""input": "L.input.wav""#, with: #""input": "M.input.wav""#), to: "M.json")
            try FileManager.default.copyItem(atPath: dir.file("L.input.wav"), toPath: dir.file("M.input.wav"))
            defer { try? FileManager.default.removeItem(atPath: dir.file("M.input.wav")) }
            let r = try CLI.run(["render", "--replay", log, "-o", dir.file("o.wav")])
            #expect(r.status == 65 && Self.isOneShortLine(r) && r.stderr.contains("M.json: the follow log's \(words)"), "\(key) \(value): \(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("o.wav")))
        }
        // An input name of 5 000 characters: one short line.
        let long = text.replacingOccurrences(of: #""input": "L.input.wav""#, with: #""input": "\#(String(repeating: "n", count: 5_000)).wav""#)
        let r = try CLI.run(["render", "--replay", try dir.write(long, to: "N.json"), "-o", dir.file("o.wav")])
        #expect(r.status == 65 && Self.isOneShortLine(r) && r.stderr.contains("is not a file name beside it"), "\(r)")
    }

    @Test("follow at 192 kHz into 32 channels for an hour, recorded: memory grows with what was played, not by the 88 GB an hour could take")
    func followReservesAsItGoes() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        #expect(try CLI.run(["render", Self.pattern, "--rate", "192000", "-o", dir.file("a.wav"), "--quiet"]).status == 0)
        let layout = Array(repeating: "H", count: 32).joined(separator: ",")
        let run = try CLI.runMeasured(["follow", "--from", dir.file("a.wav"), "--to", "sim:record=\(dir.file("x.wav"))", "--layout", layout,
                                       "--seconds", "3600", "--quiet"], hangLimit: 60, interruptAfter: 2)
        #expect(!run.killed && run.result.status == 130, "\(run.result)")
        #expect(run.maxResidentBytes < 600_000_000, "\(run.maxResidentBytes) bytes resident")
        // What played before the interrupt was written (a debug build on a loaded machine keeps up
        // with less than real time at 192 kHz × 32: some of it, at most the seconds it ran).
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.file("x.wav"))
        let bytes = (attributes[.size] as? Int) ?? 0
        #expect(bytes > 32 * 4 * 1_000 && bytes < 192_000 * 32 * 4 * 30, "\(bytes) bytes recorded")
    }

    @Test("Outputs that are one file are refused before anything is written: follow's recording and its log's input, latency's --json and --plot")
    func outputsCollide() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        #expect(try CLI.run(["render", Self.pattern, "-o", dir.file("a.wav"), "--quiet"]).status == 0)
        let follow = try CLI.run(["follow", "--from", dir.file("a.wav"), "--to", "sim:record=\(dir.file("L.input.wav"))", "--log", dir.file("L.json")])
        #expect(follow.status == 64 && Self.isOneShortLine(follow) && follow.stderr.contains("[outputs-collide]"), "\(follow)")
        let latency = try CLI.run(["latency", "--device", "sim", "--seconds", "1", "--json", dir.file("x.png"), "--plot", dir.file("./x.png")])
        #expect(latency.status == 64 && Self.isOneShortLine(latency) && latency.stderr.contains("[outputs-collide]"), "\(latency)")
        #expect(dir.contents() == ["a.wav"], "nothing else written: \(dir.contents())")
    }

    @Test("latency --device sim:record=X writes X: the clicks it played")
    func latencyRecords() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["latency", "--device", "sim:record=\(dir.file("x.wav"))", "--seconds", "1", "--quiet"])
        #expect(r.status == 0, "\(r)")
        let audio = try AudioFileContents(contentsOf: dir.file("x.wav"))
        #expect(audio.channels == 2 && audio.samples.count > 48_000, "\(audio.samples.count) samples")
        #expect(audio.samples.contains { abs($0) > 0.1 }, "a click is in the recording")
    }

    @Test("An actuator config whose bursts last 23 h: render refuses the 66 GB output up front (64), --max-output bounds any render, and allows one it covers")
    func outputBudget() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let console = try String(contentsOfFile: Self.resources + "/actuators/meta-console.acf", encoding: .utf8)
        let long = console.replacingOccurrences(of: "duration_ms: 27.0", with: "duration_ms: 86000000")
            .replacingOccurrences(of: "duration_ms: 20.0", with: "duration_ms: 86000000")
        let config = try dir.write(long, to: "long.acf")
        let started = Date()
        let r = try CLI.run(["render", Self.pattern, "--actuator", config, "--layout", "quad", "-o", dir.file("big.wav")])
        #expect(r.status == 64 && Self.isOneShortLine(r), "\(r)")
        #expect(r.stderr.contains("big.wav would be 66.1 GB (86003.4 s × 4 channels at 48000 Hz, float), more than --max-output 4G allows; give --max-output 62G or none"), "\(r)")
        #expect(Date().timeIntervalSince(started) < 20, "refused before rendering")
        #expect(try CLI.run(["render", Self.pattern, "-o", dir.file("s.wav"), "--max-output", "1K"]).status == 64)
        #expect(try CLI.run(["render", Self.pattern, "-o", dir.file("s.wav"), "--max-output", "lots"]).status == 64)
        #expect(dir.contents() == ["long.acf"], "\(dir.contents())")
        #expect(try CLI.run(["render", Self.pattern, "-o", dir.file("s.wav"), "--max-output", "10M", "--quiet"]).status == 0)
    }

    @Test("Actuator configs: one no rate can play is bad data (65); a folder of 3 000 configs or a name of 200 000 characters makes one short line")
    func actuatorMessages() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["render", Self.pattern, "--actuator", try dir.write("{model: 'envelope', resonance_hz: 1}", to: "r1.acf"), "-o", dir.file("o.wav")])
        #expect(r.status == 65 && Self.isOneShortLine(r) && r.stderr.contains("r1.acf: the lowest frequency must be at least 1 Hz"), "\(r)")
        let many = try dir.directory("many")
        for i in 0..<3_000 { try "{}".write(toFile: many + "/a-config-with-a-rather-long-name-\(i).acf", atomically: false, encoding: .utf8) }
        let listed = try CLI.run(["render", Self.pattern, "--actuator", "nope", "-o", dir.file("o.wav")], environment: ["PULSAR_ACTUATORS": many])
        #expect(listed.status == 64 && Self.isOneShortLine(listed) && listed.stderr.contains("and 2988 more"), "\(listed)")
        let huge = try CLI.run(["render", Self.pattern, "--actuator", String(repeating: "x", count: 100_000), "-o", dir.file("o.wav")])
        #expect(huge.status == 64 && Self.isOneShortLine(huge), "\(huge.stderr.count) characters")
        #expect(!FileManager.default.fileExists(atPath: dir.file("o.wav")))
    }

    @Test("A name with U+2028, U+2029 or a bidirectional override is escaped in the message; a 5 000-character --capture is one short line")
    func escapedNames() throws {
        for name in ["a\u{2028}b.json", "a\u{2029}b.json", "a\u{202E}b.json", "a\u{85}b.json"] {
            let r = try CLI.run(["render", name, "-o", "/tmp/never-written.wav"])
            #expect(r.status == 66 && Self.isOneShortLine(r), "\(r)")
            #expect(!r.stderr.unicodeScalars.contains { [0x2028, 0x2029, 0x202E, 0x85].contains($0.value) }, "\(r)")
        }
        let capture = try CLI.run(["latency", "--device", "sim", "--seconds", "1", "--capture", "pw:" + String(repeating: "c", count: 5_000)])
        #expect(capture.status == 69 && Self.isOneShortLine(capture), "\(capture)")
    }
}
