import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar latency` on the private PipeWire session, captured from the sink's monitor: the
/// clock's figure and the capture's, click by click. Part of the serialized ALSA suite.
extension ALSADeviceTests {
    @Test("pulsar latency --device pw:test-sink --period 64 --capture pw:test-sink.monitor: p99 ≤ 3 ms and max ≤ 5 ms by the clock, the capture within 0.5 ms of it on every click")
    func latencyOnTheNativeStream() throws {
        let server = try PipeWireServer.shared()
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        try Self.retryingDisturbedRuns("latency on pw:test-sink") {
            let run = try Self.run(try Self.pulsarBinary(), ["latency", "--device", "pw:test-sink", "--period", "64", "--seconds", "10",
                                                             "--capture", "pw:test-sink.monitor", "--json", json.path, "--quiet"], server: server)
            let object = (try? Data(contentsOf: json)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            guard run.status == 0, let object else { return (["exit \(run.status): \(run.stderr)"], false) }
            let clock = object["clockLatencyMs"] as? [String: Double] ?? [:], capture = object["captureLatencyMs"] as? [String: Double] ?? [:]
            let difference = object["captureMinusClockMs"] as? [String: Double] ?? [:]
            let count = object["count"] as? Int ?? 0, underruns = object["underruns"] as? Int ?? -1
            print("measured: latency on pw:test-sink, quantum \(object["quantum"] ?? "?"): \(count) clicks, clock \(clock), capture \(capture), capture − clock \(difference), \(underruns) underruns")
            var problems: [String] = []
            if count < 30 { problems.append("\(count) clicks in 10 s") }
            if object["quantum"] as? Int != 64 { problems.append("quantum \(object["quantum"] ?? "none"), not 64") }
            if (clock["p99"] ?? .infinity) > 3 || (clock["max"] ?? .infinity) > 5 { problems.append("clock latency \(clock)") }
            if capture["count"] != clock["count"] { problems.append("\(capture["count"] ?? 0) clicks captured of \(clock["count"] ?? 0)") }
            if abs(difference["min"] ?? .infinity) > 0.5 || abs(difference["max"] ?? .infinity) > 0.5 { problems.append("capture − clock \(difference)") }
            return (problems, underruns != 0)
        }
    }
}
