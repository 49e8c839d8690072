import PulsarCore

/// How a segment of an animation repeats, as lottie-ios's `LottieLoopMode`.
///
/// Contract (a *pass* is one run through the segment, forward or backward):
/// - `.playOnce`: one forward pass, then hold the end.
/// - `.loop`: forward passes forever.
/// - `.autoReverse`: forward, backward, forward ... forever.
/// - `.repeat(n)`: `n` forward passes (fractional `n` stops part-way), then hold.
/// - `.repeatBackwards(n)`: `n` round trips (forward then backward), then hold.
///   A count ≤ 0 (or NaN) plays nothing: the position holds the start and is finished.
///
/// A plain value type: safe to use from any thread.
public enum LottieLoopMode: Hashable, Sendable {
    case playOnce
    case loop
    case autoReverse
    case `repeat`(Double)
    case repeatBackwards(Double)

    /// Where playback is after some time in a segment.
    public struct Position: Hashable, Sendable {
        /// The frame to show.
        public var frame: LottieFrame
        /// Which pass it is in (0 first); the last pass once finished.
        public var pass: Int
        /// True when this pass runs from the segment's end back to its start.
        public var isReversed: Bool
        /// True once every pass has played (never for `.loop` and `.autoReverse`).
        public var isFinished: Bool
    }

    /// True for the modes that never finish.
    public var isInfinite: Bool {
        switch self {
        case .loop, .autoReverse: return true
        default: return false
        }
    }

    /// How many passes play (nil: forever).
    public var passCount: Double? {
        switch self {
        case .playOnce: return 1
        case .loop, .autoReverse: return nil
        case .repeat(let n): return n.isNaN ? 0 : max(0, n)
        case .repeatBackwards(let n): return n.isNaN ? 0 : max(0, 2 * n)
        }
    }

    /// True when passes alternate direction.
    public var reverses: Bool {
        switch self {
        case .autoReverse, .repeatBackwards: return true
        default: return false
        }
    }

    /// The position `elapsedFrames` (animation frames played: seconds × frame rate × speed,
    /// not negative) after the start of the segment `from → to` (`to < from` plays backwards).
    /// The first pass starts at `from`; a segment of zero length stays at `from`.
    public func position(afterFrames elapsedFrames: Double, from: LottieFrame, to: LottieFrame) -> Position {
        let length = abs(to.value - from.value)
        // Not negative; +∞ is as far as a finite value can go.
        let elapsed = elapsedFrames.isNaN ? 0 : min(max(0, elapsedFrames), Double.greatestFiniteMagnitude)
        let passes = passCount
        guard length > 0 else {
            return Position(frame: from, pass: 0, isReversed: false, isFinished: passes != nil)
        }
        if let passes, passes == 0 {
            return Position(frame: from, pass: 0, isReversed: false, isFinished: true)
        }
        var played = elapsed
        var finished = false
        if let passes, elapsed >= passes * length {
            played = passes * length
            finished = true
        }
        // Frames into the current pass by an exact remainder (not a fraction of the length), so
        // whole-frame times land on whole frames at any elapsed time.
        var within = played.truncatingRemainder(dividingBy: length)
        let wholePasses = ((played - within) / length).rounded()
        var pass = wholePasses < 9e18 ? Int(wholePasses) : Int.max
        var reversed = reverses && played.truncatingRemainder(dividingBy: 2 * length) >= length
        if finished && within == 0 && pass > 0 {
            // Ended exactly at a pass boundary: report the end of the last pass.
            pass -= 1
            within = length
            reversed = reverses && pass % 2 == 1
        }
        let direction = to.value >= from.value ? 1.0 : -1.0
        let frame = LottieFrame(reversed ? to.value - direction * within : from.value + direction * within)
        return Position(frame: frame, pass: pass, isReversed: reversed, isFinished: finished)
    }
}
