import CZip
import PulsarCore
import Glibc

/// A libzip failure, translated at the boundary: nothing outside this file sees a libzip code.
enum ZipArchiveError: Error, Sendable {
    /// The path does not exist.
    case notFound
    /// The path cannot be opened or read (errno text or libzip's message).
    case unreadable(String)
    /// Not a ZIP archive.
    case notZip
    /// Starts with a ZIP local header but has no end of central directory: cut short.
    case truncated
    /// The archive's structure is damaged (libzip's message).
    case corrupt(String)
    /// Two entries share a name (the name, when it could be found).
    case duplicateName(String?)
    /// Reading an entry failed; `corrupt` when its data is damaged (CRC, compressed data)
    /// rather than unreadable.
    case entry(name: String, corrupt: Bool, message: String)
    /// An entry's data is not as long as its declared uncompressed size. `actual` is a count or
    /// "more than N".
    case sizeLies(name: String, declared: Int64, actual: String)
    /// Writing an archive failed.
    case write(String)
}

/// What the central directory says about one entry. Nothing here has been checked: the sizes
/// are declarations, which is why reads compare them with what actually comes out.
struct ZipEntryInfo: Sendable {
    /// The entry's index in the archive.
    var index: UInt64
    /// The name's raw bytes, exactly as stored.
    var rawName: [UInt8]
    /// The name as UTF-8, or nil when the bytes are not UTF-8.
    var name: String?
    /// Declared uncompressed size.
    var size: Int64
    /// Declared compressed size.
    var compressedSize: Int64
    /// ZIP compression method (0 STORE, 8 DEFLATE, ...).
    var compressionMethod: Int32
    /// ZIP encryption method (0 none).
    var encryptionMethod: UInt16
    /// True when the external attributes hold a UNIX mode of S_IFLNK.
    var isSymlink: Bool
    var crc: UInt32

    /// The name for messages (lossy when not UTF-8).
    var displayName: String { name ?? String(decoding: rawName, as: UTF8.self) }
    /// A directory entry (its name ends in `/`).
    var isDirectory: Bool { rawName.last == UInt8(ascii: "/") }
    var isStored: Bool { compressionMethod == ZipArchive.methodStore }
    var isDeflated: Bool { compressionMethod == ZipArchive.methodDeflate }
}

/// A read-only ZIP archive on disk or in memory, through libzip. The only place in the package that calls
/// `zip_*` (reading here, writing in `ZipArchive.write`).
///
/// Contract: opening parses and checks the central directory against the local headers
/// (`ZIP_RDONLY | ZIP_CHECKCONS`) and lists the entries; reads never trust a declared size
/// (`read(_:limit:)` reads at most one byte past it and compares).
///
/// Thread rules: every libzip call on the archive is serialized by an internal lock, so one
/// archive may be shared by several threads, each using its own `Stream`. Not for the real-time
/// thread: all calls do I/O and may block on the lock.
final class ZipArchive: @unchecked Sendable {
    static let methodStore: Int32 = ZIP_CM_STORE
    static let methodDeflate: Int32 = ZIP_CM_DEFLATE

    let path: String
    /// Entries in central-directory order.
    let entries: [ZipEntryInfo]
    private let handle: OpaquePointer
    /// The bytes of an archive opened from memory (libzip reads them until `zip_discard`).
    private let memory: UnsafeMutableRawBufferPointer?
    private let lock = Lock()

    /// Opens `path` read-only and lists its entries.
    init(path: String) throws(ZipArchiveError) {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .notFound }
            throw .unreadable(String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable("not a regular file") }
        let startsLikeZip = Self.startsWithLocalHeader(path)
        // libzip opens an empty file as an empty archive; a bundle never is one.
        if info.st_size < 22 { throw startsLikeZip ? .truncated : .notZip }

        var code: Int32 = 0
        guard let za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            switch code {
            case ZIP_ER_NOZIP:
                throw startsLikeZip ? .truncated : .notZip
            case ZIP_ER_EXISTS:
                throw .duplicateName(Self.findDuplicate(path))
            case ZIP_ER_OPEN, ZIP_ER_READ, ZIP_ER_SEEK, ZIP_ER_MEMORY, ZIP_ER_TELL:
                throw .unreadable(Self.message(code))
            case ZIP_ER_EOF:
                throw startsLikeZip ? .truncated : .corrupt(Self.message(code))
            default:
                throw .corrupt(Self.message(code))
            }
        }
        handle = za
        memory = nil
        do {
            entries = try Self.list(za)
        } catch {
            zip_discard(za)
            throw error
        }
    }

    /// Opens an archive held in memory (`name` is for messages), read-only, and lists its entries.
    init(bytes: [UInt8], name: String) throws(ZipArchiveError) {
        path = name
        let startsLikeZip = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
        if bytes.count < 22 { throw startsLikeZip ? .truncated : .notZip }
        // libzip reads the buffer for the archive's lifetime: a copy this object owns.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        copy.copyBytes(from: bytes)
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(copy.baseAddress, UInt64(copy.count), 0, &error) else {
            copy.deallocate()
            throw .unreadable(String(cString: zip_error_strerror(&error)))
        }
        guard let za = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
            zip_source_free(source)
            copy.deallocate()
            switch zip_error_code_zip(&error) {
            case ZIP_ER_NOZIP: throw startsLikeZip ? .truncated : .notZip
            case ZIP_ER_EXISTS: throw .duplicateName(nil)
            case ZIP_ER_EOF: throw startsLikeZip ? .truncated : .corrupt(String(cString: zip_error_strerror(&error)))
            default: throw .corrupt(String(cString: zip_error_strerror(&error)))
            }
        }
        handle = za
        memory = copy
        do {
            entries = try Self.list(za)
        } catch {
            zip_discard(za)
            copy.deallocate()
            throw error
        }
    }

    /// The central directory, in order.
    private static func list(_ za: OpaquePointer) throws(ZipArchiveError) -> [ZipEntryInfo] {
        let count = zip_get_num_entries(za, 0)
        var list: [ZipEntryInfo] = []
        list.reserveCapacity(max(0, Int(min(count, 100_000))))
        var index: Int64 = 0
        while index < count {
            var st = zip_stat_t()
            zip_stat_init(&st)
            guard zip_stat_index(za, UInt64(index), ZIP_FL_ENC_RAW, &st) == 0, let cName = st.name else {
                let message = String(cString: zip_strerror(za))
                throw .corrupt("entry \(index): \(message)")
            }
            let raw = Array(UnsafeBufferPointer(start: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self),
                                                count: strlen(cName)))
            var opsys: UInt8 = 0
            var attributes: UInt32 = 0
            var symlink = false
            if zip_file_get_external_attributes(za, UInt64(index), 0, &opsys, &attributes) == 0,
               UInt32(opsys) == ZIP_OPSYS_UNIX {
                symlink = ((attributes >> 16) & UInt32(S_IFMT)) == UInt32(S_IFLNK)
            }
            list.append(ZipEntryInfo(
                index: UInt64(index), rawName: raw, name: String(validating: raw, as: UTF8.self),
                size: Int64(clamping: st.size), compressedSize: Int64(clamping: st.comp_size),
                compressionMethod: Int32(st.comp_method), encryptionMethod: st.encryption_method,
                isSymlink: symlink, crc: st.crc))
            index += 1
        }
        return list
    }

    deinit {
        zip_discard(handle)
        memory?.deallocate()
    }

    /// Reads a whole entry into memory. Refuses (without reading) an entry declaring more than
    /// `limit` bytes; otherwise reads at most its declared size plus one byte and throws
    /// `sizeLies` unless exactly the declared size came out.
    func read(_ entry: ZipEntryInfo, limit: Int64) throws(ZipArchiveError) -> [UInt8] {
        precondition(entry.size <= limit, "caller checks the declared size against the limit first")
        let stream = try open(entry)
        var out: [UInt8] = []
        out.reserveCapacity(Int(min(entry.size, 1 << 20)))
        let want = entry.size + 1
        let chunk = 64 << 10
        var scratch = [UInt8](repeating: 0, count: chunk)
        while Int64(out.count) < want {
            let asked = Int(min(Int64(chunk), want - Int64(out.count)))
            let n = try stream.read(into: &scratch, count: asked)
            if n == 0 { break }
            out.append(contentsOf: scratch[0..<n])
        }
        if Int64(out.count) != entry.size {
            throw .sizeLies(name: entry.displayName, declared: entry.size,
                            actual: Int64(out.count) > entry.size ? "more than \(entry.size)" : "\(out.count)")
        }
        return out
    }

    /// Opens an entry for sequential reading from its start.
    func open(_ entry: ZipEntryInfo) throws(ZipArchiveError) -> Stream {
        lock.lock()
        defer { lock.unlock() }
        guard let file = zip_fopen_index(handle, entry.index, 0) else {
            let error = zip_get_error(handle)!
            let code = zip_error_code_zip(error)
            let message = String(cString: zip_error_strerror(error))
            zip_error_clear(handle)
            throw .entry(name: entry.displayName, corrupt: Self.isCorruption(code), message: message)
        }
        return Stream(archive: self, file: file, entry: entry)
    }

    /// A sequential reader of one entry's uncompressed bytes.
    ///
    /// Thread rules: one thread at a time per stream; streams of one archive may be used on
    /// different threads (their libzip calls are serialized by the archive's lock).
    final class Stream {
        let archive: ZipArchive
        let entry: ZipEntryInfo
        private var file: OpaquePointer?

        fileprivate init(archive: ZipArchive, file: OpaquePointer, entry: ZipEntryInfo) {
            self.archive = archive
            self.file = file
            self.entry = entry
        }

        deinit {
            close()
        }

        /// Reads up to `buffer.count` bytes; returns 0 at the end of the entry's data.
        func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipArchiveError) -> Int {
            guard buffer.count > 0 else { return 0 }
            archive.lock.lock()
            defer { archive.lock.unlock() }
            guard let file else { return 0 }
            var done = 0
            while done < buffer.count {
                let n = zip_fread(file, buffer.baseAddress! + done, UInt64(buffer.count - done))
                if n < 0 {
                    let error = zip_file_get_error(file)!
                    let code = zip_error_code_zip(error)
                    throw .entry(name: entry.displayName, corrupt: ZipArchive.isCorruption(code),
                                 message: String(cString: zip_error_strerror(error)))
                }
                if n == 0 { break }
                done += Int(n)
            }
            return done
        }

        /// Reads up to `count` bytes into the start of `array` (which must be at least that long).
        func read(into array: inout [UInt8], count: Int) throws(ZipArchiveError) -> Int {
            let result = array.withUnsafeMutableBytes { raw in
                Result { () throws(ZipArchiveError) -> Int in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
                }
            }
            return try result.get()
        }

        /// Moves to `offset` directly when libzip can (STORE'd, unencrypted entries); returns
        /// false when it cannot, and the caller reads forward instead.
        func seekDirectly(to offset: Int64) -> Bool {
            guard entry.isStored, entry.encryptionMethod == 0 else { return false }
            archive.lock.lock()
            defer { archive.lock.unlock() }
            guard let file else { return false }
            return zip_fseek(file, offset, SEEK_SET) == 0
        }

        /// Releases the libzip file; later reads return 0.
        func close() {
            archive.lock.lock()
            defer { archive.lock.unlock() }
            if let file { zip_fclose(file) }
            file = nil
        }
    }

    // MARK: Writing

    /// One entry of an archive to write.
    struct NewEntry: Sendable {
        enum Content: Sendable {
            case bytes([UInt8])
            /// A file read by libzip when the archive is closed.
            case file(String)
        }

        var name: String
        var content: Content
        /// DEFLATE when true, STORE when false.
        var deflate: Bool
    }

    /// Fixed modification time of written entries (2020-01-01T00:00:00Z), so packing the same
    /// folder twice gives the same bytes.
    static let fixedModificationTime: time_t = 1_577_836_800

    /// Writes a new archive at `path` (created or truncated) holding `entries` in order, each a
    /// regular file (UNIX mode 0644). On failure nothing is left at `path`.
    ///
    /// Thread rules: any thread; touches no shared state. Does I/O.
    static func write(_ entries: [NewEntry], to path: String) throws(ZipArchiveError) {
        var code: Int32 = 0
        guard let za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else {
            throw .write("cannot create \(path): \(message(code))")
        }
        var closed = false
        defer {
            if !closed {
                zip_discard(za)
                unlink(path)
            }
        }
        for entry in entries {
            var source: OpaquePointer?
            switch entry.content {
            case .bytes(let bytes):
                // libzip frees the copy (freep = 1) once the archive is written or discarded.
                let copy = malloc(max(bytes.count, 1))!
                bytes.withUnsafeBytes { if $0.count > 0 { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
                source = zip_source_buffer(za, copy, UInt64(bytes.count), 1)
                if source == nil { free(copy) }
            case .file(let file):
                source = zip_source_file(za, file, 0, -1)
            }
            guard let source else {
                throw .write("\(entry.name): \(String(cString: zip_strerror(za)))")
            }
            let index = zip_file_add(za, entry.name, source, ZIP_FL_ENC_UTF_8)
            guard index >= 0 else {
                zip_source_free(source)
                throw .write("\(entry.name): \(String(cString: zip_strerror(za)))")
            }
            let i = UInt64(index)
            guard zip_set_file_compression(za, i, entry.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) == 0,
                  zip_file_set_external_attributes(za, i, 0, UInt8(ZIP_OPSYS_UNIX), UInt32(0o100644) << 16) == 0,
                  zip_file_set_mtime(za, i, fixedModificationTime, 0) == 0 else {
                throw .write("\(entry.name): \(String(cString: zip_strerror(za)))")
            }
        }
        if zip_close(za) != 0 {
            throw .write(String(cString: zip_strerror(za)))
        }
        closed = true
    }

    // MARK: Helpers

    /// libzip's text for an error code.
    private static func message(_ code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error))
    }

    /// Codes meaning the data is damaged rather than unreadable.
    private static func isCorruption(_ code: Int32) -> Bool {
        [ZIP_ER_CRC, ZIP_ER_ZLIB, ZIP_ER_COMPRESSED_DATA, ZIP_ER_INCONS, ZIP_ER_EOF, ZIP_ER_COMPNOTSUPP,
         ZIP_ER_ENCRNOTSUPP, ZIP_ER_NOPASSWD].contains(code)
    }

    /// True when the file begins with a local file header signature (`PK\3\4`).
    private static func startsWithLocalHeader(_ path: String) -> Bool {
        guard let source = try? FileByteSource(path: path) else { return false }
        var head = [UInt8](repeating: 0, count: 4)
        let n = (try? head.withUnsafeMutableBytes { try source.read(at: 0, into: $0) }) ?? 0
        return n == 4 && head == [0x50, 0x4B, 0x03, 0x04]
    }

    /// After `ZIP_CHECKCONS` refused duplicate names: opens again without it and finds the first
    /// name that occurs twice.
    private static func findDuplicate(_ path: String) -> String? {
        var code: Int32 = 0
        guard let za = zip_open(path, ZIP_RDONLY, &code) else { return nil }
        defer { zip_discard(za) }
        var seen = Set<[UInt8]>()
        let count = zip_get_num_entries(za, 0)
        var index: Int64 = 0
        while index < count {
            if let cName = zip_get_name(za, UInt64(index), ZIP_FL_ENC_RAW) {
                let raw = Array(UnsafeBufferPointer(start: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self),
                                                    count: strlen(cName)))
                if !seen.insert(raw).inserted { return String(decoding: raw, as: UTF8.self) }
            }
            index += 1
        }
        return nil
    }
}
