import Foundation
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile inputs and options, each once through the `pulsar` executable: numbers beyond every
/// limit, damaged replay logs, FIFOs where files are expected, an output that is the input, a
/// non-UTF-8 name. Each must end with its documented exit code and one line naming the rule,
/// leave no output and no temporary file, and stay within 2 s of CPU and 500 MB of memory.
@Suite("Hostile inputs")
struct HostileInputTests {
    /// Inputs shared by every case, made once from `Resources/` (read-only to the cases).
    struct Fixture: Sendable {
        let dir: String
        var pattern: String { dir + "/demo.json" }
        var bundle: String { dir + "/bundle" }
        var lottie: String { dir + "/bundle/animation/heartbeat.json" }
        var log: String { dir + "/good.jsonl" }
        var fifo: String { dir + "/fifo.json" }
        func file(_ name: String) -> String { dir + "/" + name }
    }

    static let resources = CLI.resources

    static let fixture: Result<Fixture, any Error> = Result {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("pulsar-hostile-\(UUID().uuidString.prefix(8))").path
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let f = Fixture(dir: dir)
        try fm.copyItem(atPath: resources + "/patterns/demo.json", toPath: f.pattern)
        try fm.copyItem(atPath: resources + "/demo-bundle", toPath: f.bundle)
        try fm.createDirectory(atPath: f.bundle + "/audio", withIntermediateDirectories: true)
        let audio = try CLI.run(["render", f.pattern, "-o", f.bundle + "/audio/heartbeat.wav", "--quiet"])
        guard audio.status == 0 else { throw Failure(description: "making the bundle's audio: \(audio)") }
        try "at 0 play\nat 100 loop 2\nat 300 stop\n".write(toFile: f.file("good.txt"), atomically: true, encoding: .utf8)
        let play = try CLI.run(["play", f.pattern, "--device", "sim", "--quiet", "--script", f.file("good.txt"), "--log", f.log])
        guard play.status == 0 else { throw Failure(description: "making the log: \(play)") }
        guard mkfifo(f.fifo, 0o644) == 0 else { throw Failure(description: "mkfifo: \(String(cString: strerror(errno)))") }

        // Manifests with numbers beyond the limits.
        for (name, edit) in [("dur", { (m: inout [String: Any]) in Self.setPreset(&m, 2, "duration", 1e300) }),
                             ("off", { (m: inout [String: Any]) in Self.setAudio(&m, "offset", 1e308) }),
                             ("offneg", { (m: inout [String: Any]) in Self.setAudio(&m, "offset", -1e308) })] {
            try fm.copyItem(atPath: f.bundle, toPath: f.file(name))
            let path = f.file(name) + "/manifest.json"
            var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
            edit(&manifest)
            try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: path))
        }
        // The bundle zipped with its audio stored, then one byte of the audio flipped: a CRC error.
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        zip.arguments = ["-c", """
            import zipfile, os, sys
            src, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
                for root, _, files in os.walk(src):
                    for f in files:
                        p = os.path.join(root, f); z.write(p, os.path.relpath(p, src))
            b = bytearray(open(out, 'rb').read())
            i = b.find(b'data', b.find(b'audio/heartbeat.wav'))
            b[i + 5000] ^= 0xFF
            open(out, 'wb').write(b)
            """, f.bundle, f.file("crc.pulsar")]
        try zip.run()
        zip.waitUntilExit()
        guard zip.terminationStatus == 0 else { throw Failure(description: "making crc.pulsar") }
        // Animations with a huge or tiny frame rate, canvas or out point.
        let lottie = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: f.lottie))) as! [String: Any]
        for (name, key, value) in [("fr", "fr", 1e300), ("w", "w", 1e300), ("h", "h", 1e20), ("op", "op", 1e300), ("frtiny", "fr", 1e-300)] {
            var doc = lottie
            doc[key] = value
            try JSONSerialization.data(withJSONObject: doc).write(to: URL(fileURLWithPath: f.file("l-\(name).json")))
        }
        // A stroked path, and the same with one number beyond rlottie's bounds each.
        for (name, tangent, width, copies) in [("g-ok", "3", "2", "3"), ("g-tangent", "1e12", "2", "3"), ("g-width", "3", "100000", "3"),
                                               ("g-copies", "3", "2", "1e7")] {
            try Self.strokedPath(tangent: tangent, width: width, copies: copies).write(toFile: f.file(name + ".json"), atomically: true, encoding: .utf8)
        }
        try Self.strokedPath(tangent: "3", width: "2", copies: "500", nested: true).write(toFile: f.file("g-nested.json"), atomically: true, encoding: .utf8)
        // Scripts with times and values beyond the limits.
        for (name, text) in [("s-at", "at 1e300 stop\n"), ("s-at15", "at 1e15 pause\n"), ("s-offset", "at 0 play\nat 10 offset 1e300\n"),
                             ("s-play", "at 0 play -1e300\n"), ("s-gain", "at 0 gain audio 1e300\n")] {
            try text.write(toFile: f.file(name + ".txt"), atomically: true, encoding: .utf8)
        }
        // Logs with one field damaged.
        let lines = try String(contentsOfFile: f.log, encoding: .utf8).split(separator: "\n").map(String.init)
        for (name, event, key, value) in Self.logDamage {
            let damaged = try lines.map { line -> String in
                var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                guard object["event"] as? String == event else { return line }
                if key.hasPrefix("state.") {
                    var state = object["state"] as! [String: Any]
                    state[String(key.dropFirst(6))] = value
                    object["state"] = state
                } else {
                    object[key] = value
                }
                return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            }
            try (damaged.joined(separator: "\n") + "\n").write(toFile: f.file(name + ".jsonl"), atomically: true, encoding: .utf8)
        }
        try fm.copyItem(atPath: f.pattern, toPath: f.file("same.json"))
        try #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.5}], "frequency": [{"time": 0, "value": 0.5}]}}"#
            .write(toFile: f.file("single.json"), atomically: true, encoding: .utf8)
        return f
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A 240×240 animation: one group with a stroked two-point path and a repeater (nested in a
    /// second repeating group when `nested`).
    static func strokedPath(tangent: String, width: String, copies: String, nested: Bool = false) -> String {
        let transform = #"{"ty": "tr", "p": {"a": 0, "k": [0, 0]}, "a": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [100, 100]}, "r": {"a": 0, "k": 0}, "o": {"a": 0, "k": 100}}"#
        let repeater = #"{"ty": "rp", "nm": "R", "c": {"a": 0, "k": \#(copies)}, "o": {"a": 0, "k": 0}, "m": 1, "tr": {"ty": "tr", "p": {"a": 0, "k": [5, 0]}, "a": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [100, 100]}, "r": {"a": 0, "k": 0}, "so": {"a": 0, "k": 100}, "eo": {"a": 0, "k": 100}}}"#
        var group = #"{"ty": "gr", "nm": "G", "it": [{"ty": "sh", "nm": "P", "ks": {"a": 0, "k": {"i": [[0, 0], [\#(tangent), 0]], "o": [[0, 0], [0, 0]], "v": [[0, 0], [60, 60]], "c": false}}}, {"ty": "st", "nm": "S", "c": {"a": 0, "k": [1, 0, 0, 1]}, "o": {"a": 0, "k": 100}, "w": {"a": 0, "k": \#(width)}, "lc": 2, "lj": 2}, \#(repeater), \#(transform)]}"#
        if nested { group = #"{"ty": "gr", "nm": "Outer", "it": [\#(group), \#(repeater), \#(transform)]}"# }
        return #"{"v": "5.7.0", "fr": 30, "ip": 0, "op": 30, "w": 240, "h": 240, "layers": [{"ty": 4, "nm": "L", "ip": 0, "op": 30, "st": 0, "ks": {"o": {"a": 0, "k": 100}, "r": {"a": 0, "k": 0}, "p": {"a": 0, "k": [120, 120, 0]}, "a": {"a": 0, "k": [0, 0, 0]}, "s": {"a": 0, "k": [100, 100, 100]}}, "shapes": [\#(group)]}]}"#
    }

    static func setPreset(_ m: inout [String: Any], _ index: Int, _ key: String, _ value: Any) {
        var presets = m["presets"] as! [[String: Any]]
        presets[index][key] = value
        m["presets"] = presets
    }

    static func setAudio(_ m: inout [String: Any], _ key: String, _ value: Any) {
        var presets = m["presets"] as! [[String: Any]]
        var audio = presets[0]["audio"] as! [String: Any]
        audio[key] = value
        presets[0]["audio"] = audio
        m["presets"] = presets
    }

    static let logDamage: [(String, String, String, Double)] = [
        ("h-rate", "header", "sampleRate", 1e300), ("h-offset", "header", "hapticOffset", 1e300),
        ("h-audio", "header", "audioOffset", 9.3e18), ("h-from", "header", "from", 1e300), ("h-duration", "header", "duration", 1e300),
        ("c-request", "command", "requestTimeNs", 9.3e18), ("c-timeline", "command", "state.timelineFrame", 1e300),
        ("c-anchor", "command", "state.anchor", 9.3e18), ("c-argument", "command", "argument", 1e300),
        ("e-negative", "end", "playedFrames", -1), ("e-huge", "end", "playedFrames", 1e14),
    ]

    /// One case: the arguments (`%F/name` is a fixture file, `%O/name` a file in the case's own
    /// output folder), the exit code, and the rule its line must name.
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        var rule: String
        var testDescription: String { arguments.joined(separator: " ") }
        init(_ arguments: String, _ status: Int32, _ rule: String) {
            self.arguments = arguments.split(separator: " ").map(String.init)
            self.status = status
            self.rule = rule
        }
    }

    static let cases: [Case] = [
        Case("render %F/demo.json --offset 1e300 -o %O/o.wav", 64, "[too-long]"),
        Case("render %F/demo.json --duration 1e300 -o %O/o.wav", 64, "[too-long]"),
        Case("render %F/demo.json --duration 86400001 -o %O/o.wav", 64, "[too-long]"),
        Case("render %F/demo.json --from 1e300 -o %O/o.wav", 64, "[too-long]"),
        Case("render %F/demo.json --audio-offset -1e300 -o %O/o.wav", 64, "[too-long]"),
        Case("render %F/demo.json --loop 1000000 -o %O/o.wav", 64, "[too-long]"),
        Case("info %F/dur", 65, "(too-long) [bad-value]"),
        Case("render %F/dur --preset tap -o %O/o.wav", 65, "(too-long) [bad-value]"),
        Case("info %F/off", 65, "(too-long) [bad-value]"),
        Case("play %F/off --device sim --quiet", 65, "(too-long) [bad-value]"),
        Case("info %F/offneg", 65, "(too-long) [bad-value]"),
        Case("frame %F/bundle --preset heartbeat --at 1e300 -o %O/f.png", 64, "[too-long]"),
        Case("frame %F/bundle --preset heartbeat --frame 1e20 -o %O/f.png", 64, "[value-out-of-range]"),
        Case("frame %F/bundle --preset heartbeat --frame 0 --size 8192x8192 -o %O/f.png", 64, "[too-large]"),
        Case("frame %F/l-fr.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/l-w.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/l-h.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/l-op.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/l-frtiny.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/g-tangent.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/g-width.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/g-copies.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("frame %F/g-nested.json --frame 0 -o %O/f.png", 65, "[bad-value]"),
        Case("play %F/demo.json --device sim --quiet --script %F/s-at.txt", 65, "[too-long]"),
        Case("play %F/demo.json --device sim --quiet --script %F/s-at15.txt", 65, "[too-long]"),
        Case("play %F/demo.json --device sim --quiet --script %F/s-offset.txt", 65, "[too-long]"),
        Case("play %F/demo.json --device sim --quiet --script %F/s-play.txt", 65, "[negative-time]"),
        Case("play %F/demo.json --device sim --quiet --script %F/s-gain.txt", 65, "[value-out-of-range]"),
        Case("play %F/demo.json --device sim --quiet --script %F/fifo.json", 66, "[not-a-file]"),
        Case("render %F/fifo.json -o %O/o.wav", 66, "[unreadable]"),
        Case("info %F/fifo.json", 66, "[unreadable]"),
        Case("frame %F/fifo.json --frame 0 -o %O/f.png", 66, "[unreadable]"),
        Case("render --replay %F/fifo.json -o %O/o.wav", 66, "[not-a-file]"),
        Case("render %F/same.json -o %F/same.json", 64, "[output-is-input]"),
        Case("render %F/single.json -o %O/o.wav", 65, "[empty-pattern]"),
        Case("render %F/crc.pulsar --preset heartbeat -o %O/o.wav", 65, "CRC error [corrupt]"),
        Case("play %F/crc.pulsar --preset heartbeat --device sim --quiet", 65, "CRC error [corrupt]"),
        Case("info %F/crc.pulsar", 65, "CRC error [corrupt]"),
        Case("render --replay %F/good.jsonl -o %F/good.jsonl", 64, "[output-is-input]"),
    ] + logDamage.map { Case("render --replay %F/\($0.0).jsonl -o %O/o.wav", 65, $0.0.hasPrefix("h-") && $0.2.hasSuffix("Offset") || $0.2 == "from" || $0.2 == "duration" ? "[too-long]" : "[value-out-of-range]") }

    @Test(arguments: cases)
    func refusedWithOneLine(_ c: Case) throws {
        let f = try Self.fixture.get()
        let out = try TempDir()
        defer { out.remove() }
        let before = try FileManager.default.subpathsOfDirectory(atPath: f.dir).sorted()
        let arguments = c.arguments.map { $0.replacingOccurrences(of: "%F", with: f.dir).replacingOccurrences(of: "%O", with: out.path) }
        let run = try CLI.runMeasured(arguments)
        #expect(!run.killed, "still running after \(CLI.hangLimit) s")
        #expect(run.result.status == c.status, "\(run.result)")
        #expect(run.result.stderrLines.count == 1, "\(run.result)")
        #expect(run.result.stderr.contains(c.rule), "\(run.result)")
        #expect(out.contents().isEmpty, "left behind: \(out.contents())")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: f.dir).sorted() == before, "the inputs changed")
        #expect(run.cpuSeconds <= 2, "\(run.cpuSeconds) s of CPU")
        #expect(run.maxResidentBytes <= 500 << 20, "\(run.maxResidentBytes >> 20) MB resident")
    }

    /// The stroked path within bounds renders (the limits refuse the hostile ones, not this),
    /// and `--set` cannot hand rlottie a stroke width beyond them either.
    @Test func boundedGeometryRendersAndSetIsChecked() throws {
        let f = try Self.fixture.get()
        let dir = try TempDir()
        defer { dir.remove() }
        let ok = try CLI.runMeasured(["frame", f.file("g-ok.json"), "--frame", "0", "-o", dir.file("ok.png")])
        #expect(ok.result.status == 0 && dir.exists(dir.file("ok.png")), "\(ok.result)")
        let set = try CLI.runMeasured(["frame", f.file("g-ok.json"), "--frame", "0", "--set", "**.Stroke Width=100000", "-o", dir.file("set.png")])
        #expect(set.result.status == 64 && set.result.stderr.contains("[too-large]"), "\(set.result)")
        #expect(!dir.exists(dir.file("set.png")))
        #expect(set.cpuSeconds <= 2 && ok.cpuSeconds <= 2)
    }

    /// A damaged MP3 in a real bundle: mpg123's own complaints arrive as our warnings (prefix,
    /// file, count, rule), never as bare library text; the render still completes.
    @Test(.enabled(if: SharedCorpus.available("bundles/demo.pulsar"), "needs ../shared/corpus"))
    func decoderMessagesAreWrapped() throws {
        let bundle = try SharedCorpus.path("bundles/demo.pulsar")
        let dir = try TempDir()
        defer { dir.remove() }
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        unzip.arguments = ["-c", "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", bundle, dir.file("b")]
        try unzip.run()
        unzip.waitUntilExit()
        let mp3 = dir.file("b/audio/sample-3s.mp3")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: mp3)))
        for i in stride(from: 5000, to: bytes.count, by: 997) { bytes[i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: mp3))
        let run = try CLI.runMeasured(["render", dir.file("b"), "--preset", "verified", "-o", dir.file("o.wav")])
        #expect(run.result.status == 0, "\(run.result)")
        let lines = run.result.stderrLines
        #expect(lines.contains { $0.hasPrefix("pulsar: warning: audio/sample-3s.mp3: the decoder said: ") && $0.hasSuffix("[decoder-message]") }, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("pulsar: ") || $0.hasPrefix("wrote ") }, "bare library text: \(lines)")
    }

    /// `-o /dev/null` is written to, not replaced: it is still the null device afterwards.
    @Test func renderToDevNull() throws {
        let f = try Self.fixture.get()
        let run = try CLI.runMeasured(["render", f.pattern, "-o", "/dev/null", "--quiet"])
        #expect(run.result.status == 0, "\(run.result)")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/null is no longer a device")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.hasPrefix(".null.partial") }.isEmpty)
    }

    /// A FIFO output is written through (a reader gets the whole WAV), not replaced by a file.
    @Test func renderIntoAFIFO() throws {
        let f = try Self.fixture.get()
        let dir = try TempDir()
        defer { dir.remove() }
        let fifo = dir.file("out.wav")
        try #require(mkfifo(fifo, 0o644) == 0)
        let reference = dir.file("ref.wav")
        #expect(try CLI.run(["render", f.pattern, "-o", reference, "--quiet"]).status == 0)
        final class Box: @unchecked Sendable { var data = Data() }
        let received = Box()
        let reader = Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received.data = handle.readDataToEndOfFile() }
        }
        reader.start()
        let run = try CLI.runMeasured(["render", f.pattern, "-o", fifo, "--quiet"])
        while !reader.isFinished { usleep(1000) }
        #expect(run.result.status == 0, "\(run.result)")
        #expect(received.data == FileManager.default.contents(atPath: reference), "the FIFO's reader got \(received.data.count) bytes")
        #expect(InputKind.isFIFO(fifo))
    }

    /// A name that is not UTF-8 is reported as such, not as a missing file.
    @Test func nonUTF8Name() throws {
        // Built as raw bytes: Swift strings cannot hold invalid UTF-8, so spawn through /bin/sh.
        let executable = try CLI.executable()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec \"$0\" info \"$(printf '/tmp/\\377\\376.json')\" 2>&1", executable]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 64, "\(text)")
        #expect(text.contains("not valid UTF-8") && text.contains("\\xff\\xfe") && text.contains("[not-utf8]"), "\(text)")
    }

    /// 100 000 unknown members and a 1 MB key: the warnings come grouped (each kind once, with
    /// how many more), and nothing echoed from the input makes a line long.
    @Test func warningsAreGroupedAndShort() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        var text = #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.5}, {"time": 100, "value": 0.5}], "#
            + #""frequency": [{"time": 0, "value": 0.5}]}"#
        for k in 0..<100_000 { text += ",\"k\(k)\": \(k)" }
        text += ",\"" + String(repeating: "x", count: 1_000_000) + "\": 1}"
        let path = try dir.write(text, to: "w.json")
        let run = try CLI.runMeasured(["render", path, "-o", dir.file("w.wav")])
        #expect(run.result.status == 0, "\(run.result)")
        let warnings = run.result.stderrLines.filter { $0.hasPrefix("pulsar: warning:") }
        #expect(warnings.count == 1, "\(warnings.count) warning lines")
        #expect(warnings.first?.hasSuffix("[ignored] (and 100000 more like it)") == true, "\(warnings.first ?? "")")
        #expect(run.result.stderrLines.allSatisfy { $0.utf8.count < 1000 }, "a line of \(run.result.stderrLines.map(\.utf8.count).max() ?? 0) bytes")
        #expect(run.cpuSeconds <= 2)
    }

    /// Forty mix changes at one instant (more than the player's table holds in flight) all take
    /// effect, in order: none is dropped.
    @Test func manyMixChangesAtOneInstant() throws {
        let f = try Self.fixture.get()
        let dir = try TempDir()
        defer { dir.remove() }
        var script = "at 0 play\n"
        for k in 0..<40 { script += "at 100 gain audio 0.\(k % 9 + 1)\n" }
        script += "at 400 stop\n"
        let path = try dir.write(script, to: "s.txt")
        let run = try CLI.run(["play", f.pattern, "--device", "sim", "--script", path, "--log", dir.file("l.jsonl")])
        #expect(run.status == 0, "\(run)")
        let log = try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8)
        let gains = log.split(separator: "\n").filter { $0.contains("\"name\": \"mix\"") }
            .compactMap { line in line.range(of: "\"audioGain\": ").map { line[$0.upperBound...].prefix(3) } }
        #expect(gains.count == 40, "\(gains.count) mix changes logged")
        #expect(gains == (0..<40).map { "0.\($0 % 9 + 1)"[...] }, "in script order")
    }

    /// A log whose mix generation is huge replays (generations are renumbered, not used as a
    /// table size) to the same samples as the log it was made from.
    @Test func hugeGenerationReplays() throws {
        let f = try Self.fixture.get()
        let dir = try TempDir()
        defer { dir.remove() }
        let text = try String(contentsOfFile: f.log, encoding: .utf8)
        let generations = text.components(separatedBy: "\"generation\": ").count - 1
        try #require(generations >= 1, "the script makes one mix change")
        try text.replacingOccurrences(of: "\"generation\": 1,", with: "\"generation\": 1000000000,")
            .replacingOccurrences(of: "\"mix\": 1,", with: "\"mix\": 1000000000,")
            .write(toFile: dir.file("g.jsonl"), atomically: true, encoding: .utf8)
        let huge = try CLI.runMeasured(["render", "--replay", dir.file("g.jsonl"), "-o", dir.file("g.wav"), "--quiet"])
        let plain = try CLI.run(["render", "--replay", f.log, "-o", dir.file("p.wav"), "--quiet"])
        #expect(huge.result.status == 0 && plain.status == 0, "\(huge.result) \(plain)")
        #expect(huge.maxResidentBytes <= 500 << 20)
        #expect(FileManager.default.contents(atPath: dir.file("g.wav")) == FileManager.default.contents(atPath: dir.file("p.wav")))
    }
}

/// The kind of a path, for checks.
enum InputKind {
    static func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }
}
