/// A position as a fraction of an animation's playable range: 0 at `ip`, 1 at `op`
/// (`progress = (frame − ip) / (op − ip)`, as lottie-ios and lottie-web define it). Values
/// outside 0…1 are allowed and mean frames outside the range; clamp with `clamped`.
///
/// A plain value type: safe to use from any thread.
public struct LottieProgress: Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    public var value: Double

    public init(_ value: Double) { self.value = value }
    public init(floatLiteral value: Double) { self.value = value }
    public init(integerLiteral value: Int) { self.value = Double(value) }

    public static func < (lhs: LottieProgress, rhs: LottieProgress) -> Bool { lhs.value < rhs.value }

    /// This progress limited to 0…1 (NaN becomes 0).
    public var clamped: LottieProgress {
        guard value == value else { return LottieProgress(0) }
        return LottieProgress(min(1, max(0, value)))
    }

    public var description: String { "progress \(value)" }
}
