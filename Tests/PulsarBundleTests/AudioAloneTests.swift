import Foundation
import Testing
import PulsarCore
@testable import PulsarBundle

/// Presets of audio alone (a manifest naming audio and no haptics) and the haptics `pack` adds
/// for them (`BundlePacker.DerivedHaptics`, what `pulsar pack --derive` hands it).
@Suite("Bundles: presets of audio alone")
struct AudioAloneTests {
    static let manifest = Fixture.manifest(presets: [
        Fixture.tapPreset,
        #"{"id": "song", "name": "Song", "audio": {"src": "audio/song.wav", "offset": 40}}"#,
    ])

    static func folder(_ directory: TemporaryDirectory) throws -> String {
        try Fixture.folder(["manifest.json": manifest, "haptics/tap.json": Fixture.pattern, "audio/song.wav": "RIFF, or anything"], in: directory)
    }

    static func added(name: String = "haptics/song.derived.json", preset: String = "song") -> BundlePacker.DerivedHaptics {
        BundlePacker.DerivedHaptics(presetID: preset, name: name, content: Array(Fixture.pattern.utf8), method: "envelope",
                                    from: "audio/song.wav", settings: .obj(["resolution": .num(100)]))
    }

    @Test("a preset of audio alone loads with an empty pattern and hasPattern false")
    func loads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bundle = try PresetBundle.open(try Self.folder(directory))
        let song = try #require(bundle.preset(id: "song"))
        #expect(!song.hasPattern && song.pattern.isEmpty && song.audio?.offset == 40 && song.derived == nil)
        #expect(bundle.preset(id: "tap")?.hasPattern == true)
        #expect(bundle.manifest.presets.map(\.haptics) == ["haptics/tap.json", nil])
    }

    @Test("pack with derived haptics: the archive holds them, its manifest names them and says how, its hash covers them; the folder is unchanged")
    func packs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = try Self.folder(directory)
        let output = directory.path + "/out.pulsar"
        let manifest = try BundlePacker.pack(directory: folder, to: output, derived: [Self.added()])
        #expect(try String(contentsOfFile: folder + "/manifest.json", encoding: .utf8) == Self.manifest)
        #expect(!FileManager.default.fileExists(atPath: folder + "/haptics/song.derived.json"))
        // A strict load hashes the archive's own entries and compares with the manifest's hash.
        let packed = try PresetBundle.open(output, strict: true)
        #expect(packed.manifest.hash == manifest.hash)
        let song = try #require(packed.preset(id: "song"))
        #expect(song.hasPattern && song.pattern == packed.preset(id: "tap")?.pattern)
        #expect(song.derived == BundleManifest.Derived(method: "envelope", from: "audio/song.wav", settings: song.derived?.settings))
        #expect(song.derived?.settings?.contains("\"resolution\": 100") == true)
        #expect(packed.manifest.presets[1].haptics == "haptics/song.derived.json")
        // The same hash as a folder that held the file from the start.
        try directory.write(Fixture.pattern, to: "bundle/haptics/song.derived.json")
        #expect(try BundleContainer.open(folder).contentHash() == manifest.hash)
    }

    @Test("derived haptics for a preset with haptics, under a name the folder holds, or an unsafe name: refused, nothing written",
          arguments: [("tap", "haptics/x.json", BundleError.Rule.badValue), ("song", "haptics/tap.json", .duplicateEntry),
                      ("song", "../escape.json", .unsafeEntryName), ("nobody", "haptics/n.json", .badValue)])
    func refuses(preset: String, name: String, rule: BundleError.Rule) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = try Self.folder(directory)
        let output = directory.path + "/out.pulsar"
        #expect(throws: BundleError.self) { try BundlePacker.pack(directory: folder, to: output, derived: [Self.added(name: name, preset: preset)]) }
        do {
            try BundlePacker.pack(directory: folder, to: output, derived: [Self.added(name: name, preset: preset)])
        } catch {
            #expect(error.rule == rule, "\(error)")
        }
        #expect(directory.listing() == ["bundle"])
    }
}
