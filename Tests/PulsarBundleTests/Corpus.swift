import Foundation
import PulsarTestSupport

/// The bundles in `../shared/corpus/bundles` (relative to the package root), read in place:
/// never copied into the project. The tests that need them are reported as skipped when they are
/// absent, and fail when they are absent under `CI=true`.
enum Corpus {
    /// Whether the corpus tests run: the bundles are present, or required (`CI=true`).
    static let available = SharedCorpus.available("bundles")

    static var demoArchive: String { get throws { try SharedCorpus.path("bundles/demo.pulsar") } }
    static var demoFolder: String { get throws { try SharedCorpus.path("bundles/demo-unpacked") } }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-bundle-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `name` (creating folders) and returns the file's path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Array(text.utf8), to: name)
    }

    /// Names of the files directly inside the directory.
    func listing() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
