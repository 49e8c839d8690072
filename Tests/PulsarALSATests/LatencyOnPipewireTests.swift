import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar latency` on the private PipeWire session, captured from the sink's monitor: the
/// clock's figure and the capture's, click by click. Part of the serialized ALSA suite.
extension ALSADeviceTests {
    @Test("pulsar latency --device pw:test-sink --period 64 --capture pw:test-sink.monitor: p99 ≤ 3 ms and max ≤ 5 ms by the clock, the capture within 0.5 ms of it on every click")
    func latencyOnTheNativeStream() throws {
        try Self.latency(capture: "pw:test-sink.monitor", quantum64: true)
    }

    @Test("The same, captured through an ALSA capture device (PipeWire's ALSA plugin on the sink): the capture within 0.5 ms of the clock at the median, 5 ms on every click (the plugin's timestamps are taken when it is polled)")
    func latencyCapturedThroughALSA() throws {
        try Self.latency(capture: try PipeWireServer.shared().alsaName(node: "test-sink"), quantum64: false)
    }

    /// `pulsar latency` on pw:test-sink at period 64, captured by `capture`; with `quantum64`, the
    /// graph at that quantum and the clock's bounds checked too (an ALSA capture's plugin asks
    /// the graph for a larger one).
    static func latency(capture: String, quantum64: Bool) throws {
        let server = try PipeWireServer.shared()
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        try Self.retryingDisturbedRuns("latency on pw:test-sink, captured by \(capture)") {
            let run = try Self.run(try Self.pulsarBinary(), ["latency", "--device", "pw:test-sink", "--period", "64", "--seconds", "10",
                                                             "--capture", capture, "--json", json.path, "--quiet"], server: server)
            let object = (try? Data(contentsOf: json)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            guard run.status == 0, let object else { return (["exit \(run.status): \(run.stderr)"], false) }
            let clock = object["clockLatencyMs"] as? [String: Double] ?? [:], captured = object["captureLatencyMs"] as? [String: Double] ?? [:]
            let difference = object["captureMinusClockMs"] as? [String: Double] ?? [:]
            let count = object["count"] as? Int ?? 0, underruns = object["underruns"] as? Int ?? -1, heldUp = object["heldUp"] as? Int ?? -1
            let moves = object["clockTimelineMoves"] as? Int ?? -1
            print("measured: latency on pw:test-sink, captured by \(capture), quantum \(object["quantum"] ?? "?"): \(count) clicks, clock \(clock), capture \(captured), capture − clock \(difference), \(underruns) underruns, \(heldUp) calls held up, the time line moved \(moves)×")
            var problems: [String] = []
            if count < 30 { problems.append("\(count) clicks in 10 s") }
            if quantum64, object["quantum"] as? Int != 64 { problems.append("quantum \(object["quantum"] ?? "none"), not 64") }
            if quantum64, (clock["p99"] ?? .infinity) > 3 || (clock["max"] ?? .infinity) > 5 { problems.append("clock latency \(clock)") }
            if captured["count"] != clock["count"] { problems.append("\(captured["count"] ?? 0) clicks captured of \(clock["count"] ?? 0)") }
            let every = quantum64 ? 0.5 : 5.0
            if abs(difference["min"] ?? .infinity) > every || abs(difference["max"] ?? .infinity) > every || abs(difference["p50"] ?? .infinity) > 0.5 {
                problems.append("capture − clock \(difference)")
            }
            // Held up: a call the machine stalled (its latency includes the stall), an underrun,
            // or the server's cycles (the clock's time line moved: its figures are off until it
            // starts over).
            return (problems, underruns != 0 || heldUp != 0 || moves != 0)
        }
    }
}
