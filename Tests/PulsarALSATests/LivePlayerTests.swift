import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarALSA
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The player on ALSA `pipewire`: its clock against the device's own positions, a stopped
/// process (underrun and recovery), a killed server. Part of the serialized ALSA suite.
extension ALSADeviceTests {
    static func steadyMixer(seconds: Double) throws -> PresetMixer {
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: seconds * 1000, value: 0.3)]))
        var settings = MixSettings(layout: .mix)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings)
    }

    /// The clock asked at 1 kHz for 3 s; each answer against the device's position at that
    /// instant, interpolated between the two ALSA readings around it.
    /// A run with underruns is one the machine held up (the server stalled, the thread did not
    /// run): when every run is, the miss is reported as the machine's known intermittent issue,
    /// as the drift tests do; a clean run that misses a bound fails.
    @Test func clockFollowsTheDevicePositions() throws {
        try Self.retryingDisturbedRuns("clock vs ALSA positions") { try clockAgainstPositions() }
    }

    private func clockAgainstPositions() throws -> (problems: [String], disturbed: Bool) {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        let player = try HapticPlayer(mixer: try Self.steadyMixer(seconds: 5), device: ALSADevice(name: "pipewire"), realtime: true)
        var readings: [(frame: Double, time: Int64)] = []
        readings.reserveCapacity(10_000)
        player.onEvent = { event in
            if case let .position(frame, time) = event { readings.append((Double(frame), time.nanoseconds)) }
        }
        player.start()
        player.play()
        defer { player.shutdown() }
        var queries: [(time: Int64, frame: Double)] = []
        let start = player.now()
        var next = start.adding(seconds: 0.5)  // half a second to lock
        while player.now().seconds(since: start) < 3.5 {
            var deadline = timespec(tv_sec: Int(next.nanoseconds / 1_000_000_000), tv_nsec: Int(next.nanoseconds % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            player.poll()
            let now = player.now()
            if let f = player.streamFrame(at: now) { queries.append((now.nanoseconds, f)) }
            next = next.adding(seconds: 0.001)
        }
        player.shutdown()
        player.poll()
        var problems: [String] = []
        if player.underruns > 0 { problems.append("\(player.underruns) underruns") }
        var errors: [Double] = []
        var k = 0
        for q in queries {
            while k + 1 < readings.count, readings[k + 1].time <= q.time { k += 1 }
            guard k + 1 < readings.count, readings[k].time <= q.time else { continue }
            let a = readings[k], b = readings[k + 1]
            guard b.frame > a.frame else { continue }  // the device stood still: no line to compare to
            let truth = a.frame + (b.frame - a.frame) * Double(q.time - a.time) / Double(b.time - a.time)
            errors.append(abs(q.frame - truth) / 48)  // ms
        }
        errors.sort()
        // The readings themselves more than 2 ms off their own line (a quiet run: within 0.06 ms;
        // a step of one 5.3 ms graph quantum shows as 2.7–5.3 ms): the server moved the stream's
        // position under the player (measured on this machine when it is busy), and no clock can
        // follow both sides of such a step. A run like that is held up, as one with underruns is.
        let window = readings.filter { r in queries.first.map { r.time >= $0.time } ?? false && queries.last.map { r.time <= $0.time } ?? false }
        let step = Self.readingsStep(window)
        let disturbed = player.underruns > 0 || step > 0.002
        print("measured: clock vs ALSA positions: the readings lie within \(step * 1000) ms of their own line")
        guard errors.count > 2000 else { return (problems + ["only \(errors.count) comparable queries"], disturbed) }
        let p99 = errors[errors.count * 99 / 100], worst = errors.last!
        print("measured: clock vs ALSA positions, \(errors.count) queries at 1 kHz: p50 \(errors[errors.count / 2] * 1000) µs, p99 \(p99 * 1000) µs, max \(worst * 1000) µs")
        // The truth here is itself a line between two raw readings, and on a virtual machine the
        // readings' own timestamps scatter by milliseconds (the same code measured p99 from 0.12
        // to 2.5 ms between runs on an idle machine). The bounds hold the clock to what a player
        // needs — well inside one 60 Hz frame (16.7 ms) and the 5 ms at which touch and sound are
        // first felt apart — without timing the machine's scheduler.
        let p50 = errors[errors.count / 2]
        if p50 > 1 { problems.append("p50 \(p50) ms > 1 ms") }
        if p99 > 3 { problems.append("p99 \(p99) ms > 3 ms") }
        return (problems, disturbed)
    }

    /// The largest distance, seconds, of a reading from the least-squares line through all of
    /// them (frames against time): 0 for readings on one line.
    static func readingsStep(_ readings: [(frame: Double, time: Int64)]) -> Double {
        guard readings.count > 2, let t0 = readings.first?.time else { return 0 }
        let xs = readings.map { Double($0.time - t0) / 1e9 }, ys = readings.map(\.frame)
        let n = Double(xs.count), mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
        let sxx = zip(xs, xs).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - mx) }, sxy = zip(xs, ys).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
        guard sxx > 0 else { return 0 }
        let slope = sxy / sxx
        guard slope > 0 else { return 0 }
        return zip(xs, ys).map { abs(($0.1 - my - slope * ($0.0 - mx)) / slope) }.max() ?? 0
    }

    /// `pulsar play` stopped with SIGSTOP for 300 ms: the device runs dry, the player recovers and
    /// plays on, the log records the gap, and the clock log never runs backwards.
    @Test
    func stoppedProcessRecovers() throws {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-sigstop-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pattern = dir.appendingPathComponent("p.json")
        try #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.4}, {"time": 2500, "value": 0.4}]}}"#
            .write(to: pattern, atomically: true, encoding: .utf8)
        let log = dir.appendingPathComponent("l.jsonl"), clockLog = dir.appendingPathComponent("c.jsonl")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.pulsarBinary())
        p.arguments = ["play", pattern.path, "--device", "pipewire", "--period", "256", "--log", log.path, "--clock-log", clockLog.path, "--quiet"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Stopped while playing: once its stream runs in the graph.
        server.waitForRunningNode(of: "[pulsar]")
        kill(p.processIdentifier, SIGSTOP)
        usleep(300_000)
        kill(p.processIdentifier, SIGCONT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "played on after the stop")
        let logText = try String(contentsOf: log, encoding: .utf8)
        #expect(logText.contains("\"underrun\""), "the gap is in the event log")
        #expect(logText.contains("\"finished\": true"), "and the play still ran to its end")
        let contents = try String(contentsOf: clockLog, encoding: .utf8).split(separator: "\n")
            .compactMap { line -> Double? in
                guard let r = line.range(of: "\"contentMs\": ") else { return nil }
                return Double(line[r.upperBound...].prefix { "0123456789.-e".contains($0) })
            }
        #expect(contents.count > 60)
        let backwards = zip(contents, contents.dropFirst()).filter { $1 < $0 }.count
        #expect(backwards == 0, "the clock never runs backwards")
    }

    /// Its own server, killed while `pulsar play` plays on it: it stops with one line and exit 69.
    @Test
    func killedServerStopsThePlayer() throws {
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.pulsarBinary())
        let pattern = server.directory.appendingPathComponent("p.json")
        try #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.4}, {"time": 10000, "value": 0.4}]}}"#
            .write(to: pattern, atomically: true, encoding: .utf8)
        p.arguments = ["play", pattern.path, "--device", "pipewire", "--quiet"]
        p.environment = ProcessInfo.processInfo.environment.merging(server.environment) { _, session in session }
        let errors = Pipe()
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // Killed while playing: once its stream runs in the graph.
        server.waitForRunningNode(of: "[pulsar]")
        server.kill("pipewire")
        let killed = Date()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        // How soon depends on the machine's load: measured, not bounded. That it stopped at all
        // with exit 69 (the 10 s pattern would otherwise play on, and exit 0) is the check.
        print("measured: pulsar play stopped \(String(format: "%.3f", Date().timeIntervalSince(killed))) s after the server died")
        #expect(p.terminationStatus == 69, "exit 69: device unavailable")
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("device") == true, "one clear line: \(text)")
    }
}
