import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// An output that is a FIFO is written through, as `/dev/null` is, but opening one never waits
/// for a reader: with none, one line and exit 74 at once; with one, the bytes a file would hold;
/// a reader that leaves midway is a write error (74), not a SIGPIPE death.
@Suite(.serialized) struct FIFOOutputTests {
    static let pattern = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.3},{"time":300,"value":0.9}]},"discretePattern":[{"time":150,"amplitude":0.8,"frequency":0.6}]}"#

    static func fifo(_ dir: TempDir, _ name: String) throws -> String {
        let path = dir.file(name)
        try #require(mkfifo(path, 0o600) == 0)
        return path
    }

    /// Reads `path` in the background, up to `limit` bytes (then closes it), into the result.
    final class Reader: @unchecked Sendable {
        private(set) var bytes: [UInt8] = []
        private let done = DispatchSemaphore(value: 0)

        init(_ path: String, limit: Int = .max) {
            Thread {
                let fd = open(path, O_RDONLY)
                if fd >= 0 {
                    var chunk = [UInt8](repeating: 0, count: 1 << 16)
                    while self.bytes.count < limit {
                        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, min($0.count, limit - self.bytes.count)) }
                        if n <= 0 { break }
                        self.bytes += chunk[0..<n]
                    }
                    close(fd)
                }
                self.done.signal()
            }.start()
            usleep(100_000)  // the reader is at its open before the writer comes
        }

        func finish() -> [UInt8] {
            _ = done.wait(timeout: .now() + 30)
            return bytes
        }
    }

    @Test("With no reader, render -o, play --log and convert --with-audio refuse the FIFO at once: one line, exit 74", .timeLimit(.minutes(10)))
    func noReader() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(Self.pattern, to: "p.json")
        let script = try dir.write("at 0 play\n", to: "s.txt")
        let (folder, _) = try AHAPAudioCLITests.bundle(in: dir, offset: 0, volume: 1)
        let wav = try Self.fifo(dir, "v.wav")
        let runs: [(String, [String], String)] = [
            ("render", ["render", pattern, "-o", try Self.fifo(dir, "out.wav")], "out.wav"),
            ("play --log", ["play", pattern, "--device", "sim", "--script", script, "--log", try Self.fifo(dir, "log"), "--quiet"], "log"),
            ("convert --with-audio", ["convert", folder, "-o", dir.file("v.ahap"), "--with-audio"], "v.wav"),
        ]
        _ = wav
        for (what, words, name) in runs {
            let run = try CLI.runMeasured(words)
            #expect(!run.killed && run.result.status == 74, "\(what): \(run.result)")
            let errors = run.result.stderrLines.filter { $0.contains("error") }
            #expect(errors.count == 1 && errors[0].contains(name) && errors[0].contains("no process is reading"), "\(what): \(run.result.stderr)")
        }
    }

    @Test("With a reader, the FIFO gets the bytes the file would hold; a reader that leaves early is a write error, exit 74", .timeLimit(.minutes(10)))
    func withReader() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(Self.pattern, to: "p.json")
        #expect(try CLI.run(["render", pattern, "-o", dir.file("file.wav"), "--quiet"]).status == 0)
        let fifo = try Self.fifo(dir, "out.wav")
        let reader = Reader(fifo)
        let r = try CLI.run(["render", pattern, "-o", fifo, "--quiet"])
        #expect(r.status == 0, "\(r)")
        let expected = try Data(contentsOf: URL(fileURLWithPath: dir.file("file.wav")))
        #expect(reader.finish() == [UInt8](expected))
        // 3 s of float samples (576 000 bytes), far more than a pipe holds.
        let long = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":3000,"value":0.5}]}}"#, to: "long.json")
        let early = Reader(fifo, limit: 100)
        let cut = try CLI.runMeasured(["render", long, "-o", fifo])
        _ = early.finish()
        #expect(!cut.killed && cut.result.status == 74 && cut.result.stderr.contains("Broken pipe"), "\(cut.result)")
    }
}
