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

    @Test func refusesOtherLayoutsInputsAndFiles() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.clip, to: "c.haptic")
        let json = try dir.write(#"{"continuousPattern":{"amplitude":[],"frequency":[]},"discretePattern":[]}"#, to: "p.json")
        let cases: [([String], String)] = [
            (["render", input, "--actuator", Self.acf, "--layout", "mix"], "--actuator FILE.acf renders the haptic channel: use --layout haptic"),
            (["render", json, "--actuator", Self.acf], "renders a Lofelt .haptic clip"),
            (["render", input, "--actuator", input], "ending in .acf"),
            (["render", input, "--actuator", Self.acf, "--profile", "lra"], "takes no --profile"),
        ]
        for (words, text) in cases {
            let r = try CLI.run(words + ["-o", dir.path + "/o.wav"])
            #expect(r.status == 64, "\(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(text), "\(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/o.wav"))
        }
    }
}
