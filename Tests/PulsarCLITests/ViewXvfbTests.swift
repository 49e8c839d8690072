import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PulsarTestSupport
import Testing

/// `pulsar view` in a real X11 window on a virtual X server (Xvfb), driven by a real pointer
/// (xdotool): the default window's size, and a drag on the timeline that the clock log shows.
@Suite("View under Xvfb", .serialized)
struct ViewXvfbTests {
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool")
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Runs `tool arguments` to its end, returning stdout; a failure fails the test.
    @discardableResult
    static func tool(_ tool: String, _ arguments: [String], environment: [String: String]) throws -> String {
        let r = try ChildProcess.run(tool, arguments, environment: environment)
        try #require(r.status == 0, "\(tool) \(arguments): \(r.stderr)")
        return r.stdout
    }

    /// A started process with stdout to `output` (or /dev/null) and stderr to the file `errors`
    /// (or /dev/null).
    static func start(_ path: String, _ arguments: [String], environment: [String: String], output: Pipe? = nil,
                      errors: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output ?? FileHandle(forWritingAtPath: "/dev/null")
        if let errors { _ = FileManager.default.createFile(atPath: errors, contents: nil) }
        process.standardError = FileHandle(forWritingAtPath: errors ?? "/dev/null")
        try process.run()
        return process
    }

    /// A virtual X server on a display number it picks itself (`-displayfd`: no clash with a
    /// server or a stale lock of another run); the process and its display.
    static func startXvfb() throws -> (process: Process, display: Int) {
        let pipe = Pipe()
        let x = try start("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], environment: [:], output: pipe)
        // Written once the server accepts connections; nothing (end of file) if it failed.
        let text = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let display = Int(text) else {
            kill(x.processIdentifier, SIGKILL)
            x.waitUntilExit()
            throw XvfbFailure(text: text)
        }
        return (x, display)
    }

    struct XvfbFailure: Error, CustomStringConvertible {
        var text: String
        var description: String { "Xvfb did not report a display: '\(text)'" }
    }

    /// Polls `condition` every 50 ms for at most `seconds`.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    @Test("The 128 px demo opens at least 480 px on its shorter side; a drag on the timeline seeks, as the clock log shows",
          .timeLimit(.minutes(3)))
    func dragOnTheTimeline() throws {
        guard Self.available else {
            if Self.inCI { Issue.record("Xvfb and xdotool are needed (make test installs them)") }
            return
        }
        let dir = try TempDir()
        defer { dir.remove() }
        let (x, number) = try Self.startXvfb()
        // SIGKILL: a child started from a test thread inherits its blocked signals (SIGTERM too);
        // a killed server leaves its lock and socket, which go with it.
        defer {
            kill(x.processIdentifier, SIGKILL)
            x.waitUntilExit()
            unlink("/tmp/.X\(number)-lock")
            unlink("/tmp/.X11-unix/X\(number)")
        }
        let env = ["DISPLAY": ":\(number)", "SDL_VIDEODRIVER": "x11"]
        let log = dir.file("clock.jsonl"), errors = dir.file("view.err")
        let view = try Self.start(try CLI.executable(), ["view", ViewCLITests.demoBundle, "--preset", "heartbeat", "--device", "sim", "--paused",
                                                         "--exit-after", "8", "--clock-log", log, "--quiet"], environment: env, errors: errors)
        defer { if view.isRunning { kill(view.processIdentifier, SIGKILL) } }
        var window = ""
        // A loaded machine (the suite runs beside the corpus tests) can take many seconds to start
        // the viewer; it counts its 8 s from its first frame.
        #expect(Self.wait(seconds: 60) {
            window = (try? ChildProcess.run("/usr/bin/xdotool", ["search", "--name", "pulsar view"], environment: env).stdout) ?? ""
            return !window.isEmpty || !view.isRunning
        } && !window.isEmpty, "the window appears (viewer \(view.isRunning ? "running" : "ended"): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""))")
        let id = try #require(window.split(separator: "\n").first.map(String.init))
        let shell = try Self.tool("/usr/bin/xdotool", ["getwindowgeometry", "--shell", id], environment: env)
        var geometry: [String: Int] = [:]
        for line in shell.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2, let v = Int(parts[1]) { geometry[String(parts[0])] = v }
        }
        let (left, top) = (try #require(geometry["X"]), try #require(geometry["Y"]))
        let (width, height) = (try #require(geometry["WIDTH"]), try #require(geometry["HEIGHT"]))
        #expect(min(width, height) >= 480, "\(width)×\(height)")
        // The timeline is the window's bottom 174 px (with audio); its lanes run from 12 px in
        // from the left to 12 px in from the right over the 2 400 ms of the preset.
        let y = top + height - 174 / 2
        func px(_ ms: Double) -> Int { left + Int((12 + ms / 2_400 * Double(width - 24)).rounded()) }
        func ms(_ x: Int) -> Double { Double(x - left - 12) / Double(width - 24) * 2_400 }
        usleep(800_000)
        let (from, to) = (px(1_800), px(600))
        try Self.tool("/usr/bin/xdotool", ["mousemove", "\(from)", "\(y)", "mousedown", "1"], environment: env)
        usleep(400_000)
        try Self.tool("/usr/bin/xdotool", ["mousemove", "\(to)", "\(y)"], environment: env)
        usleep(400_000)
        try Self.tool("/usr/bin/xdotool", ["mouseup", "1"], environment: env)
        #expect(Self.wait(seconds: 30) { !view.isRunning }, "the viewer closes after --exit-after")
        #expect(view.terminationStatus == 0)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let slots = try lines.map { line -> (ms: Double?, mode: String) in
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (json["contentMs"] as? Double, json["mode"] as? String ?? "")
        }
        #expect(slots.count > 100, "slots drawn over 8 s")
        #expect(slots.first?.ms == 0, "paused at 0 ms before the press")
        let pressed = slots.firstIndex { $0.ms.map { abs($0 - ms(from)) < 1 } ?? false }
        let dragged = slots.lastIndex { $0.ms.map { abs($0 - ms(to)) < 1 } ?? false }
        #expect(pressed != nil, "the press seeks to \(ms(from)) ms")
        #expect(dragged != nil && dragged! > (pressed ?? .max), "the drag scrubs to \(ms(to)) ms")
        #expect(slots.last.map { $0.mode == "paused" && abs(($0.ms ?? -1) - ms(to)) < 1 } == true, "held there after the release")
    }
}
