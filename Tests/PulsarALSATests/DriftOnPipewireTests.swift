import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pulsar drift` on the private PipeWire session: its timer-driven null sink follows the system
/// clock, so what the command measures there has a known answer (0 ppm). Part of the serialized
/// ALSA suite.
extension ALSADeviceTests {
    /// Runs `pulsar drift` with `arguments` plus `--json` into a fresh file; the status, standard
    /// error and the JSON object (nil when none was written).
    static func drift(_ arguments: [String], during: ((pid_t) -> Void)? = nil) throws
        -> (status: Int32, stderr: String, json: [String: Any]?) {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try pulsarBinary())
        p.arguments = ["drift"] + arguments + ["--json", json.path, "--quiet"]
        let errors = Pipe()
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        during?(p.processIdentifier)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let object = (try? Data(contentsOf: json)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return (p.terminationStatus, text, object)
    }

    static func number(_ object: [String: Any]?, _ key: String) -> Double? { object?[key] as? Double }
    static func percentile(_ object: [String: Any]?, _ key: String, _ which: String) -> Double? {
        (object?[key] as? [String: Any])?[which] as? Double
    }

    /// What a drift run says about the machine beside its figures, for the retry notes.
    static func disturbance(_ object: [String: Any]?) -> String {
        let keys = ["lateWakeups", "underruns", "slips"]
        return keys.map { "\($0) \(Int(number(object, $0) ?? -1))" }.joined(separator: ", ")
    }

    /// Whether the machine held the run up: the real-time thread woke late, the device ran dry,
    /// or the server stalled. The bounds below assume a null sink that follows the system clock,
    /// which a held-up run does not show.
    static func disturbed(_ object: [String: Any]?) -> Bool {
        ["lateWakeups", "underruns", "slips"].contains { (number(object, $0) ?? 1) > 0 }
    }

    /// Up to three runs; the first without problems passes. When every run had problems and every
    /// one was held up by the machine (this is a shared virtual machine: in some stretches its
    /// real-time threads wake late dozens of times a second), the problems are a known,
    /// intermittent issue of the machine, reported as such; a run that was not held up and
    /// still missed a bound is a failure.
    static func retryingDisturbedRuns(_ what: String, _ attempt: () throws -> (problems: [String], disturbed: Bool)) rethrows {
        var last: [String] = [], everyRunDisturbed = true
        for round in 1...3 {
            let (problems, disturbed) = try attempt()
            if problems.isEmpty { return }
            everyRunDisturbed = everyRunDisturbed && disturbed
            last = problems
            print("note: \(what), attempt \(round)\(disturbed ? " (held up by the machine)" : ""): \(problems.joined(separator: "; "))")
        }
        guard everyRunDisturbed else {
            for problem in last { Issue.record("\(what): \(problem)") }
            return
        }
        withKnownIssue("every run was held up by the machine (late wake-ups, underruns or slips)", isIntermittent: true) {
            for problem in last { Issue.record("\(what): \(problem)") }
        }
    }

    @Test("pulsar drift --device pipewire --seconds 20: |ppm| ≤ 5 on the null sink, the clock's p99 against the readings ≤ 0.25 ms")
    func driftOnTheNullSink() throws {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        // A run the machine held up (late wake-ups, a stalled server) is tried again, as the
        // suite's other real-time measurements are.
        try Self.retryingDisturbedRuns("drift on the null sink") {
            let (status, errors, json) = try Self.drift(["--device", "pipewire", "--seconds", "20"])
            guard status == 0, let ppm = Self.number(json, "ppm"), let p99 = Self.percentile(json, "clockErrorUs", "p99") else {
                return (["exit \(status), \(errors), \(json ?? [:])"], false)
            }
            print("measured: pipewire null sink \(String(format: "%+.3f", ppm)) ppm, jitter p99 \(Self.percentile(json, "jitterUs", "p99") ?? -1) µs, clock p99 \(p99) µs against the readings, lock-in \(json?["lockInSeconds"] ?? "none"); \(Self.disturbance(json))")
            var problems: [String] = []
            if abs(ppm) > 5 { problems.append("measured \(ppm) ppm (\(Self.disturbance(json)))") }
            if p99 > 250 { problems.append("clock error p99 \(p99) µs (\(Self.disturbance(json)))") }
            if json?["complete"] as? Bool != true { problems.append("not complete") }
            if (Self.number(json, "seconds") ?? 0) < 19 { problems.append("only \(Self.number(json, "seconds") ?? 0) s measured") }
            return (problems, Self.disturbed(json))
        }
    }

    @Test("pulsar drift --device pw:test-sink --seconds 10: the native stream's readings come once a cycle, the clock locks in within 1 s and stays within one sample of them")
    func driftOnTheNativeStream() throws {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        try Self.retryingDisturbedRuns("drift on the native stream") {
            let (status, errors, json) = try Self.drift(["--device", "pw:test-sink", "--seconds", "10"])
            guard status == 0, let ppm = Self.number(json, "ppm"), let p99 = Self.percentile(json, "clockErrorSamples", "p99") else {
                return (["exit \(status), \(errors), \(json ?? [:])"], false)
            }
            let lockIn = Self.number(json, "lockInSeconds"), granularity = Self.number(json, "granularityFrames") ?? 0
            print("measured: pw:test-sink \(String(format: "%+.3f", ppm)) ppm, granularity \(granularity) frames, clock p99 \(p99) samples against the readings, lock-in \(lockIn.map { "\($0) s" } ?? "none"); \(Self.disturbance(json))")
            var problems: [String] = []
            if abs(ppm) > 5 { problems.append("measured \(ppm) ppm") }
            if p99 > 1 { problems.append("clock error p99 \(p99) samples") }
            if !((lockIn ?? 99) <= 1) { problems.append("lock-in \(lockIn.map { "\($0) s" } ?? "never")") }
            // One reading a graph cycle: positions move by whole quanta (128 frames asked).
            if granularity < 64 { problems.append("granularity \(granularity) frames: not a cycle's readings") }
            return (problems, Self.disturbed(json))
        }
    }

    @Test("Two null sinks of two PipeWire sessions in one run: their ratio within ±5 ppm")
    func driftTwoSinks() throws {
        let shared = try PipeWireServer.shared()
        shared.exportEnvironment()
        let second = try PipeWireServer.start()
        defer { second.stop() }
        try Self.retryingDisturbedRuns("drift on two null sinks") {
            let (status, errors, json) = try Self.drift(["--device", "pipewire", "--device", second.alsaName, "--seconds", "15"])
            guard status == 0, let devices = json?["devices"] as? [[String: Any]], devices.count == 2,
                  let ratio = Self.number(json, "ratioPpm") else {
                return (["exit \(status), \(errors), \(json ?? [:])"], false)
            }
            print("measured: two null sinks, ratio \(String(format: "%+.3f", ratio)) ppm; \(devices.map(Self.disturbance).joined(separator: " / "))")
            let problems = abs(ratio) <= 5 ? [] : ["ratio \(ratio) ppm (\(devices.map(Self.disturbance).joined(separator: " / ")))"]
            return (problems, devices.contains(where: Self.disturbed))
        }
    }

    @Test("The session killed during pulsar drift: exit 69, one line naming the device, a partial result with \"complete\": false")
    func driftDeviceVanishes() throws {
        _ = try PipeWireServer.shared()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let plot = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: plot) }
        let (status, errors, json) = try Self.drift(["--device", server.alsaName, "--seconds", "30", "--plot", plot]) { _ in
            // Once the device has played a while (the run reads positions from its start).
            usleep(3_000_000)
            server.kill("pipewire")
        }
        #expect(status == 69, "exit \(status): \(errors)")
        let lines = errors.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(errors)")
        #expect(errors.contains("device '") && errors.contains("disconnected"), "stderr: \(errors)")
        #expect(json?["complete"] as? Bool == false)
        let seconds = try #require(Self.number(json, "seconds"), "no partial figures in \(json ?? [:])")
        #expect(seconds > 1 && seconds < 30)
        #expect(Self.number(json, "ppm") != nil)
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plot)))
        #expect(ImageFiles.pngSize(png) != nil, "the partial run's plot is written too")
    }
}
