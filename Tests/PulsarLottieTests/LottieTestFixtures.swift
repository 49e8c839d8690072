import Foundation
import PulsarTestSupport

/// Inputs shared by the model tests: the corpus's Lottie files and small hand-made animations
/// and archives.
enum LottieFixtures {
    /// The corpus's Lottie animations (`lottie/*.json` and the demo bundle's animations); throws
    /// when the corpus is absent, so a test over them never passes having checked nothing.
    static func corpusAnimations() throws -> [String] {
        try SharedCorpus.requiredFiles(in: "lottie", ext: "json")
            + SharedCorpus.files(in: "bundles/demo-unpacked/animation", ext: "json")
    }

    /// One corpus file by name (`Switch.json`); throws when it is absent.
    static func corpusFile(_ name: String) throws -> String {
        try SharedCorpus.path("lottie/" + name)
    }

    /// The top-level object of a JSON file, read with Foundation (independently of the model).
    static func foundationObject(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return object
    }

    /// A minimal animation document with the given layers (JSON text) and markers.
    static func document(fr: String = "30", ip: String = "0", op: String = "60", layers: String,
                         assets: String = "[]", markers: String = "[]") -> [UInt8] {
        Array("""
        {"v":"5.7.0","fr":\(fr),"ip":\(ip),"op":\(op),"w":100,"h":80,"nm":"fixture",
         "assets":\(assets),"layers":\(layers),"markers":\(markers)}
        """.utf8)
    }

    /// A dotLottie 2 archive made by Python's zipfile with DEFLATE: `manifest.json` names
    /// animation `packed`, stored as `a/packed.json` (fr 29.97, ip 0, op 60, 64×48, six shape
    /// layers "Shape 0"…"Shape 5" each with Group 1 / Ellipse 1 / Fill 1, and a payload marker
    /// `{"name":"intro","kind":1}` at tm 5, dr 10).
    static let packedDotLottie: [UInt8] = Array(Data(base64Encoded: "UEsDBBQAAAAIAMSCfV3RFbDOLwAAADIAAAANAAAAbWFuaWZlc3QuanNvbqtWKkstKs7Mz1OyUlAyUtJRUErMy8xNLAGKFAOFoquVMlNAUgWJydmpKUq1sbUAUEsDBBQAAAAIAMSCfV3yQMVzUgEAAOMLAAANAAAAYS9wYWNrZWQuanNvbu2WzWqEMBSF9z5FyFrEODrTmX3bB2h3dRbBn44Yf4i2ZRDfvfdGE7VD2+0gCsI519xzEz6EdBahn/REaOAcHJfaYFMJ3js6xwO6rAbnoqpQ7ZX8QuWjuoDyH1CVBcbUPMqTWOUIfk1kA8U3i5AOXkLbKy63lR7Wv1x4nRA1GGpZGUORjUZPJvPZYHIM7frBNBigp4xz9CT6LodgM+5ZVh81YaaatabT9JruROh1pv9RiKxuEkgYP/T2L83pbfNTJsQ0G8oRnkM7Qrk57+Dz2d7gYdOn+bKFZkaeter/22krb3b6KnnZpJUszDGtWagyKFXk32TZgqy3kVV+DWS9BdndRlb5NZDdLcj6G1nl10DWX5ANNrLKr4FssCC738gqf/9kLXLGu3LBZf7zshypoC6kJS+SkJ5CgNvKKqR2SHPgDCXWj9jbYvqfY7y/M3dMt/pvUEsBAhQDFAAAAAgAxIJ9XdEVsM4vAAAAMgAAAA0AAAAAAAAAAAAAAIABAAAAAG1hbmlmZXN0Lmpzb25QSwECFAMUAAAACADEgn1d8kDFc1IBAADjCwAADQAAAAAAAAAAAAAAgAFaAAAAYS9wYWNrZWQuanNvblBLBQYAAAAAAgACAHYAAADXAQAAAAA=")!)

    /// A ZIP archive of STORE'd entries, written here byte by byte (ZIP APPNOTE 4.3).
    static func storedZip(_ entries: [(name: String, data: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func le16(_ v: Int, _ into: inout [UInt8]) { into += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32, _ into: inout [UInt8]) {
            into += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
        }
        for entry in entries {
            let name = Array(entry.name.utf8)
            let crc = crc32(entry.data)
            let offset = UInt32(out.count)
            le32(0x0403_4B50, &out); le16(20, &out); le16(0, &out); le16(0, &out); le16(0, &out); le16(0, &out)
            le32(crc, &out); le32(UInt32(entry.data.count), &out); le32(UInt32(entry.data.count), &out)
            le16(name.count, &out); le16(0, &out)
            out += name + entry.data
            le32(0x0201_4B50, &central); le16(20, &central); le16(20, &central); le16(0, &central); le16(0, &central)
            le16(0, &central); le16(0, &central); le32(crc, &central)
            le32(UInt32(entry.data.count), &central); le32(UInt32(entry.data.count), &central)
            le16(name.count, &central); le16(0, &central); le16(0, &central); le16(0, &central); le16(0, &central)
            le32(0, &central); le32(offset, &central)
            central += name
        }
        let directoryOffset = UInt32(out.count)
        out += central
        le32(0x0605_4B50, &out); le16(0, &out); le16(0, &out); le16(entries.count, &out); le16(entries.count, &out)
        le32(UInt32(central.count), &out); le32(directoryOffset, &out); le16(0, &out)
        return out
    }

    /// CRC-32 bit by bit (no table), independent of the library's.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Writes `bytes` to a fresh temporary file named `name` and returns its path.
    static func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lottie-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}
