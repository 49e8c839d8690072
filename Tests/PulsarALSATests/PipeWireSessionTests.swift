import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The native stream as a user meets it through `pulsar`: what `auto` and `pulsar devices` say
/// with and without a server, a sink removed while it plays, the graph's quantum changed while
/// it plays. Part of the serialized device suite.
extension ALSADeviceTests {
    /// A pattern of `seconds`: a continuous swell and a transient every 90 ms, on both channels.
    static func swell(seconds: Int) -> String {
        let ms = seconds * 1000
        let transients = stride(from: 50, to: ms, by: 90).map { "{\"time\": \($0), \"amplitude\": 0.7, \"frequency\": 0.6}" }
        return """
        {"continuousPattern": {"amplitude": [{"time": 0, "value": 0.2}, {"time": \(ms / 2), "value": 0.5}, {"time": \(ms), "value": 0.3}],
          "frequency": [{"time": 0, "value": 0.1}, {"time": \(ms), "value": 0.8}]},
         "discretePattern": [\(transients.joined(separator: ", "))]}
        """
    }

    @Test("With a server, auto plays on PipeWire natively and says so (--verbose, the summary, pulsar devices); without one, pulsar devices says why not")
    func autoPrefersPipeWire() throws {
        let server = try PipeWireServer.shared()
        let binary = try Self.pulsarBinary()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-auto-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pattern = dir.appendingPathComponent("p.json")
        try Self.swell(seconds: 1).write(to: pattern, atomically: true, encoding: .utf8)
        let play = try Self.run(binary, ["play", pattern.path, "--verbose"], server: server)
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stderr.contains("auto: PipeWire's default sink, natively (pw:)"), "\(play.stderr)")
        #expect(play.stderr.contains("on PipeWire 'default sink' (quantum "), "\(play.stderr)")
        let listed = try Self.output(binary, ["devices"], server: server)
        #expect(listed.contains("pw:test-sink\n") && listed.contains("auto\n    here: PipeWire's default sink, natively (pw:)"), "\(listed)")
        var elsewhere = ProcessInfo.processInfo.environment
        elsewhere["PIPEWIRE_REMOTE"] = dir.appendingPathComponent("no-server").path
        let without = try Self.output(binary, ["devices"], environment: elsewhere)
        #expect(without.contains("here: ALSA 'default' (not PipeWire: no PipeWire server answers at \(dir.path)/no-server"), "\(without)")
        #expect(!without.contains("PipeWire sinks"))
    }

    /// Standard output of `binary arguments`, with `server`'s variables or `environment`.
    static func output(_ binary: String, _ arguments: [String], server: PipeWireServer? = nil, environment: [String: String]? = nil) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        if let server {
            var merged = ProcessInfo.processInfo.environment.merging(server.environment) { _, session in session }
            merged["PIPEWIRE_REMOTE"] = nil
            p.environment = merged
        } else if let environment {
            p.environment = environment
        }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text
    }

    @Test("A sink removed while pw:NODE plays on it: exit 69 and one line, soon")
    func nodeRemovedMidPlay() throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        try server.createSink("leaving-test", positions: ["FL", "FR"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-leaving-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pattern = dir.appendingPathComponent("p.json")
        try Self.swell(seconds: 8).write(to: pattern, atomically: true, encoding: .utf8)
        let started = Date()
        let remover = Thread {
            server.waitForRunningNode(of: "pulsar")
            usleep(500_000)
            try? server.destroy(node: "leaving-test")
        }
        remover.start()
        let play = try Self.run(binary, ["play", pattern.path, "--device", "pw:leaving-test", "--quiet"], server: server)
        let seconds = Date().timeIntervalSince(started)
        print("measured: pw: sink removed mid-play → exit \(play.status) after \(String(format: "%.1f", seconds)) s: \(play.stderr)")
        #expect(play.status == 69, "\(play.stderr)")
        #expect(play.stderr.hasPrefix("pulsar: error: device") && play.stderr.split(separator: "\n").count == 1, "\(play.stderr)")
        #expect(seconds < 6, "the play went on after its sink left")
    }
}

extension ALSADeviceTests {
    /// The quanta a play goes through, 0.8 s apart, from its start at 256.
    static let quantumChanges = [1024, 64, 512]

    @Test("The graph's quantum changed three times while pw: plays (256 → 1024 → 64 → 512): no underrun, and the capture equals the replay but where the graph itself drops frames at a change — no more than pw-play loses in the same session")
    func quantumChangedMidPlay() throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-quanta-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pattern = dir.appendingPathComponent("p.json"), log = dir.appendingPathComponent("l.jsonl"), replayed = dir.appendingPathComponent("r.wav")
        try Self.swell(seconds: 4).write(to: pattern, atomically: true, encoding: .utf8)
        try Self.retryingDisturbedRuns("quantum changed mid-play") {
            let play = try Self.capturedThroughQuantumChanges(server, into: dir, application: "pulsar") {
                try Self.run(binary, ["play", pattern.path, "--layout", "mix", "--device", "pw:test-sink", "--period", "256", "--log", log.path,
                                      "--quiet"], server: server)
            }
            guard play.status == 0 else { return (["pulsar play exited \(play.status): \(play.stderr)"], false) }
            let replay = try Self.run(binary, ["render", "--replay", log.path, "-o", replayed.path, "--quiet"])
            guard replay.status == 0 else { return (["pulsar render --replay exited \(replay.status): \(replay.stderr)"], false) }
            let ours = Self.witnessed(expected: try FloatWAV(contentsOf: replayed).samples, captures: play.captures)
            // The reference: pw-play of the replay itself, through the same changes.
            let reference = try Self.capturedThroughQuantumChanges(server, into: dir, application: "pw-play") {
                try Self.run("/usr/bin/env", ["pw-play", "--target", "test-sink", replayed.path], server: server)
            }
            let theirs = Self.witnessed(expected: try FloatWAV(contentsOf: replayed).samples, captures: reference.captures)
            let underruns = try String(contentsOf: log, encoding: .utf8).components(separatedBy: "\"underrun\"").count - 1
            print("measured: quantum changed mid-play (256 → 1024 → 64 → 512): \(underruns) underruns; blocks of 256 frames in no capture: pw: \(ours.missing.count) of \(ours.blocks) (at \(ours.missing)), pw-play \(theirs.missing.count) (at \(theirs.missing))")
            var problems = underruns > 0 ? ["\(underruns) underruns"] : []
            // The graph drops at most a cycle of the old quantum and one of the new at a change
            // (pw-play loses as much), each reaching into one more block of the comparison.
            let quanta = [256] + Self.quantumChanges
            let bound = zip(quanta, quanta.dropFirst()).map { ($0 + $1 + Self.block - 1) / Self.block + 1 }.reduce(0, +)
            if ours.missing.count > max(bound, theirs.missing.count) { problems.append("\(ours.missing.count) blocks missing (pw-play: \(theirs.missing.count), bound \(bound))") }
            return (problems + ours.notes, false)
        }
        try? FileManager.default.removeItem(at: dir)
    }

    /// Starts two recorders of test-sink at a 256-frame quantum, runs `player` while the quantum
    /// goes through `quantumChanges` 0.8 s apart from when `application` plays; its result and the
    /// two captures.
    static func capturedThroughQuantumChanges(_ server: PipeWireServer, into dir: URL, application: String,
                                              _ player: () throws -> (status: Int32, stderr: String)) throws
        -> (status: Int32, stderr: String, captures: [[Float]]) {
        try server.forceQuantum(256)
        let files = [dir.appendingPathComponent("c1.wav"), dir.appendingPathComponent("c2.wav")]
        let recorders = try files.map { try server.startRecording(to: $0) }
        server.waitForRunningNode(of: "pw-record", count: 2)
        let changer = Thread {
            server.waitForRunningNode(of: application)
            for quantum in Self.quantumChanges {
                usleep(800_000)
                try? server.forceQuantum(quantum)
            }
        }
        changer.start()
        let result = try player()
        usleep(300_000)
        recorders.forEach(server.finishRecording)
        return (result.status, result.stderr, try files.map { try FloatWAV(contentsOf: $0).samples })
    }
}
