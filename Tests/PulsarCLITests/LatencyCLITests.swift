import Foundation
import PulsarTestSupport
import Testing

/// `pulsar latency` through the executable on the simulated device, and with bad command lines.
/// The PipeWire runs, with a capture, are in the ALSA suite (`LatencyOnPipewireTests`).
@Suite("pulsar latency")
struct LatencyCLITests {
    @Test("On the simulated device (it rewinds): each click lands the safety margin (1.33 ms) after the frame heard at the call, plus at most a period of waiting for the real-time thread")
    func simulatedDevice() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("l.json"), plot = dir.file("l.svg")
        let r = try CLI.run(["latency", "--device", "sim", "--seconds", "3", "--json", out, "--plot", plot])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("by the clock"), "\(r)")
        let object = try DriftCLITests.json(out)
        for key in ["device", "period", "quantum", "count", "refused", "underruns", "heldUp", "clockTimelineMoves", "clockLatencyMs"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["captureLatencyMs"] == nil)
        // 3 s of clicks 150–350 ms apart.
        let count = try #require(object["count"] as? Int)
        #expect((8...20).contains(count))
        let clock = try #require(object["clockLatencyMs"] as? [String: Double])
        let margin = 64.0 / 48, period = 256.0 / 48
        #expect(clock["p50"]! >= margin - 0.05 && clock["p50"]! <= margin + period, "\(clock)")
        // The simulated device's time line never moves; its safety margin is the least latency.
        #expect(object["clockTimelineMoves"] as? Int == 0)
        #expect(clock["min"]! >= margin - 0.05 && clock["min"]! <= clock["p50"]!, "\(clock)")
        // A call the machine held up carries the stall in its latency: the bound on every click
        // holds for a run that was not.
        if object["heldUp"] as? Int == 0 { #expect(clock["max"]! <= margin + period, "\(clock)") }
        #expect(clock["count"] == Double(count))
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("</svg>"))
    }

    @Test("Bad command lines: one line each, exit 64, nothing written",
          arguments: [
              (["--capture", ""], "--capture needs a PipeWire capture"),
              (["--plot", "x.pdf"], "--plot 'x.pdf': a .png or .svg file"),
              (["--seconds", "0"], "--seconds"),
              (["--device", "pw:a,b"], "pw:NODE names one node"),
              (["input.json"], "takes no INPUT"),
          ])
    func badCommandLines(_ arguments: [String], _ message: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("l.json")
        let r = try CLI.run(["latency", "--device", "sim", "--json", out] + arguments)
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--capture of an ALSA device that is not there: exit 69, one line naming the option and the device")
    func captureWithoutDevice() throws {
        let r = try CLI.run(["latency", "--device", "sim", "--seconds", "1", "--capture", "hw:CARD=NoSuchCard"])
        #expect(r.status == 69, "\(r)")
        #expect(r.stderr.hasPrefix("pulsar latency: --capture hw:CARD=NoSuchCard:") && r.stderr.contains("cannot open ALSA device 'hw:CARD=NoSuchCard'")
                && r.stderr.split(separator: "\n").count == 1, "\(r)")
    }

    @Test("--capture on a PipeWire server that is not there: exit 69, one line naming the option")
    func captureWithoutServer() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["latency", "--device", "sim", "--seconds", "1", "--capture", "pw:nothing.monitor"],
                            environment: ["PIPEWIRE_REMOTE": dir.file("no-server"), "PIPEWIRE_RUNTIME_DIR": dir.path])
        #expect(r.status == 69, "\(r)")
        #expect(r.stderr.hasPrefix("pulsar latency: --capture pw:nothing.monitor:") && r.stderr.split(separator: "\n").count == 1, "\(r)")
    }
}
