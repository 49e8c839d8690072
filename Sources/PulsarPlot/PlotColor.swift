/// A straight (not premultiplied) sRGB colour with alpha, 8 bits a channel.
///
/// A plain value type: safe from any thread.
public struct PlotColor: Hashable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8 = 255) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// `0xRRGGBB`, opaque.
    public init(hex: UInt32) {
        self.init(UInt8((hex >> 16) & 0xFF), UInt8((hex >> 8) & 0xFF), UInt8(hex & 0xFF))
    }

    /// The same colour with another alpha.
    public func withAlpha(_ alpha: UInt8) -> PlotColor { PlotColor(red, green, blue, alpha) }

    /// Each channel moved `amount` (0…1) of the way towards `other`'s.
    public func mixed(with other: PlotColor, _ amount: Double) -> PlotColor {
        let t = min(max(amount, 0), 1)
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return PlotColor(mix(red, other.red), mix(green, other.green), mix(blue, other.blue), mix(alpha, other.alpha))
    }

    public static let white = PlotColor(255, 255, 255)
    public static let black = PlotColor(0, 0, 0)
    /// Axis text and frames.
    public static let ink = PlotColor(40, 42, 48)
    /// Secondary text (subtitles, tick labels).
    public static let secondaryInk = PlotColor(95, 99, 108)
    /// Grid lines.
    public static let grid = PlotColor(226, 228, 233)

    /// A categorical palette that stays apart for colour-blind readers (Okabe and Ito).
    public static let blue = PlotColor(hex: 0x0072B2)
    public static let orange = PlotColor(hex: 0xE69F00)
    public static let vermilion = PlotColor(hex: 0xD55E00)
    public static let green = PlotColor(hex: 0x009E73)
    public static let skyBlue = PlotColor(hex: 0x56B4E9)
    public static let purple = PlotColor(hex: 0xCC79A7)
    public static let yellow = PlotColor(hex: 0xF0E442)
    public static let grey = PlotColor(hex: 0x7A7F8A)
}

/// Values to colours for a heat map: a piecewise-linear ramp through evenly spaced stops.
///
/// A plain value type: safe from any thread.
public struct ColorMap: Hashable, Sendable {
    /// The ramp's stops, lowest value first (at least one).
    public var stops: [PlotColor]

    public init(stops: [PlotColor]) {
        self.stops = stops.isEmpty ? [.black] : stops
    }

    /// The colour of `t` (0…1, clamped; NaN gives the lowest stop).
    public func color(at t: Double) -> PlotColor {
        guard stops.count > 1, t == t else { return stops[0] }
        let position = min(max(t, 0), 1) * Double(stops.count - 1)
        let index = min(Int(position), stops.count - 2)
        return stops[index].mixed(with: stops[index + 1], position - Double(index))
    }

    /// Dark purple through blue and green to yellow (the stops of matplotlib's viridis).
    public static let viridis = ColorMap(stops: [
        PlotColor(hex: 0x440154), PlotColor(hex: 0x482878), PlotColor(hex: 0x3E4A89), PlotColor(hex: 0x31688E),
        PlotColor(hex: 0x26828E), PlotColor(hex: 0x1F9E89), PlotColor(hex: 0x35B779), PlotColor(hex: 0x6DCD59),
        PlotColor(hex: 0xB4DE2C), PlotColor(hex: 0xFDE725),
    ])
}
