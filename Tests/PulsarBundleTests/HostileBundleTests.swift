import Foundation
import Testing
import PulsarCore
@testable import PulsarBundle

/// One row per way a bundle can be hostile or wrong, each built inside the test (mostly with
/// `RawZip`, so it can hold what libzip would never write). Each row asserts the rule that fired
/// and that the description is one line naming the bundle.
@Suite("Bundles: hostile input")
struct HostileBundleTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var rule: BundleError.Rule
        var strict = false
        /// Builds the bundle inside the directory and returns its path.
        var build: @Sendable (TemporaryDirectory) throws -> String

        var testDescription: String { name }
    }

    typealias Entry = RawZip.Entry

    /// `Fixture.entries()` with `change` applied.
    static func zip(_ change: @escaping @Sendable (inout [Entry]) -> Void) -> @Sendable (TemporaryDirectory) throws -> String {
        { directory in
            var entries = Fixture.entries()
            change(&entries)
            return try Fixture.archive(entries, in: directory)
        }
    }

    /// The fixture archive with `manifest` as its manifest (and extra entries).
    static func manifest(_ manifest: String, plus extra: [Entry] = []) -> @Sendable (TemporaryDirectory) throws -> String {
        { directory in try Fixture.archive(Fixture.entries(manifest: manifest) + extra, in: directory) }
    }

    static let rows: [Row] = [
        // The container.
        Row(name: "random bytes", rule: .notZip) { try $0.write(Fixture.noise(4096), to: "noise.pulsar") },
        Row(name: "a valid archive cut in half", rule: .truncated) { directory in
            let bytes = RawZip(Fixture.entries()).bytes()
            return try directory.write(Array(bytes[0..<(bytes.count / 2)]), to: "half.pulsar")
        },
        // Entry names.
        Row(name: "../x", rule: .unsafeEntryName, build: zip { $0.append(Entry("../x", "x")) }),
        Row(name: "/abs", rule: .unsafeEntryName, build: zip { $0.append(Entry("/abs", "x")) }),
        Row(name: "backslash", rule: .unsafeEntryName, build: zip { $0.append(Entry("haptics\\evil.json", "x")) }),
        Row(name: "empty name", rule: .unsafeEntryName, build: zip { $0.append(Entry("", "x")) }),
        Row(name: "dot component", rule: .unsafeEntryName, build: zip { $0.append(Entry("haptics/./x.json", "x")) }),
        Row(name: "newline in a name", rule: .unsafeEntryName, build: zip { $0.append(Entry("a\nb", "x")) }),
        Row(name: "symlink entry", rule: .symlinkEntry, build: zip {
            var link = Entry("haptics/link.json", "tap.json")
            link.externalAttributes = UInt32(0o120777) << 16
            $0.append(link)
        }),
        Row(name: "duplicate names", rule: .duplicateEntry, build: zip { $0.append(Entry("haptics/tap.json", Fixture.pattern)) }),
        // Sizes.
        Row(name: "STORE'd entry declaring 7 bytes more than it holds", rule: .sizeMismatch, build: zip {
            $0[1].declaredSize = UInt32($0[1].data.count + 7)
        }),
        Row(name: "deflated entry holding more than it declares", rule: .sizeMismatch, build: zip {
            var entry = Entry.deflated("manifest.json", Array(Fixture.manifest().utf8))
            entry.declaredSize = UInt32(entry.uncompressed!.count - 10)
            entry.crc = RawZip.crc32(Array(entry.uncompressed![0..<(entry.uncompressed!.count - 10)]))
            $0[0] = entry
        }),
        Row(name: "deflated entry holding less than it declares", rule: .sizeMismatch, build: zip {
            var entry = Entry.deflated("haptics/tap.json", Array(Fixture.pattern.utf8))
            entry.declaredSize = UInt32(entry.uncompressed!.count + 10)
            $0[1] = entry
        }),
        Row(name: "declared ratio over 200:1 (small STORE'd entry, huge declared size)", rule: .compressionRatio, build: zip {
            var entry = Entry("audio/big.mp3", Fixture.noise(100))
            entry.declaredSize = 100 * 201
            $0.append(entry)
        }),
        Row(name: "real deflate bomb (4 MiB of zeros through libzip)", rule: .compressionRatio) { directory in
            let path = directory.path + "/bomb.pulsar"
            try ZipArchive.write([
                .init(name: "manifest.json", content: .bytes(Array(Fixture.manifest().utf8)), deflate: true),
                .init(name: "haptics/tap.json", content: .bytes(Array(Fixture.pattern.utf8)), deflate: true),
                .init(name: "audio/zeros.wav", content: .bytes([UInt8](repeating: 0, count: 4 << 20)), deflate: true),
            ], to: path)
            return path
        },
        Row(name: "over 256 MiB declared in total", rule: .tooLarge, build: zip {
            for i in 0..<2 {
                var entry = Entry.deflated("audio/part\(i).wav", Fixture.noise(1 << 20, seed: UInt64(i + 1)))
                entry.declaredSize = 150 << 20
                $0.append(entry)
            }
        }),
        Row(name: "encrypted flag (general purpose bit 0)", rule: .encryptedEntry, build: zip { $0[1].flags |= 1 }),
        Row(name: "bzip2 compression method", rule: .unsupportedCompression, build: zip { $0[1].method = 12 }),
        // The manifest.
        Row(name: "no manifest", rule: .missingManifest, build: zip { $0.removeFirst() }),
        Row(name: "manifest not JSON", rule: .malformedManifest, build: manifest("{\"schema\": ")),
        Row(name: "manifest repeats a key", rule: .malformedManifest,
            build: manifest(Fixture.manifest(extra: "\"name\": \"Again\""))),
        Row(name: "wrong schema", rule: .wrongSchema, build: manifest(Fixture.manifest(schema: "\"pulsar.bundle/2\""))),
        Row(name: "missing name", rule: .missingField, build: manifest(Fixture.manifest(name: nil))),
        Row(name: "name of the wrong type", rule: .wrongType, build: manifest(Fixture.manifest(name: "5"))),
        Row(name: "bundle id not reverse-DNS", rule: .badBundleID, build: manifest(Fixture.manifest(id: "\"demo\""))),
        Row(name: "bad preset id", rule: .badPresetID,
            build: manifest(Fixture.manifest(presets: [#"{"id": "1tap", "name": "T", "haptics": "haptics/tap.json"}"#]))),
        Row(name: "duplicate preset id", rule: .duplicatePresetID,
            build: manifest(Fixture.manifest(presets: [Fixture.tapPreset, Fixture.tapPreset]))),
        Row(name: "no presets", rule: .badValue, build: manifest(Fixture.manifest(presets: []))),
        Row(name: "missing referenced file", rule: .missingFile,
            build: manifest(Fixture.manifest(presets: [#"{"id": "tap", "name": "T", "haptics": "haptics/nope.json"}"#]))),
        Row(name: "manifest path escaping the bundle", rule: .unsafeEntryName,
            build: manifest(Fixture.manifest(presets: [#"{"id": "tap", "name": "T", "haptics": "../tap.json"}"#]))),
        Row(name: "negative volume", rule: .badValue, build: manifest(Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "haptics": "haptics/tap.json", "audio": {"src": "haptics/tap.json", "volume": -1}}"#]))),
        Row(name: "negative duration", rule: .badValue, build: manifest(Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "duration": -5, "haptics": "haptics/tap.json"}"#]))),
        Row(name: "frame rate 0", rule: .badValue, build: manifest(Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "haptics": "haptics/tap.json", "animation": {"src": "haptics/tap.json", "frameRate": 0}}"#]))),
        Row(name: "no haptics and no audio", rule: .missingField,
            build: manifest(Fixture.manifest(presets: [#"{"id": "tap", "name": "T"}"#]))),
        Row(name: "derived not an object", rule: .wrongType, build: manifest(Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "haptics": "haptics/tap.json", "derived": "envelope"}"#]))),
        Row(name: "derived without a method", rule: .missingField, build: manifest(Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "haptics": "haptics/tap.json", "derived": {"from": "x.wav"}}"#]))),
        Row(name: "derived settings not an object", rule: .wrongType, build: manifest(Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "haptics": "haptics/tap.json", "derived": {"method": "envelope", "settings": 3}}"#]))),
        Row(name: "malformed hash", rule: .badValue, build: manifest(Fixture.manifest(extra: "\"hash\": \"md5:00\""))),
        Row(name: "bad haptics pattern", rule: .badPattern, build: zip {
            $0[1] = Entry("haptics/tap.json", #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 2}], "frequency": []}, "discretePattern": []}"#)
        }),
        Row(name: "haptics file that is not a pattern", rule: .badPattern, build: zip { $0[1] = Entry("haptics/tap.json", "[1, 2") }),
        Row(name: "hash mismatch (strict)", rule: .hashMismatch, strict: true,
            build: manifest(Fixture.manifest(extra: "\"hash\": \"sha256:\(String(repeating: "0", count: 64))\""))),
        Row(name: "no hash (strict)", rule: .missingHash, strict: true, build: manifest(Fixture.manifest())),
        // Folders.
        Row(name: "folder: symlink", rule: .symlinkEntry) { directory in
            let folder = try Fixture.folder(["manifest.json": Fixture.manifest(), "haptics/tap.json": Fixture.pattern], in: directory)
            try FileManager.default.createSymbolicLink(atPath: folder + "/haptics/link.json", withDestinationPath: "/etc/passwd")
            return folder
        },
        Row(name: "folder: manifest path escaping the folder", rule: .unsafeEntryName) { directory in
            try directory.write(Fixture.pattern, to: "outside.json")
            return try Fixture.folder([
                "manifest.json": Fixture.manifest(presets: [#"{"id": "tap", "name": "T", "haptics": "../outside.json"}"#]),
            ], in: directory)
        },
        Row(name: "folder: no manifest", rule: .missingManifest) { directory in
            try Fixture.folder(["haptics/tap.json": Fixture.pattern], in: directory)
        },
        Row(name: "nothing at the path", rule: .notFound) { $0.path + "/absent.pulsar" },
    ]

    @Test(arguments: rows)
    func refused(_ row: Row) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try row.build(directory)
        do {
            let bundle = try PresetBundle.open(path, strict: row.strict)
            Issue.record("\(row.name): expected \(row.rule), opened \(bundle.presets.count) presets")
        } catch {
            #expect(error.rule == row.rule, "\(row.name): \(error)")
            let text = error.description
            #expect(!text.contains("\n") && !text.contains("\r"), "not one line: \(text)")
            #expect(text.hasPrefix(path + ": "), "does not name the bundle first: \(text)")
            #expect(text.hasSuffix("]"), "no rule at the end: \(text)")
            if row.rule == .badPattern { #expect(error.pattern != nil) }
        }
    }

    /// The rows are variants of a fixture that itself opens, as an archive and as a folder.
    @Test func theFixtureOpens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let archive = try PresetBundle.open(try Fixture.archive(Fixture.entries(), in: directory))
        let folder = try PresetBundle.open(try Fixture.folder(["manifest.json": Fixture.manifest(), "haptics/tap.json": Fixture.pattern],
                                                               in: directory))
        #expect(archive.presets.map(\.id) == ["tap"])
        #expect(archive.presets.first?.pattern == folder.presets.first?.pattern)
        #expect(archive.presets.first?.pattern.discretePattern.count == 1)
        // The deflate-stored writer produces entries libzip reads.
        var entries = Fixture.entries()
        entries[1] = .deflated("haptics/tap.json", Array(Fixture.pattern.utf8))
        let deflated = try PresetBundle.open(try Fixture.archive(entries, in: directory, name: "deflated.pulsar"))
        #expect(deflated.presets.first?.pattern == archive.presets.first?.pattern)
    }

    /// The description names the entry, line:column and JSON path of a manifest error.
    @Test func manifestErrorsNameTheirPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Fixture.archive(Fixture.entries(manifest: Fixture.manifest(presets: [
            #"{"id": "tap", "name": "T", "haptics": "haptics/tap.json", "audio": {"src": "haptics/tap.json", "volume": -1}}"#])),
            in: directory)
        #expect {
            try PresetBundle.open(path)
        } throws: { error in
            guard let error = error as? BundleError else { return false }
            return error.entry == "manifest.json" && error.jsonPath == "$.presets[0].audio.volume" && error.line == 1
                && error.description.contains("manifest.json:1:") && error.description.contains("$.presets[0].audio.volume")
        }
    }

    /// A haptics error carries the pattern diagnostic's path and rule.
    @Test func patternErrorsCarryTheDiagnostic() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var entries = Fixture.entries()
        entries[1] = Entry("haptics/tap.json", "{\"continuousPattern\": {\"amplitude\": [{\"time\": 0, \"value\": 2}], \"frequency\": []},\n \"discretePattern\": []}")
        let path = try Fixture.archive(entries, in: directory)
        do {
            _ = try PresetBundle.open(path)
            Issue.record("opened")
        } catch {
            #expect(error.rule == .badPattern)
            #expect(error.entry == "haptics/tap.json")
            #expect(error.pattern?.rule == .valueOutOfRange)
            #expect(error.jsonPath == "$.continuousPattern.amplitude[0].value")
            #expect(error.description.contains("[bad-pattern: value-out-of-range]"))
        }
    }
}
