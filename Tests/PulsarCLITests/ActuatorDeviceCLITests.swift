import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// `--actuator` through the mixer (render, play and its replay) and a bundle preset naming its
/// actuator: today's profiles as files change no sample; a burst actuator's haptic channel in a
/// mix is its render alone; the laws reach a `.haptic` clip.
@Suite("Actuator as the device")
struct ActuatorDeviceCLITests {
    /// A bundle folder with one preset (the AHAP-audio test's pattern and a stereo WAV), its
    /// manifest's preset carrying `extra` members.
    static func bundle(in dir: TempDir, extra: String = "") throws -> (folder: String, pattern: String) {
        let (folder, _) = try AHAPAudioCLITests.bundle(in: dir, offset: 0, volume: 1)
        let manifest = #"{"schema":"pulsar.bundle/1","id":"dev.test.actuator","name":"t","presets":[{"id":"p","name":"P","haptics":"haptics/p.json","#
            + #""audio":{"src":"audio/s.wav"}\#(extra)}]}"#
        try manifest.write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
        return (folder, folder + "/haptics/p.json")
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Channel `c` of an interleaved recording.
    static func channel(_ file: AudioFileContents, _ c: Int) -> [Float] {
        stride(from: c, to: file.samples.count, by: file.channels).map { file.samples[$0] }
    }

    @Test("--actuator wideband renders what no option renders and --actuator lra what --profile lra does, byte for byte: a pattern, a .haptic clip, a bundle in the mix layout")
    func profilesUnchanged() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, pattern) = try Self.bundle(in: dir)
        let clip = try dir.write(ActuatorRenderCLITests.clip, to: "c.haptic")
        for input in [pattern, clip, folder] {
            for (a, b) in [([String](), ["--actuator", "wideband"]), (["--profile", "lra"], ["--actuator", "lra"])] {
                #expect(try CLI.run(["render", input, "-o", dir.file("a.wav"), "--quiet"] + a).status == 0)
                #expect(try CLI.run(["render", input, "-o", dir.file("b.wav"), "--quiet"] + b).status == 0)
                #expect(try Self.bytes(dir.file("a.wav")) == Self.bytes(dir.file("b.wav")), "\(input) \(a) vs \(b)")
            }
        }
    }

    @Test("A burst actuator in a mix: the haptic channel is the config's render of the pattern alone, the audio channels are untouched, and a preset that names the actuator in its manifest gets it unless the command line names a device")
    func burstInTheMixAndInTheManifest() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, pattern) = try Self.bundle(in: dir)
        #expect(try CLI.run(["render", folder, "--layout", "stereo+haptic", "--actuator", "meta-console", "-o", dir.file("m.wav"), "--quiet"]).status == 0)
        #expect(try CLI.run(["render", folder, "--layout", "stereo+haptic", "-o", dir.file("d.wav"), "--quiet"]).status == 0)
        #expect(try CLI.run(["render", pattern, "--actuator", "meta-console", "-o", dir.file("h.wav"), "--quiet"]).status == 0)
        let mix = try AudioFileContents(contentsOf: dir.file("m.wav")), plain = try AudioFileContents(contentsOf: dir.file("d.wav"))
        let alone = try AudioFileContents(contentsOf: dir.file("h.wav")).samples
        let h = Self.channel(mix, 2)
        #expect(alone.count > 30_000 && h.count >= alone.count)
        #expect(Array(h[0..<alone.count]) == alone && h[alone.count...].allSatisfy { $0 == 0 })
        #expect(Self.channel(mix, 0) == Self.channel(plain, 0) && Self.channel(mix, 1) == Self.channel(plain, 1))
        #expect(Self.channel(plain, 2) != h)

        let named = dir.file("named")
        try FileManager.default.copyItem(atPath: folder, toPath: named)
        let manifest = try String(contentsOfFile: named + "/manifest.json", encoding: .utf8)
        try manifest.replacingOccurrences(of: #""audio":{"src":"audio/s.wav"}"#, with: #""audio":{"src":"audio/s.wav"},"actuator":"meta-console""#)
            .write(toFile: named + "/manifest.json", atomically: true, encoding: .utf8)
        let info = try CLI.run(["info", named])
        #expect(info.status == 0 && info.stdout.contains("  actuator: meta-console (its manifest's"), "\(info)")
        let json = try JSONSerialization.jsonObject(with: Data(try CLI.run(["info", named, "--json"]).stdout.utf8)) as? [String: Any]
        #expect(((json?["presets"] as? [[String: Any]])?.first?["actuator"] as? String) == "meta-console")
        #expect(try CLI.run(["render", named, "--layout", "stereo+haptic", "-o", dir.file("n.wav"), "--quiet"]).status == 0)
        #expect(try Self.bytes(dir.file("n.wav")) == Self.bytes(dir.file("m.wav")))
        #expect(try CLI.run(["render", named, "--layout", "stereo+haptic", "--profile", "wideband", "-o", dir.file("w.wav"), "--quiet"]).status == 0)
        #expect(try Self.bytes(dir.file("w.wav")) == Self.bytes(dir.file("d.wav")))
    }

    @Test("A manifest naming an actuator that is not a name, or not shipped: one line, exit 65, nothing written")
    func badManifestActuator() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        // A config in the folder the command runs in, as `evil.acf` would be opened from: never read.
        _ = try dir.write("{model: 'envelope', resonance_hz: 170}", to: "evil.acf")
        for (name, text) in [("../lra", "$.presets[0].actuator: actuator \"../lra\" is not a shipped actuator's name"),
                             ("evil.acf", "$.presets[0].actuator: actuator \"evil.acf\" is not a shipped actuator's name"),
                             ("EVIL.ACF", "$.presets[0].actuator: actuator \"EVIL.ACF\" is not a shipped actuator's name"),
                             ("nope", "preset \"p\" names actuator \"nope\" in its manifest, which is not shipped (shipped: bass-shaker, dualsense, lra, meta-console")] {
            let (folder, _) = try Self.bundle(in: try TempDir(), extra: #","actuator":"\#(name)""#)
            for command in ["render", "plot"] {
                let output = dir.file(command == "render" ? "o.wav" : "o.png")
                let r = try ChildProcess.run("/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" \"$3\" \"$4\" -o \"$5\" --quiet", "sh",
                                                         dir.path, try CLI.executable(), command, folder, output])
                #expect(r.status == 65 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(text), "\(command) \(name): \(r)")
                #expect(!FileManager.default.fileExists(atPath: output))
            }
        }
    }

    @Test("The laws reach a .haptic clip: amplitude 0.5 at frequency 0.25 plays at 0.707 and 180 Hz under the √ laws (wideband), at 0.5 and 120 Hz through a config with linear laws")
    func laws() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let clip = try dir.write(#"{"version":{"major":1,"minor":0,"patch":0},"signals":{"continuous":{"envelopes":{"#
                                 + #""amplitude":[{"time":0,"amplitude":0.5},{"time":0.5,"amplitude":0.5}],"frequency":[{"time":0,"frequency":0.25}]}}}}"#,
                                 to: "c.haptic")
        let linear = try dir.write("{model: 'envelope', continuous: {frequency_min: 60, frequency_max: 300}, laws: {amplitude: 'linear', frequency: 'linear'}}",
                                   to: "linear.acf")
        for (device, peak, hertz) in [(["--actuator", "wideband"], 0.5.squareRoot(), 180.0), (["--actuator", linear], 0.5, 120.0)] {
            #expect(try CLI.run(["render", clip, "-o", dir.file("o.wav"), "--quiet"] + device).status == 0)
            let s = try AudioFileContents(contentsOf: dir.file("o.wav")).samples
            // The middle 200 ms, away from the envelope's 8 ms edges: its peak and its rising zero crossings.
            let middle = Array(s[7_200..<16_800])
            #expect(abs(Double(middle.map { abs($0) }.max() ?? 0) - peak) < 2e-3, "\(device)")
            let rising = zip(middle, middle.dropFirst()).filter { $0.0 < 0 && $0.1 >= 0 }.count
            #expect(abs(Double(rising) - hertz * 0.2) <= 1, "\(device): \(rising) cycles in 200 ms")
        }
    }

    @Test("A play through an actuator config on the simulated device, logged: the header names the config, the replay equals the recording, and without the config the replay differs")
    func playAndReplay() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let clip = try dir.write(ActuatorRenderCLITests.clip, to: "c.haptic")
        let pattern = try dir.write(LintCLITests.pattern(ms: 400, transients: [100, 250]), to: "p.json")
        for (input, actuator) in [(clip, "meta-console"), (pattern, "dualsense")] {
            let r = try CLI.run(["play", input, "--actuator", actuator, "--device", "sim:record=\(dir.file("r.wav"))", "--log", dir.file("l.jsonl")])
            #expect(r.status == 0, "\(r)")
            let log = try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8)
            #expect(log.split(separator: "\n").first?.contains("Resources/actuators/\(actuator).acf") == true, "\(log.prefix(400))")
            try ReplayCLITests.expectRecordingEqualsReplay(in: dir, atLeast: 4_000)
            try log.replacingOccurrences(of: #""actuator":"#, with: #""unknown":"#).write(toFile: dir.file("l.jsonl"), atomically: true, encoding: .utf8)
            #expect(try CLI.run(["render", "--replay", dir.file("l.jsonl"), "-o", dir.file("q.wav")]).status == 0)
            #expect(try AudioFileContents(contentsOf: dir.file("q.wav")).samples != AudioFileContents(contentsOf: dir.file("r.wav")).samples)
        }
    }

    @Test("derive --actuator describes frequencies on the actuator's band: lra as --profile lra, meta-console as --profile 20:250, byte for byte; with --profile too, one line, 64")
    func deriveOnTheBand() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, _) = try Self.bundle(in: dir)
        let audio = folder + "/audio/s.wav"
        for (a, b) in [(["--actuator", "lra"], ["--profile", "lra"]), (["--actuator", "meta-console"], ["--profile", "20:250"])] {
            #expect(try CLI.run(["derive", audio, "-o", dir.file("a.json"), "--quiet"] + a).status == 0)
            #expect(try CLI.run(["derive", audio, "-o", dir.file("b.json"), "--quiet"] + b).status == 0)
            #expect(try Self.bytes(dir.file("a.json")) == Self.bytes(dir.file("b.json")), "\(a)")
        }
        // The band matters: the default (wideband, 60–300 Hz) describes the same sound otherwise.
        #expect(try CLI.run(["derive", audio, "-o", dir.file("w.json"), "--quiet"]).status == 0)
        #expect(try Self.bytes(dir.file("a.json")) != Self.bytes(dir.file("w.json")))
        let r = try CLI.run(["derive", audio, "-o", dir.file("c.json"), "--actuator", "lra", "--profile", "lra"])
        #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains("both name the device"), "\(r)")
    }
}

/// A burst actuator played backwards (`--reverse`): the clip mirrored, each burst still forwards.
@Suite("Actuator backwards")
struct ActuatorBackwardsCLITests {
    @Test("A lone emphasis at 200 ms of 1 s through the console config, looped with --reverse: the backward iteration plays the same 960-sample burst at 800 ms of it, sample for sample, and nothing else")
    func burstMirrored() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let json = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0},{"time":1000,"value":0}],"#
                                 + #""frequency":[{"time":0,"value":0},{"time":1000,"value":0}]},"discretePattern":[{"time":200,"amplitude":1,"frequency":1}]}"#,
                                 to: "p.json")
        #expect(try CLI.run(["render", json, "--actuator", "meta-console", "--loop", "2", "--reverse", "-o", dir.file("r.wav"), "--quiet"]).status == 0)
        let s = try AudioFileContents(contentsOf: dir.file("r.wav")).samples
        #expect(s.count == 96_000)
        let forward = Array(s[9_600..<10_560]), backward = Array(s[86_400..<87_360])
        #expect(forward == backward && forward.contains { $0 != 0 })
        let elsewhere = s.indices.filter { s[$0] != 0 && !(9_600..<10_560).contains($0) && !(86_400..<87_360).contains($0) }
        #expect(elsewhere.isEmpty, "\(elsewhere.prefix(5))")
    }

    @Test("A carrier ramping up over a 1 s clip through the console config, with --reverse: the backward iteration's 10 ms RMS envelope is the forward one's mirror (within 0.01), on its own oscillator")
    func carrierMirrored() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let clip = try dir.write(#"{"version":{"major":1,"minor":0,"patch":0},"signals":{"continuous":{"envelopes":{"#
                                 + #""amplitude":[{"time":0,"amplitude":0.1},{"time":1.0,"amplitude":0.9}],"frequency":[{"time":0,"frequency":0.2},{"time":1.0,"frequency":0.8}]}}}}"#,
                                 to: "c.haptic")
        #expect(try CLI.run(["render", clip, "--actuator", "meta-console", "--loop", "2", "--reverse", "-o", dir.file("r.wav"), "--quiet"]).status == 0)
        let s = try AudioFileContents(contentsOf: dir.file("r.wav")).samples.map(Double.init)
        #expect(s.count == 96_000)
        func envelope(_ x: ArraySlice<Double>) -> [Double] {
            stride(from: x.startIndex, to: x.endIndex - 479, by: 480).map { i in (x[i..<(i + 480)].reduce(0) { $0 + $1 * $1 } / 480).squareRoot() }
        }
        let forward = envelope(s[0..<48_000]), backward = envelope(s[48_000..<96_000])
        #expect(forward.count == 100 && backward.count == 100)
        // Skip the 10 ms windows at the ends, where 20–80 Hz cycles do not fit a window.
        let worst = (5..<95).map { abs(forward[$0] - backward[99 - $0]) }.max() ?? 1
        #expect(worst < 0.01, "\(worst)")
        #expect(Array(s[48_000..<96_000]) != Array(s[0..<48_000].reversed()), "its own oscillator, not the samples reversed")
    }
}
