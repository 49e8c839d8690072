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
    /// 256-frame periods between real-time steps), and the figures.
    static func disturbance(log: URL) throws -> (Bool, String) {
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let underruns = lines.filter { $0.contains("\"underrun\"") || $0.contains("\"hapticDeviceUnderrun\"") }.count
        let end = (try? JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any]) ?? [:]
        let gap = end["longestGapMs"] as? Double ?? 0
        return (underruns > 0 || gap >= 10.7, "\(underruns) underruns, longest gap between steps \(gap) ms")
    }

    /// Clicks every 150 ms: transients only, silence between them.
    static let clicks: String = {
        let points = (0..<20).map { k in
            "{\"time\": \(100 + k * 150), \"amplitude\": \(0.6 + Double(k % 3) * 0.15), \"frequency\": \(0.3 + Double(k % 4) * 0.15)}"
        }
        return "{\"discretePattern\": [\(points.joined(separator: ", "))]}"
    }()

    /// The onsets of `channel` of `samples`: a sample above 0.05 with none in the 30 ms before.
    static func onsets(_ samples: [Float], channels: Int, channel: Int) -> [Int] {
        var result: [Int] = [], lastLoud = -1_000_000
        for f in 0..<(samples.count / channels) where abs(samples[f * channels + channel]) > 0.05 {
            if f - lastLoud > 1440 { result.append(f) }
            lastLoud = f
        }
        return result
    }

    @Test("Sound on one sink, touch on another, captured together: each click's onset on the two within 1 ms")
    func twoSinksCapturedTogether() throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        // The two devices' sinks, and a third taking both (speakers FL, FR; touch FC), captured
        // as one stream: the graph runs them in one cycle, so their samples line up in the capture.
        try server.createSink("speakers-test", positions: ["FL", "FR"], driver: false)
        try server.createSink("touch-test", positions: ["MONO"], driver: false)
        try server.createSink("both-test", positions: ["FL", "FR", "FC"])
        try server.link("speakers-test:monitor_FL", "both-test:playback_FL")
        try server.link("speakers-test:monitor_FR", "both-test:playback_FR")
        try server.link("touch-test:monitor_MONO", "both-test:playback_FC")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-two-sinks-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pattern = dir.appendingPathComponent("clicks.json")
        try Self.clicks.write(to: pattern, atomically: true, encoding: .utf8)
        // Measured on this machine (pipewire 0.3.65): the touch's stream most often plays one
        // quantum (256 frames, 5.33 ms) before the sound's from its first click, whichever sink
        // takes which, while both streams' position readings say they are together — so the
        // feed has nothing to correct. PipeWire's ALSA plugin reports the two streams' delays a
        // graph cycle apart; a run without that offset holds within a few µs. Recorded as a known
        // issue of the sound server until the plugin's positions can be trusted across streams.
        var quantumAhead = false
        try Self.retryingDisturbedRuns("two sinks captured together") {
            let capture = dir.appendingPathComponent("c.wav"), log = dir.appendingPathComponent("l.jsonl")
            let recorder = try server.startRecording(to: capture, target: "both-test", positions: ["FL", "FR", "FC"])
            server.waitForRunningNode(of: "pw-record")
            // The main device carries the clicks too (H on its pair, standing for the sound:
            // both are the one stream's samples), so its onsets and the touch's are the same events.
            let play = try Self.run(binary, ["play", pattern.path, "--layout", "H,H", "--device", server.alsaName(node: "speakers-test"),
                                             "--haptic-device", server.alsaName(node: "touch-test"), "--period", "256", "--log", log.path, "--quiet"])
            usleep(300_000)
            server.finishRecording(recorder)
            guard play.status == 0 else { return (["pulsar play exited \(play.status): \(play.stderr)"], false) }
            let (disturbed, note) = try Self.disturbance(log: log)
            let captured = try FloatWAV(contentsOf: capture)
            let sound = Self.onsets(captured.samples, channels: 3, channel: 0), touch = Self.onsets(captured.samples, channels: 3, channel: 2)
            guard sound.count == 20, touch.count == 20 else {
                let peaks = (0..<3).map { c in stride(from: c, to: captured.samples.count, by: 3).map { abs(captured.samples[$0]) }.max() ?? 0 }
                return (["\(sound.count) onsets on the sound's sink, \(touch.count) on the touch's (20 clicks; capture peaks \(peaks), \(captured.samples.count / 3) frames); \(note)"], disturbed)
            }
            let lags = zip(touch, sound).map { Double($0 - $1) / 48 }
            let worst = lags.map(abs).max()!
            print("measured: two sinks captured together, touch minus sound onset per click: \(lags.map { String(format: "%+.2f", $0) }.joined(separator: " ")) ms; \(note)")
            if worst > 1, lags.prefix(3).allSatisfy({ abs($0 + 256.0 / 48) < 0.05 }) {
                quantumAhead = true
                return ([], false)
            }
            return (worst <= 1 ? [] : ["a touch \(worst) ms from its sound"], disturbed)
        }
        if quantumAhead {
            withKnownIssue("PipeWire's ALSA plugin: the second stream plays a quantum ahead of what its positions say", isIntermittent: true) {
                Issue.record("the touch started 5.33 ms (one 256-frame quantum) before its sound")
            }
        }
        try? FileManager.default.removeItem(at: dir)
    }
}
