import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottieRender
import PulsarPlot
import PulsarTestSupport
import Testing

/// `pulsar plot` through the built executable: every corpus preset and both demo presets give a
/// PNG of the requested size and an SVG that parses; the picture is the library's figure; bad
/// input is one line, the documented exit code, and no file.
@Suite("Plot CLI")
struct PlotCLITests {
    static let presetsAvailable = SharedCorpus.available("pulsar-presets")
    static let bundleAvailable = SharedCorpus.available("bundles/demo.pulsar")

    /// Checks that `png` is a PNG of `width × height` and `svg` a well-formed SVG of that size.
    static func expectPictures(png: String, svg: String, width: Int, height: Int, _ what: String) throws {
        let size = ImageFiles.pngSize(Array(try Data(contentsOf: URL(fileURLWithPath: png))))
        #expect(size?.width == width && size?.height == height, "\(what): PNG \(String(describing: size))")
        let root = ImageFiles.svgRoot(try Data(contentsOf: URL(fileURLWithPath: svg)))
        #expect(root?.name == "svg" && root?.width == "\(width)px" && root?.height == "\(height)px", "\(what): SVG \(String(describing: root))")
    }

    @Test("plot of every corpus Pulsar preset writes a 400×300 PNG and an SVG that parses",
          .enabled(if: presetsAvailable, "needs ../shared/corpus"))
    func corpusPresets() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let files = try SharedCorpus.requiredFiles(in: "pulsar-presets", ext: "json")
        for file in files {
            let name = SharedCorpus.name(file)
            let png = dir.file("p.png"), svg = dir.file("p.svg")
            let a = try CLI.run(["plot", file, "-o", png, "--size", "400x300", "--quiet"])
            let b = try CLI.run(["plot", file, "-o", svg, "--size", "400x300", "--quiet"])
            #expect(a.status == 0 && b.status == 0 && a.stderr.isEmpty && b.stderr.isEmpty, "\(name): \(a) \(b)")
            guard a.status == 0, b.status == 0 else { continue }
            try Self.expectPictures(png: png, svg: svg, width: 400, height: 300, name)
        }
    }

    @Test("plot of both presets of demo.pulsar (audio, animation, spectrum) writes the PNG and SVG asked for",
          .enabled(if: bundleAvailable, "needs ../shared/corpus"))
    func demoBundle() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = try SharedCorpus.path("bundles/demo.pulsar")
        for (preset, extra) in [("verified", [String]()), ("heartbeat", []), ("verified", ["--spectrum", "--layout", "mix"])] {
            let png = dir.file("d.png"), svg = dir.file("d.svg")
            let a = try CLI.run(["plot", bundle, "--preset", preset, "-o", png, "--size", "480x360"] + extra)
            let b = try CLI.run(["plot", bundle, "--preset", preset, "-o", svg, "--size", "480x360"] + extra)
            #expect(a.status == 0 && b.status == 0, "\(preset) \(extra): \(a) \(b)")
            #expect(a.stderrLines == ["wrote \(png): 480×360 png, \(preset == "verified" ? (extra.isEmpty ? 4 : 6) : 3) panels"], "\(a)")
            try Self.expectPictures(png: png, svg: svg, width: 480, height: 360, "\(preset) \(extra)")
        }
    }

    @Test("the PNG is the library's figure of the pattern, pixel for pixel, with the transient in the column of its time")
    func samePictureAsTheLibrary() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let json = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.3},{"time":600,"value":0.3}],"#
            + #""frequency":[{"time":0,"value":0.5}]},"discretePattern":[{"time":400,"amplitude":0.9,"frequency":0.2}]}"#
        let input = try dir.write(json, to: "one.json")
        let out = dir.file("one.png")
        let r = try CLI.run(["plot", input, "-o", out, "--size", "800x500", "--to", "600"])
        #expect(r.status == 0, "\(r)")

        let pattern = try PatternLoader().load(contentsOf: input).pattern
        let preset = PresetHandle(id: "one", name: "one", duration: 0, pattern: pattern)
        let options = PresetPlot.Options(width: 800, height: 500, settings: MixSettings(layout: .haptic), range: PlaybackRange(to: 600))
        let figure = try PresetPlot(preset: preset, options: options).figure()
        let expected = dir.file("expected.png")
        try figure.write(to: expected)
        let cli = try PNGWriter.readRGBA(from: out), library = try PNGWriter.readRGBA(from: expected)
        #expect(cli.width == 800 && cli.height == 500 && cli.rgba == library.rgba)

        let g = try figure.geometry(), p = g.panels[0]
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(cli.rgba[((y * 800 + x) * 4)..<((y * 800 + x) * 4 + 3)]) }
        let transient = PresetPlot.Palette.transient, stem = [transient.red, transient.green, transient.blue]
        #expect(pixel(g.column(400), p.row(0.6)) == stem)
        #expect(pixel(g.column(400) + 30, p.row(0.6)) != stem && pixel(g.column(400) - 30, p.row(0.6)) != stem)
    }

    @Test("bad input: one stderr line, the documented exit code, and no file left", arguments: [
        (["MISSING", "-o", "OUT/x.png", "--size", "400x300"], Int32(66), "missing input file"),
        (["-o", "OUT/x.png"], 64, "no INPUT"),
        (["INPUT", "--size", "400x300"], 64, "missing -o"),
        (["INPUT", "-o", "OUT/x.jpg"], 64, "unknown extension"),
        (["INPUT", "-o", "OUT/x"], 64, "no extension"),
        (["INPUT", "-o", "OUT/x.png", "--size", "63x300"], 64, "a side under 64"),
        (["INPUT", "-o", "OUT/x.png", "--size", "400x9000"], 64, "a side over 8192"),
        (["INPUT", "-o", "OUT/x.png", "--size", "400"], 64, "not WxH"),
        (["INPUT", "-o", "OUT/x.png", "--size", "400xabc"], 64, "not a number"),
        (["INPUT", "-o", "OUT/x.png", "--size", "64x64"], 64, "too small for the panels"),
        (["INPUT", "-o", "OUT/x.png", "--to", "99999"], 64, "--to past the end"),
        (["INPUT", "-o", "OUT/x.png", "--from", "500", "--to", "100"], 64, "--from after --to"),
        (["INPUT", "-o", "OUT/x.png", "--layout", "nonsense"], 64, "bad layout"),
        (["INPUT", "-o", "OUT/x.png", "--rate", "12"], 64, "bad rate"),
        (["INPUT", "-o", "OUT/x.png", "--bogus"], 64, "unknown option"),
        (["BAD", "-o", "OUT/x.png"], 65, "a pattern that breaks a rule"),
        (["INPUT", "-o", "OUT/missing-folder/x.png"], 74, "an output that cannot be written"),
    ])
    func badInput(arguments: [String], code: Int32, what: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let input = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":1},{"time":1000,"value":1}],"frequency":[{"time":0,"value":0.5}]},"discretePattern":[]}"#,
                                  to: "in.json")
        let bad = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":7}]}}"#, to: "bad.json")
        let out = try dir.directory("out")
        let named = ["INPUT": input, "BAD": bad, "MISSING": dir.file("missing.json")]
        let words = arguments.map { named[$0] ?? $0.replacingOccurrences(of: "OUT/", with: out + "/") }
        let r = try CLI.run(["plot"] + words)
        #expect(r.status == code, "\(what): \(r)")
        #expect(r.stderrLines.count == 1, "\(what): \(r.stderr)")
        #expect(dir.contents(of: out).isEmpty, "\(what): left \(dir.contents(of: out))")
    }

    @Test("--help describes the options; pulsar --help lists plot")
    func help() throws {
        let r = try CLI.run(["plot", "--help"])
        #expect(r.status == 0 && r.stdout.contains("usage: pulsar plot INPUT") && r.stdout.contains("--spectrum"))
        #expect(try CLI.run(["--help"]).stdout.contains("  plot "))
    }
}
