import Glibc
import PulsarCore

/// Where the files an animation's image assets name are read from: its container (a bundle, a
/// dotLottie archive, a loose file's folder), and nowhere else. `LottieImageAssets` turns an
/// asset's `u` and `p` into a path relative to the container's top and hands it to `read`.
///
/// Contract: `read` is given a path already checked to stay inside the container (relative, no
/// `.` or `..` component, not empty) and the most bytes it may return; it returns the file's
/// bytes or throws a `Refusal`. It must not follow a symbolic link out of the container.
///
/// Thread rules: a value; `read` does I/O on the calling thread (not the real-time one).
public struct LottieImageFiles {
    /// Why a path gave no bytes.
    public enum Refusal: Error, Sendable, Equatable {
        /// The container holds no such file.
        case missing
        /// The path leads out of the container (a symbolic link).
        case outside(String)
        /// The file is larger than the bytes left (why, in words).
        case tooLarge(String)
        /// It could not be read.
        case unreadable(String)
    }

    /// The container as messages name it: `the bundle`, `the archive`, `the animation's folder`.
    public let container: String
    /// The folders, relative to the container's top ("" for the top), that a name is resolved
    /// against, tried in order.
    public let folders: [String]
    /// Whether an asset's `u` precedes its `p` (rlottie's rule); false for a dotLottie, whose
    /// players look `p` up in `i/` or `images/` whatever `u` says.
    public let usesFolderMember: Bool
    let read: (_ path: String, _ limit: Int) throws(Refusal) -> [UInt8]

    /// Files read by `read`, named relative to `folder` inside `container`.
    public init(container: String, folder: String, read: @escaping (_ path: String, _ limit: Int) throws(Refusal) -> [UInt8]) {
        self.init(container: container, folders: [folder], usesFolderMember: true, read: read)
    }

    init(container: String, folders: [String], usesFolderMember: Bool,
         read: @escaping (_ path: String, _ limit: Int) throws(Refusal) -> [UInt8]) {
        self.container = container
        self.folders = folders
        self.usesFolderMember = usesFolderMember
        self.read = read
    }

    /// No container: every image file is missing (bytes that came from nowhere).
    public static var none: LottieImageFiles { LottieImageFiles(container: "the animation", folder: "") { (_, _) throws(Refusal) in
        throw .missing
    } }

    /// The folder that holds the Lottie file `file`, and the folders below it. Every component
    /// is opened without following a symbolic link.
    public static func folder(of file: String) -> LottieImageFiles {
        let root = PathText.parent(file)
        return LottieImageFiles(container: "the animation's folder", folder: "") { (path, limit) throws(Refusal) in
            try FolderReader.read(root: root, path: path, limit: limit)
        }
    }

    /// The entries of a dotLottie archive: `p` in `i/` (dotLottie 2) or `images/` (dotLottie 1).
    static func dotLottie(_ archive: DotLottieArchive) -> LottieImageFiles {
        LottieImageFiles(container: "the archive", folders: ["i", "images"], usesFolderMember: false) { (path, limit) throws(Refusal) in
            guard archive.hasEntry(path) else { throw .missing }
            do throws(LottieError) {
                return try archive.read(path, limit: limit)
            } catch {
                throw error.rule == LottieRule.tooLarge ? Refusal.tooLarge(error.message) : Refusal.unreadable(error.message)
            }
        }
    }
}

/// Reads a file below a folder one component at a time (`openat` with `O_NOFOLLOW`), so no
/// symbolic link anywhere below the folder is followed.
enum FolderReader {
    static func read(root: String, path: String, limit: Int) throws(LottieImageFiles.Refusal) -> [UInt8] {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno))) }
        let parts = path.split(separator: "/").map(String.init)
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY)
            let next = openat(fd, part, flags)
            let code = errno
            close(fd)
            guard next >= 0 else { throw refusal(code, isSymlink: isSymlink(root: root, parts: parts[...i])) }
            fd = next
        }
        defer { close(fd) }
        return try readAll(fd, limit: limit)
    }

    private static func refusal(_ code: Int32, isSymlink: Bool) -> LottieImageFiles.Refusal {
        if isSymlink { return .outside("a symbolic link") }
        if code == ENOENT || code == ENOTDIR { return .missing }
        return .unreadable(String(cString: strerror(code)))
    }

    private static func isSymlink(root: String, parts: ArraySlice<String>) -> Bool {
        var info = stat()
        return lstat(root + "/" + parts.joined(separator: "/"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    private static func readAll(_ fd: Int32, limit: Int) throws(LottieImageFiles.Refusal) -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable("not a regular file") }
        guard Int64(info.st_size) <= Int64(limit) else { throw .tooLarge("\(info.st_size) bytes, more than the \(limit) left") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
            if n == 0 { break }
            done += n
        }
        guard done <= limit else { throw .tooLarge("more than the \(limit) bytes left") }
        bytes.removeSubrange(done...)
        return bytes
    }
}
