import Foundation
import Testing

/// docs/ARCHITECTURE.md is the map a newcomer reads first: its dependency graph (the ```deps
/// block) must be the one Package.swift declares, and the docs must stay readable (no line over
/// 300 characters, the sections the map promises).
@Suite struct ArchitectureMapTests {
    /// The package's root: this file is Tests/PulsarSessionTests/ArchitectureMapTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ relative: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MapError("\(relative) cannot be read at \(url.path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    struct MapError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Package.swift, read as text

    /// Every `.target(…)` and `.executableTarget(…)` of Package.swift whose folder under Sources/
    /// holds Swift (the C shims and the system libraries are not on the map; test targets are
    /// not either), with its direct dependencies as written.
    static func packageGraph(_ text: String) throws -> [String: Set<String>] {
        let source = Array(text.unicodeScalars)
        var graph: [String: Set<String>] = [:]
        for call in calls(in: source, named: [".target(", ".executableTarget("]) {
            let arguments = String(String.UnicodeScalarView(call))
            guard let name = firstString(after: "name:", in: arguments) else {
                throw MapError("a target of Package.swift without a name: \(arguments.prefix(120))")
            }
            var dependencies: Set<String> = []
            if let list = bracketed(after: "dependencies:", in: arguments) {
                dependencies = Set(strings(in: list))
            }
            guard isSwiftTarget(name) else { continue }
            guard graph[name] == nil else { throw MapError("Package.swift declares target \(name) twice") }
            graph[name] = dependencies
        }
        return graph
    }

    /// Whether Sources/`name` holds a Swift file (a C target's folder holds C and headers only).
    static func isSwiftTarget(_ name: String) -> Bool {
        let folder = root.appendingPathComponent("Sources").appendingPathComponent(name)
        var isFolder: ObjCBool = false
        // A target elsewhere (`path:`) or not written yet is counted as Swift: the map must show it.
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue,
              let walker = FileManager.default.enumerator(atPath: folder.path) else { return true }
        for case let path as String in walker where path.hasSuffix(".swift") { return true }
        return false
    }

    /// The argument text of every call to one of `names` (the text between its parentheses),
    /// outside comments and string literals; parentheses inside strings and comments are skipped.
    static func calls(in source: [Unicode.Scalar], named names: [String]) -> [[Unicode.Scalar]] {
        let patterns = names.map { Array($0.unicodeScalars) }
        var result: [[Unicode.Scalar]] = []
        var i = 0
        while i < source.count {
            if let skipped = skipCommentOrString(source, at: i) {
                i = skipped
                continue
            }
            if let pattern = patterns.first(where: { matches(source, at: i, $0) }) {
                // The call's "(" is the pattern's last scalar; find its partner, keeping the
                // arguments' text without comments (strings kept whole).
                let open = i + pattern.count - 1
                var depth = 1
                var j = open + 1
                var arguments: [Unicode.Scalar] = []
                while j < source.count {
                    if let skipped = skipCommentOrString(source, at: j) {
                        if source[j] == "\"" { arguments += source[j..<skipped] }
                        j = skipped
                        continue
                    }
                    if source[j] == "(" || source[j] == "[" { depth += 1 }
                    if source[j] == ")" || source[j] == "]" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    arguments.append(source[j])
                    j += 1
                }
                result.append(arguments)
                i = j + 1
                continue
            }
            i += 1
        }
        return result
    }

    static func matches(_ source: [Unicode.Scalar], at i: Int, _ pattern: [Unicode.Scalar]) -> Bool {
        guard i + pattern.count <= source.count else { return false }
        for k in pattern.indices where source[i + k] != pattern[k] { return false }
        return true
    }

    /// When a comment or a string literal starts at `i`, the index just past it.
    static func skipCommentOrString(_ s: [Unicode.Scalar], at i: Int) -> Int? {
        if s[i] == "/", i + 1 < s.count, s[i + 1] == "/" {
            var j = i
            while j < s.count, s[j] != "\n" { j += 1 }
            return j
        }
        if s[i] == "/", i + 1 < s.count, s[i + 1] == "*" {
            var j = i + 2
            while j + 1 < s.count, !(s[j] == "*" && s[j + 1] == "/") { j += 1 }
            return min(j + 2, s.count)
        }
        if s[i] == "\"" {
            var j = i + 1
            while j < s.count, s[j] != "\"" {
                j += s[j] == "\\" ? 2 : 1
            }
            return min(j + 1, s.count)
        }
        return nil
    }

    /// The first string literal after `label` in `text`.
    static func firstString(after label: String, in text: String) -> String? {
        guard let at = text.range(of: label) else { return nil }
        return strings(in: String(text[at.upperBound...])).first
    }

    /// The text inside the `[…]` that follows `label`.
    static func bracketed(after label: String, in text: String) -> String? {
        guard let at = text.range(of: label), let open = text[at.upperBound...].firstIndex(of: "["),
              let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// The string literals of `text`, in order (a `package:` literal of a `.product` is not a
    /// target's name and is left out).
    static func strings(in text: String) -> [String] {
        var result: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "\"") {
            let before = rest[..<open].trimmingCharacters(in: .whitespaces)
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else { break }
            if !before.hasSuffix("package:") { result.append(String(rest[afterOpen..<close])) }
            rest = rest[rest.index(after: close)...]
        }
        return result
    }

    // MARK: The map's deps block

    /// The ```deps block of `markdown`: `Target: Dependency Dependency …`, one line a target.
    static func mapGraph(_ markdown: String) throws -> [String: Set<String>] {
        let lines = markdown.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```deps" }) else {
            throw MapError("docs/ARCHITECTURE.md has no ```deps block (the dependency graph, one 'Target: deps' line a target)")
        }
        guard let end = lines[(start + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```" }) else {
            throw MapError("docs/ARCHITECTURE.md's ```deps block is not closed")
        }
        var graph: [String: Set<String>] = [:]
        for (offset, raw) in lines[(start + 1)..<end].enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let number = start + 2 + offset
            guard let colon = line.firstIndex(of: ":") else {
                throw MapError("docs/ARCHITECTURE.md:\(number): '\(line)' is not 'Target: deps'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else {
                throw MapError("docs/ARCHITECTURE.md:\(number): '\(line)' does not start with one target name")
            }
            guard graph[name] == nil else { throw MapError("docs/ARCHITECTURE.md:\(number): \(name) is listed twice") }
            graph[name] = Set(line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init))
        }
        guard !graph.isEmpty else { throw MapError("docs/ARCHITECTURE.md's ```deps block is empty") }
        return graph
    }

    /// What differs between the two graphs, one line each (empty when they are the same).
    static func differences(package: [String: Set<String>], map: [String: Set<String>]) -> [String] {
        var lines: [String] = []
        for name in package.keys.sorted() where map[name] == nil {
            lines.append("\(name) is a target of Package.swift (depends on \(package[name]!.sorted().joined(separator: " "))) but not in the deps block")
        }
        for name in map.keys.sorted() where package[name] == nil {
            lines.append("\(name) is in the deps block but not a (Swift, non-test) target of Package.swift")
        }
        for name in package.keys.sorted() {
            guard let declared = package[name], let drawn = map[name], declared != drawn else { continue }
            let missing = declared.subtracting(drawn).sorted(), extra = drawn.subtracting(declared).sorted()
            var parts: [String] = []
            if !missing.isEmpty { parts.append("the deps block lacks \(missing.joined(separator: " "))") }
            if !extra.isEmpty { parts.append("the deps block adds \(extra.joined(separator: " ")), which Package.swift does not declare") }
            lines.append("\(name): \(parts.joined(separator: "; "))")
        }
        return lines
    }

    @Test("The deps block of docs/ARCHITECTURE.md is Package.swift's graph: the same targets, the same direct dependencies")
    func dependencyGraph() throws {
        let package = try Self.packageGraph(try Self.read("Package.swift"))
        // The parse found the package's targets, not nothing.
        try #require(package["PulsarCore"] != nil && package["PulsarEngine"] != nil && package["PulsarCLI"] != nil,
                     "Package.swift was not read: \(package.keys.sorted())")
        let map = try Self.mapGraph(try Self.read("docs/ARCHITECTURE.md"))
        let differences = Self.differences(package: package, map: map)
        #expect(differences.isEmpty, "docs/ARCHITECTURE.md's deps block differs from Package.swift:\n\(differences.joined(separator: "\n"))")
    }

    @Test("Package.swift is read as text: multi-line targets, comments and strings with brackets; test targets and system libraries left out")
    func packageReading() throws {
        let text = #"""
        let package = Package(
            products: [.library(name: "Ghost", targets: ["Ghost"])],
            targets: [
                .systemLibrary(name: "CThing", pkgConfig: "thing"),
                // A comment with .target(name: "NotATarget", dependencies: ["X"]) in it.
                .target(name: "Alpha"),
                .target(
                    name: "Beta",
                    dependencies: [
                        "Alpha", // the first ] of a comment
                        "CThing",
                        .product(name: "Gamma", package: "other"),
                    ],
                    linkerSettings: [.unsafeFlags(["-Xlinker", "--script=\(root)/a(b).map"])]
                ),
                .executableTarget(name: "Tool", dependencies: ["Beta"]),
                .testTarget(name: "BetaTests", dependencies: ["Beta"]),
            ]
        )
        """#
        let graph = try Self.packageGraph(text)
        #expect(graph == ["Alpha": [], "Beta": ["Alpha", "CThing", "Gamma"], "Tool": ["Beta"]])
    }

    @Test("The docs read as a map: no line over 300 characters, and the sections on threads, the walk of a command and the glossary")
    func readable() throws {
        for file in ["docs/ARCHITECTURE.md", "docs/decisions.md"] {
            let text = try Self.read(file)
            for (i, line) in text.components(separatedBy: "\n").enumerated() where line.count > 300 {
                Issue.record("\(file):\(i + 1): \(line.count) characters (at most 300): \(line.prefix(80))…")
            }
        }
        let headings = try Self.read("docs/ARCHITECTURE.md").components(separatedBy: "\n").filter { $0.hasPrefix("#") }
        #expect(headings.contains { $0.contains("Threads") }, "no heading of docs/ARCHITECTURE.md names the Threads")
        #expect(headings.contains { $0.lowercased().contains("walk") }, "no heading of docs/ARCHITECTURE.md names the walk of a command")
        #expect(headings.contains { $0.contains("Glossary") }, "no heading of docs/ARCHITECTURE.md is the Glossary")
    }

    @Test("The products an app depends on carry no unsafe flags: PulsarSession and every module beneath it; only our own binaries' modules do")
    func noUnsafeFlagsForApps() throws {
        let text = try Self.read("Package.swift")
        let source = Array(text.unicodeScalars)
        var unsafe: Set<String> = []
        for call in Self.calls(in: source, named: [".target(", ".executableTarget("]) {
            let arguments = String(String.UnicodeScalarView(call))
            if let name = Self.firstString(after: "name:", in: arguments), arguments.contains("unsafeFlags") { unsafe.insert(name) }
        }
        let graph = try Self.packageGraph(text)
        var closure: Set<String> = []
        var pending = ["PulsarSession"]
        while let next = pending.popLast() {
            guard closure.insert(next).inserted else { continue }
            pending += graph[next] ?? []
        }
        #expect(closure.contains("PulsarEngine") && closure.contains("PulsarAudio"), "the closure is read: \(closure.sorted())")
        #expect(closure.isDisjoint(with: unsafe), "an app's modules with unsafe flags: \(closure.intersection(unsafe).sorted())")
        // PulsarTestSupport has no product; PulsarC is the C library (its linker's version script
        // and soname), which C programs link, not Swift packages; PulsarCLI is the `pulsar`
        // executable (linked with lld), which no package can depend on.
        #expect(unsafe == ["PulsarTestSupport", "PulsarC", "PulsarCLI"], "targets with unsafe flags: \(unsafe.sorted())")
    }
}
