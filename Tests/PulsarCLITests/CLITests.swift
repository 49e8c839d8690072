import Foundation
import PulsarAudio
import PulsarCore
import Testing

/// The `pulsar` executable end to end: exit codes (sysexits), one-line errors, all-or-nothing
/// outputs, WAV contents, `convert` and `info --json`.
@Suite("CLI")
struct CLITests {
    /// The worked example of docs/signal-model.md: one transient at 10 ms, wideband, 48 kHz →
    /// 1280 frames, y[480] = 0 (the onset), y[672] = 0.5 (the peak sample), y[600] = −0.0428…
    static let workedExample = #"{"discretePattern": [{"time": 10, "amplitude": 0.5, "frequency": 0.5}]}"#

    /// A pattern with both parts, starting at 0 and without steps.
    static let fullPattern = """
    {"continuousPattern": {
       "amplitude": [{"time": 0, "value": 0.2}, {"time": 40, "value": 0.9}, {"time": 120, "value": 0.1}],
       "frequency": [{"time": 0, "value": 0.3}, {"time": 120, "value": 0.8}]},
     "discretePattern": [{"time": 0, "amplitude": 1, "frequency": 0.4}, {"time": 75.5, "amplitude": 0.6, "frequency": 0.9}]}
    """

    // MARK: Help, version, usage errors

    @Test("--version prints the version and exits 0")
    func version() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("pulsar "), "\(r)")
        let number = r.stdout.dropFirst("pulsar ".count).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(number.split(separator: ".").count == 3 && number.split(separator: ".").allSatisfy { Int($0) != nil }, "\(number)")
        #expect(r.stderr.isEmpty)
        #expect(try CLI.run(["-V"]).stdout == r.stdout)
    }

    @Test("--help of the tool prints usage and exits 0", arguments: ["--help", "-h", "help"])
    func toolHelp(_ flag: String) throws {
        let r = try CLI.run([flag])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("usage: pulsar COMMAND"), "\(r)")
        for command in ["render", "info", "convert", "pack", "play"] { #expect(r.stdout.contains(command)) }
        #expect(r.stderr.isEmpty)
    }

    @Test("--help of every subcommand prints its usage and exits 0",
          arguments: ["render", "info", "convert", "pack", "play"], ["--help", "-h"])
    func commandHelp(_ command: String, _ flag: String) throws {
        let r = try CLI.run([command, flag])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("usage: pulsar \(command) "), "\(r)")
        #expect(r.stdout.contains("options:"))
        #expect(r.stderr.isEmpty)
        // --help wins over anything else on the line, even a missing input.
        #expect(try CLI.run([command, "/no/such/file.json", flag]).status == 0)
    }

    @Test("no command prints usage to stderr and exits 64")
    func noCommand() throws {
        let r = try CLI.run([])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains("usage: pulsar"))
        #expect(r.stdout.isEmpty)
    }

    @Test("an unknown command or option, or a missing value, exits 64 with one line", arguments: [
        ["dance", "x.json"],
        ["--bogus"],
        ["render", "x.json", "-o", "y.wav", "--bogus"],
        ["info", "x.json", "--verbose"],
        ["convert", "x.json", "-o", "y.ahap", "--rate=48000"],
        ["render", "x.json", "-o"],
        ["render", "x.json"],
        ["render", "-o", "y.wav"],
        ["render", "a.json", "b.json", "-o", "y.wav"],
        ["info", "x.json", "--json=yes"],
        ["render", "x.json", "-o", "y.wav", "--format", "u8"],
        ["render", "x.json", "-o", "y.wav", "--time-unit", "min"],
        ["render", "x.json", "-o", "y.wav", "--gain", "nan"],
        ["render", "x.json", "-o", "y.wav", "--gain", "0"],
        ["render", "x.json", "-o", "y.wav", "--gain", "17"],
        ["convert", "x.json", "-o", "y.haptic"],
        ["convert", "x.json", "-o", "y.ahap", "--raw"],
    ])
    func usageErrors(_ arguments: [String]) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        // Run from inside the temp dir's paths so nothing can land in the project.
        let args = arguments.map { $0.hasSuffix(".json") || $0.hasSuffix(".wav") || $0.contains(".ahap") || $0.hasSuffix(".haptic") ? dir.file($0) : $0 }
        let r = try CLI.run(args)
        #expect(r.status == 64, "\(args): \(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
        #expect(r.stdout.isEmpty)
        #expect(dir.contents().isEmpty, "nothing written")
    }

    @Test("--rate 7999 and --profile 100:50 are usage errors (64) and write nothing", arguments: [
        ["--rate", "7999"], ["--rate", "192001"], ["--rate", "48k"], ["--profile", "100:50"], ["--profile", "banana"],
        ["--profile", "0:100"], ["--profile", "60:30000"],
    ])
    func badRenderSettings(_ setting: [String]) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.workedExample, to: "in.json")
        let output = dir.file("out.wav")
        let r = try CLI.run(["render", input, "-o", output] + setting)
        #expect(r.status == 64, "\(setting): \(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
        #expect(!dir.exists(output))
        #expect(dir.contents() == ["in.json"])
        // The same setting on info is refused too.
        #expect(try CLI.run(["info", input] + setting).status == 64)
        // And the limits themselves are accepted.
        if setting[0] == "--rate" {
            #expect(try CLI.run(["render", input, "-o", output, "--quiet", "--rate", "8000"]).status == 0)
        }
    }

    @Test("a missing input file exits 66 with one error line naming it", arguments: [
        ["render", "-o", "out.wav"], ["info"], ["info", "--json"], ["convert", "-o", "out.ahap"],
    ])
    func missingInput(_ words: [String]) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = dir.file("missing.json")
        let args = [words[0], input] + words.dropFirst().map { $0.hasPrefix("out.") ? dir.file($0) : $0 }
        let r = try CLI.run(args)
        #expect(r.status == 66, "\(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
        #expect(r.stderrLines.first?.hasPrefix("pulsar: error: \(input)") == true, "\(r)")
        #expect(r.stdout.isEmpty)
        #expect(dir.contents().isEmpty)
        // A directory as input is also "no input".
        #expect(try CLI.run([words[0], dir.path] + Array(args.dropFirst(2))).status == 66)
    }

    // MARK: Bad input

    /// The rows of the bad-input table (docs/formats.md) with the rule each must name.
    static let badInputs: [(name: String, rule: String)] = [
        ("malformed", "malformed-json"), ("wrong-type", "wrong-type"), ("nan", "non-finite"),
        ("infinity", "non-finite"), ("overflow", "non-finite"), ("negative-time", "negative-time"),
        ("out-of-range", "value-out-of-range"), ("unsorted", "unsorted"), ("three-at-one-time", "duplicate-time"),
        ("two-transients-at-one-time", "duplicate-time"), ("empty", "empty-pattern"), ("over-24h", "too-long"),
        ("too-many-points", "too-many-points"), ("over-64MiB", "file-too-large"), ("ahap-missing-duration", "missing-field"),
    ]

    /// Writes the bad input `name` into `dir` and returns its path.
    static func makeBadInput(_ name: String, in dir: TempDir) throws -> String {
        func point(_ t: Any, _ v: Any = 0.5) -> String { #"{"time": \#(t), "value": \#(v)}"# }
        func transient(_ t: Any, _ a: Any = 1) -> String { #"{"time": \#(t), "amplitude": \#(a), "frequency": 0.5}"# }
        func curve(_ points: String...) -> String { #"{"continuousPattern": {"amplitude": [\#(points.joined(separator: ", "))]}}"# }
        func transients(_ points: String...) -> String { #"{"discretePattern": [\#(points.joined(separator: ", "))]}"# }
        let text: String
        switch name {
        case "malformed": text = "{\"discretePattern\": [\n" + transient(0) + ",\n]}"
        case "wrong-type": text = transients(transient("\"10\""))
        case "nan": text = transients(transient("NaN"))
        case "infinity": text = curve(point(0, "Infinity"))
        case "overflow": text = curve(point(0), point("1e999"))
        case "negative-time": text = curve(point(0), point(-5))
        case "out-of-range": text = curve(point(0, 1.5))
        case "unsorted": text = curve(point(0), point(50), point(20))
        case "three-at-one-time": text = curve(point(0), point(10, 1), point(10, 0.5), point(10, 0))
        case "two-transients-at-one-time": text = transients(transient(10), transient(10, 0.5))
        case "empty": text = #"{"continuousPattern": {"amplitude": [], "frequency": []}, "discretePattern": []}"#
        case "over-24h": text = transients(transient(0), transient(86_400_001))
        case "too-many-points":
            text = #"{"line": [["# + Array(repeating: "[0,0]", count: 1_000_001).joined(separator: ",") + "]]}"
        case "over-64MiB":
            let file = dir.file("\(name).json")
            #expect(FileManager.default.createFile(atPath: file, contents: Data(transients(transient(0)).utf8)))
            let handle = try #require(FileHandle(forWritingAtPath: file))
            try handle.truncate(atOffset: UInt64(64 << 20) + 1)  // sparse
            try handle.close()
            return file
        case "ahap-missing-duration":
            return try dir.write(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous"}}]}"#, to: "\(name).ahap")
        default:
            Issue.record("unknown bad input \(name)")
            text = ""
        }
        return try dir.write(text, to: "\(name).json")
    }

    @Test("each bad input exits 65 with one error line naming the file, and leaves no output",
          arguments: CLITests.badInputs.map(\.name))
    func badInput(_ name: String) throws {
        let rule = try #require(Self.badInputs.first { $0.name == name }?.rule)
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try Self.makeBadInput(name, in: dir)
        let outputs = try dir.directory("out")
        for (command, output) in [("render", "out.wav"), ("convert", "out.ahap"), ("convert", "out.json")] {
            let target = outputs + "/" + output
            let r = try CLI.run([command, input, "-o", target])
            #expect(r.status == 65, "\(command) \(name): \(r)")
            #expect(r.stderrLines.count == 1, "\(command) \(name): exactly one line: \(r)")
            let line = r.stderrLines.first ?? ""
            #expect(line.hasPrefix("pulsar: error: \(input)"), "\(line)")
            #expect(line.hasSuffix("[\(rule)]"), "\(line)")
            #expect(r.stdout.isEmpty)
            #expect(!dir.exists(target), "\(target) must not exist")
            let leftovers = dir.contents(of: outputs)
            #expect(leftovers.isEmpty, "nothing left in the output directory, no .*.partial-*: \(leftovers)")
        }
        let info = try CLI.run(["info", input, "--json"])
        #expect(info.status == 65, "\(info)")
        #expect(info.stdout.isEmpty && info.stderrLines.count == 1)
    }

    @Test("the bad-input list covers every error rule of the table")
    func badInputCoverage() {
        let rules = Set(Self.badInputs.map(\.rule))
        for rule in ["malformed-json", "wrong-type", "non-finite", "negative-time", "value-out-of-range", "unsorted",
                     "duplicate-time", "empty-pattern", "too-long", "too-many-points", "file-too-large"] {
            #expect(rules.contains(rule), "\(rule)")
        }
        #expect(Set(Self.badInputs.map(\.name)).count == Self.badInputs.count)
    }

    // MARK: Render

    @Test("render writes a float WAV with the worked example's frames and samples")
    func renderFloat() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.workedExample, to: "in.json")
        let output = dir.file("out.wav")
        let r = try CLI.run(["render", input, "-o", output])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderrLines.contains { $0.hasPrefix("wrote \(output): 1280 frames") }, "\(r)")
        let wav = try AudioFileContents(contentsOf: output)
        #expect(wav.sampleRate == 48_000)
        #expect(wav.channels == 1)
        #expect(wav.frameCount == 1280)
        // Plain RIFF/WAVE (SF_FORMAT_WAV): RF64 only past 4 GiB.
        #expect(wav.formatCode & 0x0FFF_0000 == 0x01_0000, "container 0x\(String(wav.formatCode, radix: 16))")
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)).prefix(12))
        #expect(header.count == 12 && header[0..<4].elementsEqual("RIFF".utf8) && header[8..<12].elementsEqual("WAVE".utf8))
        #expect(wav.formatCode & 0xFFFF == 0x0006, "SF_FORMAT_FLOAT")
        try #require(wav.samples.count == 1280)
        #expect(wav.samples[0...480].allSatisfy { $0 == 0 }, "silent up to the onset")
        #expect(abs(wav.samples[672] - 0.5) <= 2e-4)
        #expect(abs(wav.samples[600] - -0.0428384) <= 2e-4)
        #expect(dir.contents() == ["in.json", "out.wav"], "no temporary file left")
        // --quiet prints nothing.
        let quiet = try CLI.run(["render", input, "-o", output, "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet)")
    }

    @Test("render --format s16 / s24 writes PCM WAV at the requested rate",
          arguments: [("s16", 0x0002), ("s24", 0x0003), ("float", 0x0006)] as [(String, Int32)])
    func renderFormats(_ format: String, _ subtype: Int32) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.fullPattern, to: "in.json")
        let output = dir.file("out.wav")
        let r = try CLI.run(["render", input, "-o", output, "--format", format, "--rate", "8000", "--quiet"])
        #expect(r.status == 0, "\(r)")
        let wav = try AudioFileContents(contentsOf: output)
        #expect(wav.formatCode & 0xFFFF == subtype, "format code 0x\(String(wav.formatCode, radix: 16))")
        #expect(wav.sampleRate == 8000)
        #expect(wav.channels == 1)
        let loaded = try PatternLoader().load(contentsOf: input)
        let expected = try PatternRenderer(pattern: loaded.pattern, sampleRate: SampleRate(8000)!, profile: .wideband).frameCount
        #expect(wav.frameCount == Int(expected))
        #expect(wav.frameCount >= 120 * 8, "at least the 120 ms continuous part")
        #expect(wav.samples.contains { abs($0) > 0.05 }, "not silent")
        #expect(wav.samples.allSatisfy { abs($0) <= 1 })
    }

    @Test("render reads AHAP and .haptic inputs")
    func renderOtherFormats() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let ahap = try dir.write(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.1}}, {"Event": {"Time": 0.05, "EventType": "HapticTransient"}}]}"#, to: "in.ahap")
        let haptic = try dir.write(#"{"signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.1, "amplitude": 0.5}]}}}}"#, to: "in.haptic")
        for input in [ahap, haptic] {
            let output = input + ".wav"
            let r = try CLI.run(["render", input, "-o", output, "--quiet"])
            #expect(r.status == 0, "\(r)")
            #expect(try AudioFileContents(contentsOf: output).frameCount >= 4800, "100 ms at 48 kHz")
        }
    }

    @Test("writing into a directory that does not exist exits 74 and creates nothing", arguments: [
        ("render", "out.wav"), ("convert", "out.ahap"), ("convert", "out.json"),
    ])
    func missingOutputDirectory(_ command: String, _ name: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.fullPattern, to: "in.json")
        let missing = dir.file("no/such/dir")
        let r = try CLI.run([command, input, "-o", missing + "/" + name, "--quiet"])
        #expect(r.status == 74, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderrLines[0].hasPrefix("pulsar: error:"), "\(r)")
        #expect(r.stderr.contains(name), "names the output: \(r)")
        #expect(!dir.exists(dir.file("no")), "no directory created")
        #expect(dir.contents() == ["in.json"])
    }

    // MARK: Convert

    @Test("convert .json → .ahap → .json keeps the pattern")
    func convertRoundTrip() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.fullPattern, to: "in.json")
        let ahap = dir.file("mid.ahap"), back = dir.file("back.json")
        let r1 = try CLI.run(["convert", input, "-o", ahap])
        #expect(r1.status == 0, "\(r1)")
        #expect(r1.stderrLines.contains { $0.hasPrefix("wrote \(ahap): Apple AHAP") }, "\(r1)")
        let doc = try JSONParser().parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: ahap))))
        #expect(doc["Pattern"]?.array?.isEmpty == false)
        #expect(doc["Version"]?.number == 1)
        let r2 = try CLI.run(["convert", ahap, "-o", back, "--quiet"])
        #expect(r2.status == 0 && r2.stderr.isEmpty, "\(r2)")

        let original = try PatternLoader().load(contentsOf: input).pattern
        let final = try PatternLoader().load(contentsOf: back)
        #expect(final.format == .pulsarJSON)
        let p = final.pattern
        #expect(p.discretePattern.count == original.discretePattern.count)
        for (a, b) in zip(p.discretePattern, original.discretePattern) {
            #expect(abs(a.time - b.time) <= 1e-3 && abs(a.amplitude - b.amplitude) <= 1e-3 && abs(a.frequency - b.frequency) <= 1e-3)
        }
        let curves = [(Curve(p.continuousPattern.amplitude), Curve(original.continuousPattern.amplitude)),
                      (Curve(p.continuousPattern.frequency), Curve(original.continuousPattern.frequency))]
        for (x, y) in curves {
            for t in stride(from: 0.0, through: 120, by: 2.5) {
                #expect(abs(x.value(at: t) - y.value(at: t)) <= 1e-3, "t = \(t)")
            }
        }
        #expect(dir.contents() == ["back.json", "in.json", "mid.ahap"])
    }

    @Test("convert --raw writes line/bar and reads back exactly")
    func convertRaw() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.fullPattern, to: "in.json")
        let raw = dir.file("raw.json")
        let r = try CLI.run(["convert", input, "-o", raw, "--raw", "--quiet"])
        #expect(r.status == 0, "\(r)")
        let doc = try JSONParser().parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
        #expect(doc.object?.map(\.key) == ["line", "bar"])
        let loaded = try PatternLoader().load(contentsOf: raw)
        #expect(loaded.format == .pulsarRaw)
        #expect(loaded.pattern == (try PatternLoader().load(contentsOf: input)).pattern)
    }

    // MARK: Info

    @Test("info --json parses and has the expected keys and values")
    func infoJSON() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.workedExample, to: "in.json")
        let r = try CLI.run(["info", input, "--json"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderrLines.allSatisfy { $0.hasPrefix("pulsar: warning: ") }, "only warnings on stderr: \(r)")
        let doc = try JSONParser().parse(Array(r.stdout.utf8))
        let keys = try #require(doc.object?.map(\.key))
        #expect(keys == ["file", "format", "durationMs", "continuousEndMs", "renderedMs", "renderedFrames", "sampleRate",
                         "profile", "amplitudePoints", "frequencyPoints", "transients", "amplitudeRange", "frequencyRange",
                         "transientAmplitudeRange", "transientFrequencyRange", "scaledFromSeconds", "warnings"])
        #expect(doc["file"]?.string == input)
        #expect(doc["format"]?.string == "pulsar")
        #expect(doc["durationMs"]?.number == 10)
        #expect(doc["continuousEndMs"]?.number == 0)
        #expect(doc["renderedFrames"]?.number == 1280)
        #expect(doc["sampleRate"]?.number == 48_000)
        #expect(doc["profile"]?.string == "wideband")
        #expect(doc["transients"]?.number == 1)
        #expect(doc["amplitudePoints"]?.number == 0)
        #expect(doc["amplitudeRange"]?.typeName == "null")
        #expect(doc["transientAmplitudeRange"]?.array?.compactMap(\.number) == [0.5, 0.5])
        if case .bool(let scaled)? = doc["scaledFromSeconds"]?.kind { #expect(!scaled) } else { Issue.record("scaledFromSeconds") }
        // 10 ms with whole times: the documented short-pattern warning, as one line.
        let warnings = try #require(doc["warnings"]?.array)
        #expect(warnings.count == 1)
        #expect(warnings.first?.string?.hasSuffix("[short-pattern]") == true)

        // Settings show up; a seconds file says so.
        let seconds = try dir.write(#"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}, {"time": 0.149, "amplitude": 1, "frequency": 1}]}"#, to: "s.json")
        let r2 = try CLI.run(["info", seconds, "--json", "--rate", "8000", "--profile", "lra"])
        #expect(r2.status == 0, "\(r2)")
        let doc2 = try JSONParser().parse(Array(r2.stdout.utf8))
        #expect(doc2["sampleRate"]?.number == 8000)
        #expect(doc2["profile"]?.string == "lra:170")
        #expect(doc2["durationMs"]?.number == 149)
        if case .bool(let scaled)? = doc2["scaledFromSeconds"]?.kind { #expect(scaled) } else { Issue.record("scaledFromSeconds") }
        #expect(doc2["warnings"]?.array?.contains { $0.string?.hasSuffix("[times-in-seconds]") == true } == true)
        let ms = try JSONParser().parse(Array(try CLI.run(["info", seconds, "--json", "--time-unit", "ms"]).stdout.utf8))
        #expect(ms["durationMs"]?.number == 0.149)
    }

    @Test("info without --json prints a readable summary")
    func infoText() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.fullPattern, to: "in.json")
        let r = try CLI.run(["info", input])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("format:      Pulsar JSON"))
        #expect(r.stdout.contains("transients:  2"))
        #expect(r.stdout.contains("amplitude:   3 points"))
        #expect(r.stdout.contains("warnings:    0"))
    }
}
