/// A tiny ZIP writer for tests: local headers, central directory and end record, with every
/// field under the test's control, so it can build what libzip refuses to write (unsafe names,
/// duplicates, lying sizes, symlink modes, the encryption flag).
struct RawZip {
    struct Entry {
        var name: [UInt8]
        /// The bytes stored after the local header (compressed data for method 8).
        var data: [UInt8]
        var method: UInt16 = 0
        /// Uncompressed size written in the headers; default: `data.count` (right for STORE).
        var declaredSize: UInt32?
        /// CRC-32 written in the headers; default: the CRC of `uncompressed` or of `data`.
        var crc: UInt32?
        /// The real uncompressed content when `data` is compressed (for the default CRC).
        var uncompressed: [UInt8]?
        var flags: UInt16 = 0
        /// Upper byte 3: made on UNIX, so the external attributes hold a mode.
        var versionMadeBy: UInt16 = 0x0314
        var externalAttributes: UInt32 = UInt32(0o100644) << 16

        init(_ name: String, _ data: [UInt8]) {
            self.name = Array(name.utf8)
            self.data = data
        }

        init(_ name: String, _ text: String) {
            self.init(name, Array(text.utf8))
        }

        /// A DEFLATE entry whose data is `content` in deflate *stored* blocks (BTYPE 00): valid
        /// deflate that any inflater reads, written without a compressor.
        static func deflated(_ name: String, _ content: [UInt8]) -> Entry {
            var entry = Entry(name, RawZip.deflateStored(content))
            entry.method = 8
            entry.uncompressed = content
            entry.declaredSize = UInt32(content.count)
            return entry
        }
    }

    var entries: [Entry]

    init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// The archive's bytes.
    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let crc = entry.crc ?? RawZip.crc32(entry.uncompressed ?? entry.data)
            let size = entry.declaredSize ?? UInt32(entry.data.count)
            // Local file header.
            out += le32(0x0403_4B50) + le16(20) + le16(entry.flags) + le16(entry.method)
            out += le16(0x6000) + le16(0x5021)  // 12:00, 2020-01-01
            out += le32(crc) + le32(UInt32(entry.data.count)) + le32(size)
            out += le16(UInt16(entry.name.count)) + le16(0) + entry.name
            out += entry.data
            // Central directory header.
            central += le32(0x0201_4B50) + le16(entry.versionMadeBy) + le16(20) + le16(entry.flags) + le16(entry.method)
            central += le16(0x6000) + le16(0x5021)
            central += le32(crc) + le32(UInt32(entry.data.count)) + le32(size)
            central += le16(UInt16(entry.name.count)) + le16(0) + le16(0) + le16(0) + le16(0)
            central += le32(entry.externalAttributes) + le32(offset) + entry.name
        }
        let centralOffset = UInt32(out.count)
        out += central
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
        out += le32(UInt32(central.count)) + le32(centralOffset) + le16(0)
        return out
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as ZIP uses it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    /// `content` as a deflate stream of stored blocks (at most 65 535 bytes each).
    static func deflateStored(_ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        repeat {
            let n = min(65_535, content.count - start)
            let final: UInt8 = start + n == content.count ? 1 : 0
            out.append(final)  // BFINAL, BTYPE = 00; the rest of the byte is padding
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += content[start..<(start + n)]
            start += n
        } while start < content.count
        return out
    }
}
