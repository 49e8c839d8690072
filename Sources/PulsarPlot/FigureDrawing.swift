/// Draws a laid-out figure on a canvas: the texts, then each panel's grid, series, frame,
/// ticks and legend, then the shared x axis.
struct FigureDrawing {
    let figure: Figure
    let layout: FigureLayout
    let canvas: CairoCanvas

    private var m: FigureMetrics { layout.metrics }
    private var g: FigureGeometry { layout.geometry }

    func draw() throws(PlotError) {
        canvas.fill([PlotRect(x: 0, y: 0, width: Double(figure.width), height: Double(figure.height))], figure.background)
        drawTitles()
        for (index, panel) in figure.panels.enumerated() {
            let drawing = PanelDrawing(panel: panel, layout: layout.panels[index], figure: g, metrics: m, canvas: canvas)
            try drawing.draw(xTicks: layout.xTicks)
        }
        drawXAxis()
    }

    private func drawTitles() {
        var baseline = m.pad + m.title * 0.95
        canvas.text(layout.title, at: PlotPoint(m.pad, baseline), size: m.title, bold: true, color: .ink)
        baseline += m.title * 0.3
        for line in layout.subtitles {
            baseline += m.subtitle * 1.35
            canvas.text(line, at: PlotPoint(m.pad, baseline), size: m.subtitle, color: .secondaryInk)
        }
    }

    private func drawXAxis() {
        guard let last = layout.panels.last?.geometry.rect else { return }
        let tickRow = m.baseline(centeredOn: last.maxY + m.tick + m.line / 2)
        for v in layout.xTicks {
            canvas.text(Ticks.label(v, step: layout.xStep), at: PlotPoint(g.x(v), tickRow), size: m.font, color: .secondaryInk,
                        anchor: .center)
        }
        let titleRow = m.baseline(centeredOn: last.maxY + m.tick + m.line * 1.5)
        let title = Text.fitted(figure.xAxis.title, width: g.plotWidth, size: m.font, canvas: canvas)
        canvas.text(title, at: PlotPoint(g.plotLeft + g.plotWidth / 2, titleRow), size: m.font, color: .ink, anchor: .center)
    }
}

/// One panel's drawing.
private struct PanelDrawing {
    let panel: Panel
    let layout: PanelLayout
    let figure: FigureGeometry
    let metrics: FigureMetrics
    let canvas: CairoCanvas

    private var rect: PlotRect { layout.geometry.rect }
    private var m: FigureMetrics { metrics }

    func draw(xTicks: [Double]) throws(PlotError) {
        drawGrid(xTicks: xTicks)
        try canvas.clipped(to: rect) { () throws(PlotError) in
            for series in panel.series { try draw(series) }
            drawLabels()
        }
        canvas.stroke(PlotRect(x: rect.x - 0.5, y: rect.y - 0.5, width: rect.width + 1, height: rect.height + 1), .ink, width: 1)
        drawYAxis()
        drawXTickMarks(xTicks)
        try drawHeader()
    }

    /// A pixel centre: lines of width 1 drawn there cover whole pixels.
    private func snap(_ v: Double) -> Double { v.rounded(.down) + 0.5 }

    /// Where a line of `width` through `v` is drawn so it covers whole pixels, the pixel of `v`
    /// among them: odd whole widths on that pixel's centre, even ones on its nearer edge;
    /// other widths through `v` itself.
    private func snap(_ v: Double, width: Double) -> Double {
        guard width == width.rounded(), width >= 1 else { return v }
        return Int(width) % 2 == 1 ? snap(v) : v.rounded()
    }

    private func drawGrid(xTicks: [Double]) {
        let g = layout.geometry
        var lines: [(PlotPoint, PlotPoint)] = []
        for v in g.yTicks where g.y(v) > rect.minY + 0.5 && g.y(v) < rect.maxY - 0.5 {
            lines.append((PlotPoint(rect.minX, snap(g.y(v))), PlotPoint(rect.maxX, snap(g.y(v)))))
        }
        for v in xTicks where figure.x(v) > rect.minX + 0.5 && figure.x(v) < rect.maxX - 0.5 {
            lines.append((PlotPoint(snap(figure.x(v)), rect.minY), PlotPoint(snap(figure.x(v)), rect.maxY)))
        }
        canvas.segments(lines, .grid, width: 1)
    }

    private func drawYAxis() {
        let g = layout.geometry
        var marks: [(PlotPoint, PlotPoint)] = []
        for v in g.yTicks {
            let y = snap(g.y(v))
            marks.append((PlotPoint(rect.minX - 1 - m.tick, y), PlotPoint(rect.minX - 1, y)))
            canvas.text(Ticks.label(v, step: layout.yStep), at: PlotPoint(rect.minX - m.tick - m.font * 0.3, m.baseline(centeredOn: g.y(v))),
                        size: m.font, color: .secondaryInk, anchor: .trailing)
        }
        canvas.segments(marks, .ink, width: 1)
        let labelX = m.pad + m.ascent
        canvas.text(layout.yLabel, at: PlotPoint(labelX, rect.minY + rect.height / 2), size: m.font, color: .ink, anchor: .center,
                    rotated: true)
    }

    private func drawXTickMarks(_ ticks: [Double]) {
        let marks = ticks.map { v -> (PlotPoint, PlotPoint) in
            (PlotPoint(snap(figure.x(v)), rect.maxY + 1), PlotPoint(snap(figure.x(v)), rect.maxY + 1 + m.tick))
        }
        canvas.segments(marks, .ink, width: 1)
    }

    private func drawHeader() throws(PlotError) {
        let header = layout.geometry.header
        if !layout.title.isEmpty {
            canvas.text(layout.title, at: PlotPoint(header.minX, header.minY + m.baseline(centeredOn: m.line / 2)), size: m.font,
                        bold: true, color: .ink)
        }
        for entry in layout.legend {
            let series = panel.series[entry.series]
            let y = header.minY + entry.origin.y - (m.ascent - m.descent) / 2
            try Legend.drawSwatch(series, x: entry.origin.x, y: y, metrics: m, canvas: canvas)
            let textX = entry.origin.x + Legend.swatchWidth(series, metrics: m) + m.font * 0.4
            canvas.text(entry.text, at: PlotPoint(textX, header.minY + entry.origin.y), size: m.font, color: .ink)
        }
    }

    // MARK: Series

    private func draw(_ series: Series) throws(PlotError) {
        switch series {
        case .line(let s): drawLine(s)
        case .marks(let s): try drawMarks(s)
        case .envelope(let s): try drawEnvelope(s)
        case .horizontal(let s): drawHorizontal(s)
        case .vertical(let s): drawVertical(s)
        case .heatMap(let s): try drawHeatMap(s)
        }
    }

    /// A pixel coordinate kept where cairo's fixed-point numbers hold it (far outside any
    /// figure, so the clip still decides what shows).
    private static func bounded(_ v: Double) -> Double { min(max(v, -1e6), 1e6) }

    /// Pixel runs of `points`, broken at non-finite ones.
    private func runs(_ points: [PlotPoint]) -> [[PlotPoint]] {
        let g = layout.geometry
        var runs: [[PlotPoint]] = [[]]
        for p in points {
            guard p.x.isFinite, p.y.isFinite else {
                if !runs[runs.count - 1].isEmpty { runs.append([]) }
                continue
            }
            runs[runs.count - 1].append(PlotPoint(Self.bounded(figure.x(p.x)), Self.bounded(g.y(p.y))))
        }
        return runs.filter { !$0.isEmpty }
    }

    private func drawLine(_ s: Polyline) {
        let pixelRuns = runs(s.points)
        if let fill = s.fill {
            let base = Self.bounded(layout.geometry.y(s.fillBaseline))
            canvas.fillPolygons(pixelRuns.map { run in run + [PlotPoint(run.last!.x, base), PlotPoint(run[0].x, base)] }, fill)
        }
        canvas.polylines(pixelRuns, s.color, width: s.width, dash: s.dash)
    }

    private func drawMarks(_ s: Marks) throws(PlotError) {
        let g = layout.geometry
        let shown = s.points.filter { $0.x.isFinite && $0.y.isFinite }
        if let baseline = s.stemBaseline {
            let w = Double(max(s.stemWidth, 1))
            let stems = shown.map { p -> PlotRect in
                let column = Self.bounded(figure.x(p.x)).rounded(.down)
                let top = Self.bounded(g.y(max(p.y, baseline))), bottom = Self.bounded(g.y(min(p.y, baseline)))
                return PlotRect(x: column - ((w - 1) / 2).rounded(.down), y: top.rounded(.down), width: w,
                                height: max(bottom.rounded(.up) - top.rounded(.down), 1))
            }
            try canvas.aliased { () throws(PlotError) in canvas.fill(stems, s.color) }
        }
        if s.size > 0 {
            let centers = shown.map { PlotPoint(Self.bounded(figure.x($0.x)).rounded(.down) + 0.5, Self.bounded(g.y($0.y))) }
            canvas.discs(centers, radius: s.size / 2, s.color, outline: .white)
        }
    }

    private func drawEnvelope(_ s: Envelope) throws(PlotError) {
        let g = layout.geometry
        guard s.minimum.count == s.maximum.count else { throw .badData("an envelope's minimum and maximum counts differ") }
        let n = Double(s.columns), span = s.span.upperBound - s.span.lowerBound
        guard span > 0, span.isFinite else { return }
        var rects: [PlotRect] = []
        for column in 0..<Int(rect.width) {
            let x0 = rect.minX + Double(column)
            let a = (figure.value(atX: x0) - s.span.lowerBound) / span * n
            let b = (figure.value(atX: x0 + 1) - s.span.lowerBound) / span * n
            guard b > 0, a < n else { continue }
            let first = max(Int((a + 1e-9).rounded(.down)), 0), last = min(Int((b - 1e-9).rounded(.up)) - 1, s.columns - 1)
            guard first <= last else { continue }
            let lo = s.minimum[first...last].min()!, hi = s.maximum[first...last].max()!
            guard lo <= hi else { continue }
            let top = Self.bounded(g.y(hi)).rounded(.down), bottom = Self.bounded(g.y(lo)).rounded(.up)
            rects.append(PlotRect(x: x0, y: top, width: 1, height: max(bottom - top, 1)))
        }
        try canvas.aliased { () throws(PlotError) in canvas.fill(rects, s.color) }
    }

    private func drawHorizontal(_ s: ReferenceLine) {
        let at = snap(Self.bounded(layout.geometry.y(s.value)), width: s.width)
        canvas.segments([(PlotPoint(rect.minX, at), PlotPoint(rect.maxX, at))], s.color, width: s.width, dash: s.dash)
    }

    private func drawVertical(_ s: ReferenceLine) {
        let at = snap(Self.bounded(figure.x(s.value)), width: s.width)
        canvas.segments([(PlotPoint(at, rect.minY), PlotPoint(at, rect.maxY))], s.color, width: s.width, dash: s.dash)
    }

    private func drawHeatMap(_ s: HeatMap) throws(PlotError) {
        let g = layout.geometry
        let span = s.valueRange.upperBound - s.valueRange.lowerBound
        guard s.values.count == s.columns * s.rows else { throw .badData("a heat map's values are not columns × rows") }
        var pixels = [PlotColor](repeating: .black, count: s.values.count)
        for row in 0..<s.rows {
            // Image row 0 is the top: the highest y.
            let source = s.rows - 1 - row
            for column in 0..<s.columns {
                let v = s.values[source * s.columns + column]
                pixels[row * s.columns + column] = s.colorMap.color(at: span > 0 ? (v - s.valueRange.lowerBound) / span : 0)
            }
        }
        let left = Self.bounded(figure.x(s.xSpan.lowerBound)), top = Self.bounded(g.y(s.ySpan.upperBound))
        let right = Self.bounded(figure.x(s.xSpan.upperBound)), bottom = Self.bounded(g.y(s.ySpan.lowerBound))
        let area = PlotRect(x: left, y: top, width: right - left, height: bottom - top)
        try canvas.image(pixels, columns: s.columns, rows: s.rows, into: area, smooth: s.smooth)
    }

    // MARK: Texts by lines and marks

    /// The texts of vertical lines (at the top, staggered into rows) and of marks (above them),
    /// each left out where it would overlap one already placed.
    private func drawLabels() {
        var placer = LabelPlacer(rect: rect, metrics: m, canvas: canvas)
        for series in panel.series {
            switch series {
            case .vertical(let s):
                if let label = s.label { placer.placeAtTop(label, x: figure.x(s.value), color: s.color) }
            case .horizontal(let s):
                if let label = s.label { placer.placeRight(label, y: layout.geometry.y(s.value), color: s.color) }
            case .marks(let s):
                for (p, text) in zip(s.points, s.texts) where p.x.isFinite && p.y.isFinite && !text.isEmpty {
                    placer.placeAbove(text, x: figure.x(p.x).rounded(.down) + 0.5, y: layout.geometry.y(p.y) - s.size / 2, color: s.color)
                }
            default:
                break
            }
        }
    }
}
