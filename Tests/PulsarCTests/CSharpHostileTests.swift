import Foundation
import Testing

/// bindings/csharp/Pulsar.cs under hostile arguments: arrays shorter than the counts given (the
/// library would write past them), counts past what a call takes, NUL inside strings, names of
/// 200 000 characters, curves libpulsar refuses. Built with mcs, run with mono against the
/// library built beside the tests.
@Suite("C# binding under hostile arguments")
struct CSharpHostileTests {
    static let mono = FileManager.default.isExecutableFile(atPath: "/usr/bin/mcs") && FileManager.default.isExecutableFile(atPath: "/usr/bin/mono")

    static let source = #"""
    using System;
    using System.Linq;
    using Pulsar;

    static class Hostile
    {
        static int failures;

        static void Expect(string what, Action call, string says)
        {
            try { call(); Console.WriteLine("FAIL " + what + ": no exception"); failures++; }
            catch (PulsarException e)
            {
                bool ok = e.Message.Length <= 300 && e.Message.IndexOf('\n') < 0 && e.Message.Contains(says);
                Console.WriteLine((ok ? "ok " : "FAIL ") + what + ": " + e.GetType().Name + " " + e.Message.Length + " " + e.Message.Substring(0, Math.Min(e.Message.Length, 400)));
                if (!ok) failures++;
            }
            catch (Exception e) { Console.WriteLine("FAIL " + what + ": " + e.GetType().Name + " " + e.Message); failures++; }
        }

        static int Main(string[] args)
        {
            using (var pattern = Pattern.Open(args[0]))
            using (var mix = pattern.Mix())
            using (var follower = new Follower())
            {
                Expect("process: input shorter than frames x channels", () => follower.Process(new float[10], 2, 100, new float[100]), "input holds 10");
                Expect("process: haptics shorter than frames", () => follower.Process(new float[200], 2, 100, new float[99]), "haptics holds 99");
                Expect("process: null input", () => follower.Process(null, 1, 1, new float[1]), "input is null");
                Expect("process: negative frames", () => follower.Process(new float[4], 1, -1, new float[4]), "-1 frames");
                Expect("process: channels 0", () => follower.Process(new float[4], 0, 1, new float[4]), "0 channels");
                Expect("process: 65 channels", () => follower.Process(new float[65], 65, 1, new float[1]), "channels 65");
                Expect("render: frames whose product overflows", () => mix.Render(0, new float[4], long.MaxValue / 2), "2^31 - 1");
                Expect("render: negative frames", () => mix.Render(0, new float[4], -5), "-5 frames");
                Expect("render: null buffer", () => mix.Render(0, null, 1), "is null");
                Expect("a NUL inside a path", () => Pattern.Open(args[0] + "\0.bak"), "NUL");
                Expect("a 200 000-character actuator", () => pattern.Mix(new MixSettings { Actuator = new string('a', 200000) }), "more characters");
                using (var engine = new Engine(new EngineSettings { Device = "sim" }))
                {
                    var voice = engine.Voice(mix);
                    double now = engine.Time;
                    Expect("a curve at equal times", () => voice.SetIntensityCurve(new[] { now + 0.1, now + 0.1 }, new[] { 0.5, 1.0 }), "rise strictly");
                    double[] times = Enumerable.Range(0, 1025).Select(i => now + 0.1 + i * 0.001).ToArray();
                    Expect("a curve of 1025 points", () => voice.SetIntensityCurve(times, new double[1025]), "at most 1024");
                }
            }
            Console.WriteLine(failures == 0 ? "all checks passed" : failures + " checks failed");
            return failures == 0 ? 0 : 1;
        }
    }
    """#

    @Test("Pulsar.cs: short arrays, overflowing counts, NUL in strings, long names and refused curves throw PulsarArgumentException (or the library's code) with one line of at most 300 characters",
          .enabled(if: CAPITests.available && CSharpHostileTests.mono, "needs libPulsarC.so and mono (mono-mcs, mono-runtime)"))
    func hostileArguments() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        _ = try CAPITests.compile(CAPITests.root.path + "/examples/c/render.c", named: "render", in: dir)  // stages lib/libpulsar.so
        let exe = dir.file("hostile.exe")
        let built = try CAPITests.run("/usr/bin/mcs", ["-warnaserror+", "-out:" + exe, CAPITests.root.path + "/bindings/csharp/Pulsar.cs",
                                                       try dir.write(Self.source, to: "Hostile.cs")])
        try #require(built.status == 0, "mcs: \(built)")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = dir.file("lib")
        let r = try CAPITests.run("/usr/bin/mono", [exe, CAPITests.root.path + "/Resources/patterns/demo.json"], environment: environment)
        #expect(r.status == 0 && r.out.hasSuffix("all checks passed\n"), "\(r)")
        #expect(!r.out.contains("FAIL"), "\(r.out)")
    }
}
