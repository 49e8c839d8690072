#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// CLOCK_MONOTONIC in nanoseconds.
public func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Runs a program to its end; returns its exit status, wall seconds and CPU seconds (user +
/// system, from the kernel's accounting of children).
@discardableResult
public func runProcess(_ program: String, _ args: [String], quiet: Bool = true) throws -> (status: Int32, wall: Double, cpu: Double) {
    var before = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &before)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = args
    if quiet { p.standardOutput = FileHandle.nullDevice }
    let start = monotonicNow()
    try p.run()
    p.waitUntilExit()
    let wall = Double(monotonicNow() - start) / 1e9
    var after = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &after)
    func secs(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    let cpu = (secs(after.ru_utime) - secs(before.ru_utime)) + (secs(after.ru_stime) - secs(before.ru_stime))
    return (p.terminationStatus, wall, cpu)
}

/// A private PipeWire session for a benchmark (`scripts/pipewire-session.sh` in `directory`),
/// its environment exported into this process, stopped at exit whatever happens.
public enum PipeWireSession {
    nonisolated(unsafe) private static var directory: String?
    nonisolated(unsafe) private static var script = ""

    /// Starts the session; exits the program with a one-line message when it does not start.
    public static func start(root: String, in directory: String, name: String) throws {
        script = root + "/scripts/pipewire-session.sh"
        let started = try runProcess("/bin/bash", [script, "start", directory, "--watch", String(getpid())], quiet: false)
        guard started.status == 0 else {
            print("\(name): the PipeWire session did not start (see \(directory)/*.log)")
            exit(1)
        }
        self.directory = directory
        atexit { PipeWireSession.stop() }
        for line in (try String(contentsOfFile: directory + "/env", encoding: .utf8)).split(separator: "\n") {
            // export NAME='value'
            let body = line.hasPrefix("export ") ? line.dropFirst(7) : line[...]
            guard let eq = body.firstIndex(of: "=") else { continue }
            let value = body[body.index(after: eq)...].trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            setenv(String(body[..<eq]), value, 1)
        }
    }

    /// Stops the session (once).
    public static func stop() {
        guard let directory else { return }
        self.directory = nil
        _ = try? runProcess("/bin/bash", [script, "stop", directory], quiet: false)
    }
}

/// The `p`-quantile of sorted values.
public func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

/// `v` with `d` decimals.
public func fmt(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }

/// `--name value` numeric options of a benchmark, with their defaults; an unknown one stops it.
public func numericOptions(_ defaults: [String: Double]) -> [String: Double] {
    var values = defaults
    var arguments = CommandLine.arguments.dropFirst()
    while let a = arguments.popFirst() {
        guard a.hasPrefix("--"), values[String(a.dropFirst(2))] != nil, let v = Double(arguments.popFirst() ?? "") else {
            fatalError("unknown option or value at \(a) (options: \(defaults.keys.sorted().map { "--" + $0 }.joined(separator: ", ")))")
        }
        values[String(a.dropFirst(2))] = v
    }
    return values
}

/// The project's release `pulsar`, from a benchmark source file's path (`#filePath`); stops the
/// benchmark `name` with one line when it is not built.
public func releasePulsar(from filePath: String, name: String) -> (root: String, binary: String) {
    let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let binary = root + "/.build/release/pulsar"
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        print("\(name): \(binary) is missing: run `swift build -c release` at the project root first")
        exit(1)
    }
    return (root, binary)
}
