import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// `pulsar play --haptic-device`: sound on one device, touch on another, one clock. On two
/// simulated devices paced by the system clock the truth is each device's exact position, which
/// `--sync-log` writes beside each clock's answer; the recordings must be what `render --replay`
/// rebuilds for each device.
@Suite("pulsar play on two devices")
struct TwoDevicesCLITests {
    /// A 1.5 s swell with transients.
    static let pattern = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.2},{"time":700,"value":0.8},{"time":1500,"value":0.3}],"frequency":[{"time":0,"value":0.3},{"time":1500,"value":0.7}]},"discretePattern":[{"time":200,"amplitude":0.9,"frequency":0.5},{"time":900,"amplitude":0.7,"frequency":0.8}]}"#

    static func jsonLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    /// Haptic minus main true content time (ms) per sync-log tick, from 1 s after the first
    /// tick with both truths on, leaving out a second after any underrun of either device (the
    /// machine held the paced devices up; the feed then re-locks).
    static func skews(syncLog: String, log: String) throws -> [Double] {
        let underruns = try jsonLines(log).compactMap { line -> Double? in
            guard let kind = line["event"] as? String, kind == "underrun" || kind == "hapticDeviceUnderrun" else { return nil }
            return line["timeNs"] as? Double
        }
        var start: Double?
        var skews: [Double] = []
        for line in try jsonLines(syncLog) {
            let t = line["timeNs"] as! Double
            let devices = line["devices"] as! [[String: Any]]
            guard devices.count == 2, let a = devices[0]["trueContentMs"] as? Double, let b = devices[1]["trueContentMs"] as? Double else { continue }
            if start == nil { start = t }
            guard t - start! > 1e9, !underruns.contains(where: { t > $0 - 1e8 && t < $0 + 1e9 }) else { continue }
            skews.append(b - a)
        }
        return skews
    }

    @Test("The demo preset, audio on a +150 ppm device and touch on a −150 ppm one: within 0.25 ms after lock-in, each stream its replay",
          .enabled(if: SharedCorpus.available("bundles/demo.pulsar"), "needs ../shared/corpus"))
    func demoPreset() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = try SharedCorpus.path("bundles/demo.pulsar")
        let a = dir.file("a.wav"), h = dir.file("h.wav"), sync = dir.file("s.jsonl"), log = dir.file("l.jsonl")
        let r = try CLI.run(["play", bundle, "--preset", "verified", "--device", "sim:ppm=150,jitter=0.3,record=\(a)",
                             "--haptic-device", "sim:ppm=-150,jitter=0.3,record=\(h)", "--sync-log", sync, "--log", log])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("touch:"), "the summary names both devices: \(r.stderr)")
        let skews = try Self.skews(syncLog: sync, log: log)
        if skews.count < 30 {
            withKnownIssue("the machine held the paced devices up for most of the play") {
                Issue.record("only \(skews.count) undisturbed ticks")
            }
        } else {
            let worst = skews.map(abs).max()!
            print("two devices, demo preset: \(skews.count) ticks, |skew| max \(worst) ms")
            #expect(worst <= 0.25, "haptic minus main content time up to \(worst) ms")
        }
        let main = try AudioFileContents(contentsOf: a), touch = try AudioFileContents(contentsOf: h)
        #expect(main.channels == 2 && touch.channels == 1)
        #expect(touch.samples.contains { abs($0) > 0.1 }, "the touch plays on the haptic device")
        for (device, recording) in [("main", a), ("haptic", h)] {
            let replay = dir.file("r-\(device).wav")
            let rr = try CLI.run(["render", "--replay", log, "--replay-device", device, "-o", replay, "--quiet"])
            #expect(rr.status == 0, "\(rr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: replay)) == Data(contentsOf: URL(fileURLWithPath: recording)),
                    "the \(device) device's recording is its replay")
        }
    }

    @Test("A controller's quad layout on the haptic device: its pair silent, channels 3–4 the touch; the main device mixes haptics too; a script's seek and pause on both")
    func quadAndScript() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let script = try dir.write("at 300 seek 1000\nat 500 pause\nat 700 resume\nat 800 intensity 0.5 over 200\n", to: "s.txt")
        let a = dir.file("a.wav"), h = dir.file("h.wav"), log = dir.file("l.jsonl")
        var words: [String] = ["play", input, "--layout", "L+H,R+H", "--device", "sim:record=" + a]
        words += ["--haptic-device", "sim:ppm=200,record=" + h, "--haptic-layout", "quad", "--script", script, "--log", log, "--quiet"]
        let r = try CLI.run(words)
        #expect(r.status == 0, "\(r)")
        let touch = try AudioFileContents(contentsOf: h), main = try AudioFileContents(contentsOf: a)
        #expect(touch.channels == 4 && main.channels == 2)
        let t: [Float] = touch.samples
        let pair = stride(from: 0, to: t.count, by: 4).flatMap { [t[$0], t[$0 + 1]] }
        let left = stride(from: 2, to: t.count, by: 4).map { t[$0] }, right = stride(from: 3, to: t.count, by: 4).map { t[$0] }
        #expect(pair.allSatisfy { $0 == 0 }, "the controller's speakers are silent")
        #expect(left == right)
        #expect(left.contains { abs($0) > 0.3 })
        #expect(main.samples.contains { abs($0) > 0.3 }, "the main device's layout takes haptics too")
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logText.contains("\"name\": \"seek\"") && logText.contains("hapticDeviceSegment"))
        for (device, recording) in [("main", a), ("haptic", h)] {
            let replay = dir.file("r-\(device).wav")
            #expect(try CLI.run(["render", "--replay", log, "--replay-device", device, "-o", replay, "--quiet"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: replay)) == Data(contentsOf: URL(fileURLWithPath: recording)),
                    "the \(device) device's recording is its replay")
        }
    }

    @Test("Bad input: one device named twice, a haptic device with too few channels, either device unplugged mid-play — one line, the documented exit code, nothing written")
    func refused() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let a = dir.file("a.wav"), h = dir.file("h.wav"), log = dir.file("l.jsonl")
        let outputs = ["--log", log]
        let cases: [(args: [String], status: Int32, says: String)] = [
            (["--device", "sim", "--haptic-device", "sim"], 64, "two devices"),
            (["--device", "sim", "--haptic-device", "sim:channels=2", "--haptic-layout", "quad"], 69, "has 2 channels, layout quad needs 4"),
            (["--device", "sim:record=\(a)", "--haptic-device", "sim:unplug=300,record=\(h)"], 69, "the haptic device"),
            (["--device", "sim:unplug=300,record=\(a)", "--haptic-device", "sim:record=\(h)"], 69, "unplugged"),
            (["--device", "sim", "--latency", "main=5"], 64, "--latency needs --haptic-device"),
            (["--device", "sim", "--haptic-device", "sim:ppm=1", "--latency", "speaker=5"], 64, "neither main, haptic"),
            (["--device", "sim", "--haptic-device", "sim:ppm=1", "--haptic-layout", "L,R"], 64, "a haptic channel"),
        ]
        for c in cases {
            let r = try CLI.run(["play", input] + c.args + outputs + ["--quiet"])
            #expect(r.status == c.status && r.stderrLines.count == 1 && r.stderr.contains(c.says), "\(c.args): \(r)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["p.json"], "\(c.args): nothing written")
        }
        // A one-device log has no haptic device to replay.
        #expect(try CLI.run(["play", input, "--device", "sim", "--log", log, "--quiet"]).status == 0)
        let r = try CLI.run(["render", "--replay", log, "--replay-device", "haptic", "-o", dir.file("x.wav")])
        #expect(r.status == 65 && r.stderrLines.count == 1 && r.stderr.contains("no-haptic-device"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.wav")))
    }

    @Test("A hostile log: a haptic-device segment reading the stream hours past its end replays as silence, at once, instead of rendering up to it")
    func farCursor() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.pattern, to: "p.json")
        let log = dir.file("l.jsonl"), out = dir.file("h.wav")
        #expect(try CLI.run(["play", input, "--device", "sim", "--haptic-device", "sim:ppm=50", "--log", log, "--quiet"]).status == 0)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let far = lines.map { $0.contains("hapticDeviceSegment") ? $0.replacing(#/"cursorFrame": [0-9]+/#, with: "\"cursorFrame\": 10000000000") : $0 }
        #expect(far != lines)
        try (far.joined(separator: "\n") + "\n").write(toFile: log, atomically: true, encoding: .utf8)
        let r = try CLI.run(["render", "--replay", log, "--replay-device", "haptic", "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r)")
        #expect(try AudioFileContents(contentsOf: out).samples.allSatisfy { $0 == 0 }, "nothing of the stream lies there")
    }
}
