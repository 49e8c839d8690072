/// A piece of text to draw: its colour and weight.
public struct TextItem: Sendable, Equatable {
    public var text: String
    public var color: PlotColor
    public var bold: Bool

    public init(_ text: String, color: PlotColor = .ink, bold: Bool = false) {
        self.text = text
        self.color = color
        self.bold = bold
    }
}

/// Text drawn with cairo in DejaVu Sans into pixels, for pictures that are not figures: the
/// viewer's status bar and its help panel. Sizes are points, multiplied by `scale` (device
/// pixels per point).
///
/// Thread rules: pure functions; any thread (each call draws on its own canvas).
public enum TextPicture {
    /// The font size of bars and panels, in points.
    public static let fontSize = 12.5

    /// A bar `width × height` filled with `background`, with rows of items: each row's items left
    /// to right, `spacing` points apart, the row's baseline centred in its share of the height.
    /// Text past the right edge is cut off there.
    public static func bar(rows: [[TextItem]], width: Int, height: Int, scale: Double,
                           background: PlotColor, spacing: Double = 18) throws(PlotError) -> [UInt32] {
        let canvas = try CairoCanvas(width: max(width, 1), height: max(height, 1), format: .png, sides: 1...Figure.sides.upperBound)
        canvas.fill([PlotRect(x: 0, y: 0, width: Double(width), height: Double(height))], background)
        let size = fontSize * scale
        let (ascent, descent) = canvas.fontMetrics(size: size)
        let rowHeight = Double(height) / Double(max(rows.count, 1))
        for (index, row) in rows.enumerated() {
            var x = 10 * scale
            let baseline = (Double(index) + 0.5) * rowHeight + (ascent - descent) / 2
            for item in row where !item.text.isEmpty {
                canvas.text(item.text, at: PlotPoint(x, baseline.rounded()), size: size, bold: item.bold, color: item.color)
                x += canvas.textWidth(item.text, size: size, bold: item.bold) + spacing * scale
            }
        }
        return try canvas.pixels()
    }

    /// The height in pixels of a bar of `rows` rows at `scale`.
    public static func barHeight(rows: Int, scale: Double) -> Int {
        Int((Double(rows) * fontSize * 1.75 * scale + 4 * scale).rounded(.up))
    }

    /// A panel of two columns (a key, what it does) under a bold title, on a rounded translucent
    /// dark ground, sized to its text: `(width, height, pixels)`, premultiplied (transparent
    /// around the rounded corners).
    public static func panel(title: String, rows: [(String, String)], scale: Double) throws(PlotError) -> (width: Int, height: Int, pixels: [UInt32]) {
        let size = fontSize * scale, line = fontSize * 1.6 * scale, pad = 14 * scale
        let measure = try CairoCanvas.measuring()
        let keyWidth = rows.map { measure.textWidth($0.0, size: size, bold: true) }.max() ?? 0
        let textWidth = rows.map { measure.textWidth($0.1, size: size) }.max() ?? 0
        let titleWidth = measure.textWidth(title, size: size * 1.15, bold: true)
        let width = Int((max(keyWidth + 16 * scale + textWidth, titleWidth) + 2 * pad).rounded(.up))
        let height = Int((Double(rows.count + 1) * line + 2 * pad + 4 * scale).rounded(.up))
        let canvas = try CairoCanvas(width: width, height: height, format: .png, sides: 1...Figure.sides.upperBound)
        canvas.roundedRectangle(PlotRect(x: 0, y: 0, width: Double(width), height: Double(height)), radius: 8 * scale,
                                PlotColor(24, 26, 31, 225))
        let (ascent, descent) = canvas.fontMetrics(size: size)
        let centre = (ascent - descent) / 2
        canvas.text(title, at: PlotPoint(pad, pad + line / 2 + centre), size: size * 1.15, bold: true, color: .white)
        for (index, row) in rows.enumerated() {
            let y = pad + 4 * scale + (Double(index) + 1.5) * line + centre
            canvas.text(row.0, at: PlotPoint(pad, y), size: size, bold: true, color: PlotColor(255, 214, 140))
            canvas.text(row.1, at: PlotPoint(pad + keyWidth + 16 * scale, y), size: size, color: PlotColor(235, 236, 240))
        }
        return (width, height, try canvas.pixels())
    }
}
