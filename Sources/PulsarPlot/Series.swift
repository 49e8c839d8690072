/// What a panel draws. Every kind is a plain value; a `label` puts it in the panel's legend.
///
/// A plain value type: safe from any thread.
public enum Series: Sendable {
    /// A connected line through points (a curve, a fitted rate).
    case line(Polyline)
    /// Points, optionally with stems down to a baseline and a text each (transients, events).
    case marks(Marks)
    /// A min/max band per pixel column (a waveform's or audio's peaks).
    case envelope(Envelope)
    /// A horizontal line across the panel at a y value (a limit, a band edge).
    case horizontal(ReferenceLine)
    /// A vertical line down the panel at an x value (a marker, an event).
    case vertical(ReferenceLine)
    /// A grid of values as colours (a spectrogram).
    case heatMap(HeatMap)

    /// The legend text, if the series has one.
    var label: String? {
        switch self {
        case .line(let s): return s.label
        case .marks(let s): return s.label
        case .envelope(let s): return s.label
        case .horizontal(let s), .vertical(let s): return s.legend
        case .heatMap(let s): return s.label
        }
    }
}

/// A line through `points` in order (non-finite points break it), optionally filled down to
/// `fillBaseline`.
///
/// A plain value type: safe from any thread.
public struct Polyline: Sendable {
    public var points: [PlotPoint]
    public var color: PlotColor
    /// Line width in pixels.
    public var width: Double
    /// On and off lengths in pixels; empty draws a solid line.
    public var dash: [Double]
    public var label: String?
    /// The colour of the area between the line and `fillBaseline` (nil: no fill).
    public var fill: PlotColor?
    public var fillBaseline: Double

    public init(points: [PlotPoint], color: PlotColor, width: Double = 2, dash: [Double] = [], label: String? = nil,
                fill: PlotColor? = nil, fillBaseline: Double = 0) {
        self.points = points
        self.color = color
        self.width = width
        self.dash = dash
        self.label = label
        self.fill = fill
        self.fillBaseline = fillBaseline
    }
}

/// Points drawn as discs, each optionally with a stem from `stemBaseline` and a text above it.
///
/// A stem is `stemWidth` whole pixels wide, centred on the pixel column of its x (so with the
/// default 3 the columns `column(x) − 1 … column(x) + 1` are the mark's colour).
///
/// A plain value type: safe from any thread.
public struct Marks: Sendable {
    public var points: [PlotPoint]
    public var color: PlotColor
    /// Disc diameter in pixels (0: no discs).
    public var size: Double
    /// Where stems start (nil: no stems).
    public var stemBaseline: Double?
    public var stemWidth: Int
    /// A text per point (drawn above it), or empty; texts that would overlap are left out.
    public var texts: [String]
    public var label: String?

    public init(points: [PlotPoint], color: PlotColor, size: Double = 7, stemBaseline: Double? = nil, stemWidth: Int = 3,
                texts: [String] = [], label: String? = nil) {
        self.points = points
        self.color = color
        self.size = size
        self.stemBaseline = stemBaseline
        self.stemWidth = stemWidth
        self.texts = texts
        self.label = label
    }
}

/// The smallest and largest value in each of `columns` equal buckets of x over `span`.
///
/// Give `FigureGeometry.columns` buckets over `FigureGeometry.xRange` for exactly one per
/// pixel column; any other count is resampled (a column shows the extremes of every bucket
/// that overlaps it). A bucket that received no value is not drawn.
///
/// A plain value type: safe from any thread.
public struct Envelope: Sendable {
    public let span: ClosedRange<Double>
    public private(set) var minimum: [Double]
    public private(set) var maximum: [Double]
    public var color: PlotColor
    public var label: String?

    /// Empty buckets, to be filled with `add`.
    public init(span: ClosedRange<Double>, columns: Int, color: PlotColor, label: String? = nil) {
        self.span = span
        minimum = Array(repeating: .infinity, count: max(columns, 1))
        maximum = Array(repeating: -.infinity, count: max(columns, 1))
        self.color = color
        self.label = label
    }

    /// Buckets already computed (the two arrays must have one count).
    public init(span: ClosedRange<Double>, minimum: [Double], maximum: [Double], color: PlotColor, label: String? = nil) {
        self.span = span
        self.minimum = minimum
        self.maximum = maximum
        self.color = color
        self.label = label
    }

    public var columns: Int { minimum.count }

    /// The bucket of `x`, or nil outside `span`.
    public func bucket(ofX x: Double) -> Int? {
        let width = span.upperBound - span.lowerBound
        guard width > 0, x >= span.lowerBound, x <= span.upperBound else { return nil }
        return min(Int((x - span.lowerBound) / width * Double(columns)), columns - 1)
    }

    /// Adds `value` at `x` (ignored outside `span` or when not finite).
    public mutating func add(_ value: Double, atX x: Double) {
        guard value.isFinite, let b = bucket(ofX: x) else { return }
        if value < minimum[b] { minimum[b] = value }
        if value > maximum[b] { maximum[b] = value }
    }

    /// Adds `samples[i]` at `firstX + i · xStep`: a block of a signal.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, firstX: Double, xStep: Double) {
        let width = span.upperBound - span.lowerBound
        guard width > 0, xStep > 0 else { return }
        let perBucket = width / Double(columns)
        var i = 0
        while i < samples.count {
            let x = firstX + Double(i) * xStep
            guard let b = bucket(ofX: x) else { i += 1; continue }
            // The samples that fall in bucket b, taken at once.
            let bucketEnd = span.lowerBound + Double(b + 1) * perBucket
            let end = min(samples.count, max(i + 1, Int(((bucketEnd - firstX) / xStep).rounded(.up))))
            var lo = minimum[b], hi = maximum[b]
            for v in samples[i..<end] where v.isFinite {
                lo = min(lo, Double(v))
                hi = max(hi, Double(v))
            }
            minimum[b] = lo
            maximum[b] = hi
            i = end
        }
    }
}

/// A horizontal or vertical line at `value` across its panel, with an optional text by it.
///
/// A plain value type: safe from any thread.
public struct ReferenceLine: Sendable {
    public var value: Double
    public var color: PlotColor
    public var width: Double
    public var dash: [Double]
    /// Drawn beside the line (vertical: at the top, staggered so texts never overlap;
    /// horizontal: at the right, above the line).
    public var label: String?
    /// The line's entry in the legend (nil: none), e.g. "markers" for a set of named lines.
    public var legend: String?

    public init(_ value: Double, color: PlotColor, width: Double = 1, dash: [Double] = [6, 4], label: String? = nil,
                legend: String? = nil) {
        self.value = value
        self.color = color
        self.width = width
        self.dash = dash
        self.label = label
        self.legend = legend
    }
}

/// A grid of `columns × rows` values over `xSpan × ySpan`, each cell coloured by `colorMap`
/// from where its value falls in `valueRange`. Row 0 is the lowest y; cells default to NaN
/// (drawn in the lowest colour).
///
/// A plain value type: safe from any thread.
public struct HeatMap: Sendable {
    public let xSpan: ClosedRange<Double>
    public let ySpan: ClosedRange<Double>
    public let columns: Int
    public let rows: Int
    public private(set) var values: [Double]
    public var valueRange: ClosedRange<Double>
    public var colorMap: ColorMap
    /// Legend text; the legend shows the ramp from `valueRange`'s ends (in `unit`).
    public var label: String?
    public var unit: String?
    /// Interpolates between cells (else each is a sharp block).
    public var smooth: Bool

    public init(xSpan: ClosedRange<Double>, ySpan: ClosedRange<Double>, columns: Int, rows: Int, valueRange: ClosedRange<Double>,
                colorMap: ColorMap = .viridis, label: String? = nil, unit: String? = nil, smooth: Bool = false) {
        self.xSpan = xSpan
        self.ySpan = ySpan
        self.columns = max(columns, 1)
        self.rows = max(rows, 1)
        values = Array(repeating: .nan, count: self.columns * self.rows)
        self.valueRange = valueRange
        self.colorMap = colorMap
        self.label = label
        self.unit = unit
        self.smooth = smooth
    }

    public subscript(column: Int, row: Int) -> Double {
        get { values[row * columns + column] }
        set { values[row * columns + column] = newValue }
    }

    /// Sets a whole column, row 0 first (extra values are ignored).
    public mutating func setColumn(_ column: Int, _ columnValues: [Double]) {
        for (row, v) in columnValues.prefix(rows).enumerated() { values[row * columns + column] = v }
    }
}
