/// How content is laid out along the output stream: a segment `[from, to)` of the content,
/// played `loopCount` times (`PlaybackTimeline.endless`: without end). The first iteration runs
/// backwards when `startsBackwards`; with `reverse` (boomerang) the direction flips at every
/// iteration, so iteration `k` runs backwards when `startsBackwards != (reverse && k is odd)`.
/// Pure frame arithmetic, shared by the offline renderer and the real-time engine.
///
/// Frames: `FrameIndex` counts output frames from the start of the stream; content frames count
/// samples of the preset's own time (content time `t` ms ↔ frame `round(t · rate / 1000)`).
/// A forward iteration runs content frames `segmentStart ..< segmentEnd`, a backward one
/// `segmentEnd − 1` down to `segmentStart`.
///
/// A plain value type: safe from any thread, real-time safe.
public struct PlaybackTimeline: Hashable, Sendable {
    /// First content frame of the segment (inclusive).
    public let segmentStart: FrameIndex
    /// Content frame where the segment ends (exclusive).
    public let segmentEnd: FrameIndex
    /// Iterations; at least 1, `endless` for a loop without end.
    public let loopCount: Int

    /// The loop count of a loop without end (its frame count saturates at `FrameIndex.max`).
    public static let endless = Int.max

    /// True for a loop without end.
    public var isEndless: Bool { loopCount == Self.endless }
    /// Boomerang: every iteration runs the other way from the one before it.
    public let reverse: Bool
    /// The first iteration runs backwards (from `segmentEnd − 1` down to `segmentStart`).
    public let startsBackwards: Bool

    public enum Problem: Error, CustomStringConvertible, Sendable {
        case emptySegment(from: FrameIndex, to: FrameIndex)
        case badLoopCount(Int)

        public var description: String {
            switch self {
            case let .emptySegment(from, to): return "the segment [\(from), \(to)) frames is empty"
            case let .badLoopCount(n): return "the loop count must be at least 1, not \(n)"
            }
        }
    }

    public init(segmentStart: FrameIndex, segmentEnd: FrameIndex, loopCount: Int = 1, reverse: Bool = false,
                startsBackwards: Bool = false) throws(Problem) {
        guard segmentEnd > segmentStart else { throw .emptySegment(from: segmentStart, to: segmentEnd) }
        guard loopCount >= 1 else { throw .badLoopCount(loopCount) }
        self.segmentStart = segmentStart
        self.segmentEnd = segmentEnd
        self.loopCount = loopCount
        self.reverse = reverse
        self.startsBackwards = startsBackwards
    }

    /// Frames in one iteration.
    public var segmentLength: FrameIndex { segmentEnd - segmentStart }

    /// Frames of the whole stream (`FrameIndex.max` for an endless loop).
    public var frameCount: FrameIndex {
        let (product, overflow) = segmentLength.multipliedReportingOverflow(by: FrameIndex(loopCount))
        return overflow ? FrameIndex.max : product
    }

    /// Whether iteration `iteration` (0-based) runs backwards:
    /// `startsBackwards != (reverse && iteration is odd)`.
    public func runsBackwards(iteration: Int) -> Bool {
        startsBackwards != (reverse && iteration % 2 == 1)
    }

    /// Where output frame `frame` falls: its iteration, whether that iteration runs backwards, and
    /// its offset from the iteration's first output frame. Frames outside the stream clamp to it.
    public func position(ofOutputFrame frame: FrameIndex) -> (iteration: Int, backwards: Bool, offset: FrameIndex) {
        let clamped = min(max(frame, 0), frameCount - 1)
        let iteration = Int(clamped / segmentLength)
        return (iteration, runsBackwards(iteration: iteration), clamped % segmentLength)
    }

    /// The content frame heard at output frame `frame`: forward iterations run
    /// `segmentStart ..< segmentEnd`, backward ones `segmentEnd − 1` down to `segmentStart`.
    public func contentFrame(atOutputFrame frame: FrameIndex) -> FrameIndex {
        let p = position(ofOutputFrame: frame)
        return p.backwards ? segmentEnd - 1 - p.offset : segmentStart + p.offset
    }

    /// The output frame at which iteration `iteration` (clamped into `0 ..< loopCount`) plays
    /// content frame `content` (clamped into the segment), in that iteration's direction: the
    /// inverse of `contentFrame(atOutputFrame:)`.
    public func outputFrame(ofContentFrame content: FrameIndex, inIteration iteration: Int) -> FrameIndex {
        let k = min(max(iteration, 0), loopCount - 1)
        let c = min(max(content, segmentStart), segmentEnd - 1)
        let offset = runsBackwards(iteration: k) ? segmentEnd - 1 - c : c - segmentStart
        return FrameIndex(k) * segmentLength + offset
    }

    /// Where this timeline continues what `old` plays at its output frame `frame`, when the loop
    /// settings, the direction or the segment change under a playing transport: the same
    /// iteration (the last one if there are fewer now) and the same content frame (clamped into
    /// this segment), in the direction this timeline gives that iteration.
    public func frame(continuing frame: FrameIndex, of old: PlaybackTimeline) -> FrameIndex {
        outputFrame(ofContentFrame: old.contentFrame(atOutputFrame: frame),
                    inIteration: old.position(ofOutputFrame: frame).iteration)
    }
}
