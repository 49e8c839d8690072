// Frames missed by the viewer (`pulsar view`) at 60 Hz under Xvfb (target 0), side by side in one
// run with a reference that does the same job with no Swift in it: `sdl-frame-reference`
// (Sources/CSDLFrameReference/main.c: an SDL2 window, rlottie's C API, one ARGB8888 streaming
// texture). Both play the demo bundle's heartbeat animation in a WxH window for N seconds, one
// after the other (never at once), on a private Xvfb display this benchmark starts and stops.
//
// Both programs pace and count with the same rule: deadlines at t0 + k·T, T = 1/60 s, on
// CLOCK_MONOTONIC; after presenting slot k, the next slot is the smallest j > k whose deadline
// has not passed, missed += j − k − 1, and the program sleeps (clock_nanosleep, TIMER_ABSTIME)
// until that deadline. Each writes one JSON object:
//   {"refreshHz":60,"seconds":60.0,"slots":3600,"presented":3600,"missed":0,
//    "drawMs":{"p50":..,"p99":..,"max":..},"wakeLateMs":{"p50":..,"p99":..,"max":..}}
// drawMs is render + upload + present per frame; wakeLateMs is actual wake-up time − deadline.
// The figures are reported, not asserted. Exit status: 0 when both jobs ran, 1 when one failed
// (its row reads n/a), 69 when Xvfb is not installed.
//
// Needs the Debian packages xvfb, libsdl2-dev and librlottie-dev, and a release build of pulsar
// (`swift build -c release` at the project root).
//
//   swift run -c release viewer-frames [--seconds 60] [--size 640x640] [--root ..] [--display :N]
#if canImport(Glibc)
import Glibc
#endif
import Foundation

// MARK: Options

struct Options {
    var seconds = 60.0
    var width = 640, height = 640
    var root = ".."
    var display: Int?
}

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("viewer-frames: \(message)\nusage: viewer-frames [--seconds N] [--size WxH] [--root DIR] [--display :N]\n".utf8))
    exit(2)
}

func options() -> Options {
    var o = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let a = arguments.popFirst() {
        guard let value = arguments.popFirst() else { usage("\(a) needs a value") }
        switch a {
        case "--seconds":
            guard let s = Double(value), s > 0 else { usage("bad --seconds \(value)") }
            o.seconds = s
        case "--size":
            let parts = value.split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { usage("bad --size \(value)") }
            (o.width, o.height) = (w, h)
        case "--root":
            o.root = value
        case "--display":
            guard value.hasPrefix(":"), let n = Int(value.dropFirst()), n >= 0 else { usage("bad --display \(value)") }
            o.display = n
        default:
            usage("unknown option \(a)")
        }
    }
    return o
}
let opts = options()
let secondsText = opts.seconds == opts.seconds.rounded() ? String(Int(opts.seconds)) : String(opts.seconds)
let sizeText = "\(opts.width)x\(opts.height)"

// MARK: Paths

let root = URL(fileURLWithPath: opts.root, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
    .standardizedFileURL.path
let bundle = root + "/Resources/demo-bundle"
let animation = bundle + "/animation/heartbeat.json"
let presetID = "heartbeat"
let pulsar = root + "/.build/release/pulsar"
let ownDirectory = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    ?? CommandLine.arguments[0]).deletingLastPathComponent().path
let reference = ownDirectory + "/sdl-frame-reference"

func which(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
        let path = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}
guard let xvfb = which("Xvfb") else {
    print("viewer-frames: Xvfb is not installed: apt-get install xvfb")
    exit(69)
}
guard FileManager.default.fileExists(atPath: animation) else {
    print("viewer-frames: \(animation) is missing (is --root \(opts.root) the project root?)")
    exit(1)
}
guard FileManager.default.isExecutableFile(atPath: reference) else {
    print("viewer-frames: \(reference) is missing: build it with `swift build -c release --product sdl-frame-reference`")
    exit(1)
}

let work = NSTemporaryDirectory() + "pulsar-viewer-frames-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)

// MARK: Xvfb, stopped whatever happens

/// The Xvfb server and the job being run, killed by `stopAll`, which also runs at exit.
nonisolated(unsafe) var xvfbPID: pid_t = 0
nonisolated(unsafe) var jobPID: pid_t = 0

nonisolated func stopAll() {
    if jobPID > 0 { kill(jobPID, SIGKILL); jobPID = 0 }
    if xvfbPID > 0 {
        let pid = xvfbPID
        xvfbPID = 0
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(pid, &status, WNOHANG) == 0 { usleep(20_000) }
    }
}
nonisolated(unsafe) var workToRemove = work
nonisolated func cleanUp() {
    stopAll()
    try? FileManager.default.removeItem(atPath: workToRemove)
}
atexit(cleanUp)
/// SIGINT / SIGTERM: exit 128 + signal, which stops the job and Xvfb and removes the work folder.
nonisolated func onSignal(_ number: Int32) -> DispatchSourceSignal {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler { @Sendable in exit(128 + number) }
    source.resume()
    return source
}
let signalSources = [onSignal(SIGINT), onSignal(SIGTERM)]

func displayIsFree(_ n: Int) -> Bool {
    !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") && !FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock")
}
let displayNumber: Int
if let n = opts.display {
    guard displayIsFree(n) else {
        print("viewer-frames: display :\(n) is in use (/tmp/.X11-unix/X\(n) or /tmp/.X\(n)-lock exists)")
        exit(1)
    }
    displayNumber = n
} else {
    guard let n = (97...160).first(where: displayIsFree) else {
        print("viewer-frames: no free display in :97...:160")
        exit(1)
    }
    displayNumber = n
}
let display = ":\(displayNumber)"
let xvfbArguments = [display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"]
let xvfbLog = work + "/xvfb.log"
_ = FileManager.default.createFile(atPath: xvfbLog, contents: nil)
let server = Process()
server.executableURL = URL(fileURLWithPath: xvfb)
server.arguments = xvfbArguments
server.standardInput = FileHandle.nullDevice
server.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: xvfbLog))
server.standardError = server.standardOutput
try server.run()
xvfbPID = server.processIdentifier
do {
    let socket = "/tmp/.X11-unix/X\(displayNumber)"
    var waited = 0
    while !FileManager.default.fileExists(atPath: socket) && server.isRunning && waited < 5000 {
        usleep(50_000)
        waited += 50
    }
    guard FileManager.default.fileExists(atPath: socket), server.isRunning else {
        let log = (try? String(contentsOfFile: xvfbLog, encoding: .utf8)) ?? ""
        print("viewer-frames: Xvfb \(display) did not start within 5 s: \(log.split(separator: "\n").suffix(3).joined(separator: " / "))")
        exit(1)
    }
}

// MARK: Jobs

struct Percentiles: Decodable { var p50: Double; var p99: Double; var max: Double }
struct FrameStats: Decodable {
    var refreshHz: Int
    var seconds: Double
    var slots: Int
    var presented: Int
    var missed: Int
    var drawMs: Percentiles
    var wakeLateMs: Percentiles
}
struct JobResult {
    var stats: FrameStats?
    /// The job's last non-empty line on stderr, or why it failed.
    var message: String
    var stderrLines: [String]
}

func shellQuoted(_ s: String) -> String {
    s.allSatisfy({ $0.isLetter || $0.isNumber || "-_./:=,+@".contains($0) }) ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
func commandLine(_ program: String, _ args: [String]) -> String {
    (["DISPLAY=\(display)", "SDL_VIDEODRIVER=x11", program] + args).map(shellQuoted).joined(separator: " ")
}

/// Runs one job on the Xvfb display to its end (killed after the run's length + 60 s) and reads
/// the statistics it wrote to `statsFile`.
func runJob(_ name: String, _ program: String, _ args: [String], statsFile: String) -> JobResult {
    let errorLog = work + "/\(name).stderr"
    _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
    func stderrLines() -> [String] {
        ((try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    guard FileManager.default.isExecutableFile(atPath: program) else {
        return JobResult(stats: nil, message: "\(program) is missing", stderrLines: [])
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = args
    var environment = ProcessInfo.processInfo.environment
    environment["DISPLAY"] = display
    environment["SDL_VIDEODRIVER"] = "x11"
    p.environment = environment
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    p.standardError = try? FileHandle(forWritingTo: URL(fileURLWithPath: errorLog))
    do { try p.run() } catch { return JobResult(stats: nil, message: "cannot start: \(error)", stderrLines: []) }
    jobPID = p.processIdentifier
    let limit = Date().addingTimeInterval(opts.seconds + 60)
    var timedOut = false
    while p.isRunning {
        if Date() > limit {
            timedOut = true
            kill(p.processIdentifier, SIGKILL)
        }
        usleep(100_000)
    }
    p.waitUntilExit()
    jobPID = 0
    let lines = stderrLines()
    let last = lines.last ?? ""
    if timedOut {
        return JobResult(stats: nil, message: "killed after \(Int(opts.seconds + 60)) s" + (last.isEmpty ? "" : ": \(last)"), stderrLines: lines)
    }
    guard p.terminationReason == .exit, p.terminationStatus == 0 else {
        let how = p.terminationReason == .exit ? "exit status \(p.terminationStatus)" : "signal \(p.terminationStatus)"
        return JobResult(stats: nil, message: last.isEmpty ? how : "\(how): \(last)", stderrLines: lines)
    }
    guard let data = FileManager.default.contents(atPath: statsFile) else {
        return JobResult(stats: nil, message: "no statistics written to \(statsFile)" + (last.isEmpty ? "" : ": \(last)"), stderrLines: lines)
    }
    do {
        return JobResult(stats: try JSONDecoder().decode(FrameStats.self, from: data), message: last, stderrLines: lines)
    } catch {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        return JobResult(stats: nil, message: "unreadable statistics in \(statsFile): \(text)", stderrLines: lines)
    }
}

let referenceStats = work + "/reference.json"
let referenceArgs = [animation, "--size", sizeText, "--seconds", secondsText, "--frame-stats", referenceStats]
let viewerStats = work + "/viewer.json"
// The packed demo bundle, built from Resources/ by the project's own script (its audio is made
// then), so the viewer plays the heartbeat with its audio and haptics.
let builtBundle = work + "/demo/demo.pulsar"
let build = Process()
build.executableURL = URL(fileURLWithPath: "/bin/bash")
build.arguments = [root + "/scripts/make-demo-bundle.sh", work + "/demo", pulsar]
build.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
build.standardError = FileHandle(forWritingAtPath: "/dev/null")
try? build.run()
build.waitUntilExit()
let viewerArgs = ["view", builtBundle, "--preset", presetID, "--device", "sim", "--size", sizeText, "--exit-after", secondsText,
                  "--frame-stats", viewerStats]

let referenceResult = runJob("reference", reference, referenceArgs, statsFile: referenceStats)
var viewerResult = runJob("viewer", pulsar, viewerArgs, statsFile: viewerStats)
if viewerResult.stats == nil && !FileManager.default.isExecutableFile(atPath: pulsar) {
    viewerResult.message = "\(pulsar) is missing: run `swift build -c release` at the project root"
}
stopAll()

// MARK: Report

func fmt(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }
func row(_ job: String, _ result: JobResult) -> String {
    guard let s = result.stats else { return "| \(job) | n/a | n/a | n/a | n/a | n/a |" }
    return "| \(job) | \(s.slots) | \(s.presented) | \(s.missed) | \(fmt(s.drawMs.p50)) / \(fmt(s.drawMs.p99)) / \(fmt(s.drawMs.max)) ms | \(fmt(s.wakeLateMs.p99)) ms |"
}

print("Viewer frames at 60 Hz under Xvfb (\(display), 1280x1024x24), heartbeat animation in a \(sizeText) window, \(secondsText) s each, one job after the other, one run:")
print("")
print("| job | slots | presented | missed (target 0) | draw p50 / p99 / max | wake-late p99 |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
print(row("pulsar view (demo bundle, preset \(presetID), sim device, audio + haptics)", viewerResult))
print(row("reference: C, SDL2 + rlottie C API, no Swift", referenceResult))
print("")
if let info = referenceResult.stderrLines.first(where: { $0.contains("renderer") }) {
    print("reference: \(info)")
}
for (name, result) in [("pulsar view", viewerResult), ("reference", referenceResult)] where result.stats == nil {
    print("\(name) failed: \(result.message)")
}
print("command: " + (["swift", "run", "-c", "release", "viewer-frames"] + CommandLine.arguments.dropFirst()).map(shellQuoted).joined(separator: " "))
print("  viewer:    " + commandLine(pulsar, viewerArgs))
print("  reference: " + commandLine(reference, referenceArgs))
print("  Xvfb:      " + ([xvfb] + xvfbArguments).map(shellQuoted).joined(separator: " "))
exit(referenceResult.stats != nil && viewerResult.stats != nil ? 0 : 1)
