import Foundation
import PulsarCore
import PulsarTestSupport

/// The real-world input files in `../shared/corpus` (relative to the package root), read in place:
/// never copied into the project. Tests that need them are enabled only when the folder exists.
enum Corpus {
    /// Absolute path of the corpus, or nil when it is absent.
    static let root = SharedCorpus.root

    /// Whether corpus tests run: present, or required under CI (then their absence fails them).
    static let available = SharedCorpus.available

    /// The condition text used by `.enabled(if: Corpus.root != nil, ...)`.
    static let absentNote = "corpus absent: ../shared/corpus"

    /// Prints a note when the corpus is absent, so a skipped test says why in the log.
    static func noteIfAbsent(_ test: String = #function) {
        if root == nil { print("note: \(test) skipped: \(absentNote)") }
    }

    static func files(in folder: String, ext: String) -> [String] { SharedCorpus.files(in: folder, ext: ext) }

    static func name(_ path: String) -> String { SharedCorpus.name(path) }
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the directory and returns the file's path.
    func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
