import Foundation
import PulsarTestSupport
import Testing

/// `pulsar drift` through the executable, on the simulated device (simulated time) and with bad
/// input. The PipeWire runs are in the ALSA suite (`DriftOnPipewireTests`).
@Suite("pulsar drift")
struct DriftCLITests {
    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("sim:ppm=250,jitter=0.3 for 120 s: 250 ± 1 ppm, every documented key, the truth beside it")
    func simulatedRun() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("d.json"), plot = dir.file("d.png")
        let r = try CLI.run(["drift", "--device", "sim:ppm=250,jitter=0.3", "--seconds", "120", "--json", out, "--plot", plot])
        #expect(r.status == 0, "\(r)")
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plot)))
        let size = try #require(ImageFiles.pngSize(png))
        #expect(size.width == 1600 && size.height == 1000)
        #expect(r.stderr.contains("simulated time"), "\(r)")
        #expect(r.stdout.contains("+250.0"), "\(r)")
        let object = try Self.json(out)
        for key in ["device", "seconds", "nominalRate", "measuredRate", "ppm", "ppmInterval95", "wallClockDriftMsPerHour",
                    "jitterUs", "granularityFrames", "clockErrorSamples", "lockInSeconds", "underruns", "truePpm",
                    "trueClockErrorSamples", "complete", "lateWakeups", "periodFrames", "bufferFrames", "scheduling"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        let ppm = try #require(object["ppm"] as? Double)
        #expect(abs(ppm - 250) <= 1)
        let interval = try #require(object["ppmInterval95"] as? [Double])
        #expect(interval.count == 2 && interval[0] <= ppm && ppm <= interval[1])
        let wall = try #require(object["wallClockDriftMsPerHour"] as? Double)
        #expect(abs(wall - ppm * 3.6) <= 0.01 * abs(ppm * 3.6))
        let jitter = try #require((object["jitterUs"] as? [String: Double])?["p99"])
        #expect(abs(jitter - 300) <= 75)
        let truth = try #require((object["trueClockErrorSamples"] as? [String: Double])?["p99"])
        #expect(truth <= 1)
        #expect(object["truePpm"] as? Double == 250)
        #expect(object["complete"] as? Bool == true)
        #expect(object["lockInSeconds"] as? Double != nil)
    }

    @Test("sim:granularity=16 (positions floored to 16 frames): the clock learns the step, locks in within 2 s and stays within one sample of the truth")
    func coarseGranularity() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("d.json")
        let r = try CLI.run(["drift", "--device", "sim:granularity=16,ppm=-80", "--seconds", "60", "--json", out, "--quiet"])
        #expect(r.status == 0, "\(r)")
        let object = try Self.json(out)
        #expect(object["granularityFrames"] as? Int == 16)
        let lock = try #require(object["lockInSeconds"] as? Double)
        #expect(lock <= 2)
        let truth = try #require(object["trueClockErrorSamples"] as? [String: Double])
        #expect(truth["max"]! <= 1, "\(truth)")
    }

    @Test("Two simulated devices: the ratio of their rates in ppm, both measured in one run; an SVG plot that parses")
    func twoSimulatedDevices() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("d.json"), plot = dir.file("d.svg")
        let r = try CLI.run(["drift", "--device", "sim:ppm=100", "--device", "sim:ppm=-200,jitter=0.2", "--seconds", "30",
                             "--json", out, "--plot", plot, "--quiet"])
        let svg = try #require(ImageFiles.svgRoot(try Data(contentsOf: URL(fileURLWithPath: plot))))
        #expect(svg.name == "svg" && svg.elements > 100)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.isEmpty && r.stderr.isEmpty, "--quiet prints nothing: \(r)")
        let object = try Self.json(out)
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        let ratio = try #require(object["ratioPpm"] as? Double)
        let expected = ((1 + 100e-6) / (1 - 200e-6) - 1) * 1e6
        #expect(abs(ratio - expected) <= 1, "ratio \(ratio), expected \(expected)")
    }

    @Test("A preset looped as the content: the measurement covers real work and still finds the rate")
    func presetContent() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("d.json")
        let pattern = HostileInputTests.resources + "/patterns/demo.json"
        let r = try CLI.run(["drift", pattern, "--device", "sim:ppm=-300,jitter=0.5", "--seconds", "30", "--json", out, "--quiet"])
        #expect(r.status == 0, "\(r)")
        let object = try Self.json(out)
        #expect(abs((object["ppm"] as? Double ?? 0) + 300) <= 1)
        #expect(object["channels"] as? Double == 1)
    }

    @Test("Bad options: one line naming the rule, exit 64, nothing written",
          arguments: [
            (["--seconds", "0"], "--seconds"), (["--seconds", "-5"], "--seconds"), (["--seconds", "1e9"], "--seconds"),
            (["--seconds", "nan"], "--seconds"), (["--device", "sim:ppm=abc"], "ppm"), (["--device", "sim:warp=2"], "warp"),
            (["--device", "sim", "--device", "sim", "--device", "sim"], "two"), (["--plot", "out.gif"], ".png"),
            (["--preset", "x"], "INPUT"), (["--layout", "nonsense"], "--layout"), (["--period", "3"], "--period"),
          ])
    func badOptions(arguments: [String], mentions: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["drift", "--device", "sim", "--json", dir.file("d.json")] + arguments)
        #expect(r.status == 64, "\(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
        #expect(r.stderr.contains(mentions), "\(r)")
        #expect(dir.contents().isEmpty, "wrote \(dir.contents())")
    }

    @Test("A device that cannot be opened: exit 69, one line naming it, nothing written")
    func unknownDevice() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["drift", "--device", "no-such-pcm-here", "--seconds", "1", "--json", dir.file("d.json")])
        #expect(r.status == 69, "\(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
        #expect(r.stderr.contains("no-such-pcm-here"), "\(r)")
        #expect(dir.contents().isEmpty, "wrote \(dir.contents())")
    }

    @Test("A missing INPUT: exit 66, one line")
    func missingInput() throws {
        let r = try CLI.run(["drift", "/nonexistent/p.json", "--device", "sim", "--seconds", "1"])
        #expect(r.status == 66, "\(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
    }
}
