import Foundation
import Testing
@testable import PulsarBundle

/// Audio is read through once when a bundle opens, so a damaged entry is refused whatever the
/// command; its size is enforced when it is streamed, and sources of one archive can be read on
/// different threads at once.
@Suite("Bundles: streaming audio")
struct StreamingTests {
    static func manifest(audio: [String]) -> String {
        Fixture.manifest(presets: audio.enumerated().map { i, src in
            #"{"id": "p\#(i)", "name": "P", "haptics": "haptics/tap.json", "audio": {"src": "\#(src)"}}"#
        })
    }

    /// A deflated audio entry declaring fewer or more bytes than it holds is refused with
    /// `sizeMismatch` when the bundle opens (the audio is read through once there), strict or not.
    @Test(arguments: [-1000, 1000])
    func lyingAudioIsRefusedAtOpen(_ lie: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let content = Fixture.noise(50_000)
        var audio = RawZip.Entry.deflated("audio/a.mp3", content)
        audio.declaredSize = UInt32(content.count + lie)
        let path = try Fixture.archive(Fixture.entries(manifest: Self.manifest(audio: ["audio/a.mp3"])) + [audio], in: directory)
        #expect {
            _ = try PresetBundle.open(path)
        } throws: { error in
            guard let error = error as? BundleError else { return false }
            return error.rule == .sizeMismatch && error.entry == "audio/a.mp3" && error.bundle == path
        }
        let hashed = Fixture.manifest(presets: [#"{"id": "p0", "name": "P", "haptics": "haptics/tap.json", "audio": {"src": "audio/a.mp3"}}"#],
                                      extra: "\"hash\": \"sha256:\(String(repeating: "a", count: 64))\"")
        let strictPath = try Fixture.archive(Fixture.entries(manifest: hashed) + [audio], in: directory, name: "strict.pulsar")
        #expect {
            try PresetBundle.open(strictPath, strict: true)
        } throws: { ($0 as? BundleError)?.rule == .sizeMismatch }
    }

    /// Two entry sources of one archive read on two threads at once give their own bytes.
    @Test func concurrentSourcesOfOneArchive() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let contents = [Fixture.noise(300_000, seed: 1), Fixture.noise(200_000, seed: 2)]
        let entries = Fixture.entries(manifest: Self.manifest(audio: ["audio/a.wav", "audio/b.wav"]))
            + [RawZip.Entry.deflated("audio/a.wav", contents[0]), RawZip.Entry("audio/b.wav", contents[1])]
        let bundle = try PresetBundle.open(try Fixture.archive(entries, in: directory))
        nonisolated(unsafe) let sources = bundle.presets.map { $0.audio!.bytes }
        nonisolated(unsafe) var results: [[UInt8]?] = [nil, nil]
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            var all: [UInt8] = []
            for round in 0..<3 {
                all = (try? Fixture.readAll(sources[i], chunk: 1000 + 777 * round + i)) ?? []
            }
            lock.lock()
            results[i] = all
            lock.unlock()
        }
        #expect(results[0] == contents[0])
        #expect(results[1] == contents[1])
    }
}
