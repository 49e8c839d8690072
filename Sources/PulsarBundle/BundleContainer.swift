import Glibc
import PulsarCore

/// The files of a bundle, whether a `.pulsar` ZIP archive or an unpacked folder, after every
/// entry-level rule has been checked: safe names, no symlinks, no duplicates, no encryption,
/// STORE or DEFLATE only, compression ratio at most 200:1, at most 256 MiB declared in total.
/// Nothing is ever extracted to disk.
///
/// Contract: `files` lists regular files only (ZIP directory entries are checked, then dropped),
/// keyed by their `/`-separated relative name. Reads never yield more than the listed size and
/// throw `sizeMismatch` when the data is not exactly that long.
///
/// Thread rules: immutable after `open`; reads may run on several threads (ZIP reads are
/// serialized inside `ZipArchive`). Not for the real-time thread: everything does I/O.
struct BundleContainer: @unchecked Sendable {
    /// One file of the bundle.
    struct File {
        var name: String
        /// Declared (ZIP) or measured (folder) size.
        var size: Int64
        var zipEntry: ZipEntryInfo?
        /// Absolute-or-as-given path of a file in a folder bundle.
        var diskPath: String?
    }

    enum Storage {
        case zip(ZipArchive)
        case directory(String)
    }

    /// The bundle as the caller named it.
    let bundle: String
    let storage: Storage
    let files: [String: File]

    static let manifestName = "manifest.json"

    var isDirectory: Bool {
        if case .directory = storage { return true }
        return false
    }

    /// File names sorted bytewise by UTF-8, as the content hash orders them.
    var sortedNames: [String] {
        files.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: Opening

    /// Opens a ZIP archive or a folder and checks every entry.
    static func open(_ path: String) throws(BundleError) -> BundleContainer {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR {
                throw BundleError(.notFound, bundle: path, message: "no such file or folder")
            }
            throw BundleError(.unreadable, bundle: path, message: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return try openDirectory(path)
        }
        if case .special(let what) = InputFile.kind(of: path) {
            throw BundleError(.unreadable, bundle: path, message: "is \(what), not a bundle file or folder")
        }
        return try openZip(path)
    }

    private static func openZip(_ path: String) throws(BundleError) -> BundleContainer {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(path: path)
        } catch {
            throw translate(error, bundle: path)
        }
        guard archive.entries.count <= BundleLimits.maximumEntries else {
            throw BundleError(.tooLarge, bundle: path,
                              message: "\(archive.entries.count) entries, more than the limit of \(BundleLimits.maximumEntries)")
        }
        var files: [String: File] = [:]
        var seen = Set<String>()
        var total: Int64 = 0
        for entry in archive.entries {
            guard let name = entry.name else {
                throw BundleError(.unsafeEntryName, bundle: path, entry: entry.displayName, message: "the entry name is not UTF-8")
            }
            if let problem = nameProblem(name, allowTrailingSlash: true) {
                throw BundleError(.unsafeEntryName, bundle: path, entry: name, message: "unsafe entry name: \(problem)")
            }
            if entry.isSymlink {
                throw BundleError(.symlinkEntry, bundle: path, entry: name, message: "the entry is a symbolic link")
            }
            if entry.encryptionMethod != 0 {
                throw BundleError(.encryptedEntry, bundle: path, entry: name,
                                  message: "the entry is encrypted (method \(entry.encryptionMethod)); bundles are never encrypted")
            }
            if !entry.isStored && !entry.isDeflated {
                throw BundleError(.unsupportedCompression, bundle: path, entry: name,
                                  message: "compression method \(entry.compressionMethod); bundles use STORE (0) or DEFLATE (8)")
            }
            let key = entry.isDirectory ? String(name.dropLast()) : name
            if !seen.insert(key).inserted {
                throw BundleError(.duplicateEntry, bundle: path, entry: name, message: "the name occurs more than once")
            }
            if entry.size < 0 || entry.compressedSize < 0 {
                throw BundleError(.sizeMismatch, bundle: path, entry: name, message: "the declared sizes overflow")
            }
            if entry.size > 0 {
                let (limit, overflow) = entry.compressedSize.multipliedReportingOverflow(by: BundleLimits.maximumCompressionRatio)
                if !overflow && entry.size > limit {
                    let ratio = entry.compressedSize == 0 ? "unbounded" : "\(entry.size / entry.compressedSize):1"
                    throw BundleError(.compressionRatio, bundle: path, entry: name,
                                      message: "declares \(entry.size) bytes from \(entry.compressedSize) compressed (\(ratio)), over the limit of \(BundleLimits.maximumCompressionRatio):1")
                }
            }
            if entry.isStored && entry.size != entry.compressedSize {
                throw BundleError(.sizeMismatch, bundle: path, entry: name,
                                  message: "a STORE'd entry declares \(entry.size) bytes uncompressed but \(entry.compressedSize) stored")
            }
            let (sum, overflow) = total.addingReportingOverflow(entry.size)
            total = overflow ? Int64.max : sum
            if entry.isDirectory { continue }
            files[name] = File(name: name, size: entry.size, zipEntry: entry, diskPath: nil)
        }
        if total > BundleLimits.maximumTotalSize {
            throw BundleError(.tooLarge, bundle: path,
                              message: "the entries declare \(total) bytes uncompressed in total, more than the limit of \(BundleLimits.maximumTotalSize) (256 MiB)")
        }
        return BundleContainer(bundle: path, storage: .zip(archive), files: files)
    }

    private static func openDirectory(_ path: String) throws(BundleError) -> BundleContainer {
        var files: [String: File] = [:]
        var total: Int64 = 0
        try walk(root: path, relative: "", depth: 0, files: &files, total: &total)
        return BundleContainer(bundle: path, storage: .directory(path), files: files)
    }

    /// Lists a folder recursively, refusing symlinks, special files, unsafe names and too much data.
    private static func walk(root: String, relative: String, depth: Int, files: inout [String: File],
                             total: inout Int64) throws(BundleError) {
        guard depth <= BundleLimits.maximumDepth else {
            throw BundleError(.tooLarge, bundle: root, entry: relative,
                              message: "folders nest deeper than \(BundleLimits.maximumDepth) levels")
        }
        let folder = relative.isEmpty ? root : root + "/" + relative
        let names: [String]
        do {
            names = try InputFile.names(inFolder: folder)
        } catch {
            throw BundleError(.unreadable, bundle: root, entry: relative.isEmpty ? nil : relative,
                              message: "cannot list the folder")
        }
        for child in names.sorted() {
            let name = relative.isEmpty ? child : relative + "/" + child
            if let problem = nameProblem(child, allowTrailingSlash: false) ?? (child.contains("/") ? "slash in a file name" : nil) {
                throw BundleError(.unsafeEntryName, bundle: root, entry: name, message: "unsafe file name: \(problem)")
            }
            let full = root + "/" + name
            var info = stat()
            guard lstat(full, &info) == 0 else {
                throw BundleError(.unreadable, bundle: root, entry: name, message: String(cString: strerror(errno)))
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                throw BundleError(.symlinkEntry, bundle: root, entry: name, message: "symbolic links are not allowed in a bundle")
            case S_IFDIR:
                try walk(root: root, relative: name, depth: depth + 1, files: &files, total: &total)
            case S_IFREG:
                guard files.count < BundleLimits.maximumEntries else {
                    throw BundleError(.tooLarge, bundle: root,
                                      message: "more than \(BundleLimits.maximumEntries) files")
                }
                let size = Int64(info.st_size)
                total += size
                if total > BundleLimits.maximumTotalSize {
                    throw BundleError(.tooLarge, bundle: root, entry: name,
                                      message: "the files hold more than the limit of \(BundleLimits.maximumTotalSize) bytes (256 MiB) in total")
                }
                files[name] = File(name: name, size: size, zipEntry: nil, diskPath: full)
            default:
                throw BundleError(.notRegularFile, bundle: root, entry: name, message: "neither a regular file nor a folder")
            }
        }
    }

    /// Why `name` is not a safe relative path, or nil when it is. `allowTrailingSlash` accepts a
    /// ZIP directory entry (`audio/`).
    static func nameProblem(_ name: String, allowTrailingSlash: Bool) -> String? {
        if name.isEmpty { return "empty name" }
        if name.hasPrefix("/") { return "absolute path" }
        if name.contains("\\") { return "backslash" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "control character" }
        var components = name.split(separator: "/", omittingEmptySubsequences: false)
        if allowTrailingSlash, components.count > 1, components.last == "" { components.removeLast() }
        for component in components {
            if component.isEmpty { return "empty path component" }
            if component == ".." { return "'..' component" }
            if component == "." { return "'.' component" }
        }
        return nil
    }

    // MARK: Reading

    /// The whole content of `name`, which must be listed. Refuses (before reading) a file
    /// declaring more than `limit` bytes.
    func read(_ name: String, limit: Int64) throws(BundleError) -> [UInt8] {
        guard let file = files[name] else {
            throw BundleError(.missingFile, bundle: bundle, entry: name, message: "no such entry")
        }
        guard file.size <= limit else {
            throw BundleError(.tooLarge, bundle: bundle, entry: name,
                              message: "\(file.size) bytes, more than the limit of \(limit) for a file read into memory")
        }
        switch storage {
        case .zip(let archive):
            do {
                return try archive.read(file.zipEntry!, limit: limit)
            } catch {
                throw Self.translate(error, bundle: bundle)
            }
        case .directory:
            let source = try fileSource(file)
            var out = [UInt8](repeating: 0, count: Int(file.size) + 1)
            let n: Int
            do {
                n = try out.withUnsafeMutableBytes { try source.read(at: 0, into: $0) }
            } catch {
                throw BundleError(.unreadable, bundle: bundle, entry: name, message: "\(error)")
            }
            guard Int64(n) == file.size else {
                throw BundleError(.sizeMismatch, bundle: bundle, entry: name,
                                  message: "the file changed size while being read (\(file.size) then \(n) bytes)")
            }
            out.removeLast()
            return out
        }
    }

    /// A streaming source of `name`'s bytes (audio): nothing is read yet.
    func byteSource(_ name: String) throws(BundleError) -> ByteSource {
        guard let file = files[name] else {
            throw BundleError(.missingFile, bundle: bundle, entry: name, message: "no such entry")
        }
        switch storage {
        case .zip(let archive):
            return ZipEntrySource(archive: archive, entry: file.zipEntry!, bundlePath: bundle)
        case .directory:
            return try fileSource(file)
        }
    }

    private func fileSource(_ file: File) throws(BundleError) -> FileByteSource {
        let source: FileByteSource
        do {
            source = try FileByteSource(path: file.diskPath!, followSymlinks: false)
        } catch {
            throw BundleError(.unreadable, bundle: bundle, entry: file.name, message: "cannot open: \(error)")
        }
        guard source.size == file.size else {
            throw BundleError(.sizeMismatch, bundle: bundle, entry: file.name,
                              message: "the file changed size since the bundle was opened (\(file.size) then \(source.size) bytes)")
        }
        return source
    }

    /// Feeds every byte of `name` to `body` in chunks of at most 64 KiB, checking that exactly
    /// the listed size comes out. Holds one chunk in memory at a time.
    func stream(_ name: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(BundleError) {
        guard let file = files[name] else {
            throw BundleError(.missingFile, bundle: bundle, entry: name, message: "no such entry")
        }
        let chunk = 64 << 10
        var scratch = [UInt8](repeating: 0, count: chunk)
        var done: Int64 = 0
        switch storage {
        case .zip(let archive):
            do {
                let stream = try archive.open(file.zipEntry!)
                while done <= file.size {
                    let asked = Int(min(Int64(chunk), file.size + 1 - done))
                    let n = try stream.read(into: &scratch, count: asked)
                    if n == 0 { break }
                    done += Int64(n)
                    if done > file.size { break }
                    scratch.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                }
            } catch {
                throw Self.translate(error, bundle: bundle)
            }
        case .directory:
            let source = try fileSource(file)
            while done <= file.size {
                let n: Int
                do {
                    n = try scratch.withUnsafeMutableBytes { try source.read(at: done, into: $0) }
                } catch {
                    throw BundleError(.unreadable, bundle: bundle, entry: name, message: "\(error)")
                }
                if n == 0 { break }
                let useful = Int(min(Int64(n), file.size - done))
                if useful > 0 { scratch.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<useful])) } }
                done += Int64(n)
            }
        }
        guard done == file.size else {
            throw BundleError(.sizeMismatch, bundle: bundle, entry: name,
                              message: "declares \(file.size) bytes but holds \(done > file.size ? "more" : "\(done)")")
        }
    }

    /// The bundle's content hash (see `BundleHash`), streaming every file but the manifest.
    /// The content hash, with `added` entries (name → content) hashed as if they were files of
    /// the bundle.
    func contentHash(adding added: [String: [UInt8]] = [:]) throws(BundleError) -> String {
        var hasher = BundleHash()
        let names = (sortedNames + added.keys.filter { files[$0] == nil }).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for name in names where name != Self.manifestName {
            if let bytes = added[name] {
                hasher.beginEntry(name: name, size: Int64(bytes.count))
                bytes.withUnsafeBytes { hasher.update($0) }
                continue
            }
            hasher.beginEntry(name: name, size: files[name]!.size)
            try stream(name) { hasher.update($0) }
        }
        return hasher.finalize()
    }

    // MARK: Errors

    /// A libzip-boundary error (or any other) as a `BundleError` about `bundle`.
    static func translate(_ error: any Error, bundle: String) -> BundleError {
        if let error = error as? BundleError { return error }
        guard let error = error as? ZipArchiveError else {
            return BundleError(.unreadable, bundle: bundle, message: "\(error)")
        }
        switch error {
        case .notFound:
            return BundleError(.notFound, bundle: bundle, message: "no such file or folder")
        case .unreadable(let message):
            return BundleError(.unreadable, bundle: bundle, message: message)
        case .notZip:
            return BundleError(.notZip, bundle: bundle, message: "not a ZIP archive (nor a folder)")
        case .truncated:
            return BundleError(.truncated, bundle: bundle, message: "the archive is cut short: its central directory is missing")
        case .corrupt(let message):
            return BundleError(.corrupt, bundle: bundle, message: "damaged archive: \(message)")
        case .duplicateName(let name):
            return BundleError(.duplicateEntry, bundle: bundle, entry: name, message: "an entry name occurs more than once")
        case .entry(let name, let corrupt, let message):
            return BundleError(corrupt ? .corrupt : .unreadable, bundle: bundle, entry: name, message: message)
        case .sizeLies(let name, let declared, let actual):
            return BundleError(.sizeMismatch, bundle: bundle, entry: name,
                               message: "declares \(declared) bytes uncompressed but holds \(actual)")
        case .write(let message):
            return BundleError(.writeFailed, bundle: bundle, message: message)
        }
    }
}
