import Foundation
import PulsarTestSupport

/// The bundles in `../shared/corpus/bundles` (relative to the package root), read in place:
/// never copied into the project. Tests that need them are enabled only when they exist, and say
/// so in the log when they are skipped.
enum Corpus {
    /// Absolute path of the corpus, or nil when it (or its bundles) is absent.
    static let root: String? = SharedCorpus.root.flatMap { FileManager.default.fileExists(atPath: $0 + "/bundles") ? $0 : nil }

    static let absentNote = "corpus absent: ../shared/corpus/bundles"

    /// Prints a note when the corpus is absent, so a skipped test says why in the log.
    static func noteIfAbsent(_ test: String = #function) {
        if root == nil { print("note: \(test) skipped: \(absentNote)") }
    }

    static var demoArchive: String { root! + "/bundles/demo.pulsar" }
    static var demoFolder: String { root! + "/bundles/demo-unpacked" }
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
