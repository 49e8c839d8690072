/// How content is laid out along the output stream: a segment `[from, to)` of the content,
/// played `loopCount` times (`PlaybackTimeline.endless`: without end); with `reverse`
/// (boomerang) every odd iteration runs the segment backwards. Pure frame arithmetic, shared by the offline renderer and the real-time engine.
///
/// Frames: `FrameIndex` counts output frames from the start of the stream; content frames count
/// samples of the preset's own time (content time `t` ms ↔ frame `round(t · rate / 1000)`).
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
    /// Odd iterations (1, 3, …) run backwards.
    public let reverse: Bool

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

    public init(segmentStart: FrameIndex, segmentEnd: FrameIndex, loopCount: Int = 1, reverse: Bool = false) throws(Problem) {
        guard segmentEnd > segmentStart else { throw .emptySegment(from: segmentStart, to: segmentEnd) }
        guard loopCount >= 1 else { throw .badLoopCount(loopCount) }
        self.segmentStart = segmentStart
        self.segmentEnd = segmentEnd
        self.loopCount = loopCount
        self.reverse = reverse
    }

    /// Frames in one iteration.
    public var segmentLength: FrameIndex { segmentEnd - segmentStart }

    /// Frames of the whole stream (`FrameIndex.max` for an endless loop).
    public var frameCount: FrameIndex {
        let (product, overflow) = segmentLength.multipliedReportingOverflow(by: FrameIndex(loopCount))
        return overflow ? FrameIndex.max : product
    }

    /// Where output frame `frame` falls: its iteration, whether that iteration runs backwards, and
    /// its offset from the iteration's first output frame. Frames outside the stream clamp to it.
    public func position(ofOutputFrame frame: FrameIndex) -> (iteration: Int, backwards: Bool, offset: FrameIndex) {
        let clamped = min(max(frame, 0), frameCount - 1)
        let iteration = Int(clamped / segmentLength)
        return (iteration, reverse && iteration % 2 == 1, clamped % segmentLength)
    }

    /// The content frame heard at output frame `frame`: forward iterations run
    /// `segmentStart ..< segmentEnd`, backward ones `segmentEnd − 1` down to `segmentStart`.
    public func contentFrame(atOutputFrame frame: FrameIndex) -> FrameIndex {
        let p = position(ofOutputFrame: frame)
        return p.backwards ? segmentEnd - 1 - p.offset : segmentStart + p.offset
    }

    /// Where this timeline continues what `old` plays at its output frame `frame`, when the loop
    /// settings or the segment change under a playing transport: the same iteration (the last
    /// one if there are fewer now) and the same content frame (clamped into this segment), in
    /// the direction this timeline gives that iteration.
    public func frame(continuing frame: FrameIndex, of old: PlaybackTimeline) -> FrameIndex {
        let iteration = min(old.position(ofOutputFrame: frame).iteration, loopCount - 1)
        let content = min(max(old.contentFrame(atOutputFrame: frame), segmentStart), segmentEnd - 1)
        let backwards = reverse && iteration % 2 == 1
        let offset = backwards ? segmentEnd - 1 - content : content - segmentStart
        return FrameIndex(iteration) * segmentLength + offset
    }
}
