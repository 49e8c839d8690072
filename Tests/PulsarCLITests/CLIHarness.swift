import Foundation
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

/// Runs the built `pulsar` executable: the sibling of the test bundle (`.build/debug/pulsar`),
/// or the first `.build/debug/pulsar` found walking up from the bundle or from this file.
enum CLI {
    static let executable: String? = {
        let fm = FileManager.default
        var candidates: [URL] = []
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("pulsar"))
        for start in [bundle, URL(fileURLWithPath: #filePath)] {
            var directory = start.deletingLastPathComponent()
            while directory.path != "/" {
                candidates.append(directory.appendingPathComponent(".build/debug/pulsar"))
                directory = directory.deletingLastPathComponent()
            }
        }
        return candidates.map(\.path).first { fm.isExecutableFile(atPath: $0) }
    }()

    /// Runs `pulsar arguments`, stdin from /dev/null, stdout and stderr captured through files
    /// (no pipe can fill up and block).
    /// `environment` entries replace the inherited ones.
    static func run(_ arguments: [String], environment: [String: String] = [:],
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
        let executable = try #require(executable, "the pulsar executable is not built", sourceLocation: sourceLocation)
        let scratch = try TempDir()
        defer { scratch.remove() }
        let outPath = scratch.path + "/stdout", errPath = scratch.path + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try #require(FileHandle(forWritingAtPath: outPath))
        let err = try #require(FileHandle(forWritingAtPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return CLIResult(status: process.terminationStatus,
                         stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                         stderr: try String(contentsOfFile: errPath, encoding: .utf8))
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
