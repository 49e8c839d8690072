import Foundation
import PulsarLottieRender
import PulsarTestSupport
import Testing

/// `pulsar frame` and `pulsar keypaths` on the corpus animations.
@Suite("Lottie CLI")
struct LottieCLITests {
    /// Whether the tests of the corpus animations run: present, or required (`CI=true`).
    static let lottieAvailable = SharedCorpus.available("lottie/Switch.json")

    /// `../shared/corpus/lottie`; throws when the corpus is absent.
    static var lottie: String {
        get throws { URL(fileURLWithPath: try SharedCorpus.path("lottie/Switch.json")).deletingLastPathComponent().path }
    }

    @Test("frame Switch.json --at 500 --set '**.Fill 1.Color=#00FF00' recolors the switch's fills green and nothing else",
          .enabled(if: lottieAvailable, "needs ../shared/corpus"))
    func recolorsSwitch() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = (try Self.lottie) + "/Switch.json"
        let plain = try CLI.run(["frame", input, "--at", "500", "-o", dir.file("plain.png")])
        let green = try CLI.run(["frame", input, "--at", "500", "--set", "**.Fill 1.Color=#00FF00", "-o", dir.file("green.png")])
        #expect(plain.status == 0 && green.status == 0, "\(plain) \(green)")
        let a = try PNGWriter.readRGBA(from: dir.file("plain.png")), b = try PNGWriter.readRGBA(from: dir.file("green.png"))
        #expect(a.width == b.width && a.height == b.height && a.width > 0)
        var becameGreen = 0, wasGreen = 0, changedElsewhere = 0, opaque = 0
        for i in stride(from: 0, to: a.rgba.count, by: 4) {
            let before = Array(a.rgba[i..<(i + 4)]), after = Array(b.rgba[i..<(i + 4)])
            if before[3] == 255 { opaque += 1 }
            if before[1] > 200 && before[0] < 60 && before[2] < 60 { wasGreen += 1 }
            if before[3] == 255 && after == [0, 255, 0, 255] && before != after { becameGreen += 1 }
            if before[3] == 0 && after != before { changedElsewhere += 1 }
        }
        #expect(wasGreen == 0, "the original has no pure green")
        #expect(becameGreen > opaque / 2, "most opaque pixels are fill: \(becameGreen) of \(opaque) turned #00FF00")
        #expect(changedElsewhere == 0, "transparent pixels stay transparent")
    }

    @Test("keypaths lists layers, groups and properties; a property rlottie cannot apply is one line, exit 65, no file",
          .enabled(if: lottieAvailable, "needs ../shared/corpus"))
    func keypathsAndRefusals() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = (try Self.lottie) + "/Switch.json"
        let list = try CLI.run(["keypaths", input])
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix("Fill 1.Color") })
        #expect(lines.contains { $0.hasSuffix(".Transform.Position") })
        let bad = try CLI.run(["frame", input, "--at", "0", "--set", "**.Transform.Anchor Point=1,1", "-o", dir.file("x.png")])
        #expect(bad.status == 65, "\(bad)")
        #expect(bad.stderrLines.count == 1 && bad.stderr.contains("[unsupported-by-rlottie]"), "\(bad.stderr)")
        #expect(!dir.exists(dir.file("x.png")))
        let opacity = try CLI.run(["frame", input, "--at", "0", "--set", "**.Transform.Opacity=50", "-o", dir.file("o.png")])
        #expect(opacity.status == 65 && opacity.stderrLines.count == 1, "\(opacity)")
        #expect(opacity.stderr.contains(".Transform.Opacity: rlottie does not apply transform opacity")
            && opacity.stderr.contains("would do nothing"), "\(opacity.stderr)")
        #expect(!dir.exists(dir.file("o.png")))
        let wrongType = try CLI.run(["frame", input, "--at", "0", "--set", "**.Fill 1.Color=12", "-o", dir.file("y.png")])
        #expect(wrongType.status == 64 && !dir.exists(dir.file("y.png")), "\(wrongType)")
        let none = try CLI.run(["frame", input, "-o", dir.file("z.png")])
        #expect(none.status == 64)
    }

    @Test("--size and --mode: a 2:1 canvas letterboxes the square composition with transparent sides",
          .enabled(if: lottieAvailable, "needs ../shared/corpus"))
    func sizeAndMode() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["frame", (try Self.lottie) + "/Switch.json", "--frame", "10", "--size", "400x200", "-o", dir.file("w.png")])
        #expect(r.status == 0, "\(r)")
        let png = try PNGWriter.readRGBA(from: dir.file("w.png"))
        #expect(png.width == 400 && png.height == 200)
        let leftColumn = (0..<200).map { png.rgba[($0 * 400 + 5) * 4 + 3] }
        #expect(leftColumn.allSatisfy { $0 == 0 }, "the side bands are transparent")
    }
}
