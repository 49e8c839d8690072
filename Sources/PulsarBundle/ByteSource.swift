import Glibc

/// Random-access bytes of one file: a file on disk, a ZIP entry, or memory. Audio decoders read
/// through it so long audio is streamed rather than loaded whole.
///
/// Thread rules: one instance is used by one thread at a time (it may keep a read cursor).
/// Not for the real-time thread: reads may do I/O.
public protocol ByteSource: AnyObject {
    /// Total size in bytes.
    var size: Int64 { get }

    /// Copies up to `buffer.count` bytes starting at `offset` into `buffer` and returns how many
    /// were copied (fewer only at the end). Throws on I/O failure.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Bytes held in memory.
public final class MemoryByteSource: ByteSource {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var size: Int64 { Int64(bytes.count) }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset >= 0, offset < Int64(bytes.count) else { return 0 }
        let n = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
        }
        return n
    }
}

/// A file on disk, read with positional reads (`pread`).
public final class FileByteSource: ByteSource {
    public let path: String
    private let descriptor: Int32
    public let size: Int64

    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    public convenience init(path: String) throws {
        try self.init(path: path, followSymlinks: true)
    }

    /// Opens `path` for reading. With `followSymlinks` false, a symlink as the last component
    /// of `path` is refused (`O_NOFOLLOW`), as bundle folders require.
    public init(path: String, followSymlinks: Bool) throws {
        self.path = path
        // O_NONBLOCK: a FIFO named as a file must not block the open; it is refused below.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw OpenError(path: path, reason: "not a regular file")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit {
        close(descriptor)
    }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw OpenError(path: path, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}
