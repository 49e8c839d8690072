import Foundation
import Testing

/// docs/ARCHITECTURE.md is the map a newcomer reads first, so it must stay short and true: at
/// most 2,500 words, its module list the Swift targets Package.swift declares, its command list
/// the commands `pulsar` has (Sources/PulsarCLI/CommandTable.swift), and every path of its
/// "to change X, open Y" index a file or folder of the checkout. (Its dependency graph is
/// compared with Package.swift by Tests/PulsarSessionTests/ArchitectureMapTests.swift.)
@Suite struct ArchitectureMapTests {
    /// The package's root: this file is Tests/PulsarCLITests/ArchitectureMapTests.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let maximumWords = 2500
    static let minimumIndexRows = 20

    /// The one folder an index row may name before it exists: the content resolution (a
    /// bundle preset, a pattern file, a `.haptic` clip, audio with derive, an actuator by name
    /// turned into what a session plays) is being moved there. Only paths under it are let
    /// off when missing; once it exists, its paths are checked like every other.
    static let folderBeingMade = "Sources/PulsarSession/Content/"

    struct MapError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func read(_ relative: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MapError("\(relative) cannot be read at \(url.path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func exists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path)
    }

    // MARK: Reading

    /// Words as `wc -w` counts them: runs of anything but ASCII white space.
    static func wordCount(_ text: String) -> Int {
        text.utf8.split(whereSeparator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }).count
    }

    /// The lines between `<!-- name -->` and `<!-- /name -->`.
    static func section(_ name: String, of markdown: String) throws -> [String] {
        let lines = markdown.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(of: "<!-- \(name) -->") else {
            throw MapError("docs/ARCHITECTURE.md has no '<!-- \(name) -->' marker")
        }
        guard let end = lines[(start + 1)...].firstIndex(of: "<!-- /\(name) -->") else {
            throw MapError("docs/ARCHITECTURE.md's '<!-- \(name) -->' is not closed by '<!-- /\(name) -->'")
        }
        return Array(lines[(start + 1)..<end])
    }

    /// The `code spans` of `text`, in order.
    static func codeSpans(_ text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// A Markdown table's body rows, each as its cells (the header row and the `---` row left out).
    static func tableRows(_ lines: [String]) -> [[Substring]] {
        let rows = lines.filter { $0.hasPrefix("|") }.map { line in
            line.dropFirst().split(separator: "|", omittingEmptySubsequences: false).dropLast(line.hasSuffix("|") ? 1 : 0)
                .map { $0.trimmingCharacters(in: .whitespaces)[...] }
        }
        return Array(rows.dropFirst().filter { !($0.first ?? "").hasPrefix("---") })
    }

    /// The names of Package.swift's `.target(name: "Pulsar…")` and `.executableTarget(name:
    /// "Pulsar…")`, comments left out: the Swift modules (the C targets are named `C…`).
    static func packageModules(_ text: String) -> [String] {
        let code = text.components(separatedBy: "\n").map { line in
            line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
        }.joined(separator: "\n")
        return code.matches(of: /\.(?:target|executableTarget)\(\s*name:\s*"(Pulsar\w*)"/).map { String($0.1) }
    }

    /// The command names of `CLICommand.all`, as CommandTable.swift declares them.
    static func cliCommands(_ text: String) -> [String] {
        text.matches(of: /CLICommand\(\s*name:\s*"([a-z][a-z0-9-]*)"/).map { String($0.1) }
    }

    // MARK: The checks

    @Test("docs/ARCHITECTURE.md is at most 2,500 words, counted as wc -w counts")
    func short() throws {
        #expect(Self.wordCount("a  b\tc\nd-e `f`\n") == 5)
        let words = Self.wordCount(try Self.read("docs/ARCHITECTURE.md"))
        #expect(words > 500, "the map was read: \(words) words")
        #expect(words <= Self.maximumWords, "docs/ARCHITECTURE.md has \(words) words (at most \(Self.maximumWords)): move rationale to docs/decisions.md")
    }

    @Test("The module list of docs/ARCHITECTURE.md is Package.swift's Swift targets")
    func modules() throws {
        let declared = Self.packageModules(try Self.read("Package.swift"))
        try #require(declared.contains("PulsarCore") && declared.contains("PulsarCLI") && declared.contains("PulsarC"),
                     "Package.swift was read: \(declared)")
        #expect(Set(declared).count == declared.count, "a target declared twice: \(declared)")
        let listed = Self.tableRows(try Self.section("modules", of: try Self.read("docs/ARCHITECTURE.md")))
            .compactMap { $0.first.flatMap { Self.codeSpans($0).first } }
        #expect(Set(listed).count == listed.count, "a module listed twice in docs/ARCHITECTURE.md: \(listed)")
        let missing = Set(declared).subtracting(listed).sorted(), extra = Set(listed).subtracting(declared).sorted()
        #expect(missing.isEmpty, "targets of Package.swift not in the map's module list: \(missing)")
        #expect(extra.isEmpty, "modules in the map that Package.swift does not declare: \(extra)")
    }

    @Test("The command list of docs/ARCHITECTURE.md is the commands of CommandTable.swift")
    func commands() throws {
        let declared = Self.cliCommands(try Self.read("Sources/PulsarCLI/CommandTable.swift"))
        try #require(declared.contains("render") && declared.contains("play") && declared.count >= 10,
                     "CommandTable.swift was read: \(declared)")
        let listed = try Self.section("commands", of: try Self.read("docs/ARCHITECTURE.md"))
            .flatMap { Self.codeSpans($0[...]) }
        #expect(listed == declared, "the map lists \(listed); pulsar has \(declared) (in `pulsar --help` order)")
    }

    @Test("The index of docs/ARCHITECTURE.md has at least 20 rows, each naming paths that exist")
    func index() throws {
        let rows = Self.tableRows(try Self.section("index", of: try Self.read("docs/ARCHITECTURE.md")))
        #expect(rows.count >= Self.minimumIndexRows, "the index has \(rows.count) rows (at least \(Self.minimumIndexRows))")
        for row in rows {
            let what = row.first.map(String.init) ?? ""
            let paths = row.count > 1 ? Self.codeSpans(row[1]) : []
            #expect(!paths.isEmpty, "the index row '\(what)' names no path")
            for path in paths where !Self.exists(path) {
                // Tolerated only while the content folder is being made (see `folderBeingMade`).
                if path.hasPrefix(Self.folderBeingMade) && !Self.exists(Self.folderBeingMade) { continue }
                Issue.record("the index row '\(what)' names \(path), which does not exist")
            }
        }
    }
}
