import Foundation
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pulsar video` under hostile options and inputs: frame rates whose terms overflow, a picture
/// the input makes too large, a rate the container's audio codec cannot take, a video of a day.
/// Each is refused before anything is drawn or created — exit 64 for an option, 65 for the
/// input's own size —, in one line of at most 300 characters naming the value and the rule,
/// cheaply (within 2 s of CPU), and leaves no output and no temporary file.
@Suite("Video hostile options")
struct VideoHostileTests {
    /// A Lottie of 8192 × 2 at 30 fps: scaled to 480 px on its shorter side, 1 966 080 px wide.
    static let wide = #"{"v":"5.7.0","fr":30,"ip":0,"op":30,"w":8192,"h":2,"layers":[]}"#
    /// A Lottie of 8192 × 8192: 67 Mpx, its own size beyond the largest picture.
    static let square = #"{"v":"5.7.0","fr":30,"ip":0,"op":30,"w":8192,"h":8192,"layers":[]}"#
    /// A Lottie at 0.5 fps: below the slowest frame rate.
    static let slow = #"{"v":"5.7.0","fr":0.5,"ip":0,"op":2,"w":64,"h":64,"layers":[]}"#

    /// A Pulsar JSON pattern whose amplitude curve ends at `lastMs` (its render lasts 8 ms more:
    /// 208 ms for 200).
    static func pattern(lastMs: Int) -> String {
        #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":"# + "\(lastMs)"
            + #","value":0}],"frequency":[{"time":0,"value":0.5},{"time":"# + "\(lastMs)" + #","value":0.5}]},"discretePattern":[]}"#
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var input: String
        var arguments: [String]
        var status: Int32
        /// Words the one line must hold: the value and the rule.
        var words: [String]
        var testDescription: String { "\(input) \(arguments.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(input: "day.json", arguments: ["--fps", "1/2147483648", "-o", "out.mp4"], status: 64,
             words: ["--fps 1/2147483648", "2147483647", "[value-out-of-range]"]),
        Case(input: "day.json", arguments: ["--fps", "1/100000000000000000", "-o", "out.mp4"], status: 64,
             words: ["--fps 1/100000000000000000", "[value-out-of-range]"]),
        Case(input: "day.json", arguments: ["--fps", "1000000000000000000.5", "-o", "out.mp4"], status: 64,
             words: ["--fps 1000000000000000000.5", "1...120", "[value-out-of-range]"]),
        Case(input: "short.json", arguments: ["--fps", "1/50000", "-o", "out.mp4"], status: 64,
             words: ["--fps 1/50000", "2e-05", "1...120", "[value-out-of-range]"]),
        Case(input: "short.json", arguments: ["--fps", "2147483647/1", "-o", "out.mp4"], status: 64, words: ["1...120", "[value-out-of-range]"]),
        Case(input: "short.json", arguments: ["--fps", "30.12345", "-o", "out.mp4"], status: 64, words: ["[not-a-frame-rate]"]),
        Case(input: "short.json", arguments: ["--fps", "-30", "-o", "out.mp4"], status: 64, words: ["--fps"]),
        Case(input: "wide.json", arguments: ["-o", "out.mp4"], status: 65, words: ["wide.json", "1966080×", "8192 px a side", "[picture-too-large]"]),
        Case(input: "square.json", arguments: ["--picture-only", "-o", "out.mp4"], status: 65,
             words: ["square.json", "8192×8192", "[picture-too-large]"]),
        Case(input: "slow.json", arguments: ["-o", "out.mp4"], status: 64, words: ["0.5 fps", "--fps", "[value-out-of-range]"]),
        Case(input: "short.json", arguments: ["--rate", "192000", "-o", "out.mp4"], status: 64,
             words: ["--rate 192000", "out.mp4's AAC audio takes", "96000 Hz", "[rate-not-supported]"]),
        Case(input: "short.json", arguments: ["--rate", "50000", "-o", "out.mp4"], status: 64, words: ["--rate 50000", "[rate-not-supported]"]),
        Case(input: "short.json", arguments: ["--rate", "96001", "-o", "out.mkv"], status: 64,
             words: ["--rate 96001", "out.mkv's FLAC audio", "[rate-not-supported]"]),
        Case(input: "short.json", arguments: ["--rate", "44100", "-o", "out.webm"], status: 64, words: ["Opus", "48000 Hz only", "[rate-not-supported]"]),
        Case(input: "day.json", arguments: ["-o", "out.mp4"], status: 64,
             words: ["day.json", "23 h 59 min", "frames at 30 fps", "3600 s --max-duration allows; --max-duration 8634", "writes it", "[video-too-long]"]),
        Case(input: "day.json", arguments: ["--loop", "2", "--max-duration", "86400", "-o", "out.mp4"], status: 64,
             words: ["24 h", "[too-long]"]),
        Case(input: "short.json", arguments: ["--loop", "20", "--max-duration", "1", "-o", "out.mp4"], status: 64,
             words: ["4.16 s", "125 frames", "--max-duration 5 writes it", "[video-too-long]"]),
        Case(input: "short.json", arguments: ["--max-duration", "1e9", "-o", "out.mp4"], status: 64, words: ["--max-duration 1e9", "24 h", "[too-long]"]),
        Case(input: "short.json", arguments: ["--max-duration", "soon", "-o", "out.mp4"], status: 64, words: ["--max-duration soon", "[not-a-number]"]),
        Case(input: "short.json", arguments: ["--size", "8194x2", "-o", "out.mp4"], status: 64, words: ["--size", "8192"]),
        Case(input: "short.json", arguments: ["--size", "8192x4096", "-o", "out.mp4"], status: 64, words: ["--size 8192x4096", "[too-large]"]),
        Case(input: "short.json", arguments: ["--size", "101x100", "-o", "out.mp4"], status: 64, words: ["--size 101x100", "even", "[odd-size]"]),
    ]

    /// The inputs of every case in a fresh folder.
    static func inputs() throws -> TempDir {
        let dir = try TempDir()
        try dir.write(pattern(lastMs: 86_340_000), to: "day.json")
        try dir.write(pattern(lastMs: 200), to: "short.json")
        try dir.write(wide, to: "wide.json")
        try dir.write(square, to: "square.json")
        try dir.write(slow, to: "slow.json")
        return dir
    }

    @Test("Refused up front: the documented exit code, one line of at most 300 characters naming the value and the rule, no file left, within 2 s of CPU",
          arguments: cases)
    func refusedUpFront(_ c: Case) throws {
        let dir = try Self.inputs()
        defer { dir.remove() }
        let before = dir.contents()
        let arguments = ["video", dir.file(c.input)] + c.arguments.map { $0.hasPrefix("out.") ? dir.file($0) : $0 } + ["--quiet"]
        let run = try CLI.runMeasured(arguments)
        let r = run.result
        #expect(!run.killed && r.status == c.status, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.count <= 300 + 1, "\(r.stderr.count) characters: \(r.stderr)")
        for word in c.words { #expect(r.stderr.contains(word), "'\(word)' missing: \(r.stderr)") }
        #expect(run.cpuSeconds <= 2, "\(run.cpuSeconds) s of CPU: not refused before the work")
        #expect(dir.contents() == before, "left behind: \(dir.contents())")
    }

    /// The edges of each range are written: a rate of terms 2³¹ − 1 over 2³¹ − 2 (just above 1
    /// fps), 120 fps, 96 kHz in AAC, 65 534 Hz in FLAC, a video of exactly --max-duration.
    @Test("The edges of the ranges make videos", .timeLimit(.minutes(3)))
    func edgesAreWritten() throws {
        let dir = try Self.inputs()
        defer { dir.remove() }
        let short = dir.file("short.json")
        let runs: [[String]] = [
            ["--fps", "2147483647/2147483646", "-o", dir.file("a.mp4")],
            ["--fps", "2147483647/2147483646", "-o", dir.file("a.webm")],
            ["--fps", "120", "--rate", "96000", "-o", dir.file("b.mp4")],
            ["--fps", "1", "--rate", "65534", "-o", dir.file("c.mkv")],
            ["--fps", "119.9999", "--rate", "192000", "-o", dir.file("d.mkv")],
            ["--max-duration", "0.208", "-o", dir.file("e.mp4")],
        ]
        for arguments in runs {
            let r = try CLI.run(["video", short, "--size", "64x64", "--quiet"] + arguments)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(arguments): \(r)")
            #expect(dir.exists(arguments.last!), "\(arguments): no video")
        }
        #expect(!dir.contents().contains { $0.contains(".partial") }, "\(dir.contents())")
    }
}
