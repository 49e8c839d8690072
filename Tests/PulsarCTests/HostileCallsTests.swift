import Foundation
import Testing

/// libpulsar under a hostile caller, from C: names of 200 000 characters and control characters
/// in every string member, curves at equal times and past the engine's limit, option structs of
/// every size, counts past what a call takes. Each call returns its code and leaves one line of
/// at most 300 characters.
@Suite("C API under hostile arguments")
struct HostileCallsTests {
    /// The program: one row a call, `name code characters newlines message`.
    static let source = #"""
    #define _POSIX_C_SOURCE 199309L
    #include <pulsar.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <time.h>
    static void row(const char *name, int result) {
        const char *m = pulsar_last_error();
        size_t chars = 0, breaks = 0;
        for (const char *c = m ? m : ""; *c; c++) {
            if (((unsigned char)*c & 0xC0) != 0x80) chars++;
            if (*c == '\n' || *c == '\r') breaks++;
        }
        printf("%s %d %zu %zu %s\n", name, result, chars, breaks, m && !breaks ? m : "-");
        fflush(stdout);
    }
    static char *repeated(char c, size_t n, const char *prefix, const char *suffix) {
        size_t p = strlen(prefix), s = strlen(suffix);
        char *text = malloc(p + n + s + 1);
        memcpy(text, prefix, p);
        memset(text + p, c, n);
        memcpy(text + p + n, suffix, s + 1);
        return text;
    }
    static void sleep_ms(long ms) {
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    static void names(pulsar_pattern *p, const char *bundle_path) {
        char *long_name = repeated('a', 200000, "", ""), *long_path = repeated('d', 200000, "/", ".acf");
        char *broken = repeated('x', 1000, "line\nbreak\xe2\x80\xae", "\r\n");
        pulsar_mix *m = NULL;
        pulsar_mix_options o = PULSAR_MIX_OPTIONS_INIT;
        o.actuator = long_name;
        row("actuator-200k-name", pulsar_mix_from_pattern(p, &o, &m));
        o.actuator = long_path;
        row("actuator-200k-path", pulsar_mix_from_pattern(p, &o, &m));
        o.actuator = broken;
        row("actuator-control-characters", pulsar_mix_from_pattern(p, &o, &m));
        pulsar_engine *e = NULL;
        pulsar_engine_options eo = PULSAR_ENGINE_OPTIONS_INIT;
        eo.device = long_name;
        row("engine-200k-device", pulsar_engine_create(&eo, &e));
        eo.device = "sim";
        eo.layout = broken;
        row("engine-broken-layout", pulsar_engine_create(&eo, &e));
        pulsar_bundle *b = NULL;
        row("bundle-open", pulsar_bundle_open(bundle_path, &b));
        row("preset-200k-id", pulsar_mix_from_preset(b, long_name, NULL, &m));
        row("bundle-200k-path", pulsar_bundle_open(long_path, &b));
        row("pattern-200k-path", pulsar_pattern_open(long_path, &p));
        pulsar_bundle_free(b);
        free(long_name); free(long_path); free(broken);
    }
    static void sizes(pulsar_pattern *p) {
        pulsar_mix *m = NULL;
        size_t *just_size = malloc(sizeof(size_t));  /* a struct that is its size member alone */
        *just_size = sizeof(size_t);
        row("mix-options-8-bytes", pulsar_mix_from_pattern(p, (const pulsar_mix_options *)just_size, &m));
        pulsar_follower *f = NULL;
        row("follower-options-8-bytes", pulsar_follower_create((const pulsar_follower_options *)just_size, &f));
        free(just_size);
        pulsar_mix_options huge = PULSAR_MIX_OPTIONS_INIT;
        huge.size = (size_t)-1;
        row("mix-options-size-max", pulsar_mix_from_pattern(p, &huge, &m));
        float buffer[4] = {0};
        row("render-frames-past-limit", pulsar_mix_render(m, 0, buffer, (int64_t)1 << 40));
        row("render-frames-negative", pulsar_mix_render(m, 0, buffer, -5));
        pulsar_mix_free(m);
        row("follower-ok", pulsar_follower_create(NULL, &f));
        row("follower-65-channels", pulsar_follower_process(f, buffer, 65, 1, buffer));
        row("follower-frames-past-limit", pulsar_follower_process(f, buffer, 2, (int64_t)1 << 40, buffer));
        pulsar_follower_free(f);
    }
    static void curves(pulsar_pattern *p) {
        pulsar_engine *e = NULL;
        pulsar_engine_options eo = PULSAR_ENGINE_OPTIONS_INIT;
        eo.device = "sim";
        row("engine-sim", pulsar_engine_create(&eo, &e));
        pulsar_mix *m = NULL;
        pulsar_mix_from_pattern(p, NULL, &m);
        pulsar_voice *v = NULL;
        row("voice", pulsar_engine_voice(e, m, 0, 0, &v));
        double now = pulsar_engine_time(e), times[1025], values[1025];
        for (int i = 0; i < 1025; i++) { times[i] = now + 0.01 + i * 0.001; values[i] = 0.5; }
        times[2] = times[1];
        row("curve-equal-times", pulsar_voice_set_intensity_curve(v, times, values, 3));
        times[2] = times[1] - 0.001;
        row("curve-falling-time", pulsar_voice_set_intensity_curve(v, times, values, 3));
        for (int i = 0; i < 1025; i++) times[i] = now + 0.01 + i * 0.001;
        row("curve-1025-points", pulsar_voice_set_intensity_curve(v, times, values, 1025));
        row("curve-2048-points", pulsar_voice_set_intensity_curve(v, times, values, 2048));
        int r = PULSAR_ERROR_STATE;
        for (int k = 0; k < 400 && r == PULSAR_ERROR_STATE; k++) {
            pulsar_engine_poll(e);
            for (int i = 0; i < 1024; i++) times[i] = pulsar_engine_time(e) + 0.05 + i * 0.001;
            r = pulsar_voice_set_intensity_curve(v, times, values, 1024);
            if (r == PULSAR_ERROR_STATE) sleep_ms(5);
        }
        row("curve-1024-points", r);
        pulsar_voice_free(v);
        pulsar_engine_free(e);
        pulsar_mix_free(m);
    }
    int main(int argc, char **argv) {
        (void)argc;
        pulsar_pattern *p = NULL;
        const char *ok = "{\"continuousPattern\":{\"amplitude\":[{\"time\":0,\"value\":0.5},{\"time\":100,\"value\":0.5}]}}";
        row("pattern", pulsar_pattern_from_memory(ok, strlen(ok), &p));
        names(p, argv[1]);
        sizes(p);
        curves(p);
        pulsar_pattern_free(p);
        printf("alive\n");
        return 0;
    }
    """#

    /// What each row must say: its code (nil: any error code) and words of its message.
    static let expected: [(String, Int?, [String])] = [
        ("pattern", 0, []),
        ("actuator-200k-name", -2, ["no shipped actuator", "more characters"]), ("actuator-200k-path", -2, ["pulsar_mix_options: actuator"]),
        ("actuator-control-characters", -2, ["\\n"]),
        ("engine-200k-device", -5, ["pulsar_engine_create: device", "more characters"]), ("engine-broken-layout", -1, ["is not a layout", "\\n"]),
        ("bundle-open", 0, []), ("preset-200k-id", -2, ["has no preset", "more characters"]), ("bundle-200k-path", nil, ["more characters"]),
        ("pattern-200k-path", nil, ["more characters"]),
        ("mix-options-8-bytes", -1, ["PULSAR_MIX_OPTIONS_INIT"]), ("follower-options-8-bytes", -1, ["PULSAR_FOLLOWER_OPTIONS_INIT"]),
        ("mix-options-size-max", 0, []),
        ("render-frames-past-limit", -1, ["frames 1099511627776", "0...2147483647"]), ("render-frames-negative", -1, ["frames -5"]),
        ("follower-ok", 0, []), ("follower-65-channels", -1, ["channels 65", "1...64"]),
        ("follower-frames-past-limit", -1, ["frames 1099511627776", "0...1073741823"]),
        ("engine-sim", 0, []), ("voice", 0, []),
        ("curve-equal-times", -1, ["point 2's time", "rise strictly"]), ("curve-falling-time", -1, ["point 2's time", "rise strictly"]),
        ("curve-1025-points", -1, ["count 1025", "at most 1024 points"]), ("curve-2048-points", -1, ["count 2048", "at most 1024 points"]),
        ("curve-1024-points", 0, []),
    ]

    /// An unpacked bundle of one preset, "tap".
    static func bundle(in dir: Scratch) throws -> String {
        let folder = dir.file("bundle")
        try FileManager.default.createDirectory(atPath: folder + "/haptics", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CAPITests.root.path + "/Resources/demo-bundle/haptics/tap.json", toPath: folder + "/haptics/tap.json")
        let manifest = #"{"schema": "pulsar.bundle/1", "id": "dev.pulsar.hostile", "name": "Hostile", "revision": 1, "#
            + #""presets": [{"id": "tap", "name": "Tap", "duration": 100, "haptics": "haptics/tap.json"}]}"#
        _ = try dir.write(manifest, to: "bundle/manifest.json")
        return folder
    }

    @Test("Hostile names, curves, struct sizes and counts: each call its code, every message one line of at most 300 characters",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build --product PulsarC)"))
    func hostileCalls() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let program = try CAPITests.compile(try dir.write(Self.source, to: "hostile.c"), named: "hostile", in: dir)
        let r = try CAPITests.run(program, [try Self.bundle(in: dir)])
        #expect(r.status == 0 && r.out.hasSuffix("alive\n"), "\(r)")
        var rows: [String: (code: Int, chars: Int, breaks: Int, message: String)] = [:]
        for line in r.out.split(separator: "\n") where line != "alive" {
            let f = line.split(separator: " ", maxSplits: 4).map(String.init)
            guard f.count == 5 else { Issue.record("a row that is not 5 fields: \(line)"); continue }
            rows[f[0]] = (Int(f[1]) ?? 99, Int(f[2]) ?? -1, Int(f[3]) ?? -1, f[4])
        }
        for (name, code, says) in Self.expected {
            let row = try #require(rows[name], "\(name) missing from \(r.out.prefix(2_000))")
            #expect(code.map { row.code == $0 } ?? (row.code < 0), "\(name): code \(row.code), \(row.message)")
            #expect(row.chars <= 300 && row.breaks == 0, "\(name): \(row.chars) characters, \(row.breaks) line breaks")
            for word in says { #expect(row.message.contains(word), "\(name): \(row.message)") }
        }
    }
}
