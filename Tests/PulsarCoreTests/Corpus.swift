import Foundation
import PulsarCore

/// The real-world input files in `../shared/corpus` (relative to the package root), read in place:
/// never copied into the project. Tests that need them are enabled only when the folder exists.
enum Corpus {
    /// The package root: this file is `<root>/Tests/PulsarCoreTests/Corpus.swift`.
    static let packageRoot: String = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // PulsarCoreTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .standardizedFileURL.path
    }()

    /// Absolute path of the corpus, or nil when it is absent.
    static let root: String? = {
        let path = URL(fileURLWithPath: packageRoot).appendingPathComponent("../shared/corpus").standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        return path
    }()

    /// The condition text used by `.enabled(if: Corpus.root != nil, ...)`.
    static let absentNote = "corpus absent: ../shared/corpus"

    /// Prints a note when the corpus is absent, so a skipped test says why in the log.
    static func noteIfAbsent(_ test: String = #function) {
        if root == nil { print("note: \(test) skipped: \(absentNote)") }
    }

    /// Sorted absolute paths of the files under `folder` (recursively) whose name ends in
    /// `.ext` (case-insensitive); empty when the corpus or the folder is absent.
    static func files(in folder: String, ext: String) -> [String] {
        guard let root else { return [] }
        let base = URL(fileURLWithPath: root).appendingPathComponent(folder).path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        let suffix = "." + ext.lowercased()
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.lowercased().hasSuffix(suffix) else { continue }
            let path = base + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// `path` relative to the corpus root, for readable failure messages.
    static func name(_ path: String) -> String {
        guard let root, path.hasPrefix(root + "/") else { return path }
        return String(path.dropFirst(root.count + 1))
    }
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
