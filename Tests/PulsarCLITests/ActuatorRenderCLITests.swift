import Foundation
import Testing

/// `pulsar render CLIP.haptic --actuator FILE.acf`: the haptic channel through Meta's rules, and
/// the one-line refusals.
struct ActuatorRenderCLITests {
    static let acf = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Resources/actuators/meta-console.acf").path
    static let clip = #"{"version":{"major":1,"minor":0,"patch":0},"signals":{"continuous":{"envelopes":{"#
        + #""amplitude":[{"time":0,"amplitude":0.5},{"time":0.1,"amplitude":0.5}],"frequency":[{"time":0,"frequency":0}]}}}}"#

    /// The float samples of a mono float WAV's `data` chunk.
    static func samples(_ path: String) throws -> [Float] {
        let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var i = 12
        while i + 8 <= d.count {
            let size = Int(d[i + 4]) | Int(d[i + 5]) << 8 | Int(d[i + 6]) << 16 | Int(d[i + 7]) << 24
            if d[i..<(i + 4)].elementsEqual("data".utf8) {
                return stride(from: i + 8, to: i + 8 + size, by: 4).map {
                    Float(bitPattern: UInt32(d[$0]) | UInt32(d[$0 + 1]) << 8 | UInt32(d[$0 + 2]) << 16 | UInt32(d[$0 + 3]) << 24)
                }
            }
            i += 8 + size + size % 2
        }
        return []
    }

    @Test func rendersTheClipThroughTheConfig() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.clip, to: "c.haptic")
        let r = try CLI.run(["render", input, "--actuator", Self.acf, "-o", dir.path + "/o.wav"])
        #expect(r.status == 0, "\(r)")
        let s = try Self.samples(dir.path + "/o.wav")
        #expect(s.count == 4800)  // 0.1 s at 48 kHz
        // A 20 Hz sine of peak 0.5: a quarter period (600 samples) in, the peak.
        #expect(abs(s[600] - 0.5) < 1e-6)
        #expect(abs(s[300] - 0.5 * Float(sin(Double.pi / 4))) < 1e-6)
    }

    @Test("A Pulsar JSON pattern through the console config: its carrier (0.5 at frequency 0: 20 Hz) and its transient at 200 ms as a 130 Hz square of 20 ms over the carrier ducked by half, clipped to ±1")
    func pulsarPatternThroughTheConfig() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let json = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":1000,"value":0.5}],"#
                                 + #""frequency":[{"time":0,"value":0},{"time":1000,"value":0}]},"discretePattern":[{"time":200,"amplitude":1,"frequency":1}]}"#,
                                 to: "p.json")
        let r = try CLI.run(["render", json, "--actuator", "meta-console", "-o", dir.path + "/o.wav"])
        #expect(r.status == 0 && r.stderr.contains("for actuator meta-console"), "\(r)")
        let s = try Self.samples(dir.path + "/o.wav")
        #expect(s.count == 48_000)
        func carrier(_ n: Int) -> Double { 0.5 * sin(2 * Double.pi * (20 * Double(n) / 48_000).truncatingRemainder(dividingBy: 1)) }
        for n in [0, 300, 600, 9_000, 9_599, 10_560, 30_000, 47_999] {
            #expect(abs(Double(s[n]) - carrier(n)) < 1e-6, "sample \(n)")
        }
        for k in stride(from: 0, to: 960, by: 13) {
            let c = 130 * Double(k) / 48_000, square: Double = c - c.rounded(.down) < 0.5 ? 1 : -1
            #expect(abs(Double(s[9_600 + k]) - min(max(carrier(9_600 + k) * 0.5 + square, -1), 1)) < 1e-6, "burst sample \(k)")
        }
    }

    @Test func refusesReverseOtherFilesAndTwoDevices() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.clip, to: "c.haptic")
        let cases: [([String], String)] = [
            (["render", input, "--actuator", input], "ending in .acf"),
            (["render", input, "--actuator", Self.acf, "--profile", "lra"], "--actuator and --profile both name the device"),
        ]
        for (words, text) in cases {
            let r = try CLI.run(words + ["-o", dir.path + "/o.wav"])
            #expect(r.status == 64, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(text), "\(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/o.wav"))
        }
    }
}

/// `pulsar actuators` and `--actuator NAME`: the shipped configs found beside the build.
struct ActuatorsCLITests {
    @Test("pulsar actuators lists the shipped configs with their models, bands, bursts and limits; --json says the same")
    func lists() throws {
        let r = try CLI.run(["actuators"])
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { String($0.prefix { $0 != " " }) } == ["bass-shaker", "dualsense", "lra", "meta-console", "meta-quest", "wideband"],
                "\(lines)")
        #expect(lines[0].contains("burst    25–100 Hz") && lines[0].contains("70 Hz 28.5714 ms sine rising over 5 ms, ducking 0 over 5 ms;"), "\(lines[0])")
        #expect(lines[1].contains("60–300 Hz")
                && lines[1].contains("100 Hz 20 ms sine → 160 Hz 12.5 ms square band-limited to 400 Hz rising over 3 ms, ducking 0 over 2 ms;"),
                "\(lines[1])")
        #expect(lines[2].contains("envelope 153–187 Hz") && lines[2].contains("limits: rise 15 ms, taps ≥ 20 ms apart, RMS ≤ 0.5 over 2000 ms"), "\(lines[2])")
        #expect(lines[3].contains("20–250 Hz") && lines[3].contains("55 Hz 27 ms sine → 130 Hz 20 ms square, ducking 0.5"))
        #expect(lines[4].contains("55–200 Hz") && lines[4].contains("165 Hz 12.1 ms square"))
        #expect(lines[5].contains("envelope 60–300 Hz"), "\(lines[5])")
        let json = try JSONSerialization.jsonObject(with: Data(try CLI.run(["actuators", "--json"]).stdout.utf8)) as? [String: Any]
        let configs = try #require(json?["actuators"] as? [[String: Any]])
        #expect(configs.map { $0["name"] as? String } == ["bass-shaker", "dualsense", "lra", "meta-console", "meta-quest", "wideband"])
        #expect(configs.map { $0["model"] as? String } == ["burst", "burst", "envelope", "burst", "burst", "envelope"])
        // (Foundation's reader gets 187.00000000000003 wrong in the last digit: compared to 1e-9.)
        #expect(configs.map { (($0["maximumHertz"] as? Double ?? 0) * 1e9).rounded() / 1e9 } == [100, 300, 187, 250, 200, 300])
        #expect(configs.map { $0["burstBandLimitHz"] as? Double } == [nil, 400, nil, nil, nil, nil])
        #expect(configs.map { ($0["limits"] as? [String: Any])?["riseMs"] as? Double } == [20, nil, 15, nil, nil, nil])
        #expect(configs.map { $0["amplitudeLaw"] as? String } == ["linear", "linear", "sqrt", "linear", "linear", "sqrt"])
        #expect((json?["folder"] as? String)?.hasSuffix("Resources/actuators") == true)
        // Another folder through $PULSAR_ACTUATORS: only its configs.
        let dir = try TempDir()
        defer { dir.remove() }
        try FileManager.default.copyItem(atPath: ActuatorRenderCLITests.acf, toPath: dir.file("shaker.acf"))
        let other = try CLI.run(["actuators"], environment: ["PULSAR_ACTUATORS": dir.path])
        #expect(other.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) } == ["shaker"], "\(other)")
    }

    @Test("--actuator NAME renders what --actuator FILE.acf of that config renders; an unknown name lists the shipped ones")
    func byName() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(ActuatorRenderCLITests.clip, to: "c.haptic")
        #expect(try CLI.run(["render", input, "--actuator", "meta-console", "-o", dir.file("a.wav"), "--quiet"]).status == 0)
        #expect(try CLI.run(["render", input, "--actuator", ActuatorRenderCLITests.acf, "-o", dir.file("b.wav"), "--quiet"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("a.wav"))) == Data(contentsOf: URL(fileURLWithPath: dir.file("b.wav"))))
        let r = try CLI.run(["render", input, "--actuator", "meta-nope", "-o", dir.file("c.wav")])
        #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains("shipped: bass-shaker, dualsense, lra, meta-console, meta-quest, wideband"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("c.wav")))
    }
}
