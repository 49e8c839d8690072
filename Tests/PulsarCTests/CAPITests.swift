import Foundation
import PulsarAudio
import PulsarDerive
import PulsarTestSupport
import Testing

/// libpulsar from C: the example and a program of bad calls compiled with `cc` against
/// include/pulsar.h and the built library (staged as `libpulsar.so`, its SONAME's name), run, and
/// their output compared with the CLI's, bit for bit.
@Suite("C API")
struct CAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The dynamic library SwiftPM built beside the tests.
    static let library = BuiltProduct.path("libPulsarC.so")
    static let available = FileManager.default.fileExists(atPath: library)
        || ProcessInfo.processInfo.environment["CI"] == "true"  // under CI a missing library is a failure

    /// `pulsar` (built beside the tests) with `arguments`.
    static func cli(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try run(try BuiltProduct.executable("pulsar"), arguments)
    }

    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// A folder holding the library as `libpulsar.so.0` with the `libpulsar.so` link, and `source`
    /// compiled against it to `name`; the program's path.
    static func compile(_ source: String, named name: String, in dir: Scratch) throws -> String {
        let lib = dir.file("lib")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: lib + "/libpulsar.so.0") {
            try FileManager.default.copyItem(atPath: library, toPath: lib + "/libpulsar.so.0")
            try FileManager.default.createSymbolicLink(atPath: lib + "/libpulsar.so", withDestinationPath: "libpulsar.so.0")
        }
        let program = dir.file(name)
        let cc = try run("/usr/bin/cc", ["-std=c11", "-Wall", "-Wextra", "-Werror", source, "-I", root.path + "/include", "-L", lib, "-lpulsar",
                                         "-Wl,-rpath," + lib, "-lm", "-o", program])
        #expect(cc.status == 0, "cc: \(cc.err)")
        return program
    }

    @Test("examples/c/render.c writes what `pulsar render` writes, bit for bit", .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func renderExample() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let render = try Self.compile(Self.root.path + "/examples/c/render.c", named: "render", in: dir)
        let pattern = Self.root.path + "/Resources/patterns/demo.json"
        for (layout, rate) in [("haptic", "48000"), ("L+H,R+H,0", "44100")] {
            let c = dir.file("c.wav"), cli = dir.file("cli.wav")
            let r = try Self.run(render, [pattern, c, "--layout", layout, "--rate", rate])
            #expect(r.status == 0 && r.out.contains("libpulsar 0.1.0"), "\(r)")
            #expect(try Self.cli(["render", pattern, "--layout", layout, "--rate", rate, "-o", cli, "--quiet"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: c)) == Data(contentsOf: URL(fileURLWithPath: cli)), "\(layout) at \(rate) Hz")
        }
        if SharedCorpus.available("bundles/demo.pulsar") {
            let bundle = try SharedCorpus.path("bundles/demo.pulsar")
            let c = dir.file("v.wav"), cli = dir.file("v-cli.wav")
            #expect(try Self.run(render, [bundle, c, "--preset", "verified", "--layout", "quad"]).status == 0)
            #expect(try Self.cli(["render", bundle, "--preset", "verified", "--layout", "quad", "-o", cli, "--quiet"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: c)) == Data(contentsOf: URL(fileURLWithPath: cli)), "a preset with its MP3 audio")
        }
        let missing = try Self.run(render, [dir.file("none.json"), dir.file("x.wav")])
        #expect(missing.status == 1 && missing.err.contains("missing-input"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.wav")))
    }

    /// Bad calls, one a line: what each returned and said.
    static let badCalls = #"""
    #include <pulsar.h>
    #include <math.h>
    #include <stddef.h>
    #include <stdio.h>
    #include <string.h>
    static void row(const char *name, int result) {
        const char *m = pulsar_last_error();
        printf("%s %d %s\n", name, result, m ? m : "-");
    }
    int main(void) {
        pulsar_pattern *p = NULL; pulsar_bundle *b = NULL; pulsar_mix *m = NULL;
        row("open-null-path", pulsar_pattern_open(NULL, &p));
        row("open-null-out", pulsar_pattern_open("x.json", NULL));
        row("open-bad-utf8", pulsar_pattern_open("\xff\xfe.json", &p));
        row("open-missing", pulsar_pattern_open("/nonexistent/p.json", &p));
        const char *nan = "{\"continuousPattern\":{\"amplitude\":[{\"time\":0,\"value\":NaN}]}}";
        row("memory-nan", pulsar_pattern_from_memory(nan, strlen(nan), &p));
        row("duration-null", (int)pulsar_pattern_duration_ms(NULL));
        row("mix-null-pattern", pulsar_mix_from_pattern(NULL, NULL, &m));
        row("bundle-missing", pulsar_bundle_open("/nonexistent.pulsar", &b));
        row("count-null", pulsar_bundle_preset_count(NULL));
        row("id-null", pulsar_bundle_preset_id(NULL, 0) == NULL ? -1 : 0);
        const char *ok = "{\"continuousPattern\":{\"amplitude\":[{\"time\":0,\"value\":0.5},{\"time\":100,\"value\":0.5}]}}";
        row("memory-ok", pulsar_pattern_from_memory(ok, strlen(ok), &p));
        pulsar_mix_options bad = PULSAR_MIX_OPTIONS_INIT;
        bad.layout = "Q,Z";
        row("mix-bad-layout", pulsar_mix_from_pattern(p, &bad, &m));
        pulsar_mix_options small = PULSAR_MIX_OPTIONS_INIT;
        small.size = 4;
        row("mix-small-options", pulsar_mix_from_pattern(p, &small, &m));
        pulsar_mix_options older = PULSAR_MIX_OPTIONS_INIT;
        older.size = offsetof(pulsar_mix_options, actuator);
        older.actuator = "/nonexistent.acf";
        row("mix-older-options", pulsar_mix_from_pattern(p, &older, &m));
        pulsar_mix_free(m);
        m = NULL;
        pulsar_mix_options acf = PULSAR_MIX_OPTIONS_INIT;
        acf.actuator = "/nonexistent.acf";
        row("mix-missing-actuator", pulsar_mix_from_pattern(p, &acf, &m));
        acf.actuator = "x.json";
        acf.profile = "lra";
        row("mix-actuator-and-profile", pulsar_mix_from_pattern(p, &acf, &m));
        pulsar_mix_options rate = PULSAR_MIX_OPTIONS_INIT;
        rate.sample_rate = 1;
        row("mix-bad-rate", pulsar_mix_from_pattern(p, &rate, &m));
        pulsar_mix_options gain = PULSAR_MIX_OPTIONS_INIT;
        gain.haptic_gain = NAN;
        row("mix-nan-gain", pulsar_mix_from_pattern(p, &gain, &m));
        row("mix-ok", pulsar_mix_from_pattern(p, NULL, &m));
        float buffer[64];
        row("render-null-buffer", pulsar_mix_render(m, 0, NULL, 64));
        row("render-negative", pulsar_mix_render(m, 0, buffer, -1));
        row("render-huge-frame", pulsar_mix_render(m, INT64_MAX, buffer, 64));
        row("render-ok", pulsar_mix_render(m, 4790, buffer, 64));
        row("render-pattern-as-mix", pulsar_mix_render((pulsar_mix *)p, 0, buffer, 64));
        row("write-null-path", pulsar_mix_write_wav(m, NULL));
        row("write-no-folder", pulsar_mix_write_wav(m, "/nonexistent/folder/x.wav"));
        pulsar_mix_free(m);
        pulsar_mix_free(m);
        row("mix-freed-twice", 0);
        row("render-freed", pulsar_mix_render(m, 0, buffer, 64));
        pulsar_pattern_free(p);
        pulsar_pattern_free(p);
        row("pattern-freed-twice", 0);
        row("duration-freed", (int)pulsar_pattern_duration_ms(p));
        pulsar_engine *e = NULL;
        pulsar_engine_options eo = PULSAR_ENGINE_OPTIONS_INIT;
        eo.device = "no-such-pcm";
        row("engine-missing-device", pulsar_engine_create(&eo, &e));
        eo.device = "sim";
        eo.log_path = "\xff.jsonl";
        row("engine-log-bad-utf8", pulsar_engine_create(&eo, &e));
        eo.log_path = NULL;
        eo.size = offsetof(pulsar_engine_options, log_path);  /* a caller built before log_path */
        row("engine-older-options", pulsar_engine_create(&eo, &e));
        pulsar_engine_free(e);
        eo.size = sizeof eo;
        eo.log_path = "/nonexistent/folder/log.jsonl";
        row("engine-log-ok", pulsar_engine_create(&eo, &e));
        pulsar_pattern_from_memory(ok, strlen(ok), &p);
        pulsar_mix_from_pattern(p, NULL, &m);
        pulsar_voice *v = NULL;
        row("engine-voice", pulsar_engine_voice(e, m, 0, 0, &v));
        row("engine-log-unwritable", pulsar_engine_stop(e));
        pulsar_voice_free(v);
        pulsar_engine_free(e);
        pulsar_mix_free(m);
        /* A mix at 8 kHz on a 48 kHz engine is refused (it would play six times too fast). */
        eo.log_path = NULL;
        row("engine-sim", pulsar_engine_create(&eo, &e));
        pulsar_mix_options slow = PULSAR_MIX_OPTIONS_INIT;
        slow.sample_rate = 8000;
        pulsar_mix_from_pattern(p, &slow, &m);
        row("voice-other-rate", pulsar_engine_voice(e, m, 0, 0, &v));
        pulsar_mix_free(m);
        pulsar_mix_from_pattern(p, NULL, &m);
        pulsar_engine_voice(e, m, 0, 0, &v);
        /* Ranges shared with the script: a ramp of more than 24 h, a time past 24 h ahead. */
        row("intensity-ramp-86401s", pulsar_voice_set_intensity(v, 0.5, 86401));
        row("sharpness-ramp-1e300s", pulsar_voice_set_sharpness(v, 0.5, 1e300));
        row("intensity-above-4", pulsar_voice_set_intensity(v, 5, 0));
        row("play-at-1e9s-ahead", pulsar_voice_play_at(v, pulsar_engine_time(e) + 1e9));
        row("master-ramp-negative", pulsar_engine_set_master_gain(e, 1, -1));
        /* The script's play and seek take 0 or more; its position (a realtime voice's content
           time) lies within 24 h either side of 0. */
        row("play-from-negative", pulsar_voice_play(v, -1));
        row("seek-negative", pulsar_voice_seek(v, -0.5));
        pulsar_voice *rt = NULL;
        pulsar_engine_voice(e, m, 0, 1, &rt);
        row("content-time-negative", pulsar_voice_set_content_time(rt, -1));
        row("content-time-past-24h", pulsar_voice_set_content_time(rt, -86400001));
        pulsar_voice_free(rt);
        /* After the engine is freed its voices' commands fail and they have ended. */
        pulsar_engine_free(e);
        row("play-after-free", pulsar_voice_play(v, 0));
        row("seek-after-free", pulsar_voice_seek(v, 10));
        row("intensity-after-free", pulsar_voice_set_intensity(v, 0.5, 0));
        row("ended-after-free", pulsar_voice_has_ended(v));
        pulsar_follower *f = NULL;
        pulsar_follower_options fo = PULSAR_FOLLOWER_OPTIONS_INIT;
        fo.size = 8;
        row("follower-small-options", pulsar_follower_create(&fo, &f));
        fo = (pulsar_follower_options)PULSAR_FOLLOWER_OPTIONS_INIT;
        fo.method = "loud";
        row("follower-bad-method", pulsar_follower_create(&fo, &f));
        fo.method = NULL; fo.band_low_hz = 300; fo.band_high_hz = 100;
        row("follower-empty-band", pulsar_follower_create(&fo, &f));
        fo.band_low_hz = 0; fo.band_high_hz = 0; fo.gate_db = 6;
        row("follower-bad-gate", pulsar_follower_create(&fo, &f));
        fo.gate_db = 0; fo.release_ms = NAN;
        row("follower-nan-release", pulsar_follower_create(&fo, &f));
        row("follower-null-out", pulsar_follower_create(NULL, NULL));
        row("follower-ok", pulsar_follower_create(NULL, &f));
        float in[4] = {0}, out[2];
        row("follower-null-input", pulsar_follower_process(f, NULL, 2, 2, out));
        row("follower-zero-channels", pulsar_follower_process(f, in, 0, 2, out));
        row("follower-process", pulsar_follower_process(f, in, 2, 2, out));
        pulsar_follower_free(f);
        row("follower-after-free", pulsar_follower_process(f, in, 2, 2, out));
        row("follower-onsets-after-free", (int)pulsar_follower_onsets(f));
        pulsar_voice_free(v);
        pulsar_mix_free(m);
        pulsar_pattern_free(p);
        printf("alive\n");
        return 0;
    }
    """#

    @Test("examples/c/follow.c: a game's mix in 256-frame blocks through pulsar_follower_* equals HapticFollower on the whole mix, bit for bit; every hit felt",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func followExample() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let follow = try Self.compile(Self.root.path + "/examples/c/follow.c", named: "follow", in: dir)
        let r = try Self.run(follow, [dir.file("h.f32"), dir.file("m.f32")])
        #expect(r.status == 0 && r.out == "onsets 4\n", "the drone's start and three hits: \(r)")
        func floats(_ name: String) throws -> [Float] {
            let data = try Data(contentsOf: URL(fileURLWithPath: dir.file(name)))
            return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        let haptics = try floats("h.f32"), mix = try floats("m.f32")
        try #require(haptics.count == 96_000 && mix.count == 192_000)
        // The follower's mono: the channels summed in order, in Float, then halved.
        let mono: [Float] = (0..<96_000).map { (i: Int) -> Float in
            let sum: Float = mix[2 * i] + mix[2 * i + 1]
            return sum / 2
        }
        let expected = try HapticFollower.process(mono, sampleRate: 48_000, settings: FollowSettings(band: 30...120))
        #expect(haptics == expected)
        #expect((haptics.map(abs).max() ?? 0) > 0.3)
    }

    @Test("Bad calls through the C API: NULL and freed handles, invalid UTF-8, NaN, missing files, bad options — an error code and a message each, the process alive",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func badInput() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let source = try dir.write(Self.badCalls, to: "bad.c")
        let program = try Self.compile(source, named: "bad", in: dir)
        let r = try Self.run(program, [])
        #expect(r.status == 0 && r.out.hasSuffix("alive\n"), "\(r)")
        var rows: [String: (code: Int, message: String)] = [:]
        for line in r.out.split(separator: "\n") where line != "alive" {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            rows[parts[0]] = (Int(parts[1]) ?? 99, parts.count > 2 ? parts[2] : "")
        }
        let expected: [(String, Int, String)] = [
            ("open-null-path", -1, "NULL or not UTF-8"), ("open-null-out", -1, "out is NULL"), ("open-bad-utf8", -1, "not UTF-8"),
            ("open-missing", -2, "no such file"), ("memory-nan", -3, "non-finite"), ("duration-null", -1, "not a live pulsar_pattern"),
            ("mix-null-pattern", -1, "not a live"), ("bundle-missing", -2, "nonexistent.pulsar"), ("count-null", -1, "not a live pulsar_bundle"),
            ("id-null", -1, "not a live pulsar_bundle"), ("memory-ok", 0, ""), ("mix-bad-layout", -1, "layout"), ("mix-small-options", -1, "PULSAR_MIX_OPTIONS_INIT"),
            ("mix-older-options", 0, ""), ("mix-missing-actuator", -2, "nonexistent.acf"), ("mix-actuator-and-profile", -1, "both name the device"),
            ("mix-bad-rate", -1, "sample_rate"), ("mix-nan-gain", -1, "haptic_gain"), ("mix-ok", 0, ""),
            ("render-null-buffer", -1, "NULL"), ("render-negative", -1, "out of range"), ("render-huge-frame", -1, "24 h"), ("render-ok", 0, ""),
            ("render-pattern-as-mix", -1, "not a live pulsar_mix"), ("write-null-path", -1, "not UTF-8"), ("write-no-folder", -4, "x.wav"),
            ("mix-freed-twice", 0, "freed twice"), ("render-freed", -1, "not a live pulsar_mix"), ("pattern-freed-twice", 0, "freed twice"),
            ("duration-freed", -1, "not a live pulsar_pattern"),
            ("engine-missing-device", -5, "no-such-pcm"), ("engine-log-bad-utf8", -1, "log_path"), ("engine-older-options", 0, ""),
            ("engine-log-ok", 0, ""), ("engine-voice", 0, ""), ("engine-log-unwritable", -4, "event log"),
            ("engine-sim", 0, ""), ("voice-other-rate", -1, "8000 Hz"),
            ("intensity-ramp-86401s", -1, "24 h"), ("sharpness-ramp-1e300s", -1, "24 h"), ("intensity-above-4", -1, "0...4"),
            ("play-at-1e9s-ahead", -1, "24 h"), ("master-ramp-negative", -1, "0 or more"),
            ("play-from-negative", -1, "from_ms"), ("seek-negative", -1, "0 or more"),
            ("content-time-negative", 0, ""), ("content-time-past-24h", -1, "24 h"),
            ("play-after-free", -7, "freed"), ("seek-after-free", -7, "freed"), ("intensity-after-free", -7, "freed"),
            ("ended-after-free", 1, ""),
        ]
        let followerRows: [(String, Int, String)] = [
            ("follower-small-options", -1, "PULSAR_FOLLOWER_OPTIONS_INIT"), ("follower-bad-method", -1, "envelope or android"),
            ("follower-empty-band", -1, "low edge must be below"), ("follower-bad-gate", -1, "gate 6 is out of range"),
            ("follower-nan-release", -1, "release nan"), ("follower-null-out", -1, "out is NULL"), ("follower-ok", 0, ""),
            ("follower-null-input", -1, "NULL buffer"), ("follower-zero-channels", -1, "outside 1...64"), ("follower-process", 0, ""),
            ("follower-after-free", -1, "not a live pulsar_follower"), ("follower-onsets-after-free", -1, "not a live pulsar_follower"),
        ]
        for (name, code, says) in expected + followerRows {
            let row = try #require(rows[name], "\(name) missing from \(r.out)")
            #expect(row.code == code, "\(name): code \(row.code), \(row.message)")
            if !says.isEmpty { #expect(row.message.contains(says), "\(name): \(row.message)") }
        }
    }

    @Test("examples/c/game.c on the simulated device: the rumble follows its live curve, four effects overlap it and report, the clock runs with the device",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func gameExample() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let game = try Self.compile(Self.root.path + "/examples/c/game.c", named: "game", in: dir)
        let recording = dir.file("g.wav"), log = dir.file("g.jsonl"), replay = dir.file("replay.wav")
        let r = try Self.run(game, ["--device", "sim:record=" + recording, "--log", log])
        #expect(r.status == 0, "\(r)")
        // The session's event log: `pulsar render --replay` makes the recording's samples of it.
        let rendered = try Self.cli(["render", "--replay", log, "-o", replay, "--quiet"])
        #expect(rendered.status == 0, "\(rendered)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: recording)) == Data(contentsOf: URL(fileURLWithPath: replay)), "the recording equals the replay of the log")
        #expect(FileManager.default.fileExists(atPath: log + ".pattern-1.json") && FileManager.default.fileExists(atPath: log + ".pattern-2.json"),
                "the two patterns given in memory are written beside the log")
        #expect(r.out.components(separatedBy: "played out").count - 1 == 4 && r.out.contains("done: 4 effects"), "\(r.out)")
        // The clock lines: content time follows the display time while the rumble plays.
        let ticks = r.out.split(separator: "\n").filter { $0.hasPrefix("t ") }.map { $0.split(separator: " ") }
            .compactMap { f -> (Double, Double)? in
                guard f.count >= 5, let t = Double(f[1]), let c = Double(f[4]) else { return nil }
                return (t, c)
            }
        // (No bound against the display time: a busy machine may hold the paced device up.)
        let playing = ticks.filter { $0.0 > 0.2 }.map(\.1)
        #expect(playing.count > 10)
        #expect(zip(playing, playing.dropFirst()).allSatisfy { $0 <= $1 }, "the clock never runs back: \(playing)")
        #expect((playing.last ?? 0) >= 2_500, "the rumble's clock reached its end: \(playing)")
        // The recording (one channel, 48 kHz): the curve's 1.5 at 0.5 s is louder than its 0.3 at 1.5 s.
        let decoded = try AudioFileContents(contentsOf: recording)
        #expect(decoded.channels == 1 && decoded.sampleRate == 48_000)
        let samples = decoded.samples
        guard let first = samples.firstIndex(where: { abs($0) > 1e-4 }) else { Issue.record("a silent recording"); return }
        func rms(at seconds: Double) -> Double {
            let a = first + Int(seconds * 48_000), b = min(a + 4_800, samples.count)
            guard a < b else { return 0 }
            return (samples[a..<b].reduce(0) { $0 + Double($1 * $1) } / Double(b - a)).squareRoot()
        }
        #expect(rms(at: 0.45) > rms(at: 1.45) * 2, "the intensity curve: \(rms(at: 0.45)) at its 1.5, \(rms(at: 1.45)) at its 0.3")
    }

    @Test("examples/python/demo.py through the python/ package, the library found on LD_LIBRARY_PATH: the same work as game.c, four effects reporting",
          .enabled(if: CAPITests.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs libPulsarC.so and python3"))
    func pythonDemo() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        _ = try Self.compile(Self.root.path + "/examples/c/render.c", named: "render", in: dir)  // stages lib/
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = dir.file("lib")
        environment["PULSAR_LIBRARY"] = nil
        environment["PYTHONPATH"] = Self.root.path + "/python"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let r = try Self.run("/usr/bin/python3", [Self.root.path + "/examples/python/demo.py", "--device", "sim"], environment: environment)
        #expect(r.status == 0, "\(r)")
        #expect(r.out.components(separatedBy: "played out").count - 1 == 4 && r.out.contains("done: 4 effects (libpulsar 0.1.0)"), "\(r.out)")
        let bad = try Self.run("/usr/bin/python3", [Self.root.path + "/examples/python/demo.py", "--device", "no-such-pcm"], environment: environment)
        #expect(bad.status == 1 && bad.err.contains("no-such-pcm"), "\(bad)")
    }

    @Test("ABI: the library exports exactly the functions include/pulsar.h declares, all pulsar_*", .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func exportedSymbols() throws {
        let nm = try Self.run("/usr/bin/nm", ["-D", "--defined-only", Self.library])
        #expect(nm.status == 0, "\(nm.err)")
        // Global symbols (upper-case types); the loader's table also lists local ones, which no one can bind to.
        let exported = Set(nm.out.split(separator: "\n").compactMap { line -> String? in
            let f = line.split(separator: " ")
            guard f.count == 3, f[1].first!.isUppercase else { return nil }
            return String(f[2])
        })
        let header = try String(contentsOfFile: Self.root.path + "/include/pulsar.h", encoding: .utf8)
        let declared = Set(header.matches(of: /\b(pulsar_[a-z_]+)\(/).map { String($0.output.1) })
        #expect(!declared.isEmpty)
        #expect(exported == declared, "exported, not declared: \(exported.subtracting(declared).sorted()); declared, not exported: \(declared.subtracting(exported).sorted())")
        let readelf = try Self.run("/usr/bin/readelf", ["-d", Self.library])
        #expect(readelf.out.contains("Library soname: [libpulsar.so.0]"))
    }
}

/// A fresh temporary folder per test.
struct Scratch {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-c-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func write(_ text: String, to name: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
