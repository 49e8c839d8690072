import Foundation

/// The shared real-world corpus at `../shared/corpus`, beside the project root, read in place
/// (never copied into the project). Absent in a user's own clone: tests then skip with a note.
public enum SharedCorpus {
    /// The project root: this file is `<root>/Sources/PulsarTestSupport/SharedCorpus.swift`.
    public static let projectRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .standardizedFileURL.path

    /// Absolute path of the corpus, or nil when it is absent.
    public static let root: String? = {
        let path = URL(fileURLWithPath: projectRoot).appendingPathComponent("../shared/corpus").standardizedFileURL.path
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue ? path : nil
    }()

    /// Whether tests that need the corpus should run: when it is present, and always under CI
    /// (`CI=true`), where a missing corpus must fail those tests rather than skip them.
    public static let available: Bool = root != nil || ProcessInfo.processInfo.environment["CI"] == "true"

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
