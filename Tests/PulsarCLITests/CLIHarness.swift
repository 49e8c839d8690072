import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PulsarTestSupport
import Testing

/// What one run of the `pulsar` executable produced.
struct CLIResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    /// The non-empty lines of stderr.
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// Runs the built `pulsar` executable of this checkout: the sibling of the test bundle in the same
/// `.build` folder. When it is missing a test fails saying so; no other `pulsar` is looked for.
enum CLI {
    /// This checkout's `Resources/` folder (read-only to the tests).
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Resources").path

    /// The path of `pulsar` beside the test bundle; throws, naming the path, when it is not built.
    static func executable() throws -> String { try BuiltProduct.executable("pulsar") }

    /// Runs `pulsar arguments`, stdin from /dev/null, stdout and stderr captured through files
    /// (no pipe can fill up and block).
    /// `environment` entries replace the inherited ones.
    static func run(_ arguments: [String], environment: [String: String] = [:],
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
        let r = try ChildProcess.run(try CLI.executable(), arguments, environment: environment)
        return CLIResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }
}

/// What one measured run of `pulsar` used, from the kernel's accounting of the child (`wait4`).
struct CLIUsage {
    var result: CLIResult
    /// Largest resident set, in bytes.
    var maxResidentBytes: Int
    /// User plus system CPU time, in seconds: what the run cost, whatever else loads the machine.
    var cpuSeconds: Double
    /// Whether it had to be killed (still running after `CLI.hangLimit` of wall time).
    var killed: Bool
}

extension CLI {
    /// Wall time after which a measured run is killed and reported as a hang (a safety net so a
    /// hang fails one test instead of stopping the suite; the assertions use CPU time).
    static let hangLimit: Double = 60

    /// Runs `pulsar arguments` (stdin /dev/null, output to files) and reports its resource use
    /// as well as its result.
    /// `interruptAfter`: seconds after which the run gets one SIGINT, as Ctrl-C would send.
    static func runMeasured(_ arguments: [String], hangLimit: Double = CLI.hangLimit, interruptAfter: Double? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIUsage {
        let executable = try CLI.executable()
        let scratch = try TempDir()
        defer { scratch.remove() }
        let outPath = scratch.path + "/stdout", errPath = scratch.path + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let signals = DefaultSignals()
        let spawned = posix_spawn(&pid, executable, &actions, &signals.attributes, argv, environ)
        try #require(spawned == 0, "posix_spawn failed: \(spawned)", sourceLocation: sourceLocation)
        var status: Int32 = 0
        var usage = rusage()
        var killed = false, interrupted = false
        let start = Date()
        while true {
            let r = wait4(pid, &status, WNOHANG, &usage)
            if r == pid { break }
            if r < 0 && errno != EINTR { break }
            if let after = interruptAfter, !interrupted, Date().timeIntervalSince(start) > after {
                kill(pid, SIGINT)
                interrupted = true
            }
            if Date().timeIntervalSince(start) > hangLimit, !killed {
                kill(pid, SIGKILL)
                killed = true
            }
            usleep(2000)
        }
        let exited = (status & 0x7f) == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let result = CLIResult(status: code, stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                               stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return CLIUsage(result: result, maxResidentBytes: usage.ru_maxrss * 1024, cpuSeconds: cpu, killed: killed)
    }
}

/// A fresh temporary directory per test (FileManager's temporary directory + a UUID).
struct TempDir {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let file = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Creates a subdirectory and returns its path.
    func directory(_ name: String) throws -> String {
        let dir = file(name)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Names in `directory` (default: this one).
    func contents(of directory: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory ?? path)) ?? []).sorted()
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Spawn attributes with no signal blocked and every one at its default: a test runner's
/// threads block some, and a child would inherit that (a SIGINT sent to it would never arrive).
final class DefaultSignals {
    var attributes = posix_spawnattr_t()

    init() {
        posix_spawnattr_init(&attributes)
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    deinit { posix_spawnattr_destroy(&attributes) }
}
