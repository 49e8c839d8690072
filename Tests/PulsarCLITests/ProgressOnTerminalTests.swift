import Foundation
import PulsarTestSupport
import Testing

/// The progress lines of long runs, seen on a terminal: `script(1)` gives the command a
/// pseudo-terminal and writes what it showed to standard output.
@Suite struct ProgressOnTerminalTests {
    static let scriptProgram = "/usr/bin/script"

    /// What `pulsar arguments` showed on a terminal (stdout and stderr together).
    static func onTerminal(_ arguments: [String]) throws -> CLIResult {
        let command = ([try CLI.executable()] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let r = try ChildProcess.run(scriptProgram, ["-qec", command, "/dev/null"])
        return CLIResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    /// A played log of `Resources/patterns/demo.json` at 8 kHz whose end says `seconds` were played.
    static func log(lasting seconds: Int, in dir: TempDir) throws -> String {
        let log = dir.file("played.jsonl")
        let pattern = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/patterns/demo.json").path
        let played = try CLI.run(["play", pattern, "--device", "sim", "--rate", "8000", "--log", log, "--quiet"])
        #expect(played.status == 0, "\(played)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let lengthened = text.replacingOccurrences(of: #""playedFrames": [0-9]+"#, with: "\"playedFrames\": \(seconds * 8000)", options: .regularExpression)
        try lengthened.write(toFile: log, atomically: true, encoding: .utf8)
        return log
    }

    @Test("render --replay of a log over ten minutes: a bar to 100 %, cleared before the summary; none for a short log or with --quiet",
          .enabled(if: FileManager.default.isExecutableFile(atPath: scriptProgram), "needs script(1) (bsdutils)"))
    func replayBar() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let long = try Self.log(lasting: 660, in: dir)
        let shown = try Self.onTerminal(["render", "--replay", long, "-o", "/dev/null"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("replaying [") && shown.stdout.contains("] 100%"), "\(shown.stdout.suffix(400))")
        #expect(shown.stdout.contains("100%\r\u{1B}[2Kwrote /dev/null: 5280000 frames"), "\(shown.stdout.suffix(400))")
        let quiet = try Self.onTerminal(["render", "--replay", long, "-o", "/dev/null", "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty, "\(quiet)")
        let short = try Self.log(lasting: 540, in: dir)
        let brief = try Self.onTerminal(["render", "--replay", short, "-o", "/dev/null"])
        #expect(brief.status == 0 && !brief.stdout.contains("replaying ["), "\(brief.stdout.suffix(400))")
        // Not on a terminal: no bar in the captured stderr.
        let captured = try CLI.run(["render", "--replay", long, "-o", "/dev/null"])
        #expect(captured.status == 0 && !captured.stderr.contains("replaying ["), "\(captured)")
    }

    @Test("drift on a simulated device: a progress line naming the seconds and the device's rate, cleared before the figures",
          .enabled(if: FileManager.default.isExecutableFile(atPath: scriptProgram), "needs script(1) (bsdutils)"))
    func driftLine() throws {
        let shown = try Self.onTerminal(["drift", "--device", "sim", "--seconds", "30"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("\rdrift ") && shown.stdout.contains(" / 30 s  sim: "), "\(shown.stdout.prefix(400))")
        #expect(shown.stdout.contains("\r\u{1B}[2Ksim: 30.0 s"), "\(shown.stdout.prefix(400))")
    }
}
