import Foundation

/// The shared real-world corpus at `../shared/corpus`, beside the project root, read in place
/// (never copied into the project). Absent in a user's own clone: tests that need it are then reported as skipped
/// (`.enabled(if: SharedCorpus.available, "needs ../shared/corpus")`), and fail under `CI=true`.
public enum SharedCorpus {
    /// The project root: this file is `<root>/Sources/PulsarTestSupport/SharedCorpus.swift`.
    public static let projectRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .standardizedFileURL.path

    /// Absolute path of the corpus, or nil when it is absent. `PULSAR_CORPUS` names another
    /// folder (a run against a missing one shows what a clone without the corpus reports).
    public static let root: String? = {
        let given = ProcessInfo.processInfo.environment["PULSAR_CORPUS"].flatMap { $0.isEmpty ? nil : $0 }
        let path = given.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? URL(fileURLWithPath: projectRoot).appendingPathComponent("../shared/corpus").standardizedFileURL.path
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue ? path : nil
    }()

    /// Whether tests that need the corpus should run: when it is present, and always under CI
    /// (`CI=true`), where a missing corpus must fail those tests rather than skip them.
    public static let available: Bool = root != nil || ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether tests that need `relative` (a file or folder inside the corpus) should run: when it
    /// exists, and always under CI (`CI=true`), where its absence fails them. For a test's
    /// `.enabled(if:)` trait, so a run without the corpus reports the test as skipped.
    public static func available(_ relative: String) -> Bool {
        exists(relative) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// Whether `relative` exists inside the corpus.
    public static func exists(_ relative: String) -> Bool {
        guard let root else { return false }
        return FileManager.default.fileExists(atPath: root + "/" + relative)
    }

    /// What a test throws when the corpus (or a file in it) it needs is absent: it then fails
    /// instead of passing without having checked anything.
    public struct Missing: Error, CustomStringConvertible {
        public let relative: String
        public var description: String {
            "../shared/corpus/\(relative) is absent (the corpus is required under CI=true; without CI the test is skipped)"
        }
    }

    /// The absolute path of `relative` inside the corpus; throws `Missing` when it is absent.
    public static func path(_ relative: String) throws -> String {
        guard let root, exists(relative) else { throw Missing(relative: relative) }
        return root + "/" + relative
    }

    /// `files(in:ext:)`, but throwing `Missing` when it finds none: a loop over the corpus
    /// never passes by having nothing to check.
    public static func requiredFiles(in folder: String, ext: String) throws -> [String] {
        let found = files(in: folder, ext: ext)
        if found.isEmpty { throw Missing(relative: folder + "/*." + ext) }
        return found
    }

    /// Sorted absolute paths of the files under `folder` (recursively) whose name ends in
    /// `.ext` (case-insensitive); empty when the corpus or the folder is absent.
    public static func files(in folder: String, ext: String) -> [String] {
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
    public static func name(_ path: String) -> String {
        guard let root, path.hasPrefix(root + "/") else { return path }
        return String(path.dropFirst(root.count + 1))
    }
}
