import Foundation
import Testing

/// docs/ARCHITECTURE.md states how many public declarations `PulsarEngine` has and in how many
/// top-level types; this counts them from the sources so that the figure cannot drift from the
/// code. A declaration counts when its line declares something `public` and it lies outside a
/// type marked `@_spi` (and outside extensions of such types).
@Suite struct PublicSurfaceTests {
    struct Surface: Equatable {
        var declarations = 0
        var types: Set<String> = []
    }

    /// The names of the `@_spi(…) public` types declared in `sources`.
    static func spiTypes(_ sources: [String]) -> Set<String> {
        let pattern = /^\s*@_spi\([^)]*\)\s*public\s+(?:final\s+)?(?:class|struct|enum|protocol|actor)\s+(\w+)/
        var names: Set<String> = []
        for line in sources.flatMap({ $0.split(separator: "\n", omittingEmptySubsequences: false) }) {
            if let m = String(line).firstMatch(of: pattern) { names.insert(String(m.1)) }
        }
        return names
    }

    static func count(_ sources: [String]) -> Surface {
        let spi = spiTypes(sources)
        let opening = /^\s*(?:@_spi\([^)]*\)\s*)?(?:public\s+)?(?:final\s+)?(?:class|struct|enum|extension|protocol)\s+(\w+)/
        let isPublic = /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:nonisolated\s+)?(?:final\s+)?public\s/
        let topType = /^(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:final\s+)?(?:class|struct|enum|protocol|actor|typealias)\s+(\w+)/
        var surface = Surface()
        for source in sources {
            var depth = 0
            var skipping = false
            for raw in source.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = String(raw.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                if !skipping {
                    if depth == 0, let m = line.firstMatch(of: opening), spi.contains(String(m.1)) || line.contains("@_spi") {
                        skipping = true
                    } else if line.firstMatch(of: isPublic) != nil, !line.contains("@_spi") {
                        surface.declarations += 1
                        if let t = line.firstMatch(of: topType) { surface.types.insert(String(t.1)) }
                    }
                }
                depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
                if skipping, depth <= 0, line.contains("}") { skipping = false }
            }
        }
        return surface
    }

    static func engineSources() throws -> [String] {
        let folder = ArchitectureMapTests.root.appendingPathComponent("Sources/PulsarEngine")
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else {
            throw ArchitectureMapTests.MapError("Sources/PulsarEngine cannot be listed")
        }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            try ArchitectureMapTests.read("Sources/PulsarEngine/\($0)")
        }
    }

    @Test("The counting rule: members of @_spi types and of their extensions, @_spi members and internal lines do not count")
    func countingRule() {
        let source = """
        public struct A {
            public var x = 0
            var hidden = 1
            @_spi(Internals) public func probe() {}
        }
        @_spi(Internals) public final class B {
            public func f() {}
            public var g: Int { 0 }
        }
        extension B {
            public func h() {}
        }
        extension A {
            @inlinable public func k() {} // public in a comment { is not a brace
        }
        public enum C: Int { case one }
        """
        let surface = Self.count([source])
        #expect(surface == Surface(declarations: 4, types: ["A", "C"]))
    }

    @Test("ARCHITECTURE.md states PulsarEngine's public surface as the sources have it")
    func statedCount() throws {
        let surface = Self.count(try Self.engineSources())
        let map = try ArchitectureMapTests.read("docs/ARCHITECTURE.md").split(separator: "\n").joined(separator: " ")
        let stated = try #require(map.firstMatch(of: /need: (\d+) public\s+declarations in (\d+) top-level types/),
                                  "the map states the count")
        #expect(Int(stated.1) == surface.declarations, "public declarations: the map says \(stated.1), the sources have \(surface.declarations)")
        #expect(Int(stated.2) == surface.types.count, "top-level types: the map says \(stated.2), the sources have \(surface.types.count): \(surface.types.sorted())")
    }
}
