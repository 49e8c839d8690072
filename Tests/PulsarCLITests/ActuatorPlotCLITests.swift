import Foundation
import PulsarLottieRender
import Testing

/// `pulsar plot PATTERN --actuator A`: the lint's findings shaded on the config's render, and the
/// refusals.
struct ActuatorPlotCLITests {
    /// Columns of the picture's lowest quarter (the output panel) tinted by the findings' shade:
    /// a light vermilion, red well above green and blue.
    static func shadedColumns(_ path: String) throws -> [Int] {
        let image = try PNGWriter.readRGBA(from: path)
        return (0..<image.width).filter { x in
            (image.height * 3 / 4..<image.height * 19 / 20).contains { y in
                let i = (y * image.width + x) * 4
                let (r, g, b) = (Int(image.rgba[i]), Int(image.rgba[i + 1]), Int(image.rgba[i + 2]))
                return r > 200 && r - g > 25 && r - b > 60
            }
        }
    }

    @Test("A square emphasis at 200 ms of a 500 ms clip through the console config: the findings (175–250 ms) shaded in the output panel, nowhere else along it; through the DualSense config, nothing shaded")
    func findingsShaded() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let clip = try dir.write(LintCLITests.clip(emphasisFrequency: 1), to: "square.haptic")
        let console = dir.file("console.png"), dualsense = dir.file("dualsense.png")
        let r = try CLI.run(["plot", clip, "--actuator", "meta-console", "-o", console, "--size", "1000x700"])
        #expect(r.status == 0 && r.stderr.contains("3 panels, meta-console"), "\(r)")
        let lint = try CLI.run(["lint", clip, "--actuator", "meta-console", "--json"])
        let findings = try #require((try JSONSerialization.jsonObject(with: Data(lint.stdout.utf8)) as? [String: Any])?["findings"] as? [[String: Any]])
        #expect(!findings.isEmpty)
        let shaded = try Self.shadedColumns(console)
        // The time axis spans 0–500 ms over the plot area (most of the 1000 px): the shade lies
        // over 175–250 ms, a sixth of it, between a quarter and three fifths of the picture.
        #expect(shaded.count > 100 && shaded.count < 250, "\(shaded.count) columns")
        #expect((shaded.min() ?? 0) > 250 && (shaded.max() ?? 1000) < 600, "\(shaded.min() ?? -1)…\(shaded.max() ?? -1)")
        #expect(try CLI.run(["plot", clip, "--actuator", "dualsense", "-o", dualsense, "--size", "1000x700"]).status == 0)
        #expect(try Self.shadedColumns(dualsense).isEmpty)
    }

    @Test("An envelope actuator: a carrier stepping on and off on the lra actuator has its two response findings shaded at its ends; ramped over 20 ms, nothing is shaded")
    func envelopeActuatorShaded() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let step = try dir.write(LintCLITests.pattern(ms: 1_000, transients: []), to: "step.json")
        let ramp = try dir.write(LintCLITests.ramped(ms: 1_000, ramp: 20), to: "ramp.json")
        let r = try CLI.run(["plot", step, "--actuator", "lra", "-o", dir.file("s.png"), "--size", "1000x700"])
        #expect(r.status == 0 && r.stderr.contains("3 panels, lra"), "\(r)")
        let shaded = try Self.shadedColumns(dir.file("s.png"))
        // Two spans (0–8 ms and 1000–1008 ms of a ~1008 ms axis): near the left and right edges only.
        #expect(!shaded.isEmpty && shaded.allSatisfy { $0 < 150 || $0 > 850 } && shaded.contains { $0 < 150 } && shaded.contains { $0 > 850 }, "\(shaded)")
        #expect(try CLI.run(["plot", ramp, "--actuator", "lra", "-o", dir.file("r.png"), "--size", "1000x700"]).status == 0)
        #expect(try Self.shadedColumns(dir.file("r.png")).isEmpty)
    }

    @Test("--actuator with a profile, a layout or a bundle: one line, exit 64, nothing written")
    func refusals() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let clip = try dir.write(LintCLITests.clip(emphasisFrequency: 1), to: "c.haptic")
        for (extra, input, text) in [(["--profile", "lra"], clip, "--actuator and --profile both name the device"), (["--layout", "mix"], clip, "takes no --layout"),
                                     ([], dir.file("b.pulsar"), "not a bundle")] {
            let r = try CLI.run(["plot", input, "--actuator", "meta-console", "-o", dir.file("o.png")] + extra)
            #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains(text), "\(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("o.png")))
        }
    }
}
