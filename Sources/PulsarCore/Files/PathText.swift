/// A path's parts, taken from its text as `NSString`'s path methods take them (which live in
/// Foundation, not FoundationEssentials): no file system access, no making relative paths
/// absolute, so a message names a file as the user wrote it.
package enum PathText {
    /// The last component: `a/b.json` → `b.json`; trailing slashes ignored.
    package static func lastComponent(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.reversed().drop { $0 == "/" }.reversed()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return trimmed == "/" ? "/" : String(trimmed[trimmed.index(after: slash)...])
    }

    /// A name without its extension: `b.input.wav` → `b.input`; `.hidden` and `b` unchanged.
    package static func deletingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, !name[dot...].contains("/") else { return name }
        return String(name[..<dot])
    }

    /// A file's name without its folder and extension: `a/b.input.wav` → `b.input`.
    package static func stem(_ path: String) -> String { deletingExtension(lastComponent(path)) }

    /// The extension of the last component, without its dot (`a/b.WAV` → `WAV`), or "".
    package static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path), stem = deletingExtension(name)
        return stem.count == name.count ? "" : String(name.dropFirst(stem.count + 1))
    }

    /// `path` with `.` and `..` components resolved as text (no links followed), as
    /// `URL.standardized` does: `a/./b/../c` → `a/c`; a `..` above the root stays at the root.
    package static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            if part == "..", path.hasPrefix("/") { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// The folder that holds `path`: `a/b` → `a`, `b` → `.`, `/b` → `/`.
    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `name` in the folder that holds `path`: `logs/run.jsonl`, `x.wav` → `logs/x.wav`;
    /// `run.jsonl`, `x.wav` → `x.wav`; `/run.jsonl` → `/x.wav`.
    package static func sibling(of path: String, named name: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }
}
