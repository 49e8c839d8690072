import PulsarCore

/// Why a `.pulsar` bundle (or an unpacked bundle directory) was refused, or why packing one failed.
///
/// Its `description` is one line: the bundle path, then the entry (with line:column for a JSON
/// entry, when known) and the JSON path where relevant, then what is wrong and the rule in
/// brackets, e.g.
/// `demo.pulsar: manifest.json:9:13: $.presets[0].id: "1st" is not a valid preset id ... [bad-preset-id]`.
/// Control characters in names taken from the archive are escaped so the line stays one line.
public typealias BundleError = Diagnostic<BundleRule>

/// The rule a bundle broke. Tests and the CLI switch on it; `rawValue` is what the description
/// prints.
public enum BundleRule: String, DiagnosticRule, CaseIterable {
    // The container.
    /// The bundle path does not exist.
    case notFound = "not-found"
    /// The bundle path exists but cannot be read (permissions, I/O error, not a file or folder).
    case unreadable = "unreadable"
    /// The file is not a ZIP archive.
    case notZip = "not-zip"
    /// The file starts like a ZIP archive but its end (the central directory) is missing.
    case truncated = "truncated"
    /// The archive's structure or an entry's data is damaged (inconsistent headers, CRC error,
    /// invalid compressed data).
    case corrupt = "corrupt"
    // Entries.
    /// An entry name (or a path the manifest gives) with a `..` or `.` component, an absolute
    /// path, a backslash, an empty component, a control character, or bytes that are not UTF-8.
    case unsafeEntryName = "unsafe-entry-name"
    /// A symbolic link (in a ZIP: a UNIX mode of S_IFLNK; in a folder: any symlink).
    case symlinkEntry = "symlink-entry"
    /// Something in a bundle folder that is neither a regular file nor a folder.
    case notRegularFile = "not-regular-file"
    /// Two entries with the same name.
    case duplicateEntry = "duplicate-entry"
    /// An entry whose data is not as long as its declared size.
    case sizeMismatch = "size-mismatch"
    /// An entry declaring more than `BundleLimits.maximumCompressionRatio` bytes out per byte in.
    case compressionRatio = "compression-ratio"
    /// Too much data: more than `BundleLimits.maximumTotalSize` uncompressed in total, more than
    /// `BundleLimits.maximumEntries` entries, or an in-memory entry over its own limit.
    case tooLarge = "too-large"
    /// An encrypted entry.
    case encryptedEntry = "encrypted-entry"
    /// An entry compressed with a method other than STORE or DEFLATE.
    case unsupportedCompression = "unsupported-compression"
    // The manifest.
    /// No `manifest.json` at the top of the bundle.
    case missingManifest = "missing-manifest"
    /// `manifest.json` is not well-formed JSON (or repeats a key).
    case malformedManifest = "malformed-manifest"
    /// `schema` is not `"pulsar.bundle/1"`.
    case wrongSchema = "wrong-schema"
    /// A required manifest member is absent.
    case missingField = "missing-field"
    /// A manifest member has the wrong JSON type.
    case wrongType = "wrong-type"
    /// A preset id that does not match `^[A-Za-z_$][A-Za-z0-9_$]*$`.
    case badPresetID = "bad-preset-id"
    /// Two presets with the same id.
    case duplicatePresetID = "duplicate-preset-id"
    /// A bundle id that is not reverse-DNS (`com.example.demo`).
    case badBundleID = "bad-bundle-id"
    /// A value of the right type but outside its range (negative volume or duration, a frame
    /// rate ≤ 0, a non-integer revision, an empty name, a malformed hash, no presets...).
    case badValue = "bad-value"
    /// A file the manifest names is not in the bundle.
    case missingFile = "missing-file"
    /// A preset's haptics file is not a valid pattern; `pattern` holds the diagnostic.
    case badPattern = "bad-pattern"
    /// A strict load of a bundle whose manifest has no `hash`.
    case missingHash = "missing-hash"
    /// A strict load of a bundle whose content does not match the manifest's `hash`.
    case hashMismatch = "hash-mismatch"
    // Packing.
    /// Writing the packed archive failed (the output is left untouched).
    case writeFailed = "write-failed"
}

extension Diagnostic where R == BundleRule {
    /// `bundle` is the archive, folder or pack output as the caller named it; `pattern` the
    /// pattern loader's own diagnostic for `badPattern`.
    public init(_ rule: BundleRule, bundle: String, entry: String? = nil, line: Int? = nil, column: Int? = nil,
                jsonPath: String? = nil, message: String, pattern: PatternDiagnostic? = nil) {
        self.init(rule, file: bundle, entry: entry, line: line, column: column, jsonPath: jsonPath,
                  message: message, cause: pattern)
    }

    /// The bundle as the caller named it (the archive, the folder, or the pack output).
    public var bundle: String { file ?? "" }

    /// For `badPattern`: the pattern loader's own diagnostic.
    public var pattern: PatternDiagnostic? { cause }
}

/// The limits a bundle must stay within. They bound memory and time for any input.
public enum BundleLimits {
    /// Largest total of the entries' uncompressed sizes: 256 MiB. Checked against the declared
    /// sizes before anything is read, and enforced while reading (an entry never yields more
    /// than it declares).
    public static let maximumTotalSize: Int64 = 256 << 20
    /// Largest ratio of uncompressed to compressed size of one ZIP entry (200:1).
    public static let maximumCompressionRatio: Int64 = 200
    /// Most entries (files) in one bundle.
    public static let maximumEntries = 10_000
    /// Largest `manifest.json`: 1 MiB.
    public static let maximumManifestSize: Int64 = 1 << 20
    /// Largest file read into memory (haptics JSON, animation): 64 MiB, like `PatternLoader`.
    public static let maximumInMemoryEntrySize: Int64 = 64 << 20
    /// Deepest folder nesting accepted in an unpacked bundle.
    public static let maximumDepth = 32
}
