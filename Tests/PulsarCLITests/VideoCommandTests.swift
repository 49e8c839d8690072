import Foundation
import PulsarTestSupport
import Testing

/// `pulsar video`, measured from outside: ffprobe's streams and timestamps, frames decoded by the
/// `ffmpeg` tool against `pulsar frame`, audio decoded by `ffmpeg` against `pulsar render`.
@Suite("VideoCommand")
struct VideoCommandTests {
    static let corpus = SharedCorpus.available("bundles/demo.pulsar")
    static let tools = MediaProbe.available || ProcessInfo.processInfo.environment["CI"] == "true"
    static let background: UInt32 = 0xF2F2F2

    static func bundle() throws -> String { try SharedCorpus.path("bundles/demo.pulsar") }

    /// A 160×96 Lottie at 30 fps, 30 frames: a dark grey box sliding 4 px a frame, every frame
    /// different from its neighbours (so a decoded frame names the animation frame it shows).
    static let slide = """
    {"v":"5.7.0","fr":30,"ip":0,"op":30,"w":160,"h":96,"layers":[{"ty":4,"ind":1,"nm":"box","ip":0,"op":30,"st":0,
    "ks":{"o":{"a":0,"k":100},"r":{"a":0,"k":0},"p":{"a":1,"k":[{"t":0,"s":[20,48],"i":{"x":[1],"y":[1]},"o":{"x":[0],"y":[0]}},
    {"t":29,"s":[136,48]}]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]}},
    "shapes":[{"ty":"rc","nm":"r","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[20,40]},"r":{"a":0,"k":0}},
    {"ty":"fl","nm":"f","c":{"a":0,"k":[0.2,0.2,0.2,1]},"o":{"a":0,"k":100}}]}]}
    """

    func run(_ arguments: [String]) throws -> CLIResult {
        let r = try CLI.run(["video"] + arguments)
        return r
    }

    /// What `pulsar frame` draws for `frames` of `input`, composited over the background as rgb24.
    func references(_ input: String, preset: [String] = [], frames: [Int], dir: TempDir) throws -> [Int: [UInt8]] {
        var out: [Int: [UInt8]] = [:]
        for n in Set(frames) {
            let png = dir.file("ref-\(n).png")
            let r = try CLI.run(["frame", input] + preset + ["--frame", "\(n)", "-o", png])
            try #require(r.status == 0, "\(r)")
            out[n] = try MediaProbe.rgbImage(png, over: Self.background)
        }
        return out
    }

    @Test(".mp4: H.264 and two AAC tracks titled audio and haptics, lasting the render within a frame",
          .enabled(if: corpus && tools, "needs ../shared/corpus and ffmpeg"), .timeLimit(.minutes(3)))
    func mp4Streams() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("v.mp4"), wav = dir.file("r.wav")
        let r = try run([try Self.bundle(), "--preset", "verified", "--picture-only", "-o", out, "--quiet"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        let s = try MediaProbe.streams(out)
        #expect(s.map(\.codec) == ["h264", "aac", "aac"])
        #expect(s.dropFirst().map(\.handlerName) == ["audio", "haptics"])
        #expect(s.dropFirst().map(\.channels) == [2, 1])
        #expect(s[0].width == 128 && s[0].height == 128)
        #expect(try CLI.run(["render", try Self.bundle(), "--preset", "verified", "--layout", "L,R", "-o", wav, "--quiet"]).status == 0)
        let expected = try MediaProbe.duration(wav), got = try MediaProbe.duration(out)
        #expect(abs(got - expected) <= 1 / 29.97, "\(got) s against the render's \(expected) s")
        #expect(dir.contents() == ["r.wav", "v.mp4"], "no temporary left")
    }

    @Test(".webm: VP9 and two Opus tracks titled audio and haptics; .mkv: H.264 and two FLAC tracks",
          .enabled(if: corpus && tools, "needs ../shared/corpus and ffmpeg"), .timeLimit(.minutes(3)))
    func webmAndMkvStreams() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        for (name, codecs) in [("v.webm", ["vp9", "opus", "opus"]), ("v.mkv", ["h264", "flac", "flac"])] {
            let r = try run([try Self.bundle(), "--preset", "verified", "-o", dir.file(name), "--quiet"])
            #expect(r.status == 0, "\(r)")
            let s = try MediaProbe.streams(dir.file(name))
            #expect(s.map(\.codec) == codecs)
            #expect(s.dropFirst().map(\.title) == ["audio", "haptics"])
            #expect(s.dropFirst().map(\.sampleRate) == [48_000, 48_000])
        }
    }

    /// At the animation's own 29.97 fps, slot n is shown from sample ceil(n · 48000 / 29.97): its
    /// content time n / 29.97 s (rounded up to a sample) falls in animation frame n, and after the
    /// animation's 73 frames the player holds the last one (72).
    @Test("Every decoded frame n is pulsar frame --frame min(n, 72) (PSNR ≥ 35 dB) at pts n / 29.97 s (± half a frame)",
          .enabled(if: corpus && tools, "needs ../shared/corpus and ffmpeg"), .timeLimit(.minutes(5)))
    func framesFollowTheSampleClock() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("v.mp4")
        #expect(try run([try Self.bundle(), "--preset", "verified", "--picture-only", "-o", out, "--quiet"]).status == 0)
        let frames = try MediaProbe.rgbFrames(out, width: 128, height: 128)
        let pts = try MediaProbe.framePTS(out)
        // 3 s at 29.97 fps: frames 0 … 89 start before the end.
        #expect(frames.count == 90 && pts.count == 90, "\(frames.count) frames, \(pts.count) pts")
        let indices = (0..<frames.count).map { min($0, 72) }
        let refs = try references(try Self.bundle(), preset: ["--preset", "verified"], frames: indices, dir: dir)
        for (n, frame) in frames.enumerated() {
            let p = MediaProbe.psnr(frame, refs[indices[n]]!)
            #expect(p >= 35, "frame \(n): \(p) dB against animation frame \(indices[n])")
        }
        for (n, t) in pts.enumerated() {
            #expect(abs(t - Double(n) / 29.97) <= 0.5 / 29.97, "frame \(n) at \(t) s")
        }
    }

    /// The default picture is the viewer's window without the window: the 128 px animation scaled
    /// to 480 × 480 on top, a status row of 26 px and the timeline (174 px with audio) under it.
    @Test("By default each frame is the animation scaled to 480 px over the status row and the timeline; its picture is pulsar frame at that size",
          .enabled(if: corpus && tools, "needs ../shared/corpus and ffmpeg"), .timeLimit(.minutes(5)))
    func composedFrames() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let out = dir.file("v.mp4")
        let r = try run([try Self.bundle(), "--preset", "verified", "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r)")
        let s = try MediaProbe.streams(out)
        #expect(s[0].width == 480 && s[0].height == 480 + 26 + 174, "\(s[0].width)×\(s[0].height)")
        let frames = try MediaProbe.rgbFrames(out, width: 480, height: 680)
        #expect(frames.count == 90)
        for n in [0, 37, 72] {
            let png = dir.file("ref-\(n).png")
            #expect(try CLI.run(["frame", try Self.bundle(), "--preset", "verified", "--frame", "\(n)", "--size", "480x480", "-o", png]).status == 0)
            let reference = try MediaProbe.rgbImage(png, over: Self.background)
            let top = Array(frames[n][0..<(480 * 480 * 3)])
            let p = MediaProbe.psnr(top, reference)
            #expect(p >= 35, "frame \(n): \(p) dB")
            // Under the picture: text and lanes, not the background.
            let below = frames[n][(480 * 480 * 3)...]
            #expect(below.contains { $0 < 150 }, "frame \(n): the status row and the timeline are drawn")
        }
        // The playhead moves: the timeline rows of frames 10 and 60 differ.
        let timelineRows = (480 + 26) * 480 * 3
        #expect(frames[10][timelineRows...] != frames[60][timelineRows...])
    }

    /// A pattern file has no animation: the picture is its timeline filling the frame under the
    /// status row (960 × 360 + 26), at 30 fps, the playhead at each slot's content time — 12 px in
    /// from the left edge plus k / 30 s of the 3 412 ms the render lasts across the 936 px between.
    @Test("A pattern without animation: a video of its timeline at 30 fps, the playhead where slot k's content time maps",
          .enabled(if: tools, "needs ffmpeg"), .timeLimit(.minutes(3)))
    func patternTimeline() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = ViewCLITests.root.appendingPathComponent("Resources/patterns/demo.json").path
        let out = dir.file("p.mp4")
        let r = try run([pattern, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r)")
        let s = try MediaProbe.streams(out)
        #expect(s.map(\.codec) == ["h264", "aac", "aac"] && s[0].width == 960 && s[0].height == 386)
        let frames = try MediaProbe.rgbFrames(out, width: 960, height: 386)
        #expect(frames.count == 103, "3 412 ms at 30 fps: slots 0 … 102")
        for k in [0, 30, 75, 102] {
            // Row 36: the marker row (no markers: the strip's plain ground), where the playhead
            // runs over near-white; yuv420p halves its chroma, so "red" is a red clearly above green.
            let y = 36
            let red = (0..<960).filter { x in
                let i = (y * 960 + x) * 3
                return frames[k][i] > 120 && frames[k][i + 1] < 110 && Int(frames[k][i]) - Int(frames[k][i + 1]) > 60
            }
            let expected = 12 + Double(k) / 30 * 1000 / 3412 * 936
            #expect(!red.isEmpty && red.allSatisfy { abs(Double($0) - expected) <= 3 }, "slot \(k): \(red), expected \(expected)")
        }
    }

    /// `--loop 2 --reverse` of a 1 s animation: slot k (30 fps, 48 kHz: sample 1600 k) shows
    /// content sample c = 1600 k in the first pass and 96000 − 1600 k in the backward second,
    /// i.e. animation frame floor(c · 30 / 48000) (the last, 29, at the end). At an instant
    /// exactly on a frame boundary either neighbour is accepted.
    @Test("--loop 2 --reverse: the second pass shows the animation backwards, each frame the one the timeline gives",
          .enabled(if: tools, "needs ffmpeg"), .timeLimit(.minutes(5)))
    func loopAndReverseMoveTheFrames() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(Self.slide, to: "slide.json")
        let out = dir.file("s.mp4")
        let r = try run([input, "--loop", "2", "--reverse", "--picture-only", "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r)")
        #expect(try MediaProbe.streams(out).map(\.codec) == ["h264"], "a Lottie file: no audio tracks")
        let frames = try MediaProbe.rgbFrames(out, width: 160, height: 96)
        #expect(frames.count == 60)
        let refs = try references(input, frames: Array(0..<30), dir: dir)
        for (k, frame) in frames.enumerated() {
            let content = k < 30 ? 1600 * k : 96_000 - 1600 * k
            let exact = content * 30 % 48_000 == 0
            let index = min(content * 30 / 48_000, 29)
            let allowed = Set([index] + (exact && index > 0 ? [index - 1] : []))
            let scores = refs.mapValues { MediaProbe.psnr(frame, $0) }
            let nearest = scores.max { $0.value < $1.value }!
            #expect(allowed.contains(nearest.key) && nearest.value >= 35,
                    "slot \(k): nearest animation frame \(nearest.key) at \(nearest.value) dB, expected \(allowed.sorted())")
        }
    }

    /// Track 1 decodes to the stereo mix `pulsar render --layout L,R` writes, track 2 to the
    /// haptic channel `--layout haptic` writes — plainly and under --loop 2 --reverse — after the
    /// codec's delay, found as the lag of highest correlation.
    @Test("Track 1 is render --layout L,R and track 2 render --layout haptic (correlation ≥ 0.99), also with --loop 2 --reverse",
          .enabled(if: corpus && tools, "needs ../shared/corpus and ffmpeg"), .timeLimit(.minutes(5)))
    func audioTracksAreTheRender() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        for options in [[String](), ["--loop", "2", "--reverse"]] {
            let common = [try Self.bundle(), "--preset", "verified", "--quiet"] + options
            let out = dir.file("v.mp4"), stereo = dir.file("s.wav"), haptic = dir.file("h.wav")
            #expect(try run(common + ["-o", out]).status == 0)
            #expect(try CLI.run(["render"] + common + ["--layout", "L,R", "-o", stereo]).status == 0)
            #expect(try CLI.run(["render"] + common + ["--layout", "haptic", "-o", haptic]).status == 0)
            let a = try MediaProbe.audio(out, stream: 0), s = try MediaProbe.audio(stereo)
            for c in 0..<2 {
                let m = MediaProbe.bestCorrelation(MediaProbe.channel(s, c, of: 2), MediaProbe.channel(a, c, of: 2), maxLag: 2048)
                #expect(m.correlation >= 0.99, "\(options) audio channel \(c): \(m)")
            }
            let h = MediaProbe.bestCorrelation(try MediaProbe.audio(haptic), try MediaProbe.audio(out, stream: 1), maxLag: 2048)
            #expect(h.correlation >= 0.99, "\(options) haptics: \(h)")
        }
    }

    @Test("Bad input: one line, the documented exit code, no output and no temporary left", .timeLimit(.minutes(3)))
    func refusals() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let slide = try dir.write(Self.slide, to: "slide.json")
        let pattern = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":1},{"time":100,"value":0}],"frequency":[{"time":0,"value":0.5},{"time":100,"value":0.5}]},"discretePattern":[]}"#,
                                    to: "pattern.json")
        let blocker = try dir.write("x", to: "file")
        let existing = try dir.write("x", to: "in.mp4")
        let cases: [(arguments: [String], status: Int32, words: String)] = [
            ([slide, "-o", dir.file("out.avi")], 64, ".mp4, .mkv or .webm"),
            ([slide], 64, "missing -o"),
            ([pattern, "--picture-only", "-o", dir.file("out.mp4")], 65, "no animation to draw alone"),
            ([slide, "-o", blocker + "/out.mp4"], 74, "cannot write"),
            ([slide, "-o", dir.file("out.webm"), "--rate", "44100"], 64, "48000"),
            ([slide, "-o", dir.file("out.mp4"), "--size", "101x100"], 64, "even"),
            ([slide, "-o", dir.file("out.mp4"), "--fps", "240"], 64, "--fps"),
            ([existing, "-o", existing], 64, "[output-is-input]"),
        ]
        for c in cases {
            let r = try run(c.arguments)
            #expect(r.status == c.status && r.stderrLines.count == 1 && r.stderr.contains(c.words), "\(c.arguments): \(r)")
        }
        #expect(dir.contents() == ["file", "in.mp4", "pattern.json", "slide.json"], "nothing left behind: \(dir.contents())")
    }

    @Test("SIGINT during an encode leaves no file and no temporary; exit 130", .enabled(if: tools, "needs ffmpeg"), .timeLimit(.minutes(3)))
    func interruptLeavesNothing() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let slide = try dir.write(Self.slide, to: "slide.json")
        let pid = try Self.spawnWithDefaultSignals([try CLI.executable(), "video", slide, "--loop", "2000", "-o", dir.file("long.mp4"), "--quiet"])
        // Wait for the temporary to appear (the encode has begun), then interrupt.
        let deadline = Date().addingTimeInterval(30)
        while !dir.contents().contains(where: { $0.hasPrefix(".long.mp4.partial") }), Date() < deadline { usleep(20_000) }
        kill(pid, SIGINT)
        var status: Int32 = 0
        let killBy = Date().addingTimeInterval(20)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > killBy { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        let exited = (status & 0x7f) == 0
        #expect(exited && (status >> 8) & 0xff == 130, "wait status \(status)")
        #expect(dir.contents() == ["slide.json"], "\(dir.contents())")
    }

    /// Starts `argv` with no signal blocked and every one at its default (a test runner's threads
    /// block some, and a child would inherit that), stdio on /dev/null.
    static func spawnWithDefaultSignals(_ argv: [String]) throws -> pid_t {
        let signals = DefaultSignals()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &signals.attributes, cArgs, environ)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        return pid
    }
}
