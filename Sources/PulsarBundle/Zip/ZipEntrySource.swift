/// The uncompressed bytes of one ZIP entry (STORE'd or deflated) as a `ByteSource`, streamed:
/// never held in memory whole. It keeps a sequential cursor: reading forward continues the
/// stream (a forward jump reads and discards, or seeks directly in a STORE'd entry); reading
/// before the cursor reopens the entry and skips forward, so random access is correct but
/// backward seeks of deflated entries cost a re-read from the start.
///
/// Contract: `size` is the entry's declared size, and the source never yields more. If the data
/// ends before that, or goes on past it (checked when a read reaches the end), `read` throws a
/// `BundleError` with rule `sizeMismatch`; damaged data throws rule `corrupt`.
///
/// Thread rules: one thread at a time (the cursor is state). Sources of different entries of
/// one bundle may be used on different threads at once: their libzip calls are serialized.
/// Not for the real-time thread: reads do I/O and decompress.
public final class ZipEntrySource: ByteSource {
    /// The entry's name inside the archive.
    public let entryName: String
    /// The bundle (archive) path, for error messages.
    public let bundlePath: String
    public let size: Int64

    private let archive: ZipArchive
    private let entry: ZipEntryInfo
    private var stream: ZipArchive.Stream?
    /// Offset of the next byte `stream` yields.
    private var cursor: Int64 = 0
    /// True once the end has been checked (no byte past `size`).
    private var endChecked = false
    private var scratch: [UInt8] = []

    init(archive: ZipArchive, entry: ZipEntryInfo, bundlePath: String) {
        self.archive = archive
        self.entry = entry
        self.entryName = entry.displayName
        self.bundlePath = bundlePath
        self.size = entry.size
    }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset >= 0, offset < size, buffer.count > 0 else { return 0 }
        do {
            try position(at: offset)
            let want = Int(min(Int64(buffer.count), size - offset))
            let got = try stream!.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            cursor += Int64(got)
            if got < want {
                throw ZipArchiveError.sizeLies(name: entryName, declared: size, actual: "\(cursor)")
            }
            if cursor == size && !endChecked {
                var probe: [UInt8] = [0]
                let extra = try stream!.read(into: &probe, count: 1)
                if extra > 0 {
                    throw ZipArchiveError.sizeLies(name: entryName, declared: size, actual: "more than \(size)")
                }
                endChecked = true
            }
            return got
        } catch {
            // A failed stream is in an unknown state: start over on the next read.
            stream = nil
            cursor = 0
            throw BundleContainer.translate(error, bundle: bundlePath)
        }
    }

    /// Makes `stream` yield the byte at `offset` next.
    private func position(at offset: Int64) throws(ZipArchiveError) {
        if stream == nil || offset < cursor {
            stream = nil
            stream = try archive.open(entry)
            cursor = 0
        }
        guard offset > cursor else { return }
        if stream!.seekDirectly(to: offset) {
            cursor = offset
            return
        }
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: 64 << 10) }
        while cursor < offset {
            let step = Int(min(Int64(scratch.count), offset - cursor))
            let got = try stream!.read(into: &scratch, count: step)
            if got == 0 {
                throw ZipArchiveError.sizeLies(name: entryName, declared: size, actual: "\(cursor)")
            }
            cursor += Int64(got)
        }
    }
}
