import PulsarCore

/// A span of frames from `start` to `end`, as markers and play segments describe it. `end` may be
/// before `start` (a backwards segment); `length` is then negative.
///
/// A plain value type: safe to use from any thread.
public struct LottieFrameRange: Hashable, Sendable, CustomStringConvertible {
    public var start: LottieFrame
    public var end: LottieFrame

    public init(start: LottieFrame, end: LottieFrame) {
        self.start = start
        self.end = end
    }

    /// `end − start` in frames.
    public var length: Double { end.value - start.value }

    /// True when `frame` lies between the ends (both included), whichever way the range runs.
    public func contains(_ frame: LottieFrame) -> Bool {
        let low = min(start.value, end.value), high = max(start.value, end.value)
        return frame.value >= low && frame.value <= high
    }

    public var description: String { "frames \(start.value)…\(end.value)" }
}
