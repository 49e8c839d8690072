import Foundation
import PulsarCore
import PulsarTestSupport

/// The real-world input files in `../shared/corpus` (relative to the package root), read in place:
/// never copied into the project. Tests that need them carry
/// `.enabled(if: Corpus.available, "needs ../shared/corpus")`: reported as skipped when the folder
/// is absent, run (and failing) when it is absent under `CI=true`.
enum Corpus {
    /// Absolute path of the corpus, or nil when it is absent.
    static let root = SharedCorpus.root

    /// Whether corpus tests run: present, or required under CI (then their absence fails them).
    static let available = SharedCorpus.available

    /// The files under `folder` ending in `.ext`; throws when there are none, so a loop over them
    /// never passes having checked nothing.
    static func files(in folder: String, ext: String) throws -> [String] { try SharedCorpus.requiredFiles(in: folder, ext: ext) }

    /// The absolute path of `relative` inside the corpus; throws when it is absent.
    static func path(_ relative: String) throws -> String { try SharedCorpus.path(relative) }

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
