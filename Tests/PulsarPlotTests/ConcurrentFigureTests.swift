import Dispatch
import Foundation
@testable import PulsarPlot
import Testing

/// A figure is the same bytes whatever the process drew before it or draws beside it. Cairo
/// resolves a font face once per process with the options and size of the first text drawn; a
/// PNG's text once lost its hinting when an SVG or a text under 7.5 px came first (the CLI's PNG
/// and the library's differed inside the test process), and an SVG's drawing group was numbered
/// by a process-wide counter.
@Suite("Figures on many threads")
struct ConcurrentFigureTests {
    @Test("a PNG canvas and an SVG canvas ask cairo for the same text rendering (hinting, metrics, antialiasing)")
    func sameTextOptions() throws {
        let png = try CairoCanvas(width: 200, height: 100, format: .png), svg = try CairoCanvas(width: 200, height: 100, format: .svg)
        for size in [6.0, 9, 11, 16] {
            #expect(png.textRendering(size: size) == svg.textRendering(size: size), "size \(size)")
            #expect(png.textRendering(size: size).first == CairoCanvas.hintStyle.rawValue)
        }
    }

    /// A figure whose text sizes follow its size (titles, ticks and labels at several sizes).
    static func figure(width: Int, height: Int) -> Figure {
        var figure = Figure(width: width, height: height, title: "concurrent \(width)×\(height)", subtitles: ["subtitle · 48000 Hz · 0.5"],
                            xAxis: Axis("time", unit: "ms", range: .fixed(0...600)))
        let wave = (0...600).map { PlotPoint(Double($0), 5 + 4 * sin(Double($0) / 9)) }
        figure.add(Panel(title: "panel one", yAxis: Axis("value", range: .fixed(0...10)),
                         series: [.line(Polyline(points: wave, color: .blue, label: "a wave"))]))
        figure.add(Panel(title: "panel two", yAxis: Axis("frequency", unit: "Hz", range: .fixed(50...300)),
                         series: [.marks(Marks(points: [PlotPoint(100, 120), PlotPoint(400, 250)], color: .orange))]))
        return figure
    }

    @Test("threads drawing PNGs and SVGs of five sizes at once produce the bytes each figure has alone")
    func sameBytesOnManyThreads() throws {
        let sizes = [(320, 240), (800, 500), (1600, 1000), (200, 160), (480, 800)]
        let formats: [PlotFormat] = [.png, .svg]
        var alone: [[UInt8]] = []
        for (w, h) in sizes { for f in formats { alone.append(try Self.figure(width: w, height: h).render(as: f)) } }
        let jobs = sizes.count * formats.count
        final class Results: @unchecked Sendable { var bytes: [[UInt8]?]; init(_ n: Int) { bytes = Array(repeating: nil, count: n) } }
        for round in 0..<6 {
            let results = Results(jobs * 2)
            DispatchQueue.concurrentPerform(iterations: jobs * 2) { i in
                let job = (i + round) % jobs
                let (w, h) = sizes[job / formats.count]
                results.bytes[i] = try? Self.figure(width: w, height: h).render(as: formats[job % formats.count])
            }
            for i in 0..<(jobs * 2) {
                let job = (i + round) % jobs
                #expect(results.bytes[i].map { $0 == alone[job] } == true, "round \(round), figure \(sizes[job / formats.count]) \(formats[job % formats.count])")
            }
        }
    }
}
