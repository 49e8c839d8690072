import Foundation
import Testing

/// scripts/abi-check.py, which `make test` runs on the release library: the real header and
/// library match the record, and each kind of change a compiled caller would trip over is caught
/// (a header copy edited one way at a time, the record kept).
@Suite("ABI check")
struct ABICheckTests {
    static let script = CAPITests.root.path + "/scripts/abi-check.py"
    static let header = CAPITests.root.path + "/include/pulsar.h"
    static let record = CAPITests.root.path + "/include/pulsar.abi"

    static func check(header: String) throws -> (status: Int32, out: String, err: String) {
        try CAPITests.run("/usr/bin/python3", [script, CAPITests.library, "--header", header, "--record-file", record])
    }

    /// The real header with `original` replaced by `replacement` (which must occur once).
    static func edited(_ original: String, _ replacement: String, in dir: Scratch) throws -> String {
        let text = try String(contentsOfFile: header, encoding: .utf8)
        #expect(text.components(separatedBy: original).count == 2, "'\(original)' is not in the header exactly once")
        return try dir.write(text.replacingOccurrences(of: original, with: replacement), to: "pulsar.h")
    }

    @Test("The header and the built library match include/pulsar.abi", .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func matchesTheRecord() throws {
        let r = try Self.check(header: Self.header)
        #expect(r.status == 0 && r.out.contains("match the record"), "\(r)")
    }

    @Test("Each breaking change fails, naming the line: reordered members, a changed member type, a changed constant, a changed parameter type, a function gone, a new ABI version",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"),
          arguments: [
              ("    double haptic_gain;   /* (0, 16]; default 1 */\n    double audio_gain;    /* (0, 16]; default 1 */",
               "    double audio_gain;    /* (0, 16]; default 1 */\n    double haptic_gain;   /* (0, 16]; default 1 */", "breaks callers: field pulsar_mix_options.haptic_gain"),
              ("    int loop_count;       /*", "    float loop_count;       /*", "breaks callers: field pulsar_mix_options.loop_count"),
              ("PULSAR_ERROR_BUSY = -6,", "PULSAR_ERROR_BUSY = -9,", "breaks callers: const PULSAR_ERROR_BUSY"),
              ("int pulsar_voice_seek(pulsar_voice *voice, double to_ms);", "int pulsar_voice_seek(pulsar_voice *voice, float to_ms);", "breaks callers: function pulsar_voice_seek"),
              ("int pulsar_voice_pause(pulsar_voice *voice);", "", "pulsar_voice_pause is exported but the header does not declare it"),
              ("#define PULSAR_ABI_VERSION 0", "#define PULSAR_ABI_VERSION 1", "not libpulsar.so.1 (PULSAR_ABI_VERSION 1)"),
          ])
    func breakingChanges(original: String, replacement: String, named: String) throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let r = try Self.check(header: try Self.edited(original, replacement, in: dir))
        #expect(r.status == 1 && r.err.contains(named), "\(r)")
    }

    @Test("A member added at a struct's end is compatible: reported as unrecorded, not as breaking",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"))
    func growthAtTheEnd() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let r = try Self.check(header: try Self.edited("} pulsar_mix_options;", "    double spare;\n} pulsar_mix_options;", in: dir))
        #expect(r.status == 1 && r.err.contains("compatible, not recorded: field pulsar_mix_options.spare")
                && r.err.contains("(grown at its end)") && !r.err.contains("breaks callers"), "\(r)")
    }
}
