import PulsarCore

/// A ZIP archive held in memory, read through libzip with the bundle reader's checks: for
/// formats that ship inside a ZIP (dotLottie) without writing anything to disk.
///
/// Contract: the central directory is checked against the local headers at `init`; `read`
/// refuses encrypted entries, methods other than STORE and DEFLATE, entries declaring more than
/// `limit` bytes or a ratio over `maximumRatio`, and returns exactly the declared size or throws
/// (libzip checks the CRC-32).
///
/// Thread rules: one archive may be read from several threads (libzip calls are serialized).
public final class ZipMemoryArchive: @unchecked Sendable {
    /// Why an archive or an entry cannot be read: a rule and a one-line message.
    public typealias Failure = Diagnostic<Rule>

    /// The rule an archive or an entry broke; `rawValue` is what a failure prints.
    public enum Rule: String, DiagnosticRule {
        case notZip = "not-zip"
        case corrupt = "corrupt-archive"
        case unsupported = "unsupported-archive"
        case tooLarge = "too-large"
        case missing = "missing-entry"
    }

    private let archive: ZipArchive
    /// Entry names in central-directory order (the first of duplicates only).
    public let entryNames: [String]
    /// Largest uncompressed/compressed ratio an entry may declare.
    public let maximumRatio: Int64

    public init(bytes: [UInt8], name: String, maximumRatio: Int64 = 200) throws(Failure) {
        do {
            archive = try ZipArchive(bytes: bytes, name: name)
        } catch {
            throw Self.failure(error)
        }
        entryNames = archive.entries.compactMap(\.name)
        self.maximumRatio = maximumRatio
    }

    /// The uncompressed bytes of entry `name`, at most `limit` of them.
    public func read(_ name: String, limit: Int64) throws(Failure) -> [UInt8] {
        guard let entry = archive.entries.first(where: { $0.name == name }) else {
            throw Failure(.missing, message: "\(name): no such entry")
        }
        guard entry.encryptionMethod == 0 else { throw Failure(.unsupported, message: "\(name): the entry is encrypted") }
        guard entry.isStored || entry.isDeflated else {
            throw Failure(.unsupported, message: "\(name): compression method \(entry.compressionMethod); only STORE and DEFLATE are read")
        }
        guard entry.size <= limit else {
            throw Failure(.tooLarge, message: "\(name): declares \(entry.size) bytes, more than the limit of \(limit)")
        }
        if entry.size > max(entry.compressedSize, 1) * maximumRatio {
            throw Failure(.tooLarge, message: "\(name): declares \(entry.size) bytes from \(entry.compressedSize) compressed, over the ratio limit of \(maximumRatio):1")
        }
        do {
            return try archive.read(entry, limit: limit)
        } catch {
            throw Self.failure(error)
        }
    }

    private static func failure(_ error: ZipArchiveError) -> Failure {
        switch error {
        case .notZip: return Failure(.notZip, message: "not a ZIP archive")
        case .truncated: return Failure(.corrupt, message: "the ZIP archive is cut short (no end of central directory)")
        case .notFound, .unreadable, .write: return Failure(.corrupt, message: "\(error)")
        case .corrupt(let why): return Failure(.corrupt, message: "the ZIP archive is damaged: \(why)")
        case .duplicateName(let name): return Failure(.corrupt, message: "two entries are named \(name ?? "alike")")
        case let .entry(name, _, message): return Failure(.corrupt, message: "\(name): \(message)")
        case let .sizeLies(name, declared, actual): return Failure(.corrupt, message: "\(name): declares \(declared) bytes, holds \(actual)")
        }
    }
}
