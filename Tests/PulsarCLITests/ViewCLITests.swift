import Foundation
import PulsarLottieRender
import PulsarTestSupport
import Testing

/// The demo bundle folder `ViewCLITests` builds, removed when the test process exits.
nonisolated(unsafe) private var builtDemoFolder: String?

/// `pulsar view` through SDL's offscreen video driver (no display needed): screenshots equal
/// `pulsar frame`, the pacing figures are written, and bad input fails in one line.
@Suite("View CLI", .serialized)
struct ViewCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The project's demo bundle, built from Resources/ by scripts/make-demo-bundle.sh with the
    /// pulsar under test (its audio is made at build time), once per test run.
    static let demoBundle: String = {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-view-demo-\(getpid())").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/make-demo-bundle.sh").path, out, (try? CLI.executable()) ?? BuiltProduct.path("pulsar")]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try? process.run()
        process.waitUntilExit()
        builtDemoFolder = out
        atexit { if let folder = builtDemoFolder { try? FileManager.default.removeItem(atPath: folder) } }
        return out + "/demo.pulsar"
    }()
    static let offscreen = ["SDL_VIDEODRIVER": "offscreen"]

    @Test("The viewer's screenshot of the demo bundle at 1 200 ms equals `pulsar frame` at 1 200 ms")
    func screenshotEqualsFrame() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        for at in ["1200", "0"] {
            let view = try CLI.run(["view", Self.demoBundle, "--preset", "heartbeat", "--device", "sim", "--screenshot",
                                    dir.file("view-\(at).png"), "--at", at], environment: Self.offscreen)
            #expect(view.status == 0, "\(view)")
            let frame = try CLI.run(["frame", Self.demoBundle, "--preset", "heartbeat", "--at", at, "-o", dir.file("frame-\(at).png")])
            #expect(frame.status == 0, "\(frame)")
        }
        let view = try PNGWriter.readRGBA(from: dir.file("view-1200.png"))
        let frame = try PNGWriter.readRGBA(from: dir.file("frame-1200.png"))
        #expect(view.width == frame.width && view.height == frame.height)
        #expect(view.rgba == frame.rgba, "pixel for pixel")
        #expect(view.rgba != (try PNGWriter.readRGBA(from: dir.file("view-0.png"))).rgba, "1 200 ms is another frame than 0 ms")
        #expect(try PNGWriter.readRGBA(from: dir.file("view-0.png")).rgba == (try PNGWriter.readRGBA(from: dir.file("frame-0.png"))).rgba)
    }

    @Test("The same on the corpus demo.pulsar preset verified, at a size and content mode of its own",
          .enabled(if: BundleCLITests.bundlesAvailable, "needs ../shared/corpus"))
    func corpusScreenshot() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = (try BundleCLITests.bundles) + "/demo.pulsar"
        let view = try CLI.run(["view", bundle, "--preset", "verified", "--device", "sim", "--size", "320x200", "--mode", "fill",
                                "--screenshot", dir.file("v.png"), "--at", "1200"], environment: Self.offscreen)
        #expect(view.status == 0, "\(view)")
        let frame = try CLI.run(["frame", bundle, "--preset", "verified", "--size", "320x200", "--mode", "fill", "--at", "1200",
                                 "-o", dir.file("f.png")])
        #expect(frame.status == 0, "\(frame)")
        let a = try PNGWriter.readRGBA(from: dir.file("v.png")), b = try PNGWriter.readRGBA(from: dir.file("f.png"))
        #expect(a.width == 320 && a.height == 200 && a.rgba == b.rgba)
        #expect(a.rgba.enumerated().contains { $0.offset % 4 == 3 && $0.element != 0 }, "something is drawn")
    }

    @Test("Every corpus animation: the viewer's screenshot at 250 ms equals `pulsar frame` at 250 ms",
          .enabled(if: BundleCLITests.bundlesAvailable, "needs ../shared/corpus"))
    func everyCorpusAnimation() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let folder = URL(fileURLWithPath: (try BundleCLITests.bundles)).deletingLastPathComponent().appendingPathComponent("lottie").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count >= 29)
        for name in names {
            let path = folder + "/" + name
            let view = try CLI.run(["view", path, "--device", "sim", "--size", "120x90", "--screenshot", dir.file("v.png"), "--at", "250"],
                                   environment: Self.offscreen)
            #expect(view.status == 0, "\(name): \(view)")
            let frame = try CLI.run(["frame", path, "--size", "120x90", "--at", "250", "-o", dir.file("f.png")])
            #expect(frame.status == 0, "\(name): \(frame)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("v.png"))) == Data(contentsOf: URL(fileURLWithPath: dir.file("f.png"))), "\(name)")
        }
    }

    @Test("A Lottie file on its own plays silent for its duration; its screenshot equals `pulsar frame` too")
    func lottieFile() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let json = Self.root.appendingPathComponent("Resources/demo-bundle/animation/pulse.json").path
        let view = try CLI.run(["view", json, "--device", "sim", "--size", "150x100", "--screenshot", dir.file("v.png"), "--at", "700"],
                               environment: Self.offscreen)
        #expect(view.status == 0, "\(view)")
        let frame = try CLI.run(["frame", json, "--size", "150x100", "--at", "700", "-o", dir.file("f.png")])
        #expect(frame.status == 0, "\(frame)")
        #expect(try PNGWriter.readRGBA(from: dir.file("v.png")).rgba == (try PNGWriter.readRGBA(from: dir.file("f.png"))).rgba)
    }

    @Test("A pattern without animation: its screenshot is the timeline, the playhead at the instant asked for")
    func patternCurves() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = Self.root.appendingPathComponent("Resources/patterns/demo.json").path
        for (at, fraction) in [("0", 0.0), ("1000", 1000.0 / 2400)] {
            let r = try CLI.run(["view", pattern, "--device", "sim", "--size", "400x200", "--screenshot", dir.file("c.png"), "--at", at],
                                environment: Self.offscreen)
            #expect(r.status == 0, "\(r)")
            let png = try PNGWriter.readRGBA(from: dir.file("c.png"))
            #expect(png.width == 400 && png.height == 200)
            #expect(stride(from: 3, to: png.rgba.count, by: 4).allSatisfy { png.rgba[$0] == 255 }, "opaque")
            // The playhead (214, 39, 40) 12 px in from the left at 0 ms, of the 376 px the lanes span.
            let red = Set((0..<(400 * 200)).filter { png.rgba[$0 * 4] == 214 && png.rgba[$0 * 4 + 1] == 39 && png.rgba[$0 * 4 + 2] == 40 }
                .map { $0 % 400 })
            let duration = try Self.durationMs(pattern)
            let expected = 12 + (fraction == 0 ? 0 : 1000 / duration) * 376
            #expect(!red.isEmpty && red.allSatisfy { abs(Double($0) - expected) <= 2 }, "\(at) ms: \(red.sorted()), expected \(expected)")
        }
    }

    /// The length `pulsar info` reports a pattern file renders to (its last transient's tail
    /// included), in ms: the content a viewer plays.
    static func durationMs(_ pattern: String) throws -> Double {
        let info = try CLI.run(["info", pattern, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        return try #require(json?["renderedMs"] as? Double)
    }

    @Test("The default window scales the 128 px demo to 480 px; its picture equals `pulsar frame` at that size, the status bar under it")
    func screenshotWindow() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let view = try CLI.run(["view", Self.demoBundle, "--preset", "heartbeat", "--device", "sim", "--screenshot-window", dir.file("w.png"),
                                "--screenshot", dir.file("a.png"), "--at", "1200"], environment: Self.offscreen)
        #expect(view.status == 0, "\(view)")
        let window = try PNGWriter.readRGBA(from: dir.file("w.png"))
        #expect(min(window.width, window.height) >= 480, "\(window.width)×\(window.height)")
        #expect(window.width == 480 && window.height > 480 + 100, "the status bar and the timeline under a 480 × 480 picture")
        let frame = try CLI.run(["frame", Self.demoBundle, "--preset", "heartbeat", "--at", "1200", "--size", "480x480", "-o", dir.file("f.png")])
        #expect(frame.status == 0, "\(frame)")
        let f = try PNGWriter.readRGBA(from: dir.file("f.png"))
        // The frame (straight alpha) over the viewer's background (242, 242, 242), against the
        // window's first 480 rows.
        var total = 0.0
        for i in 0..<(480 * 480) {
            let a = Double(f.rgba[i * 4 + 3]) / 255
            for c in 0..<3 {
                let expected = Double(f.rgba[i * 4 + c]) * a + 242 * (1 - a)
                total += abs(expected - Double(window.rgba[i * 4 + c]))
            }
        }
        let mean = total / Double(480 * 480 * 3) / 255
        #expect(mean < 1.0 / 255, "mean difference \(mean * 255) / 255")
        // Under the picture, rows that are not the background: the status bar's text, the lanes.
        let drawn = (480..<window.height).filter { y in (0..<480).contains { x in window.rgba[(y * 480 + x) * 4] != 242 } }
        #expect(drawn.count > 100)
        // --screenshot beside it still writes the animation alone at its own size, as `pulsar frame`.
        #expect(try CLI.run(["frame", Self.demoBundle, "--preset", "heartbeat", "--at", "1200", "-o", dir.file("f0.png")]).status == 0)
        let alone = try PNGWriter.readRGBA(from: dir.file("a.png")), own = try PNGWriter.readRGBA(from: dir.file("f0.png"))
        #expect(alone.width < 480 && alone.width == own.width && alone.rgba == own.rgba)
    }

    @Test("--exit-after and --frame-stats: the window runs, presents frames at 60 Hz and writes the figures")
    func frameStats() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["view", Self.demoBundle, "--preset", "heartbeat", "--device", "sim", "--size", "96x96",
                             "--exit-after", "1", "--frame-stats", dir.file("s.json")], environment: Self.offscreen)
        #expect(r.status == 0, "\(r)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("s.json")))) as? [String: Any]
        let stats = try #require(json)
        #expect(stats["refreshHz"] as? Double == 60)
        let slots = try #require(stats["slots"] as? Int), presented = try #require(stats["presented"] as? Int)
        #expect(slots == 60, "one second of 60 Hz slots")
        #expect(presented > 0 && presented + (stats["missed"] as? Int ?? -1) == slots)
        #expect(r.stderrLines.last?.hasPrefix("viewed \(presented) frames at 60 Hz") == true, "\(r)")
    }

    @Test("Two devices: the touch on a second (simulated, −150 ppm) device; the picture still comes from the main device's clock, and the window runs")
    func twoDevices() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let view = try CLI.run(["view", Self.demoBundle, "--preset", "heartbeat", "--device", "sim:ppm=150", "--haptic-device", "sim:ppm=-150",
                                "--latency", "main=3,haptic=5", "--screenshot", dir.file("v.png"), "--at", "1200"], environment: Self.offscreen)
        #expect(view.status == 0, "\(view)")
        #expect(try CLI.run(["frame", Self.demoBundle, "--preset", "heartbeat", "--at", "1200", "-o", dir.file("f.png")]).status == 0)
        #expect(try PNGWriter.readRGBA(from: dir.file("v.png")).rgba == (try PNGWriter.readRGBA(from: dir.file("f.png"))).rgba)
        let run = try CLI.run(["view", Self.demoBundle, "--preset", "heartbeat", "--device", "sim", "--haptic-device", "sim:ppm=200",
                               "--haptic-layout", "quad", "--size", "96x96", "--exit-after", "1"], environment: Self.offscreen)
        #expect(run.status == 0, "\(run)")
        let same = try CLI.run(["view", Self.demoBundle, "--device", "sim", "--haptic-device", "sim", "--exit-after", "1"], environment: Self.offscreen)
        #expect(same.status == 64 && same.stderrLines.count == 1, "\(same)")
    }

    @Test("Bad use fails with one line and a documented code, writing nothing")
    func errors() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let shot = dir.file("s.png")
        let cases: [([String], [String: String], Int32, String)] = [
            (["view", Self.demoBundle, "--preset", "heartbeat", "--screenshot", shot], Self.offscreen, 64, "--screenshot needs --at"),
            (["view", Self.demoBundle, "--preset", "heartbeat", "--screenshot", dir.file("s.txt"), "--at", "5"], Self.offscreen, 64, "PNG"),
            (["view", dir.file("missing.pulsar"), "--screenshot", shot, "--at", "5"], Self.offscreen, 66, "missing.pulsar"),
            (["view", Self.demoBundle, "--preset", "nope", "--screenshot", shot, "--at", "5"], Self.offscreen, 64, "no preset 'nope'"),
            (["view", Self.demoBundle, "--preset", "heartbeat", "--device", "sim", "--screenshot", shot, "--at", "5"],
             ["SDL_VIDEODRIVER": "no-such-driver", "DISPLAY": ""], 69, "display"),
        ]
        for (arguments, environment, status, text) in cases {
            let r = try CLI.run(arguments, environment: environment)
            #expect(r.status == status, "\(arguments): \(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(text), "\(arguments): \(r)")
            #expect(!FileManager.default.fileExists(atPath: shot))
        }
    }
}
