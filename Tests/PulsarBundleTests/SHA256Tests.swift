import Testing
@testable import PulsarBundle

/// SHA-256 (libmd) against the FIPS 180-2 / NIST example vectors, and chunked input against one call.
@Suite("SHA-256")
struct SHA256Tests {
    static func hex(_ text: String) -> String { SHA256.hex(SHA256.digest(Array(text.utf8))) }

    @Test func emptyString() {
        #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abc() {
        #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func the448BitMessage() {
        #expect(Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func oneMillionA() {
        var sha = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { sha.update(chunk) }
        #expect(SHA256.hex(sha.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every split of a 200-byte message into two updates, and byte-at-a-time, equals one call
    /// (covers the padding edge at 55/56/64 bytes through the lengths crossed).
    @Test func chunkingDoesNotMatter() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 200] {
            let part = Array(message[0..<length])
            let whole = SHA256.digest(part)
            for split in stride(from: 0, through: length, by: 7) {
                var sha = SHA256()
                sha.update(Array(part[0..<split]))
                sha.update(Array(part[split...]))
                #expect(sha.finalize() == whole, "length \(length), split at \(split)")
            }
            var bytewise = SHA256()
            for b in part { bytewise.update([b]) }
            #expect(bytewise.finalize() == whole, "length \(length), byte by byte")
        }
    }
}
