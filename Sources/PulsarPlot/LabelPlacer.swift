/// Puts short texts inside a data area without letting two overlap: each goes in the first
/// free place of a few tried, on a light box so lines behind it do not hide it, or is left out.
struct LabelPlacer {
    let rect: PlotRect
    let metrics: FigureMetrics
    let canvas: CairoCanvas
    private var placed: [PlotRect] = []

    init(rect: PlotRect, metrics: FigureMetrics, canvas: CairoCanvas) {
        self.rect = rect
        self.metrics = metrics
        self.canvas = canvas
    }

    private var size: Double { metrics.font * 0.9 }
    private var rowHeight: Double { (metrics.line * 0.9).rounded() }

    /// Beside a vertical line at `x`, in the first of the top rows where it fits (right of the
    /// line, or left of it near the right edge).
    mutating func placeAtTop(_ text: String, x: Double, color: PlotColor) {
        let width = canvas.textWidth(text, size: size) + 4
        var left = x + 3
        if left + width > rect.maxX { left = x - 3 - width }
        let rows = min(max(Int(rect.height / (rowHeight * 3)), 1), 6)
        for row in 0..<rows {
            let box = PlotRect(x: left, y: rect.minY + 2 + Double(row) * rowHeight, width: width, height: rowHeight)
            if place(text, in: box, color: color) { return }
        }
    }

    /// At the right end of a horizontal line at `y`: above it, or below when there is no room.
    mutating func placeRight(_ text: String, y: Double, color: PlotColor) {
        let width = canvas.textWidth(text, size: size) + 4
        let left = rect.maxX - width - metrics.font * 0.4
        let above = PlotRect(x: left, y: y - rowHeight - 1, width: width, height: rowHeight)
        if above.minY >= rect.minY, place(text, in: above, color: color) { return }
        _ = place(text, in: PlotRect(x: left, y: y + 2, width: width, height: rowHeight), color: color)
    }

    /// Centred on `x`, its bottom at `y` (above a mark).
    mutating func placeAbove(_ text: String, x: Double, y: Double, color: PlotColor) {
        let width = canvas.textWidth(text, size: size) + 4
        let left = min(max(x - width / 2, rect.minX), rect.maxX - width)
        let box = PlotRect(x: left, y: y - 2 - rowHeight, width: width, height: rowHeight)
        guard box.minY >= rect.minY else { return }
        _ = place(text, in: box, color: color)
    }

    /// Draws `text` in `box` unless it leaves the data area or overlaps a placed text.
    private mutating func place(_ text: String, in box: PlotRect, color: PlotColor) -> Bool {
        guard box.minX >= rect.minX, box.maxX <= rect.maxX, box.maxY <= rect.maxY,
              !placed.contains(where: { Self.overlap($0, box) }) else { return false }
        placed.append(box)
        canvas.fill([box], PlotColor.white.withAlpha(215))
        let baseline = box.minY + box.height / 2 + (metrics.ascent - metrics.descent) / 2 * 0.9
        canvas.text(text, at: PlotPoint(box.minX + 2, baseline), size: size, color: color.mixed(with: .black, 0.25))
        return true
    }

    private static func overlap(_ a: PlotRect, _ b: PlotRect) -> Bool {
        a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY
    }
}
