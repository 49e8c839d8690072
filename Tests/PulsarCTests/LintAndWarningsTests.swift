import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// What the command line tells a designer, libpulsar tells a C program: `pulsar_pattern_lint` gives
/// the findings `pulsar lint --json` prints, the warnings `pulsar` prints on stderr are each
/// pattern's and bundle's to read, and a pattern's duration is how long it sounds.
@Suite("C API: lint, warnings, duration", .serialized)
struct LintAndWarningsTests {
    static let program = #"""
    #include <pulsar.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    /* lint FILE [actuator|-] [profile|-] [rate]: the findings' JSON on stdout, then the warnings
       and the duration on stderr, one a line. */
    int main(int argc, char **argv) {
        pulsar_pattern *p = NULL;
        if (pulsar_pattern_open(argv[1], &p) != PULSAR_OK) { fprintf(stderr, "open: %s\n", pulsar_last_error()); return 2; }
        pulsar_mix_options o = PULSAR_MIX_OPTIONS_INIT;
        if (argc > 2 && strcmp(argv[2], "-") != 0) o.actuator = argv[2];
        if (argc > 3 && strcmp(argv[3], "-") != 0) o.profile = argv[3];
        if (argc > 4) o.sample_rate = atoi(argv[4]);
        int n = pulsar_pattern_lint(p, &o, NULL, 0);
        if (n < 0) { fprintf(stderr, "lint: %d %s\n", n, pulsar_last_error()); return 3; }
        char small[8];
        int again = pulsar_pattern_lint(p, &o, small, sizeof small);
        if (again != n || strlen(small) != (n < 7 ? (size_t)n : 7)) { fprintf(stderr, "lint: a short buffer is not cut as snprintf cuts\n"); return 4; }
        char *json = malloc((size_t)n + 1);
        if (pulsar_pattern_lint(p, &o, json, (size_t)n + 1) != n) return 5;
        fputs(json, stdout);
        free(json);
        for (int i = 0; i < pulsar_pattern_warning_count(p); i++) fprintf(stderr, "warning: %s\n", pulsar_pattern_warning(p, i));
        if (pulsar_pattern_warning(p, pulsar_pattern_warning_count(p)) != NULL) return 6;
        fprintf(stderr, "duration %.3f\n", pulsar_pattern_duration_ms(p));
        if (pulsar_pattern_lint(NULL, NULL, NULL, 0) != PULSAR_ERROR_ARGUMENT) return 7;
        if (pulsar_pattern_lint(p, NULL, NULL, 10) != PULSAR_ERROR_ARGUMENT) return 8;
        pulsar_pattern_free(p);
        return 0;
    }
    """#

    static func findings(_ json: String) throws -> (device: String, findings: [[String: AnyHashable]]) {
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let list = try #require(object["findings"] as? [[String: Any]])
        return (object["device"] as? String ?? "", list.map { $0.mapValues { ($0 as? AnyHashable) ?? AnyHashable("") } })
    }

    @Test("pulsar_pattern_lint gives pulsar lint --json's findings on profiles and actuators; a short buffer is cut as snprintf cuts",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"), .timeLimit(.minutes(5)))
    func lintMatchesTheCommand() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let source = try dir.write(Self.program, to: "lint.c")
        let lint = try CAPITests.compile(source, named: "lint", in: dir)
        // A design with clicks and merged transients, and the shipped demo.
        let clicks = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0},{"time":1,"value":1},{"time":400,"value":1},{"time":401,"value":0}],"#
                                   + #""frequency":[{"time":0,"value":1},{"time":401,"value":1}]},"discretePattern":[{"time":100,"amplitude":1,"frequency":0.1},"#
                                   + #"{"time":105,"amplitude":1,"frequency":0.1}]}"#, to: "clicks.json")
        var inputs = [CAPITests.root.path + "/Resources/patterns/demo.json", clicks]
        if SharedCorpus.available("lofelt/clips") { inputs += try SharedCorpus.requiredFiles(in: "lofelt/clips", ext: "haptic").sorted().prefix(2) }
        var total = 0
        for input in inputs {
            for (actuator, profile, rate) in [("-", "-", "48000"), ("meta-quest", "-", "48000"), ("-", "lra", "44100")] {
                let c = try CAPITests.run(lint, [input, actuator, profile, rate], environment: ["PULSAR_ACTUATORS": CAPITests.root.path + "/Resources/actuators"])
                #expect(c.status == 0, "\(input) \(actuator) \(profile): \(c)")
                var arguments = ["lint", input, "--json", "--rate", rate, "--quiet"]
                if actuator != "-" { arguments += ["--actuator", actuator] }
                if profile != "-" { arguments += ["--profile", profile] }
                let cli = try CAPITests.cli(arguments)
                #expect(cli.status == 0, "\(arguments): \(cli)")
                let (a, b) = (try Self.findings(c.out), try Self.findings(cli.out))
                #expect(a.device == b.device && a.findings == b.findings, "\(input) \(actuator) \(profile)")
                total += a.findings.count
            }
        }
        #expect(total > 0, "no design had a finding: the comparison proves little")
    }

    @Test("The warnings pulsar prints are the pattern's and the bundle's to read; a lone transient lasts as long as it sounds",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"), .timeLimit(.minutes(5)))
    func warningsAndDuration() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let source = try dir.write(Self.program, to: "lint.c")
        let lint = try CAPITests.compile(source, named: "lint", in: dir)
        let ahap = try dir.write(#"{"Version":1,"Flavour":"x","Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":"#
                                 + #"[{"ParameterID":"HapticIntensity","ParameterValue":1},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}},"#
                                 + #"{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"s.wav"}}]}"#, to: "one.ahap")
        let c = try CAPITests.run(lint, [ahap])
        #expect(c.status == 0, "\(c)")
        let warnings = c.err.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map { String($0.dropFirst(9)) }
        let cli = try CAPITests.cli(["info", ahap])
        let printed = cli.err.split(separator: "\n").filter { $0.hasPrefix("pulsar: warning: ") }.map { String($0.dropFirst(17)) }
        #expect(!warnings.isEmpty && Set(warnings) == Set(printed), "C: \(warnings); pulsar: \(printed)")
        // The transient at 0 sounds for its burst: never a duration of 0.
        let duration = Double(c.err.split(separator: "\n").first { $0.hasPrefix("duration ") }?.dropFirst(9) ?? "") ?? -1
        let render = dir.file("one.wav")
        #expect(try CAPITests.cli(["render", ahap, "-o", render, "--quiet"]).status == 0)
        let frames = try AudioFileContents(contentsOf: render).frameCount
        #expect(duration > 5 && abs(duration - Double(frames) * 1000 / 48_000) < 0.1, "duration \(duration) ms, render \(frames) frames")
    }

    static let csharp = #"""
    using System;
    using Pulsar;
    static class LintProgram {
        static int Main(string[] args) {
            using (var p = Pattern.Open(args[0])) {
                var settings = new MixSettings();
                if (args.Length > 1) settings.Actuator = args[1];
                Console.Out.Write(p.Lint(settings));
                foreach (var w in p.Warnings) Console.Error.WriteLine("warning: " + w);
            }
            return 0;
        }
    }
    """#

    @Test("Pulsar.cs: Pattern.Lint is pulsar lint --json, Pattern.Warnings what pulsar prints",
          .enabled(if: CAPITests.available && CSharpHostileTests.mono, "needs libPulsarC.so and mono (mono-mcs, mono-runtime)"), .timeLimit(.minutes(5)))
    func csharp() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        _ = try CAPITests.compile(CAPITests.root.path + "/examples/c/render.c", named: "render", in: dir)  // stages lib/libpulsar.so
        let exe = dir.file("lint.exe")
        let built = try CAPITests.run("/usr/bin/mcs", ["-warnaserror+", "-out:" + exe, CAPITests.root.path + "/bindings/csharp/Pulsar.cs",
                                                       try dir.write(Self.csharp, to: "Lint.cs")])
        try #require(built.status == 0, "mcs: \(built)")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = dir.file("lib")
        environment["PULSAR_ACTUATORS"] = CAPITests.root.path + "/Resources/actuators"
        let clicks = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0},{"time":1,"value":1},{"time":400,"value":1},{"time":401,"value":0}],"#
                                   + #""frequency":[{"time":0,"value":1},{"time":401,"value":1}]},"discretePattern":[{"time":100,"amplitude":1,"frequency":0.1},"#
                                   + #"{"time":105,"amplitude":1,"frequency":0.1}]}"#, to: "clicks.json")
        for actuator in [nil, "meta-quest"] {
            let r = try CAPITests.run("/usr/bin/mono", [exe, clicks] + (actuator.map { [$0] } ?? []), environment: environment)
            #expect(r.status == 0, "\(r)")
            let cli = try CAPITests.cli(["lint", clicks, "--json", "--quiet"] + (actuator.map { ["--actuator", $0] } ?? []))
            let (a, b) = (try Self.findings(r.out), try Self.findings(cli.out))
            #expect(a.device == b.device && a.findings == b.findings && !a.findings.isEmpty, "\(actuator ?? "wideband")")
        }
    }
}
