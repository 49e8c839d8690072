import Foundation
import PulsarTestSupport
import Testing
import PulsarCore
@testable import PulsarBundle

/// The corpus bundle, as an archive and as a folder: both load to the same presets; the archive's
/// MP3 streams identically to the folder's file; packing the folder gives an archive a strict
/// load accepts.
@Suite("Bundles: corpus", .enabled(if: Corpus.available, "needs ../shared/corpus/bundles"))
struct CorpusBundleTests {
    /// Records every difference between two preset lists (ids, names, durations, patterns,
    /// audio bytes and settings, animation bytes and timing).
    static func expectSame(_ a: [PresetHandle], _ b: [PresetHandle], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(a.map(\.id) == b.map(\.id), sourceLocation: sourceLocation)
        for (x, y) in zip(a, b) {
            #expect(x.name == y.name, "\(x.id)", sourceLocation: sourceLocation)
            #expect(x.duration == y.duration, "\(x.id)", sourceLocation: sourceLocation)
            #expect(x.pattern == y.pattern, "\(x.id)", sourceLocation: sourceLocation)
            #expect(x.hasAudio == y.hasAudio, "\(x.id)", sourceLocation: sourceLocation)
            if let ax = x.audio, let ay = y.audio {
                #expect(ax.source == ay.source && ax.volume == ay.volume && ax.offset == ay.offset, sourceLocation: sourceLocation)
                #expect(ax.bytes.size == ay.bytes.size, sourceLocation: sourceLocation)
                #expect(try Fixture.readAll(ax.bytes) == Fixture.readAll(ay.bytes), "\(x.id) audio", sourceLocation: sourceLocation)
            }
            #expect(x.hasAnimation == y.hasAnimation, "\(x.id)", sourceLocation: sourceLocation)
            if let nx = x.animation, let ny = y.animation {
                #expect(nx.source == ny.source && nx.data == ny.data, "\(x.id) animation", sourceLocation: sourceLocation)
                #expect(nx.frameRate == ny.frameRate && nx.totalFrames == ny.totalFrames, sourceLocation: sourceLocation)
            }
        }
    }

    @Test func archiveAndFolderLoadTheSamePresets() throws {
        let archive = try PresetBundle.open(Corpus.demoArchive)
        let folder = try PresetBundle.open(Corpus.demoFolder)
        #expect(!archive.isFolder && folder.isFolder)
        #expect(archive.manifest == folder.manifest)
        #expect(archive.manifest.id == "com.example.demo")
        #expect(archive.presets.map(\.id) == ["verified", "heartbeat"])
        try Self.expectSame(archive.presets, folder.presets)

        let verified = try #require(archive.preset(id: "verified"))
        #expect(verified.duration == 3000)
        #expect(verified.hasAudio && verified.hasAnimation)
        #expect(verified.audio?.bytes is ZipEntrySource)
        #expect(folder.preset(id: "verified")?.audio?.bytes is FileByteSource)
        #expect(verified.animation?.frameRate == 29.9700012207031)
        #expect(verified.animation?.data.count == 4934)
        let heartbeat = try #require(archive.preset(id: "heartbeat"))
        #expect(heartbeat.duration == 0 && !heartbeat.hasAudio && !heartbeat.hasAnimation)
        #expect(!heartbeat.pattern.isEmpty)
        #expect(archive.preset(id: "nope") == nil)
    }

    /// The archive's deflated MP3 read through `ZipEntrySource` equals the folder's file:
    /// sequentially, after a backward seek, and at scattered offsets in both directions.
    @Test func zipEntrySourceStreamsTheMP3() throws {
        let archive = try PresetBundle.open(Corpus.demoArchive)
        let source = try #require(archive.preset(id: "verified")?.audio?.bytes as? ZipEntrySource)
        let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.demoFolder + "/audio/sample-3s.mp3")))
        #expect(source.size == Int64(expected.count))
        #expect(source.entryName == "audio/sample-3s.mp3")
        #expect(try Fixture.readAll(source, chunk: 7001) == expected)

        func read(_ offset: Int, _ count: Int) throws -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: count)
            let n = try buffer.withUnsafeMutableBytes { try source.read(at: Int64(offset), into: $0) }
            return Array(buffer[0..<n])
        }
        // Backward, after the whole file was read.
        #expect(try read(100, 5000) == Array(expected[100..<5100]))
        var generator = SplitMix(seed: 42)
        for _ in 0..<40 {
            let offset = Int(generator.next() % UInt64(expected.count))
            let count = Int(generator.next() % 9000) + 1
            #expect(try read(offset, count) == Array(expected[offset..<min(expected.count, offset + count)]), "at \(offset)")
        }
        #expect(try read(expected.count, 10).isEmpty)
        #expect(try read(expected.count - 3, 10) == Array(expected.suffix(3)))
    }

    @Test func strictLoadOfTheUnhashedDemoAsksForTheHash() {
        #expect {
            try PresetBundle.open(Corpus.demoArchive, strict: true)
        } throws: { ($0 as? BundleError)?.rule == .missingHash }
    }

    /// pack(folder) → a strict open succeeds and equals the folder; the hash is the folder's own
    /// content hash; packing twice gives the same bytes; the folder is untouched.
    @Test func packThenStrictOpen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.path + "/demo.pulsar"
        let manifestBefore = try Data(contentsOf: URL(fileURLWithPath: Corpus.demoFolder + "/manifest.json"))
        let written = try BundlePacker.pack(directory: Corpus.demoFolder, to: output)
        let folder = try PresetBundle.open(Corpus.demoFolder)
        let packed = try PresetBundle.open(output, strict: true)
        try Self.expectSame(packed.presets, folder.presets)
        #expect(written.hash == packed.manifest.hash)
        #expect(packed.manifest.hash == (try folder.container.contentHash()))
        var withoutHash = packed.manifest
        withoutHash.hash = nil
        #expect(withoutHash == folder.manifest)
        // The hash went in last; other members kept their order.
        let keys = packed.manifestDocument.object?.map(\.key)
        #expect(keys == ["schema", "generator", "id", "name", "revision", "presets", "hash"])
        // The STORE/DEFLATE choice and the entry order.
        if case .zip(let zipArchive) = packed.container.storage {
            #expect(zipArchive.entries.first?.name == "manifest.json")
            let mp3 = try #require(zipArchive.entries.first { $0.name == "audio/sample-3s.mp3" })
            #expect(mp3.isStored)
            #expect(zipArchive.entries.first { $0.name == "haptics/verified.json" }?.isDeflated == true)
        } else {
            Issue.record("packed bundle is not an archive")
        }
        // The packed MP3 is STORE'd: scattered reads (direct seeks) match the file.
        let mp3 = try #require(packed.preset(id: "verified")?.audio?.bytes)
        let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.demoFolder + "/audio/sample-3s.mp3")))
        var generator = SplitMix(seed: 7)
        for _ in 0..<40 {
            let offset = Int(generator.next() % UInt64(expected.count))
            var buffer = [UInt8](repeating: 0, count: Int(generator.next() % 9000) + 1)
            let n = try buffer.withUnsafeMutableBytes { try mp3.read(at: Int64(offset), into: $0) }
            #expect(Array(buffer[0..<n]) == Array(expected[offset..<min(expected.count, offset + buffer.count)]), "at \(offset)")
        }
        // Deterministic, and only the output is left behind.
        let again = directory.path + "/again.pulsar"
        try BundlePacker.pack(directory: Corpus.demoFolder, to: again)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: again)))
        #expect(directory.listing() == ["again.pulsar", "demo.pulsar"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: Corpus.demoFolder + "/manifest.json")) == manifestBefore)
    }

    /// A folder whose manifest breaks a rule is refused with that rule, and nothing is written.
    @Test func packRefusesABadManifestAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path + "/in"
        try Fixture.copyTree(Corpus.demoFolder, to: folder)
        let manifest = try String(contentsOfFile: folder + "/manifest.json", encoding: .utf8)
        try directory.write(manifest.replacingOccurrences(of: "\"id\": \"heartbeat\"", with: "\"id\": \"heart-beat\""),
                            to: "in/manifest.json")
        try FileManager.default.createDirectory(atPath: directory.path + "/out", withIntermediateDirectories: true)
        let output = directory.path + "/out/bad.pulsar"
        #expect {
            try BundlePacker.pack(directory: folder, to: output)
        } throws: { ($0 as? BundleError)?.rule == .badPresetID }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/out")) == [])
    }

    /// A repacked folder with an edited file fails a strict load of the old hash: the hash covers content.
    @Test func theHashCoversContent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path + "/in"
        try Fixture.copyTree(Corpus.demoFolder, to: folder)
        let packed = try BundlePacker.pack(directory: folder, to: directory.path + "/a.pulsar")
        // Put the packed manifest (with its hash) into the folder: a strict folder load accepts it.
        let manifestText = JSONWriter().write(BundlePacker.withHash(try PresetBundle.open(folder).manifestDocument, packed.hash!))
        try directory.write(manifestText, to: "in/manifest.json")
        _ = try PresetBundle.open(folder, strict: true)
        // Change one byte of the animation: the strict load now refuses it.
        var animation = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/animation/verified.json")))
        animation[animation.count - 2] = UInt8(ascii: " ")
        try directory.write(animation, to: "in/animation/verified.json")
        #expect {
            try PresetBundle.open(folder, strict: true)
        } throws: { ($0 as? BundleError)?.rule == .hashMismatch }
        _ = try PresetBundle.open(folder)
    }
}

typealias SplitMix = SplitMix64
