/// Text sizes and spacing, from the figure's font size (pixels).
struct FigureMetrics {
    /// Tick labels, legends, panel titles.
    let font: Double
    let title: Double
    let subtitle: Double
    /// The height of one row of text at `font`.
    let line: Double
    let pad: Double
    let tick: Double
    let ascent: Double
    let descent: Double

    init(_ figure: Figure, canvas: CairoCanvas) {
        let side = (Double(figure.width) * Double(figure.height)).squareRoot()
        let asked = figure.fontSize.flatMap { $0.isFinite ? $0 : nil } ?? side / 80
        font = min(max(asked, 7), 48)
        title = font * 1.3
        subtitle = font * 0.95
        line = (font * 1.4).rounded()
        pad = (font * 0.9).rounded()
        tick = (font * 0.35).rounded()
        (ascent, descent) = canvas.fontMetrics(size: font)
    }

    /// The baseline that centres a line of text at `font` on pixel y `y`.
    func baseline(centeredOn y: Double) -> Double { y + (ascent - descent) / 2 }
}

/// One legend entry: which series, its text, and where its swatch starts (left edge, baseline).
struct LegendEntry {
    let series: Int
    let text: String
    let origin: PlotPoint
}

/// A panel as laid out: its geometry, tick step, fitted texts and legend.
struct PanelLayout {
    let geometry: PanelGeometry
    let yStep: Double
    let yLabel: String
    let title: String
    let legend: [LegendEntry]
}

/// Where a figure puts everything: the public `FigureGeometry` and what drawing needs beyond
/// it (texts fitted to their room, tick values, legend positions). Measures text on the canvas
/// it is given; otherwise pure.
struct FigureLayout {
    let metrics: FigureMetrics
    let geometry: FigureGeometry
    let panels: [PanelLayout]
    let xTicks: [Double]
    let xStep: Double
    let title: String
    let subtitles: [String]

    init(_ figure: Figure, canvas: CairoCanvas) throws(PlotError) {
        guard Figure.sides.contains(figure.width), Figure.sides.contains(figure.height) else {
            throw .badSize(width: figure.width, height: figure.height)
        }
        guard !figure.panels.isEmpty else { throw .noPanels }
        let m = FigureMetrics(figure, canvas: canvas)
        let xRange = try Self.xRange(figure)
        let top = m.pad + m.title * 1.25 + Double(figure.subtitles.count) * (m.subtitle * 1.35) + m.font * 0.3
        let frame = Frame(figure: figure, metrics: m, canvas: canvas, xRange: xRange, top: top.rounded())
        var left = (m.pad + m.line + m.font * 0.6 + m.tick + canvas.textWidth("0.0", size: m.font)).rounded(.up)
        var stack = try frame.stack(left: left)
        for _ in 0..<4 where stack.neededLeft > left {
            left = stack.neededLeft.rounded(.up)
            stack = try frame.stack(left: left)
        }
        metrics = m
        panels = stack.panels
        let plotWidth = frame.plotWidth(left: left)
        geometry = FigureGeometry(width: figure.width, height: figure.height, xRange: xRange, plotLeft: left,
                                  plotWidth: plotWidth, panels: stack.panels.map(\.geometry), fontSize: m.font)
        (xTicks, xStep) = Self.xTicks(xRange, width: plotWidth, metrics: m, canvas: canvas)
        let textWidth = Double(figure.width) - 2 * m.pad
        title = Text.fitted(figure.title, width: textWidth, size: m.title, bold: true, canvas: canvas)
        subtitles = figure.subtitles.map { Text.fitted($0, width: textWidth, size: m.subtitle, canvas: canvas) }
    }

    /// The shared x span: fixed, or every series' x values.
    private static func xRange(_ figure: Figure) throws(PlotError) -> ClosedRange<Double> {
        if let fixed = try Extents.fixed(figure.xAxis.range, axis: "x") { return fixed }
        return Extents.widened(Extents.union(figure.panels.flatMap { $0.series.map(Extents.x(of:)) }))
    }

    /// Ticks on the x axis as many as fit with their labels apart.
    private static func xTicks(_ range: ClosedRange<Double>, width: Double, metrics m: FigureMetrics,
                               canvas: CairoCanvas) -> ([Double], Double) {
        var count = max(Int(width / (m.font * 5)), 1)
        while true {
            let step = Ticks.step(span: range.upperBound - range.lowerBound, maxCount: count)
            let ticks = Ticks.values(in: range, step: step)
            let widest = ticks.map { canvas.textWidth(Ticks.label($0, step: step), size: m.font) }.max() ?? 0
            if count == 1 || Double(ticks.count) * (widest + m.font * 1.5) <= width { return (ticks, step) }
            count = min(count - 1, max(ticks.count - 2, 1))
        }
    }
}

/// The vertical stacking of a figure's panels for a given left edge of the data areas.
private struct Frame {
    let figure: Figure
    let metrics: FigureMetrics
    let canvas: CairoCanvas
    let xRange: ClosedRange<Double>
    let top: Double

    /// The panels laid out, and the left edge their y tick labels need.
    struct Stack {
        var panels: [PanelLayout]
        var neededLeft: Double
    }

    func right() -> Double {
        let m = metrics
        let step = Ticks.step(span: xRange.upperBound - xRange.lowerBound, maxCount: 8)
        return (m.pad + canvas.textWidth(Ticks.label(xRange.upperBound, step: step), size: m.font) / 2).rounded(.up)
    }

    func plotWidth(left: Double) -> Double { (Double(figure.width) - left - right()).rounded(.down) }

    func stack(left: Double) throws(PlotError) -> Stack {
        let m = metrics
        let width = plotWidth(left: left)
        guard width >= Figure.minimumPanelHeight else { throw tooSmall }
        let headers = figure.panels.map { Legend.layout($0, left: left, width: width, metrics: m, canvas: canvas) }
        let headerHeights = headers.map { Double($0.rows) * m.line + (m.font * 0.3).rounded() }
        let gap = (m.font * 0.7).rounded()
        let bottom = m.tick + 2 * m.line + m.pad * 0.5
        let room = Double(figure.height) - top - bottom - headerHeights.reduce(0, +) - gap * Double(figure.panels.count - 1)
        let heights = try distribute(room.rounded(.down))
        var panels: [PanelLayout] = []
        var y = top
        var widest = 0.0
        for (index, panel) in figure.panels.enumerated() {
            let header = PlotRect(x: left, y: y, width: width, height: headerHeights[index])
            let rect = PlotRect(x: left, y: y + header.height, width: width, height: heights[index])
            let axis = try YAxis(panel, height: rect.height, metrics: m)
            widest = max(widest, axis.ticks.map { canvas.textWidth(Ticks.label($0, step: axis.step), size: m.font) }.max() ?? 0)
            let geometry = PanelGeometry(rect: rect, yRange: axis.range, yTicks: axis.ticks, header: header)
            let yLabel = Self.yLabel(panel.yAxis, room: rect.height, metrics: m, canvas: canvas)
            panels.append(PanelLayout(geometry: geometry, yStep: axis.step, yLabel: yLabel, title: headers[index].title,
                                      legend: headers[index].entries))
            y = rect.maxY + gap
        }
        return Stack(panels: panels, neededLeft: m.pad + m.line + m.font * 0.6 + m.tick + widest)
    }

    /// The y axis title, or its unit alone when the title does not fit beside the panel, or
    /// as much of the title as fits.
    private static func yLabel(_ axis: Axis, room: Double, metrics m: FigureMetrics, canvas: CairoCanvas) -> String {
        if canvas.textWidth(axis.title, size: m.font) > room, let unit = axis.unit, canvas.textWidth(unit, size: m.font) <= room {
            return unit
        }
        return Text.fitted(axis.title, width: room, size: m.font, canvas: canvas)
    }

    /// The data areas' heights by weight, whole pixels.
    private func distribute(_ room: Double) throws(PlotError) -> [Double] {
        let weights = figure.panels.map { $0.weight.isFinite && $0.weight > 0 ? $0.weight : 1 }
        let total = weights.reduce(0, +)
        var heights = weights.map { (room * $0 / total).rounded(.down) }
        heights[heights.count - 1] += room - heights.reduce(0, +)
        guard heights.allSatisfy({ $0 >= Figure.minimumPanelHeight }) else { throw tooSmall }
        return heights
    }

    private var tooSmall: PlotError { .tooSmall(width: figure.width, height: figure.height, panels: figure.panels.count) }
}

/// A panel's y span, tick step and ticks for a data area `height` pixels tall.
struct YAxis {
    let range: ClosedRange<Double>
    let step: Double
    let ticks: [Double]

    init(_ panel: Panel, height: Double, metrics: FigureMetrics) throws(PlotError) {
        let count = max(Int(height / (metrics.font * 1.9)), 2)
        if let fixed = try Extents.fixed(panel.yAxis.range, axis: "y") {
            range = fixed
            step = Ticks.step(span: fixed.upperBound - fixed.lowerBound, maxCount: count)
        } else {
            let data = Extents.widened(Extents.union(panel.series.map(Extents.y(of:))))
            let margin = (data.upperBound - data.lowerBound) * 0.05
            let padded = (data.lowerBound - margin)...(data.upperBound + margin)
            step = Ticks.step(span: padded.upperBound - padded.lowerBound, maxCount: count)
            range = Ticks.niceRange(padded, maxCount: count)
        }
        ticks = Ticks.values(in: range, step: step)
    }
}

/// Text fitted to a width.
enum Text {
    /// `text`, or as much of it as fits in `width` pixels followed by "…".
    static func fitted(_ text: String, width: Double, size: Double, bold: Bool = false, canvas: CairoCanvas) -> String {
        guard canvas.textWidth(text, size: size, bold: bold) > width else { return text }
        var cut = String(text.prefix(max(Int(width / (size * 0.25)), 1)))
        while !cut.isEmpty, canvas.textWidth(cut + "…", size: size, bold: bold) > width { cut.removeLast() }
        return cut.isEmpty ? "" : cut + "…"
    }
}
