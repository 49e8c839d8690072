/// A type a value provider can yield: it names its `LottieValueType`, converts to a
/// `LottieValue`, and interpolates linearly.
///
/// Conformers are plain value types: safe to use from any thread.
public protocol LottieInterpolatable: Sendable {
    /// The `LottieValueType` of every value of this type.
    static var lottieValueType: LottieValueType { get }
    /// This value as a `LottieValue`.
    var lottieValue: LottieValue { get }
    /// `self` at `amount` 0, `other` at 1, linear between (not clamped).
    func interpolated(to other: Self, amount: Double) -> Self
}

extension Double: LottieInterpolatable {
    public static var lottieValueType: LottieValueType { .number }
    public var lottieValue: LottieValue { .number(self) }
    public func interpolated(to other: Double, amount: Double) -> Double { self + (other - self) * amount }
}

extension LottieColor: LottieInterpolatable {
    public static var lottieValueType: LottieValueType { .color }
    public var lottieValue: LottieValue { .color(self) }
    public func interpolated(to other: LottieColor, amount: Double) -> LottieColor {
        LottieColor(r: r.interpolated(to: other.r, amount: amount), g: g.interpolated(to: other.g, amount: amount),
                    b: b.interpolated(to: other.b, amount: amount), a: a.interpolated(to: other.a, amount: amount))
    }
}

extension LottiePoint: LottieInterpolatable {
    public static var lottieValueType: LottieValueType { .point }
    public var lottieValue: LottieValue { .point(self) }
    public func interpolated(to other: LottiePoint, amount: Double) -> LottiePoint {
        LottiePoint(x: x.interpolated(to: other.x, amount: amount), y: y.interpolated(to: other.y, amount: amount))
    }
}
