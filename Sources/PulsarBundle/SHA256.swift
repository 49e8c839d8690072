import CMd

/// SHA-256 (FIPS 180-4) from libmd, fed incrementally so large entries are hashed in chunks
/// without being held in memory. The only file that calls libmd's `SHA256*`.
///
/// Contract: `update` any number of times, then `finalize()` once; the digest is 32 bytes,
/// big-endian words as the standard prints them. Calling `update` after `finalize` is a
/// programming error (trapped).
///
/// Thread rules: a value type (libmd's context is plain data, copied with it); one instance is
/// mutated by one thread at a time. No locks, no I/O.
struct SHA256: Sendable {
    private var context = SHA2_CTX()
    private var finished = false

    init() {
        SHA256Init(&context)
    }

    /// Appends `bytes` to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256.update after finalize")
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256Update(&context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// Appends `bytes` to the message.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message and returns the 32-byte digest.
    mutating func finalize() -> [UInt8] {
        precondition(!finished, "SHA256.finalize called twice")
        finished = true
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { SHA256Final($0.baseAddress, &context) }
        return digest
    }

    /// The digest of `bytes` in one call.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    /// Lowercase hexadecimal of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
