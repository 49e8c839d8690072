import Foundation
import PulsarAudio
import PulsarCore
import PulsarTestSupport
import Testing

/// Live parameters from the C API and the C# binding, and `over 0` from every door: changes sent
/// within one period all take effect, in order (docs/signal-model.md §13); a duration of 0 is "at
/// once" (a 4 ms ramp) from the script, C and C# alike; a curve of the engine's most points
/// (PULSAR_MAX_CURVE_POINTS) is taken whole, one more refused naming the limit.
@Suite("Live parameters from every door")
struct LiveParameterDoorsTests {
    /// A steady 150 Hz tone at 0.6 for 2 s (the engine tests' `LiveParameterTests.mixer`).
    static let tone = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.6},{"time":2000,"value":0.6}],"frequency":[{"time":0,"value":0.375}]}}"#

    /// The C program: argv[1] the recording, argv[2] the log, argv[3] the plain render of the
    /// mix, argv[4] the sequence ("chain", "over0" or "curve").
    static let program = #"""
    #define _POSIX_C_SOURCE 200809L
    #include <pulsar.h>
    #include <stdio.h>
    #include <string.h>
    #include <time.h>

    static void sleep_ms(int ms) { struct timespec t = { 0, ms * 1000000L }; nanosleep(&t, NULL); }
    static int fail(const char *what) { fprintf(stderr, "%s: %s\n", what, pulsar_last_error()); return 1; }

    int main(int argc, char **argv) {
        if (argc != 5) return 2;
        char device[4096];
        snprintf(device, sizeof device, "sim:record=%s", argv[1]);
        const char *tone = "\#(tone.replacingOccurrences(of: "\"", with: "\\\""))";
        pulsar_pattern *p = NULL;
        pulsar_mix *m = NULL;
        if (pulsar_pattern_from_memory(tone, strlen(tone), &p) != PULSAR_OK) return fail("pattern");
        if (pulsar_mix_from_pattern(p, NULL, &m) != PULSAR_OK) return fail("mix");
        if (pulsar_mix_write_wav(m, argv[3]) != PULSAR_OK) return fail("plain render");
        pulsar_engine_options eo = PULSAR_ENGINE_OPTIONS_INIT;
        eo.device = device;
        eo.log_path = argv[2];
        pulsar_engine *e = NULL;
        if (pulsar_engine_create(&eo, &e) != PULSAR_OK) return fail("engine");
        pulsar_voice *v = NULL;
        if (pulsar_engine_voice(e, m, 0, 0, &v) != PULSAR_OK) return fail("voice");
        if (strcmp(argv[4], "chain") == 0) {
            /* Within one period: all three take effect at the play's frame. */
            if (pulsar_voice_set_intensity(v, 0.1, 0) != PULSAR_OK) return fail("intensity 0.1");
            if (pulsar_voice_play(v, 0) != PULSAR_OK) return fail("play");
            if (pulsar_voice_set_intensity(v, 1.0, 1.5) != PULSAR_OK) return fail("intensity 1 over 1.5 s");
        } else if (strcmp(argv[4], "over0") == 0) {
            if (pulsar_voice_play(v, 0) != PULSAR_OK) return fail("play");
            sleep_ms(100);
            if (pulsar_voice_set_intensity(v, 0.3, 0) != PULSAR_OK) return fail("intensity 0.3 over 0");
        } else {
            /* A curve of the most points the engine takes, and one of one more. */
            while (pulsar_engine_poll(e) == PULSAR_OK && pulsar_voice_content_ms(v) != pulsar_voice_content_ms(v)) sleep_ms(2);
            if (pulsar_voice_play(v, 0) != PULSAR_OK) return fail("play");
            static double times[PULSAR_MAX_CURVE_POINTS + 1], values[PULSAR_MAX_CURVE_POINTS + 1];
            double now = pulsar_engine_time(e);
            for (int i = 0; i <= PULSAR_MAX_CURVE_POINTS; i++) { times[i] = now + 0.1 + i * 0.001; values[i] = i % 2 ? 0.9 : 0.3; }
            int r = pulsar_voice_set_intensity_curve(v, times, values, PULSAR_MAX_CURVE_POINTS + 1);
            printf("one more: %d %s\n", r, pulsar_last_error());
            r = pulsar_voice_set_intensity_curve(v, times, values, PULSAR_MAX_CURVE_POINTS);
            printf("the most: %d\n", r);
            if (r != PULSAR_OK) return fail("curve");
        }
        while (!pulsar_voice_has_ended(v)) {
            if (pulsar_engine_poll(e) != PULSAR_OK) return fail("poll");
            sleep_ms(10);
        }
        if (pulsar_engine_stop(e) != PULSAR_OK) return fail("stop");
        pulsar_voice_free(v);
        pulsar_engine_free(e);
        pulsar_mix_free(m);
        pulsar_pattern_free(p);
        printf("done\n");
        return 0;
    }
    """#

    /// A run's files and what its log says.
    struct Run {
        var recording: [Float]
        var plain: [Float]
        /// The logged commands in order: name, effective frame, the line's fields.
        var commands: [(name: String, frame: Int, fields: [String: Any])]
        var log: String

        var playFrame: Int? { commands.first { $0.name == "play" }?.frame }
        var intensities: [(name: String, frame: Int, fields: [String: Any])] { commands.filter { $0.name == "intensity" } }

        init(recording: String, plain: String, log: String) throws {
            self.recording = try AudioFileContents(contentsOf: recording).samples
            self.plain = try AudioFileContents(contentsOf: plain).samples
            self.log = log
            commands = []
            lost = []
            for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
                if object["event"] as? String == "underrun", let from = (object["lostFrom"] as? NSNumber)?.intValue,
                   let to = (object["lostTo"] as? NSNumber)?.intValue, to > from {
                    lost.append(from..<to)
                }
                guard object["event"] as? String == "command", let name = object["name"] as? String,
                      let frame = (object["effectiveFrame"] as? NSNumber)?.intValue else { continue }
                commands.append((name, frame, object))
            }
        }

        /// Stream frames written but never played (underruns on a loaded machine): the recording
        /// holds the others, in order.
        var lost: [Range<Int>]

        /// The recorded sample of stream frame `n`, nil when it was lost.
        func recorded(_ n: Int) -> Float? {
            var index = n
            for range in lost {
                if range.contains(n) { return nil }
                if range.upperBound <= n { index -= range.count }
            }
            return index < recording.count ? recording[index] : nil
        }

        /// The largest departure of the recording from `gain(n)` times the plain render, from
        /// the play's frame on (the voice is silent before).
        func departure(_ gain: (Int) -> Double) throws -> (worst: Double, at: Int) {
            let p = try #require(playFrame)
            var worst = (0.0, 0)
            for n in p..<(p + plain.count) {
                guard let sample = recorded(n) else { continue }
                let d = abs(Double(sample) - gain(n) * Double(plain[n - p]))
                if d > worst.0 { worst = (d, n) }
            }
            return worst
        }

        /// `pulsar render --replay` of the log equals the recording, bit for bit.
        func replayEqualsRecording(in dir: Scratch, recordingPath: String) throws -> Bool {
            let out = dir.file("replay-\(UUID().uuidString).wav")
            let r = try CAPITests.cli(["render", "--replay", log, "-o", out, "--quiet"])
            #expect(r.status == 0, "\(r)")
            return try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: recordingPath))
        }
    }

    /// The course the three commands make (0.1 at once, play, 1 over 1.5 s) from the frames the
    /// log gives the two intensity changes, by docs/signal-model.md §13: sent together they share
    /// a frame, or the second lands during the first's 192 frames of smoothing (the real-time
    /// thread took the first before the second arrived) — either way the second follows the
    /// first's smoothing; landing later, it rises from 0.1 where it lands.
    static func chainCourse(first e1: Int, second e2: Int) -> (Int) -> Double {
        let anchor = max(e2, e1 + 192)
        return { n in
            if n < e1 { return 1 }
            if n < e1 + 192 { return 1 - 0.9 * Double(n - e1) / 192 }
            if n < anchor { return 0.1 }
            return n < anchor + 72_000 ? 0.1 + 0.9 * Double(n - anchor) / 72_000 : 1
        }
    }

    /// Runs the C program for `sequence`.
    static func runC(_ sequence: String, in dir: Scratch) throws -> (Run, String, String) {
        let exe = try CAPITests.compile(try dir.write(program, to: "doors.c"), named: "doors", in: dir)
        let rec = dir.file("\(sequence).wav"), log = dir.file("\(sequence).jsonl"), plain = dir.file("\(sequence)-plain.wav")
        let r = try CAPITests.run(exe, [rec, log, plain, sequence])
        try #require(r.status == 0 && r.out.hasSuffix("done\n"), "\(r)")
        return (try Run(recording: rec, plain: plain, log: log), rec, r.out)
    }

    /// The C# program (bindings/csharp/Pulsar.cs): the arguments of the C one.
    static let csharp = #"""
    using System;
    using System.Threading;
    using Pulsar;

    static class Doors
    {
        static int Main(string[] args)
        {
            using (var pattern = Pattern.FromText(args[4]))
            using (var mix = pattern.Mix())
            using (var engine = new Engine(new EngineSettings { Device = "sim:record=" + args[0], LogPath = args[1] }))
            {
                mix.WriteWav(args[2]);
                var voice = engine.Voice(mix);
                if (args[3] == "chain")
                {
                    voice.SetIntensity(0.1, 0);
                    voice.Play(0);
                    voice.SetIntensity(1.0, 1.5);
                }
                else
                {
                    voice.Play(0);
                    Thread.Sleep(100);
                    voice.SetIntensity(0.3, 0);
                    var times = new double[Voice.MaxCurvePoints + 1];
                    for (int i = 0; i < times.Length; i++) times[i] = engine.Time + 10 + i * 0.001;
                    try { voice.SetIntensityCurve(times, new double[times.Length]); Console.WriteLine("FAIL: one point too many taken"); return 1; }
                    catch (PulsarArgumentException e) { Console.WriteLine("one more: " + e.Message); }
                }
                while (!voice.HasEnded) { engine.Poll(); Thread.Sleep(10); }
                engine.Stop();
            }
            Console.WriteLine("done");
            return 0;
        }
    }
    """#

    static let mono = FileManager.default.isExecutableFile(atPath: "/usr/bin/mcs") && FileManager.default.isExecutableFile(atPath: "/usr/bin/mono")

    @Test("From C#: the three commands sent together make the chained course; SetIntensity(x, 0) is at once; MaxCurvePoints is the engine's limit",
          .enabled(if: CAPITests.available && LiveParameterDoorsTests.mono, "needs libPulsarC.so and mono (mono-mcs, mono-runtime)"),
          .timeLimit(.minutes(3)))
    func fromCSharp() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        _ = try CAPITests.compile(CAPITests.root.path + "/examples/c/render.c", named: "render", in: dir)  // stages lib/libpulsar.so
        let exe = dir.file("doors.exe")
        let built = try CAPITests.run("/usr/bin/mcs", ["-warnaserror+", "-out:" + exe, CAPITests.root.path + "/bindings/csharp/Pulsar.cs",
                                                       try dir.write(Self.csharp, to: "Doors.cs")])
        try #require(built.status == 0, "mcs: \(built)")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = dir.file("lib")
        let source = try String(contentsOfFile: CAPITests.root.path + "/bindings/csharp/Pulsar.cs", encoding: .utf8)
        #expect(source.contains("public const int MaxCurvePoints = 1024;"), "the binding states the engine's limit")
        for sequence in ["chain", "over0"] {
            let rec = dir.file("\(sequence).wav"), log = dir.file("\(sequence).jsonl"), plain = dir.file("\(sequence)-plain.wav")
            let r = try CAPITests.run("/usr/bin/mono", [exe, rec, log, plain, sequence, Self.tone], environment: environment)
            try #require(r.status == 0 && r.out.hasSuffix("done\n"), "\(r)")
            let run = try Run(recording: rec, plain: plain, log: log)
            let i = run.intensities
            if sequence == "chain" {
                try #require(i.count == 2)
                let p = try #require(run.playFrame)
                #expect(i[0].frame <= p && p <= i[1].frame, "in order: \(i.map(\.frame)), play \(p)")
                if i[0].frame != i[1].frame { print("note: C#'s three commands took effect at \(i[0].frame), \(p), \(i[1].frame)") }
                let (worst, at) = try run.departure(Self.chainCourse(first: i[0].frame, second: i[1].frame))
                #expect(worst < 1e-6, "C#: largest departure from the course \(worst) at frame \(at)")
            } else {
                #expect(r.out.contains("one more: pulsar: a curve of 1025 points: the engine takes at most 1024 points"), "\(r.out)")
                try #require(i.count == 1)
                #expect(i[0].fields["reachAfter"] == nil && i[0].fields["reachAt"] == nil, "at once: \(i[0].fields)")
                let e = i[0].frame
                let (worst, at) = try run.departure { n in n < e ? 1 : n < e + 192 ? 1 - 0.7 * Double(n - e) / 192 : 0.3 }
                #expect(worst < 1e-6, "C# over 0: largest departure from the 4 ms ramp \(worst) at \(at)")
            }
            #expect(try run.replayEqualsRecording(in: dir, recordingPath: rec), "C# \(sequence)")
        }
    }

    @Test("From C: intensity 0.1 at once, play, intensity 1 over 1.5 s sent together: the recording is 1 → 0.1 over 192 frames, then 0.1 → 1 over 72 000, and the replay of the log equals it",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build --product PulsarC)"), .timeLimit(.minutes(3)))
    func chainFromC() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let (run, rec, _) = try Self.runC("chain", in: dir)
        let i = run.intensities
        try #require(i.count == 2)
        let p = try #require(run.playFrame)
        #expect(i[0].frame <= p && p <= i[1].frame, "in order: \(i.map(\.frame)), play \(p)")
        if i[0].frame != i[1].frame { print("note: the three commands took effect at \(i[0].frame), \(p), \(i[1].frame)") }
        let (worst, at) = try run.departure(Self.chainCourse(first: i[0].frame, second: i[1].frame))
        #expect(worst < 1e-6, "largest departure from the course \(worst) at frame \(at)")
        #expect(try run.replayEqualsRecording(in: dir, recordingPath: rec))
    }

    @Test("over 0 is at once from every door: the script's `intensity 0.3 over 0` and C's seconds 0 log the same target as no duration (a 4 ms ramp, no reachAfter), and each recording is its log's replay and that ramp",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build --product PulsarC)"), .timeLimit(.minutes(3)))
    func overZeroEverywhere() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var runs: [(String, Run, String)] = []
        let (c, cRec, _) = try Self.runC("over0", in: dir)
        runs.append(("C", c, cRec))
        // The script, through `pulsar play`.
        let pattern = try dir.write(Self.tone, to: "tone.json")
        for (name, line) in [("script over 0", "at 100 intensity 0.3 over 0"), ("script at once", "at 100 intensity 0.3")] {
            let script = try dir.write("at 0 play\n\(line)\n", to: "\(name).txt")
            let rec = dir.file("\(name).wav"), log = dir.file("\(name).jsonl")
            let r = try CAPITests.cli(["play", pattern, "--device", "sim:record=" + rec, "--script", script, "--log", log, "--quiet"])
            try #require(r.status == 0, "\(r)")
            // The CLI's plain render of the same pattern.
            let plain = dir.file("\(name)-plain.wav")
            try #require(try CAPITests.cli(["render", pattern, "-o", plain, "--quiet"]).status == 0)
            runs.append((name, try Run(recording: rec, plain: plain, log: log), rec))
        }
        for (name, run, rec) in runs {
            let i = run.intensities
            try #require(i.count == 1, "\(name): \(i.count) intensity commands")
            let fields = i[0].fields
            #expect((fields["value"] as? NSNumber)?.doubleValue == 0.3, "\(name)")
            #expect(fields["reachAfter"] == nil && fields["reachAt"] == nil, "\(name): at once, smoothed: \(fields)")
            let e = i[0].frame
            let (worst, at) = try run.departure { n in n < e ? 1 : n < e + 192 ? 1 - 0.7 * Double(n - e) / 192 : 0.3 }
            #expect(worst < 1e-6, "\(name): largest departure from the 4 ms ramp \(worst) at \(at)")
            #expect(try run.replayEqualsRecording(in: dir, recordingPath: rec), "\(name)")
        }
    }

    @Test("From C: a curve of PULSAR_MAX_CURVE_POINTS (1024, Limits.maximumCurvePoints) points is taken and every point reached at its frame; one more is PULSAR_ERROR_ARGUMENT naming the limit",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build --product PulsarC)"), .timeLimit(.minutes(3)))
    func longestCurveFromC() throws {
        let header = try String(contentsOfFile: CAPITests.root.path + "/include/pulsar.h", encoding: .utf8)
        #expect(header.contains("#define PULSAR_MAX_CURVE_POINTS 1024"))
        let dir = try Scratch()
        defer { dir.remove() }
        let (run, rec, out) = try Self.runC("curve", in: dir)
        #expect(out.contains("one more: -1 pulsar_voice_set_intensity_curve: count 1025 is not in 1...1024 (the engine takes at most 1024 points)"), "\(out)")
        #expect(out.contains("the most: 0"), "\(out)")
        let points = run.intensities
        #expect(points.count == 1024, "every point logged")
        let p = try #require(run.playFrame)
        var missed = 0, checked = 0
        for point in points {
            guard let at = (point.fields["reachAt"] as? NSNumber)?.intValue, let value = (point.fields["value"] as? NSNumber)?.doubleValue else {
                missed += 1
                continue
            }
            guard at >= p, at - p < run.plain.count, let sample = run.recorded(at) else { continue }
            checked += 1
            if abs(Double(sample) - value * Double(run.plain[at - p])) > 1e-5 { missed += 1 }
        }
        #expect(missed == 0 && checked > 900, "\(missed) of \(checked) points not reached at their frames")
        #expect(try run.replayEqualsRecording(in: dir, recordingPath: rec))
    }

    @Test("One curve limit: include/pulsar.h, the Python package and the C# binding state Limits.maximumCurvePoints")
    func oneLimit() throws {
        let root = CAPITests.root.path
        let n = Limits.maximumCurvePoints
        let header = try String(contentsOfFile: root + "/include/pulsar.h", encoding: .utf8)
        let python = try String(contentsOfFile: root + "/python/pulsar/__init__.py", encoding: .utf8)
        let csharp = try String(contentsOfFile: root + "/bindings/csharp/Pulsar.cs", encoding: .utf8)
        #expect(header.contains("#define PULSAR_MAX_CURVE_POINTS \(n)\n"))
        #expect(header.contains("1 to PULSAR_MAX_CURVE_POINTS (\(n),"))
        #expect(python.contains("\nMAX_CURVE_POINTS = \(n)\n"))
        #expect(csharp.contains("public const int MaxCurvePoints = \(n);"))
    }
}
