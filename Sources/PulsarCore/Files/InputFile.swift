#if canImport(Glibc)
import Glibc
#endif

/// Reading a named input safely: what kind of thing a path is, and the whole of a regular file
/// up to a size limit — without ever blocking on a FIFO, a device or a socket named where a
/// file is expected (they are refused before any read).
///
/// Pure functions over the file system: any thread except the real-time one.
public enum InputFile {
    /// What a path names (symlinks followed).
    public enum Kind: Equatable, Sendable {
        case missing
        case regular(size: Int64)
        case directory
        /// A FIFO, a socket, a character or block device: never read as a file.
        case special(String)
    }

    /// Why an input could not be read.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Reason: Equatable, Sendable {
            case missing
            case directory
            case special(String)
            case tooLarge(size: Int64, limit: Int)
            case unreadable(String)

            /// Too large is the data's fault (exit 65); the rest mean no input (exit 66).
            public var isTooLarge: Bool {
                if case .tooLarge = self { return true }
                return false
            }
        }
        public var path: String
        public var reason: Reason

        /// The rule a message names: `missing-input`, `not-a-file`, `file-too-large`, `unreadable`.
        public var rule: String {
            switch reason {
            case .missing: return "missing-input"
            case .directory, .special: return "not-a-file"
            case .tooLarge: return "file-too-large"
            case .unreadable: return "unreadable"
            }
        }

        /// What is wrong, without the path.
        public var message: String {
            switch reason {
            case .missing: return "no such file"
            case .directory: return "is a directory, not a file"
            case .special(let kind): return "is \(kind), not a regular file"
            case let .tooLarge(size, limit): return "file is \(size) bytes, more than the limit of \(limit) bytes"
            case .unreadable(let why): return why
            }
        }

        public var description: String { "\(MessageText.oneLine(path)): \(message) [\(rule)]" }
    }

    /// Whether anything is at `path` (links followed: a dangling link is nothing).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    public static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        return kind(mode: info.st_mode, size: Int64(info.st_size))
    }

    private static func kind(mode: mode_t, size: Int64) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular(size: size)
        case S_IFDIR: return .directory
        case S_IFIFO: return .special("a FIFO")
        case S_IFSOCK: return .special("a socket")
        case S_IFCHR: return .special("a character device")
        case S_IFBLK: return .special("a block device")
        default: return .special("not a file")
        }
    }

    /// The whole of the regular file at `path`, at most `limit` bytes. The file is opened
    /// without blocking and checked to be regular before anything is read; a file that grows
    /// past `limit` while being read is refused too.
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let (fd, info) = try openAndStat(path)
        defer { close(fd) }
        switch kind(mode: info.st_mode, size: Int64(info.st_size)) {
        case .regular(let size):
            guard size <= Int64(limit) else { throw Failure(path: path, reason: .tooLarge(size: size, limit: limit)) }
        case .directory: throw Failure(path: path, reason: .directory)
        case .special(let what): throw Failure(path: path, reason: .special(what))
        case .missing: throw Failure(path: path, reason: .missing)
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var done = 0
        while true {
            if done == bytes.count {
                guard bytes.count <= limit else { break }
                bytes.append(contentsOf: repeatElement(0, count: min(1 << 20, limit + 1 - bytes.count)))
            }
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: .unreadable("read failed: \(String(cString: strerror(errno)))"))
            }
            if n == 0 { break }
            done += n
        }
        guard done <= limit else { throw Failure(path: path, reason: .tooLarge(size: Int64(done), limit: limit)) }
        bytes.removeSubrange(done...)
        return bytes
    }

    /// The first `count` bytes of the regular file at `path` (fewer when it is shorter): for
    /// telling one kind of file from another without reading it whole.
    public static func head(_ path: String, count: Int) throws(Failure) -> [UInt8] {
        let (fd, info) = try openAndStat(path)
        defer { close(fd) }
        guard case .regular = kind(mode: info.st_mode, size: Int64(info.st_size)) else { throw Failure(path: path, reason: .special("not a regular file")) }
        var bytes = [UInt8](repeating: 0, count: max(count, 0))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        bytes.removeSubrange(done...)
        return bytes
    }

    /// `path` opened for reading without blocking, and its status; the caller closes it.
    private static func openAndStat(_ path: String) throws(Failure) -> (Int32, stat) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw Failure(path: path, reason: code == ENOENT || code == ENOTDIR ? .missing : .unreadable(String(cString: strerror(code))))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(path: path, reason: .unreadable(reason))
        }
        return (fd, info)
    }
}

extension InputFile {
    /// The names in the folder at `path` (without `.` and `..`), in the order the system lists
    /// them; throws the system's reason when it cannot be listed.
    public static func names(inFolder path: String) throws(Failure) -> [String] {
        guard let folder = opendir(path) else {
            throw Failure(path: path, reason: .unreadable(String(cString: strerror(errno))))
        }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
