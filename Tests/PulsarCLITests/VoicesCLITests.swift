import Foundation
import PulsarAudio
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar play` with several INPUTs: voices of one engine, script lines that name them, steals,
/// and a log that replays to the device's samples.
@Suite("Voices CLI")
struct VoicesCLITests {
    /// Three patterns written in `dir`: a swell, a buzz, a click train.
    static func patterns(in dir: TempDir) throws -> [String] {
        [
            try dir.write(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.3}, {"time": 500, "value": 0.7}], "frequency": [{"time": 0, "value": 0.2}, {"time": 500, "value": 0.8}]}, "discretePattern": [{"time": 100, "amplitude": 0.6, "frequency": 0.9}]}"#, to: "a.json"),
            try dir.write(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.6}, {"time": 400, "value": 0.6}], "frequency": [{"time": 0, "value": 0.5}]}}"#, to: "b.json"),
            try dir.write(#"{"discretePattern": [{"time": 0, "amplitude": 0.9, "frequency": 0.3}, {"time": 120, "amplitude": 0.9, "frequency": 0.6}, {"time": 240, "amplitude": 0.9, "frequency": 0.9}]}"#, to: "c.json"),
        ]
    }

    /// The names and voices of the log's commands, in order.
    static func commands(_ log: String) throws -> [(name: String, voice: Int)] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], o["event"] as? String == "command" else { return nil }
            return (o["name"] as! String, (o["voice"] as? Int) ?? 0)
        }
    }

    @Test("Three INPUTs with overlapping starts, a pause, a seek, a live loop change and a steal at a limit of two replay to the recording, bit for bit")
    func threeVoicesReplay() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)
        let script = try dir.write("""
        at 0 start 1
        at 60 start 2
        at 120 start 3
        at 200 pause 2
        at 260 resume 2
        at 300 seek 3 50
        at 320 loop 3 2 reverse
        at 340 intensity 3 0.4 over 150
        at 380 intensity 2 0.5
        at 400 stop 2
        at 450 start 2
        at 460 gain master 0.8 over 40
        """, to: "s.txt")
        let r = try CLI.run(["play"] + inputs + ["--device", "sim:record=\(dir.file("r.wav"))", "--script", script, "--log", dir.file("l.jsonl"),
                                                  "--voices", "2"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderrLines.last?.contains("4 voices") == true, "\(r)")
        try ReplayCLITests.expectRecordingEqualsReplay(in: dir, atLeast: 24_000)
        let commands = try Self.commands(dir.file("l.jsonl"))
        #expect(commands.filter { $0.name == "attach" }.count == 4, "voices 1, 2, 3 and 2 again: \(commands)")
        #expect(commands.contains { $0.name == "steal" }, "the third voice at a limit of two stole one: \(commands)")
        #expect(commands.contains { $0.name == "mix" }, "the live loop change: \(commands)")
        #expect(commands.filter { $0.name == "intensity" }.map(\.voice) == [2, 1], "the intensity lines, of voices 3 and 2 (slots 2 and 1): \(commands)")
        #expect(commands.contains { $0.name == "master-gain" && $0.voice == -1 }, "the master gain: \(commands)")
        let log = try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8)
        #expect(log.contains(#""event": "voice""#) && log.contains("b.json") && log.contains("c.json"))
    }

    @Test("The corpus's Heartbeat, Hail and Rain as three voices with overlapping starts, intensity curves and a steal replay to an identical file",
          .enabled(if: SharedCorpus.available("pulsar-presets/Rain.json"), "needs ../shared/corpus"))
    func corpusVoicesReplayToAnIdenticalFile() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try ["Heartbeat", "Hail", "Rain"].map { try SharedCorpus.path("pulsar-presets/\($0).json") }
        let script = try dir.write("""
        at 0 start 1
        at 150 start 2
        at 200 intensity 1 0.3 over 300
        at 300 start 3
        at 450 intensity 2 1.5 over 100
        at 600 intensity 3 0.2
        at 700 start 1
        at 900 gain master 0.7 over 200
        """, to: "s.txt")
        let r = try CLI.run(["play"] + inputs + ["--device", "sim:record=\(dir.file("r.wav"))", "--script", script, "--log", dir.file("l.jsonl"),
                                                  "--voices", "2", "--quiet"])
        #expect(r.status == 0, "\(r)")
        let replay = try CLI.run(["render", "--replay", dir.file("l.jsonl"), "-o", dir.file("p.wav"), "--quiet"])
        #expect(replay.status == 0, "\(replay)")
        let recorded = try Data(contentsOf: URL(fileURLWithPath: dir.file("r.wav")))
        let replayed = try Data(contentsOf: URL(fileURLWithPath: dir.file("p.wav")))
        #expect(recorded.count > 48_000 * 4 && recorded == replayed, "the files are identical, byte for byte")
        let commands = try Self.commands(dir.file("l.jsonl"))
        #expect(commands.contains { $0.name == "steal" } && commands.filter { $0.name == "intensity" }.count == 3, "\(commands)")
    }

    @Test("A realtime voice (--mode 2=realtime) driven back and forth by position lines re-fires its clicks each way; the log replays to the recording")
    func realtimeVoiceBackAndForth() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)  // c.json: clicks at 0, 120 and 240 ms
        var lines = ["at 0 start 2", "at 0 position 2 0"]
        for k in 1...20 { lines.append("at \(k * 16) position 2 \(k * 16)") }          // forwards to 320 ms
        for k in 1...20 { lines.append("at \(320 + k * 16) position 2 \(320 - k * 16)") }  // and back to 0
        let script = try dir.write(lines.joined(separator: "\n") + "\n", to: "s.txt")
        let r = try CLI.run(["play", inputs[0], inputs[2], "--mode", "2=realtime", "--device", "sim:record=\(dir.file("r.wav"))",
                             "--script", script, "--log", dir.file("l.jsonl"), "--quiet"])
        #expect(r.status == 0, "\(r)")
        try ReplayCLITests.expectRecordingEqualsReplay(in: dir, atLeast: 24_000)
        let played = try AudioFileContents(contentsOf: dir.file("r.wav")).samples
        // Bursts: sound after 5 ms of silence. Forwards 120 and 240; back 240, 120 and 0.
        var onsets: [Int] = [], quiet = 240
        for (i, x) in played.enumerated() {
            if x == 0 { quiet += 1; continue }
            if quiet >= 240 { onsets.append(i) }
            quiet = 0
        }
        #expect(onsets.count == 5, "\(onsets)")
        let log = try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8)
        #expect(log.contains(#""mode": "realtime""#))
    }

    @Test("--mode and position lines refuse what they cannot do, in one line", arguments: [
        (["--mode", "sideways"], "", 64, "--mode"), (["--mode", "3=realtime"], "", 64, "--mode"),
        ([], "at 0 position 1 100\n", 65, "realtime"), ([], "at 0 position\n", 65, "position"),
        (["--mode", "2=realtime"], "at 0 sharpness 2 0.5\n", 65, "realtime"),
        // The ranges the C API shares (Limits): a content time within 24 h either side of 0,
        // play and seek from 0 on.
        (["--mode", "2=realtime"], "at 0 position 2 -86400001\n", 65, "24 h"),
        ([], "at 0 seek 2 -1\n", 65, "0 or more"), ([], "at 0 start 2 -0.5\n", 65, "0 or more"),
    ])
    func badModes(extra: [String], script text: String, status: Int32, says: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)
        var arguments = ["play", inputs[0], inputs[1], "--device", "sim"] + extra
        if !text.isEmpty { arguments += ["--script", try dir.write(text, to: "s.txt")] }
        let r = try CLI.run(arguments)
        #expect(r.status == status, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains(says), "\(r)")
    }

    @Test("Sharpness lines on two voices (at once, over a time, negative, across a pause) change the pitch the recording holds, and the log replays to it bit for bit")
    func sharpnessReplays() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)
        let script = try dir.write("""
        at 0 start 2
        at 0 start 1
        at 100 sharpness 2 0.4
        at 150 sharpness 1 -0.3 over 80
        at 200 pause 2
        at 250 resume 2
        at 300 sharpness 2 -0.5 over 50
        """, to: "s.txt")
        let r = try CLI.run(["play", inputs[1], inputs[0], "--device", "sim:record=\(dir.file("r.wav"))", "--script", script,
                             "--log", dir.file("l.jsonl")])
        #expect(r.status == 0, "\(r)")
        try ReplayCLITests.expectRecordingEqualsReplay(in: dir, atLeast: 20_000)
        let commands = try Self.commands(dir.file("l.jsonl"))
        // Voice 2 started first and took slot 0.
        #expect(commands.filter { $0.name == "sharpness" }.map(\.voice) == [0, 1, 0], "\(commands)")
        // Voice 1 alone (the buzz: 0.5 of 60…300 Hz, 180 Hz) from its start; after 0.4 at 100 ms, 276 Hz.
        let alone = try CLI.run(["play", inputs[1], "--device", "sim:record=\(dir.file("a.wav"))", "--script",
                                 try dir.write("at 0 start 1\nat 100 sharpness 0.4\n", to: "a.txt")])
        #expect(alone.status == 0, "\(alone)")
        let samples = try AudioFileContents(contentsOf: dir.file("a.wav")).samples
        let start = try #require(samples.firstIndex { $0 != 0 })
        let before = Self.zeroCrossingHertz(samples, (start + 960)..<(start + 4_320))
        let after = Self.zeroCrossingHertz(samples, (start + 7_200)..<(start + 16_800))
        #expect(abs(before - 180) < 1 && abs(after - 276) < 1, "\(before) Hz, then \(after) Hz")
    }

    /// Frequency from rising zero crossings (interpolated) in `samples[range]`.
    static func zeroCrossingHertz(_ samples: [Float], _ range: Range<Int>) -> Double {
        let ups = range.dropLast().filter { samples[$0] <= 0 && samples[$0 + 1] > 0 }
        guard let first = ups.first, let last = ups.last, last > first else { return 0 }
        func at(_ i: Int) -> Double { Double(i) + Double(-samples[i] / (samples[i + 1] - samples[i])) }
        return Double(ups.count - 1) * 48_000 / (at(last) - at(first))
    }

    @Test("One INPUT played on the simulated device is its offline render, sample for sample, from where its play took effect")
    func loneVoiceIsItsRender() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)
        let r = try CLI.run(["play", inputs[0], "--device", "sim:record=\(dir.file("r.wav"))", "--log", dir.file("l.jsonl")])
        #expect(r.status == 0, "\(r)")
        let render = try CLI.run(["render", inputs[0], "-o", dir.file("o.wav")])
        #expect(render.status == 0, "\(render)")
        let played = try AudioFileContents(contentsOf: dir.file("r.wav")).samples
        let rendered = try AudioFileContents(contentsOf: dir.file("o.wav")).samples
        // The voice starts where its play took effect: the recording holds the render from there.
        let start = try #require(played.firstIndex { $0 != 0 })
        let offset = try #require(rendered.firstIndex { $0 != 0 })
        let n = min(rendered.count - offset, played.count - start)
        #expect(n > 20_000)
        #expect(Array(played[start..<(start + n)]) == Array(rendered[offset..<(offset + n)]))
    }

    @Test("Script lines naming voices: errors name the line", arguments: [
        ("at 0 start\n", "'start' needs a voice"), ("at 0 start 4\n", "voice 4 has no INPUT"), ("at 0 pause x\n", "is not a voice"),
        ("at 0 seek 9 100\n", "voice 9 has no INPUT"), ("at 0 play 0 100\n", "is not a voice"),
        ("at 0 intensity 5\n", "intensity"), ("at 0 intensity 1 0.5 over x\n", "over"), ("at 0 gain master -1\n", "gain master"),
        ("at 0 sharpness 1.5\n", "sharpness"), ("at 0 sharpness 2 -1.2 over 10\n", "sharpness"), ("at 0 sharpness 0.2 over\n", "sharpness"),
    ])
    func badVoiceLines(text: String, says: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)
        let script = try dir.write(text, to: "s.txt")
        let r = try CLI.run(["play"] + inputs + ["--script", script, "--device", "sim"])
        #expect(r.status == 65, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("s.txt:1:") && r.stderr.contains(says), "\(r)")
    }

    @Test("Without a play or start line every voice starts at 0; a script ending with every voice paused ends the command when no terminal can resume it")
    func implicitStartsAndPausedEnd() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let inputs = try Self.patterns(in: dir)
        let script = try dir.write("at 100 pause 1\nat 100 pause 2\nat 100 pause 3\n", to: "s.txt")
        let r = try CLI.run(["play"] + inputs + ["--script", script, "--device", "sim", "--log", dir.file("l.jsonl")])
        #expect(r.status == 0, "\(r)")
        let commands = try Self.commands(dir.file("l.jsonl"))
        #expect(commands.filter { $0.name == "play" }.map(\.voice).sorted() == [0, 1, 2], "\(commands)")
        #expect(commands.filter { $0.name == "pause" }.count == 3, "\(commands)")
    }
}
