/// The content hash a manifest's `hash` member holds, as `docs/bundle-format.md` defines it:
///
///     "sha256:" + lowercase hex of SHA-256 over, for every file entry except `manifest.json`,
///     in bytewise order of the UTF-8 names:
///         the UTF-8 name, one 0 byte, the uncompressed size as 8 bytes little-endian,
///         then the uncompressed content.
///
/// Directory entries of a ZIP are not files and do not take part. The hash depends only on the
/// names and contents, so a folder and the archive packed from it have the same hash, whatever
/// the compression.
///
/// Contract: call `beginEntry` with each name in order, then `update` with exactly `size` bytes
/// of that entry, then `finalize()` once.
///
/// Thread rules: a value type, mutated by one thread at a time. No I/O.
struct BundleHash: Sendable {
    static let prefix = "sha256:"

    private var sha = SHA256()

    /// Starts an entry: its name, a 0 byte and its size.
    mutating func beginEntry(name: String, size: Int64) {
        var header = Array(name.utf8)
        header.append(0)
        let value = UInt64(size)
        for shift in stride(from: 0, to: 64, by: 8) { header.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        sha.update(header)
    }

    /// Content bytes of the current entry.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        sha.update(bytes)
    }

    /// `"sha256:"` + 64 lowercase hex digits.
    mutating func finalize() -> String {
        Self.prefix + SHA256.hex(sha.finalize())
    }

    /// Whether `text` has the form of a hash (`sha256:` + 64 lowercase hex digits).
    static func isWellFormed(_ text: String) -> Bool {
        guard text.hasPrefix(prefix) else { return false }
        let digits = text.utf8.dropFirst(prefix.utf8.count)
        return digits.count == 64 && digits.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
