import PulsarCore

/// How an axis chooses its span. A plain value: any thread.
public enum AxisRange: Hashable, Sendable {
    /// From the series' values: exact ends on the x axis; on a y axis padded and widened to
    /// nice ticks.
    case auto
    /// Exactly this span.
    case fixed(ClosedRange<Double>)
}

/// An axis: its label, its unit (shown as "label (unit)") and its span.
///
/// A plain value type: safe from any thread.
public struct Axis: Hashable, Sendable {
    public var label: String
    public var unit: String?
    public var range: AxisRange

    public init(_ label: String, unit: String? = nil, range: AxisRange = .auto) {
        self.label = label
        self.unit = unit
        self.range = range
    }

    /// "label (unit)", or the label alone.
    public var title: String { unit.map { "\(label) (\($0))" } ?? label }
}

/// One of a figure's vertically stacked plots: its own y axis and series, the figure's x axis.
/// Above its data area a header holds its title and its legend (every series with a label),
/// wrapped onto as many rows as they need.
///
/// A plain value type: safe from any thread.
public struct Panel: Sendable {
    public var title: String
    public var yAxis: Axis
    /// Its share of the height the panels divide (relative to the other panels' weights).
    public var weight: Double
    /// Drawn in order (later on top).
    public var series: [Series]

    public init(title: String = "", yAxis: Axis, weight: Double = 1, series: [Series] = []) {
        self.title = title
        self.yAxis = yAxis
        self.weight = weight
        self.series = series
    }

    public mutating func add(_ series: Series) { self.series.append(series) }
}

/// A picture of panels stacked on one x axis: a title and subtitle lines on top, the x tick
/// labels and the x axis title below the last panel. Written as PNG or SVG.
///
/// Build it, `add` panels (each with its series), then `write(to:)` a `.png` or `.svg` path,
/// or `render(as:)` to bytes. `geometry()` tells where everything lands, in pixels, before or
/// without drawing. Geometry depends on the size, the texts and the axes' spans (so an
/// envelope or heat map whose panel has a fixed y range can be filled after asking it).
///
/// Thread rules: a plain value; every method may run on any thread, any number at once (each
/// draws on its own canvas).
public struct Figure: Sendable {
    /// The pixel sizes a side may have.
    public static let sides: ClosedRange<Int> = 64...8192
    /// The least height a panel's data area may get; a figure that leaves less is `tooSmall`.
    public static let minimumPanelHeight = 16.0

    public var width: Int
    public var height: Int
    public var title: String
    public var subtitles: [String]
    public var xAxis: Axis
    public var panels: [Panel]
    public var background: PlotColor
    /// Tick-label and legend text size in pixels (nil: from the figure's size; titles larger).
    public var fontSize: Double?

    public init(width: Int, height: Int, title: String, subtitles: [String] = [], xAxis: Axis, panels: [Panel] = [],
                background: PlotColor = .white) {
        self.width = width
        self.height = height
        self.title = title
        self.subtitles = subtitles
        self.xAxis = xAxis
        self.panels = panels
        self.background = background
    }

    /// Appends a panel (below the others); returns its index.
    @discardableResult
    public mutating func add(_ panel: Panel) -> Int {
        panels.append(panel)
        return panels.count - 1
    }

    /// Where the panels, axes and data land, in pixels.
    /// - Throws: `PlotError` for a bad size, no panel, bad spans, too little room, or cairo.
    public func geometry() throws(PlotError) -> FigureGeometry {
        try FigureLayout(self, canvas: CairoCanvas.measuring()).geometry
    }

    /// The figure encoded as `format`, in memory.
    public func render(as format: PlotFormat) throws(PlotError) -> [UInt8] {
        let canvas = try CairoCanvas(width: width, height: height, format: format)
        let layout = try FigureLayout(self, canvas: canvas)
        try FigureDrawing(figure: self, layout: layout, canvas: canvas).draw()
        return try canvas.finish()
    }

    /// Writes the figure to `path`, as PNG or SVG by its extension, all or nothing
    /// (`OutputFile.write`: nothing is left at `path` on failure).
    public func write(to path: String) throws(PlotError) {
        guard let format = PlotFormat(path: path) else { throw .unknownFormat(path: path) }
        let bytes = try render(as: format)
        do {
            try OutputFile.write(bytes, to: path)
        } catch {
            throw .writeFailed(path: path, reason: error.message)
        }
    }
}
