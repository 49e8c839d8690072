/// A frame number on an animation's own timeline: the composition frame that `ip`, `op`,
/// marker `tm` and keyframe times count in. Fractional values are meaningful (a renderer shows
/// frame 12.5 between 12 and 13, and a 29.97 fps animation at 1 s is at frame 29.97).
///
/// A plain value type: safe to use from any thread.
public struct LottieFrame: Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    public var value: Double

    public init(_ value: Double) { self.value = value }
    public init(floatLiteral value: Double) { self.value = value }
    public init(integerLiteral value: Int) { self.value = Double(value) }

    public static func < (lhs: LottieFrame, rhs: LottieFrame) -> Bool { lhs.value < rhs.value }

    /// The whole frame a renderer shows for this instant: the largest integer frame not after it.
    public var floor: LottieFrame { LottieFrame(value.rounded(.down)) }

    public var description: String { "frame \(value)" }
}
