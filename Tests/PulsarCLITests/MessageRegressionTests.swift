import Foundation
import Testing

/// Messages found wanting by fuzzing: each a short line with the exit code its cause has.
@Suite struct MessageRegressionTests {
    /// A bundle folder's play on the simulated device with its log: the log's lines.
    static func loggedPlay(_ dir: TempDir) throws -> [String] {
        let (folder, _) = try AHAPAudioCLITests.bundle(in: dir, offset: 0, volume: 1)
        let script = try dir.write("at 0 play\n", to: "s.txt")
        let r = try CLI.run(["play", folder, "--preset", "p", "--device", "sim", "--script", script, "--log", dir.file("l.jsonl"), "--quiet"])
        #expect(r.status == 0, "\(r)")
        return try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("render --replay of a log naming a preset its input lacks is bad data (65), and a 100 KB event name is cut short")
    func replayMessages() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let lines = try Self.loggedPlay(dir)
        let missing = lines.map { $0.contains(#""event": "header""#) ? $0.replacingOccurrences(of: #""preset": "p""#, with: #""preset": "gone""#) : $0 }
        let a = try dir.write(missing.joined(separator: "\n") + "\n", to: "missing.jsonl")
        let r = try CLI.run(["render", "--replay", a, "-o", dir.file("a.wav")])
        #expect(r.status == 65 && r.stderrLines.filter { $0.contains("error") }.count == 1 && r.stderr.contains("'gone'"), "\(r)")
        #expect(!dir.exists(dir.file("a.wav")))
        let long = String(repeating: "x", count: 100_000)
        var withEvent = lines
        withEvent.insert(#"{"event": "\#(long)"}"#, at: lines.count - 1)
        let b = try dir.write(withEvent.joined(separator: "\n") + "\n", to: "long.jsonl")
        let s = try CLI.run(["render", "--replay", b, "-o", dir.file("b.wav")])
        let error = s.stderrLines.filter { $0.contains("error") }
        #expect(s.status == 65 && error.count == 1, "\(s.status)")
        #expect((error.first?.utf8.count ?? 0) < 600 && s.stderr.contains("more characters"), "\(error.first?.utf8.count ?? 0) bytes")
    }

    @Test("'gain haptic 0' is refused by the script's reader with the profile's range, (0, 16]; 'gain audio 0' plays")
    func hapticGainZero() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":50,"value":0.5}],"frequency":[{"time":0,"value":0.5}]}}"#, to: "p.json")
        let zero = try dir.write("at 0 gain haptic 0\nat 0 play\n", to: "z.txt")
        let r = try CLI.run(["play", pattern, "--device", "sim", "--script", zero, "--quiet"])
        // A bad script line: the file's data, exit 65, one line naming its place.
        #expect(r.status == 65 && r.stderrLines.count == 1 && r.stderr.contains("(0, 16]") && r.stderr.contains("z.txt:1"), "\(r)")
        let audio = try dir.write("at 0 gain audio 0\nat 0 play\n", to: "a.txt")
        #expect(try CLI.run(["play", pattern, "--device", "sim", "--script", audio, "--quiet"]).status == 0)
    }

    @Test("A pattern ending at exactly 24 h: plot names the content, not a loop nobody asked for")
    func dayLongPattern() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let day = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":86400000,"value":0.5}],"frequency":[{"time":0,"value":0.5}]}}"#, to: "day.json")
        let r = try CLI.runMeasured(["plot", day, "-o", dir.file("day.png")])
        #expect(!r.killed && r.result.status == 64 && r.result.stderrLines.count == 1, "\(r.result)")
        #expect(r.result.stderr.contains("the content") && r.result.stderr.contains("86400008") && !r.result.stderr.contains("loop"), "\(r.result.stderr)")
    }

    @Test("convert X.ahap -o / and -o FILE/ say what is in the way, in our words", arguments: [("/", "exists and is not empty"), ("/dev/null/", "exists and is not a folder")])
    func convertFolderMessages(output: String, says: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let ahap = try dir.write(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#, to: "n.ahap")
        let r = try CLI.run(["convert", ahap, "-o", output])
        #expect(r.status == 74 && r.stderrLines.count == 1 && r.stderr.contains(says) && !r.stderr.contains("operation could not"), "\(r)")
    }

    @Test("AudioCustom events past 24 h or with a path that is not a string are named as left out, not as absent")
    func unusableAudioCustom() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let ahap = try dir.write(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":1e10,"EventType":"AudioCustom","EventWaveformPath":"a.wav"}},{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":5}}]}"#, to: "y.ahap")
        let r = try CLI.run(["convert", ahap, "-o", dir.file("out") + "/"])
        #expect(r.status == 0, "\(r)")
        let warning = r.stderrLines.filter { $0.contains("warning") }
        #expect(warning.count == 1 && warning[0].contains("2 AudioCustom event(s) left out") && warning[0].contains("$.Pattern[1]: its Time")
                && warning[0].contains("$.Pattern[2]: its EventWaveformPath"), "\(r.stderr)")
        #expect(r.stderr.contains("no usable AudioCustom event") && !r.stderr.contains("has no AudioCustom event"))
    }

    @Test("A simulated device's setting out of range says the range it has", arguments: [("jitter=100", "0...99.999"), ("ppm=10000", "-9999.999...9999.999")])
    func simulatedRanges(setting: String, says: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"discretePattern":[{"time":0,"amplitude":1,"frequency":0.5}]}"#, to: "p.json")
        let r = try CLI.run(["play", pattern, "--device", "sim:" + setting, "--quiet"])
        #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains(says), "\(r)")
    }
}
