/// A panel's header: its title, then one entry per labelled series (a swatch and the label),
/// flowing onto further rows when a row is full.
enum Legend {
    /// The header's rows: the fitted title and the entries, each origin's y measured from the
    /// header's top (the baseline of its row).
    static func layout(_ panel: Panel, left: Double, width: Double, metrics m: FigureMetrics,
                       canvas: CairoCanvas) -> (title: String, entries: [LegendEntry], rows: Int) {
        let title = Text.fitted(panel.title, width: width * 0.6, size: m.font, bold: true, canvas: canvas)
        var x = left + (title.isEmpty ? 0 : canvas.textWidth(title, size: m.font, bold: true) + m.font * 1.5)
        var row = 0
        var entries: [LegendEntry] = []
        for (index, series) in panel.series.enumerated() {
            guard let label = text(of: series) else { continue }
            let swatch = swatchWidth(series, metrics: m) + m.font * 0.4
            let shown = Text.fitted(label, width: width - swatch, size: m.font, canvas: canvas)
            let entryWidth = swatch + canvas.textWidth(shown, size: m.font)
            if x + entryWidth > left + width, x > left {
                row += 1
                x = left
            }
            let baseline = m.baseline(centeredOn: Double(row) * m.line + m.line / 2)
            entries.append(LegendEntry(series: index, text: shown, origin: PlotPoint(x, baseline)))
            x += entryWidth + m.font * 1.3
        }
        return (title, entries, title.isEmpty && entries.isEmpty ? 0 : row + 1)
    }

    /// The legend text of `series` (a heat map's includes its value range), or nil.
    static func text(of series: Series) -> String? {
        guard let label = series.label else { return nil }
        guard case .heatMap(let map) = series else { return label }
        let step = Ticks.step(span: map.valueRange.upperBound - map.valueRange.lowerBound, maxCount: 4)
        let range = "\(Ticks.label(map.valueRange.lowerBound, step: step))…\(Ticks.label(map.valueRange.upperBound, step: step))"
        return "\(label) \(range)" + (map.unit.map { " \($0)" } ?? "")
    }

    static func swatchWidth(_ series: Series, metrics m: FigureMetrics) -> Double {
        if case .heatMap = series { return (m.font * 4).rounded() }
        return (m.font * 2.2).rounded()
    }

    /// Draws the swatch of `series` with its left end at `x`, centred on pixel row `y`.
    static func drawSwatch(_ series: Series, x: Double, y: Double, metrics m: FigureMetrics, canvas: CairoCanvas) throws(PlotError) {
        let w = swatchWidth(series, metrics: m)
        let mid = PlotPoint(x + w / 2, y)
        switch series {
        case .line(let s):
            if let fill = s.fill { canvas.fill([PlotRect(x: x, y: y, width: w, height: m.font * 0.45)], fill) }
            canvas.segments([(PlotPoint(x, y), PlotPoint(x + w, y))], s.color, width: min(s.width, 4), dash: s.dash)
        case .marks(let s):
            if s.stemBaseline != nil {
                canvas.fill([PlotRect(x: mid.x.rounded(.down) - 1, y: y, width: 3, height: m.font * 0.5)], s.color)
            }
            canvas.discs([mid], radius: max(s.size, 5) / 2, s.color)
        case .envelope(let s):
            canvas.fill([PlotRect(x: x, y: y - m.font * 0.35, width: w, height: m.font * 0.7)], s.color)
        case .horizontal(let s), .vertical(let s):
            canvas.segments([(PlotPoint(x, y), PlotPoint(x + w, y))], s.color, width: max(s.width, 1.5), dash: s.dash)
        case .heatMap(let s):
            let ramp = (0..<32).map { s.colorMap.color(at: Double($0) / 31) }
            try canvas.image(ramp, columns: 32, rows: 1, into: PlotRect(x: x, y: y - m.font * 0.35, width: w, height: m.font * 0.7),
                             smooth: true)
        }
    }
}
