import Foundation
import PulsarTestSupport
import Testing

/// The frame domains (`StreamFrame`, `TimelineFrame`, `ContentFrame`) are told apart by the
/// compiler: each case below is a short program against the built modules, written twice. The
/// right spelling must type-check; the wrong one differs from it in the marked line only and must
/// be refused there, and nowhere else. When all three domains were one `FrameIndex`, every wrong
/// spelling compiled.
@Suite struct FrameDomainTypeCheckTests {
    /// One mix-up: the declarations both spellings share, the line written right, and the same
    /// line mixing two domains.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var declarations: String
        var right: String
        var wrong: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a timeline position plus frames counted between a stream and a timeline frame",
             declarations: "let held: TimelineFrame = 100, anchor: StreamFrame = 48, frame: StreamFrame = 60, other: TimelineFrame = 60",
             right: "let now: TimelineFrame = held + (frame - anchor)",
             wrong: "let now: TimelineFrame = held + (other - anchor)"),
        Case(name: "a stream frame (a command's effective frame) as a seek target",
             declarations: "let effective: StreamFrame = 4_800, pin = TimelineAnchor(stream: 0, timeline: 480)",
             right: "let command = TransportCommand.seek(toTimelineFrame: pin.timelineFrame(atStreamFrame: effective))",
             wrong: "let command = TransportCommand.seek(toTimelineFrame: effective)"),
        Case(name: "a transport state with its anchor and timeline frame swapped",
             declarations: "let anchor: StreamFrame = 4_800, position: TimelineFrame = 96",
             right: "let state = TransportState(mode: .playing, timelineFrame: position, anchor: anchor)",
             wrong: "let state = TransportState(mode: .playing, timelineFrame: anchor, anchor: position)"),
        Case(name: "a timeline frame read as the content frame it plays",
             declarations: "let timeline = try! PlaybackTimeline(segmentStart: 480, segmentEnd: 960, loopCount: 3), frame: TimelineFrame = 500",
             right: "let content: ContentFrame = timeline.contentFrame(at: frame)",
             wrong: "let content: ContentFrame = frame"),
        Case(name: "a content frame handed to the mixer, which renders timeline frames",
             declarations: "let mixer: PresetMixer? = nil, buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 64), "
                 + "content: ContentFrame = 480, timeline = try! PlaybackTimeline(segmentStart: 480, segmentEnd: 960)",
             right: "_ = try? mixer?.render(into: buffer, from: timeline.timelineFrame(of: content, inIteration: 0))",
             wrong: "_ = try? mixer?.render(into: buffer, from: content)"),
        Case(name: "a stream frame compared with a timeline frame",
             declarations: "let written: StreamFrame = 960, end: TimelineFrame = 960, pin = TimelineAnchor(stream: 0, timeline: 0)",
             right: "let past = written >= pin.streamFrame(atTimelineFrame: end)",
             wrong: "let past = written >= end"),
        Case(name: "a plain count taken for a position without saying which domain",
             declarations: "let count: FrameIndex = 480",
             right: "let start = StreamFrame(count)",
             wrong: "let start: StreamFrame = count"),
    ]

    static let imports = "import PulsarCore\nimport PulsarAudio\nimport PulsarEngine\n"

    /// A program holding `line` after `declarations`, inside a function; returns the program and
    /// the 1-based number of `line`.
    static func program(_ c: Case, _ line: String) -> (text: String, line: Int) {
        let text = imports + "func check() {\n    \(c.declarations)\n    \(line)\n    _ = 0\n}\n"
        return (text, imports.split(separator: "\n").count + 3)
    }

    @Test("The right spelling of every case type-checks against the built modules")
    func rightSpellingsCompile() throws {
        let checker = try TypeChecker()
        for c in Self.cases {
            let result = try checker.check(Self.program(c, c.right).text)
            #expect(result.status == 0 && result.errorLines.isEmpty, "\(c): \(result.output)")
        }
    }

    @Test("Mixing two frame domains is refused at the line that mixes them", arguments: cases)
    func wrongSpellingFails(_ c: Case) throws {
        let checker = try TypeChecker()
        let program = Self.program(c, c.wrong)
        let result = try checker.check(program.text)
        #expect(result.status != 0, "\(c) compiled")
        #expect(result.errorLines == [program.line], "\(c): \(result.output)")
        #expect(result.output.contains("Frame<") || result.output.contains("Frame'") || result.output.contains("FrameIndex"),
                "\(c): the refusal names a frame type: \(result.output)")
    }
}

/// `swiftc -typecheck` against the modules built beside the test bundle.
struct TypeChecker {
    let swiftc: String
    let arguments: [String]

    struct Result {
        var status: Int32
        var output: String
        /// Lines of the checked file with an `error:` diagnostic.
        var errorLines: Set<Int>
    }

    struct Missing: Error, CustomStringConvertible {
        var what: String
        var description: String { what }
    }

    init() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let found = path.split(separator: ":").map({ $0 + "/swiftc" })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Missing(what: "swiftc is not on PATH: the type-check tests run the toolchain that builds the tests")
        }
        swiftc = found
        let modules = BuiltProduct.folder + "/Modules"
        guard FileManager.default.fileExists(atPath: modules + "/PulsarEngine.swiftmodule") else {
            throw Missing(what: "\(modules)/PulsarEngine.swiftmodule is not built")
        }
        // The C modules the Swift ones import: the package's system libraries and the shims'
        // module maps SwiftPM writes into the build folder.
        let sources = SharedCorpus.projectRoot + "/Sources"
        var maps = (try FileManager.default.contentsOfDirectory(atPath: sources)).map { sources + "/" + $0 + "/module.modulemap" }
        maps += (try FileManager.default.contentsOfDirectory(atPath: BuiltProduct.folder)).map { BuiltProduct.folder + "/" + $0 + "/module.modulemap" }
        arguments = ["-typecheck", "-I", modules]
            + maps.filter { FileManager.default.fileExists(atPath: $0) }.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] }
    }

    func check(_ program: String) throws -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-typecheck-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/check.swift"
        try Data(program.utf8).write(to: URL(fileURLWithPath: file))
        let run = try ChildProcess.run(swiftc, arguments + [file])
        let output = run.stdout + run.stderr
        var lines = Set<Int>()
        for line in output.split(separator: "\n") where line.hasPrefix(file + ":") && line.contains(": error:") {
            let fields = line.dropFirst(file.count + 1).split(separator: ":")
            if let n = fields.first.flatMap({ Int($0) }) { lines.insert(n) }
        }
        return Result(status: run.status, output: output, errorLines: lines)
    }
}
