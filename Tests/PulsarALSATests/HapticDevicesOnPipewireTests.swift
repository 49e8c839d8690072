import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Haptic hardware on PipeWire: a 4-channel null sink named like a DualSense, and two sinks for
/// sound and touch captured together. Each test runs its own server: sinks made in the shared one
/// can become its default (a non-driving one never runs), which would stall every later test
/// that plays on `pipewire`. Part of the serialized ALSA suite.
extension ALSADeviceTests {
    @Test("A 4-channel sink named like the controller, --layout quad: channels 1–2 the audio, 3–4 the haptics, each the offline render after one offset",
          .enabled(if: ALSADeviceTests.corpusBundleAvailable, "needs ../shared/corpus"))
    func quadOnAControllerSink() throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let sink = "dualsense-test", positions = ["FL", "FR", "RL", "RR"]
        try server.createSink(sink, description: "DualSense Wireless Controller", positions: positions)
        let bundle = try Self.corpusBundle
        try Self.retryingDisturbedRuns("quad on the controller's sink") {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-quad-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let capture = dir.appendingPathComponent("c.wav"), render = dir.appendingPathComponent("r.wav"), log = dir.appendingPathComponent("l.jsonl")
            let recorder = try server.startRecording(to: capture, target: sink, positions: positions)
            server.waitForRunningNode(of: "pw-record")
            let profile = dir.appendingPathComponent("profile.log"), profiler = try server.startProfile(to: profile)
            let play = try Self.run(binary, ["play", bundle, "--preset", "verified", "--device", server.alsaName(node: sink), "--layout", "quad",
                                             "--period", "256", "--log", log.path, "--quiet"])
            usleep(300_000)
            server.finishRecording(recorder)
            let graph = server.finishProfile(profiler, file: profile)
            guard play.status == 0 else { return (["pulsar play exited \(play.status): \(play.stderr)"], false) }
            let offline = try Self.run(binary, ["render", bundle, "--preset", "verified", "--layout", "quad", "-o", render.path, "--quiet"])
            guard offline.status == 0 else { return (["pulsar render exited \(offline.status): \(offline.stderr)"], false) }
            let (playerHeldUp, note) = try Self.disturbance(log: log)
            let captured = try FloatWAV(contentsOf: capture), expected = try FloatWAV(contentsOf: render)
            guard captured.channels == 4, expected.channels == 4 else { return (["channels \(captured.channels), \(expected.channels)"], false) }
            let problems = Self.matches(expected.samples, captured.samples, channels: 4)
            print("measured: quad on a 4-channel sink: \(problems.isEmpty ? "every frame of the render captured, after one offset" : problems.joined(separator: "; ")); \(note); \(graph.summary)")
            if problems.isEmpty { try? FileManager.default.removeItem(at: dir) }
            // Held up: the player's log shows it, or the server saw a cycle whose driver woke
            // late or whose clients (the plugin's stream, the recorder) were not done in time.
            return (problems + (problems.isEmpty ? [] : ["files kept in \(dir.path)"]), playerHeldUp || graph.disturbed)
        }
    }

    /// Whether `captured` holds `expected` frame for frame after one offset (the capture's first
    /// sound against the render's), within a 16-bit step; what is wrong otherwise.
    static func matches(_ expected: [Float], _ captured: [Float], channels: Int) -> [String] {
        guard let e0 = expected.firstIndex(where: { abs($0) > 1e-4 }).map({ $0 / channels }),
              let c0 = captured.firstIndex(where: { abs($0) > 1e-4 }).map({ $0 / channels }) else { return ["no sound"] }
        let frames = expected.count / channels - e0
        guard captured.count / channels - c0 >= frames else { return ["the capture ends \(frames - (captured.count / channels - c0)) frames early"] }
        var wrong = 0, first: Int?
        for f in 0..<frames {
            for c in 0..<channels where abs(captured[(c0 + f) * channels + c] - expected[(e0 + f) * channels + c]) > 1.0 / 32768 {
                wrong += 1
                if first == nil { first = f }
                break
            }
        }
        return wrong == 0 ? [] : ["\(wrong) of \(frames) frames differ, the first at rendered frame \(e0 + first!)"]
    }

    /// Whether the machine held a logged play up (underruns on either device, or a gap of two
    /// periods between real-time steps), and the figures.
    static func disturbance(log: URL, period: Int = 256) throws -> (Bool, String) {
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let underruns = lines.filter { $0.contains("\"underrun\"") || $0.contains("\"hapticDeviceUnderrun\"") }.count
        let end = (try? JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any]) ?? [:]
        let gap = end["longestGapMs"] as? Double ?? 0
        return (underruns > 0 || gap >= Double(2 * period) / 48, "\(underruns) underruns, longest gap between steps \(gap) ms")
    }

    /// Clicks every 150 ms: transients only, silence between them.
    static let clicks: String = {
        let points = (0..<20).map { k in
            "{\"time\": \(100 + k * 150), \"amplitude\": \(0.6 + Double(k % 3) * 0.15), \"frequency\": \(0.3 + Double(k % 4) * 0.15)}"
        }
        return "{\"discretePattern\": [\(points.joined(separator: ", "))]}"
    }()

    /// The onsets of `channel` of `samples`, to the sample: per click (a sample above 0.05 with
    /// none in the 30 ms before), the first sample reaching half the click's peak. The level is
    /// relative, so a click the graph scaled on its way (a stereo stream mixed into a mono sink, a
    /// mono one spread over two channels) has its onset on the same sample as the unscaled one.
    static func onsets(_ samples: [Float], channels: Int, channel: Int) -> [Int] {
        let frames = samples.count / channels
        func at(_ f: Int) -> Float { abs(samples[f * channels + channel]) }
        var starts: [Int] = [], lastLoud = -1_000_000
        for f in 0..<frames where at(f) > 0.05 {
            if f - lastLoud > 1440 { starts.append(f) }
            lastLoud = f
        }
        return starts.map { start in
            let window = max(start - 48, 0)..<min(start + 480, frames)
            let peak = window.map(at).max() ?? 0
            return window.first { at($0) >= peak / 2 } ?? start
        }
    }

    /// The two-sink cases: the native stream at three quanta, each with the roles swapped, and
    /// PipeWire's ALSA plugin at the default quantum.
    static let twoSinkCases: [(native: Bool, quantum: Int, swapped: Bool)] =
        [64, 256, 1024].flatMap { q in [(true, q, false), (true, q, true)] } + [(false, 256, false)]

    @Test("Sound on one sink, touch on another, captured together: each of 20 clicks' onsets on the two within 0.1 ms (5 samples), from the first",
          arguments: twoSinkCases.indices)
    func twoSinksCapturedTogether(_ index: Int) throws {
        let (native, quantum, swapped) = Self.twoSinkCases[index]
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        // The two devices' sinks follow a third that takes both (speakers FL, FR; touch FC) and
        // drives the graph, captured as one stream: the graph runs them in one cycle, so their
        // samples line up in the capture. (Were one of the two the driver, its monitor would
        // reach the capture a cycle late: a quantum between the sinks that no stream played.)
        try server.createSink("speakers-test", positions: ["FL", "FR"], driver: false)
        try server.createSink("touch-test", positions: ["MONO"], driver: false)
        try server.createSink("both-test", positions: ["FL", "FR", "FC"])
        try server.link("speakers-test:monitor_FL", "both-test:playback_FL")
        try server.link("speakers-test:monitor_FR", "both-test:playback_FR")
        try server.link("touch-test:monitor_MONO", "both-test:playback_FC")
        try server.forceQuantum(quantum)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-two-sinks-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pattern = dir.appendingPathComponent("clicks.json")
        try Self.clicks.write(to: pattern, atomically: true, encoding: .utf8)
        // The main device plays on `main`, the haptic device on `touch`; swapped, the mono sink
        // takes the main device's pair (mixed down) and the stereo one the touch (spread).
        let (main, touch) = swapped ? ("touch-test", "speakers-test") : ("speakers-test", "touch-test")
        func device(_ node: String) -> String { native ? "pw:" + node : server.alsaName(node: node) }
        let what = "\(native ? "pw:" : "the ALSA plugin"), quantum \(quantum)\(swapped ? ", roles swapped" : "")"
        try Self.retryingDisturbedRuns("two sinks captured together (\(what))") {
            let capture = dir.appendingPathComponent("c.wav"), log = dir.appendingPathComponent("l.jsonl")
            let recorder = try server.startRecording(to: capture, target: "both-test", positions: ["FL", "FR", "FC"])
            server.waitForRunningNode(of: "pw-record")
            // The main device carries the clicks too (H on its pair, standing for the sound:
            // both are the one stream's samples), so its onsets and the touch's are the same events.
            let play = try Self.run(binary, ["play", pattern.path, "--layout", "H,H", "--device", device(main),
                                             "--haptic-device", device(touch), "--period", "\(quantum)", "--log", log.path, "--quiet"],
                                  server: server)
            usleep(300_000)
            server.finishRecording(recorder)
            guard play.status == 0 else { return (["pulsar play exited \(play.status): \(play.stderr)"], false) }
            let (disturbed, note) = try Self.disturbance(log: log, period: quantum)
            let captured = try FloatWAV(contentsOf: capture)
            let onMain = Self.onsets(captured.samples, channels: 3, channel: swapped ? 2 : 0)
            let onTouch = Self.onsets(captured.samples, channels: 3, channel: swapped ? 0 : 2)
            guard onMain.count == 20, onTouch.count == 20 else {
                let peaks = (0..<3).map { c in stride(from: c, to: captured.samples.count, by: 3).map { abs(captured.samples[$0]) }.max() ?? 0 }
                return (["\(onMain.count) onsets on the sound's sink, \(onTouch.count) on the touch's (20 clicks; capture peaks \(peaks), \(captured.samples.count / 3) frames); \(note)"], disturbed)
            }
            let lags = zip(onTouch, onMain).map { $0 - $1 }
            let worst = lags.map(abs).max()!
            print("measured: two sinks captured together (\(what)), touch minus sound onset per click: \(lags.map { String(format: "%+d", $0) }.joined(separator: " ")) samples; \(note)")
            return (worst <= 5 ? [] : ["a touch \(worst) samples (\(String(format: "%.3f", Double(worst) / 48)) ms) from its sound"], disturbed)
        }
        try? FileManager.default.removeItem(at: dir)
    }
}
