/// A point in a figure's data (x, y values) or in its pixels, as the context says.
///
/// A plain value type: safe from any thread.
public struct PlotPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle in pixels: `x`, `y` its top-left corner (y grows downwards), as cairo counts
/// them: pixel column `c` covers `c ..< c + 1`.
///
/// A plain value type: safe from any thread.
public struct PlotRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    public var minX: Double { x }
    public var maxX: Double { x + width }
    public var minY: Double { y }
    public var maxY: Double { y + height }
}

/// Where a laid-out figure puts things, in pixels: the one x mapping every panel shares and
/// each panel's data area and y mapping. Integer edges: a data area covers whole pixels.
///
/// Mapping (documented for tests and callers that place pixels):
/// `x(v) = plotLeft + (v − xRange.lowerBound) / (xRange.upperBound − xRange.lowerBound) · plotWidth`,
/// and in a panel `y(v) = rect.maxY − (v − yRange.lowerBound) / (yRange span) · rect.height`.
/// The pixel column holding value `v` is `column(v)`, `⌊x(v)⌋` kept inside the data area; rows
/// likewise. Series are clipped to their panel's `rect`; frames are drawn just outside it.
///
/// A plain value type: safe from any thread.
public struct FigureGeometry: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// The x values the shared axis spans, as resolved from `Figure.xAxis` and the series.
    public let xRange: ClosedRange<Double>
    /// Left edge and width, in pixels, of every panel's data area.
    public let plotLeft: Double
    public let plotWidth: Double
    /// The panels in figure order, top to bottom.
    public let panels: [PanelGeometry]
    /// The font size, in pixels, of tick labels and legends (titles are larger).
    public let fontSize: Double

    /// The pixel x of value `v` (not clamped).
    public func x(_ v: Double) -> Double {
        plotLeft + (v - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * plotWidth
    }

    /// The x value at pixel x `px`.
    public func value(atX px: Double) -> Double {
        xRange.lowerBound + (px - plotLeft) / plotWidth * (xRange.upperBound - xRange.lowerBound)
    }

    /// The pixel column holding value `v`, kept inside the data area.
    public func column(_ v: Double) -> Int {
        let c = x(v).rounded(.down)
        return Int(min(max(c.isFinite ? c : plotLeft, plotLeft), plotLeft + plotWidth - 1))
    }

    /// How many pixel columns the data area has: an `Envelope` with this many columns over
    /// `xRange` has one per pixel.
    public var columns: Int { Int(plotWidth) }
}

/// One panel's data area and y mapping (see `FigureGeometry`).
///
/// A plain value type: safe from any thread.
public struct PanelGeometry: Hashable, Sendable {
    /// The data area, whole pixels.
    public let rect: PlotRect
    /// The y values the panel spans (`Axis.range` resolved).
    public let yRange: ClosedRange<Double>
    /// The y values with a tick and a grid line, lowest first.
    public let yTicks: [Double]
    /// The header above the data area (title and legend rows).
    public let header: PlotRect

    /// The pixel y of value `v` (not clamped).
    public func y(_ v: Double) -> Double {
        rect.maxY - (v - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound) * rect.height
    }

    /// The pixel row holding value `v`, kept inside the data area.
    public func row(_ v: Double) -> Int {
        let r = y(v).rounded(.down)
        return Int(min(max(r.isFinite ? r : rect.minY, rect.minY), rect.maxY - 1))
    }

    /// The y value at pixel y `py`.
    public func value(atY py: Double) -> Double {
        yRange.lowerBound + (rect.maxY - py) / rect.height * (yRange.upperBound - yRange.lowerBound)
    }
}
