/// A 2-D value: a position in points, or a scale in percent per axis (100 = unscaled), as
/// lottie-ios's `LottieVector` values for `Position` and `Scale`.
///
/// A plain value type: safe to use from any thread.
public struct LottiePoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}
