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

    @Test("pulsar drift --device pipewire --seconds 20: |ppm| ≤ 5 on the null sink, the clock's p99 against the readings ≤ 0.25 ms")
    func driftOnTheNullSink() throws {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        let (status, errors, json) = try Self.drift(["--device", "pipewire", "--seconds", "20"])
        #expect(status == 0, "exit \(status): \(errors)")
        let ppm = try #require(Self.number(json, "ppm"), "no ppm in \(json ?? [:])")
        #expect(abs(ppm) <= 5, "measured \(ppm) ppm")
        let p99 = try #require(Self.percentile(json, "clockErrorUs", "p99"))
        #expect(p99 <= 250, "clock error p99 \(p99) µs")
        #expect(json?["complete"] as? Bool == true)
        #expect((json?["seconds"] as? Double ?? 0) > 19)
        #expect(Self.number(json, "underruns") == 0)
        print("measured: pipewire null sink \(String(format: "%+.3f", ppm)) ppm, jitter p99 \(Self.percentile(json, "jitterUs", "p99") ?? -1) µs, clock p99 \(p99) µs against the readings, lock-in \(json?["lockInSeconds"] ?? "none")")
    }

    @Test("Two null sinks of two PipeWire sessions in one run: their ratio within ±5 ppm")
    func driftTwoSinks() throws {
        let shared = try PipeWireServer.shared()
        shared.exportEnvironment()
        let second = try PipeWireServer.start()
        defer { second.stop() }
        let (status, errors, json) = try Self.drift(["--device", "pipewire", "--device", second.alsaName, "--seconds", "15"])
        #expect(status == 0, "exit \(status): \(errors)")
        let devices = try #require(json?["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        let ratio = try #require(Self.number(json, "ratioPpm"), "no ratioPpm in \(json ?? [:])")
        #expect(abs(ratio) <= 5, "ratio \(ratio) ppm")
        for device in devices { #expect(abs(Self.number(device, "ppm") ?? 99) <= 5) }
    }

    @Test("The session killed during pulsar drift: exit 69, one line naming the device, a partial result with \"complete\": false")
    func driftDeviceVanishes() throws {
        _ = try PipeWireServer.shared()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let (status, errors, json) = try Self.drift(["--device", server.alsaName, "--seconds", "30"]) { _ in
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
    }
}
