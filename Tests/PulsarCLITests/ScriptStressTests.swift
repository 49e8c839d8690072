import Foundation
import Synchronization
import Testing

/// `pulsar play --script` with tens of thousands of lines at one instant always ends. Such a
/// script once hung from 65 535 lines on (an idle machine let the real-time thread take the lines
/// as fast as they were sent, their reports overflowed the event queue, and the command loop
/// waited for reports that were never coming); every kind of command, one and several voices,
/// one and two devices, idle and with both cores busy, each under the harness's kill deadline.
@Suite(.serialized) struct ScriptStressTests {
    static let kinds = ["seek 0", "play", "stop", "pause", "resume", "gain master 0.5", "start 2", "stop 2", "intensity 2 0.7"]

    /// A 50 ms pattern, and a script of `count` lines at 0 ms cycling through `kinds`.
    static func files(_ dir: TempDir, count: Int, kinds: [String]) throws -> (pattern: String, script: String) {
        let pattern = try dir.write(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.5}, {"time": 50, "value": 0.5}]}}"#, to: "p.json")
        var text = ""
        text.reserveCapacity(count * 20)
        for i in 0..<count { text += "at 0 \(kinds[i % kinds.count])\n" }
        return (pattern, try dir.write(text, to: "s.txt"))
    }

    /// Keeps one core busy while `body` runs.
    static func underLoad<T>(_ body: () throws -> T) rethrows -> T {
        let running = Atomic<Bool>(true)
        let spinner = Thread {
            var x = 0.0
            while running.load(ordering: .relaxed) { x += 1 }
            _ = x
        }
        spinner.start()
        defer { running.store(false, ordering: .relaxed) }
        return try body()
    }

    func play(lines count: Int, kinds: [String], voices: Int, twoDevices: Bool, log: Bool) throws -> (CLIUsage, String?) {
        let dir = try TempDir()
        defer { dir.remove() }
        let (pattern, script) = try Self.files(dir, count: count, kinds: kinds)
        var words = ["play"] + Array(repeating: pattern, count: voices) + ["--device", "sim", "--script", script, "--quiet"]
        if twoDevices { words += ["--haptic-device", "sim:ppm=50"] }
        if log { words += ["--log", dir.file("play.log")] }
        // A debug build under a loaded suite sends 200 000 lines in tens of seconds; a hang is for ever.
        let run = try CLI.runMeasured(words, hangLimit: 150)
        return (run, log ? try? String(contentsOfFile: dir.file("play.log"), encoding: .utf8) : nil)
    }

    @Test("70 000 lines of each kind at one instant end, and every command's report reaches the log",
          .timeLimit(.minutes(10)))
    func eachKind() throws {
        for (k, kind) in Self.kinds.enumerated() {
            let voices = kind.contains(" 2") ? 2 : 1
            let (run, log) = try play(lines: 70_000, kinds: [kind], voices: voices, twoDevices: k % 2 == 1, log: k % 3 == 0)
            #expect(!run.killed && run.result.status == 0, "\(kind): \(run.result)")
            if let log { #expect(!log.contains("eventsLost"), "\(kind): the log lost reports") }
        }
    }

    @Test("10 000 starts at one instant at a limit of one voice take effect within a few periods, the stolen ones silent, and the log replays to the recording byte for byte",
          .timeLimit(.minutes(5)))
    func burstOfSteals() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (pattern, script) = try Self.files(dir, count: 10_000, kinds: ["start 1", "start 2"])
        let run = try CLI.runMeasured(["play", pattern, pattern, "--voices", "1", "--device", "sim:record=\(dir.file("r.wav"))",
                                       "--script", script, "--log", dir.file("l.jsonl"), "--quiet"], hangLimit: 150)
        #expect(!run.killed && run.result.status == 0, "\(run.result)")
        // Engine time from the first start's effective frame to the last's. Each start used to
        // wait for the voice it stole to fade out and leave: one device period each, 75 s in all.
        let plays = try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8).split(separator: "\n")
            .filter { $0.contains(#""name": "play""#) }
            .compactMap { line in line.range(of: #""effectiveFrame": "#).map { Int(line[$0.upperBound...].prefix { $0.isNumber })! } }
        #expect(plays.count == 10_000)
        let span = Double((plays.last ?? 0) - (plays.first ?? 0)) / 48
        print("note: 10 000 starts at one instant at a limit of one voice: \(span) ms of engine time (debug build)")
        #expect(span < 3_000, "\(span) ms of engine time")
        let replay = try CLI.run(["render", "--replay", dir.file("l.jsonl"), "-o", dir.file("p.wav"), "--quiet"])
        #expect(replay.status == 0, "\(replay)")
        let recorded = try Data(contentsOf: URL(fileURLWithPath: dir.file("r.wav")))
        #expect(recorded == (try Data(contentsOf: URL(fileURLWithPath: dir.file("p.wav")))), "the files are identical, byte for byte")
    }

    @Test("200 000 lines of every kind at one instant end, idle and with a core kept busy, on one and two devices",
          .timeLimit(.minutes(10)))
    func everyKindMixed() throws {
        let idle = try play(lines: 200_000, kinds: Self.kinds, voices: 2, twoDevices: true, log: true)
        #expect(!idle.0.killed && idle.0.result.status == 0, "idle: \(idle.0.result)")
        #expect(idle.1.map { !$0.contains("eventsLost") } == true, "the log lost reports")
        let loaded = try Self.underLoad { try play(lines: 200_000, kinds: Self.kinds, voices: 2, twoDevices: false, log: false) }
        #expect(!loaded.0.killed && loaded.0.result.status == 0, "under load: \(loaded.0.result)")
        let seeks = try Self.underLoad { try play(lines: 70_000, kinds: ["seek 0"], voices: 1, twoDevices: false, log: true) }
        #expect(!seeks.0.killed && seeks.0.result.status == 0, "seeks under load: \(seeks.0.result)")
    }
}
