import Foundation
import PulsarPlot
import PulsarTestSupport
import Testing

/// The chart layer on its own: sizes and formats, typed errors, geometry, and series landing on
/// the pixels the documented geometry names.
@Suite("Figure")
struct FigureTests {
    /// One panel, x 0…100, y 0…10, with `series`.
    static func figure(_ series: [Series] = [], width: Int = 400, height: Int = 300) -> Figure {
        var figure = Figure(width: width, height: height, title: "test", subtitles: ["a subtitle"],
                            xAxis: Axis("time", unit: "ms", range: .fixed(0...100)))
        figure.add(Panel(title: "panel", yAxis: Axis("value", range: .fixed(0...10)), series: series))
        return figure
    }

    @Test("a PNG has the figure's size in its header; an SVG is well-formed XML with the size on its root")
    func formats() throws {
        let figure = Self.figure([.line(Polyline(points: [PlotPoint(0, 1), PlotPoint(100, 9)], color: .blue, label: "a line"))],
                                 width: 640, height: 360)
        let png = try figure.render(as: .png)
        #expect(ImageFiles.pngSize(png)?.width == 640 && ImageFiles.pngSize(png)?.height == 360)
        let svg = try #require(ImageFiles.svgRoot(Data(try figure.render(as: .svg))))
        #expect(svg.name == "svg" && svg.width == "640px" && svg.height == "360px", "\(svg)")
        #expect(svg.elements > 10)
    }

    @Test("sizes outside 64…8192, no panel, too little room and unknown extensions are typed errors, and nothing is written")
    func refusals() throws {
        for (w, h) in [(63, 300), (400, 8193), (0, 0), (-5, 100)] {
            #expect(throws: PlotError.badSize(width: w, height: h)) { try Self.figure(width: w, height: h).render(as: .png) }
        }
        var empty = Self.figure()
        empty.panels = []
        #expect(throws: PlotError.noPanels) { try empty.geometry() }
        var crowded = Self.figure(width: 64, height: 64)
        for _ in 0..<6 { crowded.add(Panel(yAxis: Axis("y"))) }
        #expect(throws: PlotError.tooSmall(width: 64, height: 64, panels: 7)) { try crowded.geometry() }
        var inverted = Self.figure()
        inverted.xAxis.range = .fixed(5...5)
        #expect(throws: PlotError.self) { try inverted.geometry() }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-plot-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: PlotError.unknownFormat(path: dir + "/x.jpg")) { try Self.figure().write(to: dir + "/x.jpg") }
        #expect(throws: PlotError.badSize(width: 10, height: 10)) { try Self.figure(width: 10, height: 10).write(to: dir + "/x.png") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        try Self.figure().write(to: dir + "/x.SVG")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["x.SVG"])
    }

    @Test("geometry: panels stacked in order inside the figure on whole pixels, one x mapping, one column per pixel")
    func geometry() throws {
        var figure = Self.figure(width: 800, height: 600)
        figure.add(Panel(title: "second", yAxis: Axis("other", unit: "Hz"), weight: 2,
                         series: [.marks(Marks(points: [PlotPoint(10, 100), PlotPoint(90, 300)], color: .green))]))
        let g = try figure.geometry()
        #expect(g.panels.count == 2 && g.xRange == 0...100)
        #expect(g.x(0) == g.plotLeft && g.x(100) == g.plotLeft + g.plotWidth && g.columns == Int(g.plotWidth))
        #expect(g.column(100) == Int(g.plotLeft + g.plotWidth) - 1, "the last value stays inside the data area")
        let (a, b) = (g.panels[0], g.panels[1])
        #expect(a.header.maxY == a.rect.minY && a.rect.maxY < b.header.minY && b.rect.maxY < Double(g.height))
        #expect(b.rect.height > a.rect.height * 1.8, "weights share the height")
        for r in [a.rect, b.rect] { #expect(r.minX == r.minX.rounded() && r.minY == r.minY.rounded() && r.height == r.height.rounded()) }
        #expect(b.yRange.lowerBound <= 100 && b.yRange.upperBound >= 300, "an auto range holds the data")
        #expect(b.yTicks.allSatisfy { b.yRange.contains($0) } && b.yTicks.count >= 2)
        #expect(a.y(0) == a.rect.maxY && a.y(10) == a.rect.minY && a.row(10) == Int(a.rect.minY))
        #expect(abs(g.value(atX: g.x(37.5)) - 37.5) < 1e-9 && abs(a.value(atY: a.y(2.5)) - 2.5) < 1e-9)
    }

    @Test("a vertical line, stemmed marks and a horizontal line land on the pixels the geometry names")
    func linesAndMarks() throws {
        let figure = Self.figure([
            .vertical(ReferenceLine(25, color: .blue, dash: [])),
            .horizontal(ReferenceLine(5, color: .orange, dash: [])),
            .marks(Marks(points: [PlotPoint(60, 8)], color: .vermilion, size: 0, stemBaseline: 0)),
        ], width: 800, height: 500)
        let g = try figure.geometry(), p = g.panels[0]
        let picture = try Picture(figure)
        let middle = p.row(7)
        #expect(picture.holds(.blue, at: g.column(25), middle))
        #expect(!picture.holds(.blue, at: g.column(25) + 3, middle) && !picture.holds(.blue, at: g.column(25) - 3, middle))
        #expect(picture.holds(.orange, at: g.column(80), p.row(5)))
        #expect(!picture.holds(.orange, at: g.column(80), p.row(5) - 3))
        let stem = g.column(60)
        for row in [p.row(1), p.row(4), p.row(7.5)] {
            #expect((stem - 1...stem + 1).allSatisfy { picture.holds(.vermilion, at: $0, row) }, "stem at row \(row)")
            #expect(!picture.holds(.vermilion, at: stem - 3, row) && !picture.holds(.vermilion, at: stem + 3, row))
        }
        #expect(!picture.holds(.vermilion, at: stem, p.row(9)), "the stem stops at its value")
    }

    @Test("an envelope with one bucket per pixel column fills exactly the rows between each column's min and max")
    func envelopeColumns() throws {
        var figure = Self.figure(width: 600, height: 400)
        figure.panels[0].yAxis.range = .fixed(-1...1)
        let g = try figure.geometry()
        let half = g.columns / 2
        let minimum = (0..<g.columns).map { $0 < half ? -0.5 : 0.2 }, maximum = (0..<g.columns).map { $0 < half ? 0.5 : 0.8 }
        figure.panels[0].add(.envelope(Envelope(span: g.xRange, minimum: minimum, maximum: maximum, color: .green)))
        let picture = try Picture(figure), p = g.panels[0]
        let left = Int(g.plotLeft) + half / 2, right = Int(g.plotLeft) + half + half / 2
        let top = Int(p.rect.minY), bottom = Int(p.rect.maxY)
        let leftRows = picture.rows(holding: .green, inColumn: left, from: top, to: bottom)
        let rightRows = picture.rows(holding: .green, inColumn: right, from: top, to: bottom)
        #expect(leftRows.first == Int(p.y(0.5).rounded(.down)) && leftRows.last == Int(p.y(-0.5).rounded(.up)) - 1, "\(leftRows)")
        #expect(rightRows.first == Int(p.y(0.8).rounded(.down)) && rightRows.last == Int(p.y(0.2).rounded(.up)) - 1, "\(rightRows)")
        #expect(leftRows.count == (leftRows.last! - leftRows.first! + 1), "a solid band")
    }

    @Test("Envelope.add puts each sample in the bucket of its x; blocks and single values agree")
    func envelopeBuckets() {
        var one = Envelope(span: 0...10, columns: 10, color: .green)
        var block = one
        let samples: [Float] = (0..<100).map { Float(sin(Double($0) * 0.37)) }
        for (i, v) in samples.enumerated() { one.add(Double(v), atX: Double(i) * 0.1) }
        samples.withUnsafeBufferPointer { block.add($0, firstX: 0, xStep: 0.1) }
        for b in 0..<10 {
            let inBucket = samples[(b * 10)..<(b * 10 + 10)].map(Double.init)
            #expect(abs(one.minimum[b] - inBucket.min()!) < 1e-12 && abs(one.maximum[b] - inBucket.max()!) < 1e-12)
            #expect(abs(block.minimum[b] - one.minimum[b]) < 1e-12 && abs(block.maximum[b] - one.maximum[b]) < 1e-12)
        }
        one.add(.nan, atX: 5)
        one.add(99, atX: 11)
        #expect(one.maximum.max()! < 2, "non-finite values and values outside the span are ignored")
    }

    @Test("a heat map paints each cell the colour map's colour of its value")
    func heatMapCells() throws {
        var map = HeatMap(xSpan: 0...100, ySpan: 0...10, columns: 2, rows: 2, valueRange: 0...1)
        map[0, 0] = 0
        map[1, 0] = 1
        map[0, 1] = 0.5
        map[1, 1] = 0.25
        let figure = Self.figure([.heatMap(map)], width: 600, height: 400)
        let g = try figure.geometry(), p = g.panels[0]
        let picture = try Picture(figure)
        for (column, row, x, y) in [(0, 0, 25.0, 2.5), (1, 0, 75, 2.5), (0, 1, 25, 7.5), (1, 1, 75, 7.5)] {
            let expected = ColorMap.viridis.color(at: map[column, row])
            #expect(picture.holds(expected, at: g.column(x), p.row(y), tolerance: 2), "cell \(column), \(row)")
        }
    }

    @Test("legend entries that do not fit one row wrap onto more header rows")
    func legendWraps() throws {
        let lines = (0..<12).map { Series.line(Polyline(points: [PlotPoint(0, Double($0))], color: .blue, label: "series number \($0)")) }
        let one = try Self.figure(Array(lines.prefix(1))).geometry(), many = try Self.figure(lines).geometry()
        #expect(many.panels[0].header.height >= one.panels[0].header.height * 2.5, "\(one.panels[0].header) \(many.panels[0].header)")
        #expect(many.panels[0].rect.height < one.panels[0].rect.height)
    }

    @Test("non-finite points break a line, values far outside draw clipped; non-finite spans and lopsided envelopes are bad data")
    func nonFinite() throws {
        let points = [PlotPoint(0, 1), PlotPoint(.nan, 2), PlotPoint(50, .infinity), PlotPoint(60, 3), PlotPoint(100, 4)]
        _ = try Self.figure([.line(Polyline(points: points, color: .blue))]).render(as: .png)
        var figure = Self.figure()
        figure.panels[0].yAxis.range = .fixed(0...Double.infinity)
        #expect(throws: PlotError.self) { try figure.render(as: .svg) }
        let far = [PlotPoint(-1e300, 1e300), PlotPoint(1e300, -1e300)]
        _ = try Self.figure([.line(Polyline(points: far, color: .blue, fill: .skyBlue)),
                             .marks(Marks(points: far, color: .green, stemBaseline: 1e308, texts: ["a", "b"])),
                             .vertical(ReferenceLine(1e300, color: .grey, label: "far")),
                             .horizontal(ReferenceLine(-1e300, color: .grey, label: "far")),
                             .envelope(Envelope(span: -1e300...1e300, minimum: [-1e300], maximum: [1e300], color: .grey))]).render(as: .png)
        let lopsided = Envelope(span: 0...100, minimum: [0, 0], maximum: [1], color: .grey)
        #expect(throws: PlotError.self) { try Self.figure([.envelope(lopsided)]).render(as: .png) }
    }

    @Test("ticks: nice steps, multiples inside the range, labels with a true minus and just the decimals the step needs")
    func ticks() {
        #expect(Ticks.step(span: 10, maxCount: 5) == 2)
        #expect(Ticks.step(span: 1, maxCount: 4) == 0.25)
        #expect(Ticks.step(span: 3000, maxCount: 8) == 500)
        #expect(Ticks.step(span: 0.07, maxCount: 7) == 0.01)
        #expect(Ticks.values(in: -0.05...1.05, step: 0.25) == [0, 0.25, 0.5, 0.75, 1])
        #expect(Ticks.values(in: 0...3000, step: 500).count == 7)
        #expect(Ticks.label(-1, step: 0.5) == "\u{2212}1.0")
        #expect(Ticks.label(0.25, step: 0.25) == "0.25")
        #expect(Ticks.label(2400, step: 200) == "2400")
        #expect(Ticks.label(-1e-17, step: 0.1) == "0.0")
    }
}
