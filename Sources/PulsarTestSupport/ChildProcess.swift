import Foundation

/// Runs a program to its end for a test: stdin from /dev/null, stdout and stderr captured
/// through files (no pipe can fill up and block the child).
public enum ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable arguments` and waits for it; `environment` entries replace inherited ones.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-child-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let outPath = scratch + "/stdout", errPath = scratch + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        guard let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw CocoaError(.fileWriteUnknown)
        }
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
        return Result(status: process.terminationStatus, stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                      stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }
}
