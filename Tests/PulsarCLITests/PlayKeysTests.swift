import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pulsar play` on a pseudo-terminal: the status line is drawn and the keys (space, →, ←, r, q)
/// become transport commands, in order, in the event log.
@Suite("Play keys", .serialized)
struct PlayKeysTests {
    @Test("space, →, ←, r and q typed on a terminal are logged as pause, resume, seek, seek, play and stop",
          .timeLimit(.minutes(10)))
    func keysOnAPty() throws {
        let executable = try CLI.executable()
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/patterns/demo.json").path
        let log = dir.file("keys.jsonl")

        // A pseudo-terminal from /dev/ptmx: unlock it (TIOCSPTLCK) and find its number (TIOCGPTN).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0, "a pseudo-terminal")
        defer { close(master) }
        var unlock: CInt = 0, number: CUnsignedInt = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        let slave = try #require(FileHandle(forUpdatingAtPath: "/dev/pts/\(number)"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["play", pattern, "--device", "sim", "--loop", "forever", "--log", log]
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        try slave.close()

        // Everything the terminal shows, drained all along so the child never blocks on it.
        var shown = [UInt8]()
        func drain(for seconds: Double) {
            let end = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < end {
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 20) > 0 {
                    let n = read(master, &buffer, buffer.count)
                    if n > 0 { shown += buffer[0..<n] } else { usleep(10_000) }
                }
            }
        }
        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, text.utf8.count) }
            drain(for: 0.3)
        }
        // Keys once the status line is up (pulsar has set the terminal up by then), however long
        // a busy machine takes to get there; the test's time limit ends a player that never does.
        while !String(decoding: shown, as: UTF8.self).contains("[space] pause"), process.isRunning, !Task.isCancelled { drain(for: 0.05) }
        type(" ")           // pause
        type(" ")           // resume
        type("\u{1B}[C")    // seek +500 ms
        type("\u{1B}[D")    // seek −500 ms
        type("r")           // play from the start
        type("q")           // stop: the command ends
        while process.isRunning, !Task.isCancelled { drain(for: 0.1) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()

        #expect(process.terminationStatus == 0)
        let screen = String(decoding: shown, as: UTF8.self)
        #expect(screen.contains("[space] pause"), "the status line with its keys was drawn")
        let names = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "command" else { return nil }
            return object["name"] as? String
        }
        // The voice joins the engine (attach), then the keys' commands in order.
        #expect(names == ["attach", "play", "pause", "resume", "seek", "seek", "play", "stop"], "\(names)\n\(screen.suffix(600))")
    }
}
