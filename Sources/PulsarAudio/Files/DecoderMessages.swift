#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// What the decoders under libsndfile (mpg123 above all) print on their own — "[src/libmpg123/
/// layer3.c:…] error: dequantization failed!" — caught instead of reaching the terminal bare:
/// standard error is pointed at an anonymous in-memory file around each decoding call, and what
/// arrives there is kept, by audio file and text, for the caller to report with its own prefix
/// and rule (`drain()`).
///
/// Thread rules: `capture` and `drain` from any thread except the real-time one; calls are
/// serialised. While a call is captured, anything else the process writes to standard error
/// would be caught with it: decoding happens where nothing else prints (setup, offline render).
public enum DecoderMessages {
    /// One kind of message from one audio file, with how many times it came.
    public struct Message: Sendable, Equatable {
        public var source: String
        public var text: String
        public var count: Int
    }

    private static let lock = Lock()
    nonisolated(unsafe) private static var sink: Int32 = -2
    nonisolated(unsafe) private static var kept: [Message] = []
    /// Kinds kept at most (later kinds are counted into the last one's source as "more").
    private static let maximumKinds = 100

    /// Runs `body` (a libsndfile call decoding `source`) with standard error captured.
    static func capture<T>(_ source: String, _ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        if sink == -2 { sink = openSink() }
        guard sink >= 0 else { return body() }
        fflush(nil)
        let saved = dup(2)
        guard saved >= 0, dup2(sink, 2) >= 0 else {
            if saved >= 0 { close(saved) }
            return body()
        }
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            collect(source)
        }
        return body()
    }

    /// An unnamed temporary file (created and unlinked at once), close-on-exec; -1 if none.
    private static func openSink() -> Int32 {
        var template = Array("/tmp/pulsar-decoder-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return -1 }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// The messages caught since the last call, each kind once with its count; clears them.
    public static func drain() -> [Message] {
        lock.lock()
        defer { lock.unlock() }
        let all = kept
        kept = []
        return all
    }

    /// Reads what arrived in the sink, files it, and empties the sink.
    private static func collect(_ source: String) {
        var info = stat()
        guard fstat(sink, &info) == 0, info.st_size > 0 else { return }
        let size = min(Int(info.st_size), 1 << 20)
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { pread(sink, $0.baseAddress!, size, 0) }
        ftruncate(sink, 0)
        lseek(sink, 0, SEEK_SET)
        guard n > 0 else { return }
        for line in bytes[0..<n].split(separator: 0x0A) {
            let text = MessageText.excerpt(String(decoding: line, as: UTF8.self).trimmedOfWhitespace, limit: 200)
            guard !text.isEmpty else { continue }
            if let i = kept.firstIndex(where: { $0.source == source && $0.text == text }) {
                kept[i].count += 1
            } else if kept.count < maximumKinds {
                kept.append(Message(source: source, text: text, count: 1))
            } else {
                kept[kept.count - 1].count += 1
            }
        }
    }
}
