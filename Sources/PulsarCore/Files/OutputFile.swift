#if canImport(Glibc)
import Glibc
#endif

/// Putting a finished output in place. Every writer builds its output in a hidden temporary
/// file next to the destination and hands it here: a regular destination (or a new one) is
/// replaced by renaming, all or nothing; a destination that is a device or a FIFO
/// (`-o /dev/null`, a pipe to another program) is written directly and never replaced.
///
/// Any thread except the real-time one.
public enum OutputFile {
    /// Why an output could not be put in place.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(MessageText.oneLine(path)): \(message)" }

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// Whether `path` exists and is a device, a FIFO or a socket: written in place, not replaced.
    public static func isSpecial(_ path: String) -> Bool {
        if case .special = InputFile.kind(of: path) { return true }
        return false
    }

    /// Moves the finished `temporary` to `path` (rename), or copies it into `path` when that is
    /// a device or a FIFO and removes it. On failure `temporary` is removed and nothing at
    /// `path` has changed (a device may have received part of the bytes).
    public static func commit(_ temporary: String, to path: String) throws(Failure) {
        defer { unlink(temporary) }
        switch InputFile.kind(of: path) {
        case .directory:
            throw Failure(path: path, message: "is a directory")
        case .special:
            try copy(temporary, into: path)
        case .missing, .regular:
            guard rename(temporary, path) == 0 else {
                throw Failure(path: path, message: "cannot move the finished file into place: \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func copy(_ source: String, into path: String) throws(Failure) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure(path: source, message: String(cString: strerror(errno))) }
        defer { close(input) }
        let output = try openWithoutWaiting(path)
        defer { close(output) }
        // A reader that leaves midway makes a write fail with EPIPE, not kill the process (a
        // game's engine stop must return): SIGPIPE is held for this thread and any raised here
        // is taken back before it is let through.
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: source, message: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return }
            var written = 0
            while written < n {
                let m = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + written, n - written) }
                if m < 0 {
                    if errno == EINTR { continue }
                    throw Failure(path: path, message: "write failed: \(String(cString: strerror(errno)))")
                }
                written += m
            }
        }
    }

    /// Opens a device or FIFO for writing without waiting for a reader: a FIFO nobody reads is
    /// refused at once (`O_NONBLOCK` gives ENXIO) instead of blocking the open for ever; one
    /// with a reader is then written with ordinary blocking writes, at the reader's pace.
    private static func openWithoutWaiting(_ path: String) throws(Failure) -> Int32 {
        let output = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        guard output >= 0 else {
            if errno == ENXIO {
                throw Failure(path: path, message: "is a FIFO no process is reading: start its reader first (nothing was written)")
            }
            throw Failure(path: path, message: "cannot open for writing: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) & ~O_NONBLOCK)
        return output
    }

    /// Where an output is built before `commit`: the hidden sibling `DIR/.NAME.partial-PID`, or
    /// for a device or FIFO destination a file in the temporary directory (never beside
    /// `/dev/null`, where an ordinary user cannot create files).
    public static func temporaryPath(for path: String) -> String {
        if isSpecial(path) {
            let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            return "\(base)/.pulsar-output.partial-\(getpid())"
        }
        let name = path.hasSuffix("/") ? "" : PathText.lastComponent(path)
        return PathText.sibling(of: path, named: ".\(name).partial-\(getpid())")
    }

    /// Writes `bytes` to `path` all or nothing (a temporary file, then `commit`).
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, message: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let why = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw Failure(path: path, message: "write failed: \(why)")
            }
            written += n
        }
        fsync(fd)
        guard close(fd) == 0 else {
            unlink(temporary)
            throw Failure(path: path, message: "write failed: \(String(cString: strerror(errno)))")
        }
        try commit(temporary, to: path)
    }

    /// Whether `a` and `b` name the same existing file (same device and inode): an output that
    /// would overwrite an input.
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(a, &x) == 0, stat(b, &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// Whether two paths would name the same file once written: the same existing file, or the
    /// same name in the same folder (`out.wav` and `./x/../out.wav`), existing or not.
    public static func isSamePlace(_ a: String, _ b: String) -> Bool {
        if isSameFile(a, b) || PathText.standardized(a) == PathText.standardized(b) { return true }
        let (nameA, nameB) = (PathText.lastComponent(PathText.standardized(a)), PathText.lastComponent(PathText.standardized(b)))
        return nameA == nameB && isSameFile(PathText.parent(PathText.standardized(a)), PathText.parent(PathText.standardized(b)))
    }
}
