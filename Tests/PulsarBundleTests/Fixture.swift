import Foundation
@testable import PulsarBundle

/// A small valid bundle to build hostile variants from.
enum Fixture {
    static let pattern = """
    {"continuousPattern": {"amplitude": [{"time": 0, "value": 0.5}, {"time": 100, "value": 0}], "frequency": []},
     "discretePattern": [{"time": 0, "amplitude": 1, "frequency": 0.5}]}
    """

    static let tapPreset = #"{"id": "tap", "name": "Tap", "haptics": "haptics/tap.json"}"#

    /// A manifest with the given members; `extra` is inserted verbatim (a `"key": value, ` list).
    static func manifest(schema: String = "\"pulsar.bundle/1\"", id: String = "\"com.example.test\"",
                         name: String? = "\"Test\"", presets: [String] = [tapPreset], extra: String = "") -> String {
        var members = ["\"schema\": \(schema)", "\"id\": \(id)"]
        if let name { members.append("\"name\": \(name)") }
        if !extra.isEmpty { members.append(extra) }
        members.append("\"presets\": [\(presets.joined(separator: ", "))]")
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// The entries of the valid fixture archive, with `manifest` as its manifest.
    static func entries(manifest: String = manifest()) -> [RawZip.Entry] {
        [RawZip.Entry("manifest.json", manifest), RawZip.Entry("haptics/tap.json", pattern)]
    }

    /// Writes an archive of `entries` into `directory` and returns its path.
    static func archive(_ entries: [RawZip.Entry], in directory: TemporaryDirectory, name: String = "test.pulsar") throws -> String {
        try directory.write(RawZip(entries).bytes(), to: name)
    }

    /// Writes a folder bundle with `files` (name → text) and returns its path.
    static func folder(_ files: [String: String], in directory: TemporaryDirectory, name: String = "bundle") throws -> String {
        for (file, text) in files { try directory.write(text, to: name + "/" + file) }
        return directory.path + "/" + name
    }

    /// A deterministic pseudo-random byte sequence.
    static func noise(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// Copies a folder tree as fresh writable files (the corpus is read-only).
    static func copyTree(_ source: String, to destination: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: destination, withIntermediateDirectories: true)
        guard let enumerator = fm.enumerator(atPath: source) else { return }
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = fm.fileExists(atPath: source + "/" + relative, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                try fm.createDirectory(atPath: destination + "/" + relative, withIntermediateDirectories: true)
            } else {
                let data = try Data(contentsOf: URL(fileURLWithPath: source + "/" + relative))
                try data.write(to: URL(fileURLWithPath: destination + "/" + relative))
            }
        }
    }

    /// Every byte of a `ByteSource`, read in chunks of `chunk`.
    static func readAll(_ source: ByteSource, chunk: Int = 4096) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        var offset: Int64 = 0
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(at: offset, into: $0) }
            if n == 0 { break }
            out += buffer[0..<n]
            offset += Int64(n)
        }
        return out
    }
}
