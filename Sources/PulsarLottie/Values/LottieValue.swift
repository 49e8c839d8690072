/// A dynamic-property value of one of the three kinds rlottie can take.
///
/// Units: colours 0…1 per component; opacity in percent (0…100); stroke width in points;
/// rotation in degrees; position in points; scale in percent per axis (100 = unscaled).
///
/// A plain value type: safe to use from any thread.
public enum LottieValue: Hashable, Sendable, CustomStringConvertible {
    case color(LottieColor)
    case number(Double)
    case point(LottiePoint)

    /// The kind of value.
    public var type: LottieValueType {
        switch self {
        case .color: return .color
        case .number: return .number
        case .point: return .point
        }
    }

    /// Parses command-line text as a value of `type`: `#RRGGBB` / `#RRGGBBAA` for a colour, a
    /// decimal number, or `X,Y` for a point. Nil when the text does not fit.
    public static func parse(_ text: String, as type: LottieValueType) -> LottieValue? {
        let trimmed = text.trimmingSpaces
        switch type {
        case .color:
            return LottieColor(hex: trimmed).map(LottieValue.color)
        case .number:
            guard let n = Double(trimmed), n.isFinite else { return nil }
            return .number(n)
        case .point:
            let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Double(String(parts[0]).trimmingSpaces),
                  let y = Double(String(parts[1]).trimmingSpaces), x.isFinite, y.isFinite else { return nil }
            return .point(LottiePoint(x: x, y: y))
        }
    }

    public var description: String {
        switch self {
        case .color(let c): return c.hex
        case .number(let n): return "\(n)"
        case .point(let p): return "\(p.x),\(p.y)"
        }
    }
}

/// The kinds of `LottieValue`. A plain value: any thread.
public enum LottieValueType: String, Hashable, Sendable {
    case color, number, point
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
